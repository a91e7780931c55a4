//! Texture sampling rules (FS §7.18) as plain per-lane functions: texel
//! addressing, fixed-point filter weights, LOD computation and selection,
//! cube face selection and array-index rounding.
//!
//! In: one lane's coordinates, gradients and sampler fields as floats and
//! integers. Out: texel indices, filter weights, mip levels. Invariant:
//! every function is total (NaN and infinite inputs give defined results,
//! integer arithmetic saturates), so the interpreter and the JIT can call
//! them per lane. The choices made where the spec leaves room are written
//! down in `docs/semantics.md`, "Sampling".

use super::sampler::{AddressMode, FilterMode, SamplerDesc};

/// Fractional bits of texel-space coordinates (the spec's minimum of 8
/// bits of subtexel precision).
pub const SUBTEXEL_BITS: u32 = 8;
const ONE: i64 = 1 << SUBTEXEL_BITS;

/// Texel-space coordinate → fixed point with [`SUBTEXEL_BITS`] fractional
/// bits, rounded to nearest even; NaN → 0, saturating at ±2^40.
#[inline]
pub fn to_fixed(x: f32) -> i64 {
    if x.is_nan() {
        return 0;
    }
    let limit = (1i64 << 40) as f64;
    // Exact: an f32 times 2^8 fits an f64's mantissa.
    let v = (f64::from(x) * ONE as f64).clamp(-limit, limit);
    round_even(v) as i64
}

/// `v.round_ties_even()` for `|v| <= 2^40`, without a libm call: adding
/// and subtracting 1.5 * 2^52 leaves no fractional bits, and the
/// addition rounds to nearest even (the default rounding mode, which
/// every caller runs in).
#[inline(always)]
fn round_even(v: f64) -> f64 {
    const MAGIC: f64 = 6_755_399_441_055_744.0;
    (v + MAGIC) - MAGIC
}

/// One texel index and its filter weight along one axis.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tap {
    pub index: i64,
    pub weight: f32,
}

/// Point sampling along one axis: the texel containing `u * size`, plus
/// the immediate offset.
#[inline(always)]
pub fn point_tap(u: f32, size: u32, offset: i32) -> Tap {
    let fixed = to_fixed(u * size as f32);
    Tap {
        index: (fixed >> SUBTEXEL_BITS) + i64::from(offset),
        weight: 1.0,
    }
}

/// Linear filtering along one axis: texels `i0` and `i0 + 1` around
/// `u * size - 0.5` (texel centres at half-integers), with the weight of
/// `i0 + 1` quantised to 1/256.
#[inline(always)]
pub fn linear_taps(u: f32, size: u32, offset: i32) -> [Tap; 2] {
    let fixed = to_fixed(u * size as f32 - 0.5);
    let i0 = (fixed >> SUBTEXEL_BITS) + i64::from(offset);
    let w = (fixed & (ONE - 1)) as f32 / ONE as f32;
    [
        Tap {
            index: i0,
            weight: 1.0 - w,
        },
        Tap {
            index: i0 + 1,
            weight: w,
        },
    ]
}

/// The taps of one axis for `mode`: the first `n` of the array.
#[inline(always)]
pub fn axis_taps(mode: FilterMode, u: f32, size: u32, offset: i32) -> ([Tap; 2], usize) {
    match mode {
        FilterMode::Point => (
            [
                point_tap(u, size, offset),
                Tap {
                    index: 0,
                    weight: 0.0,
                },
            ],
            1,
        ),
        FilterMode::Linear => (linear_taps(u, size, offset), 2),
    }
}

/// The one tap of an axis a dimension does not filter (index 0, weight 1).
#[inline(always)]
pub fn single_tap() -> ([Tap; 2], usize) {
    let t = Tap {
        index: 0,
        weight: 1.0,
    };
    ([t, t], 1)
}

/// The taps of one axis for `mode`.
pub fn taps(mode: FilterMode, u: f32, size: u32, offset: i32) -> Vec<Tap> {
    match mode {
        FilterMode::Point => vec![point_tap(u, size, offset)],
        FilterMode::Linear => linear_taps(u, size, offset).to_vec(),
    }
}

/// Applies an address mode to texel index `i` of an axis of `size` texels;
/// `None` means "use the border colour".
#[inline(always)]
pub fn address(mode: AddressMode, i: i64, size: u32) -> Option<u32> {
    let n = i64::from(size.max(1));
    if (0..n).contains(&i) {
        // Every mode keeps an index inside the axis.
        return Some(i as u32);
    }
    let v = match mode {
        AddressMode::Wrap => modulo(i, n),
        AddressMode::Mirror => {
            let m = modulo(i, 2 * n);
            if m >= n {
                2 * n - 1 - m
            } else {
                m
            }
        }
        AddressMode::Clamp => i.clamp(0, n - 1),
        AddressMode::Border => {
            if i < 0 || i >= n {
                return None;
            }
            i
        }
        AddressMode::MirrorOnce => {
            let m = if i < 0 { -1 - i } else { i };
            m.clamp(0, n - 1)
        }
    };
    Some(v as u32)
}

/// `i.rem_euclid(n)` for `n > 0`, without a division when `n` is a power
/// of two (most texture sizes): then the low bits of `i` in two's
/// complement are the non-negative remainder.
#[inline(always)]
fn modulo(i: i64, n: i64) -> i64 {
    if n & (n - 1) == 0 {
        i & (n - 1)
    } else {
        i.rem_euclid(n)
    }
}

/// The array slice a float array coordinate selects: round to nearest
/// even, then clamp to `[0, layers - 1]` (NaN → 0).
pub fn array_index(a: f32, layers: u32) -> u32 {
    if a.is_nan() {
        return 0;
    }
    let r = a.round_ties_even();
    r.clamp(0.0, layers.max(1) as f32 - 1.0) as u32
}

/// Cube face (0 = +X, 1 = -X, 2 = +Y, 3 = -Y, 4 = +Z, 5 = -Z) and the
/// face's normalised (u, v) for direction `d`, plus |major axis|. Ties go
/// to Z, then Y. A zero or NaN direction selects +X at its centre.
pub fn cube_face(d: [f32; 3]) -> (u32, f32, f32, f32) {
    let [x, y, z] = d;
    let (ax, ay, az) = (x.abs(), y.abs(), z.abs());
    let (face, sc, tc, ma) = if az >= ax && az >= ay && az > 0.0 {
        if z >= 0.0 {
            (4, x, -y, az)
        } else {
            (5, -x, -y, az)
        }
    } else if ay >= ax && ay > 0.0 {
        if y >= 0.0 {
            (2, x, z, ay)
        } else {
            (3, x, -z, ay)
        }
    } else if ax > 0.0 {
        if x >= 0.0 {
            (0, -z, -y, ax)
        } else {
            (1, z, -y, ax)
        }
    } else {
        return (0, 0.5, 0.5, 0.0);
    };
    (face, 0.5 * (sc / ma + 1.0), 0.5 * (tc / ma + 1.0), ma)
}

/// LOD from gradients (FS §7.18.11, isotropic): `log2(max(|dx|, |dy|))`
/// with each gradient scaled by the texel size of the axes used (`axes`
/// of `size`). Zero gradients give -∞.
pub fn lod_from_gradients(dx: [f32; 3], dy: [f32; 3], size: [u32; 3], axes: usize) -> f32 {
    let len = |g: [f32; 3]| {
        (0..axes.min(3))
            .map(|k| {
                let s = g[k] * size[k] as f32;
                s * s
            })
            .sum::<f32>()
            .sqrt()
    };
    len(dx).max(len(dy)).log2()
}

/// The LOD a sampler uses: `lod + bias + mip_lod_bias`, clamped to
/// `[min_lod, max_lod]` (NaN LOD → 0 before the clamp).
pub fn biased_lod(lod: f32, bias: f32, s: &SamplerDesc) -> f32 {
    clamp_lod(lod + bias + s.mip_lod_bias, s)
}

/// Clamps a LOD to the sampler's `[min_lod, max_lod]` (NaN LOD → 0).
pub fn clamp_lod(l: f32, s: &SamplerDesc) -> f32 {
    let l = if l.is_nan() { 0.0 } else { l };
    let (lo, hi) = (s.min_lod, s.max_lod.max(s.min_lod));
    if lo.is_nan() || hi.is_nan() {
        return l;
    }
    l.clamp(lo, hi)
}

/// The mip levels one sample reads and how they mix.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MipChoice {
    /// True when the LOD is ≤ 0: the magnification filter applies.
    pub magnify: bool,
    pub level0: u32,
    pub level1: u32,
    /// Weight of `level1` (0 for point mip filtering), quantised to 1/256.
    pub weight: f32,
}

/// Selects mips for a (biased, clamped) LOD: point mip takes
/// `floor(lod + 0.5)`, linear mip blends `floor(lod)` and the next level
/// with the 8-bit fractional weight; levels clamp to `[0, mips - 1]`.
pub fn choose_mips(lod: f32, mip_mode: FilterMode, mips: u32) -> MipChoice {
    let last = mips.max(1) - 1;
    // NaN counts as magnification, like LOD 0.
    let magnify = lod.is_nan() || lod <= 0.0;
    let l = if lod.is_nan() {
        0.0
    } else {
        lod.clamp(0.0, last as f32)
    };
    match mip_mode {
        FilterMode::Point => {
            let level = ((l + 0.5).floor() as u32).min(last);
            MipChoice {
                magnify,
                level0: level,
                level1: level,
                weight: 0.0,
            }
        }
        FilterMode::Linear => {
            let fixed = to_fixed(l);
            let level0 = ((fixed >> SUBTEXEL_BITS) as u32).min(last);
            let weight = (fixed & (ONE - 1)) as f32 / ONE as f32;
            MipChoice {
                magnify,
                level0,
                level1: (level0 + 1).min(last),
                weight,
            }
        }
    }
}

/// The `sample_b` bias operand, clamped to the spec's [-16, 15.99].
pub fn instruction_bias(b: f32) -> f32 {
    if b.is_nan() {
        return 0.0;
    }
    b.clamp(-16.0, 15.99)
}

/// The 6-bit signed per-pixel offset of `gather4_po*` (range [-32, 31]):
/// only the low six bits of each offset are used.
pub fn gather_offset(v: u32) -> i32 {
    ((v << 26) as i32) >> 26
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sem::sampler::AddressMode::*;

    #[test]
    fn fixed_point_rounds_half_to_even_like_the_library() {
        let reference = |x: f32| {
            let limit = (1i64 << 40) as f64;
            (f64::from(x) * 256.0)
                .clamp(-limit, limit)
                .round_ties_even() as i64
        };
        let mut bits = 0u32;
        // Every 4099th bit pattern (all exponents, both signs) plus edges.
        loop {
            let x = f32::from_bits(bits);
            if !x.is_nan() {
                assert_eq!(to_fixed(x), reference(x), "{x:e} ({bits:08x})");
            }
            match bits.checked_add(4099) {
                Some(b) => bits = b,
                None => break,
            }
        }
        for x in [
            0.5f32 / 256.0,
            1.5 / 256.0,
            2.5 / 256.0,
            -0.5 / 256.0,
            -1.5 / 256.0,
        ] {
            assert_eq!(to_fixed(x), reference(x));
        }
        for x in [
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::MAX,
            -f32::MAX,
            1e12,
            -1e12,
        ] {
            assert_eq!(to_fixed(x), reference(x));
        }
        assert_eq!(to_fixed(f32::NAN), 0);
    }

    #[test]
    fn modulo_is_the_euclidean_remainder() {
        let big = [
            i64::MIN / 2,
            -(1 << 40) - 3,
            -(1 << 33),
            1 << 40,
            (1 << 40) + 5,
        ];
        for n in (1..=70).chain([128, 1024, 16384, 16383, 1 << 20]) {
            for i in (-300..300).chain(big) {
                assert_eq!(modulo(i, n), i.rem_euclid(n), "{i} mod {n}");
            }
        }
    }

    #[test]
    fn address_modes() {
        assert_eq!(address(Wrap, -1, 4), Some(3));
        assert_eq!(address(Wrap, 9, 4), Some(1));
        assert_eq!(address(Mirror, 4, 4), Some(3));
        assert_eq!(address(Mirror, -1, 4), Some(0));
        assert_eq!(address(Mirror, 8, 4), Some(0));
        assert_eq!(address(Clamp, -5, 4), Some(0));
        assert_eq!(address(Border, 4, 4), None);
        assert_eq!(address(MirrorOnce, -2, 4), Some(1));
        assert_eq!(address(MirrorOnce, -9, 4), Some(3));
    }

    #[test]
    fn weights_are_quantised_to_256ths() {
        // u * 4 - 0.5 = 0.25 + 1/1000: the weight rounds to 64/256.
        let t = linear_taps((0.75 + 0.001) / 4.0, 4, 0);
        assert_eq!(t[0].index, 0);
        assert_eq!(t[1].weight, 0.25);
        // 0.998 * 256 = 255.49 stays in texel 0; 0.999 * 256 = 255.74
        // rounds to 256/256, the next texel.
        assert_eq!(point_tap(0.998, 1, 2).index, 2);
        assert_eq!(point_tap(0.999, 1, 2).index, 3);
    }

    #[test]
    fn lod_selection() {
        let m = choose_mips(1.5, FilterMode::Linear, 4);
        assert_eq!(
            (m.level0, m.level1, m.weight, m.magnify),
            (1, 2, 0.5, false)
        );
        let m = choose_mips(1.5, FilterMode::Point, 4);
        assert_eq!(m.level0, 2);
        let m = choose_mips(-1.0, FilterMode::Point, 4);
        assert_eq!((m.level0, m.magnify), (0, true));
        assert_eq!(choose_mips(9.0, FilterMode::Linear, 3).level0, 2);
        assert_eq!(
            lod_from_gradients([0.25, 0.0, 0.0], [0.0; 3], [16, 16, 1], 2),
            2.0
        );
    }

    #[test]
    fn cube_faces_and_array_rounding() {
        assert_eq!(cube_face([1.0, 0.0, 0.0]), (0, 0.5, 0.5, 1.0));
        assert_eq!(cube_face([0.0, 0.0, -2.0]).0, 5);
        assert_eq!(cube_face([0.0, -1.0, 0.5]).0, 3);
        assert_eq!(cube_face([0.5, 0.0, 1.0]), (4, 0.75, 0.5, 1.0));
        assert_eq!(array_index(1.5, 8), 2);
        assert_eq!(array_index(2.5, 8), 2);
        assert_eq!(array_index(-3.0, 8), 0);
        assert_eq!(array_index(f32::NAN, 8), 0);
        assert_eq!(gather_offset(40), -24);
        assert_eq!(gather_offset((-3i32) as u32), -3);
    }
}

/// D3D11's standard multisample pattern: sample positions in 1/16 pixel
/// from the pixel centre, for 1, 2, 4, 8 and 16 samples.
const STANDARD_PATTERN: [&[(i8, i8)]; 5] = [
    &[(0, 0)],
    &[(4, 4), (-4, -4)],
    &[(-2, -6), (6, -2), (-6, 2), (2, 6)],
    &[
        (1, -3),
        (-1, 3),
        (5, 1),
        (-3, -5),
        (-5, 5),
        (-7, -1),
        (3, 7),
        (7, -7),
    ],
    &[
        (1, 1),
        (-1, -3),
        (-3, 2),
        (4, -1),
        (-5, -2),
        (2, 5),
        (5, 3),
        (3, -5),
        (-2, 6),
        (0, -7),
        (-4, -6),
        (-6, 4),
        (-8, 0),
        (7, -4),
        (6, 7),
        (-7, -8),
    ],
];

/// `samplepos`: the position of sample `index` of a `count`-sample
/// resource or render target, as `(x, y, 0, 0)` float bits relative to
/// the pixel centre. A count without a standard pattern (0, 3, ...) or an
/// index past the count gives zeros (named in docs/semantics.md).
pub fn sample_position(count: u32, index: u32) -> [u32; 4] {
    let pattern = match count {
        1 => STANDARD_PATTERN[0],
        2 => STANDARD_PATTERN[1],
        4 => STANDARD_PATTERN[2],
        8 => STANDARD_PATTERN[3],
        16 => STANDARD_PATTERN[4],
        _ => return [0; 4],
    };
    match pattern.get(index as usize) {
        Some(&(x, y)) => [
            (f32::from(x) / 16.0).to_bits(),
            (f32::from(y) / 16.0).to_bits(),
            0,
            0,
        ],
        None => [0; 4],
    }
}

#[cfg(test)]
mod pattern_tests {
    use super::sample_position;

    #[test]
    fn standard_positions_lie_inside_the_pixel_and_differ() {
        for count in [1u32, 2, 4, 8, 16] {
            let mut seen = Vec::new();
            for i in 0..count {
                let p = sample_position(count, i);
                let (x, y) = (f32::from_bits(p[0]), f32::from_bits(p[1]));
                assert!((-0.5..0.5).contains(&x) && (-0.5..0.5).contains(&y));
                assert!(!seen.contains(&(p[0], p[1])), "{count} samples repeat");
                seen.push((p[0], p[1]));
            }
            assert_eq!(sample_position(count, count), [0; 4]);
        }
        assert_eq!(
            sample_position(4, 1)[..2],
            [0.375f32.to_bits(), (-0.125f32).to_bits()]
        );
        assert_eq!(sample_position(3, 0), [0; 4]);
    }
}
