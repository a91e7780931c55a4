//! The SM4/SM5 token encoder: the exact inverse of the decoder.
//!
//! In: a [`Program`]. Out: its token stream (version, length, instructions)
//! and, through [`write_dxbc`], a container fxc-style (ISGN, OSGN, then
//! SHDR for SM4 or SHEX for SM5) with a valid checksum. Invariant: for
//! every program the encoder accepts, `decode_program(&encode_program(p)?)?
//! == p`; anything the token format cannot hold (a field too wide for its
//! bits, an instruction over 127 dwords, an immediate of the wrong size) is
//! an [`EncodeError`] naming the declaration or instruction index.

use super::container::{Chunk, Container};
use super::decode::{
    allowed_controls, dcl_bits, decl_opcode, ext_opcode_fields, is_other_decl, ICB_CLASS,
    MAX_ICB_DWORDS,
};
use super::EncodeError;
use crate::ir::{
    Components, Decl, ExtOpcode, Index, Instruction, Modifier, Opcode, Operand, OperandType,
    Program, ResourceDim, ReturnType, Selection, UavFlags,
};

/// An empty signature chunk: zero elements, elements at offset 8.
const EMPTY_SIGNATURE: [u8; 8] = [0, 0, 0, 0, 8, 0, 0, 0];

/// Encodes a program as a token stream (version token first).
pub fn encode_program(p: &Program) -> Result<Vec<u32>, EncodeError> {
    let v = p.version;
    if v.major > 0xF || v.minor > 0xF {
        return Err(EncodeError::Item {
            kind: "version",
            index: 0,
            opcode: "",
            what: format!("model {}.{} does not fit in 4 bits", v.major, v.minor),
        });
    }
    let mut out = vec![
        ((v.kind as u32) << 16) | ((v.major as u32) << 4) | v.minor as u32,
        0,
    ];
    for (index, d) in p.decls.iter().enumerate() {
        let op = decl_opcode(d);
        let mut e = Enc {
            out: Vec::new(),
            kind: "declaration",
            index,
            op,
        };
        e.decl(d, p.version.is_sm51())?;
        out.extend_from_slice(&e.out);
    }
    for (index, inst) in p.insts.iter().enumerate() {
        let mut e = Enc {
            out: Vec::new(),
            kind: "instruction",
            index,
            op: inst.opcode,
        };
        e.inst(inst)?;
        out.extend_from_slice(&e.out);
    }
    out[1] = u32::try_from(out.len()).map_err(|_| EncodeError::TooLong { len: out.len() })?;
    Ok(out)
}

/// Writes a container: ISGN and OSGN (the given chunk data, or empty
/// 8-byte signatures), then SHDR (major 4) or SHEX (major 5), with a valid
/// checksum.
pub fn write_dxbc(
    p: &Program,
    input_sig: Option<&[u8]>,
    output_sig: Option<&[u8]>,
) -> Result<Vec<u8>, EncodeError> {
    let tokens = encode_program(p)?;
    let shader_tag = if p.version.major >= 5 {
        *b"SHEX"
    } else {
        *b"SHDR"
    };
    let container = Container {
        chunks: vec![
            Chunk {
                tag: *b"ISGN",
                data: input_sig.unwrap_or(&EMPTY_SIGNATURE).to_vec(),
            },
            Chunk {
                tag: *b"OSGN",
                data: output_sig.unwrap_or(&EMPTY_SIGNATURE).to_vec(),
            },
            Chunk {
                tag: shader_tag,
                data: tokens.iter().flat_map(|w| w.to_le_bytes()).collect(),
            },
        ],
    };
    Ok(container.to_bytes())
}

/// The encoder for one declaration or instruction.
struct Enc {
    out: Vec<u32>,
    kind: &'static str,
    index: usize,
    op: Opcode,
}

impl Enc {
    fn err(&self, what: impl Into<String>) -> EncodeError {
        EncodeError::Item {
            kind: self.kind,
            index: self.index,
            opcode: self.op.mnemonic(),
            what: what.into(),
        }
    }

    /// Starts an instruction: the opcode token with its controls, length
    /// patched by [`Enc::finish`].
    fn begin(&mut self, controls: u32, extended: bool) -> Result<(), EncodeError> {
        if controls > 0x1FFF {
            return Err(self.err(format!("controls {controls:#x} do not fit in 13 bits")));
        }
        self.out
            .push(self.op.number() | (controls << 11) | if extended { 1 << 31 } else { 0 });
        Ok(())
    }

    /// Writes the length field, using the length-0 escape for the long
    /// declarations that allow it.
    fn finish(&mut self) -> Result<(), EncodeError> {
        let len = self.out.len();
        if len <= 127 {
            self.out[0] |= (len as u32) << 24;
            return Ok(());
        }
        if matches!(self.op, Opcode::DclFunctionTable | Opcode::DclInterface) {
            let len = u32::try_from(len + 1).map_err(|_| self.err("instruction too long"))?;
            self.out.insert(1, len);
            return Ok(());
        }
        Err(self.err(format!(
            "instruction is {len} dwords; the length field holds at most 127"
        )))
    }

    fn inst(&mut self, inst: &Instruction) -> Result<(), EncodeError> {
        let extra = inst.controls & !allowed_controls(inst.opcode);
        if extra != 0 || inst.opcode.is_declaration() || inst.opcode == Opcode::CustomData {
            return Err(self.err(format!(
                "control bits {extra:#x} not allowed, or not an executable opcode"
            )));
        }
        if inst.opcode == Opcode::ResInfo && inst.controls & 0x3 == 0x3 {
            return Err(self.err("reserved resinfo return type 3"));
        }
        self.begin(inst.controls, !inst.ext.is_empty())?;
        for (i, e) in inst.ext.iter().enumerate() {
            let more = if i + 1 < inst.ext.len() { 1 << 31 } else { 0 };
            let word = self.ext_opcode(e)?;
            self.out.push(word | more);
        }
        for op in &inst.operands {
            self.operand(op, 0)?;
        }
        self.finish()
    }

    fn ext_opcode(&self, e: &ExtOpcode) -> Result<u32, EncodeError> {
        let (ty, payload) = match *e {
            ExtOpcode::SampleControls(o) => {
                if o.iter().any(|v| !(-8..=7).contains(v)) {
                    return Err(self.err(format!("texel offsets {o:?} outside -8..7")));
                }
                let nib = |v: i8| (v as u8 & 0xF) as u32;
                (1, (nib(o[0]) << 9) | (nib(o[1]) << 13) | (nib(o[2]) << 17))
            }
            ExtOpcode::ResourceDim { dim, stride } => {
                if stride > 0xFFF {
                    return Err(
                        self.err(format!("structure stride {stride} does not fit in 12 bits"))
                    );
                }
                (2, ((dim as u32) << 6) | (stride << 11))
            }
            ExtOpcode::ReturnType(r) => (3, return_bits(r) << 6),
        };
        debug_assert_eq!(payload & !ext_opcode_fields(ty).unwrap_or(0), 0);
        Ok(ty | payload)
    }

    fn operand(&mut self, op: &Operand, depth: u32) -> Result<(), EncodeError> {
        if op.indices.len() > 3 {
            return Err(self.err(format!(
                "operand has {} indices (at most 3)",
                op.indices.len()
            )));
        }
        let mut tok = components_bits(op.comps).map_err(|m| self.err(m))?;
        tok |= (op.ty as u32) << 12;
        tok |= (op.indices.len() as u32) << 20;
        for (d, index) in op.indices.iter().enumerate() {
            tok |= index_rep(index) << (22 + 3 * d);
        }
        let ext = op.needs_extended_token();
        if ext {
            tok |= 1 << 31;
        }
        self.out.push(tok);
        if ext {
            if op.min_precision > 7 || matches!(op.min_precision, 3 | 6 | 7) {
                return Err(self.err(format!("invalid min-precision value {}", op.min_precision)));
            }
            let m = match op.modifier {
                Modifier::None => 0,
                Modifier::Neg => 1,
                Modifier::Abs => 2,
                Modifier::AbsNeg => 3,
            };
            self.out.push(
                1 | (m << 6) | ((op.min_precision as u32) << 14) | ((op.nonuniform as u32) << 17),
            );
        }
        self.immediates(op)?;
        for index in &op.indices {
            self.index(index, depth)?;
        }
        Ok(())
    }

    fn immediates(&mut self, op: &Operand) -> Result<(), EncodeError> {
        let want = match (op.ty, op.comps) {
            (OperandType::Imm32, Components::One) => 1,
            (OperandType::Imm64, Components::One) => 2,
            (OperandType::Imm32 | OperandType::Imm64, Components::Four(_)) => 4,
            (OperandType::Imm32 | OperandType::Imm64, Components::Zero) => {
                return Err(self.err("immediate operand with 0 components"))
            }
            _ => 0,
        };
        if op.imm.len() != want {
            return Err(self.err(format!(
                "operand carries {} immediate dwords, expected {want}",
                op.imm.len()
            )));
        }
        if want > 0 && !op.indices.is_empty() {
            return Err(self.err("immediate operand with indices"));
        }
        self.out.extend_from_slice(&op.imm);
        Ok(())
    }

    fn index(&mut self, index: &Index, depth: u32) -> Result<(), EncodeError> {
        let push64 = |out: &mut Vec<u32>, v: u64| {
            out.push((v >> 32) as u32);
            out.push(v as u32);
        };
        let rel = match index {
            Index::Imm32(v) => {
                self.out.push(*v);
                None
            }
            Index::Imm64(v) => {
                push64(&mut self.out, *v);
                None
            }
            Index::Relative(r) => Some(r),
            Index::Imm32PlusRelative(v, r) => {
                self.out.push(*v);
                Some(r)
            }
            Index::Imm64PlusRelative(v, r) => {
                push64(&mut self.out, *v);
                Some(r)
            }
        };
        if let Some(r) = rel {
            if depth >= 1 {
                return Err(self.err("relative index nested more than one level deep"));
            }
            self.operand(r, depth + 1)?;
        }
        Ok(())
    }

    fn decl(&mut self, d: &Decl, sm51: bool) -> Result<(), EncodeError> {
        use dcl_bits::*;
        match d {
            Decl::ImmediateConstantBuffer(data) => return self.icb(data),
            Decl::GlobalFlags(f) => self.fields(*f, GLOBAL_FLAGS, &[])?,
            Decl::Temps(n) => self.fields(0, 0, &[*n])?,
            Decl::IndexableTemp { reg, len, comps } => self.fields(0, 0, &[*reg, *len, *comps])?,
            Decl::ThreadGroup(g) => self.fields(0, 0, g)?,
            Decl::Input(op) | Decl::Output(op) => self.with_op(0, 0, op, &[])?,
            Decl::InputSgv { op, name }
            | Decl::InputSiv { op, name }
            | Decl::OutputSgv { op, name }
            | Decl::OutputSiv { op, name } => self.with_op(0, 0, op, &[*name])?,
            Decl::InputPs { op, interp } => self.with_op(*interp, INTERP, op, &[])?,
            Decl::InputPsSgv { op, interp, name } | Decl::InputPsSiv { op, interp, name } => {
                self.with_op(*interp, INTERP, op, &[*name])?
            }
            Decl::ConstantBuffer {
                op,
                dynamic,
                size,
                space,
            } => {
                let tail: &[u32] = if sm51 { &[*size, *space] } else { &[] };
                self.with_op(*dynamic as u32, CB_DYNAMIC, op, tail)?
            }
            Decl::Sampler { op, mode, space } => {
                self.with_op(*mode, SAMPLER_MODE, op, &space_tail(sm51, *space))?
            }
            Decl::Resource {
                op,
                dim,
                sample_count,
                ret,
                space,
            } => {
                if *sample_count > 0x7F {
                    return Err(self.err(format!(
                        "sample count {sample_count} does not fit in 7 bits"
                    )));
                }
                self.check_dim(*dim)?;
                let controls = (*dim as u32) | (sample_count << SAMPLE_COUNT_SHIFT);
                self.resource_like(
                    controls,
                    RES_DIM | SAMPLE_COUNT,
                    op,
                    &[return_bits(*ret)],
                    sm51,
                    *space,
                )?
            }
            Decl::ResourceRaw { op, space } => self.resource_like(0, 0, op, &[], sm51, *space)?,
            Decl::ResourceStructured { op, stride, space } => {
                self.resource_like(0, 0, op, &[*stride], sm51, *space)?
            }
            Decl::UavTyped {
                op,
                dim,
                flags,
                ret,
                space,
            } => {
                self.check_dim(*dim)?;
                let controls = (*dim as u32) | flag_bits(*flags);
                self.resource_like(
                    controls,
                    RES_DIM | GLC | ROV,
                    op,
                    &[return_bits(*ret)],
                    sm51,
                    *space,
                )?
            }
            Decl::UavRaw { op, flags, space } => {
                self.resource_like(flag_bits(*flags), GLC | ROV, op, &[], sm51, *space)?
            }
            Decl::UavStructured {
                op,
                stride,
                flags,
                space,
            } => self.resource_like(
                flag_bits(*flags),
                GLC | ROV | OPC,
                op,
                &[*stride],
                sm51,
                *space,
            )?,
            Decl::TgsmRaw { op, bytes } => self.with_op(0, 0, op, &[*bytes])?,
            Decl::TgsmStructured { op, stride, count } => {
                self.with_op(0, 0, op, &[*stride, *count])?
            }
            Decl::IndexRange { op, count } => self.with_op(0, 0, op, &[*count])?,
            Decl::FunctionBody(i) => self.fields(0, 0, &[*i])?,
            Decl::FunctionTable { index, bodies } => {
                let n = u32::try_from(bodies.len())
                    .map_err(|_| self.err("too many function bodies"))?;
                self.begin(0, false)?;
                self.out.extend_from_slice(&[*index, n]);
                self.out.extend_from_slice(bodies);
            }
            Decl::Interface {
                index,
                dynamic,
                table_len,
                array_len,
                tables,
            } => {
                if tables.len() > 0xFFFF || *array_len > 0xFFFF {
                    return Err(
                        self.err("interface table count or array length does not fit in 16 bits")
                    );
                }
                self.begin(*dynamic as u32, false)?;
                let packed = tables.len() as u32 | (array_len << 16);
                self.out.extend_from_slice(&[*index, *table_len, packed]);
                self.out.extend_from_slice(tables);
            }
            Decl::Other {
                opcode,
                controls,
                body,
            } => {
                if !is_other_decl(*opcode) {
                    return Err(
                        self.err("Decl::Other holds an opcode that has its own declaration form")
                    );
                }
                self.begin(*controls, false)?;
                self.out.extend_from_slice(body);
            }
        }
        self.finish()
    }

    /// A declaration of plain dwords.
    fn fields(&mut self, controls: u32, allowed: u32, words: &[u32]) -> Result<(), EncodeError> {
        self.check_controls(controls, allowed)?;
        self.begin(controls, false)?;
        self.out.extend_from_slice(words);
        Ok(())
    }

    /// A declaration of one operand and then plain dwords.
    fn with_op(
        &mut self,
        controls: u32,
        allowed: u32,
        op: &Operand,
        tail: &[u32],
    ) -> Result<(), EncodeError> {
        self.check_controls(controls, allowed)?;
        self.begin(controls, false)?;
        self.operand(op, 0)?;
        self.out.extend_from_slice(tail);
        Ok(())
    }

    /// A resource, UAV or sampler declaration: operand, fields, then the
    /// SM5.1 space.
    fn resource_like(
        &mut self,
        controls: u32,
        allowed: u32,
        op: &Operand,
        fields: &[u32],
        sm51: bool,
        space: u32,
    ) -> Result<(), EncodeError> {
        let mut tail = fields.to_vec();
        tail.extend(space_tail(sm51, space));
        self.with_op(controls, allowed, op, &tail)
    }

    fn check_dim(&self, dim: ResourceDim) -> Result<(), EncodeError> {
        if matches!(dim, ResourceDim::RawBuffer | ResourceDim::StructuredBuffer) {
            return Err(self.err(format!("{dim:?} is only valid in an extended opcode token")));
        }
        Ok(())
    }

    fn check_controls(&self, controls: u32, allowed: u32) -> Result<(), EncodeError> {
        if controls & !allowed != 0 {
            return Err(self.err(format!(
                "control bits {:#x} not allowed on this declaration",
                controls & !allowed
            )));
        }
        Ok(())
    }

    fn icb(&mut self, data: &[u32]) -> Result<(), EncodeError> {
        if data.len() % 4 != 0 || data.len() > MAX_ICB_DWORDS {
            return Err(self.err(format!(
                "immediate constant buffer of {} dwords (need whole rows, at most 4096)",
                data.len()
            )));
        }
        self.out
            .push(Opcode::CustomData.number() | (ICB_CLASS << 11));
        self.out.push(data.len() as u32 + 2);
        self.out.extend_from_slice(data);
        Ok(())
    }
}

fn space_tail(sm51: bool, space: u32) -> Vec<u32> {
    if sm51 {
        vec![space]
    } else {
        Vec::new()
    }
}

fn flag_bits(f: UavFlags) -> u32 {
    let mut c = 0;
    if f.globally_coherent {
        c |= dcl_bits::GLC;
    }
    if f.rasterizer_ordered {
        c |= dcl_bits::ROV;
    }
    if f.order_preserving_counter {
        c |= dcl_bits::OPC;
    }
    c
}

fn return_bits(r: [ReturnType; 4]) -> u32 {
    r.iter()
        .enumerate()
        .map(|(i, t)| (*t as u32) << (4 * i))
        .fold(0, |a, b| a | b)
}

fn components_bits(c: Components) -> Result<u32, String> {
    Ok(match c {
        Components::Zero => 0,
        Components::One => 1,
        Components::Four(Selection::Mask(m)) if m <= 0xF => 2 | ((m as u32) << 4),
        Components::Four(Selection::Swizzle(s)) if s.iter().all(|&c| c < 4) => {
            2 | (1 << 2)
                | s.iter()
                    .enumerate()
                    .map(|(i, &c)| (c as u32) << (4 + 2 * i))
                    .fold(0, |a, b| a | b)
        }
        Components::Four(Selection::Select1(c)) if c < 4 => 2 | (2 << 2) | ((c as u32) << 4),
        other => return Err(format!("component selection {other:?} out of range")),
    })
}

fn index_rep(index: &Index) -> u32 {
    match index {
        Index::Imm32(_) => 0,
        Index::Imm64(_) => 1,
        Index::Relative(_) => 2,
        Index::Imm32PlusRelative(..) => 3,
        Index::Imm64PlusRelative(..) => 4,
    }
}
