//! Atomics on u# (raw, structured, typed R32) and g#, and the hidden UAV
//! counter ops imm_atomic_alloc / imm_atomic_consume.
//!
//! In: an atomic-class instruction. Out: memory updated per
//! [`crate::sem::atomic::combine`], the old value in dst0 for `imm_` forms
//! (written to every masked component), the counter moved. Invariant
//! (`sm5-semantics.md` §11.4, §13): an out-of-bounds or unbound target
//! leaves memory untouched and an `imm_` form returns 0. Threads of a group
//! never run concurrently, but batches of several threads may share one
//! UAV, so u# atomics and counters are real atomic read-modify-writes
//! ([`crate::runtime::UavMemory::update_u32`], `AtomicU32`).

use crate::ir::{AtomicInst, Instruction, Operand, OperandType, Role};
use std::sync::atomic::Ordering;

use crate::runtime::{RuntimeError, View};
use crate::sem::atomic::{combine, counter_alloc, counter_consume, AtomicOp};
use crate::sem::memory::{raw_dword, structured_dword, OOB_READ};

use super::exec_alu::{operand, src, write};
use super::exec_memory::typed_location;
use super::resources::{Loc, Target};
use super::thread::{Ctx, Thread, Ty};

pub fn exec(
    cx: &mut Ctx,
    t: &mut Thread,
    op: AtomicInst,
    inst: &Instruction,
    i: usize,
) -> Result<(), RuntimeError> {
    use AtomicInst::*;
    if t.helper {
        return helper(cx, t, inst);
    }
    match op {
        ImmAtomicAlloc => counter(cx, t, inst, counter_alloc),
        ImmAtomicConsume => counter(cx, t, inst, counter_consume),
        AtomicAnd | AtomicOr | AtomicXor | AtomicCmpStore | AtomicIAdd | AtomicIMax
        | AtomicIMin | AtomicUMax | AtomicUMin | ImmAtomicIAdd | ImmAtomicAnd | ImmAtomicOr
        | ImmAtomicXor | ImmAtomicExch | ImmAtomicCmpExch | ImmAtomicIMax | ImmAtomicIMin
        | ImmAtomicUMax | ImmAtomicUMin => {
            // The table gives every memory atomic its operation (Form::Atomic).
            let Some(kind) = op.opcode().atomic() else {
                return Err(RuntimeError::Unsupported {
                    inst_index: i,
                    what: inst.opcode.mnemonic().to_string(),
                });
            };
            rmw(cx, t, inst, kind.op, kind.returns_old)
        }
    }
}

/// An atomic in a helper lane of a pixel quad: no memory or counter
/// changes; an `imm_*` form returns 0.
fn helper(cx: &mut Ctx, t: &mut Thread, inst: &Instruction) -> Result<(), RuntimeError> {
    // The forms that return a value have a register destination first (table roles).
    let returns = inst.opcode.roles().and_then(|r| r.first()) == Some(&Role::Dst);
    if returns {
        write(cx, t, inst, 0, [0; 4], false)?;
    }
    Ok(())
}

/// imm_atomic_alloc / consume d, u#: moves the hidden counter; a UAV
/// without a counter returns 0 and changes nothing.
fn counter(
    cx: &mut Ctx,
    t: &mut Thread,
    inst: &Instruction,
    f: fn(u32) -> (u32, u32),
) -> Result<(), RuntimeError> {
    let target = cx.target(t, operand(inst, 1)?);
    let mut ret = OOB_READ;
    if let Target::Uav(slot) = target {
        if let Some(c) = cx.b.get_uav(slot).and_then(|u| u.counter.as_ref()) {
            let old = c
                .cell()
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |x| Some(f(x).0))
                .unwrap_or_else(|x| x);
            ret = f(old).1;
        }
    }
    write(cx, t, inst, 0, [ret; 4], false)
}

/// A 32-bit location of an atomic: raw/structured DWORD or typed element.
enum AtomicLoc {
    Dword(Loc),
    /// Absolute byte of a 4-byte typed element in the UAV at `slot`.
    Typed {
        slot: crate::runtime::Slot,
        byte: u64,
    },
}

fn locate(cx: &Ctx, t: &Thread, mem: &Operand, addr: [u32; 4]) -> AtomicLoc {
    let target = cx.target(t, mem);
    if let (Target::Uav(slot), Some(view)) = (target, cx.view(target)) {
        let typed = match view {
            View::Buffer(bv) => matches!(bv.kind, crate::runtime::BufferKind::Typed(_)),
            View::Texture(_) => true,
        };
        if typed {
            return match typed_location(&view, addr, 0) {
                (Some(byte), Some(f)) if f.bytes() == 4 => AtomicLoc::Typed { slot, byte },
                _ => AtomicLoc::Dword(Loc::Out),
            };
        }
    }
    let dword = match cx.declared_stride(t, mem) {
        Some(stride) => structured_dword(addr[0], addr[1], stride),
        None if mem.ty == OperandType::Tgsm || cx.decl_of(t, mem).is_some() => raw_dword(addr[0]),
        None => return AtomicLoc::Dword(Loc::Out),
    };
    AtomicLoc::Dword(cx.locate(target, dword))
}

/// Replaces the DWORD at `loc` by `f(old)` (nothing stored on `None`),
/// atomically for u# memory; returns `old`, `None` when out of bounds.
fn update(cx: &mut Ctx, loc: &AtomicLoc, mut f: impl FnMut(u32) -> Option<u32>) -> Option<u32> {
    match *loc {
        AtomicLoc::Dword(Loc::Out) => None,
        AtomicLoc::Typed { slot, byte } => cx.b.get_uav(slot)?.data.update_u32(byte, f),
        // A located u# DWORD is inside its window, hence inside the memory.
        AtomicLoc::Dword(Loc::Uav { slot, byte }) => {
            cx.b.get_uav(slot)
                .map_or(Some(OOB_READ), |u| u.data.update_u32(byte, f))
        }
        AtomicLoc::Dword(l) => {
            let old = cx.load(l);
            if let Some(new) = f(old) {
                cx.store(l, new);
            }
            Some(old)
        }
    }
}

/// atomic_* mem, addr, [cmp,] v and imm_atomic_* d, mem, addr, [cmp,] v.
fn rmw(
    cx: &mut Ctx,
    t: &mut Thread,
    inst: &Instruction,
    aop: AtomicOp,
    returns_old: bool,
) -> Result<(), RuntimeError> {
    let m = usize::from(returns_old);
    let mem = operand(inst, m)?;
    let addr = src(cx, t, inst, m + 1, Ty::Int)?;
    let (cmp, v) = if aop == AtomicOp::CmpExch {
        (
            src(cx, t, inst, m + 2, Ty::Int)?[0],
            src(cx, t, inst, m + 3, Ty::Int)?[0],
        )
    } else {
        (0, src(cx, t, inst, m + 2, Ty::Int)?[0])
    };
    let loc = locate(cx, t, mem, addr);
    let old = update(cx, &loc, |old| combine(aop, old, v, cmp));
    if returns_old {
        write(cx, t, inst, 0, [old.unwrap_or(OOB_READ); 4], false)?;
    }
    Ok(())
}
