//! Running a compiled shader: bindings to resource tables, chunks of
//! groups to worker threads, one call of the group function per group.
//!
//! In: a [`JitShader`], the caller's [`Bindings`], the group counts and
//! the dispatch options; worker threads come from `pool`. Out: UAV memory and counters changed as the
//! shader says, or the interpreter's validation errors, or
//! [`RuntimeError::BudgetExhausted`]. Invariants: bindings are checked
//! exactly as the interpreter checks them before any code runs; every
//! resource window handed to generated code lies inside its slice
//! (`Bindings::check_fits`); each worker owns its TGSM, x# and context
//! memory; a group runs in one call of the group function on one worker
//! (its batches one after another, a barrier resuming them only when every
//! batch has reached it or ended: `mod.rs`, `build`).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

use super::claims::Claims;
use super::context::{self, step_ids, BatchContext, ResDesc, STATUS_BUDGET, STATUS_DONE, W};
use super::ranges::Entry;
use super::typed::{TypedEnv, TypedView};
use super::JitShader;
use crate::analysis::{self, ResDecl, ResKind};
use crate::runtime::{
    BindingKind, Bindings, BufferKind, DispatchOptions, DispatchStats, RuntimeError, Slot, View,
};

/// The resource table with raw pointers into the caller's memory, and
/// the zero-padded copies of constant buffers bound shorter than their
/// floor (`Plan::cb_floor`), which the table points at instead.
pub(super) struct Table {
    pub(super) descs: Vec<ResDesc>,
    /// Owned by the table so that the entries pointing at them stay valid.
    _pads: Vec<Box<[u32]>>,
}

// SAFETY: the pointers point into memory the bindings borrow (UAVs
// exclusively, as `UavMemory`) for the whole dispatch or batch runner;
// generated code accesses them only inside their checked windows, and
// concurrent access by different groups or batches is the shader's own
// (D3D-undefined) race, done with atomics where the shader asks for them.
unsafe impl Sync for Table {}
// SAFETY: as above; the table is plain addresses, tied to no thread.
unsafe impl Send for Table {}

fn bufinfo(view: &View) -> u32 {
    let n = match view {
        View::Buffer(bv) => match bv.kind {
            BufferKind::Raw => bv.num_elements.saturating_mul(4),
            _ => bv.num_elements,
        },
        View::Texture(_) => 0,
    };
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The window of a raw or structured buffer view: (first byte, DWORDs).
fn window(view: &View) -> Option<(u64, u64)> {
    match view {
        View::Buffer(bv) if !matches!(bv.kind, BufferKind::Typed(_)) => {
            Some((bv.start_byte(), bv.size_bytes() / 4))
        }
        _ => None,
    }
}

/// A copy of the constant buffer `data` padded with zero DWORDs to
/// `floor` DWORDs, when it holds fewer whole DWORDs than that.
fn padded_cb(data: &[u8], floor: u32) -> Option<Box<[u32]>> {
    let floor = floor.min(super::plan::MAX_CB_FLOOR) as usize;
    if data.len() / 4 >= floor {
        return None;
    }
    let mut pad = vec![0u32; floor].into_boxed_slice();
    for (w, b) in pad.iter_mut().zip(data.chunks_exact(4)) {
        *w = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    }
    Some(pad)
}

/// Builds the resource table over `entries`. A UAV's hidden counter is
/// the bindings' own atomic cell, so every thread and batch running
/// against the bindings moves the same counter. A constant buffer with a
/// floor (`floors`, by table index) shorter than it is read from a
/// zero-padded copy: the DWORDs past its bound size read 0 either way.
pub(super) fn build_table(entries: &[Entry], floors: &BTreeMap<usize, u32>, b: &Bindings) -> Table {
    let mut table = Vec::with_capacity(entries.len());
    let mut pads = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        let mut d = ResDesc::EMPTY;
        match *e {
            Entry::Empty => {}
            Entry::Header {
                count,
                first,
                empty,
            } => {
                d.dwords = count;
                d.bufinfo = first;
                d._pad = empty;
            }
            Entry::Slot(BindingKind::ConstantBuffer, slot) => {
                let data = b.get_cb(slot).unwrap_or(&[]);
                d.base = data.as_ptr().cast_mut();
                d.dwords = data.len() as u64 / 4;
                if let Some(pad) = floors.get(&i).and_then(|&f| padded_cb(data, f)) {
                    // The box's heap block stays put when the box moves.
                    d.base = pad.as_ptr().cast::<u8>().cast_mut();
                    d.dwords = pad.len() as u64;
                    pads.push(pad);
                }
            }
            Entry::Slot(BindingKind::Srv, slot) => {
                if let Some(s) = b.get_srv(slot) {
                    d.bufinfo = bufinfo(&s.view);
                    if let Some((start, dwords)) = window(&s.view) {
                        // check_fits: start + 4 * dwords <= data.len().
                        d.base = s.data.as_ptr().wrapping_add(start as usize).cast_mut();
                        d.dwords = dwords;
                    }
                }
            }
            Entry::Slot(BindingKind::Uav, slot) => {
                if let Some(u) = b.get_uav(slot) {
                    d.bufinfo = bufinfo(&u.view);
                    if let Some((start, dwords)) = window(&u.view) {
                        d.base = u.data.as_mut_ptr().wrapping_add(start as usize);
                        d.dwords = dwords;
                    }
                    if let Some(c) = &u.counter {
                        d.counter = c.cell().as_ptr();
                    }
                }
            }
        }
        table.push(d);
    }
    Table {
        descs: table,
        _pads: pads,
    }
}

/// The views of the table's t#/u# entries (typed and raw: the typed and
/// texture shims read them), the samplers and the shader.
pub(super) fn build_typed(shader: &JitShader, entries: &[Entry], b: &Bindings) -> TypedEnv {
    let prepared = &shader.inner.prepared;
    // The declared texture dimension of a slot, for resinfo.
    let declared = |decls: &[ResDecl], slot: Slot| {
        decls
            .iter()
            .find(|d| d.space == slot.space && (d.lower..=d.upper).contains(&slot.index))
            .and_then(|d| match d.kind {
                ResKind::Typed { dim, .. } => Some(dim),
                _ => None,
            })
    };
    let slots = entries
        .iter()
        .map(|e| match *e {
            Entry::Slot(BindingKind::Srv, slot) => b.get_srv(slot).map(|s| TypedView {
                view: s.view,
                data: s.data.as_ptr().cast_mut(),
                len: s.data.len(),
                writable: false,
                is_uav: false,
                declared: declared(&prepared.srvs, slot),
            }),
            Entry::Slot(BindingKind::Uav, slot) => b.get_uav(slot).map(|u| TypedView {
                view: u.view,
                // Writable views are reached through `UavMemory` again
                // (`typed::uav_memory`), never as a slice.
                data: u.data.as_mut_ptr(),
                len: u.data.len(),
                writable: true,
                is_uav: true,
                declared: declared(&prepared.uavs, slot),
            }),
            _ => None,
        })
        .collect();
    let mut env = TypedEnv {
        slots,
        shader: Some(shader.clone()),
        samplers: b.samplers.clone(),
        quads: false,
        raster_samples: 1,
        plans: Vec::new(),
        vectors: Default::default(),
    };
    env.plans = super::sample::plans(shader, &env);
    env.vectors = super::sample::vector_table(shader, &env.plans);
    env
}

/// What one worker owns: the memory of one group, reused for every group
/// the worker runs and, through [`Spare`], by later dispatches.
struct Worker {
    tgsm: Vec<u32>,
    /// One context per batch, consecutive (the group function steps
    /// through them by `CTX_SIZE`); never resized, so the pointers the
    /// contexts hold stay valid.
    ctxs: Vec<BatchContext>,
    /// Per batch: x# storage and the barrier (tier 0: variable) save area.
    xregs: Vec<Vec<u32>>,
    saves: Vec<Vec<u128>>,
}

// SAFETY: the contexts' pointers point into this worker's own vectors
// (heap memory, which does not move with the value) or at the tables of
// the dispatch that last bound it; generated code follows them only
// during a dispatch, after `bind` has pointed them at that dispatch's
// tables. Nothing in a worker is tied to a thread.
unsafe impl Send for Worker {}

/// A spare worker is kept only when it owns at most this many bytes, so
/// that a shader does not hold large x# or TGSM areas between dispatches.
const SPARE_BYTES: usize = 1 << 20;

/// At most this many spare workers are kept per shader.
const SPARE_WORKERS: usize = 64;

/// The workers of a shader's finished dispatches, handed to its next ones:
/// a dispatch then builds no contexts (each with its lanes' thread ids) and
/// allocates no group memory: 6% (saxpy) to 37% (reduce) of a 4,096-thread
/// dispatch's instructions (docs/performance.md). A worker is kept only after its dispatch ran
/// every group it claimed to the end, so it holds the state that every
/// group leaves for the next group of the same worker; the next dispatch
/// points it at its own tables (`Worker::bind`) before any code runs.
#[derive(Default)]
pub(super) struct Spare(Mutex<Vec<Worker>>);

impl Spare {
    fn take(&self) -> Option<Worker> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).pop()
    }

    fn keep(&self, w: Worker) {
        if w.bytes() <= SPARE_BYTES {
            let mut spare = self.0.lock().unwrap_or_else(|e| e.into_inner());
            if spare.len() < SPARE_WORKERS {
                spare.push(w);
            }
        }
    }
}

impl Worker {
    /// The memory this worker owns, in bytes.
    fn bytes(&self) -> usize {
        let xregs: usize = self.xregs.iter().map(Vec::len).sum();
        let saves: usize = self.saves.iter().map(Vec::len).sum();
        4 * self.tgsm.len()
            + std::mem::size_of::<BatchContext>() * self.ctxs.len()
            + 4 * xregs
            + 16 * saves
    }

    /// Points every batch context at the dispatch's tables and at this
    /// worker's TGSM, x# and save areas: once per dispatch, since none of
    /// them moves between groups (the vectors are resized only by
    /// [`Worker::fit_save`], which points the contexts again).
    fn bind(&mut self, table: &Table, typed: &TypedEnv) {
        let tgsm = context::tgsm_start(&mut self.tgsm);
        for ((c, x), s) in self
            .ctxs
            .iter_mut()
            .zip(&mut self.xregs)
            .zip(&mut self.saves)
        {
            c.res = table.descs.as_ptr();
            c.typed = (typed as *const TypedEnv).cast();
            c.tgsm = tgsm;
            c.xregs = x.as_mut_ptr();
            c.save = s.as_mut_ptr().cast();
        }
    }

    /// Grows every save area to `slots` 16-byte slots (the tier-1 code
    /// installed during the dispatch may need more than tier 0 did).
    fn fit_save(&mut self, slots: usize) {
        for (c, s) in self.ctxs.iter_mut().zip(&mut self.saves) {
            if s.len() < slots {
                s.resize(slots, 0);
                c.save = s.as_mut_ptr().cast();
            }
        }
    }
}

impl JitShader {
    /// Runs `groups` thread groups on all cores.
    pub fn dispatch(
        &self,
        b: &mut Bindings,
        groups: [u32; 3],
        o: &DispatchOptions,
    ) -> Result<DispatchStats, RuntimeError> {
        let threads = super::pool::cores();
        self.dispatch_threads(b, groups, o, threads)
    }

    /// Runs `groups` thread groups on `threads` workers (1 = the calling
    /// thread only).
    pub fn dispatch_threads(
        &self,
        b: &mut Bindings,
        groups: [u32; 3],
        o: &DispatchOptions,
        threads: usize,
    ) -> Result<DispatchStats, RuntimeError> {
        // The same checks as the interpreter's dispatch.
        analysis::check_dispatch(&self.inner.prepared, b, groups)?;
        let total = u64::from(groups[0]) * u64::from(groups[1]) * u64::from(groups[2]);
        let mut stats = DispatchStats::default();
        if total == 0 {
            return Ok(stats);
        }
        // The helpers wake while the tables are built (`pool`).
        let workers = threads
            .max(1)
            .min(usize::try_from(total).unwrap_or(usize::MAX));
        super::pool::wake(workers - 1);
        let entries = super::ranges::entries(&self.inner.plan, b)?;
        let table = build_table(&entries, &self.inner.plan.cb_floor, b);
        let typed = build_typed(self, &entries, b);
        self.run_groups(&table, &typed, groups, total, o.budget, threads.max(1))?;
        stats.groups = total;
        Ok(stats)
    }

    fn new_worker(&self) -> Worker {
        let inner = &self.inner;
        let size = inner.prepared.group_size;
        let threads = (size[0] * size[1] * size[2]) as usize;
        let count = threads.div_ceil(W);
        let ctxs = (0..count)
            .map(|k| {
                let mut ctx = BatchContext::empty();
                ctx.set_lanes(size, (k * W) as u32);
                ctx
            })
            .collect();
        Worker {
            tgsm: context::tgsm_area(inner.plan.tgsm_dwords),
            ctxs,
            xregs: vec![vec![0; inner.plan.x_elems as usize * 4 * W]; count],
            saves: vec![vec![0; inner.save_slots()]; count],
        }
    }

    fn run_groups(
        &self,
        table: &Table,
        typed: &TypedEnv,
        groups: [u32; 3],
        total: u64,
        budget: u64,
        threads: usize,
    ) -> Result<(), RuntimeError> {
        let stop = AtomicBool::new(false);
        let first_error: Mutex<Option<(u64, RuntimeError)>> = Mutex::new(None);
        let workers = threads.min(usize::try_from(total).unwrap_or(usize::MAX));
        // Each worker owns a contiguous share of the groups and claims it in
        // chunks (`claims`): about 16 chunks per worker, at most 64 groups
        // each, so that an idle worker can take over part of a busy one's.
        // The calling thread is worker 0, so that the same share falls to
        // the same thread when a dispatch is repeated.
        let chunk = (total / (16 * workers as u64)).clamp(1, 64);
        let claims = Claims::new(total, workers, chunk);
        let caller = std::thread::current().id();
        let joined = AtomicUsize::new(1);
        let work = || {
            let me = if std::thread::current().id() == caller {
                0
            } else {
                joined.fetch_add(1, Ordering::Relaxed)
            };
            // Generated code runs with FTZ+DAZ (`fpmode`), set once per
            // worker and dispatch and restored when the worker is done.
            let _mode = super::fpmode::FlushMode::enter();
            let mut w = self.inner.spare.take().unwrap_or_else(|| self.new_worker());
            w.bind(table, typed);
            let mut from = 0;
            loop {
                if stop.load(Ordering::Relaxed) {
                    return;
                }
                let Some(range) = claims.claim(me, &mut from) else {
                    self.inner.spare.keep(w);
                    return;
                };
                if let Err((g, e)) = self.run_chunk(&mut w, table, typed, groups, range, budget) {
                    stop.store(true, Ordering::Relaxed);
                    let mut fe = first_error.lock().unwrap_or_else(|e| e.into_inner());
                    if fe.as_ref().is_none_or(|(k, _)| g < *k) {
                        *fe = Some((g, e));
                    }
                    return;
                }
            }
        };
        // The calling thread is one of the workers; the others come from
        // the shared pool.
        super::pool::run(claims.workers() - 1, &work);
        match first_error.into_inner().unwrap_or_else(|e| e.into_inner()) {
            Some((_, e)) => Err(e),
            None => Ok(()),
        }
    }

    /// Runs the groups `range` (flattened ids, x fastest) on worker `w`,
    /// one call of the group function per group (it runs every batch to
    /// its end, meeting at each barrier); returns the first failing
    /// group's flattened id with its error. What does not change between
    /// the groups of a chunk is decided once: the code (tier-1 code
    /// installed meanwhile is taken up by the next chunk, `tiers.rs`), the
    /// save area's size and which areas need clearing; the group id is
    /// stepped instead of divided out.
    fn run_chunk(
        &self,
        w: &mut Worker,
        table: &Table,
        typed: &TypedEnv,
        groups: [u32; 3],
        range: std::ops::Range<u64>,
        budget: u64,
    ) -> Result<(), (u64, RuntimeError)> {
        let inner = &self.inner;
        let size = inner.prepared.group_size;
        let code = inner.code();
        if w.saves.first().is_some_and(|s| s.len() < code.save_slots) {
            w.fit_save(code.save_slots);
        }
        let count = w.ctxs.len() as u32;
        self.note_calls(u64::from(count) * (range.end - range.start));
        // Calls of `fill` on empty vectors are not free (a libc memset
        // call each): only TGSM and x# storage that exist are cleared, and
        // TGSM only when a group could read its starting zero (a program
        // that stores every g# DWORD before its first barrier cannot).
        let clear_tgsm = !w.tgsm.is_empty()
            && (!inner.prepared.tgsm_written_first || super::opt_off("tgsmfill"));
        let clear_x = w.xregs.first().is_some_and(|x| !x.is_empty());
        debug_assert!(
            w.ctxs
                .iter()
                .all(|c| c.res == table.descs.as_ptr()
                    && c.typed == (typed as *const TypedEnv).cast())
        );
        let gx = u64::from(groups[0]);
        let gy = u64::from(groups[1]);
        let g0 = range.start;
        let mut id = [
            (g0 % gx) as u32,
            ((g0 / gx) % gy) as u32,
            (g0 / (gx * gy)) as u32,
        ];
        if code.runs {
            return self.run_runs(w, code, groups, range, id, budget);
        }
        for g in range {
            if clear_tgsm {
                w.tgsm.fill(0);
            }
            if clear_x {
                w.xregs.iter_mut().for_each(|x| x.fill(0));
            }
            if code.resumes {
                w.ctxs.iter_mut().for_each(|c| c.resume = 0);
            }
            let first = &mut w.ctxs[0];
            first.set_group(id, size);
            first.budget = budget;
            first.waiting = 0;
            // SAFETY: the contexts are consecutive in one vector of
            // `count` elements; their pointers were set by `bind` and
            // `fit_save` to memory that lives for this call: the table,
            // this worker's TGSM and each batch's x# and save areas, all
            // of the sizes the plan and this code expect.
            let status = unsafe { (code.func)(w.ctxs.as_mut_ptr(), count) };
            if status != STATUS_DONE {
                return Err((g, group_error(status, id, &w.ctxs[0])));
            }
            step_ids(&mut id, groups, 1);
        }
        Ok(())
    }
}

/// The error of a group function's `status` (not [`STATUS_DONE`]) in
/// group `id`, whose first context is `first`.
fn group_error(status: u32, id: [u32; 3], first: &BatchContext) -> RuntimeError {
    match status {
        STATUS_BUDGET => RuntimeError::BudgetExhausted {
            group: id,
            inst_index: first.stopped_at as usize,
        },
        other => super::context::status_error(other),
    }
}

impl JitShader {
    /// [`JitShader::run_chunk`] for code that runs groups in runs
    /// (`jit::runs_groups`): one call per stretch of the chunk along x
    /// within a row, from group `id` (flattened `range.start`) on; the
    /// code steps the group's id and base itself and leaves the group it
    /// was on in the first context's `group_id`, so an error names it.
    fn run_runs(
        &self,
        w: &mut Worker,
        code: &super::Compiled,
        groups: [u32; 3],
        range: std::ops::Range<u64>,
        mut id: [u32; 3],
        budget: u64,
    ) -> Result<(), (u64, RuntimeError)> {
        let size = self.inner.prepared.group_size;
        let count = w.ctxs.len() as u32;
        let mut g = range.start;
        while g < range.end {
            // To the chunk's end or the row's, whichever comes first.
            let left = range.end - g;
            let run = left.min(u64::from(groups[0] - id[0])) as u32;
            let first = &mut w.ctxs[0];
            first.set_group(id, size);
            first.budget = budget;
            first.group_budget = budget;
            first.waiting = 0;
            first.run = run;
            // SAFETY: as in `run_chunk`; the code reads `run` and steps
            // through `run` groups of the same contexts.
            let status = unsafe { (code.func)(w.ctxs.as_mut_ptr(), count) };
            if status != STATUS_DONE {
                let at = [w.ctxs[0].group_id[0], id[1], id[2]];
                let e = group_error(status, at, &w.ctxs[0]);
                return Err((g + u64::from(at[0] - id[0]), e));
            }
            g += u64::from(run);
            step_ids(&mut id, groups, run);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::padded_cb;

    #[test]
    fn a_cb_shorter_than_its_floor_is_padded_with_zero_dwords() {
        let data = [1u8, 0, 0, 0, 2, 0, 0, 0, 3, 0];
        // Two whole DWORDs and two bytes of a third, which reads as 0.
        assert_eq!(padded_cb(&data, 4).as_deref(), Some(&[1, 2, 0, 0][..]));
        assert_eq!(padded_cb(&[], 2).as_deref(), Some(&[0, 0][..]));
        // Long enough: the binding is read in place.
        assert_eq!(padded_cb(&data, 2), None);
    }
}
