//! Screen-space derivatives across a 2x2 pixel quad (`deriv_rtx/rty`,
//! `_coarse` and `_fine`).
//!
//! In: the four lanes' values of one source component, in quad order
//! (0 = top-left, 1 = top-right, 2 = bottom-left, 3 = bottom-right), and
//! the derivative's kind. Out: each lane's derivative. Invariant: the
//! result for lane `k` is `float::add(v[hi], -v[lo])` with `(hi, lo) =
//! lanes(kind)[k]` — one table says which lanes are subtracted, and both
//! engines read it (the interpreter calls [`deriv`]; the JIT builds its
//! lane shuffles from [`lanes`] and subtracts with the same flush and NaN
//! rules as [`super::float::add`]).

/// Which difference a derivative instruction takes (the instruction
/// table's `Form::Deriv` column names it for each `deriv_*` opcode).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Deriv {
    /// `deriv_rtx_coarse` (and `deriv_rtx`): top-right − top-left, for all four lanes.
    CoarseX,
    /// `deriv_rty_coarse` (and `deriv_rty`): bottom-left − top-left, for all four lanes.
    CoarseY,
    /// `deriv_rtx_fine`: right − left within each lane's row.
    FineX,
    /// `deriv_rty_fine`: bottom − top within each lane's column.
    FineY,
}

/// For each lane of the quad, the lanes `(hi, lo)` whose difference
/// `hi − lo` is its derivative.
pub const fn lanes(kind: Deriv) -> [(usize, usize); 4] {
    match kind {
        Deriv::CoarseX => [(1, 0); 4],
        Deriv::CoarseY => [(2, 0); 4],
        Deriv::FineX => [(1, 0), (1, 0), (3, 2), (3, 2)],
        Deriv::FineY => [(2, 0), (3, 1), (2, 0), (3, 1)],
    }
}

/// The derivative of one component over a quad (bits in, bits out).
pub fn deriv(kind: Deriv, quad: [u32; 4]) -> [u32; 4] {
    std::array::from_fn(|k| deriv_lane(kind, quad, k))
}

/// Lane `k`'s entry of [`deriv`] alone.
#[inline(always)]
pub fn deriv_lane(kind: Deriv, quad: [u32; 4], k: usize) -> u32 {
    let (hi, lo) = lanes(kind)[k];
    let h = f32::from_bits(quad[hi]);
    let l = super::float::neg(f32::from_bits(quad[lo]));
    super::float::add(h, l).to_bits()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(v: [f32; 4]) -> [u32; 4] {
        v.map(f32::to_bits)
    }

    #[test]
    fn coarse_uses_the_top_left_pair_and_column() {
        let v = q([1.0, 3.0, 10.0, 20.0]);
        assert_eq!(deriv(Deriv::CoarseX, v), q([2.0; 4]));
        assert_eq!(deriv(Deriv::CoarseY, v), q([9.0; 4]));
    }

    #[test]
    fn fine_uses_each_row_and_column() {
        let v = q([1.0, 3.0, 10.0, 20.0]);
        assert_eq!(deriv(Deriv::FineX, v), q([2.0, 2.0, 10.0, 10.0]));
        assert_eq!(deriv(Deriv::FineY, v), q([9.0, 17.0, 9.0, 17.0]));
    }

    #[test]
    fn differences_follow_the_float_rules() {
        // INF − INF is the canonical NaN; a denormal difference flushes to +0.
        let inf = f32::INFINITY.to_bits();
        assert_eq!(
            deriv(Deriv::CoarseX, [inf, inf, 0, 0])[0],
            crate::sem::float::CANONICAL_NAN
        );
        let tiny = 0x0000_0001; // denormal: flushed to +0 before subtracting
        assert_eq!(deriv(Deriv::CoarseX, [0, tiny, 0, 0])[0], 0);
    }
}
