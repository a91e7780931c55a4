//! 32-bit integer and bit-field instructions.
//!
//! In: an int-class instruction. Out: its destination(s).
//! Invariant: each component comes from [`crate::sem::int`],
//! or [`crate::sem::bits`]; integer sources take their neg/abs modifiers as
//! two's-complement operations.

use crate::ir::{Instruction, IntInst};
use crate::runtime::RuntimeError;
use crate::sem::{bits, int};

use super::exec_alu::{componentwise, componentwise2};
use super::thread::{Ctx, Thread, Ty};

fn un(
    cx: &Ctx,
    t: &mut Thread,
    inst: &Instruction,
    op: fn(u32) -> u32,
) -> Result<(), RuntimeError> {
    componentwise::<1>(cx, t, inst, Ty::Int, false, |[a]| op(a))
}

pub(super) fn bin(
    cx: &Ctx,
    t: &mut Thread,
    inst: &Instruction,
    op: fn(u32, u32) -> u32,
) -> Result<(), RuntimeError> {
    componentwise::<2>(cx, t, inst, Ty::Int, false, |[a, b]| op(a, b))
}

fn tri(
    cx: &Ctx,
    t: &mut Thread,
    inst: &Instruction,
    op: fn(u32, u32, u32) -> u32,
) -> Result<(), RuntimeError> {
    componentwise::<3>(cx, t, inst, Ty::Int, false, |[a, b, c]| op(a, b, c))
}

fn pair(
    cx: &Ctx,
    t: &mut Thread,
    inst: &Instruction,
    op: fn(u32, u32) -> (u32, u32),
) -> Result<(), RuntimeError> {
    componentwise2::<2>(cx, t, inst, Ty::Int, |[a, b]| op(a, b))
}

pub fn exec(
    cx: &mut Ctx,
    t: &mut Thread,
    op: IntInst,
    inst: &Instruction,
) -> Result<(), RuntimeError> {
    use IntInst::*;
    match op {
        IAdd => bin(cx, t, inst, int::iadd),
        INeg => un(cx, t, inst, int::ineg),
        IMad => tri(cx, t, inst, int::imad),
        UMad => tri(cx, t, inst, int::umad),
        IMax => bin(cx, t, inst, int::imax),
        IMin => bin(cx, t, inst, int::imin),
        UMax => bin(cx, t, inst, int::umax),
        UMin => bin(cx, t, inst, int::umin),
        IMul => pair(cx, t, inst, int::imul),
        UMul => pair(cx, t, inst, int::umul),
        UDiv => pair(cx, t, inst, int::udiv),
        UAddc => pair(cx, t, inst, int::uaddc),
        USubb => pair(cx, t, inst, int::usubb),
        IShl => bin(cx, t, inst, int::ishl),
        IShr => bin(cx, t, inst, int::ishr),
        UShr => bin(cx, t, inst, int::ushr),
        And => bin(cx, t, inst, int::and),
        Or => bin(cx, t, inst, int::or),
        Xor => bin(cx, t, inst, int::xor),
        Not => un(cx, t, inst, int::not),
        Msad => tri(cx, t, inst, int::msad),
        CountBits => un(cx, t, inst, bits::countbits),
        FirstBitHi => un(cx, t, inst, bits::firstbit_hi),
        FirstBitLo => un(cx, t, inst, bits::firstbit_lo),
        FirstBitShi => un(cx, t, inst, bits::firstbit_shi),
        BfRev => un(cx, t, inst, bits::bfrev),
        UBfe => tri(cx, t, inst, bits::ubfe),
        IBfe => tri(cx, t, inst, bits::ibfe),
        Bfi => componentwise::<4>(cx, t, inst, Ty::Int, false, |[w, o, ins, base]| {
            bits::bfi(w, o, ins, base)
        }),
    }
}
