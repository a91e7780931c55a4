//! Texture instructions: ld/ld2dms on texture SRVs, sample, sample_b,
//! sample_l, sample_d, sample_c, sample_c_lz, lod, gather4, gather4_c,
//! gather4_po, gather4_po_c, their `_s` feedback forms (with `_cl` LOD
//! clamps), and the resinfo dimensions of every texture dimension.
//!
//! In: a sample-class instruction (or a texture `ld`). Out: its destination
//! (and feedback status). Invariant: this module only routes operands; the
//! texel, filter and LOD rules are [`crate::runtime::texture`] and
//! [`crate::sem::sample`] functions the JIT can call per lane. An unbound
//! t# reads zeros; an unbound s# is the D3D11 default sampler. Implicit-LOD
//! ops (`sample`, `sample_b`, `sample_c`, `lod`) have no derivatives in a
//! compute shader and are rejected there; in a single pixel invocation the
//! derivatives are 0, so their LOD comes from the biases alone.

use crate::ir::{Decl, Instruction, Opcode, Operand, OperandType, ProgramKind, ResourceDim};
use crate::runtime::texture::{Lookup, SampleDim};
use crate::runtime::{MipLayout, RuntimeError, SamplerDesc, Slot, TextureData, TextureView, View};
use crate::sem::sample as rules;

use super::exec_alu::{operand, src, write};
use super::exec_memory::FULLY_MAPPED;
use super::prepare::ResKind;
use super::resources::Target;
use super::thread::{Ctx, Thread, Ty};

/// How an op finds its LOD.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LodSource {
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
struct Form {
    offset: Option<usize>,
    res: usize,
    samp: usize,
    reference: Option<usize>,
    lod: LodSource,
    gather: bool,
    query: bool,
}

fn form(op: Opcode) -> Option<Form> {
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
fn feedback_base(op: Opcode) -> Option<(Opcode, bool)> {
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

/// The bound texture behind a t# operand, if any.
fn texture<'c>(cx: &'c Ctx, t: &Thread, res: &Operand) -> Option<TextureData<'c>> {
    match cx.target(t, res) {
        Target::Srv(slot) => cx.b.get_texture(slot),
        _ => None,
    }
}

/// The s# slot: `s#` before SM5.1, `S#[id][register]` in the declared space after.
fn sampler_slot(cx: &Ctx, t: &Thread, op: &Operand) -> Option<Slot> {
    let at = |k: usize| op.indices.get(k).map(|x| cx.index(t, x));
    if !cx.p.version().is_sm51() {
        return Some(Slot::new(u32::try_from(at(0)?).ok()?));
    }
    let id = at(0)?;
    let space = cx.p.program.decls.iter().find_map(|d| match d {
        Decl::Sampler { op, space, .. } if op.imm_index(0).map(u64::from) == Some(id) => {
            Some(*space)
        }
        _ => None,
    })?;
    Some(Slot {
        space,
        index: u32::try_from(at(1)?).ok()?,
    })
}

fn sampler(cx: &Ctx, t: &Thread, op: &Operand) -> SamplerDesc {
    sampler_slot(cx, t, op).map_or_else(SamplerDesc::default, |s| cx.b.get_sampler(s))
}

fn floats(v: [u32; 4]) -> [f32; 4] {
    v.map(f32::from_bits)
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
        return Err(RuntimeError::InvalidProgram {
            inst_index: Some(i),
            reason: format!(
                "{} needs derivatives, which a compute shader does not have",
                inst.opcode.mnemonic()
            ),
        });
    }
    let res = operand(inst, f.res)?;
    let Some(tex) = texture(cx, t, res) else {
        return write_swizzled(cx, t, inst, res, [0; 4]);
    };
    let samp_op = operand(inst, f.samp)?;
    let s = sampler(cx, t, samp_op);
    let dim = sample_dim(cx, t, res, &tex.view);
    let coord = floats(src(cx, t, inst, 1, Ty::Float)?);
    let offset = match f.offset {
        Some(k) => {
            let o = src(cx, t, inst, k, Ty::Int)?;
            [o[0], o[1], o[2]].map(rules::gather_offset)
        }
        None => inst.texel_offsets().map(i32::from),
    };
    let l = Lookup { dim, coord, offset };
    let reference = match f.reference {
        Some(k) => Some(f32::from_bits(src(cx, t, inst, k, Ty::Float)?[0])),
        None => None,
    };
    let v = if f.gather {
        let component = samp_op.swizzle()[0] as usize & 3;
        tex.gather(&s, &l, component, reference)
    } else {
        let lod = lod_of(cx, t, inst, &f, &s, &tex, &l)?;
        if f.query {
            let mips = tex.mips() as f32;
            let clamped = lod.clamp(0.0, mips - 1.0);
            [clamped.to_bits(), lod.to_bits(), 0, 0]
        } else {
            let lod = min_lod.map_or(lod, |m| if m > lod { m } else { lod });
            tex.sample(&s, &l, lod, reference).map(f32::to_bits)
        }
    };
    write_swizzled(cx, t, inst, res, v)
}

/// The biased, clamped LOD of a non-gather op.
fn lod_of(
    cx: &Ctx,
    t: &Thread,
    inst: &Instruction,
    f: &Form,
    s: &SamplerDesc,
    tex: &TextureData,
    l: &Lookup,
) -> Result<f32, RuntimeError> {
    let scalar =
        |k| -> Result<f32, RuntimeError> { Ok(f32::from_bits(src(cx, t, inst, k, Ty::Float)?[0])) };
    Ok(match f.lod {
        LodSource::Zero => rules::clamp_lod(0.0, s),
        LodSource::Explicit(k) => rules::biased_lod(scalar(k)?, 0.0, s),
        LodSource::Implicit { bias } => {
            let b = match bias {
                Some(k) => rules::instruction_bias(scalar(k)?),
                None => 0.0,
            };
            rules::biased_lod(0.0, b, s)
        }
        LodSource::Gradients(kx, ky) => {
            let dx = floats(src(cx, t, inst, kx, Ty::Float)?);
            let dy = floats(src(cx, t, inst, ky, Ty::Float)?);
            let size = tex.base_size();
            let lod = if matches!(l.dim, SampleDim::Cube | SampleDim::CubeArray) {
                // A face coordinate moves by d/(2|major|) per unit of direction.
                let (_, _, _, ma) = rules::cube_face([l.coord[0], l.coord[1], l.coord[2]]);
                let scale = if ma > 0.0 { 0.5 / ma } else { 0.0 };
                let g = |v: [f32; 4]| [v[0] * scale, v[1] * scale, v[2] * scale];
                rules::lod_from_gradients(g(dx), g(dy), [size[0]; 3], 3)
            } else {
                let d3 = |v: [f32; 4]| [v[0], v[1], v[2]];
                rules::lod_from_gradients(d3(dx), d3(dy), size, l.dim.axes())
            };
            rules::biased_lod(lod, 0.0, s)
        }
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
    let coords = src(cx, t, inst, 1, Ty::Int)?.map(|x| x as i32);
    let res = operand(inst, 2)?;
    let Some(tex) = texture(cx, t, res) else {
        return write_swizzled(cx, t, inst, res, [0; 4]);
    };
    let dim = sample_dim(cx, t, res, &tex.view);
    let off = inst.texel_offsets();
    let mut c = coords;
    for k in 0..dim.axes() {
        c[k] = c[k].wrapping_add(i32::from(off[k]));
    }
    let (mip, sample) = if inst.opcode == Opcode::LdMs {
        (0, src(cx, t, inst, 3, Ty::Int)?[0])
    } else {
        (coords[3] as u32, 0)
    };
    let v = tex.load(dim, c, mip, sample);
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
