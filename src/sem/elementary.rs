//! Pure-Rust elementary functions for the f32 transcendental instructions
//! (`exp`, `log`, `sincos`), evaluated in f64.
//!
//! In: a finite, already flushed, f32 argument (the callers in
//! [`super::float`] handle NaN, ±INF, ±0 and the domain errors). Out: an
//! f64 approximation of the exact result with a relative error of a few
//! f64 ULPs, which the caller rounds once to f32. Invariant: only IEEE
//! add/sub/mul/div, exact rounding to integer and integer arithmetic are
//! used (no libm, no FMA), so the results are bit-identical on every host,
//! and the f32 results are the correctly rounded ones except when the exact
//! value lies within ~2^-50 relative of an f32 rounding boundary.
//!
//! - `exp2`: x = n + r with |r| ≤ 1/2, 2^r = e^(r·ln 2) by a degree-16
//!   Taylor polynomial, scaled by 2^n exactly.
//! - `log2`: x = m·2^e with m ∈ [√½, √2), ln m = 2·atanh((m−1)/(m+1)) by its
//!   odd series up to degree 25, plus e.
//! - `sin`/`cos`: exact Payne–Hanek reduction of |x| by π/2 with a 96-bit
//!   window of the bits of 2/π (x·2/π is computed in integers, so huge
//!   arguments are reduced correctly), then Taylor polynomials on
//!   [−π/4, π/4].

/// Bits 1..=256 of the binary expansion of 2/π (bit 1 has weight 2^-1).
const TWO_OVER_PI: [u64; 4] = [
    0xA2F9_836E_4E44_1529,
    0xFC27_57D1_F534_DDC0,
    0xDB62_9599_3C43_9041,
    0xFE51_63AB_DEBB_C561,
];

pub(crate) const LN_2: f64 = core::f64::consts::LN_2;
pub(crate) const LOG2_E: f64 = core::f64::consts::LOG2_E;
const FRAC_PI_2: f64 = core::f64::consts::FRAC_PI_2;
const FRAC_PI_4: f64 = core::f64::consts::FRAC_PI_4;

/// 2^n for an integer n in the normal f64 exponent range.
fn pow2i(n: i32) -> f64 {
    f64::from_bits(((n + 1023) as u64) << 52)
}

/// Horner evaluation of Σ c[i]·t^i for a finite t: the last coefficient,
/// then `acc·t + c[i]` downwards (the JIT's vector code, `jit::elementary`,
/// performs the same steps).
fn horner(t: f64, c: &[f64]) -> f64 {
    let (&last, rest) = c.split_last().expect("at least one coefficient");
    rest.iter().rev().fold(last, |acc, &k| acc * t + k)
}

/// 1/k! for k = 0..=20.
pub(crate) const INV_FACT: [f64; 21] = {
    let mut t = [1.0f64; 21];
    let mut k = 1;
    while k < 21 {
        t[k] = t[k - 1] / k as f64;
        k += 1;
    }
    t
};

/// Terms of the Taylor polynomial of e^t in [`exp2`] (degree 16).
pub(crate) const EXP_TERMS: usize = 17;

/// 2^x for a finite f32 x with −160 < x < 130 (the caller clamps).
pub fn exp2(x: f32) -> f64 {
    let x = x as f64;
    let n = x.round_ties_even();
    let r = x - n; // exact: x and n are close f32-representable values
    let e = horner(r * LN_2, &INV_FACT[..EXP_TERMS]);
    // Split the scale so each factor stays a normal f64 (n ≥ −160).
    let n = n as i32;
    let half = n / 2;
    e * pow2i(half) * pow2i(n - half)
}

/// 1/(2k+1) for k = 0..=12: atanh(s)/s = Σ s^(2k)/(2k+1).
pub(crate) const ATANH: [f64; 13] = {
    let mut t = [1.0f64; 13];
    let mut k = 1;
    while k < 13 {
        t[k] = 1.0 / (2 * k + 1) as f64;
        k += 1;
    }
    t
};

/// The largest f32 mantissa field `f` with 1 + f·2^-23 ≤ √2: the mantissa
/// m of [`log2`] is above √2 exactly when its field is above this.
pub(crate) const SQRT_2_MANTISSA: u32 = 0x0035_04F3;

/// log2 of a positive, normal, finite f32.
pub fn log2(x: f32) -> f64 {
    let b = x.to_bits();
    let mut e = ((b >> 23) & 0xFF) as i32 - 127;
    // m ∈ [1, 2) exactly.
    let mut m = f64::from_bits(((b & 0x007F_FFFF) as u64) << 29 | 0x3FF0_0000_0000_0000);
    if m > core::f64::consts::SQRT_2 {
        m *= 0.5;
        e += 1;
    }
    let s = (m - 1.0) / (m + 1.0);
    let ln_m = 2.0 * s * horner(s * s, &ATANH);
    e as f64 + ln_m * LOG2_E
}

/// Reduces a finite |x| (x given as f32) to (quadrant mod 4, y) with
/// |x| = quadrant·π/2 + y, |y| ≤ π/4 (up to rounding).
fn reduce(ax: f32) -> (u32, f64) {
    if (ax as f64) <= FRAC_PI_4 {
        return (0, ax as f64);
    }
    let b = ax.to_bits();
    let m = ((b & 0x007F_FFFF) | 0x0080_0000) as u128; // ax = m·2^e
    let e = ((b >> 23) & 0xFF) as i32 - 150;
    // Bits of 2/π with weight ≥ 2^(1−e) times m are multiples of 4: skip.
    let i0 = (e - 1).max(1); // first bit index used, ≤ 103
    let window = two_over_pi_window(i0 as u32); // 96 bits from i0
    let p = m * window; // < 2^120; value = p·2^-sh (mod 4)
    let sh = (i0 + 95 - e) as u32; // 94..=120 for |x| > π/4
    let quadrant = ((p >> sh) & 3) as u32;
    let frac = p << (128 - sh); // fraction bits, left aligned
    let scale = pow2i(-64) * pow2i(-64);
    let (q, f) = if frac >> 127 == 1 {
        (quadrant + 1, -(frac.wrapping_neg() as f64) * scale)
    } else {
        (quadrant, frac as f64 * scale)
    };
    (q & 3, f * FRAC_PI_2)
}

/// The 96 bits of 2/π starting at bit `i0` (1-based), as an integer.
fn two_over_pi_window(i0: u32) -> u128 {
    let w = ((i0 - 1) / 64) as usize;
    let o = (i0 - 1) % 64;
    let word = |i: usize| TWO_OVER_PI.get(i).copied().unwrap_or(0) as u128;
    let a = (word(w) << 64) | word(w + 1);
    let t = if o == 0 {
        a
    } else {
        (a << o) | (word(w + 2) >> (64 - o))
    };
    t >> 32
}

/// sin on [−π/4, π/4]: Taylor series to degree 19.
fn sin_kernel(y: f64) -> f64 {
    // SIN[k] multiplies y^(2k+1).
    const SIN: [f64; 10] = {
        let mut t = [0.0f64; 10];
        let mut k = 0;
        while k < 10 {
            let v = INV_FACT[2 * k + 1];
            t[k] = if k % 2 == 0 { v } else { -v };
            k += 1;
        }
        t
    };
    y * horner(y * y, &SIN)
}

/// cos on [−π/4, π/4]: Taylor series to degree 20.
fn cos_kernel(y: f64) -> f64 {
    // COS[k] multiplies y^(2k).
    const COS: [f64; 11] = {
        let mut t = [0.0f64; 11];
        let mut k = 0;
        while k < 11 {
            let v = INV_FACT[2 * k];
            t[k] = if k % 2 == 0 { v } else { -v };
            k += 1;
        }
        t
    };
    horner(y * y, &COS)
}

/// sin of a finite f32.
pub fn sin(x: f32) -> f64 {
    let (q, y) = reduce(f32::from_bits(x.to_bits() & 0x7FFF_FFFF));
    let r = match q {
        0 => sin_kernel(y),
        1 => cos_kernel(y),
        2 => -sin_kernel(y),
        _ => -cos_kernel(y),
    };
    if x.is_sign_negative() {
        -r
    } else {
        r
    }
}

/// cos of a finite f32.
pub fn cos(x: f32) -> f64 {
    let (q, y) = reduce(f32::from_bits(x.to_bits() & 0x7FFF_FFFF));
    match q {
        0 => cos_kernel(y),
        1 => -sin_kernel(y),
        2 => -cos_kernel(y),
        _ => sin_kernel(y),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// ULP distance between two f32 values of the same sign.
    fn ulps(a: f32, b: f32) -> u32 {
        (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs() as u32
    }

    #[test]
    fn two_over_pi_window_is_aligned() {
        assert_eq!(two_over_pi_window(1), 0xA2F9_836E_4E44_1529_FC27_57D1);
        assert_eq!(two_over_pi_window(5), 0x2F98_36E4_E441_529F_C275_7D1F);
        assert_eq!(two_over_pi_window(65), 0xFC27_57D1_F534_DDC0_DB62_9599);
        assert_eq!(two_over_pi_window(103), 0x4D37_7036_D8A5_664F_10E4_107F);
    }

    #[test]
    fn sqrt_2_mantissa_is_the_boundary() {
        let m = |f: u32| f64::from_bits((f as u64) << 29 | 0x3FF0_0000_0000_0000);
        assert!(m(SQRT_2_MANTISSA) < core::f64::consts::SQRT_2);
        assert!(m(SQRT_2_MANTISSA + 1) > core::f64::consts::SQRT_2);
    }

    #[test]
    fn exact_points() {
        assert_eq!(exp2(0.0), 1.0);
        assert_eq!(exp2(10.0), 1024.0);
        assert_eq!(exp2(-1.0), 0.5);
        assert_eq!(exp2(-126.0), f32::MIN_POSITIVE as f64);
        assert_eq!(exp2(127.0) as f32, 2f32.powi(127));
        assert_eq!(log2(1.0), 0.0);
        assert_eq!(log2(1024.0), 10.0);
        assert_eq!(log2(0.125), -3.0);
        assert_eq!(log2(f32::MIN_POSITIVE), -126.0);
        assert_eq!(sin(0.0), 0.0);
        assert_eq!(cos(0.0), 1.0);
    }

    #[test]
    fn reduction_of_large_arguments() {
        // Reference values (f64 libm on the f32 inputs, rounded to f32).
        for x in [
            1e4f32,
            1e6,
            123_456.79,
            3.0e7,
            1e20,
            1e38,
            f32::MAX,
            7.853_982e5,
        ] {
            for (got, want) in [(sin(x), (x as f64).sin()), (cos(x), (x as f64).cos())] {
                assert!(
                    ulps(got as f32, want as f32) <= 1,
                    "{x:e}: {got:e} vs {want:e}"
                );
            }
        }
        // Near multiples of π/2 the reduced argument is tiny; its relative
        // accuracy must survive.
        let x = core::f32::consts::PI;
        assert!(ulps(sin(x) as f32, (x as f64).sin() as f32) <= 1);
        let x = 2.0 * core::f32::consts::PI;
        assert!(ulps(cos(x) as f32, (x as f64).cos() as f32) <= 1);
    }

    proptest! {
        #[test]
        fn exp2_matches_libm(x in -127.0f32..128.0) {
            let want = (x as f64).exp2() as f32;
            prop_assert!(ulps(exp2(x) as f32, want) <= 1, "exp2({x:e})");
        }

        #[test]
        fn log2_matches_libm(b in 0x0080_0000u32..0x7F80_0000) {
            let x = f32::from_bits(b);
            let want = (x as f64).log2() as f32;
            let got = log2(x) as f32;
            prop_assert!(got == want || ulps(got, want) <= 1, "log2({x:e}) = {got:e}, want {want:e}");
        }

        #[test]
        fn sin_cos_match_libm(b in 0u32..0x7F80_0000, neg: bool) {
            let x = f32::from_bits(b | (neg as u32) << 31);
            for (got, want) in [(sin(x), (x as f64).sin()), (cos(x), (x as f64).cos())] {
                let (g, w) = (got as f32, want as f32);
                // Same sign (or both zero-ish) and within one ulp.
                prop_assert!(g == w || (g.is_sign_negative() == w.is_sign_negative() && ulps(g, w) <= 1),
                    "x = {x:e}: got {g:e}, want {w:e}");
            }
        }

        #[test]
        fn sin_cos_small_arguments(x in -10.0f32..10.0) {
            prop_assert!(ulps(sin(x) as f32, (x as f64).sin() as f32) <= 1 || sin(x).abs() < 1e-30);
            prop_assert!(ulps(cos(x) as f32, (x as f64).cos() as f32) <= 1);
        }
    }
}
