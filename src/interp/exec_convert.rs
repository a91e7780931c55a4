//! Conversions between 32-bit number formats: ftoi, ftou, itof, utof,
//! f32tof16, f16tof32.
//!
//! In: a convert-class instruction. Out: its destination. Invariant: each
//! component comes from [`crate::sem::convert`]; float sources take neg/abs
//! as sign-bit operations, integer sources as two's-complement operations,
//! and `_sat` only clamps float results.

use crate::ir::{ConvertInst, Instruction};
use crate::runtime::RuntimeError;
use crate::sem::convert;

use super::exec_alu::componentwise;
use super::thread::{Ctx, Thread, Ty};

/// A conversion: `from` says how source modifiers apply, `sat` whether the
/// result is a float that `_sat` may clamp.
fn conv(
    cx: &Ctx,
    t: &mut Thread,
    inst: &Instruction,
    from: Ty,
    sat: bool,
    op: fn(u32) -> u32,
) -> Result<(), RuntimeError> {
    componentwise::<1>(cx, t, inst, from, sat && inst.saturate(), |[a]| op(a))
}

pub fn exec(
    cx: &mut Ctx,
    t: &mut Thread,
    op: ConvertInst,
    inst: &Instruction,
) -> Result<(), RuntimeError> {
    use ConvertInst::*;
    match op {
        Ftoi => conv(cx, t, inst, Ty::Float, false, |a| {
            convert::ftoi(f32::from_bits(a)) as u32
        }),
        Ftou => conv(cx, t, inst, Ty::Float, false, |a| {
            convert::ftou(f32::from_bits(a))
        }),
        Itof => conv(cx, t, inst, Ty::Int, true, |a| {
            convert::itof(a as i32).to_bits()
        }),
        Utof => conv(cx, t, inst, Ty::Int, true, |a| convert::utof(a).to_bits()),
        F32tof16 => conv(cx, t, inst, Ty::Float, false, |a| {
            convert::f32tof16(f32::from_bits(a))
        }),
        F16tof32 => conv(cx, t, inst, Ty::Int, true, |a| {
            convert::f16tof32(a).to_bits()
        }),
    }
}
