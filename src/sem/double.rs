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
//! `dfma` uses `f64::mul_add`, which compiles to a hardware FMA where the
//! target has one and otherwise calls the platform libm `fma`, which is
//! correctly rounded (glibc, musl, macOS, MSVC CRT all implement the IEEE
//! fused operation exactly), so the result is the same on every host.

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
    finish(a.mul_add(b, c))
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
