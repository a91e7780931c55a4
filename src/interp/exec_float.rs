//! 32-bit float arithmetic (and the float-comparison helper).
//!
//! In: a float-class instruction. Out: its destination(s).
//! Invariant: each component's value is computed by the matching
//! [`crate::sem::float`] function (denormal flushing, NaN and min/max rules
//! live there); this file only picks the function and the routing.

use crate::ir::{FloatInst, Instruction};
use crate::runtime::RuntimeError;
use crate::sem::float as f;

use super::exec_alu::{componentwise, srcs, write};
use super::thread::{Ctx, Thread, Ty};

fn fl(x: u32) -> f32 {
    f32::from_bits(x)
}

fn unary(
    cx: &Ctx,
    t: &mut Thread,
    inst: &Instruction,
    op: fn(f32) -> f32,
) -> Result<(), RuntimeError> {
    componentwise::<1>(cx, t, inst, Ty::Float, inst.saturate(), |[a]| {
        op(fl(a)).to_bits()
    })
}

fn binary(
    cx: &Ctx,
    t: &mut Thread,
    inst: &Instruction,
    op: fn(f32, f32) -> f32,
) -> Result<(), RuntimeError> {
    componentwise::<2>(cx, t, inst, Ty::Float, inst.saturate(), |[a, b]| {
        op(fl(a), fl(b)).to_bits()
    })
}

pub(super) fn compare(
    cx: &Ctx,
    t: &mut Thread,
    inst: &Instruction,
    op: fn(f32, f32) -> u32,
) -> Result<(), RuntimeError> {
    componentwise::<2>(cx, t, inst, Ty::Float, false, |[a, b]| op(fl(a), fl(b)))
}

/// dp2/dp3/dp4: one scalar written to every masked component.
fn dot(cx: &Ctx, t: &mut Thread, inst: &Instruction, n: usize) -> Result<(), RuntimeError> {
    let [a, b] = srcs::<2>(cx, t, inst, 1, Ty::Float)?;
    let (a, b) = (a.map(fl), b.map(fl));
    let r = match n {
        2 => f::dp2([a[0], a[1]], [b[0], b[1]]),
        3 => f::dp3([a[0], a[1], a[2]], [b[0], b[1], b[2]]),
        _ => f::dp4(a, b),
    };
    write(cx, t, inst, 0, [r.to_bits(); 4], inst.saturate())
}

/// sincos dSin, dCos, src: either destination may be null.
fn sincos(cx: &Ctx, t: &mut Thread, inst: &Instruction) -> Result<(), RuntimeError> {
    let [a] = srcs::<1>(cx, t, inst, 2, Ty::Float)?;
    let s = a.map(|x| f::sin(fl(x)).to_bits());
    let c = a.map(|x| f::cos(fl(x)).to_bits());
    write(cx, t, inst, 0, s, inst.saturate())?;
    write(cx, t, inst, 1, c, inst.saturate())
}

pub fn exec(
    cx: &mut Ctx,
    t: &mut Thread,
    op: FloatInst,
    inst: &Instruction,
) -> Result<(), RuntimeError> {
    match op {
        FloatInst::Add => binary(cx, t, inst, f::add),
        FloatInst::Mul => binary(cx, t, inst, f::mul),
        FloatInst::Div => binary(cx, t, inst, f::div),
        FloatInst::Min => binary(cx, t, inst, f::min),
        FloatInst::Max => binary(cx, t, inst, f::max),
        FloatInst::Mad => {
            componentwise::<3>(cx, t, inst, Ty::Float, inst.saturate(), |[a, b, c]| {
                f::mad(fl(a), fl(b), fl(c)).to_bits()
            })
        }
        FloatInst::Dp2 => dot(cx, t, inst, 2),
        FloatInst::Dp3 => dot(cx, t, inst, 3),
        FloatInst::Dp4 => dot(cx, t, inst, 4),
        FloatInst::Exp => unary(cx, t, inst, f::exp2),
        FloatInst::Log => unary(cx, t, inst, f::log2),
        FloatInst::Sqrt => unary(cx, t, inst, f::sqrt),
        FloatInst::Rsq => unary(cx, t, inst, f::rsq),
        FloatInst::Rcp => unary(cx, t, inst, f::rcp),
        FloatInst::Frc => unary(cx, t, inst, f::frc),
        FloatInst::RoundNe => unary(cx, t, inst, f::round_ne),
        FloatInst::RoundNi => unary(cx, t, inst, f::round_ni),
        FloatInst::RoundPi => unary(cx, t, inst, f::round_pi),
        FloatInst::RoundZ => unary(cx, t, inst, f::round_z),
        FloatInst::SinCos => sincos(cx, t, inst),
    }
}
