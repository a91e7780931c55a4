//! One sampling instruction on one thread, shared by the interpreter and
//! the JIT: operand positions, LOD source, the sampler slot and the
//! filtered (or gathered, or queried) result.
//!
//! In: a sample-class opcode and one lane's operand values
//! ([`SampleArgs`], raw DWORDs after swizzle and modifiers), the bound
//! texture, the declared dimension and the sampler state. Out: the four
//! result DWORDs before the resource swizzle. Invariant: both engines route
//! operands here and nowhere else, so their texels, weights and LODs are
//! the same function; every texel read goes through
//! [`TextureData`](super::TextureData)'s checked fetch.

use crate::ir::{Decl, Opcode, ResourceDim};
use crate::runtime::texture::{Lookup, SampleDim};
use crate::runtime::{RuntimeError, SamplerDesc, Slot, TextureData, TextureView};
use crate::sem::sample as rules;

/// The value `*_s` ops write to their status destination. No view here
/// is tiled, so every access is fully mapped; `check_access_fully_mapped`
/// tests for this value.
pub const FULLY_MAPPED: u32 = 0xFFFF_FFFF;

/// How an op finds its LOD.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LodSource {
    /// From derivatives (0 in a single invocation), plus an optional bias operand.
    Implicit {
        bias: Option<usize>,
    },
    Explicit(usize),
    Gradients(usize, usize),
    Zero,
}

/// Operand positions of one sampling op (after any feedback status is removed).
#[derive(Clone, Copy, Debug)]
pub struct Form {
    pub offset: Option<usize>,
    pub res: usize,
    pub samp: usize,
    pub reference: Option<usize>,
    pub lod: LodSource,
    pub gather: bool,
    pub query: bool,
}

/// The operand layout of a base (non-feedback) sampling op.
pub fn form(op: Opcode) -> Option<Form> {
    use LodSource::*;
    let f = |lod, reference| Form {
        offset: None,
        res: 2,
        samp: 3,
        reference,
        lod,
        gather: false,
        query: false,
    };
    Some(match op {
        Opcode::Sample => f(Implicit { bias: None }, None),
        Opcode::SampleB => f(Implicit { bias: Some(4) }, None),
        Opcode::SampleL => f(Explicit(4), None),
        Opcode::SampleD => f(Gradients(4, 5), None),
        Opcode::SampleC => f(Implicit { bias: None }, Some(4)),
        Opcode::SampleCLz => f(Zero, Some(4)),
        Opcode::Lod => Form {
            query: true,
            ..f(Implicit { bias: None }, None)
        },
        Opcode::Gather4 | Opcode::Gather4C => Form {
            gather: true,
            ..f(Zero, (op == Opcode::Gather4C).then_some(4))
        },
        Opcode::Gather4Po | Opcode::Gather4PoC => Form {
            offset: Some(2),
            res: 3,
            samp: 4,
            gather: true,
            ..f(Zero, (op == Opcode::Gather4PoC).then_some(5))
        },
        _ => return None,
    })
}

/// The base op of a feedback (`_s`) form and whether it ends in a LOD clamp.
pub fn feedback_base(op: Opcode) -> Option<(Opcode, bool)> {
    Some(match op {
        Opcode::Gather4S => (Opcode::Gather4, false),
        Opcode::Gather4CS => (Opcode::Gather4C, false),
        Opcode::Gather4PoS => (Opcode::Gather4Po, false),
        Opcode::Gather4PoCS => (Opcode::Gather4PoC, false),
        Opcode::SampleLS => (Opcode::SampleL, false),
        Opcode::SampleCLzS => (Opcode::SampleCLz, false),
        Opcode::SampleClS => (Opcode::Sample, true),
        Opcode::SampleBClS => (Opcode::SampleB, true),
        Opcode::SampleDClS => (Opcode::SampleD, true),
        Opcode::SampleCClS => (Opcode::SampleC, true),
        _ => return None,
    })
}

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
pub fn quad_gradients(coords: [[u32; 4]; 4]) -> ([u32; 4], [u32; 4]) {
    use crate::sem::quad::{deriv, Deriv};
    let of = |kind| std::array::from_fn(|c| deriv(kind, coords.map(|v| v[c]))[0]);
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
/// swizzle. Implicit LODs use the quad's gradients (`a.quad`), or none
/// (LOD 0 + biases) in a single invocation; the caller rejects them in
/// compute programs.
pub fn sample(
    f: &Form,
    tex: &TextureData,
    dim: SampleDim,
    s: &SamplerDesc,
    a: &SampleArgs,
) -> [u32; 4] {
    let l = Lookup {
        dim,
        coord: floats(a.coord),
        offset: a.offset,
    };
    let reference = f.reference.map(|_| f32::from_bits(a.reference));
    if f.gather {
        return tex.gather(s, &l, a.component, reference);
    }
    let lod = lod_of(f, s, tex, &l, a);
    if f.query {
        let mips = tex.mips() as f32;
        let clamped = lod.clamp(0.0, mips - 1.0);
        return [clamped.to_bits(), lod.to_bits(), 0, 0];
    }
    let lod = a.min_lod.map_or(lod, |m| if m > lod { m } else { lod });
    tex.sample(s, &l, lod, reference).map(f32::to_bits)
}

/// The biased, clamped LOD of a non-gather op.
fn lod_of(f: &Form, s: &SamplerDesc, tex: &TextureData, l: &Lookup, a: &SampleArgs) -> f32 {
    let scalar = f32::from_bits(a.lod[0]);
    match f.lod {
        LodSource::Zero => rules::clamp_lod(0.0, s),
        LodSource::Explicit(_) => rules::biased_lod(scalar, 0.0, s),
        LodSource::Implicit { bias } => {
            let b = match bias {
                Some(_) => rules::instruction_bias(scalar),
                None => 0.0,
            };
            let lod = a
                .quad
                .map_or(0.0, |(dx, dy)| gradient_lod(tex, l, floats(dx), floats(dy)));
            rules::biased_lod(lod, b, s)
        }
        LodSource::Gradients(..) => {
            let lod = gradient_lod(tex, l, floats(a.lod), floats(a.ddy));
            rules::biased_lod(lod, 0.0, s)
        }
    }
}

/// The unbiased LOD of coordinate gradients `dx`, `dy` (`sample_d`'s and
/// the quad's): each scaled by the mip-0 size of the used axes, cube
/// directions first projected onto the face.
fn gradient_lod(tex: &TextureData, l: &Lookup, dx: [f32; 4], dy: [f32; 4]) -> f32 {
    let size = tex.base_size();
    if matches!(l.dim, SampleDim::Cube | SampleDim::CubeArray) {
        // A face coordinate moves by d/(2|major|) per unit of direction.
        let (_, _, _, ma) = rules::cube_face([l.coord[0], l.coord[1], l.coord[2]]);
        let scale = if ma > 0.0 { 0.5 / ma } else { 0.0 };
        let g = |v: [f32; 4]| [v[0] * scale, v[1] * scale, v[2] * scale];
        rules::lod_from_gradients(g(dx), g(dy), [size[0]; 3], 3)
    } else {
        let d3 = |v: [f32; 4]| [v[0], v[1], v[2]];
        rules::lod_from_gradients(d3(dx), d3(dy), size, l.dim.axes())
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
    let coords = coords.map(|x| x as i32);
    let mut c = coords;
    for k in 0..dim.axes() {
        c[k] = c[k].wrapping_add(i32::from(offsets[k]));
    }
    let (mip, sample) = match multisample {
        Some(s) => (0, s),
        None => (coords[3] as u32, 0),
    };
    tex.load(dim, c, mip, sample)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quad_gradients_are_coarse_and_ignore_the_bottom_right_lane() {
        let c = |x: f32, y: f32| [x.to_bits(), y.to_bits(), 0, 0];
        let (dx, dy) = quad_gradients([c(1.0, 2.0), c(1.5, 2.0), c(1.0, 2.25), c(99.0, -9.0)]);
        assert_eq!(dx, c(0.5, 0.0));
        assert_eq!(dy, c(0.0, 0.25));
    }
}
