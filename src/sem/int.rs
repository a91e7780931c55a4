//! 32-bit integer arithmetic (`sm5-semantics.md` §7).
//!
//! In: `u32` operand bits (signed ops reinterpret them as `i32`). Out: `u32`
//! result bits. Invariants: all arithmetic wraps modulo 2^32; shift amounts
//! use only their low 5 bits; division by zero gives 0xFFFFFFFF for both
//! quotient and remainder; `msad` wraps modulo 2^32. Nothing panics.

use super::mask;
use crate::ir::Modifier;

/// Applies a source modifier to an integer operand: `neg` is two's
/// complement (wrapping), `abs` is the wrapping absolute value
/// (abs(INT_MIN) = INT_MIN), `-abs` negates that.
#[inline]
pub fn apply_modifier(v: u32, m: Modifier) -> u32 {
    match m {
        Modifier::None => v,
        Modifier::Neg => ineg(v),
        Modifier::Abs => (v as i32).wrapping_abs() as u32,
        Modifier::AbsNeg => ineg((v as i32).wrapping_abs() as u32),
    }
}

/// `iadd`: a + b mod 2^32.
#[inline]
pub fn iadd(a: u32, b: u32) -> u32 {
    a.wrapping_add(b)
}

/// `ineg`: −a mod 2^32 (ineg(INT_MIN) = INT_MIN).
#[inline]
pub fn ineg(a: u32) -> u32 {
    a.wrapping_neg()
}

/// `imul`: the full signed 64-bit product as (high, low) halves.
#[inline]
pub fn imul(a: u32, b: u32) -> (u32, u32) {
    let p = (a as i32 as i64).wrapping_mul(b as i32 as i64) as u64;
    ((p >> 32) as u32, p as u32)
}

/// `umul`: the full unsigned 64-bit product as (high, low) halves.
#[inline]
pub fn umul(a: u32, b: u32) -> (u32, u32) {
    let p = a as u64 * b as u64;
    ((p >> 32) as u32, p as u32)
}

/// `imad`: low 32 bits of a*b, plus c (wrapping). Same bits as `umad`.
#[inline]
pub fn imad(a: u32, b: u32, c: u32) -> u32 {
    a.wrapping_mul(b).wrapping_add(c)
}

/// `umad`: low 32 bits of a*b, plus c (wrapping).
#[inline]
pub fn umad(a: u32, b: u32, c: u32) -> u32 {
    a.wrapping_mul(b).wrapping_add(c)
}

/// `udiv`: (quotient, remainder); a zero divisor gives (0xFFFFFFFF, 0xFFFFFFFF).
#[inline]
pub fn udiv(a: u32, b: u32) -> (u32, u32) {
    match (a.checked_div(b), a.checked_rem(b)) {
        (Some(q), Some(r)) => (q, r),
        _ => (u32::MAX, u32::MAX),
    }
}

/// `ishl`: a << (b & 31).
#[inline]
pub fn ishl(a: u32, b: u32) -> u32 {
    a << (b & 31)
}

/// `ushr`: logical a >> (b & 31).
#[inline]
pub fn ushr(a: u32, b: u32) -> u32 {
    a >> (b & 31)
}

/// `ishr`: arithmetic a >> (b & 31), replicating bit 31.
#[inline]
pub fn ishr(a: u32, b: u32) -> u32 {
    ((a as i32) >> (b & 31)) as u32
}

/// `imax`: signed maximum.
#[inline]
pub fn imax(a: u32, b: u32) -> u32 {
    (a as i32).max(b as i32) as u32
}

/// `imin`: signed minimum.
#[inline]
pub fn imin(a: u32, b: u32) -> u32 {
    (a as i32).min(b as i32) as u32
}

/// `umax`: unsigned maximum.
#[inline]
pub fn umax(a: u32, b: u32) -> u32 {
    a.max(b)
}

/// `umin`: unsigned minimum.
#[inline]
pub fn umin(a: u32, b: u32) -> u32 {
    a.min(b)
}

/// `uaddc`: (a + b mod 2^32, carry 1 or 0).
#[inline]
pub fn uaddc(a: u32, b: u32) -> (u32, u32) {
    let (s, c) = a.overflowing_add(b);
    (s, c as u32)
}

/// `usubb`: (a − b mod 2^32, borrow 1 if a < b else 0).
#[inline]
pub fn usubb(a: u32, b: u32) -> (u32, u32) {
    let (d, c) = a.overflowing_sub(b);
    (d, c as u32)
}

/// `msad`: for each byte i where `reference` byte i is non-zero, adds
/// |reference_i − src_i| to `accum`; the sum wraps modulo 2^32 as hardware
/// does (vkd3d-proton's conformance test checks the wrap).
#[inline]
pub fn msad(reference: u32, src: u32, accum: u32) -> u32 {
    let mut sum = accum;
    for i in 0..4 {
        let r = (reference >> (8 * i)) & 0xFF;
        let s = (src >> (8 * i)) & 0xFF;
        if r != 0 {
            sum = sum.wrapping_add(r.abs_diff(s));
        }
    }
    sum
}

/// `and`.
#[inline]
pub fn and(a: u32, b: u32) -> u32 {
    a & b
}

/// `or`.
#[inline]
pub fn or(a: u32, b: u32) -> u32 {
    a | b
}

/// `xor`.
#[inline]
pub fn xor(a: u32, b: u32) -> u32 {
    a ^ b
}

/// `not`.
#[inline]
pub fn not(a: u32) -> u32 {
    !a
}

/// `ieq`: integer equality mask.
#[inline]
pub fn ieq(a: u32, b: u32) -> u32 {
    mask(a == b)
}

/// `ine`: integer inequality mask.
#[inline]
pub fn ine(a: u32, b: u32) -> u32 {
    mask(a != b)
}

/// `ilt`: signed less-than mask.
#[inline]
pub fn ilt(a: u32, b: u32) -> u32 {
    mask((a as i32) < (b as i32))
}

/// `ige`: signed greater-or-equal mask.
#[inline]
pub fn ige(a: u32, b: u32) -> u32 {
    mask((a as i32) >= (b as i32))
}

/// `ult`: unsigned less-than mask.
#[inline]
pub fn ult(a: u32, b: u32) -> u32 {
    mask(a < b)
}

/// `uge`: unsigned greater-or-equal mask.
#[inline]
pub fn uge(a: u32, b: u32) -> u32 {
    mask(a >= b)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIN: u32 = 0x8000_0000;
    const MAX: u32 = 0x7FFF_FFFF;
    const ALL: u32 = 0xFFFF_FFFF;

    #[test]
    fn modifiers_wrap() {
        assert_eq!(apply_modifier(5, Modifier::Neg), (-5i32) as u32);
        assert_eq!(apply_modifier(MIN, Modifier::Neg), MIN);
        assert_eq!(apply_modifier((-7i32) as u32, Modifier::Abs), 7);
        assert_eq!(apply_modifier(MIN, Modifier::Abs), MIN);
        assert_eq!(apply_modifier(7, Modifier::AbsNeg), (-7i32) as u32);
        assert_eq!(apply_modifier(9, Modifier::None), 9);
    }

    #[test]
    fn add_neg_wrap() {
        assert_eq!(iadd(ALL, 1), 0);
        assert_eq!(iadd(MAX, 1), MIN);
        assert_eq!(ineg(MIN), MIN);
        assert_eq!(ineg(0), 0);
        assert_eq!(ineg(1), ALL);
    }

    #[test]
    fn wide_products() {
        assert_eq!(imul(ALL, ALL), (0, 1)); // -1 * -1
        assert_eq!(imul(ALL, 1), (ALL, ALL)); // -1
        assert_eq!(imul(MIN, MIN), (0x4000_0000, 0));
        assert_eq!(imul(MIN, ALL), (0, MIN)); // 2^31
        assert_eq!(umul(ALL, ALL), (0xFFFF_FFFE, 1));
        assert_eq!(umul(0x1_0000, 0x1_0000), (1, 0));
        assert_eq!(imad(ALL, 2, 3), 1);
        assert_eq!(umad(0x8000_0000, 2, 5), 5);
        assert_eq!(imad((-3i32) as u32, 4, 20), 8);
    }

    #[test]
    fn udiv_edges() {
        assert_eq!(udiv(7, 2), (3, 1));
        assert_eq!(udiv(7, 0), (ALL, ALL));
        assert_eq!(udiv(0, 0), (ALL, ALL));
        assert_eq!(udiv(ALL, 1), (ALL, 0));
        assert_eq!(udiv(ALL, ALL), (1, 0));
        assert_eq!(udiv(1, ALL), (0, 1));
    }

    #[test]
    fn shifts_mask_amount() {
        assert_eq!(ishl(1, 31), MIN);
        assert_eq!(ishl(1, 32), 1);
        assert_eq!(ishl(1, 33), 2);
        assert_eq!(ishl(3, ALL), MIN);
        assert_eq!(ushr(MIN, 31), 1);
        assert_eq!(ushr(MIN, 32), MIN);
        assert_eq!(ishr(MIN, 31), ALL);
        assert_eq!(ishr(MIN, 32), MIN);
        assert_eq!(ishr(MIN, 4), 0xF800_0000);
        assert_eq!(ishr(MAX, 36), 0x07FF_FFFF);
    }

    #[test]
    fn min_max_signedness() {
        assert_eq!(imax(ALL, 1), 1);
        assert_eq!(imin(ALL, 1), ALL);
        assert_eq!(imin(MIN, MAX), MIN);
        assert_eq!(umax(ALL, 1), ALL);
        assert_eq!(umin(ALL, 1), 1);
        assert_eq!(umin(MIN, MAX), MAX);
    }

    #[test]
    fn carry_and_borrow() {
        assert_eq!(uaddc(ALL, 1), (0, 1));
        assert_eq!(uaddc(ALL, ALL), (0xFFFF_FFFE, 1));
        assert_eq!(uaddc(1, 2), (3, 0));
        assert_eq!(usubb(0, 1), (ALL, 1));
        assert_eq!(usubb(5, 5), (0, 0));
        assert_eq!(usubb(5, 3), (2, 0));
    }

    #[test]
    fn msad_skips_zero_reference_bytes_and_wraps() {
        // ref bytes 01 00 FF 10, src bytes 03 77 00 20.
        assert_eq!(msad(0x10FF_0001, 0x2000_7703, 0), 2 + 255 + 16);
        assert_eq!(msad(0, ALL, 5), 5);
        // 4 x 255 = 1020 added to ALL - 10 wraps to 1020 - 11 (hardware wraps, as
        // vkd3d-proton's conformance test checks).
        assert_eq!(msad(0xFFFF_FFFF, 0, ALL - 10), 1009);
        assert_eq!(msad(0x0101_0101, 0x0101_0101, 9), 9);
    }

    #[test]
    fn bitwise() {
        assert_eq!(and(0xF0F0, 0xFF00), 0xF000);
        assert_eq!(or(0xF0F0, 0x0F00), 0xFFF0);
        assert_eq!(xor(ALL, 0xF), 0xFFFF_FFF0);
        assert_eq!(not(0), ALL);
    }

    #[test]
    fn integer_compares() {
        assert_eq!(ieq(ALL, ALL), ALL);
        assert_eq!(ine(ALL, 0), ALL);
        assert_eq!(ilt(ALL, 0), ALL);
        assert_eq!(ult(ALL, 0), 0);
        assert_eq!(ige(MIN, MAX), 0);
        assert_eq!(uge(MIN, MAX), ALL);
        assert_eq!(ilt(MIN, MAX), ALL);
        assert_eq!(ige(0, 0), ALL);
        assert_eq!(uge(0, 0), ALL);
    }
}

#[cfg(test)]
mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn products_match_wide_reference(a: u32, b: u32) {
            let s = (a as i32 as i128) * (b as i32 as i128);
            let (hi, lo) = imul(a, b);
            prop_assert_eq!(((hi as u64) << 32 | lo as u64) as i64 as i128, s);
            let (hi, lo) = umul(a, b);
            prop_assert_eq!((hi as u64) << 32 | lo as u64, a as u64 * b as u64);
        }

        #[test]
        fn udiv_identity(a: u32, b: u32) {
            let (q, r) = udiv(a, b);
            if b == 0 {
                prop_assert_eq!((q, r), (u32::MAX, u32::MAX));
            } else {
                prop_assert!(r < b);
                prop_assert_eq!(q as u64 * b as u64 + r as u64, a as u64);
            }
        }

        #[test]
        fn carry_borrow_match_wide_reference(a: u32, b: u32) {
            let (s, c) = uaddc(a, b);
            prop_assert_eq!((c as u64) << 32 | s as u64, a as u64 + b as u64);
            let (d, br) = usubb(a, b);
            prop_assert_eq!(d, a.wrapping_sub(b));
            prop_assert_eq!(br == 1, a < b);
        }

        #[test]
        fn msad_matches_wide_reference(r: u32, s: u32, acc: u32) {
            let mut sum = acc as u64;
            for i in 0..4 {
                let (rb, sb) = ((r >> (8 * i)) & 0xFF, (s >> (8 * i)) & 0xFF);
                if rb != 0 {
                    sum += (rb as i64 - sb as i64).unsigned_abs();
                }
            }
            prop_assert_eq!(msad(r, s, acc) as u64, sum % (1u64 << 32));
        }
    }
}
