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

use crate::ir::{Instruction, Opcode, Operand, OperandType, ProgramKind};
use crate::ir::{LodSource, SampleForm, SampleInst};
use crate::runtime::sampling::{self as shared, SampleArgs};
use crate::runtime::texture::SampleDim;
use crate::runtime::{RuntimeError, SamplerDesc, TextureData, TextureView};
use crate::sem::sample as rules;

use super::exec_alu::{operand, src, write};
use super::exec_memory::FULLY_MAPPED;
use super::resources::Target;
use super::thread::{Ctx, Thread, Ty};
use crate::analysis::ResKind;

pub fn exec(
    cx: &mut Ctx,
    t: &mut Thread,
    op: SampleInst,
    inst: &Instruction,
    i: usize,
) -> Result<(), RuntimeError> {
    use SampleInst::*;
    match op {
        Sample | SampleC | SampleCLz | SampleL | SampleD | SampleB | Lod | Gather4 | Gather4C
        | Gather4Po | Gather4PoC => run(cx, t, inst, i, None),
        Gather4S | Gather4CS | Gather4PoS | Gather4PoCS | SampleLS | SampleCLzS | SampleClS
        | SampleBClS | SampleDClS | SampleCClS => feedback(cx, t, inst, i),
    }
}

/// A `_s` form: its base op (the table's `Form::Feedback`) without the
/// status operand and LOD clamp, then [`FULLY_MAPPED`] in the status.
fn feedback(
    cx: &mut Ctx,
    t: &mut Thread,
    inst: &Instruction,
    i: usize,
) -> Result<(), RuntimeError> {
    if let Some((base_op, clamped)) = inst.opcode.feedback_base() {
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
    let f = inst
        .opcode
        .sample_form()
        .ok_or_else(|| unsupported(i, inst.opcode.mnemonic().into()))?;
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
    f: &SampleForm,
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
