//! Bit counting and bit-field instructions (`sm5-semantics.md` §7).
//!
//! In: `u32` operand bits. Out: `u32` result bits. Invariants: width and
//! offset operands use only their low 5 bits; fields that run past bit 31
//! are cut at bit 31 (the FS §22.11 formulas, applied literally); the
//! "not found" result of the firstbit family is 0xFFFFFFFF.

/// `countbits`: population count.
#[inline]
pub fn countbits(v: u32) -> u32 {
    v.count_ones()
}

/// `firstbit_hi`: index of the highest set bit counted **from the MSB**
/// (the leading-zero count); 0xFFFFFFFF when `v` is 0.
#[inline]
pub fn firstbit_hi(v: u32) -> u32 {
    if v == 0 {
        u32::MAX
    } else {
        v.leading_zeros()
    }
}

/// `firstbit_lo`: index of the lowest set bit (from the LSB); 0xFFFFFFFF
/// when `v` is 0.
#[inline]
pub fn firstbit_lo(v: u32) -> u32 {
    if v == 0 {
        u32::MAX
    } else {
        v.trailing_zeros()
    }
}

/// `firstbit_shi`: for a negative `v`, the first 0 bit from the MSB;
/// otherwise the first 1 bit from the MSB (both counted from the MSB).
/// 0xFFFFFFFF for 0 and for 0xFFFFFFFF.
#[inline]
pub fn firstbit_shi(v: u32) -> u32 {
    let x = if (v as i32) < 0 { !v } else { v };
    firstbit_hi(x)
}

/// `bfrev`: reverses the 32 bits.
#[inline]
pub fn bfrev(v: u32) -> u32 {
    v.reverse_bits()
}

/// `ubfe`: extracts `width & 31` bits at `offset & 31`, zero-extended.
/// Width 0 gives 0; a field running past bit 31 takes the bits up to bit 31.
#[inline]
pub fn ubfe(width: u32, offset: u32, v: u32) -> u32 {
    let (w, o) = (width & 31, offset & 31);
    if w == 0 {
        0
    } else if w + o < 32 {
        (v << (32 - (w + o))) >> (32 - w)
    } else {
        v >> o
    }
}

/// `ibfe`: as [`ubfe`] but sign-extends the field's top bit (arithmetic
/// shifts). Width 0 gives 0.
#[inline]
pub fn ibfe(width: u32, offset: u32, v: u32) -> u32 {
    let (w, o) = (width & 31, offset & 31);
    let s = v as i32;
    let r = if w == 0 {
        0
    } else if w + o < 32 {
        (s << (32 - (w + o))) >> (32 - w)
    } else {
        s >> o
    };
    r as u32
}

/// `bfi`: inserts the low `width & 31` bits of `insert` into `base` at
/// `offset & 31`; bits pushed past bit 31 are dropped; width 0 returns `base`.
#[inline]
pub fn bfi(width: u32, offset: u32, insert: u32, base: u32) -> u32 {
    let (w, o) = (width & 31, offset & 31);
    let mask = ((1u32 << w) - 1) << o;
    ((insert << o) & mask) | (base & !mask)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: u32 = 0xFFFF_FFFF;

    #[test]
    fn counts() {
        assert_eq!(countbits(0), 0);
        assert_eq!(countbits(ALL), 32);
        assert_eq!(countbits(0x8000_0001), 2);
        assert_eq!(bfrev(0x1234_5678), 0x1E6A_2C48);
        assert_eq!(bfrev(1), 0x8000_0000);
        assert_eq!(bfrev(0), 0);
    }

    #[test]
    fn firstbit_family() {
        assert_eq!(firstbit_hi(0), ALL);
        assert_eq!(firstbit_hi(ALL), 0);
        assert_eq!(firstbit_hi(0x1000_0000), 3);
        assert_eq!(firstbit_hi(0x8000_0000), 0);
        assert_eq!(firstbit_hi(1), 31);
        assert_eq!(firstbit_lo(0), ALL);
        assert_eq!(firstbit_lo(ALL), 0);
        assert_eq!(firstbit_lo(0x8000_0000), 31);
        assert_eq!(firstbit_lo(0x10), 4);
        assert_eq!(firstbit_shi(0), ALL);
        assert_eq!(firstbit_shi(ALL), ALL);
        assert_eq!(firstbit_shi(1), 31);
        assert_eq!(firstbit_shi(0x8000_0000), 1); // first 0 from MSB is bit 30
        assert_eq!(firstbit_shi(0xF000_0000), 4);
        assert_eq!(firstbit_shi(0x7FFF_FFFF), 1);
        assert_eq!(firstbit_shi(0xFFFF_FFFE), 31);
    }

    #[test]
    fn ubfe_edges() {
        assert_eq!(ubfe(0, 4, ALL), 0);
        assert_eq!(ubfe(32, 0, ALL), 0); // width 32 & 31 = 0
        assert_eq!(ubfe(4, 4, 0x0000_00A0), 0xA);
        assert_eq!(ubfe(31, 0, ALL), 0x7FFF_FFFF);
        assert_eq!(ubfe(8, 28, 0xF000_0000), 0xF); // w+o > 32: v >> o
        assert_eq!(ubfe(4, 28, 0xA000_0000), 0xA); // w+o == 32
        assert_eq!(ubfe(4, 36, 0xA0), 0xA); // offset & 31 = 4
    }

    #[test]
    fn ibfe_edges() {
        assert_eq!(ibfe(0, 4, ALL), 0);
        assert_eq!(ibfe(4, 4, 0x0000_00A0), 0xFFFF_FFFA);
        assert_eq!(ibfe(4, 4, 0x0000_0050), 5);
        assert_eq!(ibfe(8, 28, 0x8000_0000), 0xFFFF_FFF8); // w+o > 32: ishr
        assert_eq!(ibfe(8, 28, 0x7000_0000), 7);
        assert_eq!(ibfe(1, 31, 0x8000_0000), ALL);
    }

    #[test]
    fn bfi_edges() {
        assert_eq!(bfi(0, 8, ALL, 0x1234), 0x1234);
        assert_eq!(bfi(8, 8, 0xAB, 0), 0xAB00);
        assert_eq!(bfi(8, 8, 0xFFAB, ALL), 0xFFFF_ABFF);
        assert_eq!(bfi(8, 28, 0xFF, 0), 0xF000_0000); // bits past 31 dropped
        assert_eq!(bfi(31, 1, ALL, 0), 0xFFFF_FFFE);
        assert_eq!(bfi(32 + 4, 32, 0xF, 0xFFFF_FF00), 0xFFFF_FF0F);
    }
}

#[cfg(test)]
mod props {
    use super::*;
    use proptest::prelude::*;

    /// Bit i of a value, as 0 or 1.
    fn bit(v: u32, i: u32) -> u32 {
        (v >> i) & 1
    }

    proptest! {
        // Reference: build the field bit by bit, cut at bit 31.
        #[test]
        fn ubfe_ibfe_match_bitwise_reference(w in 0u32..40, o in 0u32..40, v: u32) {
            let (wm, om) = (w & 31, o & 31);
            let len = wm.min(32 - om);
            let mut u = 0u32;
            for i in 0..len {
                u |= bit(v, om + i) << i;
            }
            prop_assert_eq!(ubfe(w, o, v), u);
            let mut s = u;
            if len > 0 && bit(u, len - 1) == 1 {
                for i in len..32 {
                    s |= 1 << i;
                }
            }
            prop_assert_eq!(ibfe(w, o, v), if wm == 0 { 0 } else { s });
        }

        #[test]
        fn bfi_matches_bitwise_reference(w in 0u32..40, o in 0u32..40, ins: u32, base: u32) {
            let (wm, om) = (w & 31, o & 31);
            let mut r = base;
            for i in 0..wm {
                let dst = om + i;
                if dst < 32 {
                    r = (r & !(1 << dst)) | (bit(ins, i) << dst);
                }
            }
            prop_assert_eq!(bfi(w, o, ins, base), r);
        }

        #[test]
        fn firstbit_matches_scan(v: u32) {
            let hi = (0..32).find(|i| bit(v, 31 - i) == 1).unwrap_or(u32::MAX);
            let lo = (0..32).find(|i| bit(v, *i) == 1).unwrap_or(u32::MAX);
            let sign = bit(v, 31);
            let shi = (0..32).find(|i| bit(v, 31 - i) != sign).unwrap_or(u32::MAX);
            prop_assert_eq!(firstbit_hi(v), hi);
            prop_assert_eq!(firstbit_lo(v), lo);
            prop_assert_eq!(firstbit_shi(v), shi);
            prop_assert_eq!(bfrev(bfrev(v)), v);
        }
    }
}
