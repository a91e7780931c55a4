//! Reading textures: texel fetch (`ld`), filtered sampling, gathers and LOD
//! queries over a bound [`TextureView`] and its memory.
//!
//! In: a [`TextureData`] (view + caller bytes), a [`SampleDim`] (the
//! dimension the shader declared), a [`SamplerDesc`] and one lane's
//! coordinates. Out: four shader DWORDs. Invariant: every texel read goes
//! through [`TextureData::texel`], which checks the mip, the texel and the
//! byte range, so no coordinate can reach outside the view or the slice;
//! out-of-range fetches read zeros with the format's defaults. The rules
//! (addressing, weights, LOD) come from [`crate::sem::sample`].

use super::{bc, AddressMode, FilterMode, MipLayout, SamplerDesc, TextureDim, TextureView};
use crate::sem::sample::{self, Tap};

/// A bound texture: its view and memory.
#[derive(Clone, Copy, Debug)]
pub struct TextureData<'a> {
    pub view: TextureView,
    pub data: &'a [u8],
}

/// How a shader addresses a texture (from its declaration).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SampleDim {
    D1,
    D1Array,
    D2,
    D2Array,
    D3,
    Cube,
    CubeArray,
}

impl SampleDim {
    /// The dimension a view's own type implies.
    pub fn of_view(d: TextureDim) -> SampleDim {
        match d {
            TextureDim::Tex1D => SampleDim::D1,
            TextureDim::Tex1DArray => SampleDim::D1Array,
            TextureDim::Tex2D | TextureDim::Tex2DMS { .. } => SampleDim::D2,
            TextureDim::Tex2DArray | TextureDim::Tex2DMSArray { .. } => SampleDim::D2Array,
            TextureDim::Tex3D => SampleDim::D3,
            TextureDim::TexCube => SampleDim::Cube,
            TextureDim::TexCubeArray => SampleDim::CubeArray,
        }
    }

    /// Filtered axes (1, 2 or 3; cubes filter two axes of a face).
    pub fn axes(self) -> usize {
        match self {
            SampleDim::D1 | SampleDim::D1Array => 1,
            SampleDim::D3 => 3,
            _ => 2,
        }
    }
}

/// The sampling inputs of one lane.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lookup {
    pub dim: SampleDim,
    /// Normalised coordinates; the array index follows the used axes
    /// (cubes: direction xyz, cube index in w).
    pub coord: [f32; 4],
    /// Texel offsets (`_aoffimmi` or gather4_po), ignored for cubes.
    pub offset: [i32; 3],
}

impl<'a> TextureData<'a> {
    /// Mip `level`'s layout.
    pub fn mip(&self, level: u32) -> Option<MipLayout> {
        self.view.mip(level)
    }

    /// The texel (x, y, slice) of mip `level` as four shader DWORDs; `None`
    /// when any coordinate is out of range or the bytes are missing.
    /// `slice` is the depth (3D), the array slice, the face slice (cubes)
    /// or the sample slot (multisampled).
    pub fn texel(&self, level: u32, x: u32, y: u32, slice: u32) -> Option<[u32; 4]> {
        let m = self.view.mip(level)?;
        if x >= m.width || y >= m.height || slice >= m.layers {
            return None;
        }
        let f = self.view.format;
        let slice_pitch = if m.slice_pitch == 0 {
            m.row_pitch
                .checked_mul(u64::from(f.memory_rows(m.height)))?
        } else {
            m.slice_pitch
        };
        let edge = f.block_edge();
        let base = m
            .offset
            .checked_add(u64::from(slice).checked_mul(slice_pitch)?)?
            .checked_add(u64::from(y / edge).checked_mul(m.row_pitch)?)?
            .checked_add(u64::from(x / edge).checked_mul(u64::from(f.bytes()))?)?;
        let start = usize::try_from(base).ok()?;
        let bytes = self
            .data
            .get(start..start.checked_add(f.bytes() as usize)?)?;
        if f.is_block_compressed() {
            let block = bc::decode_block(f, bytes)?;
            return Some(block[((y % 4) * 4 + x % 4) as usize]);
        }
        Some(f.load(bytes))
    }

    /// The value an out-of-range fetch reads: zeros plus format defaults.
    pub fn out_of_range(&self) -> [u32; 4] {
        self.view.format.zero_texel()
    }

    /// `ld`: integer texel coordinates (array slice in the next component
    /// after the used axes), mip `level`, multisample index `sample`.
    pub fn load(&self, dim: SampleDim, c: [i32; 4], level: u32, sample: u32) -> [u32; 4] {
        let u = |v: i32| u32::try_from(v).ok();
        let samples = self.view.dim.samples();
        let (x, y, slice) = match dim {
            SampleDim::D1 => (u(c[0]), Some(0), Some(0)),
            SampleDim::D1Array => (u(c[0]), Some(0), u(c[1])),
            SampleDim::D2 => (u(c[0]), u(c[1]), Some(0)),
            SampleDim::D2Array | SampleDim::D3 => (u(c[0]), u(c[1]), u(c[2])),
            SampleDim::Cube | SampleDim::CubeArray => (None, None, None),
        };
        let slice = slice
            .filter(|_| sample < samples)
            .and_then(|s| s.checked_mul(samples)?.checked_add(sample));
        match (x, y, slice) {
            (Some(x), Some(y), Some(s)) => self.texel(level, x, y, s),
            _ => None,
        }
        .unwrap_or_else(|| self.out_of_range())
    }

    /// The mip count of the view (at least 1).
    pub fn mips(&self) -> u32 {
        self.view.mip_levels.max(1)
    }

    /// The face slice base and the 2D/3D coordinates of a lookup: `(coords
    /// along the axes, slice, address modes)`. Cubes select a face and
    /// clamp within it.
    fn place(&self, s: &SamplerDesc, l: &Lookup) -> ([f32; 3], u32, [AddressMode; 3], [i32; 3]) {
        let layers = self.view.depth_or_array.max(1);
        let c = l.coord;
        match l.dim {
            SampleDim::D1 => ([c[0], 0.0, 0.0], 0, s.address(), l.offset),
            SampleDim::D1Array => (
                [c[0], 0.0, 0.0],
                sample::array_index(c[1], layers),
                s.address(),
                l.offset,
            ),
            SampleDim::D2 | SampleDim::D3 => ([c[0], c[1], c[2]], 0, s.address(), l.offset),
            SampleDim::D2Array => (
                [c[0], c[1], 0.0],
                sample::array_index(c[2], layers),
                s.address(),
                l.offset,
            ),
            SampleDim::Cube | SampleDim::CubeArray => {
                let (face, fu, fv, _) = sample::cube_face([c[0], c[1], c[2]]);
                let cube = if l.dim == SampleDim::CubeArray {
                    sample::array_index(c[3], (layers / 6).max(1))
                } else {
                    0
                };
                (
                    [fu, fv, 0.0],
                    cube * 6 + face,
                    [AddressMode::Clamp; 3],
                    [0; 3],
                )
            }
        }
    }

    /// One filtered value at mip `level` with filter `mode` on every axis.
    /// With `compare`, each texel's red is replaced by the comparison
    /// result (1.0 pass, 0.0 fail) in all four components before filtering.
    fn filter_level(
        &self,
        s: &SamplerDesc,
        l: &Lookup,
        level: u32,
        mode: FilterMode,
        compare: Option<f32>,
    ) -> [f32; 4] {
        let Some(m) = self.mip(level) else {
            return [0.0; 4];
        };
        let (coord, slice, modes, offset) = self.place(s, l);
        let axes = l.dim.axes();
        let size = [m.width, m.height, m.layers];
        let per_axis: Vec<Vec<Tap>> = (0..3)
            .map(|k| {
                if k < axes {
                    sample::taps(mode, coord[k], size[k], offset[k])
                } else {
                    vec![Tap {
                        index: 0,
                        weight: 1.0,
                    }]
                }
            })
            .collect();
        let mut acc = [0.0f32; 4];
        for tx in &per_axis[0] {
            for ty in &per_axis[1] {
                for tz in &per_axis[2] {
                    let w = tx.weight * ty.weight * tz.weight;
                    if w == 0.0 {
                        continue;
                    }
                    let v = self.tap(
                        s,
                        [tx.index, ty.index, tz.index],
                        size,
                        modes,
                        axes,
                        slice,
                        level,
                    );
                    let v = match compare {
                        Some(r) => [f32::from(u8::from(s.comparison.test(r, v[0]))); 4],
                        None => v,
                    };
                    for (a, x) in acc.iter_mut().zip(v) {
                        *a += w * x;
                    }
                }
            }
        }
        acc
    }

    /// One addressed texel as floats (border colour when addressed out).
    #[allow(clippy::too_many_arguments)]
    fn tap(
        &self,
        s: &SamplerDesc,
        idx: [i64; 3],
        size: [u32; 3],
        modes: [AddressMode; 3],
        axes: usize,
        slice: u32,
        level: u32,
    ) -> [f32; 4] {
        let mut p = [0u32; 3];
        for k in 0..axes {
            match sample::address(modes[k], idx[k], size[k]) {
                Some(v) => p[k] = v,
                None => return s.border_color,
            }
        }
        let z = if axes == 3 { p[2] } else { slice };
        self.texel(level, p[0], p[1], z)
            .unwrap_or_else(|| self.out_of_range())
            .map(f32::from_bits)
    }

    /// Filtered sample at (biased, clamped) `lod`.
    pub fn sample(&self, s: &SamplerDesc, l: &Lookup, lod: f32, compare: Option<f32>) -> [f32; 4] {
        let (min, mag, mip) = s.filter.modes();
        let choice = sample::choose_mips(lod, mip, self.mips());
        let mode = if choice.magnify { mag } else { min };
        let a = self.filter_level(s, l, choice.level0, mode, compare);
        if choice.weight == 0.0 || choice.level1 == choice.level0 {
            return a;
        }
        let b = self.filter_level(s, l, choice.level1, mode, compare);
        std::array::from_fn(|k| a[k] * (1.0 - choice.weight) + b[k] * choice.weight)
    }

    /// `gather4*`: component `component` of the bilinear footprint at mip
    /// 0, in the order (u0,v1), (u1,v1), (u1,v0), (u0,v0). With `compare`,
    /// each value is the comparison of the reference with the texel's red
    /// (1.0 or 0.0). Values are raw DWORDs (integer formats gather bits).
    pub fn gather(
        &self,
        s: &SamplerDesc,
        l: &Lookup,
        component: usize,
        compare: Option<f32>,
    ) -> [u32; 4] {
        let Some(m) = self.mip(0) else {
            return [0; 4];
        };
        let (coord, slice, modes, offset) = self.place(s, l);
        let size = [m.width, m.height, 1];
        let tu = sample::linear_taps(coord[0], size[0], offset[0]);
        let tv = sample::linear_taps(coord[1], size[1], offset[1]);
        let order = [(0, 1), (1, 1), (1, 0), (0, 0)];
        order.map(|(i, j)| {
            let idx = [tu[i].index, tv[j].index, 0];
            let raw = self.tap_raw(s, idx, size, modes, slice);
            match compare {
                Some(r) => {
                    let pass = s.comparison.test(r, f32::from_bits(raw[0]));
                    if pass {
                        1.0f32.to_bits()
                    } else {
                        0
                    }
                }
                None => raw[component & 3],
            }
        })
    }

    fn tap_raw(
        &self,
        s: &SamplerDesc,
        idx: [i64; 3],
        size: [u32; 3],
        modes: [AddressMode; 3],
        slice: u32,
    ) -> [u32; 4] {
        let (Some(x), Some(y)) = (
            sample::address(modes[0], idx[0], size[0]),
            sample::address(modes[1], idx[1], size[1]),
        ) else {
            return s.border_color.map(f32::to_bits);
        };
        self.texel(0, x, y, slice)
            .unwrap_or_else(|| self.out_of_range())
    }

    /// The texel-space size of mip 0 along the filtered axes (for LOD).
    pub fn base_size(&self) -> [u32; 3] {
        let m = self.mip(0);
        m.map_or([1; 3], |m| [m.width, m.height, m.layers])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::{Filter, Format};

    fn r32(vals: &[f32]) -> Vec<u8> {
        vals.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    #[test]
    fn bilinear_between_four_texels() {
        let mem = r32(&[0.0, 1.0, 2.0, 3.0]);
        let t = TextureData {
            view: TextureView::tex2d(Format::R32Float, 2, 2),
            data: &mem,
        };
        let s = SamplerDesc::new(Filter::LINEAR, AddressMode::Clamp);
        let l = Lookup {
            dim: SampleDim::D2,
            coord: [0.5, 0.5, 0.0, 0.0],
            offset: [0; 3],
        };
        assert_eq!(t.sample(&s, &l, 0.0, None)[0], 1.5);
        assert_eq!(
            t.gather(&s, &l, 0, None).map(f32::from_bits),
            [2.0, 3.0, 1.0, 0.0]
        );
    }

    #[test]
    fn loads_out_of_range_read_defaults() {
        let mem = r32(&[5.0]);
        let t = TextureData {
            view: TextureView::tex2d(Format::R32Float, 1, 1),
            data: &mem,
        };
        assert_eq!(
            t.load(SampleDim::D2, [0, 0, 0, 0], 0, 0)[0],
            5.0f32.to_bits()
        );
        assert_eq!(
            t.load(SampleDim::D2, [1, 0, 0, 0], 0, 0),
            [0, 0, 0, 1.0f32.to_bits()]
        );
        assert_eq!(
            t.load(SampleDim::D2, [-1, 0, 0, 0], 0, 0),
            [0, 0, 0, 1.0f32.to_bits()]
        );
        assert_eq!(
            t.load(SampleDim::D2, [0, 0, 0, 0], 1, 0)[3],
            1.0f32.to_bits()
        );
    }
}
