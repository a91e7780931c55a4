//! 64-bit float operations (`sm5-semantics.md` §9).
//!
//! In: `f64` operands (a double occupies two 32-bit components, low word
//! first; see [`pack`] / [`unpack`]). Out: the `f64` result, a `u32` mask for
//! comparisons, or the converted value. Invariants: IEEE arithmetic with
//! round-to-nearest-even and **denormals preserved** (no flushing on doubles);
//! every NaN result is the canonical quiet NaN [`CANONICAL_NAN`];
//! `dfma` is fused (one rounding); `dmin`/`dmax` follow the float NaN and
//! ±0 rules; `dtof` rounds to nearest even and flushes an f32 denormal
//! result, like every other op producing an f32; `ftod` is exact and flushes
//! a denormal f32 input (it is an arithmetic op on a 32-bit float).
//!
//! `dfma` is computed in pure Rust with exact 128-bit integer arithmetic
//! ([`fma`]), so it does not depend on a hardware FMA instruction or on the
//! platform libm; it is tested against `f64::mul_add` on the build host.

use super::float;
use super::mask;

/// The bits of the NaN every double op returns (positive quiet NaN).
pub const CANONICAL_NAN: u64 = 0x7FF8_0000_0000_0000;

/// Output rule of every double op: NaN becomes [`CANONICAL_NAN`].
#[inline]
pub fn finish(x: f64) -> f64 {
    if x.is_nan() {
        f64::from_bits(CANONICAL_NAN)
    } else {
        x
    }
}

/// Splits a double into its (low, high) 32-bit words.
#[inline]
pub fn pack(x: f64) -> (u32, u32) {
    let b = x.to_bits();
    (b as u32, (b >> 32) as u32)
}

/// Joins (low, high) 32-bit words into a double.
#[inline]
pub fn unpack(lo: u32, hi: u32) -> f64 {
    f64::from_bits(((hi as u64) << 32) | lo as u64)
}

/// Applies a source modifier to a double's bits (sign-bit ops on bit 63).
#[inline]
pub fn apply_modifier(x: f64, m: crate::ir::Modifier) -> f64 {
    use crate::ir::Modifier;
    const SIGN: u64 = 1 << 63;
    let b = x.to_bits();
    f64::from_bits(match m {
        Modifier::None => b,
        Modifier::Neg => b ^ SIGN,
        Modifier::Abs => b & !SIGN,
        Modifier::AbsNeg => b | SIGN,
    })
}

/// `dadd`.
#[inline]
pub fn dadd(a: f64, b: f64) -> f64 {
    finish(a + b)
}

/// `dmul`.
#[inline]
pub fn dmul(a: f64, b: f64) -> f64 {
    finish(a * b)
}

/// `ddiv` (IEEE, 0.5 ULP).
#[inline]
pub fn ddiv(a: f64, b: f64) -> f64 {
    finish(a / b)
}

/// `dfma`: a*b + c with a single rounding.
#[inline]
pub fn dfma(a: f64, b: f64, c: f64) -> f64 {
    finish(fma(a, b, c))
}

/// Exactly rounded fused multiply-add `a*b + c` (IEEE 754 fusedMultiplyAdd,
/// round to nearest even), in pure integer arithmetic.
pub fn fma(a: f64, b: f64, c: f64) -> f64 {
    if !a.is_finite() || !b.is_finite() || a == 0.0 || b == 0.0 {
        // The product is exact here (0, ±INF or NaN), so one rounding.
        return a * b + c;
    }
    if !c.is_finite() {
        // Finite a*b plus ±INF or NaN is c (even if a*b would overflow).
        return c;
    }
    let (sa, ma, ea) = decompose(a);
    let (sb, mb, eb) = decompose(b);
    let sp = sa ^ sb;
    let mp = ma as u128 * mb as u128;
    let ep = ea + eb;
    if c == 0.0 {
        // a*b ≠ 0, so the sign of a zero c cannot matter.
        return round_to_f64(sp, mp, ep);
    }
    let (sc, mc, ec) = decompose(c);
    let (mp, ep) = normalize(mp, ep);
    let (mc, ec) = normalize(mc as u128, ec);
    // X is the operand with the larger exponent; Y is aligned to it with
    // the bits shifted out folded into a sticky bit 0.
    let ((sx, mx, ex), (sy, my, ey)) = if ep >= ec {
        ((sp, mp, ep), (sc, mc, ec))
    } else {
        ((sc, mc, ec), (sp, mp, ep))
    };
    let d = (ex - ey) as u32;
    let my = if d >= 127 {
        (my != 0) as u128
    } else {
        (my >> d) | ((my & ((1u128 << d) - 1)) != 0) as u128
    };
    let (s, m) = if sx == sy {
        (sx, mx + my)
    } else if mx >= my {
        (sx, mx - my)
    } else {
        (sy, my - mx)
    };
    if m == 0 {
        // Exact cancellation rounds to +0 under round-to-nearest.
        return 0.0;
    }
    round_to_f64(s, m, ex)
}

/// (sign, integer mantissa, exponent) with x = ±m·2^e, for finite x ≠ 0.
fn decompose(x: f64) -> (bool, u64, i32) {
    let b = x.to_bits();
    let be = ((b >> 52) & 0x7FF) as i32;
    let f = b & ((1u64 << 52) - 1);
    let (m, e) = if be == 0 {
        (f, -1074)
    } else {
        (f | (1u64 << 52), be - 1075)
    };
    (b >> 63 == 1, m, e)
}

/// Shifts a non-zero mantissa left so its top bit is bit 125 (two bits of
/// headroom for the add), adjusting the exponent.
fn normalize(m: u128, e: i32) -> (u128, i32) {
    let sh = m.leading_zeros() as i32 - 2;
    (m << sh, e - sh)
}

/// Rounds ±m·2^e (m ≠ 0, m < 2^127) to the nearest f64, ties to even.
fn round_to_f64(neg: bool, m: u128, e: i32) -> f64 {
    let sign = (neg as u64) << 63;
    let top = e + 127 - m.leading_zeros() as i32; // exponent of the leading bit
    if top > 1023 {
        return f64::from_bits(sign | 0x7FF0_0000_0000_0000);
    }
    let q = (top - 52).max(-1074); // exponent of the result's last bit
    let shift = q - e;
    let mant = if shift <= 0 {
        (m << (-shift) as u32) as u64
    } else if shift >= 128 {
        0 // m < 2^127 ≤ half an ulp: rounds down to zero
    } else {
        let sh = shift as u32;
        let kept = (m >> sh) as u64;
        let rem = m & ((1u128 << sh) - 1);
        let half = 1u128 << (sh - 1);
        let up = rem > half || (rem == half && kept & 1 == 1);
        kept + up as u64
    };
    // mant < 2^52 only for denormals (q = -1074), where this is the bits;
    // a carry to 2^53 bumps the exponent field by one, as it should.
    let bits = (((q + 1074) as u64) << 52) + mant;
    f64::from_bits(sign | bits.min(0x7FF0_0000_0000_0000))
}

/// `drcp`: 1/x, correctly rounded (so exact whenever representable).
#[inline]
pub fn drcp(x: f64) -> f64 {
    finish(1.0 / x)
}

/// Non-NaN order used by min/max: ordinary `<`, plus −0 < +0.
#[inline]
fn less(a: f64, b: f64) -> bool {
    a < b || (a == 0.0 && b == 0.0 && a.is_sign_negative() && b.is_sign_positive())
}

/// `dmin`: a NaN operand loses; −0 < +0.
#[inline]
pub fn dmin(a: f64, b: f64) -> f64 {
    if a.is_nan() {
        finish(b)
    } else if b.is_nan() || less(a, b) {
        a
    } else {
        b
    }
}

/// `dmax`: a NaN operand loses; −0 < +0.
#[inline]
pub fn dmax(a: f64, b: f64) -> f64 {
    if a.is_nan() {
        finish(b)
    } else if b.is_nan() || less(b, a) {
        a
    } else {
        b
    }
}

/// `_sat` on a double: clamp to [+0, 1] with dmin/dmax, NaN → +0.
#[inline]
pub fn dsat(x: f64) -> f64 {
    dmin(1.0, dmax(0.0, x))
}

/// `deq`: ordered equal mask.
#[inline]
pub fn deq(a: f64, b: f64) -> u32 {
    mask(a == b)
}

/// `dne`: unordered not-equal mask (NaN → true).
#[inline]
pub fn dne(a: f64, b: f64) -> u32 {
    mask(a != b)
}

/// `dlt`: ordered less-than mask.
#[inline]
pub fn dlt(a: f64, b: f64) -> u32 {
    mask(a < b)
}

/// `dge`: ordered greater-or-equal mask.
#[inline]
pub fn dge(a: f64, b: f64) -> u32 {
    mask(a >= b)
}

/// `dtof`: round to nearest even; an f32 denormal result is flushed to a
/// signed zero; overflow gives ±INF; NaN stays NaN.
#[inline]
pub fn dtof(x: f64) -> f32 {
    float::finish(x as f32)
}

/// `ftod`: exact widening. A denormal f32 input is flushed to a signed zero
/// first (float input rule); ±INF and NaN are kept.
#[inline]
pub fn ftod(x: f32) -> f64 {
    finish(float::flush(x) as f64)
}

/// `dtoi`: truncate, saturate to i32, NaN → 0.
#[inline]
pub fn dtoi(x: f64) -> i32 {
    x as i32
}

/// `dtou`: truncate, saturate to u32 (negative → 0), NaN → 0.
#[inline]
pub fn dtou(x: f64) -> u32 {
    x as u32
}

/// `itod`: exact.
#[inline]
pub fn itod(v: i32) -> f64 {
    v as f64
}

/// `utod`: exact.
#[inline]
pub fn utod(v: u32) -> f64 {
    v as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Modifier;

    const DDEN: f64 = f64::from_bits(1);
    const INF: f64 = f64::INFINITY;
    const NINF: f64 = f64::NEG_INFINITY;
    const NAN: f64 = f64::NAN;

    #[test]
    fn pack_round_trip() {
        assert_eq!(pack(1.5), (0, 0x3FF8_0000));
        assert_eq!(unpack(0, 0x3FF8_0000), 1.5);
        assert_eq!(
            pack(unpack(0xDEAD_BEEF, 0x1234_5678)),
            (0xDEAD_BEEF, 0x1234_5678)
        );
        assert_eq!(apply_modifier(1.5, Modifier::Neg), -1.5);
        assert_eq!(apply_modifier(-1.5, Modifier::Abs), 1.5);
        assert_eq!(apply_modifier(1.5, Modifier::AbsNeg), -1.5);
        assert_eq!(
            apply_modifier(DDEN, Modifier::Neg).to_bits(),
            0x8000_0000_0000_0001
        );
    }

    #[test]
    fn nan_results_are_canonical() {
        let odd = f64::from_bits(0xFFF8_0000_0000_1234);
        assert_eq!(dadd(odd, 1.0).to_bits(), CANONICAL_NAN);
        assert_eq!(dmul(INF, 0.0).to_bits(), CANONICAL_NAN);
        assert_eq!(ddiv(0.0, 0.0).to_bits(), CANONICAL_NAN);
        assert_eq!(dfma(odd, 1.0, 1.0).to_bits(), CANONICAL_NAN);
        assert_eq!(drcp(odd).to_bits(), CANONICAL_NAN);
        assert_eq!(dmin(odd, odd).to_bits(), CANONICAL_NAN);
        assert_eq!(dmax(odd, odd).to_bits(), CANONICAL_NAN);
        assert_eq!(ftod(f32::from_bits(0xFFC0_0001)).to_bits(), CANONICAL_NAN);
        assert_eq!(dtof(odd).to_bits(), crate::sem::float::CANONICAL_NAN);
    }

    #[test]
    fn arithmetic_keeps_denormals() {
        assert_eq!(dadd(DDEN, DDEN).to_bits(), 2);
        assert_eq!(dmul(DDEN, 1.0).to_bits(), 1);
        // 10 + 20 in denormal units (corpus proton_denorm_fp64_fp32).
        assert_eq!(dadd(f64::from_bits(10), f64::from_bits(20)).to_bits(), 30);
        assert_eq!(ddiv(1.0, 0.0), INF);
        assert!(ddiv(0.0, 0.0).is_nan());
        assert!(dadd(INF, NINF).is_nan());
        assert_eq!(ddiv(1.0, 3.0), 1.0 / 3.0);
        assert_eq!(drcp(4.0), 0.25);
        assert_eq!(drcp(-0.0), NINF);
        assert_eq!(drcp(INF), 0.0);
    }

    #[test]
    fn dfma_is_fused() {
        let a = 1.0 + f64::EPSILON;
        let p = a * a; // rounded: 1 + 2^-51
        assert_eq!(dfma(a, a, -p), f64::EPSILON * f64::EPSILON); // 2^-104
        assert_eq!(dfma(2.0, 3.0, 4.0), 10.0);
        assert!(dfma(INF, 0.0, 1.0).is_nan());
    }

    #[test]
    fn fma_edges() {
        let (max, tiny) = (f64::MAX, f64::from_bits(1));
        // Overflowing product, finite result only when fused.
        assert_eq!(fma(max, 2.0, -max), max);
        assert_eq!(fma(max, 2.0, NINF), NINF);
        assert_eq!(fma(max, 2.0, 0.0), INF);
        assert_eq!(fma(-max, 2.0, 0.0), NINF);
        assert!(fma(INF, 0.0, 1.0).is_nan());
        assert!(fma(1.0, 1.0, NAN).is_nan());
        assert!(fma(INF, 1.0, NINF).is_nan());
        // Zero signs.
        assert_eq!(fma(0.0, -1.0, 0.0).to_bits(), 0);
        assert_eq!(fma(-0.0, 1.0, -0.0).to_bits(), 1 << 63);
        assert_eq!(fma(1.0, -1.0, 1.0).to_bits(), 0);
        assert_eq!(fma(2.0, 3.0, -0.0), 6.0);
        // Denormal products and results.
        assert_eq!(fma(tiny, 0.5, 0.0).to_bits(), 0); // tie to even (0)
        assert_eq!(fma(tiny, 1.5, 0.0).to_bits(), 2); // tie to even (2)
        assert_eq!(fma(tiny, -0.75, 0.0).to_bits(), (1 << 63) | 1);
        assert_eq!(fma(tiny, tiny, tiny).to_bits(), 1);
        assert_eq!(fma(tiny, tiny, -tiny).to_bits(), (1 << 63) | 1);
        assert_eq!(fma(1e-300, 1e-300, 0.0).to_bits(), 0);
        assert_eq!(
            fma(f64::MIN_POSITIVE, 0.5, f64::MIN_POSITIVE * 0.5),
            f64::MIN_POSITIVE
        );
        // Tiny c below the product's last bit decides a tie.
        let a = 1.0 + f64::EPSILON;
        assert_eq!(fma(a, a, tiny), 1.0 + 2.0 * f64::EPSILON);
        let (x, y) = (1.0 + 2.0 * f64::EPSILON, 0.5 + 0.5 * f64::EPSILON);
        assert_eq!(fma(x, y, -0.5), x.mul_add(y, -0.5));
        assert_ne!(fma(x, y, -0.5), x * y - 0.5);
    }

    #[test]
    fn min_max_sat() {
        assert_eq!(dmin(NAN, 2.0), 2.0);
        assert_eq!(dmax(2.0, NAN), 2.0);
        assert!(dmin(NAN, NAN).is_nan());
        assert_eq!(dmin(0.0, -0.0).to_bits(), 0x8000_0000_0000_0000);
        assert_eq!(dmax(-0.0, 0.0).to_bits(), 0);
        assert_eq!(dmin(DDEN, 0.0).to_bits(), 0); // denormal kept, 0 < DDEN
        assert_eq!(dmax(DDEN, 0.0).to_bits(), 1);
        assert_eq!(dsat(NAN).to_bits(), 0);
        assert_eq!(dsat(-0.0).to_bits(), 0);
        assert_eq!(dsat(2.0), 1.0);
        assert_eq!(dsat(0.5), 0.5);
    }

    #[test]
    fn compares() {
        assert_eq!(deq(0.0, -0.0), 0xFFFF_FFFF);
        assert_eq!(deq(NAN, NAN), 0);
        assert_eq!(dne(NAN, 1.0), 0xFFFF_FFFF);
        assert_eq!(dne(1.0, 1.0), 0);
        assert_eq!(dlt(NAN, 1.0), 0);
        assert_eq!(dlt(DDEN, f64::from_bits(2)), 0xFFFF_FFFF); // no flush
        assert_eq!(dge(NAN, 1.0), 0);
        assert_eq!(dge(1.0, 1.0), 0xFFFF_FFFF);
    }

    #[test]
    fn conversions() {
        // Rows of corpus vkd3d_ps_dtof: 1.5 → 1.5f, 1/3 → 0x3EAAAAAB (RNE),
        // 1e40 → INF, −0 → −0 (negated there).
        assert_eq!(dtof(unpack(0, 0x3FF8_0000)).to_bits(), 0x3FC0_0000);
        assert_eq!(
            dtof(unpack(0x5555_5555, 0x3FD5_5555)).to_bits(),
            0x3EAA_AAAB
        );
        assert_eq!(dtof(unpack(0xF1C3_5CA5, 0x483D_6329)), f32::INFINITY);
        assert_eq!(dtof(-0.0).to_bits(), 0x8000_0000);
        assert_eq!(dtof(1e-40).to_bits(), 0); // f32 denormal result flushed
        assert_eq!(dtof(-1e-40).to_bits(), 0x8000_0000);
        assert!(dtof(NAN).is_nan());
        assert_eq!(dtof(f64::MAX), f32::INFINITY);
        // corpus vkd3d_ps_ftod: −2.5 → 0xC0040000_00000000.
        assert_eq!(pack(ftod(-2.5)), (0, 0xC004_0000));
        assert_eq!(ftod(f32::from_bits(1)).to_bits(), 0);
        assert_eq!(ftod(f32::NEG_INFINITY), NINF);
        assert_eq!(ftod(0.1f32).to_bits(), 0x3FB9_9999_A000_0000); // exact widening
        assert_eq!(dtoi(2147483648.0), i32::MAX);
        assert_eq!(dtoi(2147483647.9), i32::MAX);
        assert_eq!(dtoi(-2147483649.0), i32::MIN);
        assert_eq!(dtoi(-1.9), -1);
        assert_eq!(dtoi(NAN), 0);
        assert_eq!(dtou(4294967296.0), u32::MAX);
        assert_eq!(dtou(4294967295.5), u32::MAX);
        assert_eq!(dtou(-0.7), 0);
        assert_eq!(dtou(NINF), 0);
        assert_eq!(dtou(NAN), 0);
        assert_eq!(itod(i32::MIN), -2147483648.0);
        assert_eq!(utod(u32::MAX), 4294967295.0);
    }
}

#[cfg(test)]
mod props {
    use super::*;
    use proptest::prelude::*;

    /// Checks the pure-Rust fma against the host's (hardware or libm) one,
    /// treating any two NaNs as equal.
    fn same(a: f64, b: f64, c: f64) -> Result<(), TestCaseError> {
        let (got, want) = (fma(a, b, c), a.mul_add(b, c));
        if !(got.is_nan() && want.is_nan()) {
            prop_assert_eq!(
                got.to_bits(),
                want.to_bits(),
                "fma({:e}, {:e}, {:e})",
                a,
                b,
                c
            );
        }
        Ok(())
    }

    proptest! {
        #[test]
        fn fma_matches_host_on_any_bits(a: u64, b: u64, c: u64) {
            same(f64::from_bits(a), f64::from_bits(b), f64::from_bits(c))?;
        }

        #[test]
        fn fma_matches_host_near_cancellation(a in -1e3f64..1e3, b in -1e3f64..1e3, k in -64i64..64) {
            // c within a few ulps of −a·b: the fused result is the rounding
            // error of the product, the hard case.
            let c = -(a * b);
            let c = f64::from_bits((c.to_bits() as i64).wrapping_add(k) as u64);
            same(a, b, c)?;
        }

        #[test]
        fn fma_matches_host_on_tiny_values(a in -1e-150f64..1e-150, b in -1e-150f64..1e-150,
                                           c in -1e-305f64..1e-305) {
            same(a, b, c)?;
            same(a, b, f64::from_bits(c.to_bits() & 0x800F_FFFF_FFFF_FFFF))?;
        }

        #[test]
        fn fma_matches_host_across_exponents(ma: u64, mb: u64, mc: u64, ea in 0u64..2047,
                                             eb in 0u64..2047, ec in 0u64..2047) {
            let mk = |m: u64, e: u64| f64::from_bits((m & 0x800F_FFFF_FFFF_FFFF) | (e << 52));
            same(mk(ma, ea), mk(mb, eb), mk(mc, ec))?;
            same(mk(ma, ea), mk(mb, 2046 - ea), mk(mc, ec))?;
        }
    }
}
