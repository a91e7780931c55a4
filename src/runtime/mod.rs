//! The runtime: resource bindings over caller-owned memory, views, formats,
//! sampler states, texture reads (`texture`, `bc`) and the dispatch
//! parameters shared by the interpreter and the JIT, and the vertex/pixel
//! invocation batches ([`batch`]).
//!
//! In: the caller's byte slices (UAVs mutable, SRVs and constant buffers
//! shared), each with a [`View`] saying how the bytes are interpreted, and
//! the dispatch size. Out: [`Bindings`] that the engines read and write, the
//! hidden UAV counters after a dispatch, and [`RuntimeError`]s naming the
//! slot, group or instruction at fault.
//!
//! Invariant: every view accepted by [`Bindings::check_fits`] lies inside
//! its memory, so an engine that bounds-checks against the *view* window
//! (never against the memory) can never touch bytes outside the slice.
//! Accesses outside the window are out of bounds even when the memory is
//! larger.

pub mod batch;
pub mod bc;
pub mod format;
pub mod memory;
pub use crate::sem::sampler;
pub mod sampling;
pub mod texture;
pub mod uav;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU32, Ordering};

pub use batch::{BatchError, BatchInputs, BatchResult, LaneResult, SpecialOutput};
pub use format::Format;
pub use sampler::{AddressMode, ComparisonFunc, Filter, FilterMode, SamplerDesc};
pub use texture::TextureData;
pub use uav::UavMemory;

/// A register slot: `space` (0 before SM5.1) and the register number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Slot {
    pub space: u32,
    pub index: u32,
}

impl Slot {
    /// Slot `index` in space 0.
    pub const fn new(index: u32) -> Slot {
        Slot { space: 0, index }
    }
}

impl std::fmt::Display for Slot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.space == 0 {
            write!(f, "{}", self.index)
        } else {
            write!(f, "{} (space {})", self.index, self.space)
        }
    }
}

/// How a buffer's bytes are addressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferKind {
    /// Byte-address buffer; one element is one 32-bit word.
    Raw,
    /// Array of structures of `stride` bytes.
    Structured { stride: u32 },
    /// Array of texels of one format.
    Typed(Format),
}

impl BufferKind {
    /// Bytes per element.
    pub fn element_bytes(self) -> u64 {
        match self {
            BufferKind::Raw => 4,
            BufferKind::Structured { stride } => u64::from(stride),
            BufferKind::Typed(f) => u64::from(f.bytes()),
        }
    }
}

/// A window onto a buffer: elements `first_element .. first_element + num_elements`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BufferView {
    pub kind: BufferKind,
    pub first_element: u64,
    pub num_elements: u64,
}

impl BufferView {
    /// Byte offset of the window inside the memory (saturating).
    pub fn start_byte(&self) -> u64 {
        self.first_element.saturating_mul(self.kind.element_bytes())
    }

    /// Byte size of the window (saturating).
    pub fn size_bytes(&self) -> u64 {
        self.num_elements.saturating_mul(self.kind.element_bytes())
    }
}

/// Texture dimensionality of a [`TextureView`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextureDim {
    Tex1D,
    Tex1DArray,
    Tex2D,
    Tex2DArray,
    Tex3D,
    /// A cube: six faces stored as 2D array slices in the order +X, -X,
    /// +Y, -Y, +Z, -Z; `depth_or_array` counts faces (6).
    TexCube,
    /// `depth_or_array / 6` cubes, face `f` of cube `c` in slice `6c + f`.
    TexCubeArray,
    /// Multisampled 2D: sample `s` of texel (x, y) of array slice `a` is
    /// stored in slice `a * samples + s` (one mip).
    Tex2DMS {
        samples: u32,
    },
    Tex2DMSArray {
        samples: u32,
    },
}

impl TextureDim {
    /// Samples per texel (1 unless multisampled).
    pub fn samples(self) -> u32 {
        match self {
            TextureDim::Tex2DMS { samples } | TextureDim::Tex2DMSArray { samples } => {
                samples.max(1)
            }
            _ => 1,
        }
    }

    /// True for the cube dimensions.
    pub fn is_cube(self) -> bool {
        matches!(self, TextureDim::TexCube | TextureDim::TexCubeArray)
    }
}

/// A texture. Mip 0 starts at byte 0: texel (x, y, z) is at
/// `z * slice_pitch + y * row_pitch + x * format.bytes()`, where z is the
/// depth (3D) or array slice (arrays; 1D arrays use `slice_pitch` too).
/// Mips 1.. follow packed, each tightly laid out (row pitch = width × texel
/// bytes, slice pitch = row pitch × height).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextureView {
    pub dim: TextureDim,
    pub format: Format,
    pub width: u32,
    pub height: u32,
    /// Depth (3D) or array size (arrays); 1 otherwise.
    pub depth_or_array: u32,
    pub mip_levels: u32,
    pub row_pitch: u64,
    pub slice_pitch: u64,
}

/// The placement of one mip level inside a texture's memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MipLayout {
    pub offset: u64,
    pub width: u32,
    pub height: u32,
    /// Depth at this mip (3D) or the array size (arrays).
    pub layers: u32,
    pub row_pitch: u64,
    pub slice_pitch: u64,
}

impl TextureView {
    /// A tightly packed 2D texture with one mip.
    pub fn tex2d(format: Format, width: u32, height: u32) -> TextureView {
        let row = format.row_bytes(width);
        TextureView {
            dim: TextureDim::Tex2D,
            format,
            width,
            height,
            depth_or_array: 1,
            mip_levels: 1,
            row_pitch: row,
            slice_pitch: row * u64::from(format.memory_rows(height)),
        }
    }

    /// A tightly packed texture of any dimension with `mips` levels
    /// (`depth_or_array`: depth, array size, or faces for cubes).
    pub fn packed(dim: TextureDim, format: Format, size: [u32; 3], mip_levels: u32) -> TextureView {
        let height = if matches!(dim, TextureDim::Tex1D | TextureDim::Tex1DArray) {
            1
        } else {
            size[1]
        };
        TextureView {
            dim,
            depth_or_array: size[2],
            mip_levels,
            ..TextureView::tex2d(format, size[0], height)
        }
    }

    /// Memory slices of one mip: depth (3D), array slices or faces, times
    /// the sample count for multisampled views.
    fn memory_layers(&self) -> u32 {
        self.depth_or_array
            .max(1)
            .saturating_mul(self.dim.samples())
    }

    fn is_3d(&self) -> bool {
        self.dim == TextureDim::Tex3D
    }

    fn has_height(&self) -> bool {
        !matches!(self.dim, TextureDim::Tex1D | TextureDim::Tex1DArray)
    }

    /// Layout of mip `level`, or `None` past the last mip.
    pub fn mip(&self, level: u32) -> Option<MipLayout> {
        self.mip_chain().nth(level as usize)
    }

    /// The layouts of mips 0, 1, ... up to the last.
    pub fn mip_chain(&self) -> impl Iterator<Item = MipLayout> + '_ {
        let height0 = if self.has_height() {
            self.height.max(1)
        } else {
            1
        };
        let first = MipLayout {
            offset: 0,
            width: self.width.max(1),
            height: height0,
            layers: self.memory_layers(),
            row_pitch: self.row_pitch,
            slice_pitch: self.slice_pitch,
        };
        let next = move |m: &MipLayout| {
            let mut m = *m;
            let size = m.size_bytes();
            m.offset = m.offset.saturating_add(size);
            m.width = (m.width >> 1).max(1);
            if self.has_height() {
                m.height = (m.height >> 1).max(1);
            }
            if self.is_3d() {
                m.layers = (m.layers >> 1).max(1);
            }
            m.row_pitch = self.format.row_bytes(m.width);
            m.slice_pitch = m.row_pitch * u64::from(self.format.memory_rows(m.height));
            Some(m)
        };
        std::iter::successors(Some(first), next).take(self.mip_levels.max(1) as usize)
    }

    /// Total bytes the texture needs (all mips).
    pub fn size_bytes(&self) -> u64 {
        let last = self.mip_levels.max(1) - 1;
        match self.mip(last) {
            Some(m) => m.offset.saturating_add(m.size_bytes()),
            None => 0,
        }
    }
}

impl MipLayout {
    /// Bytes this mip occupies: `layers` slices (or `height` rows when the
    /// slice pitch is 0).
    pub fn size_bytes(&self) -> u64 {
        let slice = if self.slice_pitch == 0 {
            self.row_pitch.saturating_mul(u64::from(self.height))
        } else {
            self.slice_pitch
        };
        slice.saturating_mul(u64::from(self.layers))
    }
}

/// What a bound slot looks like.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    Buffer(BufferView),
    Texture(TextureView),
}

impl View {
    /// Bytes of memory this view needs (window end).
    pub fn required_bytes(&self) -> u64 {
        match self {
            View::Buffer(b) => b.start_byte().saturating_add(b.size_bytes()),
            View::Texture(t) => t.size_bytes(),
        }
    }

    /// A short description for error messages.
    pub fn describe(&self) -> String {
        match self {
            View::Buffer(b) => match b.kind {
                BufferKind::Raw => "raw buffer".to_string(),
                BufferKind::Structured { stride } => format!("structured buffer (stride {stride})"),
                BufferKind::Typed(f) => format!("typed buffer ({})", f.dxgi_name()),
            },
            View::Texture(t) => format!("{:?} texture ({})", t.dim, t.format.dxgi_name()),
        }
    }
}

/// One bound UAV. Its memory and counter are shared by every thread
/// that runs against the bindings (see [`UavMemory`]).
#[derive(Debug)]
pub struct UavBinding<'a> {
    pub data: UavMemory<'a>,
    pub view: View,
    /// The hidden counter, when the view has one.
    pub counter: Option<Counter<'a>>,
}

/// A UAV's hidden counter: owned by the bindings, or a cell the embedder
/// keeps (the C ABI's bindings objects), changed atomically by the
/// shaders that run.
#[derive(Debug)]
pub enum Counter<'a> {
    Owned(AtomicU32),
    Shared(&'a AtomicU32),
}

impl Counter<'_> {
    /// The atomic cell.
    pub fn cell(&self) -> &AtomicU32 {
        match self {
            Counter::Owned(c) => c,
            Counter::Shared(c) => c,
        }
    }

    /// The current value.
    pub fn get(&self) -> u32 {
        self.cell().load(Ordering::Acquire)
    }
}

/// One bound SRV.
#[derive(Debug)]
pub struct SrvBinding<'a> {
    pub data: &'a [u8],
    pub view: View,
}

/// Which register file a binding lives in (for messages).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BindingKind {
    Uav,
    Srv,
    ConstantBuffer,
}

impl std::fmt::Display for BindingKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            BindingKind::Uav => "u",
            BindingKind::Srv => "t",
            BindingKind::ConstantBuffer => "cb",
        })
    }
}

/// All resources of one dispatch, over memory the caller owns. A shared
/// reference is enough to run vertex and pixel batches, from any number
/// of threads at once (`Shader::run_batch`, `Shader::batch_runner`): SRVs,
/// constant buffers and samplers are only read, and UAV memory and
/// counters are written through [`UavMemory`] and atomics.
#[derive(Debug, Default)]
pub struct Bindings<'a> {
    pub(crate) uavs: BTreeMap<Slot, UavBinding<'a>>,
    pub(crate) srvs: BTreeMap<Slot, SrvBinding<'a>>,
    pub(crate) cbs: BTreeMap<Slot, &'a [u8]>,
    pub(crate) samplers: BTreeMap<Slot, SamplerDesc>,
}

impl<'a> Bindings<'a> {
    pub fn new() -> Self {
        Bindings::default()
    }

    /// Binds a UAV without a hidden counter.
    pub fn uav(&mut self, slot: Slot, data: &'a mut [u8], view: View) -> &mut Self {
        self.uavs.insert(
            slot,
            UavBinding {
                data: UavMemory::new(data),
                view,
                counter: None,
            },
        );
        self
    }

    /// Binds a UAV with a hidden counter starting at `counter`.
    pub fn uav_with_counter(
        &mut self,
        slot: Slot,
        data: &'a mut [u8],
        view: View,
        counter: u32,
    ) -> &mut Self {
        self.uavs.insert(
            slot,
            UavBinding {
                data: UavMemory::new(data),
                view,
                counter: Some(Counter::Owned(AtomicU32::new(counter))),
            },
        );
        self
    }

    /// Binds UAV memory the embedder describes with a pointer and length
    /// and, optionally, a counter cell it keeps (the C ABI).
    ///
    /// # Safety
    /// As [`UavMemory::from_raw_parts`]: `ptr` valid for reads and writes
    /// of `len` bytes for `'a`, touched by nothing but engines running
    /// against these bindings meanwhile.
    pub unsafe fn uav_raw(
        &mut self,
        slot: Slot,
        ptr: *mut u8,
        len: usize,
        view: View,
        counter: Option<&'a AtomicU32>,
    ) -> &mut Self {
        self.uavs.insert(
            slot,
            UavBinding {
                // SAFETY: the caller's contract.
                data: unsafe { UavMemory::from_raw_parts(ptr, len) },
                view,
                counter: counter.map(Counter::Shared),
            },
        );
        self
    }

    /// Binds a shader resource view.
    pub fn srv(&mut self, slot: Slot, data: &'a [u8], view: View) -> &mut Self {
        self.srvs.insert(slot, SrvBinding { data, view });
        self
    }

    /// Binds a constant buffer (its size is the bound size for bounds checks).
    pub fn cb(&mut self, slot: Slot, data: &'a [u8]) -> &mut Self {
        self.cbs.insert(slot, data);
        self
    }

    /// Binds a sampler state to s#`slot`. An unbound sampler slot reads as
    /// [`SamplerDesc::default`] (the D3D11 default sampler state).
    pub fn sampler(&mut self, slot: Slot, desc: SamplerDesc) -> &mut Self {
        self.samplers.insert(slot, desc);
        self
    }

    /// The sampler at `slot`, or the default state when nothing is bound.
    pub fn get_sampler(&self, slot: Slot) -> SamplerDesc {
        self.samplers.get(&slot).copied().unwrap_or_default()
    }

    /// The texture SRV at `slot` with its memory.
    pub fn get_texture(&self, slot: Slot) -> Option<TextureData<'_>> {
        match self.srvs.get(&slot)? {
            SrvBinding {
                data,
                view: View::Texture(view),
            } => Some(TextureData { view: *view, data }),
            _ => None,
        }
    }

    /// The hidden counter of the UAV at `slot` (after a dispatch: its final value).
    pub fn counter(&self, slot: Slot) -> Option<u32> {
        self.uavs
            .get(&slot)
            .and_then(|u| u.counter.as_ref().map(Counter::get))
    }

    /// The UAV at `slot`.
    pub fn get_uav(&self, slot: Slot) -> Option<&UavBinding<'a>> {
        self.uavs.get(&slot)
    }

    /// The SRV at `slot`.
    pub fn get_srv(&self, slot: Slot) -> Option<&SrvBinding<'a>> {
        self.srvs.get(&slot)
    }

    /// The constant buffer at `slot`.
    pub fn get_cb(&self, slot: Slot) -> Option<&'a [u8]> {
        self.cbs.get(&slot).copied()
    }

    /// Checks that every bound view lies inside its memory.
    pub fn check_fits(&self) -> Result<(), RuntimeError> {
        let uavs = self
            .uavs
            .iter()
            .map(|(s, u)| (BindingKind::Uav, *s, &u.view, u.data.len()));
        let srvs = self
            .srvs
            .iter()
            .map(|(s, t)| (BindingKind::Srv, *s, &t.view, t.data.len()));
        for (kind, slot, view, len) in uavs.chain(srvs) {
            let needed = view.required_bytes();
            if needed > len as u64 {
                return Err(RuntimeError::ViewOutOfRange {
                    kind,
                    slot,
                    needed,
                    available: len as u64,
                });
            }
        }
        Ok(())
    }
}

/// Per-dispatch limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DispatchOptions {
    /// Instructions one thread group (or one invocation) may execute before
    /// the run stops with [`RuntimeError::BudgetExhausted`].
    pub budget: u64,
}

/// The default budget (2^22 instructions per group). Measured: an
/// infinite loop uses it up in about 0.4 s in a dev build (opt-level 1) of
/// the reference interpreter while other builds keep both cores of a 2-core
/// machine busy, so it stops well within a second; a 1024-thread group can
/// still run 4096 instructions per thread (raise the budget in
/// [`DispatchOptions`] for heavier shaders).
pub const DEFAULT_BUDGET: u64 = 1 << 22;

impl Default for DispatchOptions {
    fn default() -> Self {
        DispatchOptions {
            budget: DEFAULT_BUDGET,
        }
    }
}

/// What a dispatch did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DispatchStats {
    pub groups: u64,
    pub instructions: u64,
}

/// The result of one pixel or vertex invocation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Invocation {
    /// Every declared or written output register with its four DWORDs, by index.
    pub outputs: Vec<(u32, [u32; 4])>,
    /// True if the pixel was discarded.
    pub discarded: bool,
}

/// A binding or dispatch problem, or a stopped shader.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuntimeError {
    #[error("{kind}{slot} is declared by the program but nothing is bound there")]
    MissingBinding { kind: BindingKind, slot: Slot },
    #[error("view of {kind}{slot} needs {needed} bytes but its memory has {available}")]
    ViewOutOfRange {
        kind: BindingKind,
        slot: Slot,
        needed: u64,
        available: u64,
    },
    #[error("{kind}{slot} is declared as {declared} but bound as {bound}")]
    BindingKindMismatch {
        kind: BindingKind,
        slot: Slot,
        declared: String,
        bound: String,
    },
    #[error("dispatch of {groups:?} groups is not allowed: {reason}")]
    TooManyGroups { groups: [u32; 3], reason: String },
    #[error("indirect dispatch arguments at byte {offset} are not readable from {len} bytes (need 12 bytes, 4-aligned)")]
    BadIndirectArgs { offset: u64, len: u64 },
    /// `inst_index`: the instruction that ran out of budget on the
    /// interpreter; the `endloop` whose charge ran out on the JIT (it
    /// charges a loop's length per iteration).
    #[error(
        "instruction budget exhausted in group {group:?} at instruction {inst_index}: a runaway \
         loop, or more work than the budget allows (raise it with `--budget N` on the command \
         line, `budget` of DispatchOptions/DispatchConfig in the API)"
    )]
    BudgetExhausted { group: [u32; 3], inst_index: usize },
    #[error("instruction {inst_index}: {what} is not supported")]
    Unsupported { inst_index: usize, what: String },
    #[error("batch: {0}")]
    Batch(#[from] BatchError),
    #[error("cannot run the program: {reason}")]
    InvalidProgram {
        inst_index: Option<usize>,
        reason: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn view_window_must_fit_memory() {
        let mut mem = vec![0u8; 16];
        let mut b = Bindings::new();
        let view = BufferView {
            kind: BufferKind::Raw,
            first_element: 2,
            num_elements: 3,
        };
        b.uav(Slot::new(0), &mut mem, View::Buffer(view));
        let err = b.check_fits().unwrap_err();
        assert_eq!(
            err,
            RuntimeError::ViewOutOfRange {
                kind: BindingKind::Uav,
                slot: Slot::new(0),
                needed: 20,
                available: 16
            }
        );
    }

    #[test]
    fn mips_follow_packed() {
        let t = TextureView {
            dim: TextureDim::Tex2D,
            format: Format::R32Uint,
            width: 4,
            height: 4,
            depth_or_array: 1,
            mip_levels: 3,
            row_pitch: 32,
            slice_pitch: 128,
        };
        let m1 = t.mip(1).unwrap();
        assert_eq!(m1.offset, 128);
        assert_eq!((m1.width, m1.height, m1.row_pitch), (2, 2, 8));
        let m2 = t.mip(2).unwrap();
        assert_eq!(m2.offset, 128 + 16);
        assert_eq!(t.size_bytes(), 128 + 16 + 4);
        assert!(t.mip(3).is_none());
    }

    #[test]
    fn views_describe_formats_with_their_dxgi_names() {
        let typed = View::Buffer(BufferView {
            kind: BufferKind::Typed(Format::R32Uint),
            first_element: 0,
            num_elements: 1,
        });
        assert_eq!(typed.describe(), "typed buffer (R32_UINT)");
        let tex = View::Texture(TextureView::tex2d(Format::R8G8B8A8Unorm, 2, 2));
        assert!(tex.describe().ends_with("texture (R8G8B8A8_UNORM)"));
    }

    #[test]
    fn counters_are_kept_per_slot() {
        let mut mem = vec![0u8; 16];
        let mut b = Bindings::new();
        let view = BufferView {
            kind: BufferKind::Structured { stride: 4 },
            first_element: 0,
            num_elements: 4,
        };
        b.uav_with_counter(Slot::new(3), &mut mem, View::Buffer(view), 7);
        assert_eq!(b.counter(Slot::new(3)), Some(7));
        assert_eq!(b.counter(Slot::new(2)), None);
    }

    #[test]
    fn block_compressed_and_multisampled_layouts() {
        // BC1 8x8: 2x2 blocks of 8 bytes; mip 1 (4x4) is one block; mip 2
        // (2x2) still occupies a whole block.
        let t = TextureView::packed(TextureDim::Tex2D, Format::Bc1Unorm, [8, 8, 1], 3);
        assert_eq!((t.row_pitch, t.slice_pitch), (16, 32));
        assert_eq!(t.mip(1).unwrap().offset, 32);
        assert_eq!(t.size_bytes(), 32 + 8 + 8);
        let ms = TextureView::packed(
            TextureDim::Tex2DMSArray { samples: 4 },
            Format::R32Uint,
            [2, 1, 3],
            1,
        );
        assert_eq!(ms.mip(0).unwrap().layers, 12);
        assert_eq!(ms.size_bytes(), 2 * 4 * 12);
        assert!(TextureDim::TexCubeArray.is_cube());
    }
}
