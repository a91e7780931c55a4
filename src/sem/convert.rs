//! Number format conversions (`sm5-semantics.md` §6).
//!
//! In: one component's `f32`, `i32` or `u32`. Out: the converted component.
//! Invariants: float→int truncates toward zero and saturates, NaN → 0;
//! int→float rounds to nearest even; `f32tof16` is the spec's
//! round-toward-zero conversion with finite overflow to ±65504, NaN →
//! `s|0x7E00`, result in the low 16 bits; `f16tof32` is exact and does not
//! flush (f16 denormals are normal f32s).

use super::float::flush;

/// `ftoi`: truncate toward zero; x ≥ 2^31 → i32::MAX, x ≤ −2^31 → i32::MIN,
/// NaN → 0. A denormal truncates to 0 either way.
#[inline]
pub fn ftoi(x: f32) -> i32 {
    // Rust's float→int `as` is defined as exactly this saturating,
    // NaN-to-zero truncation on every target.
    flush(x) as i32
}

/// `ftou`: truncate toward zero; x ≤ 0 or NaN → 0, x ≥ 2^32 → u32::MAX.
#[inline]
pub fn ftou(x: f32) -> u32 {
    flush(x) as u32
}

/// `itof`: signed integer to float, round to nearest even.
#[inline]
pub fn itof(v: i32) -> f32 {
    v as f32
}

/// `utof`: unsigned integer to float, round to nearest even.
#[inline]
pub fn utof(v: u32) -> f32 {
    v as f32
}

/// `f32tof16`: the FS §3.2.2 conversion, in the low 16 bits (upper 16 = 0).
///
/// Round toward zero; finite values beyond ±65504 give ±65504; ±INF stays
/// ±INF; NaN gives `s<<15 | 0x7E00`; f32 denormals and values below the
/// smallest f16 denormal give a signed zero.
#[inline]
pub fn f32tof16(x: f32) -> u32 {
    let b = x.to_bits();
    let s = (b >> 16) & 0x8000;
    let e = ((b >> 23) & 0xFF) as i32;
    let m = b & 0x007F_FFFF;
    if e == 0xFF {
        return if m != 0 { s | 0x7E00 } else { s | 0x7C00 };
    }
    if e == 0 {
        return s;
    }
    let exp = e - 127;
    if exp > 15 {
        s | 0x7BFF
    } else if exp >= -14 {
        s | (((exp + 15) as u32) << 10) | (m >> 13)
    } else if exp >= -24 {
        // −E−1 is in 14..=23, so the shift is in range.
        s | ((0x0080_0000 | m) >> ((-exp - 1) as u32))
    } else {
        s
    }
}

/// `f16tof32`: the low 16 bits as an IEEE half, converted exactly (f16
/// denormals become normal f32s, ±INF and NaN are kept, NaN payload too).
#[inline]
pub fn f16tof32(v: u32) -> f32 {
    let h = v & 0xFFFF;
    let s = (h & 0x8000) << 16;
    let e = (h >> 10) & 0x1F;
    let m = h & 0x3FF;
    let bits = match (e, m) {
        (0, 0) => s,
        (0, _) => {
            // Denormal m·2^-24: normalise so the leading 1 is at bit 10.
            let shift = m.leading_zeros() - 21; // 1..=10
            let m = (m << shift) & 0x3FF;
            let exp = 127 - 15 + 1 - shift;
            s | (exp << 23) | (m << 13)
        }
        (0x1F, _) => s | 0x7F80_0000 | (m << 13),
        _ => s | ((e + 127 - 15) << 23) | (m << 13),
    };
    f32::from_bits(bits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ftoi_bounds() {
        assert_eq!(ftoi(2147483648.0), i32::MAX);
        assert_eq!(ftoi(-2147483648.0), i32::MIN);
        assert_eq!(ftoi(-2147483904.0), i32::MIN); // next float below −2^31
        assert_eq!(ftoi(2147483520.0), 2147483520); // largest float below 2^31
        assert_eq!(ftoi(f32::INFINITY), i32::MAX);
        assert_eq!(ftoi(f32::NEG_INFINITY), i32::MIN);
        assert_eq!(ftoi(f32::NAN), 0);
        assert_eq!(ftoi(-1.9), -1);
        assert_eq!(ftoi(1.9), 1);
        assert_eq!(ftoi(f32::from_bits(0x8000_0001)), 0);
    }

    #[test]
    fn ftou_bounds() {
        assert_eq!(ftou(4294967296.0), u32::MAX);
        assert_eq!(ftou(4294967040.0), 4294967040);
        assert_eq!(ftou(2147483648.0), 0x8000_0000);
        assert_eq!(ftou(-0.7), 0);
        assert_eq!(ftou(-1.0), 0);
        assert_eq!(ftou(f32::NEG_INFINITY), 0);
        assert_eq!(ftou(f32::INFINITY), u32::MAX);
        assert_eq!(ftou(f32::NAN), 0);
        assert_eq!(ftou(3.99), 3);
    }

    #[test]
    fn int_to_float_rne() {
        assert_eq!(itof(i32::MIN), -2147483648.0);
        assert_eq!(itof(-1), -1.0);
        assert_eq!(itof(16_777_217).to_bits(), 16_777_216f32.to_bits()); // tie → even
        assert_eq!(itof(16_777_219).to_bits(), 16_777_220f32.to_bits());
        assert_eq!(utof(u32::MAX), 4294967296.0);
        assert_eq!(utof(0x8000_0000), 2147483648.0);
        assert_eq!(utof(0), 0.0);
    }

    #[test]
    fn f32tof16_table() {
        assert_eq!(f32tof16(1.0), 0x3C00);
        assert_eq!(f32tof16(-2.0), 0xC000);
        assert_eq!(f32tof16(0.0), 0);
        assert_eq!(f32tof16(-0.0), 0x8000);
        assert_eq!(f32tof16(f32::from_bits(0x8000_0001)), 0x8000);
        assert_eq!(f32tof16(f32::INFINITY), 0x7C00);
        assert_eq!(f32tof16(f32::NEG_INFINITY), 0xFC00);
        assert_eq!(f32tof16(f32::NAN), 0x7E00);
        assert_eq!(f32tof16(f32::from_bits(0xFF80_0001)), 0xFE00);
        assert_eq!(f32tof16(65504.0), 0x7BFF);
        assert_eq!(f32tof16(65535.0), 0x7BFF); // RTZ, no INF
        assert_eq!(f32tof16(65536.0), 0x7BFF); // overflow → max
        assert_eq!(f32tof16(-1e30), 0xFBFF);
        // RTZ: 1 + 2^-10 − 2^-23 truncates to 1.0 where RNE would round up;
        // 1 + 2^-10 is exact.
        assert_eq!(f32tof16(f32::from_bits(0x3F80_1FFF)), 0x3C00);
        assert_eq!(f32tof16(f32::from_bits(0x3F80_2000)), 0x3C01);
        assert_eq!(f32tof16(f32::from_bits(0x3F80_3FFF)), 0x3C01);
        // Smallest normal f16 and f16 denormals.
        assert_eq!(f32tof16(6.103_515_6e-5), 0x0400);
        assert_eq!(f32tof16(f32::from_bits(0x3380_0000)), 0x0001); // 2^-24
        assert_eq!(f32tof16(f32::from_bits(0x3800_0000)), 0x0200); // 2^-15
        assert_eq!(f32tof16(f32::from_bits(0x387F_FFFF)), 0x03FF);
        assert_eq!(f32tof16(f32::from_bits(0x337F_FFFF)), 0); // below 2^-24
        assert_eq!(f32tof16(-f32::from_bits(0x3380_0000)), 0x8001);
    }

    #[test]
    fn f16tof32_exact() {
        assert_eq!(f16tof32(0x3C00), 1.0);
        assert_eq!(f16tof32(0xFFFF_3C00), 1.0); // upper bits ignored
        assert_eq!(f16tof32(0x8000).to_bits(), 0x8000_0000);
        assert_eq!(f16tof32(0x7C00), f32::INFINITY);
        assert_eq!(f16tof32(0xFC00), f32::NEG_INFINITY);
        assert!(f16tof32(0x7E00).is_nan());
        assert_eq!(f16tof32(0x7BFF), 65504.0);
        assert_eq!(f16tof32(0x0001).to_bits(), 0x3380_0000); // 2^-24
        assert_eq!(f16tof32(0x0200).to_bits(), 0x3800_0000); // 2^-15
        assert_eq!(f16tof32(0x03FF).to_bits(), 0x387F_C000);
        assert_eq!(f16tof32(0x8001).to_bits(), 0xB380_0000);
        assert_eq!(f16tof32(0x0400).to_bits(), 0x3880_0000);
    }

    #[test]
    fn f16_round_trip_is_identity_on_non_nan_halves() {
        for h in 0u32..=0xFFFF {
            let f = f16tof32(h);
            if f.is_nan() {
                continue;
            }
            assert_eq!(f32tof16(f), h, "half {h:#06x}");
        }
    }
}

#[cfg(test)]
mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        // RTZ: the result is the largest-magnitude half not above |x|
        // (or ±65504 when |x| is beyond it).
        #[test]
        fn f32tof16_truncates(b: u32) {
            let x = f32::from_bits(b);
            prop_assume!(x.is_finite());
            let h = f32tof16(x);
            prop_assert_eq!(h >> 16, 0);
            let back = f16tof32(h);
            let ax = crate::sem::float::flush(x).abs();
            prop_assert_eq!(back.is_sign_negative(), x.is_sign_negative());
            prop_assert!(back.abs() <= ax);
            if h & 0x7FFF != 0x7BFF {
                let next = f16tof32((h & 0x7FFF) + 1);
                prop_assert!(next > ax, "{x:e}: {h:#06x} not the truncation");
            }
        }

        #[test]
        fn ftoi_ftou_match_f64_reference(b: u32) {
            let x = f32::from_bits(b);
            let t = (crate::sem::float::flush(x) as f64).trunc();
            let i = if x.is_nan() { 0 } else { t.clamp(i32::MIN as f64, i32::MAX as f64) as i64 };
            let u = if x.is_nan() { 0 } else { t.clamp(0.0, u32::MAX as f64) as i64 };
            prop_assert_eq!(ftoi(x) as i64, i);
            prop_assert_eq!(ftou(x) as i64, u);
        }
    }
}
