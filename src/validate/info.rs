//! [`ProgramInfo`]: everything the engines need from the declarations and
//! the instruction stream, gathered once by the validator.
//!
//! In: filled in by `resources::collect_decls` (declarations),
//! `resources::check_instruction` (usage flags) and `cfg::build_flow`
//! (flow table, labels). Out: read by the interpreter, the JIT and the
//! runtime. Invariant: every map is keyed by the register index that
//! instructions use in their first operand index (the slot before SM5.1,
//! the range id in SM5.1), so an engine can look an operand up directly.

use std::collections::BTreeMap;

use crate::ir::{OperandType, ResourceDim, ReturnType, UavFlags, Version};

use super::cfg::FlowTable;

/// What a t# or u# declaration says about its memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResourceKind {
    /// `dcl_resource` / `dcl_uav_typed`: a typed buffer or texture.
    Typed {
        dim: ResourceDim,
        ret: [ReturnType; 4],
        sample_count: u32,
    },
    /// `dcl_resource_raw` / `dcl_uav_raw`: a byte-address buffer.
    Raw,
    /// `dcl_resource_structured` / `dcl_uav_structured` with its stride in bytes.
    Structured { stride: u32 },
}

impl ResourceKind {
    /// True for resources that `bufinfo` accepts (typed buffers, raw, structured).
    pub fn is_buffer(self) -> bool {
        match self {
            ResourceKind::Typed { dim, .. } => dim == ResourceDim::Buffer,
            ResourceKind::Raw | ResourceKind::Structured { .. } => true,
        }
    }

    /// A short name for messages.
    pub fn describe(self) -> &'static str {
        match self {
            ResourceKind::Typed {
                dim: ResourceDim::Buffer,
                ..
            } => "a typed buffer",
            ResourceKind::Typed { .. } => "a typed texture",
            ResourceKind::Raw => "a raw buffer",
            ResourceKind::Structured { .. } => "a structured buffer",
        }
    }
}

/// A declared shader resource view (t#).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResourceInfo {
    pub kind: ResourceKind,
    /// SM5.1 register range `[lower, upper]` (upper `u32::MAX` = unbounded);
    /// `None` before SM5.1, where the key is the slot itself.
    pub range: Option<(u32, u32)>,
    pub space: u32,
    /// Index into `Program::decls`.
    pub decl_index: usize,
}

/// A declared unordered access view (u#).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UavInfo {
    pub kind: ResourceKind,
    pub flags: UavFlags,
    pub range: Option<(u32, u32)>,
    pub space: u32,
    pub decl_index: usize,
    /// `imm_atomic_alloc` is used on this UAV.
    pub uses_alloc: bool,
    /// `imm_atomic_consume` is used on this UAV.
    pub uses_consume: bool,
}

/// A declared sampler (s#).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SamplerInfo {
    /// 0 default, 1 comparison, 2 mono.
    pub mode: u32,
    pub range: Option<(u32, u32)>,
    pub space: u32,
    pub decl_index: usize,
}

/// A declared constant buffer (cb#).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CbInfo {
    /// Declared size in vec4 (0 = unknown).
    pub size: u32,
    /// `dynamicIndexed` rather than `immediateIndexed`.
    pub dynamic: bool,
    pub range: Option<(u32, u32)>,
    pub space: u32,
    pub decl_index: usize,
}

/// The layout of one thread-group shared memory block (g#).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TgsmKind {
    Raw,
    Structured { stride: u32, count: u32 },
}

/// One g# declaration and where it lives in the group's shared memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TgsmInfo {
    pub kind: TgsmKind,
    /// Byte offset of this block inside the group's TGSM (blocks are laid
    /// out in declaration order, each a multiple of 4 bytes).
    pub offset: u32,
    /// Size of the block in bytes.
    pub bytes: u32,
    pub decl_index: usize,
}

/// One indexable temp array (x#).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IndexableTempInfo {
    /// Number of vec4 elements.
    pub len: u32,
    /// Components per element (1..=4).
    pub comps: u32,
}

/// A declared input or output register (v#, o#, vThreadID, oDepth, ...).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IoReg {
    pub ty: OperandType,
    /// The register number for v#/o#; `None` for system registers without
    /// an index (vThreadID, oDepth, ...).
    pub index: Option<u32>,
    /// Declared component mask (0xF for 0-component declarations).
    pub mask: u8,
    /// System-value name (D3D_NAME) for `_sgv`/`_siv` declarations.
    pub system_value: Option<u32>,
    /// Pixel-shader interpolation mode for `dcl_input_ps*`.
    pub interpolation: Option<u32>,
}

/// What the engines need to run a validated program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgramInfo {
    pub version: Version,
    /// `dcl_globalFlags` bits at their token positions (see [`super::global_flags`]).
    pub global_flags: u32,
    /// `dcl_thread_group` (compute only).
    pub thread_group: Option<[u32; 3]>,
    /// `dcl_temps` count (r0..r(n-1)).
    pub temps: u32,
    /// x# arrays by register number.
    pub indexable_temps: BTreeMap<u32, IndexableTempInfo>,
    pub constant_buffers: BTreeMap<u32, CbInfo>,
    /// The immediate constant buffer as vec4 rows, if declared.
    pub icb: Option<Vec<[u32; 4]>>,
    pub srvs: BTreeMap<u32, ResourceInfo>,
    pub uavs: BTreeMap<u32, UavInfo>,
    pub samplers: BTreeMap<u32, SamplerInfo>,
    /// g# blocks by register number.
    pub tgsm: BTreeMap<u32, TgsmInfo>,
    /// Total TGSM bytes per group (sum of all blocks).
    pub tgsm_bytes: u32,
    pub inputs: Vec<IoReg>,
    pub outputs: Vec<IoReg>,
    /// A `sync` with `_t` (thread-group barrier) occurs.
    pub uses_barrier: bool,
    /// Any atomic, imm_atomic or counter instruction occurs.
    pub uses_atomics: bool,
    /// Any double-precision instruction occurs.
    pub uses_doubles: bool,
    /// `label l#` → index into `Program::insts` of that label instruction.
    pub labels: BTreeMap<u32, usize>,
    /// Matching structured-flow instructions, one entry per instruction.
    pub flow: FlowTable,
}

impl ProgramInfo {
    /// An empty summary for `version`, filled in by the validator.
    pub(crate) fn new(version: Version) -> ProgramInfo {
        ProgramInfo {
            version,
            global_flags: 0,
            thread_group: None,
            temps: 0,
            indexable_temps: BTreeMap::new(),
            constant_buffers: BTreeMap::new(),
            icb: None,
            srvs: BTreeMap::new(),
            uavs: BTreeMap::new(),
            samplers: BTreeMap::new(),
            tgsm: BTreeMap::new(),
            tgsm_bytes: 0,
            inputs: Vec::new(),
            outputs: Vec::new(),
            uses_barrier: false,
            uses_atomics: false,
            uses_doubles: false,
            labels: BTreeMap::new(),
            flow: FlowTable::default(),
        }
    }

    /// Threads per group (X·Y·Z), if a thread group is declared.
    pub fn threads_per_group(&self) -> Option<u32> {
        self.thread_group
            .map(|[x, y, z]| x.saturating_mul(y).saturating_mul(z))
    }

    /// Total vec4 temp storage: r# plus every x# element.
    pub fn temp_vec4_count(&self) -> u64 {
        let x: u64 = self
            .indexable_temps
            .values()
            .map(|t| u64::from(t.len))
            .sum();
        u64::from(self.temps) + x
    }

    /// True if the program declared an input register of type `ty`.
    pub fn has_input(&self, ty: OperandType) -> bool {
        self.inputs.iter().any(|r| r.ty == ty)
    }
}
