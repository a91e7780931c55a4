//! Batches of vertex and pixel invocations on the interpreter: pixel quads
//! in lock step, so derivatives see their neighbours.
//!
//! In: a prepared vertex or pixel program, the bindings and checked
//! [`BatchInputs`]. Out: a [`BatchResult`] (outputs of the lanes that
//! were not discarded and are not helpers) and the UAV writes of those
//! lanes. Invariant: the four threads of a quad run exactly as the JIT's
//! SIMD lanes run them. At each step the scheduler picks the threads with
//! the smallest *position* — the sequence of (call site), (loop, iteration)
//! frames they are in, then their `pc` — and runs one instruction for all
//! of them; structured control flow makes this the order a masked SIMD
//! machine executes (an `if` branch before its `else`, a whole loop before
//! the code after it, iteration k before iteration k+1). A thread that is
//! not running keeps its registers, so `deriv_*` reads the neighbour's
//! source operand as it stands, in both engines. Vertex invocations run
//! alone, one after another.

use crate::analysis::Jump;
use crate::ir::LodSource;
use crate::ir::{Instruction, Opcode};
use crate::runtime::batch::{check, BatchInputs, BatchResult, LaneResult, Stage, QUAD};
use crate::runtime::sampling::quad_gradients;
use crate::runtime::{Bindings, RuntimeError};
use crate::sem::quad::{deriv, Deriv};

use super::group::{new_ctx, step};
use super::thread::{charge, Ctx, Status, Thread, Ty};
use crate::analysis::Prepared;

/// Where a thread is in the loop nest: the `loop` instructions it is
/// inside, with their iteration counts and the call depth they belong to.
#[derive(Clone, Debug, Default)]
struct Frames {
    /// (index of the `loop`, iteration, call depth).
    loops: Vec<(usize, u64, usize)>,
}

/// The index of each loop's `endloop`, by the index of its `loop`.
fn loop_ends(p: &Prepared) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (i, inst) in p.program.insts.iter().enumerate() {
        if inst.opcode == Opcode::EndLoop {
            if let Some(Jump::To(head)) = p.jumps.get(i) {
                out.push((head.saturating_sub(1), i));
            }
        }
    }
    out
}

impl Frames {
    /// Updates the frames after `t` executed instruction `i`.
    fn after_step(&mut self, ends: &[(usize, usize)], t: &Thread, i: usize, op: Opcode) {
        let depth = t.calls.len();
        while self.loops.last().is_some_and(|f| f.2 > depth) {
            self.loops.pop();
        }
        if op == Opcode::Loop && t.pc == i + 1 {
            self.loops.push((i, 0, depth));
            return;
        }
        // Leaving a loop of this call depth (break, ret, or a jump out).
        while let Some(&(h, _, d)) = self.loops.last() {
            let end = ends.iter().find(|e| e.0 == h).map_or(h, |e| e.1);
            if d == depth && !(h < t.pc && t.pc <= end) {
                self.loops.pop();
            } else {
                break;
            }
        }
        // A back-edge (endloop, continue) lands on the first body instruction.
        if let Some(top) = self.loops.last_mut() {
            if top.2 == depth && t.pc == top.0 + 1 {
                top.1 += 1;
            }
        }
    }

    /// The thread's position: frames outermost first, then its `pc`.
    /// Comparing positions orders threads as SIMD execution reaches them.
    fn position(&self, t: &Thread) -> Vec<(usize, u8, u64)> {
        let depth = t.calls.len();
        let mut key = Vec::with_capacity(self.loops.len() + depth + 1);
        let mut f = 0;
        for d in 0..=depth {
            while let Some(&(h, iter, fd)) = self.loops.get(f) {
                if fd != d {
                    break;
                }
                key.push((h, 1, iter));
                f += 1;
            }
            if let Some(&ret) = t.calls.get(d) {
                key.push((ret.saturating_sub(1), 1, 0));
            }
        }
        key.push((t.pc, 0, 0));
        key
    }
}

/// Runs a batch (inputs already checked by [`check`] here).
pub fn run_batch(
    p: &Prepared,
    b: &Bindings,
    inputs: &BatchInputs,
    budget: u64,
) -> Result<BatchResult, RuntimeError> {
    let stage = check(&p.program, inputs)?;
    let width = if stage == Stage::Pixel { QUAD } else { 1 };
    let mut result =
        BatchResult::new(p.outputs.clone(), inputs.count).with_specials(p.specials.clone());
    let ends = loop_ends(p);
    let mut cx = new_ctx(p, b, [0; 3], budget);
    cx.raster_samples = inputs.samples();
    for first in (0..inputs.count).step_by(width) {
        cx.executed = 0;
        cx.group_id = [(first / width) as u32, 0, 0];
        let mut threads: Vec<Thread> = (first..first + width)
            .map(|inv| {
                let mut t = Thread::new(p, [0; 3]);
                for (r, slot) in t.inputs.iter_mut().enumerate() {
                    if (r as u32) < inputs.registers {
                        *slot = inputs.register(inv, r as u32);
                    }
                }
                if let Some(slot) = p.special_reg.and_then(|r| t.inputs.get_mut(r as usize)) {
                    *slot = inputs.special_input(inv);
                }
                t.helper = inputs.is_helper(inv);
                t
            })
            .collect();
        run_lockstep(&mut cx, &mut threads, &ends)?;
        for (k, t) in threads.iter().enumerate() {
            let inv = first + k;
            result.lanes[inv] = if inputs.is_helper(inv) {
                LaneResult::Helper
            } else if t.discarded {
                LaneResult::Discarded
            } else {
                let n = p.outputs.len();
                for (j, &r) in p.outputs.iter().enumerate() {
                    result.values[inv * n + j] =
                        t.outputs.get(r as usize).copied().unwrap_or([0; 4]);
                }
                if let Some(s) = p.special_reg.and_then(|r| t.outputs.get(r as usize)) {
                    result.set_specials(inv, *s);
                }
                LaneResult::Written
            };
        }
    }
    Ok(result)
}

/// Runs the threads of one quad (or one vertex) to their ends.
fn run_lockstep(
    cx: &mut Ctx,
    threads: &mut [Thread],
    ends: &[(usize, usize)],
) -> Result<(), RuntimeError> {
    let mut frames = vec![Frames::default(); threads.len()];
    let mut group = Vec::with_capacity(threads.len());
    loop {
        group.clear();
        let mut best: Option<Vec<(usize, u8, u64)>> = None;
        for (k, t) in threads.iter().enumerate() {
            if t.status == Status::Done {
                continue;
            }
            let pos = frames[k].position(t);
            match &best {
                Some(b) if pos > *b => {}
                Some(b) if pos == *b => group.push(k),
                _ => {
                    best = Some(pos);
                    group.clear();
                    group.push(k);
                }
            }
        }
        let Some(&lead) = group.first() else {
            return Ok(());
        };
        let i = threads[lead].pc;
        let p = cx.p;
        let inst = p.program.insts.get(i);
        match inst.and_then(|x| x.opcode.deriv().map(|d| (x, d))) {
            Some((inst, kind)) => quad_deriv(cx, threads, &group, inst, kind, i)?,
            None => {
                cx.quad_grad = inst.and_then(|x| implicit_lod_gradients(cx, threads, x));
                for &k in &group {
                    let t = &mut threads[k];
                    step(cx, t)?;
                    // Pixel and vertex programs have no group barriers.
                    if t.status == Status::Barrier {
                        t.status = Status::Running;
                    }
                    if let Some(x) = inst {
                        frames[k].after_step(ends, t, i, x.opcode);
                    }
                }
                cx.quad_grad = None;
            }
        }
    }
}

/// The quad's coordinate gradients for an implicit-LOD sampling op
/// (`sample`, `sample_b`, `sample_c`, `lod` and their `_s` forms), read
/// from all four threads' coordinate operands as they stand (running or
/// not, like `deriv_*`); `None` for other ops and outside a quad.
fn implicit_lod_gradients(
    cx: &Ctx,
    threads: &[Thread],
    inst: &Instruction,
) -> Option<([u32; 4], [u32; 4])> {
    let (base, _) = inst.opcode.feedback_base().unwrap_or((inst.opcode, false));
    let f = base.sample_form()?;
    if threads.len() != QUAD || !matches!(f.lod, LodSource::Implicit { .. }) {
        return None;
    }
    let coord = inst.operands.get(1 + usize::from(base != inst.opcode))?;
    let c = std::array::from_fn(|k| cx.src_ty(&threads[k], coord, Ty::Float));
    Some(quad_gradients(c))
}

/// `deriv_*` for the running threads `group` of a quad: each reads the
/// source operand of all four threads.
fn quad_deriv(
    cx: &mut Ctx,
    threads: &mut [Thread],
    group: &[usize],
    inst: &Instruction,
    kind: Deriv,
    i: usize,
) -> Result<(), RuntimeError> {
    if threads.len() != QUAD {
        return Err(RuntimeError::InvalidProgram {
            inst_index: Some(i),
            reason: format!("{} outside a pixel quad", inst.opcode.mnemonic()),
        });
    }
    let (Some(dst), Some(src)) = (inst.operands.first(), inst.operands.get(1)) else {
        return Err(RuntimeError::InvalidProgram {
            inst_index: Some(i),
            reason: format!("{} needs two operands", inst.opcode.mnemonic()),
        });
    };
    let vals: Vec<[u32; 4]> = threads
        .iter()
        .map(|t| cx.src_ty(t, src, Ty::Float))
        .collect();
    let mut out = [[0u32; 4]; QUAD];
    for c in 0..4 {
        let d = deriv(kind, [vals[0][c], vals[1][c], vals[2][c], vals[3][c]]);
        for (lane, o) in out.iter_mut().enumerate() {
            o[c] = d[lane];
        }
    }
    for &k in group {
        charge(cx, i)?;
        let t = &mut threads[k];
        t.pc = i + 1;
        let v = if inst.saturate() {
            out[k].map(|x| crate::sem::float::sat(f32::from_bits(x)).to_bits())
        } else {
            out[k]
        };
        cx.write(t, dst, v);
    }
    Ok(())
}
