//! Running a compiled vertex or pixel shader over a batch of invocations.
//!
//! In: a [`JitShader`] of a vertex or pixel program, the caller's
//! [`Bindings`] and [`BatchInputs`]. Out: a [`BatchResult`] and the UAV
//! writes of the lanes that are neither helpers nor discarded. Invariants:
//! the inputs and bindings are checked exactly as the interpreter checks
//! them (`runtime::batch::check`, `Interpreter::check_bindings`) before
//! any code runs; invocations go through the compiled function [`W`] at a
//! time (two pixel quads, or eight vertices), lanes past the end are dead
//! and helper lanes are live but have `uav_lanes` cleared; the input and
//! output areas handed to the code hold exactly `io_regs * 4 * W` DWORDs,
//! the layout `stage.rs` was compiled for.

use std::sync::atomic::Ordering;

use super::context::{BatchContext, STATUS_BUDGET, STATUS_DONE, W};
use super::runner::{build_table, build_typed, Table};
use super::typed::TypedEnv;
use super::JitShader;
use crate::runtime::batch::{check, BatchInputs, BatchResult, LaneResult, Stage};
use crate::runtime::{Bindings, DispatchOptions, RuntimeError};

/// The memory one batch call uses, reused for every call of a run.
struct Areas {
    ctx: Box<BatchContext>,
    inputs: Vec<u32>,
    outputs: Vec<u32>,
    xregs: Vec<u32>,
    save: Vec<u128>,
    tgsm: Vec<u32>,
}

impl JitShader {
    /// Runs a batch of vertex or pixel invocations (see
    /// [`crate::runtime::batch`]); the budget applies to each call of
    /// [`W`] lanes. The same checks and results as
    /// [`crate::interp::Interpreter::run_batch`].
    pub fn run_batch(
        &self,
        b: &mut Bindings,
        inputs: &BatchInputs,
        o: &DispatchOptions,
    ) -> Result<BatchResult, RuntimeError> {
        let inner = &self.inner;
        let stage = check(&inner.prepared.program, inputs)?;
        crate::analysis::check_bindings(&inner.prepared, b)?;
        let entries = super::ranges::entries(&inner.plan, b)?;
        let mut counters = Vec::new();
        let table = build_table(&entries, b, &mut counters);
        let mut typed = build_typed(self, &entries, b);
        typed.quads = stage == Stage::Pixel;
        typed.raster_samples = inputs.samples();
        let result = self.run_lanes(&table, &typed, inputs, o.budget);
        for (_, slot, c) in &counters {
            if let Some(u) = b.get_uav_mut(*slot) {
                u.counter = Some(c.load(Ordering::Relaxed));
            }
        }
        result
    }

    fn areas(&self) -> Areas {
        let inner = &self.inner;
        let io = inner.prepared.io_regs as usize * 4 * W;
        Areas {
            ctx: Box::new(BatchContext::empty()),
            inputs: vec![0; io],
            outputs: vec![0; io],
            xregs: vec![0; inner.plan.x_elems as usize * 4 * W],
            save: vec![0; inner.save_slots()],
            tgsm: vec![0; inner.plan.tgsm_dwords as usize],
        }
    }

    fn run_lanes(
        &self,
        table: &Table,
        typed: &TypedEnv,
        inputs: &BatchInputs,
        budget: u64,
    ) -> Result<BatchResult, RuntimeError> {
        let p = &self.inner.prepared;
        let regs = p.io_regs as usize;
        let mut result =
            BatchResult::new(p.outputs.clone(), inputs.count).with_specials(p.specials.clone());
        let mut a = self.areas();
        // Generated code runs with FTZ+DAZ (`fpmode`), restored on return.
        let _mode = super::fpmode::FlushMode::enter();
        for first in (0..inputs.count).step_by(W) {
            for area in [&mut a.inputs, &mut a.outputs, &mut a.xregs, &mut a.tgsm] {
                if !area.is_empty() {
                    area.fill(0);
                }
            }
            for l in 0..W {
                let inv = first + l;
                let live = inv < inputs.count;
                let c = &mut a.ctx;
                c.live[l] = if live { u32::MAX } else { 0 };
                c.uav_lanes[l] = if live && !inputs.is_helper(inv) {
                    u32::MAX
                } else {
                    0
                };
                c.discarded[l] = 0;
                if !live {
                    continue;
                }
                for r in 0..regs.min(inputs.registers as usize) {
                    let v = inputs.register(inv, r as u32);
                    for (comp, x) in v.iter().enumerate() {
                        a.inputs[(r * 4 + comp) * W + l] = *x;
                    }
                }
                if let Some(r) = p.special_reg {
                    let v = inputs.special_input(inv);
                    for (comp, x) in v.iter().enumerate() {
                        if let Some(d) = a.inputs.get_mut((r as usize * 4 + comp) * W + l) {
                            *d = *x;
                        }
                    }
                }
            }
            let c = &mut a.ctx;
            c.group_id = [(first / W) as u32, 0, 0, 0];
            c.resume = 0;
            c.budget = budget;
            c.res = table.0.as_ptr();
            c.typed = (typed as *const TypedEnv).cast();
            c.tgsm = a.tgsm.as_mut_ptr();
            c.xregs = a.xregs.as_mut_ptr();
            // The code is chosen afresh for every call (`tiers.rs`).
            let code = self.inner.code();
            if a.save.len() < code.save_slots {
                a.save.resize(code.save_slots, 0);
            }
            let c = &mut a.ctx;
            c.save = a.save.as_mut_ptr().cast();
            c.inputs = a.inputs.as_ptr();
            c.outputs = a.outputs.as_mut_ptr();
            // SAFETY: every pointer in the context was set just above to
            // memory that lives across the call and has the sizes the
            // plan and the compiled code expect (`areas`); the resource
            // table was built from bindings checked to fit.
            let status = unsafe { (code.func)(&mut **c, 1) };
            self.note_calls(1);
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
            let n = p.outputs.len();
            for l in 0..W.min(inputs.count - first) {
                let inv = first + l;
                result.lanes[inv] = if inputs.is_helper(inv) {
                    LaneResult::Helper
                } else if a.ctx.discarded[l] != 0 {
                    LaneResult::Discarded
                } else {
                    for (k, &r) in p.outputs.iter().enumerate() {
                        let r = r as usize;
                        let v = std::array::from_fn(|comp| {
                            a.outputs.get((r * 4 + comp) * W + l).copied().unwrap_or(0)
                        });
                        result.values[inv * n + k] = v;
                    }
                    if let Some(r) = p.special_reg {
                        let r = r as usize;
                        let v = std::array::from_fn(|comp| {
                            a.outputs.get((r * 4 + comp) * W + l).copied().unwrap_or(0)
                        });
                        result.set_specials(inv, v);
                    }
                    LaneResult::Written
                };
            }
        }
        Ok(result)
    }
}
