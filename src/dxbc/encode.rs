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
use super::decode::{dcl_bits, ext_opcode_fields, is_other_decl, ICB_CLASS, MAX_ICB_DWORDS};
use super::EncodeError;
use crate::ir::{
    Components, Decl, ExtOpcode, Index, Instruction, Modifier, Opcode, Operand, OperandType,
    Program, ResourceDim, ReturnType, Selection, UavFlags,
};
use crate::ir::{InterfaceDecl, TypedResourceDecl, TypedUavDecl};

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
        let op = d.opcode();
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
/// 8-byte signatures), then the token stream with a valid checksum. The
/// stream goes into SHEX for SM5 and for cs_4_x (compute is an SM5-era
/// feature; fxc writes SHEX for the cs_4_0 shaders in the corpus), and into
/// SHDR for the other SM4 programs.
pub fn write_dxbc(
    p: &Program,
    input_sig: Option<&[u8]>,
    output_sig: Option<&[u8]>,
) -> Result<Vec<u8>, EncodeError> {
    let tokens = encode_program(p)?;
    let shader_tag = if p.version.major >= 5 || p.version.is_cs4() {
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
        let extra = inst.controls & !inst.opcode.allowed_controls();
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
            Decl::GlobalFlags(f) => {
                if f & 0x7FF != 0 {
                    return Err(self.err(format!("global flags {f:#x} set bits below bit 11")));
                }
                self.fields(f >> 11, GLOBAL_FLAGS, &[])?
            }
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
            Decl::ConstantBuffer(cb) => {
                let tail: &[u32] = if sm51 { &[cb.size, cb.space] } else { &[] };
                self.with_op(cb.dynamic as u32, CB_DYNAMIC, &cb.op, tail)?
            }
            Decl::Sampler { op, mode, space } => {
                self.with_op(*mode, SAMPLER_MODE, op, &space_tail(sm51, *space))?
            }
            Decl::Resource(r) => self.typed_resource(r, sm51)?,
            Decl::ResourceRaw {
                op,
                space,
                buffer_dim,
            } => self.resource_like(dim_bits(*buffer_dim), RES_DIM, op, &[], sm51, *space)?,
            Decl::ResourceStructured {
                op,
                stride,
                space,
                buffer_dim,
            } => {
                self.resource_like(dim_bits(*buffer_dim), RES_DIM, op, &[*stride], sm51, *space)?
            }
            Decl::UavTyped(u) => self.typed_uav(u, sm51)?,
            Decl::UavRaw {
                op,
                flags,
                space,
                buffer_dim,
            } => self.resource_like(
                flag_bits(*flags) | dim_bits(*buffer_dim),
                RES_DIM | GLC | ROV,
                op,
                &[],
                sm51,
                *space,
            )?,
            Decl::UavStructured(u) => {
                let controls = flag_bits(u.flags) | dim_bits(u.buffer_dim);
                let allowed = RES_DIM | GLC | ROV | OPC;
                self.resource_like(controls, allowed, &u.op, &[u.stride], sm51, u.space)?
            }
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
            Decl::Interface(i) => self.interface(i)?,
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

    fn typed_resource(&mut self, r: &TypedResourceDecl, sm51: bool) -> Result<(), EncodeError> {
        use dcl_bits::*;
        if r.sample_count > 0x7F {
            let n = r.sample_count;
            return Err(self.err(format!("sample count {n} does not fit in 7 bits")));
        }
        self.check_dim(r.dim)?;
        let controls = (r.dim as u32) | (r.sample_count << SAMPLE_COUNT_SHIFT);
        let ret = [return_bits(r.ret)];
        let allowed = RES_DIM | SAMPLE_COUNT;
        self.resource_like(controls, allowed, &r.op, &ret, sm51, r.space)
    }

    fn typed_uav(&mut self, u: &TypedUavDecl, sm51: bool) -> Result<(), EncodeError> {
        use dcl_bits::*;
        self.check_dim(u.dim)?;
        let controls = (u.dim as u32) | flag_bits(u.flags);
        let ret = [return_bits(u.ret)];
        self.resource_like(controls, RES_DIM | GLC | ROV, &u.op, &ret, sm51, u.space)
    }

    fn interface(&mut self, i: &InterfaceDecl) -> Result<(), EncodeError> {
        if i.tables.len() > 0xFFFF || i.array_len > 0xFFFF {
            return Err(self.err("interface table count or array length does not fit in 16 bits"));
        }
        self.begin(i.dynamic as u32, false)?;
        let packed = i.tables.len() as u32 | (i.array_len << 16);
        self.out.extend_from_slice(&[i.index, i.table_len, packed]);
        self.out.extend_from_slice(&i.tables);
        Ok(())
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

/// The dimension field of a raw or structured declaration: 1 (buffer) in
/// vkd3d-shader's form, 0 in fxc's.
fn dim_bits(buffer_dim: bool) -> u32 {
    u32::from(buffer_dim) * ResourceDim::Buffer as u32
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dxbc::decode::tests::RAW_TGSM;
    use crate::dxbc::{decode_program, dxbc_checksum, read_dxbc, ReadOptions};
    use crate::ir::{ConstantBufferDecl, StructuredUavDecl};
    use crate::ir::{ProgramKind, Version};

    fn cs(major: u8, minor: u8) -> Version {
        Version {
            kind: ProgramKind::Compute,
            major,
            minor,
        }
    }

    fn reg(ty: OperandType, index: u32) -> Operand {
        let mut op = Operand::new(ty, Components::Zero);
        op.indices.push(Index::Imm32(index));
        op
    }

    #[test]
    fn worked_example_reencodes_and_matches_the_vkd3d_checksum() {
        let p = decode_program(&RAW_TGSM).unwrap();
        assert_eq!(encode_program(&p).unwrap(), RAW_TGSM);
        // VK-TEST `raw_tgsm_code`: ISGN, OSGN, SHEX, 328 bytes.
        let bytes = write_dxbc(&p, None, None).unwrap();
        assert_eq!(bytes.len(), 328);
        let stored: Vec<u32> = (0..5)
            .map(|i| u32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().unwrap()))
            .collect();
        assert_eq!(
            stored,
            [0x43425844, 0x467df6d9, 0x5f56edda, 0x5c96b787, 0x60c91fb8]
        );
        assert_eq!(dxbc_checksum(&bytes).to_vec(), stored[1..]);
        let back = read_dxbc(&bytes, &ReadOptions::default()).unwrap();
        assert_eq!(back.program, p);
        assert_eq!(back.info.input_signature, Some(vec![]));
    }

    #[test]
    fn sm4_programs_go_into_shdr_and_cs4_into_shex() {
        let cs4 = Program {
            version: cs(4, 0),
            decls: vec![],
            insts: vec![Instruction::new(Opcode::Ret, vec![])],
        };
        let bytes = write_dxbc(&cs4, None, None).unwrap();
        let c = Container::parse(&bytes, &ReadOptions::default()).unwrap();
        assert!(c.chunk(b"SHEX").is_some());
        let p = Program {
            version: Version {
                kind: ProgramKind::Pixel,
                major: 4,
                minor: 0,
            },
            decls: vec![],
            insts: vec![Instruction::new(Opcode::Ret, vec![])],
        };
        let bytes = write_dxbc(&p, None, None).unwrap();
        let c = Container::parse(&bytes, &ReadOptions::default()).unwrap();
        let tags: Vec<[u8; 4]> = c.chunks.iter().map(|c| c.tag).collect();
        assert_eq!(tags, [*b"ISGN", *b"OSGN", *b"SHDR"]);
    }

    #[test]
    fn every_declaration_form_round_trips() {
        let mut range = reg(OperandType::Uav, 2);
        range.indices.extend([Index::Imm32(4), Index::Imm32(7)]);
        let mut cb = reg(OperandType::ConstantBuffer, 0);
        cb.comps = Components::Four(Selection::Swizzle([0, 1, 2, 3]));
        cb.indices.push(Index::Imm32(3));
        let ret = [ReturnType::Float; 4];
        let flags = UavFlags {
            globally_coherent: true,
            rasterizer_ordered: false,
            order_preserving_counter: false,
        };
        let opc = UavFlags {
            order_preserving_counter: true,
            ..flags
        };
        let sm50 = vec![
            Decl::GlobalFlags(0x800 | 0x2000),
            Decl::ImmediateConstantBuffer(vec![1, 2, 3, 4, 5, 6, 7, 8]),
            Decl::ConstantBuffer(ConstantBufferDecl {
                op: cb.clone(),
                dynamic: true,
                size: 3,
                space: 0,
            }),
            Decl::Sampler {
                op: reg(OperandType::Sampler, 1),
                mode: 1,
                space: 0,
            },
            Decl::Resource(TypedResourceDecl {
                op: reg(OperandType::Resource, 0),
                dim: ResourceDim::Texture2DMS,
                sample_count: 4,
                ret,
                space: 0,
            }),
            Decl::ResourceRaw {
                op: reg(OperandType::Resource, 1),
                space: 0,
                buffer_dim: false,
            },
            Decl::ResourceStructured {
                op: reg(OperandType::Resource, 2),
                stride: 16,
                space: 0,
                buffer_dim: true,
            },
            Decl::UavTyped(TypedUavDecl {
                op: reg(OperandType::Uav, 0),
                dim: ResourceDim::Texture3D,
                flags,
                ret,
                space: 0,
            }),
            Decl::UavRaw {
                op: reg(OperandType::Uav, 1),
                flags,
                space: 0,
                buffer_dim: true,
            },
            Decl::UavStructured(StructuredUavDecl {
                op: reg(OperandType::Uav, 2),
                stride: 8,
                flags: opc,
                space: 0,
                buffer_dim: false,
            }),
            Decl::Temps(3),
            Decl::IndexableTemp {
                reg: 0,
                len: 5,
                comps: 4,
            },
            Decl::TgsmRaw {
                op: reg(OperandType::Tgsm, 0),
                bytes: 64,
            },
            Decl::TgsmStructured {
                op: reg(OperandType::Tgsm, 1),
                stride: 4,
                count: 32,
            },
            Decl::ThreadGroup([8, 8, 1]),
            Decl::FunctionBody(3),
            Decl::FunctionTable {
                index: 0,
                bodies: (0..200).collect(),
            },
            Decl::Interface(InterfaceDecl {
                index: 1,
                dynamic: true,
                table_len: 2,
                array_len: 3,
                tables: vec![0, 1],
            }),
            Decl::Other {
                opcode: Opcode::DclGsInstanceCount,
                controls: 0,
                body: vec![4],
            },
        ];
        let p = Program {
            version: cs(5, 0),
            decls: sm50,
            insts: vec![],
        };
        let tokens = encode_program(&p).unwrap();
        assert_eq!(decode_program(&tokens).unwrap(), p);
        let sm51 = vec![
            Decl::ConstantBuffer(ConstantBufferDecl {
                op: range.clone(),
                dynamic: false,
                size: 12,
                space: 2,
            }),
            Decl::UavStructured(StructuredUavDecl {
                op: range.clone(),
                stride: 4,
                flags: UavFlags::default(),
                space: 1,
                buffer_dim: false,
            }),
            Decl::Resource(TypedResourceDecl {
                op: range.clone(),
                dim: ResourceDim::Buffer,
                sample_count: 0,
                ret,
                space: 5,
            }),
            Decl::Sampler {
                op: range,
                mode: 0,
                space: 3,
            },
        ];
        let p = Program {
            version: cs(5, 1),
            decls: sm51,
            insts: vec![],
        };
        assert_eq!(decode_program(&encode_program(&p).unwrap()).unwrap(), p);
    }

    #[test]
    fn long_function_tables_use_the_length_escape() {
        let d = Decl::FunctionTable {
            index: 0,
            bodies: (0..200).collect(),
        };
        let p = Program {
            version: cs(5, 0),
            decls: vec![d],
            insts: vec![],
        };
        let tokens = encode_program(&p).unwrap();
        assert_eq!(tokens[2], Opcode::DclFunctionTable.number());
        assert_eq!(tokens[3], 204);
        assert_eq!(decode_program(&tokens).unwrap(), p);
    }

    #[test]
    fn rejects_what_tokens_cannot_hold() {
        let imm = |n: usize| {
            let mut op = Operand::new(OperandType::Imm32, Components::Four(Selection::Mask(0)));
            op.imm = vec![0; n];
            op
        };
        let long = Instruction::new(Opcode::Mov, vec![imm(4); 40]);
        let p = Program {
            version: cs(5, 0),
            decls: vec![],
            insts: vec![long],
        };
        let e = encode_program(&p).unwrap_err();
        assert!(e.to_string().contains("at most 127"), "{e}");
        let p = Program {
            version: cs(5, 0),
            decls: vec![],
            insts: vec![Instruction::new(Opcode::Mov, vec![imm(3)])],
        };
        assert!(encode_program(&p)
            .unwrap_err()
            .to_string()
            .contains("immediate dwords"));
        let mut bad = Instruction::new(Opcode::Mov, vec![]);
        bad.controls = 0x80;
        let p = Program {
            version: cs(5, 0),
            decls: vec![],
            insts: vec![bad],
        };
        assert!(encode_program(&p).is_err());
        let d = Decl::Other {
            opcode: Opcode::DclTemps,
            controls: 0,
            body: vec![1],
        };
        let p = Program {
            version: cs(5, 0),
            decls: vec![d],
            insts: vec![],
        };
        assert!(encode_program(&p).is_err());
    }
}

/// Property: every program the generators can build survives
/// `decode(encode(p)) == p`, and its tokens survive `encode(decode(t)) == t`.
#[cfg(test)]
mod roundtrip_props {
    use super::*;
    use crate::dxbc::decode_program;
    use crate::ir::{ConstantBufferDecl, StructuredUavDecl};
    use crate::ir::{ProgramKind, Version};
    use proptest::prelude::*;

    fn components() -> impl Strategy<Value = Components> {
        prop_oneof![
            Just(Components::Zero),
            Just(Components::One),
            (0u8..16).prop_map(|m| Components::Four(Selection::Mask(m))),
            [0u8..4, 0u8..4, 0u8..4, 0u8..4].prop_map(|s| Components::Four(Selection::Swizzle(s))),
            (0u8..4).prop_map(|c| Components::Four(Selection::Select1(c))),
        ]
    }

    fn register_type() -> impl Strategy<Value = OperandType> {
        proptest::sample::select(
            OperandType::ALL
                .iter()
                .copied()
                .filter(|t| !matches!(t, OperandType::Imm32 | OperandType::Imm64))
                .collect::<Vec<_>>(),
        )
    }

    fn extras() -> impl Strategy<Value = (Modifier, u8, bool)> {
        (
            proptest::sample::select(vec![
                Modifier::None,
                Modifier::Neg,
                Modifier::Abs,
                Modifier::AbsNeg,
            ]),
            proptest::sample::select(vec![0u8, 0, 0, 1, 2, 4, 5]),
            proptest::bool::weighted(0.2),
        )
    }

    fn register(index: BoxedStrategy<Index>) -> impl Strategy<Value = Operand> {
        (
            register_type(),
            components(),
            proptest::collection::vec(index, 0..=3),
            extras(),
        )
            .prop_map(
                |(ty, comps, indices, (modifier, min_precision, nonuniform))| Operand {
                    indices,
                    modifier,
                    min_precision,
                    nonuniform,
                    ..Operand::new(ty, comps)
                },
            )
    }

    fn immediate() -> impl Strategy<Value = Operand> {
        (
            any::<bool>(),
            any::<bool>(),
            proptest::collection::vec(any::<u32>(), 4),
            extras(),
        )
            .prop_map(|(wide, four, words, (modifier, _, _))| {
                let ty = if wide {
                    OperandType::Imm64
                } else {
                    OperandType::Imm32
                };
                let comps = if four {
                    Components::Four(Selection::Mask(0))
                } else {
                    Components::One
                };
                let n = if four {
                    4
                } else if wide {
                    2
                } else {
                    1
                };
                Operand {
                    imm: words[..n].to_vec(),
                    modifier,
                    ..Operand::new(ty, comps)
                }
            })
    }

    fn plain_index() -> BoxedStrategy<Index> {
        prop_oneof![
            any::<u32>().prop_map(Index::Imm32),
            any::<u64>().prop_map(Index::Imm64)
        ]
        .boxed()
    }

    fn index() -> BoxedStrategy<Index> {
        let rel = || register(plain_index()).prop_map(Box::new);
        prop_oneof![
            3 => plain_index(),
            1 => rel().prop_map(Index::Relative),
            1 => (any::<u32>(), rel()).prop_map(|(v, r)| Index::Imm32PlusRelative(v, r)),
            1 => (any::<u64>(), rel()).prop_map(|(v, r)| Index::Imm64PlusRelative(v, r)),
        ]
        .boxed()
    }

    fn operand() -> impl Strategy<Value = Operand> {
        prop_oneof![3 => register(index()), 1 => immediate()]
    }

    fn ext_opcode() -> impl Strategy<Value = ExtOpcode> {
        let ret = || {
            proptest::sample::select((1..=9).filter_map(ReturnType::from_u32).collect::<Vec<_>>())
        };
        prop_oneof![
            [-8i8..8, -8i8..8, -8i8..8].prop_map(ExtOpcode::SampleControls),
            ((0u32..13), 0u32..0x1000).prop_map(|(d, stride)| ExtOpcode::ResourceDim {
                dim: ResourceDim::from_u32(d).unwrap(),
                stride
            }),
            [ret(), ret(), ret(), ret()].prop_map(ExtOpcode::ReturnType),
        ]
    }

    fn instruction() -> impl Strategy<Value = Instruction> {
        let ops: Vec<(Opcode, usize)> = Opcode::ALL
            .iter()
            .filter(|op| !op.is_declaration() && **op != Opcode::CustomData)
            .filter_map(|op| op.operand_count().map(|n| (*op, n)))
            .collect();
        proptest::sample::select(ops).prop_flat_map(|(op, n)| {
            (
                any::<u32>(),
                proptest::collection::vec(ext_opcode(), 0..3),
                proptest::collection::vec(operand(), n..=n),
            )
                .prop_map(move |(bits, ext, operands)| {
                    let mut controls = bits & op.allowed_controls();
                    if op == Opcode::ResInfo && controls & 3 == 3 {
                        controls &= !1;
                    }
                    Instruction {
                        opcode: op,
                        controls,
                        ext,
                        operands,
                    }
                })
        })
    }

    fn decl(sm51: bool) -> impl Strategy<Value = Decl> {
        let ret = [
            ReturnType::Sint,
            ReturnType::Float,
            ReturnType::Uint,
            ReturnType::Unorm,
        ];
        prop_oneof![
            (0u32..0x200).prop_map(|f| Decl::GlobalFlags(f << 11)),
            any::<u32>().prop_map(Decl::Temps),
            [any::<u32>(), any::<u32>(), any::<u32>()].prop_map(Decl::ThreadGroup),
            register(index()).prop_map(Decl::Input),
            (
                register(plain_index()),
                any::<bool>(),
                any::<u32>(),
                any::<u32>()
            )
                .prop_map(move |(op, dynamic, size, space)| {
                    if sm51 {
                        Decl::ConstantBuffer(ConstantBufferDecl {
                            op,
                            dynamic,
                            size,
                            space,
                        })
                    } else {
                        Decl::ConstantBuffer(ConstantBufferDecl {
                            size: op.imm_index(1).unwrap_or(0),
                            op,
                            dynamic,
                            space: 0,
                        })
                    }
                }),
            (register(plain_index()), 0u32..11, 0u32..128, any::<u32>()).prop_map(
                move |(op, d, sample_count, space)| {
                    let dim = ResourceDim::from_u32(d).unwrap();
                    Decl::Resource(TypedResourceDecl {
                        op,
                        dim,
                        sample_count,
                        ret,
                        space: if sm51 { space } else { 0 },
                    })
                }
            ),
            (
                register(plain_index()),
                any::<u32>(),
                any::<[bool; 4]>(),
                any::<u32>()
            )
                .prop_map(move |(op, stride, f, space)| {
                    let flags = UavFlags {
                        globally_coherent: f[0],
                        rasterizer_ordered: f[1],
                        order_preserving_counter: f[2],
                    };
                    Decl::UavStructured(StructuredUavDecl {
                        op,
                        stride,
                        flags,
                        space: if sm51 { space } else { 0 },
                        buffer_dim: f[3],
                    })
                }),
            proptest::collection::vec(any::<u32>(), 0..3).prop_map(|rows| {
                Decl::ImmediateConstantBuffer(
                    rows.iter()
                        .flat_map(|r| [*r, r ^ 1, r ^ 2, r ^ 3])
                        .collect(),
                )
            }),
            (0u32..0x2000, proptest::collection::vec(any::<u32>(), 0..4)).prop_map(
                |(controls, body)| Decl::Other {
                    opcode: Opcode::DclTessDomain,
                    controls,
                    body
                }
            ),
        ]
    }

    fn program() -> impl Strategy<Value = Program> {
        proptest::sample::select(vec![(4u8, 0u8), (4, 1), (5, 0), (5, 1)]).prop_flat_map(
            |(major, minor)| {
                let version = Version {
                    kind: ProgramKind::Compute,
                    major,
                    minor,
                };
                (
                    proptest::collection::vec(decl(version.is_sm51()), 0..6),
                    proptest::collection::vec(instruction(), 0..8),
                )
                    .prop_map(move |(decls, insts)| Program {
                        version,
                        decls,
                        insts,
                    })
            },
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2_000))]

        #[test]
        fn decode_inverts_encode(p in program()) {
            match encode_program(&p) {
                Ok(tokens) => {
                    let back = decode_program(&tokens);
                    prop_assert_eq!(back.as_ref(), Ok(&p));
                    prop_assert_eq!(encode_program(&back.unwrap()).unwrap(), tokens);
                }
                // Only over-long instructions may be refused.
                Err(e) => prop_assert!(e.to_string().contains("at most 127"), "{}", e),
            }
        }
    }
}
