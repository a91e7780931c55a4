//! One sampling instruction on one thread, shared by the interpreter and
//! the JIT: the sampler slot and the filtered (or gathered, or queried)
//! result. The operand positions and LOD source of each op are the
//! instruction table's (`Opcode::sample_form`, `Opcode::feedback_base`).
//!
//! In: a sample-class opcode and one lane's operand values
//! ([`SampleArgs`], raw DWORDs after swizzle and modifiers), the bound
//! texture, the declared dimension and the sampler state. Out: the four
//! result DWORDs before the resource swizzle. Invariant: both engines route
//! operands here and nowhere else, so their texels, weights and LODs are
//! the same function; every texel read goes through [`Texture`]'s
//! fetches (checked per texel, or per mip level once). The functions are generic over a
//! [`Spec`] (what a specialised entry fixes): the interpreter runs the
//! general instance [`Dyn`], the JIT the instance [`with_spec`] picks for
//! a binding; a spec's constants only fold branches of the one code.

use crate::ir::{Decl, LodSource, Opcode, ResourceDim, SampleForm as Form};
use crate::runtime::texture::{BlockCache, Chosen, Dyn, Lookup, SampleDim, Spec, Texture};
use crate::runtime::{
    AddressMode, FilterMode, Format, MipLayout, RuntimeError, SamplerDesc, Slot, TextureData,
    TextureView, View,
};
use crate::sem::sample as rules;

/// The value `*_s` ops write to their status destination. No view here
/// is tiled, so every access is fully mapped; `check_access_fully_mapped`
/// tests for this value.
pub const FULLY_MAPPED: u32 = 0xFFFF_FFFF;

/// The error an implicit-LOD op raises where there are no derivatives.
pub fn no_derivatives(inst_index: usize, op: Opcode) -> RuntimeError {
    RuntimeError::InvalidProgram {
        inst_index: Some(inst_index),
        reason: format!(
            "{} needs derivatives, which a compute shader does not have",
            op.mnemonic()
        ),
    }
}

/// One lane's operand values (raw DWORDs after swizzle and modifiers).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SampleArgs {
    pub coord: [u32; 4],
    /// Texel offsets: `_aoffimmi`, or gather4_po's register through
    /// [`rules::gather_offset`].
    pub offset: [i32; 3],
    /// The comparison reference (`_c` forms).
    pub reference: u32,
    /// The LOD (`sample_l`), the bias (`sample_b`, in `.x`) or ddx (`sample_d`).
    pub lod: [u32; 4],
    /// ddy (`sample_d`).
    pub ddy: [u32; 4],
    /// The feedback forms' LOD clamp.
    pub min_lod: Option<f32>,
    /// The channel a gather reads (the sampler operand's first swizzle).
    pub component: usize,
    /// The pixel quad's (ddx, ddy) of `coord` ([`quad_gradients`]) for
    /// the implicit-LOD ops; `None` outside a quad (LOD 0 + biases).
    pub quad: Option<([u32; 4], [u32; 4])>,
}

/// The coarse derivatives (ddx, ddy) of a sampling op's coordinates over
/// a pixel quad, from the four lanes' coordinates in quad order: top-right
/// − top-left and bottom-left − top-left, with `deriv_rt*_coarse`'s
/// subtraction ([`crate::sem::quad::deriv`]). One pair per quad, so every
/// lane of the quad gets the same gradients.
#[inline]
pub fn quad_gradients(coords: [[u32; 4]; 4]) -> ([u32; 4], [u32; 4]) {
    use crate::sem::quad::{deriv_lane, Deriv};
    let column = |c: usize| [coords[0][c], coords[1][c], coords[2][c], coords[3][c]];
    let of = |kind| {
        let d = |c: usize| deriv_lane(kind, column(c), 0);
        [d(0), d(1), d(2), d(3)]
    };
    (of(Deriv::CoarseX), of(Deriv::CoarseY))
}

/// The declared (else the view's) sampling dimension of a texture.
pub fn sample_dim(declared: Option<ResourceDim>, view: &TextureView) -> SampleDim {
    match declared {
        Some(ResourceDim::Texture1D) => SampleDim::D1,
        Some(ResourceDim::Texture1DArray) => SampleDim::D1Array,
        Some(ResourceDim::Texture2D | ResourceDim::Texture2DMS) => SampleDim::D2,
        Some(ResourceDim::Texture2DArray | ResourceDim::Texture2DMSArray) => SampleDim::D2Array,
        Some(ResourceDim::Texture3D) => SampleDim::D3,
        Some(ResourceDim::TextureCube) => SampleDim::Cube,
        Some(ResourceDim::TextureCubeArray) => SampleDim::CubeArray,
        _ => SampleDim::of_view(view.dim),
    }
}

/// The s# slot: `s#` (index 0) before SM5.1, `S#[id][register]` in the
/// declared space after; `None` when the id is not declared.
pub fn sampler_slot(
    decls: &[Decl],
    sm51: bool,
    at0: Option<u64>,
    at1: Option<u64>,
) -> Option<Slot> {
    let at0 = at0?;
    if !sm51 {
        return Some(Slot::new(u32::try_from(at0).ok()?));
    }
    let space = decls.iter().find_map(|d| match d {
        Decl::Sampler { op, space, .. } if op.imm_index(0).map(u64::from) == Some(at0) => {
            Some(*space)
        }
        _ => None,
    })?;
    Some(Slot {
        space,
        index: u32::try_from(at1?).ok()?,
    })
}

fn floats(v: [u32; 4]) -> [f32; 4] {
    v.map(f32::from_bits)
}

/// The result of base op `f` on a bound texture, before the resource
/// swizzle: the general path ([`Dyn`]), the interpreter's. Implicit LODs
/// use the quad's gradients (`a.quad`), or none (LOD 0 + biases) in a
/// single invocation; the caller rejects them in compute programs.
pub fn sample(
    f: &Form,
    tex: &TextureData,
    dim: SampleDim,
    s: &SamplerDesc,
    a: &SampleArgs,
) -> [u32; 4] {
    let tex = Texture::new(tex);
    let quad = QuadShared::default();
    sample_with::<Dyn>(f, &tex, dim, s, a, quad, &mut BlockCache::default())
}

/// The mip choice [`sample_lod_free`] may run op `f` with on `tex`
/// through `s`: [`Texture::lod_free_choice`] (made on the general path),
/// for ops that neither gather (which read mip 0 and may take a
/// programmable offset) nor query the LOD.
pub fn lod_free_choice(f: &Form, tex: &Texture, s: &SamplerDesc) -> Option<Chosen> {
    if f.gather || f.query {
        return None;
    }
    tex.lod_free_choice::<Dyn>(s)
}

/// [`sample_with`] of a non-gather, non-query op `f` when `tex` and `s`
/// make the mip choice `chosen` whatever the LOD
/// ([`lod_free_choice`]): the lane's LOD, bias, gradients, quad
/// and LOD clamp cannot change the result, so only the coordinates, the
/// offsets and the reference are read. The same taps, weights and
/// accumulation as [`sample_with`], which reaches
/// [`Texture::sample_chosen`] with an equal choice.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn sample_lod_free<S: Spec>(
    f: &Form,
    tex: &Texture,
    dim: SampleDim,
    s: &SamplerDesc,
    chosen: &Chosen,
    coord: [u32; 4],
    offset: [i32; 3],
    reference: u32,
    cache: &mut BlockCache,
) -> [u32; 4] {
    debug_assert!(!f.gather && !f.query);
    let l = Lookup {
        dim,
        coord: floats(coord),
        offset,
    };
    let reference = f.reference.map(|_| f32::from_bits(reference));
    tex.sample_chosen::<S>(cache, s, &l, chosen, reference)
        .map(f32::to_bits)
}

/// What the lanes of a pixel quad share in a sampling op, computed once
/// per quad by a caller that runs several lanes: the quad's gradient LOD
/// ([`gradient_lod`] of its gradients, the same for every lane unless
/// the texture is a cube) and, when the op's whole LOD is the same for
/// every lane ([`quad_choice`]), its mip choice.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct QuadShared {
    pub lod: Option<f32>,
    pub chosen: Option<Chosen>,
}

/// [`sample`] for the code of `S` on a prepared texture: the one
/// implementation of every sampling op, which the interpreter runs as
/// [`Dyn`] per thread and the JIT's batch entries run per lane.
/// `quad`, when given, holds what the lanes of `a.quad` share
/// ([`QuadShared`]), computed by [`quad_choice`] once per quad.
#[inline(always)]
pub fn sample_with<S: Spec>(
    f: &Form,
    tex: &Texture,
    dim: SampleDim,
    s: &SamplerDesc,
    a: &SampleArgs,
    quad: QuadShared,
    cache: &mut BlockCache,
) -> [u32; 4] {
    let l = Lookup {
        dim,
        coord: floats(a.coord),
        offset: a.offset,
    };
    let reference = f.reference.map(|_| f32::from_bits(a.reference));
    if f.gather {
        return tex.gather::<S>(cache, s, &l, a.component, reference);
    }
    let in_quad = a.quad.is_some() || f.lod == LodSource::Zero;
    if let (Some(chosen), None, false, true) = (quad.chosen, a.min_lod, f.query, in_quad) {
        return tex
            .sample_chosen::<S>(cache, s, &l, &chosen, reference)
            .map(f32::to_bits);
    }
    let lod = lod_of(f, s, tex, &l, a, quad.lod);
    if f.query {
        let mips = tex.mips() as f32;
        let clamped = lod.clamp(0.0, mips - 1.0);
        return [clamped.to_bits(), lod.to_bits(), 0, 0];
    }
    let lod = a.min_lod.map_or(lod, |m| if m > lod { m } else { lod });
    tex.sample::<S>(cache, s, &l, lod, reference)
        .map(f32::to_bits)
}

/// The [`QuadShared`] of op `f` for a quad whose gradient LOD is
/// `quad_lod` (`None` outside a quad, or for cubes): with the mip choice
/// when the op's LOD does not depend on the lane ([`uniform_lod`]) and
/// the op has no per-lane LOD clamp (`clamped`).
#[inline(always)]
pub fn quad_choice<S: Spec>(
    f: &Form,
    tex: &Texture,
    s: &SamplerDesc,
    quad_lod: Option<f32>,
    clamped: bool,
) -> QuadShared {
    let uniform = uniform_lod(f, s, quad_lod).filter(|_| !clamped && !f.gather && !f.query);
    QuadShared {
        lod: quad_lod,
        chosen: uniform.map(|lod| tex.choose::<S>(s, lod)),
    }
}

/// The biased, clamped LOD of op `f` when it is the same for every lane
/// given the quad's gradient LOD `quad_lod` (when the lane is in a quad):
/// the zero-LOD forms, and the implicit forms without a bias operand.
#[inline(always)]
fn uniform_lod(f: &Form, s: &SamplerDesc, quad_lod: Option<f32>) -> Option<f32> {
    match f.lod {
        LodSource::Zero => Some(rules::clamp_lod(0.0, s)),
        LodSource::Implicit { bias: None } => quad_lod.map(|lod| rules::biased_lod(lod, 0.0, s)),
        _ => None,
    }
}

/// The biased, clamped LOD of a non-gather op.
#[inline(always)]
fn lod_of(
    f: &Form,
    s: &SamplerDesc,
    tex: &Texture,
    l: &Lookup,
    a: &SampleArgs,
    quad_lod: Option<f32>,
) -> f32 {
    if let Some(lod) = uniform_lod(f, s, quad_lod.filter(|_| a.quad.is_some())) {
        return lod;
    }
    let scalar = f32::from_bits(a.lod[0]);
    match f.lod {
        LodSource::Zero => rules::clamp_lod(0.0, s),
        LodSource::Explicit(_) => rules::biased_lod(scalar, 0.0, s),
        LodSource::Implicit { bias } => {
            let b = match bias {
                Some(_) => rules::instruction_bias(scalar),
                None => 0.0,
            };
            let lod = match (a.quad, quad_lod) {
                (None, _) => 0.0,
                (Some(_), Some(lod)) => lod,
                (Some((dx, dy)), None) => gradient_lod(tex, l.dim, l.coord, dx, dy),
            };
            rules::biased_lod(lod, b, s)
        }
        LodSource::Gradients(..) => {
            let lod = gradient_lod(tex, l.dim, l.coord, a.lod, a.ddy);
            rules::biased_lod(lod, 0.0, s)
        }
    }
}

/// The unbiased LOD of coordinate gradients `dx`, `dy` (f32 bits;
/// `sample_d`'s and the quad's): each scaled by the mip-0 size of the
/// used axes, cube directions (`coord`) first projected onto the face.
/// Only cubes read `coord`.
pub fn gradient_lod(
    tex: &Texture,
    dim: SampleDim,
    coord: [f32; 4],
    dx: [u32; 4],
    dy: [u32; 4],
) -> f32 {
    let (dx, dy) = (floats(dx), floats(dy));
    let size = tex.base_size();
    if matches!(dim, SampleDim::Cube | SampleDim::CubeArray) {
        // A face coordinate moves by d/(2|major|) per unit of direction.
        let (_, _, _, ma) = rules::cube_face([coord[0], coord[1], coord[2]]);
        let scale = if ma > 0.0 { 0.5 / ma } else { 0.0 };
        let g = |v: [f32; 4]| [v[0] * scale, v[1] * scale, v[2] * scale];
        rules::lod_from_gradients(g(dx), g(dy), [size[0]; 3], 3)
    } else {
        let d3 = |v: [f32; 4]| [v[0], v[1], v[2]];
        rules::lod_from_gradients(d3(dx), d3(dy), size, dim.axes())
    }
}

/// `ld`/`ld2dms` on a texture: `coords` (mip in `.w` for `ld`) plus the
/// `_aoffimmi` offsets on the texel axes, `sample` for `ld2dms`.
pub fn load(
    tex: &TextureData,
    dim: SampleDim,
    coords: [u32; 4],
    offsets: [i8; 3],
    multisample: Option<u32>,
) -> [u32; 4] {
    let tex = Texture::new(tex);
    load_with::<Dyn>(
        &tex,
        dim,
        coords,
        offsets,
        multisample,
        &mut BlockCache::default(),
    )
}

/// [`load`] for the code of `S` on a prepared texture.
#[inline(always)]
pub fn load_with<S: Spec>(
    tex: &Texture,
    dim: SampleDim,
    coords: [u32; 4],
    offsets: [i8; 3],
    multisample: Option<u32>,
    cache: &mut BlockCache,
) -> [u32; 4] {
    let coords = coords.map(|x| x as i32);
    let mut c = coords;
    for k in 0..dim.axes() {
        c[k] = c[k].wrapping_add(i32::from(offsets[k]));
    }
    let (mip, sample) = match multisample {
        Some(s) => (0, s),
        None => (coords[3] as u32, 0),
    };
    tex.load::<S>(cache, dim, c, mip, sample)
}

/// Formats with their own decode in the specialised entries; other
/// formats (BC1–BC7 among them: their block decode is one call either
/// way, shared through [`BlockCache`]) use the view's format at run time.
pub const SPECIALISED_FORMATS: [Format; 10] = [
    Format::R8G8B8A8Unorm,
    Format::R8G8B8A8UnormSrgb,
    Format::B8G8R8A8Unorm,
    Format::B8G8R8A8UnormSrgb,
    Format::R8Unorm,
    Format::R8G8Unorm,
    Format::R16G16B16A16Float,
    Format::R32Float,
    Format::R32G32B32A32Float,
    Format::R11G11B10Float,
];

/// The format index of a [`Fixed`] spec: a position in
/// [`SPECIALISED_FORMATS`], or [`ANY`].
const ANY: u8 = u8::MAX;

/// The (min and mag, mip) filters of a [`Fixed`] spec's filter index.
const fn filter_of(i: u8) -> (FilterMode, FilterMode) {
    match i {
        0 => (FilterMode::Point, FilterMode::Point),
        1 => (FilterMode::Linear, FilterMode::Linear),
        _ => (FilterMode::Linear, FilterMode::Point),
    }
}

const fn address_of(i: u8) -> AddressMode {
    match i {
        0 => AddressMode::Wrap,
        1 => AddressMode::Mirror,
        2 => AddressMode::Clamp,
        3 => AddressMode::Border,
        _ => AddressMode::MirrorOnce,
    }
}

/// A specialised entry's spec: format `F` (an index of
/// [`SPECIALISED_FORMATS`] or [`ANY`]), filter `M` (min and mag / mip:
/// 0 point / point, 1 linear / linear, 2 linear / point) and address mode `A` (wrap, mirror, clamp,
/// border, mirror-once) on every axis.
#[derive(Clone, Copy, Debug)]
pub struct Fixed<const F: u8, const M: u8, const A: u8>;

impl<const F: u8, const M: u8, const A: u8> Spec for Fixed<F, M, A> {
    const FORMAT: Option<Format> = if F == ANY {
        None
    } else {
        Some(SPECIALISED_FORMATS[F as usize])
    };
    const FILTER: Option<(FilterMode, FilterMode)> = Some(filter_of(M));
    const ADDRESS: Option<AddressMode> = Some(address_of(A));
}

/// Something generic over a [`Spec`]: [`with_spec`] runs it with the
/// spec that fits a binding.
pub trait SpecUser {
    type Out;
    fn run<S: Spec>(self) -> Self::Out;
}

/// Runs `u` with the [`Fixed`] spec of (format, sampler), or with [`Dyn`]
/// when the sampler's filters are not one of [`Fixed`]'s (min ≠ mag, or
/// point min and mag with a linear mip filter) or it mixes address modes on
/// the axes `dim` uses (at least u and v; cubes always clamp). Which spec ran is
/// returned beside `u`'s output (its name, for coverage reports).
pub fn with_spec<U: SpecUser>(
    format: Format,
    s: &SamplerDesc,
    dim: SampleDim,
    u: U,
) -> (U::Out, SpecName) {
    let fi = SPECIALISED_FORMATS
        .iter()
        .position(|f| *f == format)
        .map_or(ANY, |i| i as u8);
    let (min, mag, mip) = s.filter.modes();
    let filter = match (min, mag, mip) {
        (FilterMode::Point, FilterMode::Point, FilterMode::Point) => Some(0),
        (FilterMode::Linear, FilterMode::Linear, FilterMode::Linear) => Some(1),
        (FilterMode::Linear, FilterMode::Linear, FilterMode::Point) => Some(2),
        _ => None,
    };
    let cube = matches!(dim, SampleDim::Cube | SampleDim::CubeArray);
    // Gathers address two axes whatever the dimension.
    let used = &s.address()[..dim.axes().max(2)];
    let address = if cube {
        Some(AddressMode::Clamp)
    } else {
        used.iter().all(|a| *a == used[0]).then_some(used[0])
    };
    let (Some(filter), Some(address)) = (filter, address) else {
        return (u.run::<Dyn>(), SpecName::General);
    };
    let name = SpecName::Fixed {
        format: (fi != ANY).then_some(format),
        filter: filter_of(filter),
        address,
    };
    macro_rules! by_address {
        ($f:expr, $m:expr) => {
            match address {
                AddressMode::Wrap => u.run::<Fixed<$f, $m, 0>>(),
                AddressMode::Mirror => u.run::<Fixed<$f, $m, 1>>(),
                AddressMode::Clamp => u.run::<Fixed<$f, $m, 2>>(),
                AddressMode::Border => u.run::<Fixed<$f, $m, 3>>(),
                AddressMode::MirrorOnce => u.run::<Fixed<$f, $m, 4>>(),
            }
        };
    }
    macro_rules! by_filter {
        ($f:expr) => {
            match filter {
                0 => by_address!($f, 0),
                1 => by_address!($f, 1),
                _ => by_address!($f, 2),
            }
        };
    }
    let out = match fi {
        0 => by_filter!(0),
        1 => by_filter!(1),
        2 => by_filter!(2),
        3 => by_filter!(3),
        4 => by_filter!(4),
        5 => by_filter!(5),
        6 => by_filter!(6),
        7 => by_filter!(7),
        8 => by_filter!(8),
        9 => by_filter!(9),
        _ => by_filter!(ANY),
    };
    (out, name)
}

/// Which entry [`with_spec`] chose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpecName {
    /// The general path.
    General,
    /// A specialised entry; `format: None` decodes the view's format.
    Fixed {
        format: Option<Format>,
        /// Min and mag, mip.
        filter: (FilterMode, FilterMode),
        address: AddressMode,
    },
}

/// The four words `resinfo[_uint|_rcpFloat]` returns before the resource
/// swizzle: (width, height, depth or array size, mip count) at `mip`, as
/// floats, `_rcpFloat` (`ret_type` 1: 1/size for the sized dimensions) or
/// integers (`ret_type` 2). A u# reports one mip; a mip out of range gives
/// sizes 0 with the mip count; no texture gives zeros. Shared by the
/// interpreter and the JIT's shim.
pub fn resinfo_result(
    tex: Option<&TextureView>,
    is_uav: bool,
    declared: Option<ResourceDim>,
    mip: u32,
    ret_type: u32,
) -> [u32; 4] {
    let (dims, sized, mips) = match tex {
        Some(tv) => {
            let mips = if is_uav { 1 } else { tv.mip_levels.max(1) };
            let level = if mip < mips { tv.mip(mip) } else { None };
            let (d, sized) = match level {
                Some(m) => resinfo_dims(declared, tv, &m),
                None => ([0; 3], [false; 3]),
            };
            (d, sized, mips)
        }
        None => ([0; 3], [false; 3], 0),
    };
    let raw = [dims[0], dims[1], dims[2], mips];
    match ret_type {
        2 => raw,
        1 => std::array::from_fn(|k| {
            let x = raw[k] as f32;
            if k < 3 && sized[k] {
                crate::sem::float::rcp(x).to_bits()
            } else {
                x.to_bits()
            }
        }),
        _ => raw.map(|x| (x as f32).to_bits()),
    }
}

/// resinfo's (width, height, depth-or-array) of mip `m` and which of them
/// `_rcpFloat` inverts, by the declared dimension (else the view's).
pub fn resinfo_dims(
    declared: Option<ResourceDim>,
    tv: &TextureView,
    m: &MipLayout,
) -> ([u32; 3], [bool; 3]) {
    let arr = tv.depth_or_array.max(1);
    let dim = match declared {
        Some(d) if d != ResourceDim::Unknown && d != ResourceDim::Buffer => dim_of_resource(d),
        _ => SampleDim::of_view(tv.dim),
    };
    match dim {
        SampleDim::D1 => ([m.width, 0, 0], [true, false, false]),
        SampleDim::D1Array => ([m.width, arr, 0], [true, false, false]),
        SampleDim::D2 | SampleDim::Cube => ([m.width, m.height, 0], [true, true, false]),
        SampleDim::D2Array => ([m.width, m.height, arr], [true, true, false]),
        SampleDim::CubeArray => ([m.width, m.height, arr / 6], [true, true, false]),
        SampleDim::D3 => ([m.width, m.height, m.layers], [true, true, true]),
    }
}

fn dim_of_resource(d: ResourceDim) -> SampleDim {
    match d {
        ResourceDim::Texture1D => SampleDim::D1,
        ResourceDim::Texture1DArray => SampleDim::D1Array,
        ResourceDim::Texture2DArray | ResourceDim::Texture2DMSArray => SampleDim::D2Array,
        ResourceDim::Texture3D => SampleDim::D3,
        ResourceDim::TextureCube => SampleDim::Cube,
        ResourceDim::TextureCubeArray => SampleDim::CubeArray,
        _ => SampleDim::D2,
    }
}

/// The sample count sampleinfo reports for a bound view.
pub fn sample_count(view: Option<View>) -> u32 {
    match view {
        Some(View::Texture(tv)) => tv.dim.samples(),
        Some(View::Buffer(_)) => 1,
        None => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Opcode;
    use crate::runtime::{ComparisonFunc, Filter, TextureDim};

    /// Runs base op `op` through the spec `with_spec` picks.
    struct Pick<'a> {
        f: Form,
        tex: &'a Texture<'a>,
        dim: SampleDim,
        s: &'a SamplerDesc,
        a: &'a SampleArgs,
    }

    impl SpecUser for Pick<'_> {
        /// The entry's result, and [`sample_lod_free`]'s when the choice
        /// is LOD-free and the op neither gathers nor queries.
        type Out = ([u32; 4], Option<[u32; 4]>);
        fn run<S: Spec>(self) -> Self::Out {
            let mut cache = BlockCache::default();
            let cube = matches!(self.dim, SampleDim::Cube | SampleDim::CubeArray);
            let lod = match self.a.quad {
                Some((dx, dy)) if !cube => Some(gradient_lod(self.tex, self.dim, [0.0; 4], dx, dy)),
                _ => None,
            };
            let quad = quad_choice::<S>(&self.f, self.tex, self.s, lod, false);
            let got = sample_with::<S>(
                &self.f, self.tex, self.dim, self.s, self.a, quad, &mut cache,
            );
            let free = lod_free_choice(&self.f, self.tex, self.s);
            let lod_free = free.map(|c| {
                let a = self.a;
                let (f, t, d, s) = (&self.f, self.tex, self.dim, self.s);
                sample_lod_free::<S>(f, t, d, s, &c, a.coord, a.offset, a.reference, &mut cache)
            });
            (got, lod_free)
        }
    }

    /// The shapes the test samples: (view type, size, mips).
    const SHAPES: [(TextureDim, [u32; 3], u32); 7] = [
        (TextureDim::Tex2D, [5, 7, 1], 3),
        (TextureDim::Tex2D, [5, 7, 1], 1),
        (TextureDim::Tex2DArray, [3, 2, 2], 1),
        (TextureDim::Tex2D, [1, 1, 1], 1),
        (TextureDim::Tex2DArray, [6, 3, 3], 2),
        (TextureDim::TexCube, [4, 4, 6], 3),
        (TextureDim::Tex1D, [9, 1, 1], 2),
    ];

    /// Every specialised entry, and the general path with the direct
    /// two-axis reads ([`Texture`]'s levels that lie in memory), against
    /// the general path with every read checked, on each shape with its
    /// memory whole or cut short (the last levels then not direct), for
    /// every filter and address mode and coordinates, offsets, LODs,
    /// gradients, LOD clamps and references around texel centres and
    /// edges, huge, infinite and NaN; and [`sample_lod_free`] against the
    /// same wherever the texture and sampler make the mip choice LOD-free.
    #[test]
    fn every_specialised_entry_gives_the_general_paths_bits() {
        let mut x = 0x9E37_79B9u32;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        };
        let coords = [
            -1.3f32,
            -0.01,
            0.0,
            0.2,
            0.49,
            0.5,
            0.77,
            1.0,
            1.6,
            7.25,
            1e30,
            f32::NAN,
            -1e30,
            f32::INFINITY,
            f32::NEG_INFINITY,
            2.6,
            0.1,
            -0.6,
            0.625,
        ];
        let ops = [
            Opcode::Sample,
            Opcode::SampleL,
            Opcode::SampleB,
            Opcode::SampleD,
            Opcode::SampleC,
            Opcode::SampleCLz,
            Opcode::Gather4,
            Opcode::Gather4C,
            Opcode::Lod,
        ];
        let formats = SPECIALISED_FORMATS.iter().chain(&[
            Format::Bc1Unorm,
            Format::Bc7UnormSrgb,
            Format::R16G16Unorm,
        ]);
        let filter = |min, mag, mip| Filter {
            min,
            mag,
            mip,
            anisotropic: false,
        };
        let (p, l) = (FilterMode::Point, FilterMode::Linear);
        let filters = [
            filter(p, p, p),
            filter(l, l, l),
            filter(l, l, p),
            filter(p, l, l),
        ];
        let funcs = [
            ComparisonFunc::LessEqual,
            ComparisonFunc::Greater,
            ComparisonFunc::Equal,
            ComparisonFunc::Never,
        ];
        let (mut fixed, mut lod_free) = (0, 0);
        for &format in formats {
            for (dim, size, mips) in SHAPES {
                let view = TextureView::packed(dim, format, size, mips);
                for cut in [0, 3] {
                    let len = (view.size_bytes() as usize).saturating_sub(cut);
                    let bytes: Vec<u8> = (0..len).map(|_| next() as u8).collect();
                    let tex = Texture::new(&TextureData { view, data: &bytes });
                    let checked = tex.checked_only();
                    let sdim = SampleDim::of_view(dim);
                    for filter in filters {
                        for address in [
                            AddressMode::Wrap,
                            AddressMode::Mirror,
                            AddressMode::Clamp,
                            AddressMode::Border,
                            AddressMode::MirrorOnce,
                        ] {
                            for op in ops {
                                let f = op.sample_form().expect("a sample-class op");
                                for k in 0..24 {
                                    let s = SamplerDesc {
                                        filter,
                                        border_color: [0.25, f32::NAN, 2.0, -1.0],
                                        comparison: funcs[k % funcs.len()],
                                        mip_lod_bias: [0.0, 0.5, -0.25][k % 3],
                                        ..SamplerDesc::new(filter, address)
                                    };
                                    let c = |k: usize| coords[k % coords.len()].to_bits();
                                    let g = |k: usize| (0.02 * (k % 13) as f32).to_bits();
                                    let a = SampleArgs {
                                        coord: [c(k), c(k * 7 + 3), c(k * 5 + 1), c(k * 3 + 2)],
                                        offset: [(k % 5) as i32 - 2, (k % 3) as i32 - 1, 0],
                                        reference: [0.5f32, 0.0, 1.0, f32::NAN][k % 4].to_bits(),
                                        lod: [(k as f32 * 0.37 - 1.0).to_bits(), g(k), 0, 0],
                                        ddy: [g(k + 5), g(k + 1), 0, 0],
                                        component: k % 4,
                                        min_lod: (k % 4 == 1).then_some(k as f32 * 0.3 - 1.0),
                                        quad: Some((
                                            [g(k), g(k + 3), 0, 0],
                                            [g(k + 7), g(k), 0, 0],
                                        )),
                                    };
                                    let pick = Pick {
                                        f,
                                        tex: &tex,
                                        dim: sdim,
                                        s: &s,
                                        a: &a,
                                    };
                                    let ((got, free), name) = with_spec(format, &s, sdim, pick);
                                    fixed += usize::from(name != SpecName::General);
                                    let run = |t: &Texture| {
                                        let mut cache = BlockCache::default();
                                        let quad = QuadShared::default();
                                        sample_with::<Dyn>(&f, t, sdim, &s, &a, quad, &mut cache)
                                    };
                                    let want = run(&checked);
                                    let what =
                                        format!("{format:?} {view:?} {cut} {s:?} {op:?} {a:?}");
                                    assert_eq!(got, want, "{what} ({name:?})");
                                    if let Some(free) = free {
                                        assert_eq!(free, want, "{what} (LOD-free, {name:?})");
                                        lod_free += 1;
                                    }
                                    assert_eq!(run(&tex), want, "{what} (general, direct)");
                                }
                            }
                        }
                    }
                }
            }
        }
        assert!(fixed > 0);
        assert!(lod_free > 0);
    }

    #[test]
    fn quad_gradients_are_coarse_and_ignore_the_bottom_right_lane() {
        let c = |x: f32, y: f32| [x.to_bits(), y.to_bits(), 0, 0];
        let (dx, dy) = quad_gradients([c(1.0, 2.0), c(1.5, 2.0), c(1.0, 2.25), c(99.0, -9.0)]);
        assert_eq!(dx, c(0.5, 0.0));
        assert_eq!(dy, c(0.0, 0.25));
    }
}
