//! Loads, stores and resource queries: ld_raw/ld_structured/store_* on
//! t#/u#/g#, typed ld/ld_uav_typed/store_uav_typed, bufinfo, resinfo and
//! sampleinfo.
//!
//! In: a memory-class instruction. Out: its destination registers or the
//! bound memory changed. Invariant (`sm5-semantics.md` §11): raw/structured
//! addresses come from [`crate::sem::memory`] (64-bit, low bits ignored)
//! and are checked per DWORD against the view window; typed accesses are
//! checked per element/texel. Out-of-bounds reads give 0 (typed: 0 plus
//! format defaults), out-of-bounds writes are dropped.

use crate::ir::{Instruction, MemoryInst, Opcode, Operand, OperandType};
use crate::runtime::memory::{texel, typed_element};
use crate::runtime::{BufferKind, Format, RuntimeError, View};
use crate::sem::memory::{component_dword, raw_dword, structured_dword};

use super::exec_alu::{operand, src, write};
use super::resources::Target;
use super::thread::{Ctx, Thread, Ty};
use super::visit::Exec;
use crate::analysis::ResKind;

pub fn exec(
    cx: &mut Ctx,
    t: &mut Thread,
    op: MemoryInst,
    inst: &Instruction,
    i: usize,
) -> Result<(), RuntimeError> {
    use MemoryInst as M;
    match op {
        // Helper lanes of a pixel quad write no memory.
        M::StoreRaw | M::StoreStructured | M::StoreUavTyped if t.helper => Ok(()),
        M::LdRaw => ld_buffer(cx, t, inst, i, false),
        M::LdStructured => ld_buffer(cx, t, inst, i, true),
        M::StoreRaw => store_buffer(cx, t, inst, i, false),
        M::StoreStructured => store_buffer(cx, t, inst, i, true),
        M::Ld | M::LdMs if super::exec_sample::is_texture_load(cx, t, inst) => {
            super::exec_sample::ld(cx, t, inst)
        }
        M::Ld | M::LdUavTyped | M::LdMs => ld_typed(cx, t, inst),
        M::LdS | M::LdMsS | M::LdRawS | M::LdStructuredS | M::LdUavTypedS => {
            feedback_load(cx, t, inst, i)
        }
        M::SamplePos => samplepos(cx, t, inst),
        M::StoreUavTyped => store_typed(cx, t, inst),
        M::BufInfo => bufinfo(cx, t, inst),
        M::ResInfo => resinfo(cx, t, inst),
        M::SampleInfo => sampleinfo(cx, t, inst),
    }
}

/// The base DWORD of a raw (`addr.x`) or structured (`index.x`, `offset.x`)
/// access; the address sources start at operand `first`.
fn base_dword(
    cx: &Ctx,
    t: &Thread,
    inst: &Instruction,
    i: usize,
    first: usize,
    mem: &Operand,
    structured: bool,
) -> Result<u64, RuntimeError> {
    let a = src(cx, t, inst, first, Ty::Int)?[0];
    if !structured {
        return Ok(raw_dword(a));
    }
    let off = src(cx, t, inst, first + 1, Ty::Int)?[0];
    let stride = cx
        .declared_stride(t, mem)
        .ok_or_else(|| RuntimeError::InvalidProgram {
            inst_index: Some(i),
            reason: "structured access to a register not declared structured".into(),
        })?;
    Ok(structured_dword(a, off, stride))
}

/// ld_raw d, addr, mem / ld_structured d, index, offset, mem:
/// `d[c] = mem32[base + memSwizzle[c]]`.
fn ld_buffer(
    cx: &mut Ctx,
    t: &mut Thread,
    inst: &Instruction,
    i: usize,
    structured: bool,
) -> Result<(), RuntimeError> {
    let mem_at = if structured { 3 } else { 2 };
    let mem = operand(inst, mem_at)?;
    let base = base_dword(cx, t, inst, i, 1, mem, structured)?;
    let target = cx.target(t, mem);
    let swz = mem.swizzle();
    let mask = operand(inst, 0)?.write_mask();
    let mut v = [0u32; 4];
    for c in 0..4 {
        if mask & (1 << c) != 0 {
            v[c] = cx.load(cx.locate(target, component_dword(base, u32::from(swz[c]))));
        }
    }
    write(cx, t, inst, 0, v, false)
}

/// store_raw mem.mask, addr, value / store_structured mem.mask, index,
/// offset, value: the mask's component count n gives the DWORDs written,
/// `mem32[base + k] = value[k]` for k < n; out-of-bounds DWORDs dropped.
fn store_buffer(
    cx: &mut Ctx,
    t: &mut Thread,
    inst: &Instruction,
    i: usize,
    structured: bool,
) -> Result<(), RuntimeError> {
    let mem = operand(inst, 0)?;
    let base = base_dword(cx, t, inst, i, 1, mem, structured)?;
    let value = src(cx, t, inst, if structured { 3 } else { 2 }, Ty::Int)?;
    let target = cx.target(t, mem);
    if matches!(target, Target::Srv(_)) {
        return Ok(());
    }
    let n = mem.write_mask().count_ones();
    for k in 0..n {
        let loc = cx.locate(target, component_dword(base, k));
        cx.store(loc, value[k as usize]);
    }
    Ok(())
}

/// Where texel/element `coords` (mip `mip`) of a typed view lives, with its format.
pub fn typed_location(view: &View, coords: [u32; 4], mip: u32) -> (Option<u64>, Option<Format>) {
    match view {
        View::Buffer(bv) => match bv.kind {
            BufferKind::Typed(f) => (typed_element(bv, coords[0]), Some(f)),
            _ => (None, None),
        },
        View::Texture(tv) => (
            texel(tv, [coords[0], coords[1], coords[2]], mip),
            Some(tv.format),
        ),
    }
}

/// Reads a texel as four shader DWORDs (0 + defaults when out of range,
/// all 0 when unbound).
fn read_texel(cx: &Ctx, target: Target, coords: [u32; 4], mip: u32) -> [u32; 4] {
    let Some(view) = cx.view(target) else {
        return [0; 4];
    };
    let (pos, fmt) = typed_location(&view, coords, mip);
    let Some(fmt) = fmt else { return [0; 4] };
    let pos = pos.and_then(|p| usize::try_from(p).ok());
    match target {
        // UAV memory may be shared with other threads: copy the texel out.
        Target::Uav(s) => {
            let mut texel = [0u8; 16];
            let n = (fmt.bytes() as usize).min(texel.len());
            let read = match (cx.b.get_uav(s), pos) {
                (Some(u), Some(p)) => u.data.read(p as u64, &mut texel[..n]),
                _ => false,
            };
            fmt.load(if read { &texel[..n] } else { &[] })
        }
        Target::Srv(s) => {
            let data = cx.b.get_srv(s).map_or(&[][..], |u| u.data);
            fmt.load(pos.and_then(|p| data.get(p..)).unwrap_or(&[]))
        }
        _ => fmt.load(&[]),
    }
}

/// ld d, coords(+mip in .w), t# and ld_uav_typed d, coords, u#: the texel,
/// swizzled by the resource operand.
fn ld_typed(cx: &mut Ctx, t: &mut Thread, inst: &Instruction) -> Result<(), RuntimeError> {
    let coords = src(cx, t, inst, 1, Ty::Int)?;
    let res = operand(inst, 2)?;
    let target = cx.target(t, res);
    let is_buffer = matches!(cx.view(target), Some(View::Buffer(_)));
    let mip = if inst.opcode == Opcode::Ld && !is_buffer {
        coords[3]
    } else {
        0
    };
    // Views here are single-sampled: ld2dms reads sample 0 like ld at mip 0
    // and any other sample index is out of range.
    let texel = if inst.opcode == Opcode::LdMs && src(cx, t, inst, 3, Ty::Int)?[0] != 0 {
        read_texel(cx, target, [u32::MAX; 4], 0)
    } else {
        read_texel(cx, target, coords, mip)
    };
    let s = res.swizzle();
    let v = std::array::from_fn(|c| texel[s[c] as usize & 3]);
    write(cx, t, inst, 0, v, false)
}

pub use crate::runtime::sampling::FULLY_MAPPED;

/// ld_s, ld2dms_s, ld_raw_s, ld_structured_s, ld_uav_typed_s: the base load
/// (the status destination is operand 1) plus [`FULLY_MAPPED`] in the status.
fn feedback_load(
    cx: &mut Ctx,
    t: &mut Thread,
    inst: &Instruction,
    i: usize,
) -> Result<(), RuntimeError> {
    let mut base = inst.clone();
    let status = operand(inst, 1)?;
    base.operands.remove(1);
    if let Some((op, _)) = inst.opcode.feedback_base() {
        base.opcode = op;
    }
    base.visit(i, &mut Exec { cx, t })?;
    cx.write(t, status, [FULLY_MAPPED; 4]);
    Ok(())
}

/// store_uav_typed u#.xyzw, coords, value: all four components converted
/// to the bound format; dropped when out of range.
fn store_typed(cx: &mut Ctx, t: &mut Thread, inst: &Instruction) -> Result<(), RuntimeError> {
    let coords = src(cx, t, inst, 1, Ty::Int)?;
    let value = src(cx, t, inst, 2, Ty::Int)?;
    let target = cx.target(t, operand(inst, 0)?);
    let Target::Uav(slot) = target else {
        return Ok(());
    };
    let Some(view) = cx.view(target) else {
        return Ok(());
    };
    let (Some(pos), Some(fmt)) = typed_location(&view, coords, 0) else {
        return Ok(());
    };
    let bytes = fmt.store(value);
    let n = fmt.bytes() as usize;
    if let Some(u) = cx.b.get_uav(slot) {
        u.data.write(pos, &bytes[..n]);
    }
    Ok(())
}

/// bufinfo d, t#/u#: raw → bytes, structured → structures, typed →
/// elements, unbound or texture → 0; written to every masked component.
fn bufinfo(cx: &mut Ctx, t: &mut Thread, inst: &Instruction) -> Result<(), RuntimeError> {
    let target = cx.target(t, operand(inst, 1)?);
    let n = match cx.view(target) {
        Some(View::Buffer(bv)) => match bv.kind {
            BufferKind::Raw => bv.num_elements.saturating_mul(4),
            _ => bv.num_elements,
        },
        _ => 0,
    };
    let n = u32::try_from(n).unwrap_or(u32::MAX);
    write(cx, t, inst, 0, [n; 4], false)
}

/// resinfo[_uint|_rcpFloat] d, mip, t#/u#: (width, height, depth or array
/// size, mip count) at that mip, swizzled by the resource operand.
fn resinfo(cx: &mut Ctx, t: &mut Thread, inst: &Instruction) -> Result<(), RuntimeError> {
    let mip = src(cx, t, inst, 1, Ty::Int)?[0];
    let res = operand(inst, 2)?;
    let target = cx.target(t, res);
    let view = cx.view(target);
    let tex = match &view {
        Some(View::Texture(tv)) => Some(tv),
        _ => None,
    };
    let declared = cx.decl_of(t, res).and_then(|d| match d.kind {
        ResKind::Typed { dim, .. } => Some(dim),
        _ => None,
    });
    let is_uav = res.ty == OperandType::Uav;
    let r = crate::runtime::sampling::resinfo_result(
        tex,
        is_uav,
        declared,
        mip,
        inst.return_type_bits(),
    );
    let s = res.swizzle();
    write(
        cx,
        t,
        inst,
        0,
        std::array::from_fn(|c| r[s[c] as usize & 3]),
        false,
    )
}

/// sampleinfo[_uint] d, t#/rasterizer: (sample count, 0, 0, 0) swizzled.
/// Views here are single-sampled; unbound → 0.
fn sampleinfo(cx: &mut Ctx, t: &mut Thread, inst: &Instruction) -> Result<(), RuntimeError> {
    let res = operand(inst, 1)?;
    let count = match res.ty {
        OperandType::Rasterizer => cx.raster_samples,
        _ => crate::runtime::sampling::sample_count(cx.view(cx.target(t, res))),
    };
    let raw = [count, 0, 0, 0];
    let r = if inst.return_type_bits() & 1 != 0 {
        raw
    } else {
        raw.map(|x| (x as f32).to_bits())
    };
    let s = res.swizzle();
    write(
        cx,
        t,
        inst,
        0,
        std::array::from_fn(|c| r[s[c] as usize & 3]),
        false,
    )
}

/// samplepos d, t#/rasterizer, index: the standard position of sample
/// `index` (`sem::sample::sample_position`), swizzled by the resource.
fn samplepos(cx: &mut Ctx, t: &mut Thread, inst: &Instruction) -> Result<(), RuntimeError> {
    let res = operand(inst, 1)?;
    let count = match res.ty {
        OperandType::Rasterizer => cx.raster_samples,
        _ => crate::runtime::sampling::sample_count(cx.view(cx.target(t, res))),
    };
    let index = cx.scalar(t, operand(inst, 2)?);
    let r = crate::sem::sample::sample_position(count, index);
    let s = res.swizzle();
    write(
        cx,
        t,
        inst,
        0,
        std::array::from_fn(|c| r[s[c] as usize & 3]),
        false,
    )
}
