//! Double-precision instructions (`sm5-semantics.md` §9).
//!
//! In: a double-class instruction. Out: its destination. Invariant: a
//! double lives in `.xy` (x = low word) or `.zw` of a register; after the
//! source swizzle, double 0 is components x,y and double 1 is z,w; source
//! modifiers flip/clear bit 63 of each double. Arithmetic results are
//! routed per 32-bit component like any ALU op (dst `.zw` takes double 1);
//! comparisons and double→32-bit conversions give the i-th set destination
//! component the i-th double result; 32-bit→double conversions take the
//! first two post-swizzle components. Scalar rules: [`crate::sem::double`].

use crate::ir::{DoubleInst, Instruction};
use crate::runtime::RuntimeError;
use crate::sem::double as d;

use super::exec_alu::{src, write};
use super::thread::{Ctx, Thread, Ty};

/// The two doubles of a swizzled, modified source.
fn doubles(cx: &Ctx, t: &Thread, inst: &Instruction, k: usize) -> Result<[f64; 2], RuntimeError> {
    let v = src(cx, t, inst, k, Ty::Double)?;
    Ok([d::unpack(v[0], v[1]), d::unpack(v[2], v[3])])
}

fn pack2(r: [f64; 2]) -> [u32; 4] {
    let (a, b) = d::pack(r[0]);
    let (c, e) = d::pack(r[1]);
    [a, b, c, e]
}

/// Writes a double result pair, applying `_sat` with dmin/dmax.
fn write_doubles(
    cx: &Ctx,
    t: &mut Thread,
    inst: &Instruction,
    r: [f64; 2],
) -> Result<(), RuntimeError> {
    let r = if inst.saturate() { r.map(d::dsat) } else { r };
    write(cx, t, inst, 0, pack2(r), false)
}

/// Gives the i-th set component of the destination mask the i-th value.
fn write_narrow(
    cx: &Ctx,
    t: &mut Thread,
    inst: &Instruction,
    vals: [u32; 2],
    sat: bool,
) -> Result<(), RuntimeError> {
    let mask = inst.operands.first().map_or(0, |o| o.write_mask());
    let mut out = [0u32; 4];
    let mut next = 0;
    for (c, o) in out.iter_mut().enumerate() {
        if mask & (1 << c) != 0 {
            *o = vals[next.min(1)];
            next += 1;
        }
    }
    write(cx, t, inst, 0, out, sat)
}

/// Writes the first double to the first 64-bit slot of the mask (.xy if
/// present, else .zw) and the second to .zw when both are present.
fn write_wide(
    cx: &Ctx,
    t: &mut Thread,
    inst: &Instruction,
    r: [f64; 2],
) -> Result<(), RuntimeError> {
    let mask = inst.operands.first().map_or(0, |o| o.write_mask());
    let p = pack2(r);
    let v = if mask & 0x3 != 0 {
        p
    } else {
        [0, 0, p[0], p[1]]
    };
    write(cx, t, inst, 0, v, false)
}

fn binary(
    cx: &Ctx,
    t: &mut Thread,
    inst: &Instruction,
    f: fn(f64, f64) -> f64,
) -> Result<(), RuntimeError> {
    let a = doubles(cx, t, inst, 1)?;
    let b = doubles(cx, t, inst, 2)?;
    write_doubles(cx, t, inst, [f(a[0], b[0]), f(a[1], b[1])])
}

fn compare(
    cx: &Ctx,
    t: &mut Thread,
    inst: &Instruction,
    f: fn(f64, f64) -> u32,
) -> Result<(), RuntimeError> {
    let a = doubles(cx, t, inst, 1)?;
    let b = doubles(cx, t, inst, 2)?;
    write_narrow(cx, t, inst, [f(a[0], b[0]), f(a[1], b[1])], false)
}

/// itod/utod/ftod: the first two post-swizzle 32-bit components.
fn widen(
    cx: &Ctx,
    t: &mut Thread,
    inst: &Instruction,
    ty: Ty,
    f: fn(u32) -> f64,
) -> Result<(), RuntimeError> {
    let v = src(cx, t, inst, 1, ty)?;
    write_wide(cx, t, inst, [f(v[0]), f(v[1])])
}

/// dtof/dtoi/dtou: one 32-bit result per double.
fn narrow(
    cx: &Ctx,
    t: &mut Thread,
    inst: &Instruction,
    sat: bool,
    f: fn(f64) -> u32,
) -> Result<(), RuntimeError> {
    let a = doubles(cx, t, inst, 1)?;
    write_narrow(cx, t, inst, [f(a[0]), f(a[1])], sat && inst.saturate())
}

pub fn exec(
    cx: &mut Ctx,
    t: &mut Thread,
    op: DoubleInst,
    inst: &Instruction,
) -> Result<(), RuntimeError> {
    match op {
        DoubleInst::DAdd => binary(cx, t, inst, d::dadd),
        DoubleInst::DMul => binary(cx, t, inst, d::dmul),
        DoubleInst::DDiv => binary(cx, t, inst, d::ddiv),
        DoubleInst::DMin => binary(cx, t, inst, d::dmin),
        DoubleInst::DMax => binary(cx, t, inst, d::dmax),
        DoubleInst::DFma => {
            let [a, b, c] = [
                doubles(cx, t, inst, 1)?,
                doubles(cx, t, inst, 2)?,
                doubles(cx, t, inst, 3)?,
            ];
            write_doubles(
                cx,
                t,
                inst,
                [d::dfma(a[0], b[0], c[0]), d::dfma(a[1], b[1], c[1])],
            )
        }
        DoubleInst::DRcp => {
            let a = doubles(cx, t, inst, 1)?;
            write_doubles(cx, t, inst, a.map(d::drcp))
        }
        DoubleInst::DMov => {
            let v = src(cx, t, inst, 1, Ty::Double)?;
            if inst.saturate() {
                write_doubles(cx, t, inst, [d::unpack(v[0], v[1]), d::unpack(v[2], v[3])])
            } else {
                write(cx, t, inst, 0, v, false)
            }
        }
        DoubleInst::DMovc => {
            let c = src(cx, t, inst, 1, Ty::Int)?;
            let a = src(cx, t, inst, 2, Ty::Double)?;
            let b = src(cx, t, inst, 3, Ty::Double)?;
            let pick = |k: usize| if c[k / 2] != 0 { a[k] } else { b[k] };
            let v = std::array::from_fn(pick);
            if inst.saturate() {
                write_doubles(cx, t, inst, [d::unpack(v[0], v[1]), d::unpack(v[2], v[3])])
            } else {
                write(cx, t, inst, 0, v, false)
            }
        }
        DoubleInst::DEq => compare(cx, t, inst, d::deq),
        DoubleInst::DNe => compare(cx, t, inst, d::dne),
        DoubleInst::DLt => compare(cx, t, inst, d::dlt),
        DoubleInst::DGe => compare(cx, t, inst, d::dge),
        DoubleInst::Dtof => narrow(cx, t, inst, true, |x| d::dtof(x).to_bits()),
        DoubleInst::Dtoi => narrow(cx, t, inst, false, |x| d::dtoi(x) as u32),
        DoubleInst::Dtou => narrow(cx, t, inst, false, d::dtou),
        DoubleInst::Ftod => widen(cx, t, inst, Ty::Float, |x| d::ftod(f32::from_bits(x))),
        DoubleInst::Itod => widen(cx, t, inst, Ty::Int, |x| d::itod(x as i32)),
        DoubleInst::Utod => widen(cx, t, inst, Ty::Int, d::utod),
    }
}
