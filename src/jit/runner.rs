//! Running a compiled shader: bindings to resource tables, groups to
//! worker threads, batches through barriers.
//!
//! In: a [`JitShader`], the caller's [`Bindings`], the group counts and
//! the dispatch options; worker threads come from `pool`. Out: UAV memory and counters changed as the
//! shader says, or the interpreter's validation errors, or
//! [`RuntimeError::BudgetExhausted`]. Invariants: bindings are checked
//! exactly as the interpreter checks them before any code runs; every
//! resource window handed to generated code lies inside its slice
//! (`Bindings::check_fits`); each worker owns its TGSM, x# and context
//! memory; the batches of one group run on one worker, one after another,
//! and a barrier resumes them only when every batch has reached it or ended.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::Mutex;

use super::context::{BatchContext, ResDesc, STATUS_BARRIER, STATUS_BUDGET, STATUS_DONE, W};
use super::ranges::Entry;
use super::typed::{TypedEnv, TypedView};
use super::{BatchFn, JitShader};
use crate::analysis::{self, ResDecl, ResKind};
use crate::runtime::{
    BindingKind, Bindings, BufferKind, DispatchOptions, DispatchStats, RuntimeError, Slot, View,
};

/// The resource table with raw pointers into the caller's memory.
pub(super) struct Table(pub(super) Vec<ResDesc>);

// SAFETY: the pointers point into slices borrowed (mutably for UAVs) for
// the whole dispatch; generated code accesses them only inside their
// checked windows, and concurrent access by different groups is the
// shader's own (D3D-undefined) race, done with atomics where the shader
// asks for them.
unsafe impl Sync for Table {}

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

/// Builds the resource table over `entries`; `counters` receives one
/// cell (with its slot) per entry whose UAV has a hidden counter.
pub(super) fn build_table(
    entries: &[Entry],
    b: &mut Bindings,
    counters: &mut Vec<(usize, Slot, AtomicU32)>,
) -> Table {
    let mut table = Vec::with_capacity(entries.len());
    for (k, e) in entries.iter().enumerate() {
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
                if let Some(data) = b.get_cb(slot) {
                    d.base = data.as_ptr().cast_mut();
                    d.dwords = data.len() as u64 / 4;
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
                if let Some(u) = b.get_uav_mut(slot) {
                    d.bufinfo = bufinfo(&u.view);
                    if let Some((start, dwords)) = window(&u.view) {
                        d.base = u.data.as_mut_ptr().wrapping_add(start as usize);
                        d.dwords = dwords;
                    }
                    if let Some(c) = u.counter {
                        counters.push((k, slot, AtomicU32::new(c)));
                    }
                }
            }
        }
        table.push(d);
    }
    for (k, _, c) in counters.iter() {
        table[*k].counter = c.as_ptr();
    }
    Table(table)
}

/// The views of the table's t#/u# entries (typed and raw: the typed and
/// texture shims read them), the samplers and the shader.
pub(super) fn build_typed(shader: &JitShader, entries: &[Entry], b: &mut Bindings) -> TypedEnv {
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
            Entry::Slot(BindingKind::Uav, slot) => b.get_uav_mut(slot).map(|u| TypedView {
                view: u.view,
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
    };
    env.plans = super::sample::plans(shader, &env);
    env
}

/// One batch's memory, reused across groups by a worker.
struct Batch {
    ctx: Box<BatchContext>,
    xregs: Vec<u32>,
    save: Vec<u128>,
    done: bool,
}

/// What one worker owns.
struct Worker {
    tgsm: Vec<u32>,
    batches: Vec<Batch>,
}

impl Worker {
    /// Points every batch context at the dispatch's tables and at this
    /// worker's TGSM, x# and save areas: once per dispatch, since none of
    /// them moves between groups (the vectors are never resized).
    fn bind(&mut self, table: &Table, typed: &TypedEnv) {
        let tgsm = self.tgsm.as_mut_ptr();
        for bt in &mut self.batches {
            bt.ctx.res = table.0.as_ptr();
            bt.ctx.typed = (typed as *const TypedEnv).cast();
            bt.ctx.tgsm = tgsm;
            bt.ctx.xregs = bt.xregs.as_mut_ptr();
            bt.ctx.save = bt.save.as_mut_ptr().cast();
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
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
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
        let entries = super::ranges::entries(&self.inner.plan, b)?;
        let mut counters = Vec::new();
        let table = build_table(&entries, b, &mut counters);
        let typed = build_typed(self, &entries, b);
        let result = self.run_groups(&table, &typed, groups, total, o.budget, threads.max(1));
        for (_, slot, c) in &counters {
            if let Some(u) = b.get_uav_mut(*slot) {
                u.counter = Some(c.load(Ordering::Relaxed));
            }
        }
        result?;
        stats.groups = total;
        Ok(stats)
    }

    fn new_worker(&self) -> Worker {
        let inner = &self.inner;
        let size = inner.prepared.group_size;
        let threads = (size[0] * size[1] * size[2]) as usize;
        let count = threads.div_ceil(W);
        let batches = (0..count)
            .map(|k| Batch {
                ctx: {
                    let mut ctx = Box::new(BatchContext::empty());
                    ctx.set_lanes(size, (k * W) as u32);
                    ctx
                },
                xregs: vec![0; inner.plan.x_elems as usize * 4 * W],
                save: vec![0; inner.save_slots()],
                done: false,
            })
            .collect();
        Worker {
            tgsm: vec![0; inner.plan.tgsm_dwords as usize],
            batches,
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
        let next = AtomicU64::new(0);
        let stop = AtomicBool::new(false);
        let first_error: Mutex<Option<(u64, RuntimeError)>> = Mutex::new(None);
        let workers = threads.min(usize::try_from(total).unwrap_or(usize::MAX));
        // Groups are claimed in chunks, so that small groups do not make the
        // workers fight over the counter's cache line: about 16 chunks per
        // worker, at most 64 groups each.
        let chunk = (total / (16 * workers as u64)).clamp(1, 64);
        let work = || {
            // Generated code runs with FTZ+DAZ (`fpmode`), set once per
            // worker and dispatch and restored when the worker is done.
            let _mode = super::fpmode::FlushMode::enter();
            let mut w = self.new_worker();
            w.bind(table, typed);
            let mut mine = 0..0;
            loop {
                if stop.load(Ordering::Relaxed) {
                    return;
                }
                let g = match mine.next() {
                    Some(g) => g,
                    None => {
                        let first = next.fetch_add(chunk, Ordering::Relaxed);
                        if first >= total {
                            return;
                        }
                        mine = first + 1..(first + chunk).min(total);
                        first
                    }
                };
                let gx = u64::from(groups[0]);
                let gy = u64::from(groups[1]);
                let id = [
                    (g % gx) as u32,
                    ((g / gx) % gy) as u32,
                    (g / (gx * gy)) as u32,
                ];
                if let Err(e) = self.run_group(&mut w, table, typed, id, budget) {
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
        super::pool::run(workers.saturating_sub(1), &work);
        match first_error.into_inner().unwrap_or_else(|e| e.into_inner()) {
            Some((_, e)) => Err(e),
            None => Ok(()),
        }
    }

    /// Runs group `id` on worker `w`: every batch to its end, meeting at
    /// each barrier.
    fn run_group(
        &self,
        w: &mut Worker,
        table: &Table,
        typed: &TypedEnv,
        id: [u32; 3],
        mut budget: u64,
    ) -> Result<(), RuntimeError> {
        let inner = &self.inner;
        let size = inner.prepared.group_size;
        // The code is chosen once per group (`tiers.rs`).
        let code = inner.code();
        let func: BatchFn = code.func;
        // Calls of `fill` on empty vectors are not free (a libc memset
        // call each): only TGSM and x# storage that exist are cleared.
        if !w.tgsm.is_empty() {
            w.tgsm.fill(0);
        }
        debug_assert!(w.batches.iter().all(|bt| bt.ctx.res == table.0.as_ptr()
            && bt.ctx.typed == (typed as *const TypedEnv).cast()));
        for bt in w.batches.iter_mut() {
            bt.ctx.set_group(id, size);
            bt.ctx.resume = 0;
            if !bt.xregs.is_empty() {
                bt.xregs.fill(0);
            }
            bt.done = false;
            if bt.save.len() < code.save_slots {
                bt.save.resize(code.save_slots, 0);
                bt.ctx.save = bt.save.as_mut_ptr().cast();
            }
        }
        self.note_calls(w.batches.len() as u64);
        loop {
            let mut waiting = false;
            for bt in w.batches.iter_mut().filter(|b| !b.done) {
                bt.ctx.budget = budget;
                // SAFETY: the context's pointers were set above to memory
                // that lives for this call: the table, this worker's TGSM
                // and this batch's x# and save areas, all of the sizes the
                // plan and the compiled code expect.
                let status = unsafe { func(&mut *bt.ctx) };
                budget = bt.ctx.budget;
                match status {
                    STATUS_DONE => bt.done = true,
                    STATUS_BARRIER => waiting = true,
                    STATUS_BUDGET => {
                        return Err(RuntimeError::BudgetExhausted {
                            group: id,
                            inst_index: bt.ctx.stopped_at as usize,
                        })
                    }
                    other => return Err(super::context::status_error(other)),
                }
            }
            if !waiting {
                return Ok(());
            }
        }
    }
}
