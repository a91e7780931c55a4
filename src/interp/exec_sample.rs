//! Texture instructions: ld/ld2dms on texture SRVs, sample, sample_b,
//! sample_l, sample_d, sample_c, sample_c_lz, lod, gather4, gather4_c,
//! gather4_po, gather4_po_c, their `_s` feedback forms (with `_cl` LOD
//! clamps), and the resinfo dimensions of every texture dimension.
//!
//! In: a sample-class instruction (or a texture `ld`). Out: its destination
//! (and feedback status). Invariant: this module only routes operands;
//! every sampling op and texture load is [`crate::runtime::sampling`],
//! the same function the JIT's texture shim calls per lane. An unbound
//! t# reads zeros; an unbound s# is the D3D11 default sampler. Implicit-LOD
//! ops (`sample`, `sample_b`, `sample_c`, `lod`) have no derivatives in a
//! compute shader and are rejected there; in a pixel quad they take the
//! quad's coordinate gradients ([`Ctx::quad_grad`], set by `quad.rs`); in
//! a single pixel invocation their LOD comes from the biases alone.

use crate::ir::{Instruction, Opcode, Operand, OperandType, ProgramKind, ResourceDim};
use crate::runtime::sampling::{self as shared, feedback_base, form, LodSource, SampleArgs};
use crate::runtime::texture::SampleDim;
use crate::runtime::{MipLayout, RuntimeError, SamplerDesc, TextureData, TextureView, View};
use crate::sem::sample as rules;

use super::exec_alu::{operand, src, write};
use super::exec_memory::FULLY_MAPPED;
use super::prepare::ResKind;
use super::resources::Target;
use super::thread::{Ctx, Thread, Ty};

pub fn exec(
    cx: &mut Ctx,
    t: &mut Thread,
    inst: &Instruction,
    i: usize,
) -> Result<(), RuntimeError> {
    if let Some((base_op, clamped)) = feedback_base(inst.opcode) {
        let status = operand(inst, 1)?.clone();
        let mut base = inst.clone();
        base.operands.remove(1);
        base.opcode = base_op;
        let min_lod = if clamped {
            let last = base.operands.len().saturating_sub(1);
            let v = f32::from_bits(src(cx, t, &base, last, Ty::Float)?[0]);
            base.operands.truncate(last);
            Some(v)
        } else {
            None
        };
        run(cx, t, &base, i, min_lod)?;
        cx.write(t, &status, [FULLY_MAPPED; 4]);
        return Ok(());
    }
    run(cx, t, inst, i, None)
}

fn unsupported(i: usize, what: String) -> RuntimeError {
    RuntimeError::Unsupported {
        inst_index: i,
        what,
    }
}

/// The declared (or else the view's) sampling dimension of a t# operand.
fn sample_dim(cx: &Ctx, t: &Thread, res: &Operand, view: &TextureView) -> SampleDim {
    let declared = cx.decl_of(t, res).and_then(|d| match d.kind {
        ResKind::Typed { dim, .. } => Some(dim),
        _ => None,
    });
    shared::sample_dim(declared, view)
}

/// The bound texture behind a t# operand, if any.
fn texture<'c>(cx: &'c Ctx, t: &Thread, res: &Operand) -> Option<TextureData<'c>> {
    match cx.target(t, res) {
        Target::Srv(slot) => cx.b.get_texture(slot),
        _ => None,
    }
}

fn sampler(cx: &Ctx, t: &Thread, op: &Operand) -> SamplerDesc {
    let at = |k: usize| op.indices.get(k).map(|x| cx.index(t, x));
    let slot = shared::sampler_slot(&cx.p.program.decls, cx.p.version().is_sm51(), at(0), at(1));
    slot.map_or_else(SamplerDesc::default, |s| cx.b.get_sampler(s))
}

/// Writes `v` swizzled by the resource operand.
fn write_swizzled(
    cx: &Ctx,
    t: &mut Thread,
    inst: &Instruction,
    res: &Operand,
    v: [u32; 4],
) -> Result<(), RuntimeError> {
    let s = res.swizzle();
    let out = std::array::from_fn(|c| v[s[c] as usize & 3]);
    write(cx, t, inst, 0, out, inst.saturate())
}

fn run(
    cx: &mut Ctx,
    t: &mut Thread,
    inst: &Instruction,
    i: usize,
    min_lod: Option<f32>,
) -> Result<(), RuntimeError> {
    let f = form(inst.opcode).ok_or_else(|| unsupported(i, inst.opcode.mnemonic().into()))?;
    if matches!(f.lod, LodSource::Implicit { .. }) && cx.p.version().kind == ProgramKind::Compute {
        return Err(shared::no_derivatives(i, inst.opcode));
    }
    let res = operand(inst, f.res)?;
    let Some(tex) = texture(cx, t, res) else {
        return write_swizzled(cx, t, inst, res, [0; 4]);
    };
    let samp_op = operand(inst, f.samp)?;
    let s = sampler(cx, t, samp_op);
    let dim = sample_dim(cx, t, res, &tex.view);
    let args = args(cx, t, inst, &f, samp_op, min_lod)?;
    let v = shared::sample(&f, &tex, dim, &s, &args);
    write_swizzled(cx, t, inst, res, v)
}

/// The operand values of one sampling op.
fn args(
    cx: &Ctx,
    t: &Thread,
    inst: &Instruction,
    f: &shared::Form,
    samp_op: &Operand,
    min_lod: Option<f32>,
) -> Result<SampleArgs, RuntimeError> {
    let fl = |k| src(cx, t, inst, k, Ty::Float);
    let offset = match f.offset {
        Some(k) => {
            let o = src(cx, t, inst, k, Ty::Int)?;
            [o[0], o[1], o[2]].map(rules::gather_offset)
        }
        None => inst.texel_offsets().map(i32::from),
    };
    let reference = match f.reference {
        Some(k) => fl(k)?[0],
        None => 0,
    };
    let (lod, ddy) = match f.lod {
        LodSource::Zero | LodSource::Implicit { bias: None } => ([0; 4], [0; 4]),
        LodSource::Explicit(k) | LodSource::Implicit { bias: Some(k) } => (fl(k)?, [0; 4]),
        LodSource::Gradients(kx, ky) => (fl(kx)?, fl(ky)?),
    };
    Ok(SampleArgs {
        coord: fl(1)?,
        offset,
        reference,
        lod,
        ddy,
        min_lod,
        component: samp_op.swizzle()[0] as usize & 3,
        quad: match f.lod {
            LodSource::Implicit { .. } => cx.quad_grad,
            _ => None,
        },
    })
}

/// True if `ld`/`ld2dms` reads a texture SRV (handled here, not as a buffer).
pub fn is_texture_load(cx: &Ctx, t: &Thread, inst: &Instruction) -> bool {
    inst.operands
        .get(2)
        .is_some_and(|res| res.ty == OperandType::Resource && texture(cx, t, res).is_some())
}

/// ld d, coords (mip in .w), t# [+ _aoffimmi] / ld2dms d, coords, t#, sample.
pub fn ld(cx: &mut Ctx, t: &mut Thread, inst: &Instruction) -> Result<(), RuntimeError> {
    let coords = src(cx, t, inst, 1, Ty::Int)?;
    let res = operand(inst, 2)?;
    let Some(tex) = texture(cx, t, res) else {
        return write_swizzled(cx, t, inst, res, [0; 4]);
    };
    let dim = sample_dim(cx, t, res, &tex.view);
    let sample = if inst.opcode == Opcode::LdMs {
        Some(src(cx, t, inst, 3, Ty::Int)?[0])
    } else {
        None
    };
    let v = shared::load(&tex, dim, coords, inst.texel_offsets(), sample);
    write_swizzled(cx, t, inst, res, v)
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
