//! Declarations by register: one short function per declaration kind,
//! each filling its part of [`Prepared`] and re-checking the limit its
//! size counts against ([`crate::limits`]).
//!
//! In: the program's declarations in order. Out: `Prepared`'s register
//! counts, resource lists, TGSM blocks and group size, or the first
//! declaration whose size breaks a limit. Invariant: every running total
//! is checked as soon as it grows, so nothing downstream allocates from
//! an unchecked count.

use crate::ir::{Decl, Operand, OperandType, ProgramKind, ResourceDim, ReturnType};
use crate::limits::{MAX_GROUP_THREADS_5, MAX_IO_REGISTERS, MAX_TEMPS, TGSM_BYTES_5};
use crate::runtime::{RuntimeError, SpecialOutput};

use super::{invalid, CbDecl, Prepared, ResDecl, ResKind, TgsmDecl};

/// The running totals the declarations' limits are checked against.
#[derive(Default)]
struct Totals {
    temp_vec4: u64,
    tgsm_bytes: u64,
}

/// Reads every declaration into `p` (the declarations are taken out of
/// `p.program` while they are read and put back after).
pub(super) fn read_decls(p: &mut Prepared) -> Result<(), RuntimeError> {
    let sm51 = p.program.version.is_sm51();
    let decls = std::mem::take(&mut p.program.decls);
    let mut totals = Totals::default();
    let read = decls
        .iter()
        .try_for_each(|d| read_decl(p, &mut totals, d, sm51));
    p.program.decls = decls;
    read?;
    special_register(p);
    if p.io_regs > MAX_IO_REGISTERS {
        return Err(invalid(
            None,
            format!("input/output register {} is out of range", p.io_regs - 1),
        ));
    }
    Ok(())
}

/// A pixel program with special inputs or outputs (vCoverage, oDepth,
/// ...) gets one more register, after the last v#/o#, to hold them.
fn special_register(p: &mut Prepared) {
    let special_inputs = p.program.decls.iter().any(|d| {
        matches!(d, Decl::Input(op) if crate::runtime::batch::special_component(op.ty).is_some())
    });
    if p.program.version.kind == ProgramKind::Pixel && (special_inputs || !p.specials.is_empty()) {
        p.special_reg = Some(p.io_regs);
        p.io_regs += 1;
    }
}

fn read_decl(p: &mut Prepared, t: &mut Totals, d: &Decl, sm51: bool) -> Result<(), RuntimeError> {
    use ResKind::{Raw, Structured};
    match d {
        Decl::Temps(n) => temps(p, t, *n),
        Decl::IndexableTemp { reg, len, .. } => indexable(p, t, *reg, *len),
        Decl::ThreadGroup(dims) => thread_group(p, *dims),
        Decl::ConstantBuffer(cb) => constant_buffer(p, &cb.op, cb.space, sm51),
        Decl::ImmediateConstantBuffer(data) => {
            p.icb.clone_from(data);
            Ok(())
        }
        Decl::Resource(r) => push_res(&mut p.srvs, &r.op, r.space, typed(r.dim, r.ret), sm51),
        Decl::ResourceRaw { op, space, .. } => push_res(&mut p.srvs, op, *space, Raw, sm51),
        Decl::ResourceStructured {
            op, stride, space, ..
        } => {
            let kind = Structured { stride: *stride };
            push_res(&mut p.srvs, op, *space, kind, sm51)
        }
        Decl::UavTyped(u) => push_res(&mut p.uavs, &u.op, u.space, typed(u.dim, u.ret), sm51),
        Decl::UavRaw { op, space, .. } => push_res(&mut p.uavs, op, *space, Raw, sm51),
        Decl::UavStructured(u) => {
            let kind = Structured { stride: u.stride };
            push_res(&mut p.uavs, &u.op, u.space, kind, sm51)
        }
        Decl::TgsmRaw { op, bytes } => tgsm(p, t, op, u64::from(*bytes), None),
        Decl::TgsmStructured { op, stride, count } => {
            let bytes = u64::from(*stride) * u64::from(*count);
            tgsm(p, t, op, bytes, Some(*stride))
        }
        Decl::Output(op) if SpecialOutput::from_operand(op.ty).is_some() => {
            p.specials.extend(SpecialOutput::from_operand(op.ty));
            Ok(())
        }
        Decl::Output(op) | Decl::OutputSgv { op, .. } | Decl::OutputSiv { op, .. } => output(p, op),
        Decl::Input(op)
        | Decl::InputSgv { op, .. }
        | Decl::InputSiv { op, .. }
        | Decl::InputPs { op, .. }
        | Decl::InputPsSgv { op, .. }
        | Decl::InputPsSiv { op, .. } => input(p, op),
        _ => Ok(()),
    }
}

fn typed(dim: ResourceDim, ret: [ReturnType; 4]) -> ResKind {
    ResKind::Typed { dim, ret }
}

/// Adds `vec4` temps to the total and checks it.
fn add_temps(t: &mut Totals, vec4: u32) -> Result<(), RuntimeError> {
    t.temp_vec4 += u64::from(vec4);
    if t.temp_vec4 > MAX_TEMPS {
        return Err(invalid(
            None,
            format!(
                "{} temp registers declared (at most {MAX_TEMPS})",
                t.temp_vec4
            ),
        ));
    }
    Ok(())
}

fn temps(p: &mut Prepared, t: &mut Totals, n: u32) -> Result<(), RuntimeError> {
    p.temps = n;
    add_temps(t, n)
}

fn indexable(p: &mut Prepared, t: &mut Totals, reg: u32, len: u32) -> Result<(), RuntimeError> {
    p.indexable.retain(|(r, _)| *r != reg);
    p.indexable.push((reg, len));
    add_temps(t, len)
}

fn thread_group(p: &mut Prepared, dims: [u32; 3]) -> Result<(), RuntimeError> {
    let n: u64 = dims.iter().map(|&d| u64::from(d)).product();
    if n == 0 || n > MAX_GROUP_THREADS_5 {
        return Err(invalid(
            None,
            format!("thread group {dims:?} has {n} threads (1..={MAX_GROUP_THREADS_5} allowed)"),
        ));
    }
    p.group_size = dims;
    Ok(())
}

/// The register range of a declaration operand: `[id]` before SM5.1,
/// `[id][lower][upper]` in SM5.1.
fn decl_range(op: &Operand, sm51: bool) -> Result<(u32, u32, u32), RuntimeError> {
    let id = op
        .imm_index(0)
        .ok_or_else(|| invalid(None, "declaration without a register number"))?;
    if !sm51 {
        return Ok((id, id, id));
    }
    let lower = op.imm_index(1).unwrap_or(id);
    let upper = op.imm_index(2).unwrap_or(lower);
    Ok((id, lower, upper))
}

fn constant_buffer(
    p: &mut Prepared,
    op: &Operand,
    space: u32,
    sm51: bool,
) -> Result<(), RuntimeError> {
    let (id, lower, upper) = decl_range(op, sm51)?;
    p.cbs.push(CbDecl {
        id,
        space,
        lower,
        upper,
    });
    Ok(())
}

/// A t# (`list` = `p.srvs`) or u# (`p.uavs`) declaration.
fn push_res(
    list: &mut Vec<ResDecl>,
    op: &Operand,
    space: u32,
    kind: ResKind,
    sm51: bool,
) -> Result<(), RuntimeError> {
    let (id, lower, upper) = decl_range(op, sm51)?;
    list.push(ResDecl {
        id,
        space,
        lower,
        upper,
        kind,
    });
    Ok(())
}

/// A g# block of `bytes` (structured when `stride` is given).
fn tgsm(
    p: &mut Prepared,
    t: &mut Totals,
    op: &Operand,
    bytes: u64,
    stride: Option<u32>,
) -> Result<(), RuntimeError> {
    let g = op
        .imm_index(0)
        .ok_or_else(|| invalid(None, "a TGSM declaration without a register"))?;
    t.tgsm_bytes += bytes;
    let dwords = u32::try_from(bytes / 4).unwrap_or(u32::MAX);
    p.tgsm.insert(g, TgsmDecl { dwords, stride });
    if t.tgsm_bytes > TGSM_BYTES_5 {
        return Err(invalid(
            None,
            format!(
                "{} bytes of TGSM declared (at most {TGSM_BYTES_5})",
                t.tgsm_bytes
            ),
        ));
    }
    Ok(())
}

fn output(p: &mut Prepared, op: &Operand) -> Result<(), RuntimeError> {
    if let Some(r) = op.imm_index(0).filter(|r| !p.outputs.contains(r)) {
        p.outputs.push(r);
        p.io_regs = p.io_regs.max(r.saturating_add(1));
    }
    Ok(())
}

fn input(p: &mut Prepared, op: &Operand) -> Result<(), RuntimeError> {
    if let (OperandType::Input, Some(r)) = (op.ty, op.imm_index(0)) {
        p.io_regs = p.io_regs.max(r.saturating_add(1));
    }
    Ok(())
}
