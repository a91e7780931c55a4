//! Typed buffer and texture access for generated code, through the
//! runtime's format conversions.
//!
//! In: a [`TypedEnv`] built per dispatch (the view and memory of every
//! typed t#/u#, by resource-table index) and one lane's coordinates and
//! values in the context's `io` DWORDs. Out: the texel as four shader
//! DWORDs (loads, `resinfo`), or the encoded texel written to memory
//! (stores). Invariant: these shims follow the interpreter's rules line for
//! line (same address function, same out-of-bounds texel, same store
//! width), and every memory access is `slice::get`-checked against the
//! slot's memory, so a wrong coordinate can never reach outside it.

use crate::ir::ResourceDim;
use crate::runtime::memory::{texel, typed_element};
use crate::runtime::sampling::resinfo_result;
use crate::runtime::{BufferKind, Format, View};

/// One typed slot: its view and memory.
#[derive(Clone, Copy, Debug)]
pub struct TypedView {
    pub view: View,
    pub data: *mut u8,
    pub len: usize,
    pub writable: bool,
    /// True for u# (resinfo reports one mip).
    pub is_uav: bool,
    /// The declared texture dimension (resinfo follows it, as the interpreter does).
    pub declared: Option<ResourceDim>,
}

/// Typed slots by resource-table index (`None`: unbound or a constant
/// buffer), plus what the texture shim needs.
#[derive(Clone, Debug, Default)]
pub struct TypedEnv {
    pub slots: Vec<Option<TypedView>>,
    /// The shader being run (the texture shim reads its instructions).
    pub shader: Option<super::JitShader>,
    /// The bound samplers.
    pub samplers: std::collections::BTreeMap<crate::runtime::Slot, crate::runtime::SamplerDesc>,
    /// True in pixel batches: lanes `4q..4q + 4` are a quad, and the
    /// implicit-LOD ops take their LOD from its coordinate gradients.
    pub quads: bool,
    /// Samples per pixel of the render target (`sampleinfo`/`samplepos`
    /// on `rasterizer`); 1 outside pixel batches.
    pub raster_samples: u32,
    /// The texture instructions' batch entries, by instruction index
    /// (`sample::plans`, built with the rest of the environment).
    pub plans: Vec<super::sample::TexPlan>,
    /// The vector-path descriptors generated code reads (`texvec.rs`,
    /// `sample::vector_table`, built with the plans).
    pub vectors: super::texvec::VecTable,
}

// SAFETY: the pointers point into bindings borrowed for the whole
// dispatch or batch runner; shims access read-only views through
// bounds-checked slices and writable ones through `UavMemory` (atomic
// accesses), so threads sharing the environment never race in Rust code.
unsafe impl Sync for TypedEnv {}
unsafe impl Send for TypedEnv {}

/// The interpreter's typed address rule: (byte position, format).
fn location(view: &View, coords: [u32; 4], mip: u32) -> (Option<u64>, Option<Format>) {
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

/// The memory of a writable (UAV) slot, shared with other threads.
fn uav_memory(s: &TypedView) -> crate::runtime::UavMemory<'_> {
    // SAFETY: `data`/`len` describe UAV memory the bindings borrow for
    // the whole run; `UavMemory` reaches it only through atomics.
    unsafe { crate::runtime::UavMemory::from_raw_parts(s.data, s.len) }
}

fn slot(env: *const TypedEnv, entry: u32) -> Option<TypedView> {
    // SAFETY: the runner passes its live `TypedEnv` (or null).
    let env = unsafe { env.as_ref()? };
    env.slots.get(entry as usize).copied().flatten()
}

/// # Safety
/// `io` points to 8 writable DWORDs; `env` is the dispatch's environment.
pub unsafe extern "C" fn typed_load(env: *const TypedEnv, entry: u32, mip_in_w: u32, io: *mut u32) {
    // Float work in Rust runs in the default float mode (`fpmode`).
    let _mode = super::fpmode::DefaultMode::enter();
    // SAFETY: the caller passes the context's 8-DWORD io area.
    let io = unsafe { std::slice::from_raw_parts_mut(io, 8) };
    let coords = [io[0], io[1], io[2], io[3]];
    let mut out = [0u32; 4];
    if let Some(s) = slot(env, entry) {
        let is_buffer = matches!(s.view, View::Buffer(_));
        let mip = if mip_in_w != 0 && !is_buffer {
            coords[3]
        } else {
            0
        };
        let (pos, fmt) = location(&s.view, coords, mip);
        if let Some(fmt) = fmt {
            out = if s.writable {
                // Shared with other threads: copy the texel out.
                let mut texel = [0u8; 16];
                let n = (fmt.bytes() as usize).min(texel.len());
                let read = pos.is_some_and(|p| uav_memory(&s).read(p, &mut texel[..n]));
                fmt.load(if read { &texel[..n] } else { &[] })
            } else {
                // SAFETY: `data`/`len` describe the slot's bound, read-only slice.
                let data = unsafe { std::slice::from_raw_parts(s.data, s.len) };
                let bytes = pos
                    .and_then(|p| usize::try_from(p).ok())
                    .and_then(|p| data.get(p..));
                fmt.load(bytes.unwrap_or(&[]))
            };
        }
    }
    io[4..8].copy_from_slice(&out);
}

/// # Safety
/// As [`typed_load`].
pub unsafe extern "C" fn typed_store(env: *const TypedEnv, entry: u32, active: u32, io: *mut u32) {
    // Float work in Rust runs in the default float mode (`fpmode`).
    let _mode = super::fpmode::DefaultMode::enter();
    if active == 0 {
        return;
    }
    // SAFETY: the caller passes the context's 8-DWORD io area.
    let io = unsafe { std::slice::from_raw_parts(io, 8) };
    let Some(s) = slot(env, entry).filter(|s| s.writable) else {
        return;
    };
    let (Some(pos), Some(fmt)) = location(&s.view, [io[0], io[1], io[2], io[3]], 0) else {
        return;
    };
    let bytes = fmt.store([io[4], io[5], io[6], io[7]]);
    let n = (fmt.bytes() as usize).min(bytes.len());
    uav_memory(&s).write(pos, &bytes[..n]);
}

/// `resinfo`: io[0] = mip in, io[4..8] = the four raw results out.
///
/// # Safety
/// As [`typed_load`].
pub unsafe extern "C" fn typed_resinfo(env: *const TypedEnv, entry: u32, ret: u32, io: *mut u32) {
    // Float work in Rust runs in the default float mode (`fpmode`).
    let _mode = super::fpmode::DefaultMode::enter();
    // SAFETY: the caller passes the context's 8-DWORD io area.
    let io = unsafe { std::slice::from_raw_parts_mut(io, 8) };
    let mip = io[0];
    let r = match slot(env, entry) {
        Some(TypedView {
            view: View::Texture(tv),
            is_uav,
            declared,
            ..
        }) => resinfo_result(Some(&tv), is_uav, declared, mip, ret),
        _ => resinfo_result(None, false, None, mip, ret),
    };
    io[4..8].copy_from_slice(&r);
}

/// Typed atomics: io[0..4] = coordinates in; io[4..6] = the absolute
/// address of the 32-bit texel out, or 0 when out of bounds or the format
/// is not 32 bits wide (the interpreter's rule). Generated code then runs
/// a real atomic on that address.
///
/// # Safety
/// As [`typed_load`].
pub unsafe extern "C" fn typed_addr(env: *const TypedEnv, entry: u32, _flag: u32, io: *mut u32) {
    // SAFETY: the caller passes the context's 8-DWORD io area.
    let io = unsafe { std::slice::from_raw_parts_mut(io, 8) };
    let mut addr: u64 = 0;
    if let Some(s) = slot(env, entry).filter(|s| s.writable) {
        if let (Some(pos), Some(f)) = location(&s.view, [io[0], io[1], io[2], io[3]], 0) {
            let fits = usize::try_from(pos)
                .ok()
                .and_then(|p| p.checked_add(4))
                .is_some_and(|end| end <= s.len);
            if f.bytes() == 4 && fits {
                addr = s.data.wrapping_add(pos as usize) as u64;
            }
        }
    }
    io[4] = addr as u32;
    io[5] = (addr >> 32) as u32;
}
