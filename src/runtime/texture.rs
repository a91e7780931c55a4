//! Reading textures: texel fetch (`ld`), filtered sampling, gathers and LOD
//! queries over a bound [`TextureView`] and its memory.
//!
//! In: a [`TextureData`] (view + caller bytes), a [`SampleDim`] (the
//! dimension the shader declared), a [`SamplerDesc`] and one lane's
//! coordinates. Out: four shader DWORDs. Invariant: every texel read goes
//! through [`TextureData::texel`], which checks the mip, the texel and the
//! byte range, or is a two-axis filter footprint on a level checked once
//! to lie inside the memory ([`Level::fits`]) at indices the address
//! modes keep inside the level, so no coordinate can reach outside the
//! view or the slice; out-of-range fetches read zeros with the format's
//! defaults. The rules
//! (addressing, weights, LOD) come from [`crate::sem::sample`]. The code
//! is written once on [`Texture`] (a texture with its mip layouts
//! prepared), generic over a [`Spec`]; [`TextureData`]'s methods run its
//! general instance [`Dyn`].

use super::{bc, AddressMode, FilterMode, Format, MipLayout, SamplerDesc, TextureDim, TextureView};
use crate::sem::sample;

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

/// What a specialised sampling entry fixes at compile time (the rest is
/// read from the view and the sampler at run time). [`Dyn`] fixes
/// nothing: it is the general path, and the interpreter's. Every field
/// only folds branches of the one generic code below: with `FORMAT:
/// Some(f)` the decode is `f`'s (the caller guarantees the view has that
/// format), with `FILTER: Some((m, p))` the min and mag filters are `m`
/// and the mip filter `p`, with `ADDRESS: Some(a)` every non-cube axis
/// is addressed with `a`.
pub trait Spec {
    const FORMAT: Option<Format>;
    const FILTER: Option<(FilterMode, FilterMode)>;
    const ADDRESS: Option<AddressMode>;
}

/// The general path: everything read at run time.
#[derive(Clone, Copy, Debug)]
pub struct Dyn;

impl Spec for Dyn {
    const FORMAT: Option<Format> = None;
    const FILTER: Option<(FilterMode, FilterMode)> = None;
    const ADDRESS: Option<AddressMode> = None;
}

/// Mip levels whose layout [`Texture`] keeps (16384 texels need 15).
const KEPT_LEVELS: usize = 16;

/// One mip level's placement, with the slice pitch resolved (`None`
/// when it overflows: every texel of the level reads as out of range).
#[derive(Clone, Copy, Debug, Default)]
struct Level {
    offset: u64,
    width: u32,
    height: u32,
    layers: u32,
    row_pitch: u64,
    slice_pitch: Option<u64>,
    /// Set by [`Texture::new`] when every texel of the level lies inside
    /// the texture's memory and the format is not block-compressed (see
    /// [`Level::fits`]): fetches inside the level's extent need no checks.
    direct: bool,
}

impl Level {
    fn of(m: &MipLayout, f: Format) -> Level {
        let slice_pitch = if m.slice_pitch == 0 {
            m.row_pitch.checked_mul(u64::from(f.memory_rows(m.height)))
        } else {
            Some(m.slice_pitch)
        };
        Level {
            offset: m.offset,
            width: m.width,
            height: m.height,
            layers: m.layers,
            row_pitch: m.row_pitch,
            slice_pitch,
            direct: false,
        }
    }

    /// Whether every texel (x < width, y < height, slice < layers) of
    /// the level, `f`'s bytes at [`Texture::texel`]'s address, lies in
    /// `len` bytes (so its address also fits a `usize`), for a
    /// non-empty level of an uncompressed format.
    fn fits(&self, f: Format, len: usize) -> bool {
        if f.is_block_compressed() || self.width == 0 || self.height == 0 || self.layers == 0 {
            return false;
        }
        let end = || {
            self.offset
                .checked_add(u64::from(self.layers - 1).checked_mul(self.slice_pitch?)?)?
                .checked_add(u64::from(self.height - 1).checked_mul(self.row_pitch)?)?
                .checked_add(u64::from(self.width).checked_mul(u64::from(f.bytes()))?)
        };
        end().is_some_and(|e| e <= len as u64)
    }
}

/// The last decoded BC block of a run of fetches (texels of one
/// footprint usually share a block); purely a cache of
/// [`bc::decode_block`]'s result for the block at byte `at`.
#[derive(Clone, Debug)]
pub struct BlockCache {
    at: usize,
    block: bc::Block,
}

impl Default for BlockCache {
    fn default() -> Self {
        BlockCache {
            at: usize::MAX,
            block: [[0; 4]; 16],
        }
    }
}

/// The mips one sample reads and the filter it applies on them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Chosen {
    choice: sample::MipChoice,
    mode: FilterMode,
}

impl Chosen {
    /// The level and filter of a choice that reads one level only (the
    /// case in which [`Texture::sample_chosen`] filters a single level).
    pub fn single_level(&self) -> Option<(u32, FilterMode)> {
        let c = self.choice;
        (c.weight == 0.0 || c.level1 == c.level0).then_some((c.level0, self.mode))
    }

    /// The first level, the second, the second's weight and the filter:
    /// [`Texture::sample_chosen`] filters the first level, and blends in
    /// the second when the weight is not 0 and the levels differ.
    pub fn parts(&self) -> (u32, u32, f32, FilterMode) {
        let c = self.choice;
        (c.level0, c.level1, c.weight, self.mode)
    }
}

/// A mip level every texel of which lies inside the texture's memory
/// ([`Level::fits`]): where its first slice starts and how its rows lie.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DirectLevel {
    pub offset: u64,
    pub width: u32,
    pub height: u32,
    pub row_pitch: u64,
}

/// A two-axis lookup placed on its level's axes ([`Texture::place`]).
struct Placed {
    coord: [f32; 2],
    slice: u32,
    modes: [AddressMode; 2],
    offset: [i32; 2],
}

/// A bound texture prepared for sampling: its view, memory and the
/// layout of its first [`KEPT_LEVELS`] mips, computed once per texture
/// and batch instead of per texel.
#[derive(Clone, Copy, Debug)]
pub struct Texture<'a> {
    pub view: TextureView,
    pub data: &'a [u8],
    levels: [Level; KEPT_LEVELS],
    kept: u32,
}

impl<'a> Texture<'a> {
    /// Prepares `t`'s mip layouts.
    pub fn new(t: &TextureData<'a>) -> Texture<'a> {
        let mut levels = [Level::default(); KEPT_LEVELS];
        let mut kept = 0;
        for (l, m) in levels.iter_mut().zip(t.view.mip_chain()) {
            *l = Level::of(&m, t.view.format);
            l.direct = l.fits(t.view.format, t.data.len());
            kept += 1;
        }
        Texture {
            view: t.view,
            data: t.data,
            levels,
            kept,
        }
    }

    /// The same texture with every read checked (no [`Level::direct`]
    /// level): the reference the direct reads are tested against.
    #[cfg(test)]
    pub fn checked_only(mut self) -> Texture<'a> {
        for l in &mut self.levels {
            l.direct = false;
        }
        self
    }

    /// The format the code of `S` decodes.
    #[inline(always)]
    fn format<S: Spec>(&self) -> Format {
        S::FORMAT.unwrap_or(self.view.format)
    }

    #[inline(always)]
    fn level(&self, level: u32) -> Option<Level> {
        if level < self.kept {
            return Some(self.levels[level as usize]);
        }
        let m = self.view.mip(level)?;
        Some(Level::of(&m, self.view.format))
    }

    /// Level `level` when every texel of it can be read without a check
    /// (an uncompressed format, the whole level inside the memory).
    pub fn direct_level(&self, level: u32) -> Option<DirectLevel> {
        let m = self.level(level).filter(|m| m.direct)?;
        Some(DirectLevel {
            offset: m.offset,
            width: m.width,
            height: m.height,
            row_pitch: m.row_pitch,
        })
    }

    /// [`TextureData::texel`] with the format of `S` and a block cache.
    #[inline(always)]
    pub fn texel<S: Spec>(
        &self,
        cache: &mut BlockCache,
        level: u32,
        x: u32,
        y: u32,
        slice: u32,
    ) -> Option<[u32; 4]> {
        let m = self.level(level)?;
        if x >= m.width || y >= m.height || slice >= m.layers {
            return None;
        }
        let f = self.format::<S>();
        let edge = f.block_edge();
        let base = m
            .offset
            .checked_add(u64::from(slice).checked_mul(m.slice_pitch?)?)?
            .checked_add(u64::from(y / edge).checked_mul(m.row_pitch)?)?
            .checked_add(u64::from(x / edge).checked_mul(u64::from(f.bytes()))?)?;
        let start = usize::try_from(base).ok()?;
        let bytes = self
            .data
            .get(start..start.checked_add(f.bytes() as usize)?)?;
        if f.is_block_compressed() {
            if cache.at != start {
                cache.block = bc::decode_block(f, bytes)?;
                cache.at = start;
            }
            return Some(cache.block[((y % 4) * 4 + x % 4) as usize]);
        }
        Some(f.decode(bytes))
    }

    /// The value an out-of-range fetch reads: zeros plus format defaults.
    #[inline(always)]
    pub fn out_of_range<S: Spec>(&self) -> [u32; 4] {
        self.format::<S>().zero_texel()
    }

    /// The mip count of the view (at least 1).
    pub fn mips(&self) -> u32 {
        self.view.mip_levels.max(1)
    }

    /// The texel-space size of mip 0 along the filtered axes (for LOD).
    pub fn base_size(&self) -> [u32; 3] {
        self.level(0)
            .map_or([1; 3], |m| [m.width, m.height, m.layers])
    }

    /// [`TextureData::load`] for the code of `S`.
    #[inline(always)]
    pub fn load<S: Spec>(
        &self,
        cache: &mut BlockCache,
        dim: SampleDim,
        c: [i32; 4],
        level: u32,
        sample: u32,
    ) -> [u32; 4] {
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
            (Some(x), Some(y), Some(s)) => self.texel::<S>(cache, level, x, y, s),
            _ => None,
        }
        .unwrap_or_else(|| self.out_of_range::<S>())
    }

    /// The face slice base and the 2D/3D coordinates of a lookup: `(coords
    /// along the axes, slice, address modes)`. Cubes select a face and
    /// clamp within it.
    #[inline(always)]
    fn place<S: Spec>(
        &self,
        s: &SamplerDesc,
        l: &Lookup,
    ) -> ([f32; 3], u32, [AddressMode; 3], [i32; 3]) {
        let layers = self.view.depth_or_array.max(1);
        let c = l.coord;
        let address = S::ADDRESS.map_or_else(|| s.address(), |a| [a; 3]);
        match l.dim {
            SampleDim::D1 => ([c[0], 0.0, 0.0], 0, address, l.offset),
            SampleDim::D1Array => (
                [c[0], 0.0, 0.0],
                sample::array_index(c[1], layers),
                address,
                l.offset,
            ),
            SampleDim::D2 | SampleDim::D3 => ([c[0], c[1], c[2]], 0, address, l.offset),
            SampleDim::D2Array => (
                [c[0], c[1], 0.0],
                sample::array_index(c[2], layers),
                address,
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
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn filter_level<S: Spec>(
        &self,
        cache: &mut BlockCache,
        s: &SamplerDesc,
        l: &Lookup,
        level: u32,
        mode: FilterMode,
        compare: Option<f32>,
    ) -> [f32; 4] {
        let Some(m) = self.level(level) else {
            return [0.0; 4];
        };
        let (coord, slice, modes, offset) = self.place::<S>(s, l);
        let axes = l.dim.axes();
        if axes == 2 && m.direct && slice < m.layers {
            let at = Placed {
                coord: [coord[0], coord[1]],
                slice,
                modes: [modes[0], modes[1]],
                offset: [offset[0], offset[1]],
            };
            return self.filter_direct::<S>(s, &m, &at, mode, compare);
        }
        let size = [m.width, m.height, m.layers];
        let mut per_axis = [sample::single_tap(); 3];
        // Each tap's addressed index (`None`: border), once per axis.
        let mut placed = [[Some(0u32); 2]; 3];
        for k in 0..axes.min(3) {
            per_axis[k] = sample::axis_taps(mode, coord[k], size[k], offset[k]);
            let (taps, n) = per_axis[k];
            for (p, tap) in placed[k].iter_mut().zip(&taps[..n]) {
                *p = sample::address(modes[k], tap.index, size[k]);
            }
        }
        let mut acc = [0.0f32; 4];
        for (i, tx) in per_axis[0].0[..per_axis[0].1].iter().enumerate() {
            for (j, ty) in per_axis[1].0[..per_axis[1].1].iter().enumerate() {
                for (k, tz) in per_axis[2].0[..per_axis[2].1].iter().enumerate() {
                    let w = tx.weight * ty.weight * tz.weight;
                    if w == 0.0 {
                        continue;
                    }
                    let at = [placed[0][i], placed[1][j], placed[2][k]];
                    let v = self.tap::<S>(cache, s, at, axes, slice, level);
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

    /// [`Texture::filter_level`] of a two-axis lookup (2D, 2D array, a
    /// cube face) on a [`Level::direct`] level with `at.slice` inside it:
    /// the same taps, weights, tap order, `w == 0` skip and accumulation
    /// (`acc += w * x`, the third axis' weight 1 left out: `w * 1 == w`
    /// for every weight), with each texel read straight from memory (the
    /// addressed indices are inside the level, the level inside memory).
    #[inline(always)]
    fn filter_direct<S: Spec>(
        &self,
        s: &SamplerDesc,
        m: &Level,
        at: &Placed,
        mode: FilterMode,
        compare: Option<f32>,
    ) -> [f32; 4] {
        let f = self.format::<S>();
        let bytes = f.bytes() as usize;
        let (tu, nu) = sample::axis_taps(mode, at.coord[0], m.width, at.offset[0]);
        let (tv, nv) = sample::axis_taps(mode, at.coord[1], m.height, at.offset[1]);
        let xs = [
            sample::address(at.modes[0], tu[0].index, m.width),
            sample::address(at.modes[0], tu[1].index, m.width),
        ];
        let ys = [
            sample::address(at.modes[1], tv[0].index, m.height),
            sample::address(at.modes[1], tv[1].index, m.height),
        ];
        // `fits` bounds every sum below by the memory's length.
        let base = m.offset as usize + at.slice as usize * m.slice_pitch.unwrap_or(0) as usize;
        let pitch = m.row_pitch as usize;
        let mut acc = [0.0f32; 4];
        for i in 0..nu {
            for j in 0..nv {
                let w = tu[i].weight * tv[j].weight;
                if w == 0.0 {
                    continue;
                }
                let v = match (xs[i], ys[j]) {
                    (Some(x), Some(y)) => {
                        let p = base + y as usize * pitch + x as usize * bytes;
                        let raw = f.decode(&self.data[p..p + bytes]);
                        let [r, g, b, a] = raw;
                        [r, g, b, a].map(f32::from_bits)
                    }
                    _ => s.border_color,
                };
                let v = match compare {
                    Some(r) => [f32::from(u8::from(s.comparison.test(r, v[0]))); 4],
                    None => v,
                };
                for (a, x) in acc.iter_mut().zip(v) {
                    *a += w * x;
                }
            }
        }
        acc
    }

    /// One texel as floats from its addressed indices (the border
    /// colour when an axis the dimension uses addressed out).
    #[inline(always)]
    fn tap<S: Spec>(
        &self,
        cache: &mut BlockCache,
        s: &SamplerDesc,
        at: [Option<u32>; 3],
        axes: usize,
        slice: u32,
        level: u32,
    ) -> [f32; 4] {
        let mut p = [0u32; 3];
        for k in 0..axes {
            match at[k] {
                Some(v) => p[k] = v,
                None => return s.border_color,
            }
        }
        let z = if axes == 3 { p[2] } else { slice };
        self.texel::<S>(cache, level, p[0], p[1], z)
            .unwrap_or_else(|| self.out_of_range::<S>())
            .map(f32::from_bits)
    }

    /// Filtered sample at (biased, clamped) `lod`.
    #[inline(always)]
    pub fn sample<S: Spec>(
        &self,
        cache: &mut BlockCache,
        s: &SamplerDesc,
        l: &Lookup,
        lod: f32,
        compare: Option<f32>,
    ) -> [f32; 4] {
        let chosen = self.choose::<S>(s, lod);
        self.sample_chosen::<S>(cache, s, l, &chosen, compare)
    }

    /// The mips and filter a (biased, clamped) `lod` selects: the part
    /// of [`Texture::sample`] that does not depend on the coordinates.
    #[inline(always)]
    pub fn choose<S: Spec>(&self, s: &SamplerDesc, lod: f32) -> Chosen {
        let (min, mag, mip) = match S::FILTER {
            Some((m, p)) => (m, m, p),
            None => s.filter.modes(),
        };
        let choice = sample::choose_mips(lod, mip, self.mips());
        let mode = if choice.magnify { mag } else { min };
        Chosen { choice, mode }
    }

    /// The choice [`Texture::choose`] makes for every LOD, when the LOD
    /// cannot change it: a view with one mip (every LOD selects level 0
    /// with weight 0) and a sampler whose min and mag filters agree (the
    /// LOD's sign selects between them). NaN and infinite LODs select the
    /// same. The choice's `magnify` flag still follows the LOD it was made
    /// for (0), but [`Texture::sample_chosen`] reads only the levels, the
    /// weight and the filter.
    pub fn lod_free_choice<S: Spec>(&self, s: &SamplerDesc) -> Option<Chosen> {
        if self.mips() != 1 {
            return None;
        }
        let (magnified, minified) = (self.choose::<S>(s, 0.0), self.choose::<S>(s, 1.0));
        (magnified.mode == minified.mode).then_some(magnified)
    }

    /// [`Texture::sample`] after [`Texture::choose`].
    #[inline(always)]
    pub fn sample_chosen<S: Spec>(
        &self,
        cache: &mut BlockCache,
        s: &SamplerDesc,
        l: &Lookup,
        chosen: &Chosen,
        compare: Option<f32>,
    ) -> [f32; 4] {
        let (choice, mode) = (chosen.choice, chosen.mode);
        let a = self.filter_level::<S>(cache, s, l, choice.level0, mode, compare);
        if choice.weight == 0.0 || choice.level1 == choice.level0 {
            return a;
        }
        let b = self.filter_level::<S>(cache, s, l, choice.level1, mode, compare);
        std::array::from_fn(|k| a[k] * (1.0 - choice.weight) + b[k] * choice.weight)
    }

    /// `gather4*`: component `component` of the bilinear footprint at mip
    /// 0, in the order (u0,v1), (u1,v1), (u1,v0), (u0,v0). With `compare`,
    /// each value is the comparison of the reference with the texel's red
    /// (1.0 or 0.0). Values are raw DWORDs (integer formats gather bits).
    #[inline(always)]
    pub fn gather<S: Spec>(
        &self,
        cache: &mut BlockCache,
        s: &SamplerDesc,
        l: &Lookup,
        component: usize,
        compare: Option<f32>,
    ) -> [u32; 4] {
        let Some(m) = self.level(0) else {
            return [0; 4];
        };
        let (coord, slice, modes, offset) = self.place::<S>(s, l);
        let size = [m.width, m.height, 1];
        let tu = sample::linear_taps(coord[0], size[0], offset[0]);
        let tv = sample::linear_taps(coord[1], size[1], offset[1]);
        let order = [(0, 1), (1, 1), (1, 0), (0, 0)];
        order.map(|(i, j)| {
            let idx = [tu[i].index, tv[j].index, 0];
            let raw = self.tap_raw::<S>(cache, s, idx, size, modes, slice);
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

    #[inline(always)]
    fn tap_raw<S: Spec>(
        &self,
        cache: &mut BlockCache,
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
        self.texel::<S>(cache, 0, x, y, slice)
            .unwrap_or_else(|| self.out_of_range::<S>())
    }
}

/// The general path over an unprepared texture: each call prepares the
/// texture and runs the [`Dyn`] instance of [`Texture`]'s code.
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
        Texture::new(self).texel::<Dyn>(&mut BlockCache::default(), level, x, y, slice)
    }

    /// The value an out-of-range fetch reads: zeros plus format defaults.
    pub fn out_of_range(&self) -> [u32; 4] {
        self.view.format.zero_texel()
    }

    /// `ld`: integer texel coordinates (array slice in the next component
    /// after the used axes), mip `level`, multisample index `sample`.
    pub fn load(&self, dim: SampleDim, c: [i32; 4], level: u32, sample: u32) -> [u32; 4] {
        Texture::new(self).load::<Dyn>(&mut BlockCache::default(), dim, c, level, sample)
    }

    /// The mip count of the view (at least 1).
    pub fn mips(&self) -> u32 {
        self.view.mip_levels.max(1)
    }

    /// Filtered sample at (biased, clamped) `lod`.
    pub fn sample(&self, s: &SamplerDesc, l: &Lookup, lod: f32, compare: Option<f32>) -> [f32; 4] {
        Texture::new(self).sample::<Dyn>(&mut BlockCache::default(), s, l, lod, compare)
    }

    /// `gather4*` (see [`Texture::gather`]).
    pub fn gather(
        &self,
        s: &SamplerDesc,
        l: &Lookup,
        component: usize,
        compare: Option<f32>,
    ) -> [u32; 4] {
        Texture::new(self).gather::<Dyn>(&mut BlockCache::default(), s, l, component, compare)
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
