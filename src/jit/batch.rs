//! Running a compiled vertex or pixel shader over batches of invocations,
//! from any number of threads at once.
//!
//! In: a [`JitShader`] of a vertex or pixel program, the caller's
//! [`Bindings`] (shared) and, per batch, [`BatchInputs`]. Out: a
//! [`BatchResult`] per batch and the UAV writes of the lanes that are
//! neither helpers nor discarded. Invariants: the bindings are checked
//! exactly as the interpreter checks them (`Interpreter::check_bindings`)
//! once, when a [`JitBatchRunner`] is made, and the inputs
//! (`runtime::batch::check`) before each batch runs; the resource table
//! and views are built once per runner and only read afterwards, so any
//! number of threads may run batches through one runner; each running
//! batch has its own [`Areas`] (taken from the runner's pool, so a thread
//! that runs many batches allocates none after its first); invocations go
//! through the compiled function [`W`] at a time (two pixel quads, or
//! eight vertices), lanes past the end are dead and helper lanes are live
//! but have `uav_lanes` cleared; the input and output areas handed to the
//! code hold exactly `io_regs * 4 * W` DWORDs, the layout `stage.rs` was
//! compiled for. The code is chosen afresh for every call of the function
//! (`tiers.rs`): a tier-up installed while batches run is picked up by
//! their next call, and a call never changes code halfway.

use std::sync::Mutex;

use super::context::{self, BatchContext, STATUS_BUDGET, STATUS_DONE, W};
use super::runner::{build_table, build_typed, Table};
use super::transpose::{lanes_to_rows, rows_to_lanes};
use super::typed::TypedEnv;
use super::JitShader;
use crate::runtime::batch::{check, BatchInputs, BatchResult, LaneResult, Stage};
use crate::runtime::{Bindings, DispatchOptions, RuntimeError};

/// The memory one running batch uses, reused by later batches.
struct Areas {
    ctx: Box<BatchContext>,
    /// This batch's copy of the views (its `raster_samples` is per batch).
    typed: Box<TypedEnv>,
    inputs: Vec<u32>,
    outputs: Vec<u32>,
    xregs: Vec<u32>,
    save: Vec<u128>,
    tgsm: Vec<u32>,
}

// SAFETY: the context's pointers point into this value's own vectors
// (which move with it) or into the runner's table and bindings, which
// outlive every batch; nothing in it is tied to a thread.
unsafe impl Send for Areas {}

/// Bindings checked and turned into a resource table once, for batches of
/// one shader run from any number of threads (`Sync`).
pub struct JitBatchRunner<'r> {
    shader: &'r JitShader,
    table: Table,
    typed: TypedEnv,
    budget: u64,
    /// Areas of batches that finished, for the next ones.
    pool: Mutex<Vec<Areas>>,
}

const _: () = {
    const fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<JitBatchRunner>();
};

impl JitShader {
    /// Runs a batch of vertex or pixel invocations (see
    /// [`crate::runtime::batch`]); the budget applies to each call of
    /// [`W`] lanes. The same checks and results as
    /// [`crate::interp::Interpreter::run_batch`].
    pub fn run_batch(
        &self,
        b: &Bindings,
        inputs: &BatchInputs,
        o: &DispatchOptions,
    ) -> Result<BatchResult, RuntimeError> {
        // Inputs first, then bindings: the interpreter's order of errors.
        check(&self.inner.prepared.program, inputs)?;
        let runner = self.batch_runner(b, o)?;
        let mut result = BatchResult::new(Vec::new(), 0);
        runner.run_into(inputs, &mut result)?;
        Ok(result)
    }

    /// Checks `b` against the program and builds the resource table once;
    /// the runner then runs any number of batches, from any thread.
    pub fn batch_runner<'r>(
        &'r self,
        b: &'r Bindings,
        o: &DispatchOptions,
    ) -> Result<JitBatchRunner<'r>, RuntimeError> {
        let inner = &self.inner;
        crate::analysis::check_bindings(&inner.prepared, b)?;
        let entries = super::ranges::entries(&inner.plan, b)?;
        let table = build_table(&entries, &inner.plan.cb_floor, b);
        let mut typed = build_typed(self, &entries, b);
        typed.quads = inner.prepared.version().kind == crate::ir::ProgramKind::Pixel;
        Ok(JitBatchRunner {
            shader: self,
            table,
            typed,
            budget: o.budget,
            pool: Mutex::new(Vec::new()),
        })
    }
}

impl JitBatchRunner<'_> {
    /// Runs one batch into `result` (its vectors are reused).
    pub fn run_into(
        &self,
        inputs: &BatchInputs,
        result: &mut BatchResult,
    ) -> Result<(), RuntimeError> {
        let stage = check(&self.shader.inner.prepared.program, inputs)?;
        let taken = self.pool.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let mut a = taken.unwrap_or_else(|| self.areas());
        a.typed.quads = stage == Stage::Pixel;
        a.typed.raster_samples = inputs.samples();
        let r = self.run_lanes(&mut a, inputs, result);
        self.pool.lock().unwrap_or_else(|e| e.into_inner()).push(a);
        r
    }

    fn areas(&self) -> Areas {
        let inner = &self.shader.inner;
        let io = inner.prepared.io_regs as usize * 4 * W;
        Areas {
            ctx: Box::new(BatchContext::empty()),
            typed: Box::new(self.typed.clone()),
            inputs: vec![0; io],
            outputs: vec![0; io],
            xregs: vec![0; inner.plan.x_elems as usize * 4 * W],
            save: vec![0; inner.save_slots()],
            tgsm: context::tgsm_area(inner.plan.tgsm_dwords),
        }
    }

    /// Copies the inputs of the `W` lanes from `first` into `a`: lane
    /// `l`'s register `r`, component `c` to DWORD `(r * 4 + c) * W + l`
    /// of the input area (one row of `W` lanes per component), the rows
    /// past the caller's registers and the rows of lanes past the end
    /// zero. `check` made `inputs.data` exactly `count * registers * 4`
    /// DWORDs.
    fn load_lanes(&self, a: &mut Areas, inputs: &BatchInputs, first: usize) {
        let p = &self.shader.inner.prepared;
        let live = W.min(inputs.count - first);
        // The output area needs no clearing: code that returns done has
        // stored every row of it (`stage_finish`, which every path to the
        // end reaches: `ret` only clears lanes from the mask).
        for area in [&mut a.xregs, &mut a.tgsm] {
            if !area.is_empty() {
                area.fill(0);
            }
        }
        let stride = inputs.registers as usize * 4;
        let given = (p.io_regs.min(inputs.registers) as usize * 4).min(a.inputs.len() / W);
        let (given_rows, rest) = a.inputs.split_at_mut(given * W);
        if !rest.is_empty() {
            rest.fill(0);
        }
        if live < W {
            given_rows.fill(0);
        }
        let data = inputs
            .data
            .get(first * stride..(first + live) * stride)
            .unwrap_or_default();
        let copied = live == W && lanes_to_rows(data, stride, given / 4, given_rows);
        if !copied {
            // A program without inputs may be given no registers (stride 0).
            for (l, lane) in data.chunks_exact(stride.max(1)).enumerate() {
                for (row, &x) in given_rows.chunks_exact_mut(W).zip(lane) {
                    row[l] = x;
                }
            }
        }
        let next = (first + W) * stride..(first + 2 * W) * stride;
        prefetch(inputs.data.get(next));
        let c = &mut a.ctx;
        c.discarded = [0; W];
        if live == W && inputs.helpers.is_none() {
            c.live = [u32::MAX; W];
            c.uav_lanes = [u32::MAX; W];
        } else {
            lane_masks(c, inputs, first, live);
        }
        if let Some(r) = p.special_reg {
            let at = r as usize * 4;
            for l in 0..live {
                let v = inputs.special_input(first + l);
                for (row, x) in a.inputs.chunks_exact_mut(W).skip(at).zip(v) {
                    row[l] = x;
                }
            }
        }
    }

    /// Copies the outputs of the `W` lanes from `first` out of `a`: each
    /// lane's fate, then each output register's four rows into the
    /// written lanes' values (lanes that wrote nothing keep the zeros of
    /// `BatchResult::reset`).
    fn store_lanes(&self, a: &Areas, inputs: &BatchInputs, first: usize, result: &mut BatchResult) {
        let p = &self.shader.inner.prepared;
        let live = W.min(inputs.count - first);
        let mut written = [false; W];
        let plain =
            live == W && inputs.helpers.is_none() && a.ctx.discarded.iter().all(|&d| d == 0);
        if plain {
            // `reset` marked every lane written.
            written = [true; W];
        } else {
            for (l, w) in written.iter_mut().enumerate().take(live) {
                let inv = first + l;
                result.lanes[inv] = if inputs.is_helper(inv) {
                    LaneResult::Helper
                } else if a.ctx.discarded[l] != 0 {
                    LaneResult::Discarded
                } else {
                    *w = true;
                    LaneResult::Written
                };
            }
        }
        let n = p.outputs.len();
        if n > 0 {
            let values = &mut result.values[first * n..(first + live) * n];
            for (k, &r) in p.outputs.iter().enumerate() {
                if plain && rows_to_lanes(&a.outputs, r as usize, values, n, k) {
                    continue;
                }
                let rows = output_rows(&a.outputs, r);
                for (l, lane) in values.chunks_exact_mut(n).enumerate() {
                    if written[l] {
                        lane[k] = std::array::from_fn(|c| rows[c][l]);
                    }
                }
            }
        }
        if let Some(r) = p.special_reg {
            let rows = output_rows(&a.outputs, r);
            for l in (0..live).filter(|&l| written[l]) {
                result.set_specials(first + l, std::array::from_fn(|c| rows[c][l]));
            }
        }
    }

    fn run_lanes(
        &self,
        a: &mut Areas,
        inputs: &BatchInputs,
        result: &mut BatchResult,
    ) -> Result<(), RuntimeError> {
        let inner = &self.shader.inner;
        let p = &inner.prepared;
        result.reset(&p.outputs, &p.specials, inputs.count);
        // Generated code runs with FTZ+DAZ (`fpmode`), restored on return.
        let _mode = super::fpmode::FlushMode::enter();
        for first in (0..inputs.count).step_by(W) {
            self.load_lanes(a, inputs, first);
            // The code is chosen afresh for every call (`tiers.rs`).
            let code = inner.code();
            if a.save.len() < code.save_slots {
                a.save.resize(code.save_slots, 0);
            }
            let c = &mut a.ctx;
            c.group_id = [(first / W) as u32, 0, 0, 0];
            c.resume = 0;
            c.budget = self.budget;
            c.res = self.table.descs.as_ptr();
            c.typed = (&*a.typed as *const TypedEnv).cast();
            c.tgsm = context::tgsm_start(&mut a.tgsm);
            c.xregs = a.xregs.as_mut_ptr();
            c.save = a.save.as_mut_ptr().cast();
            c.inputs = a.inputs.as_ptr();
            c.outputs = a.outputs.as_mut_ptr();
            // SAFETY: every pointer in the context was set just above to
            // memory that lives across the call and has the sizes the
            // plan and the compiled code expect (`areas`); the resource
            // table was built from bindings checked to fit, which the
            // runner borrows for its whole life. One batch per call.
            let status = unsafe { (code.func)(&mut **c, 1) };
            self.shader.note_calls(1);
            match status {
                STATUS_DONE => {}
                STATUS_BUDGET => {
                    return Err(RuntimeError::BudgetExhausted {
                        group: [(first / W) as u32, 0, 0],
                        inst_index: c.stopped_at as usize,
                    })
                }
                other => return Err(super::context::status_error(other)),
            }
            self.store_lanes(a, inputs, first, result);
        }
        Ok(())
    }
}

/// Each lane's `live` and `uav_lanes` mask for a batch with helper lanes
/// or lanes past the end.
fn lane_masks(c: &mut BatchContext, inputs: &BatchInputs, first: usize, live: usize) {
    for l in 0..W {
        let inv = first + l;
        let running = l < live;
        c.live[l] = if running { u32::MAX } else { 0 };
        c.uav_lanes[l] = if running && !inputs.is_helper(inv) {
            u32::MAX
        } else {
            0
        };
    }
}

/// Asks the CPU to bring `data` (the next lanes' inputs) into its caches
/// while the generated code runs the current ones: a rasterizer's inputs
/// often come from memory the caches no longer hold, and the copy in
/// `load_lanes` would otherwise wait for every line. A hint only: it
/// reads nothing and faults on nothing.
fn prefetch(data: Option<&[u32]>) {
    #[cfg(target_arch = "x86_64")]
    if let Some(data) = data {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        const LINE: usize = 64 / std::mem::size_of::<u32>();
        for line in data.chunks(LINE) {
            // SAFETY: prefetching is a hint that never faults; the
            // address is inside `data` anyway.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(line.as_ptr().cast()) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = data;
}

/// Register `r`'s four component rows of `W` lanes in an output area
/// (zeros for a register past its end).
fn output_rows(outputs: &[u32], r: u32) -> [[u32; W]; 4] {
    let mut rows = [[0; W]; 4];
    let at = r as usize * 4 * W;
    if let Some(area) = outputs.get(at..at + 4 * W) {
        for (row, src) in rows.iter_mut().zip(area.chunks_exact(W)) {
            row.copy_from_slice(src);
        }
    }
    rows
}
