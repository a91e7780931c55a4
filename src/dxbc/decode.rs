//! The SM4/SM5 token decoder (`dxbc-format.md` §2–§10).
//!
//! In: the SHEX/SHDR payload as dwords (or a whole container through
//! [`read_dxbc`]). Out: a [`Program`] that keeps every bit the encoder needs
//! to rebuild the same dwords. Invariants: instructions are walked by their
//! length field alone; each instruction's operands are decoded from its own
//! dword window and must fill it exactly; any reserved value, unknown
//! opcode or operand type, or control bit outside the agreed rule is a
//! [`DecodeError::Token`] naming the dword offset and the opcode.
//!
//! Field conventions: `Decl::GlobalFlags` holds the flags at their token
//! bit positions (`0x800` = refactoringAllowed, `0x1000` = doubles, as in
//! `dxbc-format.md` §10.2); every other declaration field holds a plain
//! value (interpolation mode, sampler mode, dimension, sample count). Before
//! SM5.1, `Decl::ConstantBuffer::size` repeats the operand's second index
//! (the encoder writes the operand and ignores `size`).
//!
//! Length-0 escape: as vkd3d, any opcode token with length 0 takes its
//! length (all dwords, escape included) from the next dword; the encoder
//! emits the escape only for `dcl_function_table` / `dcl_interface` longer
//! than 127 dwords.
//!
//! Custom-data blocks other than the immediate constant buffer (comments,
//! debug info, opaque data, messages) have no place in `Program` and are
//! skipped by their length, so a stream holding them does not re-encode to
//! the same dwords.

use super::chunks::ChunkInfo;
use super::container::{Container, ReadOptions};
use super::DecodeError;
use crate::ir::{
    Components, Decl, ExtOpcode, Index, Instruction, Modifier, Opcode, Operand, OperandType,
    Program, ProgramKind, ResourceDim, ReturnType, Selection, UavFlags, Version,
};
use crate::ir::{
    ConstantBufferDecl, InterfaceDecl, StructuredUavDecl, TypedResourceDecl, TypedUavDecl,
};

/// A container with its decoded program and reflection chunks.
#[derive(Clone, Debug)]
pub struct Shader {
    pub container: Container,
    pub program: Program,
    pub info: ChunkInfo,
}

/// Reads a container, picks SHEX (else SHDR), decodes the token stream and
/// parses the reflection chunks.
pub fn read_dxbc(bytes: &[u8], opts: &ReadOptions) -> Result<Shader, DecodeError> {
    let container = Container::parse(bytes, opts)?;
    let chunk = match container
        .chunk(b"SHEX")
        .or_else(|| container.chunk(b"SHDR"))
    {
        Some(c) => c,
        None if container.chunk(b"DXIL").is_some() => return Err(DecodeError::Dxil),
        None => return Err(DecodeError::NoShader),
    };
    if chunk.data.len() % 4 != 0 {
        return Err(DecodeError::Unaligned {
            size: chunk.data.len(),
        });
    }
    let dwords: Vec<u32> = chunk
        .data
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    let program = decode_program(&dwords)?;
    let info = ChunkInfo::parse(&container)?;
    Ok(Shader {
        container,
        program,
        info,
    })
}

/// Largest immediate constant buffer: 4096 rows of 4 dwords (FS §7.5.1).
pub(crate) use crate::limits::MAX_ICB_DWORDS;

/// Custom-data class of the immediate constant buffer.
pub(crate) const ICB_CLASS: u32 = 3;

fn token_err(offset: usize, opcode: Option<Opcode>, what: impl Into<String>) -> DecodeError {
    DecodeError::Token {
        offset,
        opcode,
        what: what.into(),
    }
}

/// Decodes a token stream: version token, length token, then instructions
/// until `length` dwords are consumed. Dwords past `length` are ignored.
pub fn decode_program(dwords: &[u32]) -> Result<Program, DecodeError> {
    let version = decode_version(dwords)?;
    let len = *dwords
        .get(1)
        .ok_or_else(|| token_err(1, None, "missing length token"))? as usize;
    if len < 2 {
        return Err(token_err(
            1,
            None,
            format!("length token {len} is smaller than the 2-dword header"),
        ));
    }
    if len > dwords.len() {
        return Err(token_err(
            1,
            None,
            format!(
                "length token says {len} dwords but the chunk holds {}",
                dwords.len()
            ),
        ));
    }
    let words = &dwords[..len];
    let mut program = Program {
        version,
        decls: Vec::new(),
        insts: Vec::new(),
    };
    let mut pos = 2;
    while pos < len {
        let (item, next) = decode_item(words, pos, version)?;
        match item {
            Item::Decl(d) if !program.insts.is_empty() => {
                let op = d.opcode();
                return Err(token_err(
                    pos,
                    Some(op),
                    "declaration after the first executable instruction",
                ));
            }
            Item::Decl(d) => program.decls.push(d),
            Item::Inst(i) => program.insts.push(i),
            Item::Skip => {}
        }
        pos = next;
    }
    Ok(program)
}

fn decode_version(dwords: &[u32]) -> Result<Version, DecodeError> {
    let v = *dwords
        .first()
        .ok_or_else(|| token_err(0, None, "empty token stream"))?;
    if v & 0xFF00 != 0 {
        return Err(token_err(
            0,
            None,
            format!("version token {v:#010x} has reserved bits [15:8] set"),
        ));
    }
    let kind = ProgramKind::from_u32(v >> 16).ok_or_else(|| {
        token_err(
            0,
            None,
            format!("unknown program type {} in version token", v >> 16),
        )
    })?;
    let (major, minor) = (((v >> 4) & 0xF) as u8, (v & 0xF) as u8);
    if !(4..=5).contains(&major) || minor > 1 {
        return Err(token_err(
            0,
            None,
            format!("unsupported shader model {major}.{minor}"),
        ));
    }
    Ok(Version { kind, major, minor })
}

enum Item {
    Decl(Decl),
    Inst(Instruction),
    Skip,
}

/// Decodes the instruction starting at `pos`; returns it and the position
/// of the next one.
fn decode_item(words: &[u32], pos: usize, version: Version) -> Result<(Item, usize), DecodeError> {
    let tok = words[pos];
    let num = tok & 0x7FF;
    let op = Opcode::from_u32(num)
        .ok_or_else(|| token_err(pos, None, format!("unknown opcode {num:#x}")))?;
    if op == Opcode::CustomData {
        return decode_custom_data(words, pos, tok);
    }
    let mut len = ((tok >> 24) & 0x7F) as usize;
    let mut body = pos + 1;
    if len == 0 {
        // Length-0 escape (vkd3d): the next dword holds the real length,
        // counting every dword of the instruction.
        len = *words
            .get(pos + 1)
            .ok_or_else(|| token_err(pos, Some(op), "length-0 escape with no length dword"))?
            as usize;
        if len < 2 {
            return Err(token_err(
                pos + 1,
                Some(op),
                format!("escaped instruction length {len} is below 2"),
            ));
        }
        body = pos + 2;
    }
    let end = pos
        .checked_add(len)
        .filter(|&e| e <= words.len())
        .ok_or_else(|| {
            token_err(
                pos,
                Some(op),
                format!(
                    "instruction length {len} runs past the end of the stream ({} dwords)",
                    words.len()
                ),
            )
        })?;
    let mut w = Window {
        words,
        pos: body,
        end,
        op,
        version,
    };
    let controls = (tok >> 11) & 0x1FFF;
    let item = if op.is_declaration() {
        if tok >> 31 != 0 {
            return Err(w.err(pos, "extended opcode token on a declaration"));
        }
        Item::Decl(decode_decl(&mut w, pos, controls)?)
    } else {
        Item::Inst(decode_inst(&mut w, pos, tok)?)
    };
    if w.pos != end {
        return Err(w.err(
            w.pos,
            format!("{} trailing dwords inside the instruction", end - w.pos),
        ));
    }
    Ok((item, end))
}

fn decode_custom_data(words: &[u32], pos: usize, tok: u32) -> Result<(Item, usize), DecodeError> {
    let op = Some(Opcode::CustomData);
    let class = tok >> 11;
    let len = *words
        .get(pos + 1)
        .ok_or_else(|| token_err(pos, op, "custom data block with no length dword"))?
        as usize;
    if len < 2 {
        return Err(token_err(
            pos + 1,
            op,
            format!("custom data length {len} is below 2"),
        ));
    }
    let end = pos
        .checked_add(len)
        .filter(|&e| e <= words.len())
        .ok_or_else(|| {
            token_err(
                pos + 1,
                op,
                format!(
                    "custom data length {len} runs past the end of the stream ({} dwords)",
                    words.len()
                ),
            )
        })?;
    let payload = &words[pos + 2..end];
    match class {
        ICB_CLASS if payload.len() % 4 != 0 => Err(token_err(
            pos + 1,
            op,
            format!(
                "immediate constant buffer of {} dwords is not a whole number of rows",
                payload.len()
            ),
        )),
        ICB_CLASS if payload.len() > MAX_ICB_DWORDS => Err(token_err(
            pos + 1,
            op,
            format!(
                "immediate constant buffer of {} rows exceeds 4096",
                payload.len() / 4
            ),
        )),
        ICB_CLASS => Ok((
            Item::Decl(Decl::ImmediateConstantBuffer(payload.to_vec())),
            end,
        )),
        0..=5 => Ok((Item::Skip, end)),
        _ => Err(token_err(
            pos,
            op,
            format!("unknown custom data class {class}"),
        )),
    }
}

/// The dword window of one instruction.
struct Window<'a> {
    words: &'a [u32],
    pos: usize,
    end: usize,
    op: Opcode,
    version: Version,
}

impl Window<'_> {
    fn err(&self, offset: usize, what: impl Into<String>) -> DecodeError {
        token_err(offset, Some(self.op), what)
    }

    fn next(&mut self) -> Result<u32, DecodeError> {
        if self.pos >= self.end {
            return Err(self.err(self.pos, "operand runs past the end of the instruction"));
        }
        let w = self.words[self.pos];
        self.pos += 1;
        Ok(w)
    }

    fn done(&self) -> bool {
        self.pos >= self.end
    }

    fn operand(&mut self) -> Result<Operand, DecodeError> {
        decode_operand(self, 0)
    }

    /// The SM5.1 register space dword (0 before SM5.1).
    fn space(&mut self) -> Result<u32, DecodeError> {
        if self.version.is_sm51() {
            self.next()
        } else {
            Ok(0)
        }
    }

    fn rest(&mut self) -> Vec<u32> {
        let out = self.words[self.pos..self.end].to_vec();
        self.pos = self.end;
        out
    }
}

// ---------------------------------------------------------------------------
// Executable instructions
// ---------------------------------------------------------------------------

fn decode_inst(w: &mut Window, pos: usize, tok: u32) -> Result<Instruction, DecodeError> {
    let op = w.op;
    let controls = (tok >> 11) & 0x1FFF;
    let extra = controls & !op.allowed_controls();
    if extra != 0 {
        return Err(w.err(
            pos,
            format!(
                "control bits {:#x} (token bits {:#x}) not allowed on this opcode",
                extra,
                extra << 11
            ),
        ));
    }
    if op == Opcode::ResInfo && controls & 0x3 == 0x3 {
        return Err(w.err(pos, "reserved resinfo return type 3"));
    }
    let mut ext = Vec::new();
    let mut more = tok >> 31 != 0;
    while more {
        let at = w.pos;
        let e = w.next()?;
        more = e >> 31 != 0;
        ext.push(decode_ext_opcode(e).map_err(|m| w.err(at, m))?);
    }
    let mut operands = Vec::new();
    while !w.done() {
        operands.push(w.operand()?);
    }
    if let Some(n) = op.operand_count() {
        if operands.len() != n {
            return Err(w.err(pos, format!("{} operands, expected {n}", operands.len())));
        }
    }
    Ok(Instruction {
        opcode: op,
        controls,
        ext,
        operands,
    })
}

/// Bits an extended opcode token of each type may use (type and chain bit included).
pub(crate) fn ext_opcode_fields(ty: u32) -> Option<u32> {
    let common = 0x8000_003F;
    match ty {
        1 => Some(common | (0xFFF << 9)),
        2 => Some(common | (0x1F << 6) | (0xFFF << 11)),
        3 => Some(common | (0xFFFF << 6)),
        _ => None,
    }
}

fn decode_ext_opcode(e: u32) -> Result<ExtOpcode, String> {
    let ty = e & 0x3F;
    let fields = ext_opcode_fields(ty)
        .ok_or_else(|| format!("unsupported extended opcode token type {ty}"))?;
    if e & !fields != 0 {
        return Err(format!(
            "extended opcode token {e:#010x} has reserved bits set"
        ));
    }
    Ok(match ty {
        1 => {
            let off = |shift: u32| ((((e >> shift) & 0xF) as i8) << 4) >> 4;
            ExtOpcode::SampleControls([off(9), off(13), off(17)])
        }
        2 => {
            let dim = (e >> 6) & 0x1F;
            let dim = ResourceDim::from_u32(dim)
                .ok_or_else(|| format!("unknown resource dimension {dim}"))?;
            ExtOpcode::ResourceDim {
                dim,
                stride: (e >> 11) & 0xFFF,
            }
        }
        _ => ExtOpcode::ReturnType(
            return_types(e >> 6).map_err(|v| format!("unknown return type {v}"))?,
        ),
    })
}

/// Four 4-bit return types, x in the low nibble.
fn return_types(bits: u32) -> Result<[ReturnType; 4], u32> {
    let one = |i: u32| {
        let v = (bits >> (4 * i)) & 0xF;
        ReturnType::from_u32(v).ok_or(v)
    };
    Ok([one(0)?, one(1)?, one(2)?, one(3)?])
}

// ---------------------------------------------------------------------------
// Operands
// ---------------------------------------------------------------------------

fn decode_operand(w: &mut Window, depth: u32) -> Result<Operand, DecodeError> {
    let at = w.pos;
    let tok = w.next()?;
    let comps = decode_components(tok).map_err(|m| w.err(at, m))?;
    let tyv = (tok >> 12) & 0xFF;
    let ty = OperandType::from_u32(tyv)
        .ok_or_else(|| w.err(at, format!("unknown operand type {tyv}")))?;
    let dim = ((tok >> 20) & 0x3) as usize;
    let reps = [(tok >> 22) & 0x7, (tok >> 25) & 0x7, (tok >> 28) & 0x7];
    if reps[dim..].iter().any(|&r| r != 0) {
        return Err(w.err(
            at,
            format!("index representation set beyond the operand's {dim} indices"),
        ));
    }
    let mut op = Operand::new(ty, comps);
    if tok >> 31 != 0 {
        decode_ext_operand(w, &mut op)?;
    }
    if matches!(ty, OperandType::Imm32 | OperandType::Imm64) {
        if dim != 0 {
            return Err(w.err(at, "immediate operand with indices"));
        }
        let n = match (ty, comps) {
            (OperandType::Imm32, Components::One) => 1,
            (OperandType::Imm64, Components::One) => 2,
            (_, Components::Four(_)) => 4,
            _ => return Err(w.err(at, "immediate operand with 0 components")),
        };
        for _ in 0..n {
            op.imm.push(w.next()?);
        }
    }
    for &rep in &reps[..dim] {
        let index = decode_index(w, at, rep, depth)?;
        op.indices.push(index);
    }
    Ok(op)
}

fn decode_components(tok: u32) -> Result<Components, String> {
    let sel_bits = tok & 0xFFC;
    match tok & 0x3 {
        0 | 1 if sel_bits != 0 => Err(format!(
            "selection bits {sel_bits:#x} set on a scalar or 0-component operand"
        )),
        0 => Ok(Components::Zero),
        1 => Ok(Components::One),
        2 => Ok(Components::Four(match (tok >> 2) & 0x3 {
            0 if tok & 0xF00 != 0 => return Err("mask-mode operand has bits [11:8] set".into()),
            0 => Selection::Mask(((tok >> 4) & 0xF) as u8),
            1 => Selection::Swizzle([0, 1, 2, 3].map(|i| ((tok >> (4 + 2 * i)) & 0x3) as u8)),
            2 if tok & 0xFC0 != 0 => return Err("select-1 operand has bits [11:6] set".into()),
            2 => Selection::Select1(((tok >> 4) & 0x3) as u8),
            _ => return Err("reserved selection mode 3".into()),
        })),
        _ => Err("N-component operands are not supported".into()),
    }
}

fn decode_ext_operand(w: &mut Window, op: &mut Operand) -> Result<(), DecodeError> {
    let at = w.pos;
    let e = w.next()?;
    if e >> 31 != 0 {
        return Err(w.err(at, "chained extended operand tokens are not supported"));
    }
    if e & 0x3F != 1 {
        return Err(w.err(
            at,
            format!("unsupported extended operand token type {}", e & 0x3F),
        ));
    }
    if e & 0x7FFC_0000 != 0 {
        return Err(w.err(
            at,
            format!("extended operand token {e:#010x} has reserved bits set"),
        ));
    }
    op.modifier = match (e >> 6) & 0xFF {
        0 => Modifier::None,
        1 => Modifier::Neg,
        2 => Modifier::Abs,
        3 => Modifier::AbsNeg,
        m => return Err(w.err(at, format!("unknown operand modifier {m}"))),
    };
    op.min_precision = ((e >> 14) & 0x7) as u8;
    if matches!(op.min_precision, 3 | 6 | 7) {
        return Err(w.err(
            at,
            format!("reserved min-precision value {}", op.min_precision),
        ));
    }
    op.nonuniform = (e >> 17) & 1 != 0;
    if !op.needs_extended_token() {
        return Err(w.err(
            at,
            "extended operand token carries no modifier, precision or non-uniform flag",
        ));
    }
    Ok(())
}

fn decode_index(w: &mut Window, at: usize, rep: u32, depth: u32) -> Result<Index, DecodeError> {
    let imm64 = |w: &mut Window| -> Result<u64, DecodeError> {
        let hi = w.next()? as u64;
        let lo = w.next()? as u64;
        Ok((hi << 32) | lo)
    };
    Ok(match rep {
        0 => Index::Imm32(w.next()?),
        1 => Index::Imm64(imm64(w)?),
        2 => Index::Relative(Box::new(relative(w, depth)?)),
        3 => {
            let base = w.next()?;
            Index::Imm32PlusRelative(base, Box::new(relative(w, depth)?))
        }
        4 => {
            let base = imm64(w)?;
            Index::Imm64PlusRelative(base, Box::new(relative(w, depth)?))
        }
        _ => return Err(w.err(at, format!("reserved index representation {rep}"))),
    })
}

fn relative(w: &mut Window, depth: u32) -> Result<Operand, DecodeError> {
    if depth >= 1 {
        return Err(w.err(w.pos, "relative index nested more than one level deep"));
    }
    decode_operand(w, depth + 1)
}

// ---------------------------------------------------------------------------
// Declarations
// ---------------------------------------------------------------------------

/// Declaration control-bit fields (`controls` = token bits [23:11] >> 11).
pub(crate) mod dcl_bits {
    pub const GLOBAL_FLAGS: u32 = 0x1FF;
    pub const INTERP: u32 = 0xF;
    pub const CB_DYNAMIC: u32 = 0x1;
    pub const SAMPLER_MODE: u32 = 0xF;
    pub const RES_DIM: u32 = 0x1F;
    pub const SAMPLE_COUNT_SHIFT: u32 = 5;
    pub const SAMPLE_COUNT: u32 = 0x7F << SAMPLE_COUNT_SHIFT;
    pub const GLC: u32 = 0x20;
    pub const ROV: u32 = 0x40;
    pub const OPC: u32 = 0x1000;
    pub const IFACE_DYNAMIC: u32 = 0x1;
}

fn check_controls(w: &Window, pos: usize, controls: u32, allowed: u32) -> Result<(), DecodeError> {
    let extra = controls & !allowed;
    if extra != 0 {
        return Err(w.err(
            pos,
            format!(
                "control bits {:#x} (token bits {:#x}) not allowed on this declaration",
                extra,
                extra << 11
            ),
        ));
    }
    Ok(())
}

fn uav_flags(controls: u32) -> UavFlags {
    UavFlags {
        globally_coherent: controls & dcl_bits::GLC != 0,
        rasterizer_ordered: controls & dcl_bits::ROV != 0,
        order_preserving_counter: controls & dcl_bits::OPC != 0,
    }
}

fn resource_dim(w: &Window, pos: usize, controls: u32) -> Result<ResourceDim, DecodeError> {
    let v = controls & dcl_bits::RES_DIM;
    match ResourceDim::from_u32(v) {
        Some(d) if v <= 10 => Ok(d),
        _ => Err(w.err(pos, format!("invalid resource dimension {v}"))),
    }
}

/// The dimension field of a raw or structured declaration: 0 (fxc) or 1,
/// buffer (vkd3d-shader); any other dimension contradicts the declaration.
fn buffer_dim(w: &Window, pos: usize, controls: u32) -> Result<bool, DecodeError> {
    match controls & dcl_bits::RES_DIM {
        0 => Ok(false),
        v if v == ResourceDim::Buffer as u32 => Ok(true),
        v => Err(w.err(
            pos,
            format!("resource dimension {v} on a raw or structured declaration (only 1, buffer)"),
        )),
    }
}

fn return_token(w: &mut Window) -> Result<[ReturnType; 4], DecodeError> {
    let at = w.pos;
    let t = w.next()?;
    if t >> 16 != 0 {
        return Err(w.err(
            at,
            format!("return type token {t:#010x} has bits [31:16] set"),
        ));
    }
    return_types(t).map_err(|v| w.err(at, format!("unknown return type {v}")))
}

fn decode_decl(w: &mut Window, pos: usize, controls: u32) -> Result<Decl, DecodeError> {
    use dcl_bits::*;
    use Opcode::*;
    let allowed = match w.op {
        DclGlobalFlags => GLOBAL_FLAGS,
        DclInputPs | DclInputPsSgv | DclInputPsSiv => INTERP,
        DclConstantBuffer => CB_DYNAMIC,
        DclSampler => SAMPLER_MODE,
        DclResource => RES_DIM | SAMPLE_COUNT,
        DclUavTyped => RES_DIM | GLC | ROV,
        // vkd3d-shader writes the buffer dimension into raw and structured
        // declarations too (`buffer_dim`); the value is checked below.
        DclResourceRaw | DclResourceStructured => RES_DIM,
        DclUavRaw => RES_DIM | GLC | ROV,
        DclUavStructured => RES_DIM | GLC | ROV | OPC,
        DclInterface => IFACE_DYNAMIC,
        _ if is_other_decl(w.op) => 0x1FFF,
        _ => 0,
    };
    check_controls(w, pos, controls, allowed)?;
    Ok(match w.op {
        DclGlobalFlags => Decl::GlobalFlags(controls << 11),
        DclTemps => Decl::Temps(w.next()?),
        DclIndexableTemp => Decl::IndexableTemp {
            reg: w.next()?,
            len: w.next()?,
            comps: w.next()?,
        },
        DclThreadGroup => Decl::ThreadGroup([w.next()?, w.next()?, w.next()?]),
        DclInput => Decl::Input(w.operand()?),
        DclInputSgv => Decl::InputSgv {
            op: w.operand()?,
            name: w.next()?,
        },
        DclInputSiv => Decl::InputSiv {
            op: w.operand()?,
            name: w.next()?,
        },
        DclInputPs => Decl::InputPs {
            op: w.operand()?,
            interp: controls,
        },
        DclInputPsSgv => Decl::InputPsSgv {
            op: w.operand()?,
            interp: controls,
            name: w.next()?,
        },
        DclInputPsSiv => Decl::InputPsSiv {
            op: w.operand()?,
            interp: controls,
            name: w.next()?,
        },
        DclOutput => Decl::Output(w.operand()?),
        DclOutputSgv => Decl::OutputSgv {
            op: w.operand()?,
            name: w.next()?,
        },
        DclOutputSiv => Decl::OutputSiv {
            op: w.operand()?,
            name: w.next()?,
        },
        DclConstantBuffer => decode_cb(w, controls)?,
        DclSampler => Decl::Sampler {
            op: w.operand()?,
            mode: controls,
            space: w.space()?,
        },
        DclResource => Decl::Resource(TypedResourceDecl {
            dim: resource_dim(w, pos, controls)?,
            sample_count: controls >> SAMPLE_COUNT_SHIFT,
            op: w.operand()?,
            ret: return_token(w)?,
            space: w.space()?,
        }),
        DclResourceRaw => Decl::ResourceRaw {
            buffer_dim: buffer_dim(w, pos, controls)?,
            op: w.operand()?,
            space: w.space()?,
        },
        DclResourceStructured => Decl::ResourceStructured {
            buffer_dim: buffer_dim(w, pos, controls)?,
            op: w.operand()?,
            stride: w.next()?,
            space: w.space()?,
        },
        DclUavTyped => Decl::UavTyped(TypedUavDecl {
            dim: resource_dim(w, pos, controls)?,
            flags: uav_flags(controls),
            op: w.operand()?,
            ret: return_token(w)?,
            space: w.space()?,
        }),
        DclUavRaw => Decl::UavRaw {
            buffer_dim: buffer_dim(w, pos, controls)?,
            op: w.operand()?,
            flags: uav_flags(controls),
            space: w.space()?,
        },
        DclUavStructured => Decl::UavStructured(StructuredUavDecl {
            buffer_dim: buffer_dim(w, pos, controls)?,
            op: w.operand()?,
            stride: w.next()?,
            flags: uav_flags(controls),
            space: w.space()?,
        }),
        DclTgsmRaw => Decl::TgsmRaw {
            op: w.operand()?,
            bytes: w.next()?,
        },
        DclTgsmStructured => Decl::TgsmStructured {
            op: w.operand()?,
            stride: w.next()?,
            count: w.next()?,
        },
        DclIndexRange => Decl::IndexRange {
            op: w.operand()?,
            count: w.next()?,
        },
        DclFunctionBody => Decl::FunctionBody(w.next()?),
        DclFunctionTable => {
            let index = w.next()?;
            let n = w.next()?;
            Decl::FunctionTable {
                index,
                bodies: read_list(w, n)?,
            }
        }
        DclInterface => {
            let index = w.next()?;
            let table_len = w.next()?;
            let packed = w.next()?;
            let tables = read_list(w, packed & 0xFFFF)?;
            Decl::Interface(InterfaceDecl {
                index,
                dynamic: controls & IFACE_DYNAMIC != 0,
                table_len,
                array_len: packed >> 16,
                tables,
            })
        }
        op => Decl::Other {
            opcode: op,
            controls,
            body: w.rest(),
        },
    })
}

/// Declarations kept raw as [`Decl::Other`] (geometry, hull, domain).
pub(crate) fn is_other_decl(op: Opcode) -> bool {
    use Opcode::*;
    matches!(
        op,
        DclGsOutputPrimitiveTopology
            | DclGsInputPrimitive
            | DclMaxOutputVertexCount
            | DclStream
            | DclInputControlPointCount
            | DclOutputControlPointCount
            | DclTessDomain
            | DclTessPartitioning
            | DclTessOutputPrimitive
            | DclHsMaxTessFactor
            | DclHsForkPhaseInstanceCount
            | DclHsJoinPhaseInstanceCount
            | DclGsInstanceCount
    )
}

/// `n` dwords; `n` comes from the input, so nothing is reserved up front and
/// the window bounds the loop.
fn read_list(w: &mut Window, n: u32) -> Result<Vec<u32>, DecodeError> {
    let mut out = Vec::new();
    for _ in 0..n {
        out.push(w.next()?);
    }
    Ok(out)
}

fn decode_cb(w: &mut Window, controls: u32) -> Result<Decl, DecodeError> {
    let op = w.operand()?;
    let dynamic = controls & dcl_bits::CB_DYNAMIC != 0;
    if w.version.is_sm51() {
        let size = w.next()?;
        let space = w.next()?;
        Ok(Decl::ConstantBuffer(ConstantBufferDecl {
            op,
            dynamic,
            size,
            space,
        }))
    } else {
        let size = op.imm_index(1).unwrap_or(0);
        Ok(Decl::ConstantBuffer(ConstantBufferDecl {
            op,
            dynamic,
            size,
            space: 0,
        }))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// VK-TEST `raw_tgsm_code` (`dxbc-format.md` §11): the whole SHEX payload.
    pub(crate) const RAW_TGSM: [u32; 61] = [
        0x00050050, 0x0000003d, 0x0100086a, 0x0300009d, 0x0011e000, 0x00000000, 0x0200005f,
        0x00024000, 0x0200005f, 0x00021012, 0x02000068, 0x00000001, 0x0400009f, 0x0011f000,
        0x00000000, 0x00000004, 0x0400009b, 0x00000020, 0x00000001, 0x00000001, 0x0200001f,
        0x0002400a, 0x060000a6, 0x0011f012, 0x00000000, 0x00004001, 0x00000000, 0x0002100a,
        0x01000015, 0x010018be, 0x060000ad, 0x0011f000, 0x00000000, 0x00004001, 0x00000000,
        0x0002100a, 0x010018be, 0x0200001f, 0x0002400a, 0x06000029, 0x00100012, 0x00000000,
        0x0002100a, 0x00004001, 0x00000002, 0x070000a5, 0x00100022, 0x00000000, 0x00004001,
        0x00000000, 0x0011f006, 0x00000000, 0x070000a6, 0x0011e012, 0x00000000, 0x0010000a,
        0x00000000, 0x0010001a, 0x00000000, 0x01000015, 0x0100003e,
    ];

    fn stream(body: &[u32]) -> Vec<u32> {
        let mut s = vec![0x00050050, body.len() as u32 + 2];
        s.extend_from_slice(body);
        s
    }

    fn err_at(body: &[u32]) -> (usize, Option<Opcode>, String) {
        match decode_program(&stream(body)) {
            Err(DecodeError::Token {
                offset,
                opcode,
                what,
            }) => (offset, opcode, what),
            other => panic!("expected a token error, got {other:?}"),
        }
    }

    #[test]
    fn decodes_the_worked_example() {
        let p = decode_program(&RAW_TGSM).unwrap();
        assert_eq!(
            p.version,
            Version {
                kind: ProgramKind::Compute,
                major: 5,
                minor: 0
            }
        );
        assert_eq!(p.decls.len(), 7);
        assert_eq!(p.decls[0], Decl::GlobalFlags(0x800));
        assert_eq!(
            p.decls[5],
            Decl::TgsmRaw {
                op: p.decls[5].clone().tgsm_op(),
                bytes: 4
            }
        );
        assert_eq!(p.decls[6], Decl::ThreadGroup([32, 1, 1]));
        let ops: Vec<Opcode> = p.insts.iter().map(|i| i.opcode).collect();
        assert_eq!(ops.len(), 12);
        assert_eq!(ops[2], Opcode::EndIf);
        let sync = &p.insts[3];
        assert_eq!((sync.opcode, sync.sync_flags()), (Opcode::Sync, 0x3));
        assert!(!p.insts[0].test_nz());
        let ld = &p.insts[8];
        assert_eq!(ld.opcode, Opcode::LdRaw);
        assert_eq!(
            ld.operands[0].comps,
            Components::Four(Selection::Mask(0b0010))
        );
        assert_eq!(ld.operands[1].imm, vec![0]);
        assert_eq!(
            ld.operands[2].comps,
            Components::Four(Selection::Swizzle([0, 0, 0, 0]))
        );
        assert_eq!(ld.operands[2].ty, OperandType::Tgsm);
    }

    impl Decl {
        fn tgsm_op(self) -> Operand {
            match self {
                Decl::TgsmRaw { op, .. } => op,
                _ => panic!("not a tgsm_raw"),
            }
        }
    }

    #[test]
    fn rejects_unknown_opcodes_and_operand_types() {
        let (off, op, what) = err_at(&[0x010001FF]);
        assert_eq!((off, op), (2, None));
        assert!(what.contains("unknown opcode 0x1ff"), "{what}");
        let e = decode_program(&stream(&[0x010001FF])).unwrap_err();
        assert_eq!(e.to_string(), "dword 2: unknown opcode 0x1ff");
        // mov r0.x, <operand type 0xFF>
        let (off, op, what) = err_at(&[0x05000036, 0x00100012, 0, 0x000FF001, 0]);
        assert_eq!((off, op), (5, Some(Opcode::Mov)));
        assert!(what.contains("unknown operand type 255"), "{what}");
    }

    #[test]
    fn rejects_lengths_past_the_end() {
        let (off, _, what) = err_at(&[0x7F000036, 0x00100012]);
        assert_eq!(off, 2);
        assert!(what.contains("length 127"), "{what}");
        // Length-0 escape whose length dword points past the end.
        let (off, _, what) = err_at(&[0x00000091, 1000]);
        assert_eq!(off, 2);
        assert!(what.contains("1000"), "{what}");
        // Length 0 as the last dword: no room for the length.
        let (off, _, _) = err_at(&[0x0000003e]);
        assert_eq!(off, 2);
        // Length token larger than the chunk.
        let mut s = stream(&[0x0100003e]);
        s[1] = 99;
        assert!(matches!(
            decode_program(&s),
            Err(DecodeError::Token { offset: 1, .. })
        ));
    }

    #[test]
    fn ignores_excess_dwords_after_the_length() {
        let mut s = stream(&[0x0100003e]);
        s.push(0xDEAD_BEEF);
        assert_eq!(decode_program(&s).unwrap().insts.len(), 1);
    }

    #[test]
    fn rejects_over_long_instructions_and_wrong_operand_counts() {
        // ret with a stray dword inside its window.
        let (off, op, what) = err_at(&[0x0300003e, 0x00100012, 0]);
        assert_eq!((off, op), (2, Some(Opcode::Ret)));
        assert!(what.contains("1 operands, expected 0"), "{what}");
        // ret with half an operand.
        let (off, _, what) = err_at(&[0x0200003e, 0x00100012]);
        assert_eq!(off, 4);
        assert!(what.contains("past the end of the instruction"), "{what}");
        // dcl_temps with an extra dword.
        let (off, op, what) = err_at(&[0x03000068, 1, 7]);
        assert_eq!((off, op), (4, Some(Opcode::DclTemps)));
        assert!(what.contains("trailing"), "{what}");
        // mov whose source runs past its own window (into the next instruction).
        let (off, _, what) = err_at(&[0x04000036, 0x00100012, 0, 0x00100006, 0, 0x0100003e]);
        assert_eq!(off, 6);
        assert!(what.contains("past the end of the instruction"), "{what}");
    }

    #[test]
    fn rejects_deep_relative_nesting() {
        // mov r0.x, x0[x1[r0.x + 0].x + 0].x : two levels of relative indices.
        let inner = [0x0010000a, 0];
        let mut body = vec![0x00000036, 0x00100012, 0];
        let x1 = 0x0620300a; // x#.x, 2D, [imm][imm32+rel]
        let x0 = 0x0620300a;
        body.extend_from_slice(&[x0, 0, 0, x1, 1, 0]);
        body.extend_from_slice(&inner);
        body[0] |= (body.len() as u32) << 24;
        let (_, op, what) = err_at(&body);
        assert_eq!(op, Some(Opcode::Mov));
        assert!(what.contains("nested"), "{what}");
        // One level is fine.
        let mut ok = vec![0x00000036, 0x00100012, 0, x0, 0, 0, 0x0010000a, 0];
        ok[0] |= (ok.len() as u32) << 24;
        let p = decode_program(&stream(&ok)).unwrap();
        assert!(matches!(
            p.insts[0].operands[1].indices[1],
            Index::Imm32PlusRelative(0, _)
        ));
    }

    #[test]
    fn rejects_control_bits_outside_the_rule() {
        // mov with the _nz bit.
        let (off, op, what) = err_at(&[0x05040036, 0x00100012, 0, 0x00004001, 0]);
        assert_eq!((off, op), (2, Some(Opcode::Mov)));
        assert!(what.contains("control bits 0x80"), "{what}");
        // resinfo return type 3.
        let (_, _, what) = err_at(&[0x0700183d, 0x001000f2, 0, 0x00004001, 0, 0x00107e46, 0]);
        assert!(what.contains("resinfo"), "{what}");
        // dcl_temps with a control bit.
        let (_, op, _) = err_at(&[0x02000868, 1]);
        assert_eq!(op, Some(Opcode::DclTemps));
        // mov_sat and if_nz are fine.
        let p = decode_program(&stream(&[
            0x05002036, 0x00100012, 0, 0x00004001, 0, 0x0304001f, 0x0010000a, 0,
        ]));
        let p = p.unwrap();
        assert!(p.insts[0].saturate());
        assert!(p.insts[1].test_nz());
    }

    #[test]
    fn rejects_declarations_after_instructions() {
        let (off, op, what) = err_at(&[0x0100003e, 0x02000068, 1]);
        assert_eq!((off, op), (3, Some(Opcode::DclTemps)));
        assert!(what.contains("after the first executable"), "{what}");
    }

    #[test]
    fn immediate_constant_buffer_and_comments() {
        let p = decode_program(&stream(&[
            0x00001835, 6, 1, 2, 3, 4, 0x00000035, 3, 0xAA, 0x0100003e,
        ]))
        .unwrap();
        assert_eq!(
            p.decls,
            vec![Decl::ImmediateConstantBuffer(vec![1, 2, 3, 4])]
        );
        assert_eq!(p.insts.len(), 1);
        let (_, _, what) = err_at(&[0x00001835, 5, 1, 2, 3]);
        assert!(what.contains("whole number of rows"), "{what}");
        let (_, _, what) = err_at(&[0x00007835, 2]);
        assert!(what.contains("custom data class 15"), "{what}");
    }

    #[test]
    fn extended_tokens_decode() {
        // ld_raw r0.x, l(0), t0.x with the fxc extended opcode tokens.
        let body = [
            0x890000a5u32,
            0x800002c2,
            0x00199983,
            0x00100012,
            0,
            0x00004001,
            0,
            0x00107006,
            0,
        ];
        let p = decode_program(&stream(&body)).unwrap();
        let i = &p.insts[0];
        assert_eq!(i.ext.len(), 2);
        assert_eq!(
            i.ext[0],
            ExtOpcode::ResourceDim {
                dim: ResourceDim::RawBuffer,
                stride: 0
            }
        );
        assert_eq!(i.ext[1], ExtOpcode::ReturnType([ReturnType::Mixed; 4]));
        // add r0.x, -cb0[0].x, |r1.x| (neg and abs modifiers).
        let body = [
            0x0a000000u32,
            0x00100012,
            0,
            0x80208006,
            0x41,
            0,
            0,
            0x8010000a,
            0x81,
            1,
        ];
        let p = decode_program(&stream(&body)).unwrap();
        assert_eq!(p.insts[0].operands[1].modifier, Modifier::Neg);
        assert_eq!(p.insts[0].operands[2].modifier, Modifier::Abs);
        // _aoffimmi(-1, 2, 0)
        assert_eq!(
            decode_ext_opcode(0x1 | (0xF << 9) | (2 << 13)),
            Ok(ExtOpcode::SampleControls([-1, 2, 0]))
        );
        assert!(decode_ext_opcode(0x4).is_err());
        assert!(decode_ext_opcode(0x1 | (1 << 25)).is_err());
    }

    #[test]
    fn rejects_bad_version_tokens() {
        assert!(matches!(
            decode_program(&[]),
            Err(DecodeError::Token { offset: 0, .. })
        ));
        assert!(matches!(
            decode_program(&[0x00090050, 2]),
            Err(DecodeError::Token { offset: 0, .. })
        ));
        assert!(matches!(
            decode_program(&[0x00050070, 2]),
            Err(DecodeError::Token { offset: 0, .. })
        ));
        assert!(matches!(
            decode_program(&[0x00050050]),
            Err(DecodeError::Token { offset: 1, .. })
        ));
        assert!(matches!(
            decode_program(&[0x00050050, 1]),
            Err(DecodeError::Token { offset: 1, .. })
        ));
    }
}
