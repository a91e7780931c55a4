//! 32-bit float arithmetic and float comparisons.
//!
//! In: a float-class instruction (or eq/ne/lt/ge). Out: its destination(s).
//! Invariant: each component's value is computed by the matching
//! [`crate::sem::float`] function (denormal flushing, NaN and min/max rules
//! live there); this file only picks the function and the routing.

use crate::ir::{Instruction, Opcode};
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

fn compare(
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
    inst: &Instruction,
    i: usize,
) -> Result<(), RuntimeError> {
    match inst.opcode {
        Opcode::Add => binary(cx, t, inst, f::add),
        Opcode::Mul => binary(cx, t, inst, f::mul),
        Opcode::Div => binary(cx, t, inst, f::div),
        Opcode::Min => binary(cx, t, inst, f::min),
        Opcode::Max => binary(cx, t, inst, f::max),
        Opcode::Mad => componentwise::<3>(cx, t, inst, Ty::Float, inst.saturate(), |[a, b, c]| {
            f::mad(fl(a), fl(b), fl(c)).to_bits()
        }),
        Opcode::Dp2 => dot(cx, t, inst, 2),
        Opcode::Dp3 => dot(cx, t, inst, 3),
        Opcode::Dp4 => dot(cx, t, inst, 4),
        Opcode::Exp => unary(cx, t, inst, f::exp2),
        Opcode::Log => unary(cx, t, inst, f::log2),
        Opcode::Sqrt => unary(cx, t, inst, f::sqrt),
        Opcode::Rsq => unary(cx, t, inst, f::rsq),
        Opcode::Rcp => unary(cx, t, inst, f::rcp),
        Opcode::Frc => unary(cx, t, inst, f::frc),
        Opcode::RoundNe => unary(cx, t, inst, f::round_ne),
        Opcode::RoundNi => unary(cx, t, inst, f::round_ni),
        Opcode::RoundPi => unary(cx, t, inst, f::round_pi),
        Opcode::RoundZ => unary(cx, t, inst, f::round_z),
        Opcode::SinCos => sincos(cx, t, inst),
        Opcode::Eq => compare(cx, t, inst, f::eq),
        Opcode::Ne => compare(cx, t, inst, f::ne),
        Opcode::Lt => compare(cx, t, inst, f::lt),
        Opcode::Ge => compare(cx, t, inst, f::ge),
        other => Err(RuntimeError::Unsupported {
            inst_index: i,
            what: other.mnemonic().to_string(),
        }),
    }
}
