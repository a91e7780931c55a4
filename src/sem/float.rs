//! 32-bit float arithmetic with the D3D11 rules (`sm5-semantics.md` §3–§5).
//!
//! In: `f32` operands (source modifiers already applied with
//! [`apply_modifier`]). Out: the `f32` result, or a `u32` mask for the
//! comparisons. Invariants: every arithmetic op flushes denormal inputs and
//! denormal outputs to a zero of the same sign; add/sub/mul/div/sqrt are
//! IEEE round-to-nearest-even; `mad` and `dp*` are unfused (each step rounded
//! and flushed, dp left to right); min/max drop a NaN operand and order
//! −0 < +0; every NaN an arithmetic op returns is the canonical quiet NaN
//! [`CANONICAL_NAN`] (so results do not depend on the host's NaN payload
//! rules); nothing depends on the host FP mode (flushing is explicit).
//!
//! The transcendental ops (`exp2`, `log2`, `sin`, `cos`) are evaluated in
//! f64 by [`super::elementary`] (pure Rust, no libm) and rounded once to f32:
//! correctly rounded except in rare near-tie cases, far inside the spec
//! tolerances (2^-21 relative; 0.0008 absolute for sincos), and bit-identical
//! on every host.

use super::{elementary, mask};
use crate::ir::Modifier;

const SIGN: u32 = 0x8000_0000;
const EXP_MASK: u32 = 0x7F80_0000;

/// The bits of the NaN every float arithmetic op returns (positive quiet
/// NaN, the pattern Cranelift's NaN canonicalisation also produces).
pub const CANONICAL_NAN: u32 = 0x7FC0_0000;

/// Output rule of every float arithmetic op: NaN becomes [`CANONICAL_NAN`],
/// a denormal becomes a zero of the same sign, anything else passes.
#[inline]
pub fn finish(x: f32) -> f32 {
    if x.is_nan() {
        f32::from_bits(CANONICAL_NAN)
    } else {
        flush(x)
    }
}

/// Flushes a denormal to a zero of the same sign; other values pass through.
#[inline]
pub fn flush(x: f32) -> f32 {
    let b = x.to_bits();
    if b & EXP_MASK == 0 {
        f32::from_bits(b & SIGN)
    } else {
        x
    }
}

/// Whether `x` is a denormal (non-zero with a zero exponent field).
#[inline]
pub fn is_denormal(x: f32) -> bool {
    let b = x.to_bits();
    b & EXP_MASK == 0 && b & !SIGN != 0
}

/// Applies a source modifier as sign-bit operations on raw bits (no flush):
/// `neg` flips bit 31, `abs` clears it, `-abs` sets it.
#[inline]
pub fn apply_modifier(bits: u32, m: Modifier) -> u32 {
    match m {
        Modifier::None => bits,
        Modifier::Neg => bits ^ SIGN,
        Modifier::Abs => bits & !SIGN,
        Modifier::AbsNeg => bits | SIGN,
    }
}

/// Sign flip on the bits (float `neg` source modifier).
#[inline]
pub fn neg(x: f32) -> f32 {
    f32::from_bits(x.to_bits() ^ SIGN)
}

/// Sign clear on the bits (float `abs` source modifier).
#[inline]
pub fn abs(x: f32) -> f32 {
    f32::from_bits(x.to_bits() & !SIGN)
}

/// `a + b`.
#[inline]
pub fn add(a: f32, b: f32) -> f32 {
    finish(flush(a) + flush(b))
}

/// `a * b`.
#[inline]
pub fn mul(a: f32, b: f32) -> f32 {
    finish(flush(a) * flush(b))
}

/// `a / b` (IEEE division; x/0 = ±INF, 0/0 = NaN).
#[inline]
pub fn div(a: f32, b: f32) -> f32 {
    finish(flush(a) / flush(b))
}

/// `a * b + c`, unfused: the product is rounded and flushed before the add.
#[inline]
pub fn mad(a: f32, b: f32, c: f32) -> f32 {
    add(mul(a, b), c)
}

/// Two-component dot product: `a0*b0 + a1*b1`, left to right, unfused.
#[inline]
pub fn dp2(a: [f32; 2], b: [f32; 2]) -> f32 {
    mad(a[1], b[1], mul(a[0], b[0]))
}

/// Three-component dot product, left to right, unfused.
#[inline]
pub fn dp3(a: [f32; 3], b: [f32; 3]) -> f32 {
    mad(a[2], b[2], dp2([a[0], a[1]], [b[0], b[1]]))
}

/// Four-component dot product, left to right, unfused.
#[inline]
pub fn dp4(a: [f32; 4], b: [f32; 4]) -> f32 {
    mad(a[3], b[3], dp3([a[0], a[1], a[2]], [b[0], b[1], b[2]]))
}

/// Whether `a < b` in the total order min/max use for non-NaN values
/// (ordinary `<`, plus −0 < +0).
#[inline]
fn less(a: f32, b: f32) -> bool {
    a < b || (a == 0.0 && b == 0.0 && a.is_sign_negative() && b.is_sign_positive())
}

/// D3D `min`: a NaN operand loses (both NaN → NaN); −0 < +0; inputs flushed.
#[inline]
pub fn min(a: f32, b: f32) -> f32 {
    let (a, b) = (flush(a), flush(b));
    if a.is_nan() {
        finish(b)
    } else if b.is_nan() || less(a, b) {
        a
    } else {
        b
    }
}

/// D3D `max`: a NaN operand loses (both NaN → NaN); −0 < +0; inputs flushed.
#[inline]
pub fn max(a: f32, b: f32) -> f32 {
    let (a, b) = (flush(a), flush(b));
    if a.is_nan() {
        finish(b)
    } else if b.is_nan() || less(b, a) {
        a
    } else {
        b
    }
}

/// `_sat`: clamp to [+0, 1] with D3D min/max, so NaN → +0 and −0 → +0.
#[inline]
pub fn sat(x: f32) -> f32 {
    min(1.0, max(0.0, x))
}

/// `exp`: 2^x. exp2(−INF) = +0, exp2(±0) = 1, exp2(+INF) = +INF.
#[inline]
pub fn exp2(x: f32) -> f32 {
    let x = flush(x);
    if x.is_nan() {
        f32::from_bits(CANONICAL_NAN)
    } else if x >= 128.0 {
        f32::INFINITY
    } else if x < -127.0 {
        // Below 2^-127 the result is a denormal (or less) and flushes.
        0.0
    } else {
        finish(elementary::exp2(x) as f32)
    }
}

/// `log`: log2(x). log2(±0) = −INF, log2(negative) = NaN, log2(+INF) = +INF.
#[inline]
pub fn log2(x: f32) -> f32 {
    let x = flush(x);
    if x == 0.0 {
        return f32::NEG_INFINITY;
    }
    if x < 0.0 || x.is_nan() {
        return f32::from_bits(CANONICAL_NAN);
    }
    if x == f32::INFINITY {
        return x;
    }
    finish(elementary::log2(x) as f32)
}

/// `sqrt`: IEEE square root. sqrt(−0) = −0, sqrt(negative) = NaN.
#[inline]
pub fn sqrt(x: f32) -> f32 {
    finish(flush(x).sqrt())
}

/// `rsq`: 1/sqrt(x). rsq(±0) = ±INF, rsq(+INF) = +0, rsq(negative) = NaN.
#[inline]
pub fn rsq(x: f32) -> f32 {
    let x = flush(x);
    if x == 0.0 {
        // 1/sqrt(±0) = 1/±0 = ±INF.
        return if x.is_sign_negative() {
            f32::NEG_INFINITY
        } else {
            f32::INFINITY
        };
    }
    // In f64 the square root and the division are each exact to half an f64
    // ULP, so the single rounding to f32 is within an f32 ULP.
    finish((1.0 / (x as f64).sqrt()) as f32)
}

/// `rcp`: 1/x. rcp(±0) = ±INF, rcp(±INF) = ±0, tiny results flush to ±0.
#[inline]
pub fn rcp(x: f32) -> f32 {
    div(1.0, x)
}

/// `frc`: x − floor(x), in [+0, 1). ±INF and NaN give NaN; frc(±0) = +0.
#[inline]
pub fn frc(x: f32) -> f32 {
    let x = flush(x);
    let r = finish(x - x.floor());
    // For tiny negative x, x − floor(x) = 1 − tiny rounds up to 1.0, which is
    // outside the spec's [0, 1) range: return the largest float below 1.
    if r >= 1.0 {
        f32::from_bits(0x3F7F_FFFF)
    } else {
        // Never −0: an exact zero difference x − x is +0 under RNE.
        r
    }
}

/// `round_ne`: round to nearest, ties to even. Zero results keep the sign.
#[inline]
pub fn round_ne(x: f32) -> f32 {
    finish(flush(x).round_ties_even())
}

/// `round_ni`: round toward −INF (floor).
#[inline]
pub fn round_ni(x: f32) -> f32 {
    finish(flush(x).floor())
}

/// `round_pi`: round toward +INF (ceil). round_pi(−0.5) = −0.
#[inline]
pub fn round_pi(x: f32) -> f32 {
    finish(flush(x).ceil())
}

/// `round_z`: round toward zero (trunc).
#[inline]
pub fn round_z(x: f32) -> f32 {
    finish(flush(x).trunc())
}

/// `sincos` sine. sin(±INF) = NaN, sin(±0) = ±0.
#[inline]
pub fn sin(x: f32) -> f32 {
    let x = flush(x);
    if !x.is_finite() {
        return f32::from_bits(CANONICAL_NAN);
    }
    finish(elementary::sin(x) as f32)
}

/// `sincos` cosine. cos(±INF) = NaN, cos(±0) = 1.
#[inline]
pub fn cos(x: f32) -> f32 {
    let x = flush(x);
    if !x.is_finite() {
        return f32::from_bits(CANONICAL_NAN);
    }
    finish(elementary::cos(x) as f32)
}

/// `eq`: ordered equal (NaN → false, +0 == −0), after flushing.
#[inline]
pub fn eq(a: f32, b: f32) -> u32 {
    mask(flush(a) == flush(b))
}

/// `ne`: unordered not-equal (any NaN → true), after flushing.
#[inline]
pub fn ne(a: f32, b: f32) -> u32 {
    mask(flush(a) != flush(b))
}

/// `lt`: ordered less-than (NaN → false), after flushing.
#[inline]
pub fn lt(a: f32, b: f32) -> u32 {
    mask(flush(a) < flush(b))
}

/// `ge`: ordered greater-or-equal (NaN → false), after flushing.
#[inline]
pub fn ge(a: f32, b: f32) -> u32 {
    mask(flush(a) >= flush(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEN: f32 = f32::from_bits(0x0000_0001);
    const NDEN: f32 = f32::from_bits(0x8000_0001);
    const BIG_DEN: f32 = f32::from_bits(0x007F_FFFF);
    const NZ: f32 = -0.0;
    const INF: f32 = f32::INFINITY;
    const NINF: f32 = f32::NEG_INFINITY;
    const NAN: f32 = f32::NAN;

    fn bits(x: f32) -> u32 {
        x.to_bits()
    }

    #[test]
    fn flush_keeps_sign_and_normals() {
        assert_eq!(bits(flush(DEN)), 0);
        assert_eq!(bits(flush(NDEN)), 0x8000_0000);
        assert_eq!(bits(flush(BIG_DEN)), 0);
        assert_eq!(bits(flush(f32::MIN_POSITIVE)), 0x0080_0000);
        assert_eq!(bits(flush(NZ)), 0x8000_0000);
        assert!(flush(NAN).is_nan());
        assert_eq!(flush(INF), INF);
        assert!(is_denormal(NDEN) && !is_denormal(NZ) && !is_denormal(1.0));
    }

    #[test]
    fn nan_results_are_canonical() {
        let odd = f32::from_bits(0xFFC0_1234);
        let ops: [fn(f32) -> f32; 13] = [
            exp2, log2, sqrt, rsq, rcp, frc, round_ne, round_ni, round_pi, round_z, sin, cos,
            finish,
        ];
        for op in ops {
            assert_eq!(bits(op(odd)), CANONICAL_NAN);
        }
        assert_eq!(bits(add(odd, 1.0)), CANONICAL_NAN);
        assert_eq!(bits(mul(1.0, odd)), CANONICAL_NAN);
        assert_eq!(bits(div(0.0, 0.0)), CANONICAL_NAN);
        assert_eq!(bits(add(INF, NINF)), CANONICAL_NAN);
        assert_eq!(bits(min(odd, odd)), CANONICAL_NAN);
        assert_eq!(bits(max(odd, odd)), CANONICAL_NAN);
        assert_eq!(bits(mad(odd, 1.0, 1.0)), CANONICAL_NAN);
        assert_eq!(bits(sqrt(-1.0)), CANONICAL_NAN);
        assert_eq!(bits(log2(-1.0)), CANONICAL_NAN);
        assert_eq!(bits(sin(INF)), CANONICAL_NAN);
    }

    #[test]
    fn modifiers_are_sign_bit_ops() {
        assert_eq!(apply_modifier(0x3F80_0000, Modifier::Neg), 0xBF80_0000);
        assert_eq!(apply_modifier(0xBF80_0000, Modifier::Abs), 0x3F80_0000);
        assert_eq!(apply_modifier(0x3F80_0000, Modifier::AbsNeg), 0xBF80_0000);
        assert_eq!(apply_modifier(0x7FC0_0001, Modifier::None), 0x7FC0_0001);
        // Denormals are not flushed by a modifier.
        assert_eq!(apply_modifier(0x0000_0001, Modifier::Neg), 0x8000_0001);
        assert_eq!(bits(neg(0.0)), 0x8000_0000);
        assert_eq!(bits(abs(NINF)), bits(INF));
    }

    #[test]
    fn add_mul_div_flush_and_ieee() {
        assert_eq!(bits(add(NZ, 0.0)), 0);
        assert_eq!(bits(add(NZ, NZ)), 0x8000_0000);
        assert_eq!(add(DEN, 1.0), 1.0);
        assert!(add(INF, NINF).is_nan());
        // Result denormal → flushed: MIN_POSITIVE − tiny normal.
        let r = add(f32::MIN_POSITIVE, -f32::from_bits(0x0080_0001));
        assert_eq!(bits(r), 0x8000_0000);
        assert_eq!(bits(mul(DEN, 1.0)), 0);
        assert_eq!(bits(mul(NDEN, 1.0)), 0x8000_0000);
        assert_eq!(bits(mul(1e-20, 1e-20)), 0);
        assert!(mul(INF, 0.0).is_nan());
        assert_eq!(mul(3.0, -2.0), -6.0);
        assert_eq!(div(1.0, 0.0), INF);
        assert_eq!(div(-1.0, 0.0), NINF);
        assert_eq!(div(1.0, DEN), INF);
        assert!(div(0.0, 0.0).is_nan());
        assert!(div(INF, INF).is_nan());
        assert_eq!(div(7.0, 2.0), 3.5);
    }

    #[test]
    fn mad_is_unfused() {
        // a = 1 + 2^-23, a*a = 1 + 2^-22 + 2^-46 exactly; the rounded product
        // is 1 + 2^-22, so a*a − round(a*a) is 0 unfused and 2^-46 fused.
        let a = f32::from_bits(0x3F80_0001);
        let p = mul(a, a);
        assert_eq!(mad(a, a, -p), 0.0);
        assert_eq!(mad(2.0, 3.0, 4.0), 10.0);
        assert_eq!(bits(mad(DEN, 1.0, NZ)), 0x0000_0000);
    }

    #[test]
    fn dot_products_chain_left_to_right() {
        assert_eq!(dp2([1.0, 2.0], [3.0, 4.0]), 11.0);
        assert_eq!(dp3([1.0, 2.0, 3.0], [4.0, 5.0, 6.0]), 32.0);
        assert_eq!(dp4([1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]), 70.0);
        // Order matters: (1e30 + -1e30) + 1 = 1, while 1e30 + (-1e30 + 1) = 0.
        assert_eq!(dp3([1e30, -1e30, 1.0], [1.0, 1.0, 1.0]), 1.0);
        assert!(dp2([INF, 1.0], [0.0, 1.0]).is_nan());
    }

    #[test]
    fn min_max_nan_and_zero_rules() {
        assert_eq!(min(NAN, 2.0), 2.0);
        assert_eq!(min(2.0, NAN), 2.0);
        assert_eq!(max(NAN, -2.0), -2.0);
        assert_eq!(max(-2.0, NAN), -2.0);
        assert!(min(NAN, NAN).is_nan());
        assert_eq!(bits(min(0.0, NZ)), 0x8000_0000);
        assert_eq!(bits(min(NZ, 0.0)), 0x8000_0000);
        assert_eq!(bits(max(0.0, NZ)), 0);
        assert_eq!(bits(max(NZ, 0.0)), 0);
        assert_eq!(bits(max(DEN, NDEN)), 0);
        assert_eq!(bits(min(DEN, NDEN)), 0x8000_0000);
        assert_eq!(bits(min(DEN, 0.0)), 0);
        assert_eq!(min(NINF, 1.0), NINF);
        assert_eq!(max(INF, 1.0), INF);
        assert_eq!(min(1.0, 2.0), 1.0);
        assert_eq!(max(1.0, 2.0), 2.0);
    }

    #[test]
    fn sat_clamps_and_kills_nan() {
        assert_eq!(bits(sat(NAN)), 0);
        assert_eq!(bits(sat(NZ)), 0);
        assert_eq!(sat(-3.0), 0.0);
        assert_eq!(sat(3.0), 1.0);
        assert_eq!(sat(INF), 1.0);
        assert_eq!(sat(0.25), 0.25);
        assert_eq!(bits(sat(NDEN)), 0);
    }

    #[test]
    fn exp_log_special_values() {
        assert_eq!(bits(exp2(NINF)), 0);
        assert_eq!(exp2(0.0), 1.0);
        assert_eq!(exp2(NZ), 1.0);
        assert_eq!(exp2(DEN), 1.0);
        assert_eq!(exp2(INF), INF);
        assert!(exp2(NAN).is_nan());
        assert_eq!(exp2(10.0), 1024.0);
        assert_eq!(exp2(-1.0), 0.5);
        assert_eq!(bits(exp2(-140.0)), 0); // denormal result flushed
        assert_eq!(exp2(128.0), INF);
        assert_eq!(log2(0.0), NINF);
        assert_eq!(log2(NZ), NINF);
        assert_eq!(log2(DEN), NINF);
        assert_eq!(log2(NDEN), NINF);
        assert!(log2(-1.0).is_nan());
        assert!(log2(NINF).is_nan());
        assert!(log2(NAN).is_nan());
        assert_eq!(log2(INF), INF);
        assert_eq!(log2(8.0), 3.0);
        assert_eq!(log2(1.0), 0.0);
        assert_eq!(log2(0.25), -2.0);
    }

    #[test]
    fn sqrt_rsq_rcp_special_values() {
        assert_eq!(bits(sqrt(NZ)), 0x8000_0000);
        assert_eq!(bits(sqrt(NDEN)), 0x8000_0000);
        assert!(sqrt(-1.0).is_nan());
        assert!(sqrt(NINF).is_nan());
        assert_eq!(sqrt(INF), INF);
        assert_eq!(sqrt(16.0), 4.0);
        assert_eq!(rsq(NZ), NINF);
        assert_eq!(rsq(NDEN), NINF);
        assert_eq!(rsq(0.0), INF);
        assert_eq!(rsq(DEN), INF);
        assert_eq!(bits(rsq(INF)), 0);
        assert!(rsq(NINF).is_nan());
        assert!(rsq(-4.0).is_nan());
        assert_eq!(rsq(4.0), 0.5);
        assert_eq!(rcp(0.0), INF);
        assert_eq!(rcp(NZ), NINF);
        assert_eq!(rcp(DEN), INF);
        assert_eq!(rcp(NDEN), NINF);
        assert_eq!(bits(rcp(INF)), 0);
        assert_eq!(bits(rcp(NINF)), 0x8000_0000);
        assert_eq!(rcp(4.0), 0.25);
        // 1/2^127 is a denormal → flushed.
        assert_eq!(bits(rcp(f32::from_bits(0x7F00_0000))), 0);
    }

    #[test]
    fn frc_range_and_specials() {
        assert!(frc(INF).is_nan());
        assert!(frc(NINF).is_nan());
        assert!(frc(NAN).is_nan());
        assert_eq!(bits(frc(NZ)), 0);
        assert_eq!(bits(frc(NDEN)), 0);
        assert_eq!(frc(1.25), 0.25);
        assert_eq!(frc(-1.25), 0.75);
        let r = frc(-1e-10);
        assert!((0.0..1.0).contains(&r), "frc(-1e-10) = {r}");
    }

    #[test]
    fn rounding_modes() {
        assert_eq!(round_ne(2.5), 2.0);
        assert_eq!(round_ne(3.5), 4.0);
        assert_eq!(bits(round_ne(-0.5)), 0x8000_0000);
        assert_eq!(round_ni(-0.5), -1.0);
        assert_eq!(bits(round_pi(-0.5)), 0x8000_0000);
        assert_eq!(round_pi(0.1), 1.0);
        assert_eq!(round_z(-1.9), -1.0);
        assert_eq!(bits(round_z(NDEN)), 0x8000_0000);
        assert_eq!(bits(round_ni(DEN)), 0);
        assert_eq!(round_ne(INF), INF);
        assert!(round_z(NAN).is_nan());
    }

    #[test]
    fn sin_cos_special_values() {
        assert!(sin(INF).is_nan() && cos(NINF).is_nan() && sin(NAN).is_nan());
        assert_eq!(bits(sin(NZ)), 0x8000_0000);
        assert_eq!(bits(sin(NDEN)), 0x8000_0000);
        assert_eq!(cos(0.0), 1.0);
        assert_eq!(cos(DEN), 1.0);
        assert!((sin(core::f32::consts::FRAC_PI_2) - 1.0).abs() < 1e-6);
        assert!((cos(core::f32::consts::PI) + 1.0).abs() < 1e-6);
    }

    #[test]
    fn comparisons_nan_and_zero() {
        assert_eq!(eq(0.0, NZ), 0xFFFF_FFFF);
        assert_eq!(eq(DEN, 0.0), 0xFFFF_FFFF);
        assert_eq!(eq(NAN, NAN), 0);
        assert_eq!(ne(NAN, 1.0), 0xFFFF_FFFF);
        assert_eq!(ne(1.0, 1.0), 0);
        assert_eq!(lt(NAN, 1.0), 0);
        assert_eq!(lt(NDEN, 0.0), 0);
        assert_eq!(lt(1.0, 2.0), 0xFFFF_FFFF);
        assert_eq!(ge(NAN, 1.0), 0);
        assert_eq!(ge(NZ, 0.0), 0xFFFF_FFFF);
        assert_eq!(ge(NINF, INF), 0);
    }
}

#[cfg(test)]
mod props {
    use super::*;
    use proptest::prelude::*;

    /// Distance in ULPs between two finite floats of the same sign.
    fn ulps(a: f32, b: f32) -> u32 {
        (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs() as u32
    }

    proptest! {
        #[test]
        fn min_max_pick_a_flushed_operand(a: u32, b: u32) {
            let (x, y) = (f32::from_bits(a), f32::from_bits(b));
            let (lo, hi) = (min(x, y), max(x, y));
            prop_assume!(!x.is_nan() || !y.is_nan());
            for r in [lo, hi] {
                prop_assert!(r.to_bits() == flush(x).to_bits() || r.to_bits() == flush(y).to_bits());
            }
            prop_assert_eq!(lo.to_bits(), min(y, x).to_bits());
            prop_assert_eq!(hi.to_bits(), max(y, x).to_bits());
            prop_assert!(!lo.is_nan() && !hi.is_nan());
            prop_assert!(lo <= hi);
        }

        #[test]
        fn outputs_are_never_denormal(a: u32, b: u32) {
            let (x, y) = (f32::from_bits(a), f32::from_bits(b));
            for r in [add(x, y), mul(x, y), div(x, y), mad(x, y, x), rcp(x), rsq(x), sqrt(x),
                      exp2(x), log2(x), frc(x), sin(x), cos(x), min(x, y), max(x, y), sat(x)] {
                prop_assert!(!is_denormal(r));
                prop_assert!(!r.is_nan() || r.to_bits() == CANONICAL_NAN);
            }
        }

        // Reference model: flush the inputs, compute exactly enough in f64
        // (products are exact; f64 rounding then f32 rounding is innocuous
        // for + − × ÷ since 53 ≥ 2·24 + 2), flush the output, canonical NaN.
        #[test]
        fn arithmetic_matches_f64_model(a: u32, b: u32, c: u32) {
            let (x, y, z) = (f32::from_bits(a), f32::from_bits(b), f32::from_bits(c));
            let w = |v: f32| flush(v) as f64;
            let model = |v: f64| {
                let r = v as f32;
                if r.is_nan() { CANONICAL_NAN } else { flush(r).to_bits() }
            };
            prop_assert_eq!(add(x, y).to_bits(), model(w(x) + w(y)));
            prop_assert_eq!(mul(x, y).to_bits(), model(w(x) * w(y)));
            prop_assert_eq!(div(x, y).to_bits(), model(w(x) / w(y)));
            prop_assert_eq!(sqrt(x).to_bits(), model(w(x).sqrt()));
            let p = f32::from_bits(model(w(x) * w(y)));
            prop_assert_eq!(mad(x, y, z).to_bits(), model(w(p) + w(z)));
        }

        #[test]
        fn frc_in_unit_interval(a: u32) {
            let r = frc(f32::from_bits(a));
            prop_assert!(r.is_nan() || (0.0..1.0).contains(&r));
            prop_assert!(r.to_bits() != 0x8000_0000);
        }

        #[test]
        fn transcendentals_within_one_ulp_of_f64(a in -126.0f32..127.0, p in 1.0e-30f32..1.0e30) {
            let e = (a as f64).exp2() as f32;
            prop_assert!(ulps(exp2(a), e) <= 1);
            let l = (p as f64).log2() as f32;
            prop_assert!(l == 0.0 || ulps(log2(p), l) <= 1);
            let r = (1.0 / (p as f64).sqrt()) as f32;
            prop_assert!(ulps(rsq(p), r) <= 1);
            prop_assert!(ulps(rcp(p), flush(1.0 / p)) == 0 || rcp(p) == 0.0);
        }
    }
}
