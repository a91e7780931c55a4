//! Address arithmetic and out-of-bounds rules for buffer, TGSM, constant
//! buffer and indexable-temp accesses (`sm5-semantics.md` §11).
//!
//! In: the u32 address operands of an access (byte offsets, struct indices,
//! declared strides) and the size of the view being accessed. Out: a 64-bit
//! DWORD index and an in-bounds verdict. Invariants: addresses are computed
//! in 64 bits, so no struct index can wrap back into range; the low 2 bits of
//! a byte address are ignored (misaligned accesses act on the containing
//! DWORD, never byte-granular); one "flat" per-DWORD check serves raw and
//! structured views alike. Both engines go through these functions.
//!
//! # Out-of-bounds rule per access kind
//!
//! "OOB" is decided per DWORD with [`dword_in_bounds`] against the view
//! (for g#, against that one declaration's size, not all of TGSM).
//!
//! | access | OOB behaviour here |
//! |---|---|
//! | `ld_raw` / `ld_structured` on t#/u# | the OOB DWORD reads 0; in-bounds DWORDs read normally |
//! | `ld_structured` with byte offset ≥ stride | flat address `index*stride + offset`; only DWORDs past the view end read 0 |
//! | `ld_raw` / `ld_structured` on g# | the OOB DWORD reads 0 |
//! | `store_raw` / `store_structured` on u# or g# | the OOB DWORD is dropped; in-bounds DWORDs are written |
//! | typed `ld` / `ld_uav_typed` out of range | 0 in the format's components, defaults for missing ones (A = 1) |
//! | `store_uav_typed` out of range | dropped |
//! | `atomic_*` on u# or g# | dropped (memory untouched) |
//! | `imm_atomic_*` on u# or g# | dropped, returns [`OOB_READ`] (0) |
//! | `cb#[i]` past the bound size, or unbound cb | 0 in every component |
//! | `icb[i]` past its size | 0 in every component |
//! | `x#[i]` past the declared size | reads 0, writes dropped |
//! | unbound t#/u# | reads 0, writes and atomics dropped, `imm_atomic` returns 0, `bufinfo`/`resinfo` 0 |
//! | misaligned byte address | low 2 bits ignored ([`raw_dword`]) |

/// The value every out-of-bounds or unbound read returns, and what an
/// out-of-bounds `imm_atomic_*` writes to its destination.
pub const OOB_READ: u32 = 0;

/// DWORD index of a raw (byte-addressed) access: the low 2 bits are ignored.
#[inline]
pub fn raw_dword(byte_offset: u32) -> u64 {
    (byte_offset >> 2) as u64
}

/// DWORD index of a structured access: `(index*stride + byte_offset) >> 2`,
/// computed in 64 bits (no wrap), low 2 bits of the byte address ignored.
/// An offset past the stride simply lands in a later struct (flat address).
#[inline]
pub fn structured_dword(index: u32, byte_offset: u32, stride: u32) -> u64 {
    (index as u64 * stride as u64 + byte_offset as u64) >> 2
}

/// Whether DWORD `dword` lies inside a view of `view_bytes` bytes
/// (`dword*4 + 4 <= view_bytes`; a partial trailing DWORD is out of bounds).
#[inline]
pub fn dword_in_bounds(dword: u64, view_bytes: u64) -> bool {
    // Same as `dword*4 + 4 <= view_bytes`, without any overflow.
    dword < view_bytes / 4
}

/// The DWORD index of component `k` (0..=3, after the resource swizzle)
/// of a raw or structured access at DWORD `base`.
#[inline]
pub fn component_dword(base: u64, k: u32) -> u64 {
    base + (k & 3) as u64
}

/// Whether element `index` of an array of `len` elements (cb vec4s, icb
/// vec4s, x# elements) is in range.
#[inline]
pub fn element_in_bounds(index: u64, len: u64) -> bool {
    index < len
}

/// Bytes of a view holding `num_elements` elements of `stride` bytes, in
/// 64 bits (raw views: stride 4; structured views: the struct stride).
#[inline]
pub fn view_bytes(num_elements: u32, stride: u32) -> u64 {
    num_elements as u64 * stride as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_ignores_low_bits() {
        assert_eq!(raw_dword(0), 0);
        assert_eq!(raw_dword(3), 0);
        assert_eq!(raw_dword(4), 1);
        assert_eq!(raw_dword(7), 1);
        assert_eq!(raw_dword(u32::MAX), 0x3FFF_FFFF);
    }

    #[test]
    fn structured_is_flat_and_64_bit() {
        assert_eq!(structured_dword(0, 0, 16), 0);
        assert_eq!(structured_dword(2, 4, 16), 9);
        assert_eq!(structured_dword(1, 20, 16), 9); // offset ≥ stride: next struct
        assert_eq!(structured_dword(2, 6, 16), 9); // misaligned offset
                                                   // 0x4000_0000 * 16 wraps to 0 in 32 bits; here it stays huge.
        assert_eq!(structured_dword(0x4000_0000, 0, 16), 0x1_0000_0000);
        assert_eq!(
            structured_dword(u32::MAX, u32::MAX, 2048),
            (u32::MAX as u64 * 2048 + u32::MAX as u64) >> 2
        );
    }

    #[test]
    fn flat_bounds_check() {
        assert!(dword_in_bounds(0, 4));
        assert!(!dword_in_bounds(0, 3));
        assert!(!dword_in_bounds(0, 0));
        assert!(dword_in_bounds(3, 16));
        assert!(!dword_in_bounds(4, 16));
        assert!(!dword_in_bounds(u64::MAX, u64::MAX));
        let d = structured_dword(0x4000_0000, 0, 16);
        assert!(!dword_in_bounds(d, view_bytes(4, 16)));
        assert_eq!(view_bytes(u32::MAX, 2048), u32::MAX as u64 * 2048);
    }

    #[test]
    fn components_and_elements() {
        assert_eq!(component_dword(10, 0), 10);
        assert_eq!(component_dword(10, 3), 13);
        assert_eq!(component_dword(10, 7), 13);
        assert!(element_in_bounds(3, 4));
        assert!(!element_in_bounds(4, 4));
        assert!(!element_in_bounds(0, 0));
        assert_eq!(OOB_READ, 0);
    }
}

#[cfg(test)]
mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn addresses_match_wide_reference(index: u32, off: u32, stride in 0u32..=2048, view: u64) {
            let flat = index as u128 * stride as u128 + off as u128;
            let dw = structured_dword(index, off, stride);
            prop_assert_eq!(dw as u128, flat / 4);
            prop_assert_eq!(raw_dword(off) as u128, off as u128 / 4);
            prop_assert_eq!(dword_in_bounds(dw, view), dw as u128 * 4 + 4 <= view as u128);
        }
    }
}
