//! The memory layout shared by generated code and the Rust group runner.
//!
//! In: nothing (types and constants only). Out: [`BatchContext`], one per
//! batch of a group (the group function takes the first and their count,
//! and reaches batch `k` at `CTX_SIZE * k` bytes further; the group-wide
//! fields live in the first), and [`ResDesc`], one entry of the resource
//! table. Invariant: both are `#[repr(C)]` and generated
//! code reaches their fields only through the `OFF_*` offsets computed here
//! with `offset_of!`, so a field change cannot desynchronise the two sides.
//! Every pointer in a context points into memory that outlives the call:
//! the runner owns TGSM, x# storage and the barrier save area; resource
//! windows point into the caller's bindings, already checked to fit.

use std::mem::offset_of;

/// Threads per batch (lanes). A multiple of 4: each 32-bit register
/// component of a batch is `W / 4` vectors of type `i32x4`.
pub const W: usize = 8;
/// `i32x4` vectors per register component.
pub const N: usize = W / 4;
/// Rows in [`BatchContext::lanes`].
pub const LANE_ROWS: usize = 8;

/// Status a group function returns: every batch ran to its end.
pub const STATUS_DONE: u32 = 0;
/// Status: the loop budget ran out (a runaway loop); the first context's
/// `stopped_at` names the `endloop`.
pub const STATUS_BUDGET: u32 = 2;
/// Status: a group-mode function was called with a batch count other than
/// its group's (its pairs of batches assume exactly that count); nothing
/// ran. The runner never does this.
pub const STATUS_COUNT: u32 = 3;
/// `resume` of a batch that has run to its end in this group (its later
/// passes through the group's barriers skip it).
pub const RESUME_DONE: u32 = u32::MAX;
/// Status `STATUS_ABORT + i`: an active lane executed the `abort` at
/// instruction `i`.
pub const STATUS_ABORT: u32 = 0x100;

/// The runtime error of a batch status that is neither done, barrier nor
/// budget: an `abort` (the interpreter's error for it) or a status the
/// compiled code never produces.
pub fn status_error(status: u32) -> crate::runtime::RuntimeError {
    match status.checked_sub(STATUS_ABORT) {
        Some(i) => crate::runtime::RuntimeError::Unsupported {
            inst_index: i as usize,
            what: "abort (the shader aborted)".into(),
        },
        None => crate::runtime::RuntimeError::InvalidProgram {
            inst_index: None,
            reason: format!("compiled shader returned status {status}"),
        },
    }
}

/// One bound memory window (a t#/u# raw or structured buffer or a cb#).
///
/// `base` is the first byte of the view window and `dwords` its size in
/// whole DWORDs; generated code reads or writes DWORD `d` only when
/// `d < dwords`. An unbound entry has `dwords == 0`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ResDesc {
    pub base: *mut u8,
    pub dwords: u64,
    /// The hidden UAV counter (an `AtomicU32`), or null when there is none.
    pub counter: *mut u32,
    /// What `bufinfo` returns for this view (elements, bytes for raw).
    pub bufinfo: u32,
    pub _pad: u32,
}

impl ResDesc {
    /// The entry of an unbound or non-buffer slot: every access is out of bounds.
    pub const EMPTY: ResDesc = ResDesc {
        base: std::ptr::null_mut(),
        dwords: 0,
        counter: std::ptr::null_mut(),
        bufinfo: 0,
        _pad: 0,
    };
}

/// Offsets of [`ResDesc`] fields and its size.
pub const RES_BASE: i32 = offset_of!(ResDesc, base) as i32;
pub const RES_DWORDS: i32 = offset_of!(ResDesc, dwords) as i32;
pub const RES_COUNTER: i32 = offset_of!(ResDesc, counter) as i32;
pub const RES_BUFINFO: i32 = offset_of!(ResDesc, bufinfo) as i32;
pub const RES_SIZE: i64 = std::mem::size_of::<ResDesc>() as i64;

/// Everything one batch reads and writes besides resource memory. The
/// group-wide fields (`group_id`, `group_base`, `budget`, `stopped_at`,
/// `waiting`) are read and written in the group's first context only.
#[repr(C, align(16))]
#[derive(Debug)]
pub struct BatchContext {
    /// vThreadIDInGroup per lane (x, y, z).
    pub tid: [[u32; W]; 3],
    /// vThreadIDInGroupFlattened per lane.
    pub flat: [u32; W],
    /// 0xFFFFFFFF for lanes that hold a thread of the group, 0 past the end.
    pub live: [u32; W],
    /// 0xFFFFFFFF for lanes whose memory writes count: every lane of a
    /// compute batch; pixel batches clear it for helper lanes.
    pub uav_lanes: [u32; W],
    /// Out (pixel batches): 0xFFFFFFFF for lanes that executed `discard`.
    pub discarded: [u32; W],
    /// Rows of four lanes passed to and from the out-of-line lane access
    /// (`jit::lanes`): addresses, offsets, masks and values.
    pub lanes: [[u32; 4]; LANE_ROWS],
    /// A DWORD that out-of-bounds and masked-off loads read (always 0).
    pub zero: [u32; 4],
    /// A DWORD that out-of-bounds and masked-off stores write (never read).
    pub sink: [u32; 4],
    /// vThreadGroupID (x, y, z, 0).
    pub group_id: [u32; 4],
    /// The group's first thread id per dimension (`group_id * size`,
    /// wrapping): generated code adds it to `tid` for vThreadID, so a new
    /// group changes two small arrays instead of every lane.
    pub group_base: [u32; 4],
    /// Resume point: 0 = start, k = after the k-th barrier,
    /// [`RESUME_DONE`] = ended. Per batch; the runner sets it to 0 for
    /// every batch of a group with barriers.
    pub resume: u32,
    /// First context only: set by generated code when a batch stopped at
    /// a barrier in the current pass over the group's batches (another
    /// pass follows); the runner sets it to 0 before the call.
    pub waiting: u32,
    /// Out: the index of the `endloop` whose budget charge ran out, when
    /// the status is [`STATUS_BUDGET`].
    pub stopped_at: u32,
    /// Loop iterations (weighted by loop length) left before the run stops.
    pub budget: u64,
    /// First context only, for a function that runs groups in runs
    /// (`JitShader::dispatch`, "group runs" in docs/architecture.md): the
    /// number of groups along x this call runs, from `group_id` on
    /// (generated code steps `group_id.x` and `group_base.x` in its own
    /// registers and stores the group it is on to `group_id.x`, so an
    /// error names it), and the budget each of them starts with.
    pub run: u32,
    pub group_budget: u64,
    /// Resource table, indexed by the compile-time plan.
    pub res: *const ResDesc,
    /// This group's TGSM, all g# registers back to back.
    pub tgsm: *mut u32,
    /// This batch's x# storage: `[element][component][lane]` DWORDs.
    pub xregs: *mut u32,
    /// This batch's barrier save area (one 16-byte slot per saved vector).
    pub save: *mut u8,
    /// The dispatch's typed views (`typed::TypedEnv`), for the typed shims.
    pub typed: *const u8,
    /// Coordinates and values passed to and from the typed shims.
    pub io: [u32; 8],
    /// Vertex/pixel batches: v# as `[register][component][lane]` DWORDs
    /// (`Prepared::io_regs` registers), read once at the start.
    pub inputs: *const u32,
    /// Vertex/pixel batches: o# in the same layout, written when the
    /// batch ends.
    pub outputs: *mut u32,
    /// Group-level code (`group.rs`) whose saved components fit keeps
    /// them here instead of behind `save`: a region's batch then reads
    /// and writes them at fixed offsets from its context, with no
    /// pointer to load first.
    pub inline_save: [u128; INLINE_SAVE_SLOTS],
}

/// 16-byte slots of [`BatchContext::inline_save`]: eight r# components of
/// a batch of [`W`] lanes.
pub const INLINE_SAVE_SLOTS: usize = 16;

pub const OFF_TID: i32 = offset_of!(BatchContext, tid) as i32;
pub const OFF_FLAT: i32 = offset_of!(BatchContext, flat) as i32;
pub const OFF_LIVE: i32 = offset_of!(BatchContext, live) as i32;
pub const OFF_UAV_LANES: i32 = offset_of!(BatchContext, uav_lanes) as i32;
pub const OFF_DISCARDED: i32 = offset_of!(BatchContext, discarded) as i32;
pub const OFF_LANES: i32 = offset_of!(BatchContext, lanes) as i32;
pub const OFF_INPUTS: i32 = offset_of!(BatchContext, inputs) as i32;
pub const OFF_OUTPUTS: i32 = offset_of!(BatchContext, outputs) as i32;
pub const OFF_ZERO: i32 = offset_of!(BatchContext, zero) as i32;
pub const OFF_SINK: i32 = offset_of!(BatchContext, sink) as i32;
pub const OFF_GROUP_BASE: i32 = offset_of!(BatchContext, group_base) as i32;
pub const OFF_GROUP_ID: i32 = offset_of!(BatchContext, group_id) as i32;
pub const OFF_RESUME: i32 = offset_of!(BatchContext, resume) as i32;
pub const OFF_WAITING: i32 = offset_of!(BatchContext, waiting) as i32;
/// The distance between two consecutive contexts of a group: the group
/// function reaches batch `k` at `ctx + k * CTX_SIZE`.
pub const CTX_SIZE: i64 = std::mem::size_of::<BatchContext>() as i64;
pub const OFF_STOPPED_AT: i32 = offset_of!(BatchContext, stopped_at) as i32;
pub const OFF_BUDGET: i32 = offset_of!(BatchContext, budget) as i32;
pub const OFF_RUN: i32 = offset_of!(BatchContext, run) as i32;
pub const OFF_GROUP_BUDGET: i32 = offset_of!(BatchContext, group_budget) as i32;
pub const OFF_RES: i32 = offset_of!(BatchContext, res) as i32;
pub const OFF_TGSM: i32 = offset_of!(BatchContext, tgsm) as i32;

/// DWORDs of zeros a group's TGSM area holds before the g# memory the
/// context points at: a vector load whose lanes end at a g# DWORD may
/// start up to three DWORDs before g# (`memory.rs`, the tail shape),
/// and its idle lanes read these words.
pub const TGSM_LEAD: usize = 4;

/// A zeroed TGSM area for `dwords` DWORDs of g# memory, with
/// [`TGSM_LEAD`] words in front of it (none when there is no g#).
pub fn tgsm_area(dwords: u32) -> Vec<u32> {
    if dwords == 0 {
        return Vec::new();
    }
    vec![0; TGSM_LEAD + dwords as usize]
}

/// Where the g# memory of an area from [`tgsm_area`] starts.
pub fn tgsm_start(area: &mut [u32]) -> *mut u32 {
    if area.is_empty() {
        return area.as_mut_ptr();
    }
    area[TGSM_LEAD..].as_mut_ptr()
}
pub const OFF_XREGS: i32 = offset_of!(BatchContext, xregs) as i32;
pub const OFF_SAVE: i32 = offset_of!(BatchContext, save) as i32;
pub const OFF_INLINE_SAVE: i32 = offset_of!(BatchContext, inline_save) as i32;
pub const OFF_TYPED: i32 = offset_of!(BatchContext, typed) as i32;
pub const OFF_IO: i32 = offset_of!(BatchContext, io) as i32;

impl BatchContext {
    /// A context with every lane dead (but allowed to write memory once
    /// live) and every pointer null.
    pub fn empty() -> BatchContext {
        BatchContext {
            tid: [[0; W]; 3],
            flat: [0; W],
            live: [0; W],
            uav_lanes: [u32::MAX; W],
            discarded: [0; W],
            lanes: [[0; 4]; LANE_ROWS],
            zero: [0; 4],
            sink: [0; 4],
            group_id: [0; 4],
            group_base: [0; 4],
            resume: 0,
            waiting: 0,
            stopped_at: 0,
            budget: 0,
            run: 1,
            group_budget: 0,
            res: std::ptr::null(),
            tgsm: std::ptr::null_mut(),
            xregs: std::ptr::null_mut(),
            save: std::ptr::null_mut(),
            typed: std::ptr::null(),
            io: [0; 8],
            inputs: std::ptr::null(),
            outputs: std::ptr::null_mut(),
            inline_save: [0; INLINE_SAVE_SLOTS],
        }
    }

    /// Fills the thread ids of the batch starting at flattened thread
    /// `first` of group `group` with `size` threads per dimension.
    pub fn set_threads(&mut self, group: [u32; 3], size: [u32; 3], first: u32) {
        self.set_lanes(size, first);
        self.set_group(group, size);
    }

    /// Fills the group-independent lane fields (`tid`, `flat`, `live`) of
    /// the batch starting at flattened thread `first`; the runner does it
    /// once per worker, since only `group_id` and `group_base` change per
    /// group.
    ///
    /// The ids of the first lane are divided out of `first` and the
    /// others step from it: with three divisions a lane, filling the 32
    /// batches of a 256-thread group took about 5% of reduce's dispatch
    /// (`perf`).
    pub fn set_lanes(&mut self, size: [u32; 3], first: u32) {
        let total = size[0] * size[1] * size[2];
        let mut t = [
            first % size[0],
            (first / size[0]) % size[1],
            first / (size[0] * size[1]),
        ];
        for l in 0..W {
            let flat = first + l as u32;
            let live = flat < total;
            for (tid, t) in self.tid.iter_mut().zip(t) {
                tid[l] = if live { t } else { 0 };
            }
            self.flat[l] = if live { flat } else { 0 };
            self.live[l] = if live { u32::MAX } else { 0 };
            // Past the group's end the ids are unused: those lanes are dead.
            step_ids(&mut t, size, 1);
        }
    }

    /// Sets `group_id` and `group_base` for group `group`.
    pub fn set_group(&mut self, group: [u32; 3], size: [u32; 3]) {
        self.group_id = [group[0], group[1], group[2], 0];
        for d in 0..3 {
            self.group_base[d] = group[d].wrapping_mul(size[d]);
        }
    }

    /// vThreadID of lane `l` in dimension `d`, as generated code computes
    /// it (`group_base + tid`).
    pub fn gtid(&self, d: usize, l: usize) -> u32 {
        self.group_base[d].wrapping_add(self.tid[d][l])
    }
}

/// Steps the 3-D id `id` of a grid of `size` by `by` along x, which
/// reach at most the end of its row, into the next row (and slice) when
/// they do: the next flattened id, x fastest, without a division.
pub(super) fn step_ids(id: &mut [u32; 3], size: [u32; 3], by: u32) {
    id[0] += by;
    if id[0] == size[0] {
        id[0] = 0;
        id[1] += 1;
        if id[1] == size[1] {
            id[1] = 0;
            id[2] += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_past_the_group_are_dead() {
        let mut c = BatchContext::empty();
        c.set_threads([1, 0, 0], [3, 2, 1], 0);
        assert_eq!(c.live[..6], [u32::MAX; 6]);
        assert_eq!(c.live[6..], [0; W - 6]);
        assert_eq!(c.tid[0][..6], [0, 1, 2, 0, 1, 2]);
        assert_eq!(c.tid[1][..6], [0, 0, 0, 1, 1, 1]);
        assert_eq!([c.gtid(0, 0), c.gtid(0, 1), c.gtid(0, 2)], [3, 4, 5]);
        assert_eq!(c.flat[5], 5);
    }

    #[test]
    fn stepped_lane_ids_are_the_divided_ones() {
        for size in [
            [1, 1, 1],
            [3, 2, 1],
            [5, 3, 7],
            [8, 1, 1],
            [1, 9, 2],
            [1024, 1, 1],
        ] {
            let total = size[0] * size[1] * size[2];
            for first in (0..total).step_by(W) {
                let mut c = BatchContext::empty();
                c.set_lanes(size, first);
                for l in 0..W {
                    let flat = first + l as u32;
                    let want = if flat < total {
                        [
                            flat % size[0],
                            (flat / size[0]) % size[1],
                            flat / (size[0] * size[1]),
                        ]
                    } else {
                        [0; 3]
                    };
                    let got = [c.tid[0][l], c.tid[1][l], c.tid[2][l]];
                    assert_eq!(got, want, "size {size:?} flat {flat}");
                }
            }
        }
    }

    #[test]
    fn a_new_group_keeps_the_lanes_and_moves_the_global_ids() {
        let mut c = BatchContext::empty();
        c.set_threads([0, 0, 0], [4, 4, 1], 8);
        c.set_group([2, 3, 0], [4, 4, 1]);
        let mut d = BatchContext::empty();
        d.set_threads([2, 3, 0], [4, 4, 1], 8);
        assert_eq!(
            (c.tid, c.group_base, c.flat, c.live),
            (d.tid, d.group_base, d.flat, d.live)
        );
        assert_eq!(c.group_id, [2, 3, 0, 0]);
        assert_eq!((0..4).map(|l| c.gtid(1, l)).collect::<Vec<_>>(), [14; 4]);
    }

    #[test]
    fn vector_fields_are_16_byte_aligned() {
        for off in [
            OFF_TID,
            OFF_GROUP_BASE,
            OFF_FLAT,
            OFF_LIVE,
            OFF_UAV_LANES,
            OFF_DISCARDED,
            OFF_LANES,
            OFF_ZERO,
            OFF_SINK,
        ] {
            assert_eq!(off % 16, 0, "offset {off}");
        }
    }
}
