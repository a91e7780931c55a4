//! The Direct3D 11 limits every layer checks against, in one place.
//!
//! In: nothing (constants only). Out: the numbers the validator enforces
//! per model, the analysis layer re-checks before an engine allocates, and
//! the engines use at run time (group counts, call depth). Invariant: each
//! limit is written once here; no other module spells the number.
//! Sources: `sm5-semantics.md` §2 and §15, the D3D11 functional spec
//! sections named on each constant.

/// Temp storage (r# plus every x# element) a program may declare, in vec4 (FS §7.3).
pub const MAX_TEMPS: u64 = 4096;
/// Largest constant buffer and immediate constant buffer, in vec4.
pub const MAX_CB_VEC4: u32 = 4096;
/// Largest immediate constant buffer, in DWORDs.
pub const MAX_ICB_DWORDS: usize = MAX_CB_VEC4 as usize * 4;
/// Constant-buffer slots in the bytecode (cb0..cb14).
pub const CB_SLOTS: u32 = 15;
/// Shader-resource-view slots (t0..t127).
pub const SRV_SLOTS: u32 = 128;
/// Sampler slots (s0..s15).
pub const SAMPLER_SLOTS: u32 = 16;
/// UAV slots for SM5 (D3D11.1: u0..u63).
pub const UAV_SLOTS_5: u32 = 64;
/// Largest structure stride in bytes.
pub const MAX_STRIDE: u32 = 2048;
/// Total TGSM bytes per group for cs_5_x (FS §18.6.6).
pub const TGSM_BYTES_5: u64 = 32 * 1024;
/// Total TGSM bytes per group for cs_4_x.
pub const TGSM_BYTES_4: u64 = 16 * 1024;
/// Threads one cs_5_x group may have, and its X and Y extent (FS §22.3.40).
pub const MAX_GROUP_THREADS_5: u64 = 1024;
/// Threads one cs_4_x group may have, and its X and Y extent.
pub const MAX_GROUP_THREADS_4: u64 = 768;
/// A thread group's Z extent.
pub const MAX_GROUP_Z: u64 = 64;
/// Largest group count per dimension of a dispatch (FS §18.6.2).
pub const MAX_GROUPS_PER_DIM: u32 = 65535;
/// Call frames (FS §7.12): a call with this many frames active is skipped.
pub const MAX_CALL_DEPTH: usize = 32;
/// Nesting of structured control flow per subroutine.
pub const MAX_FLOW_NESTING: usize = 64;
/// v# and o# register numbers the register files hold (0..64).
pub const MAX_IO_REGISTERS: u32 = 64;
