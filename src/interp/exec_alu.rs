//! Component routing for 32-bit ALU instructions, plus moves and selects.
//!
//! In: an ALU instruction. Out: its destinations written under their masks.
//! Invariant (`dxbc-format.md` §8): every source is read (swizzled, then
//! modified) before any destination is written, so `mov r0.xy, r0.yx` and
//! `swapc` see the old values; `_sat` is applied to float results before
//! the masked write. The per-opcode scalar rules live in `exec_float` and
//! `exec_int`, which call [`crate::sem`].

use crate::ir::{CompareInst, Instruction, MoveInst, Operand};
use crate::runtime::RuntimeError;

use super::exec_float;
use super::exec_int;
use super::thread::{Ctx, Thread, Ty};

/// mov, movc, swapc.
pub fn moves(
    cx: &mut Ctx,
    t: &mut Thread,
    op: MoveInst,
    inst: &Instruction,
) -> Result<(), RuntimeError> {
    match op {
        MoveInst::Mov => {
            // neg/abs on mov are sign-bit operations (sm5-semantics.md §5).
            let v = src(cx, t, inst, 1, Ty::Float)?;
            write(cx, t, inst, 0, v, inst.saturate())
        }
        MoveInst::Movc => {
            let [c, a, b] = srcs::<3>(cx, t, inst, 1, Ty::Float)?;
            let v = std::array::from_fn(|k| if c[k] != 0 { a[k] } else { b[k] });
            write(cx, t, inst, 0, v, inst.saturate())
        }
        MoveInst::Swapc => {
            let [c, a, b] = srcs::<3>(cx, t, inst, 2, Ty::Float)?;
            let d0 = std::array::from_fn(|k| if c[k] != 0 { b[k] } else { a[k] });
            let d1 = std::array::from_fn(|k| if c[k] != 0 { a[k] } else { b[k] });
            write(cx, t, inst, 0, d0, inst.saturate())?;
            write(cx, t, inst, 1, d1, inst.saturate())
        }
    }
}

/// Float comparisons through [`crate::sem::float`], integer ones through [`crate::sem::int`].
pub fn compare(
    cx: &mut Ctx,
    t: &mut Thread,
    op: CompareInst,
    inst: &Instruction,
) -> Result<(), RuntimeError> {
    use crate::sem::{float as f, int};
    use CompareInst::*;
    match op {
        Eq => exec_float::compare(cx, t, inst, f::eq),
        Ne => exec_float::compare(cx, t, inst, f::ne),
        Lt => exec_float::compare(cx, t, inst, f::lt),
        Ge => exec_float::compare(cx, t, inst, f::ge),
        IEq => exec_int::bin(cx, t, inst, int::ieq),
        INe => exec_int::bin(cx, t, inst, int::ine),
        ILt => exec_int::bin(cx, t, inst, int::ilt),
        IGe => exec_int::bin(cx, t, inst, int::ige),
        ULt => exec_int::bin(cx, t, inst, int::ult),
        UGe => exec_int::bin(cx, t, inst, int::uge),
    }
}

/// Operand `k` of `inst`, or an error naming the missing operand.
pub fn operand(inst: &Instruction, k: usize) -> Result<&Operand, RuntimeError> {
    inst.operands
        .get(k)
        .ok_or_else(|| RuntimeError::InvalidProgram {
            inst_index: None,
            reason: format!("{} is missing operand {k}", inst.opcode.mnemonic()),
        })
}

/// Source `k` (swizzled, modified as `ty`).
pub fn src(
    cx: &Ctx,
    t: &Thread,
    inst: &Instruction,
    k: usize,
    ty: Ty,
) -> Result<[u32; 4], RuntimeError> {
    Ok(cx.src_ty(t, operand(inst, k)?, ty))
}

/// `N` consecutive sources starting at operand `first`.
pub fn srcs<const N: usize>(
    cx: &Ctx,
    t: &Thread,
    inst: &Instruction,
    first: usize,
    ty: Ty,
) -> Result<[[u32; 4]; N], RuntimeError> {
    let mut out = [[0; 4]; N];
    for (k, o) in out.iter_mut().enumerate() {
        *o = src(cx, t, inst, first + k, ty)?;
    }
    Ok(out)
}

/// Writes destination operand `k`, saturating float results first if asked.
pub fn write(
    cx: &Ctx,
    t: &mut Thread,
    inst: &Instruction,
    k: usize,
    v: [u32; 4],
    sat: bool,
) -> Result<(), RuntimeError> {
    let v = if sat {
        v.map(|x| crate::sem::float::sat(f32::from_bits(x)).to_bits())
    } else {
        v
    };
    let op = operand(inst, k)?;
    cx.write(t, op, v);
    Ok(())
}

/// A component-wise op with one destination (operand 0) and `N` sources.
pub fn componentwise<const N: usize>(
    cx: &Ctx,
    t: &mut Thread,
    inst: &Instruction,
    ty: Ty,
    sat: bool,
    f: impl Fn([u32; N]) -> u32,
) -> Result<(), RuntimeError> {
    let s = srcs::<N>(cx, t, inst, 1, ty)?;
    let v = std::array::from_fn(|c| f(std::array::from_fn(|k| s[k][c])));
    write(cx, t, inst, 0, v, sat)
}

/// A component-wise op with two destinations (operands 0 and 1) and `N` sources.
pub fn componentwise2<const N: usize>(
    cx: &Ctx,
    t: &mut Thread,
    inst: &Instruction,
    ty: Ty,
    f: impl Fn([u32; N]) -> (u32, u32),
) -> Result<(), RuntimeError> {
    let s = srcs::<N>(cx, t, inst, 2, ty)?;
    let r: [(u32, u32); 4] = std::array::from_fn(|c| f(std::array::from_fn(|k| s[k][c])));
    write(cx, t, inst, 0, r.map(|x| x.0), false)?;
    write(cx, t, inst, 1, r.map(|x| x.1), false)
}
