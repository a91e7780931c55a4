//! The batch runner's copies between a caller's invocation-major data and
//! the generated code's component rows, four lanes at a time.
//!
//! In: `W` lanes' registers (four DWORDs each, one lane after another) or
//! the rows of an input/output area (`[register][component][lane]`, rows
//! of `W` DWORDs). Out: the same DWORDs in the other layout. Invariant:
//! every function checks the lengths it needs first and copies nothing
//! (returning `false`) when they are short, so the pointer arithmetic
//! inside never leaves its slices; the caller then takes its lane-by-lane
//! copy. On x86-64 a group of four lanes is four 16-byte loads, eight
//! unpacks and four stores (SSE2, which every x86-64 has); elsewhere the
//! same transpose on arrays.

use super::context::W;

/// Lanes per group: one vector.
const G: usize = 4;

/// Copies registers `0..regs` of the `W` lanes in `data` (lane `l`'s
/// register `r` at DWORD `l * stride + 4 * r`) into `rows` (component `c`
/// of register `r`, lane `l` at DWORD `(r * 4 + c) * W + l`).
pub fn lanes_to_rows(data: &[u32], stride: usize, regs: usize, rows: &mut [u32]) -> bool {
    if data.len() < W * stride || 4 * regs > stride || rows.len() < regs * 4 * W {
        return false;
    }
    for g in (0..W).step_by(G) {
        for r in 0..regs {
            let lanes: [usize; G] = std::array::from_fn(|i| (g + i) * stride + 4 * r);
            let outs: [usize; 4] = std::array::from_fn(|c| (r * 4 + c) * W + g);
            transpose(data, lanes, rows, outs);
        }
    }
    true
}

/// Copies register `reg`'s rows of `rows` into entry `k` of each of the
/// `W` lanes' `n` entries of `values` (lane `l` at `values[l * n + k]`).
pub fn rows_to_lanes(
    rows: &[u32],
    reg: usize,
    values: &mut [[u32; 4]],
    n: usize,
    k: usize,
) -> bool {
    if k >= n || values.len() < W * n || rows.len() < (reg + 1) * 4 * W {
        return false;
    }
    let (flat, _) = values.as_flattened_mut().split_at_mut(W * n * 4);
    for g in (0..W).step_by(G) {
        let ins: [usize; 4] = std::array::from_fn(|c| (reg * 4 + c) * W + g);
        let lanes: [usize; G] = std::array::from_fn(|i| ((g + i) * n + k) * 4);
        transpose(rows, ins, flat, lanes);
    }
    true
}

/// Reads four DWORDs at each of `from`'s offsets in `src` and writes the
/// transposed 4x4 block at `to`'s offsets in `dst`: DWORD `j` of the
/// `i`th read goes to DWORD `i` of the `j`th write. Every offset plus 4
/// must be within its slice (checked in debug builds; the callers check
/// their lengths).
#[inline(always)]
fn transpose(src: &[u32], from: [usize; 4], dst: &mut [u32], to: [usize; 4]) {
    debug_assert!(from.iter().all(|&o| o + 4 <= src.len()));
    debug_assert!(to.iter().all(|&o| o + 4 <= dst.len()));
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            __m128i, _mm_loadu_si128, _mm_storeu_si128, _mm_unpackhi_epi32, _mm_unpackhi_epi64,
            _mm_unpacklo_epi32, _mm_unpacklo_epi64,
        };
        // SAFETY: SSE2 is part of x86-64, so the intrinsics run on every
        // CPU this code is built for; each offset plus 4 DWORDs is within
        // its slice (the callers checked their lengths against the
        // largest offset they pass); the loads and stores are unaligned.
        unsafe {
            let a: [__m128i; 4] =
                std::array::from_fn(|i| _mm_loadu_si128(src.as_ptr().add(from[i]).cast()));
            let lo01 = _mm_unpacklo_epi32(a[0], a[1]);
            let lo23 = _mm_unpacklo_epi32(a[2], a[3]);
            let hi01 = _mm_unpackhi_epi32(a[0], a[1]);
            let hi23 = _mm_unpackhi_epi32(a[2], a[3]);
            let t = [
                _mm_unpacklo_epi64(lo01, lo23),
                _mm_unpackhi_epi64(lo01, lo23),
                _mm_unpacklo_epi64(hi01, hi23),
                _mm_unpackhi_epi64(hi01, hi23),
            ];
            for (v, &o) in t.into_iter().zip(&to) {
                _mm_storeu_si128(dst.as_mut_ptr().add(o).cast(), v);
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let a: [[u32; 4]; 4] = std::array::from_fn(|i| std::array::from_fn(|j| src[from[i] + j]));
        for (j, &o) in to.iter().enumerate() {
            for (i, row) in a.iter().enumerate() {
                dst[o + i] = row[j];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_to_rows_puts_each_component_in_its_row() {
        let (per_lane, regs) = (3, 2);
        let stride = per_lane * 4;
        let data: Vec<u32> = (0..(W * stride) as u32).map(|x| x * 7 + 1).collect();
        let mut want = vec![u32::MAX; per_lane * 4 * W];
        for l in 0..W {
            for r in 0..regs {
                for c in 0..4 {
                    want[(r * 4 + c) * W + l] = data[l * stride + r * 4 + c];
                }
            }
        }
        let mut got = vec![u32::MAX; per_lane * 4 * W];
        assert!(lanes_to_rows(&data, stride, regs, &mut got));
        assert_eq!(got, want);
    }

    #[test]
    fn rows_to_lanes_fills_one_entry_of_each_lane() {
        let (regs, n, k, reg) = (3, 2, 1, 2);
        let rows: Vec<u32> = (0..(regs * 4 * W) as u32).map(|x| x * 3 + 5).collect();
        let mut want = vec![[9u32; 4]; W * n];
        for l in 0..W {
            want[l * n + k] = std::array::from_fn(|c| rows[(reg * 4 + c) * W + l]);
        }
        let mut got = vec![[9u32; 4]; W * n];
        assert!(rows_to_lanes(&rows, reg, &mut got, n, k));
        assert_eq!(got, want);
    }

    #[test]
    fn short_slices_copy_nothing() {
        let mut rows = vec![0; 4 * W];
        assert!(!lanes_to_rows(&[1; 4 * W - 1], 4, 1, &mut rows));
        assert!(!lanes_to_rows(&[1; 4 * W], 4, 2, &mut rows));
        assert!(rows.iter().all(|&x| x == 0));
        let mut values = vec![[0; 4]; W];
        assert!(!rows_to_lanes(&rows, 1, &mut values, 1, 0));
        assert!(!rows_to_lanes(&rows, 0, &mut values, 1, 1));
        assert!(!rows_to_lanes(&rows, 0, &mut values[..W - 1], 1, 0));
        assert!(values.iter().all(|v| *v == [0; 4]));
    }
}
