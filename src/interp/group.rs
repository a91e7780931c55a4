//! Running one thread group, with barrier scheduling, and one pixel/vertex
//! invocation.
//!
//! In: a prepared program, the bindings and a group id. Out: the group's
//! effects on UAV memory and its executed-instruction count. Invariant:
//! threads run in waves of [`WAVE`] consecutive flattened ids, one wave at
//! a time, each until all its threads reach a `sync_*_t` barrier or end;
//! when every thread has arrived (threads that ended count as arrived) all
//! are resumed. Inside a wave the threads run in lockstep, as SIMT
//! hardware (and the JIT's 8-lane batches) runs them: each step executes
//! one instruction for every thread at the wave's earliest position, in
//! lane order, so an `if` body runs for its threads before the `else`
//! body, threads that left a loop wait until the last iteration of the
//! others, and a thread in a later iteration waits for the earlier ones.
//! The order is fixed, so a run is deterministic, and shaders that pass
//! values between the threads of a wave through TGSM without a barrier
//! (as SIMT-tuned compute shaders do) see the same values in both engines.
//! Every fence is satisfied because no two threads ever run at the same
//! time.

use crate::ir::OpClass;
use crate::runtime::{Bindings, Invocation, RuntimeError};

use super::thread::{charge, Ctx, Status, Thread};
use super::visit::Exec;
use crate::analysis::Prepared;

/// Runs group `group_id` to completion; returns the instructions executed.
pub fn run_group(
    p: &Prepared,
    b: &Bindings,
    group_id: [u32; 3],
    budget: u64,
) -> Result<u64, RuntimeError> {
    let mut cx = new_ctx(p, b, group_id, budget);
    let [gx, gy, gz] = p.group_size;
    let mut lanes = Vec::new();
    for z in 0..gz {
        for y in 0..gy {
            for x in 0..gx {
                lanes.push(Lane {
                    t: Thread::new(p, [x, y, z]),
                    frames: Vec::new(),
                });
            }
        }
    }
    let loops = loop_ends(p);
    loop {
        for wave in lanes.chunks_mut(WAVE) {
            for l in wave.iter_mut() {
                if l.t.status == Status::Barrier {
                    l.t.status = Status::Running;
                }
            }
            run_wave(&mut cx, &loops, wave)?;
        }
        if lanes.iter().all(|l| l.t.status == Status::Done) {
            return Ok(cx.executed);
        }
    }
}

/// Threads per lockstep wave (the JIT's batch width).
pub const WAVE: usize = 8;

/// A thread and where it is in the program's structure.
struct Lane {
    t: Thread,
    /// Open loops and calls, outermost first.
    frames: Vec<Frame>,
}

/// An open loop (`end`: its `endloop`) or call (`end`: `None`).
#[derive(Clone, Copy, PartialEq, Eq)]
struct Frame {
    /// The `loop` or `call` instruction.
    at: usize,
    /// Completed iterations (loops).
    iter: u64,
    end: Option<usize>,
}

impl Lane {
    /// The lockstep position: each open frame's (instruction, iteration),
    /// then the next instruction. A wave steps its earliest position first.
    fn position(&self) -> impl Iterator<Item = (usize, u64)> + '_ {
        self.frames
            .iter()
            .map(|f| (f.at, f.iter))
            .chain([(self.t.pc, 0)])
    }

    fn running(&self) -> bool {
        self.t.status == Status::Running
    }
}

/// By instruction index: for each `loop`, its `endloop`.
fn loop_ends(p: &Prepared) -> Vec<Option<usize>> {
    use crate::analysis::Jump;
    let mut out = vec![None; p.program.insts.len()];
    for (i, inst) in p.program.insts.iter().enumerate() {
        if inst.opcode == crate::ir::Opcode::EndLoop {
            if let Some(Jump::To(head)) = p.jumps.get(i) {
                if let Some(slot) = out.get_mut(head.saturating_sub(1)) {
                    *slot = Some(i);
                }
            }
        }
    }
    out
}

/// Runs one wave until every thread in it waits at a barrier or has ended.
fn run_wave(cx: &mut Ctx, loops: &[Option<usize>], wave: &mut [Lane]) -> Result<(), RuntimeError> {
    let mut due = [false; WAVE];
    loop {
        let mut first: Option<usize> = None;
        for k in 0..wave.len() {
            if wave[k].running() && first.is_none_or(|f| wave[k].position().lt(wave[f].position()))
            {
                first = Some(k);
            }
        }
        let Some(f) = first else { return Ok(()) };
        if wave.iter().filter(|l| l.running()).count() == 1 {
            // Alone: nothing to keep in step with.
            while wave[f].running() {
                step_lane(cx, loops, &mut wave[f])?;
            }
            continue;
        }
        for k in 0..wave.len() {
            due[k] = k == f || (wave[k].running() && wave[k].position().eq(wave[f].position()));
        }
        for (lane, _) in wave.iter_mut().zip(due).filter(|(_, d)| *d) {
            step_lane(cx, loops, lane)?;
        }
    }
}

/// Executes one instruction of `lane` and updates its open frames.
fn step_lane(cx: &mut Ctx, loops: &[Option<usize>], lane: &mut Lane) -> Result<(), RuntimeError> {
    let (pc, calls) = (lane.t.pc, lane.t.calls.len());
    step(cx, &mut lane.t)?;
    let t = &lane.t;
    // Only flow instructions enter or leave loops and calls.
    let flow = cx.p.program.insts.get(pc).map(|i| i.opcode.class());
    if t.status == Status::Done || flow != Some(OpClass::Flow) {
        return Ok(());
    }
    let frames = &mut lane.frames;
    if t.calls.len() > calls {
        frames.push(Frame {
            at: pc,
            iter: 0,
            end: None,
        });
        return Ok(());
    }
    if t.calls.len() < calls {
        while let Some(f) = frames.pop() {
            if f.end.is_none() {
                break;
            }
        }
        return Ok(());
    }
    if let Some(&Some(end)) = loops.get(pc) {
        frames.push(Frame {
            at: pc,
            iter: 0,
            end: Some(end),
        });
    }
    // Leave the loops the jump left; a jump back inside the innermost
    // loop (endloop, continue) starts its next iteration.
    while let Some(f) = frames.last_mut() {
        let Some(end) = f.end else { break };
        if t.pc < f.at || t.pc > end {
            frames.pop();
            continue;
        }
        if t.pc <= pc {
            f.iter += 1;
        }
        break;
    }
    Ok(())
}

/// Runs one pixel/vertex invocation with `inputs` in v#.
pub fn run_single(
    p: &Prepared,
    b: &Bindings,
    inputs: &[(u32, [u32; 4])],
    budget: u64,
) -> Result<Invocation, RuntimeError> {
    let mut cx = new_ctx(p, b, [0; 3], budget);
    let mut t = Thread::new(p, [0; 3]);
    for (reg, v) in inputs {
        if let Some(slot) = t.inputs.get_mut(*reg as usize) {
            *slot = *v;
        }
    }
    while t.status != Status::Done {
        t.status = Status::Running;
        run_until_stop(&mut cx, &mut t)?;
    }
    let outputs = p
        .outputs
        .iter()
        .map(|&r| (r, t.outputs.get(r as usize).copied().unwrap_or([0; 4])))
        .collect();
    Ok(Invocation {
        outputs,
        discarded: t.discarded,
    })
}

pub(super) fn new_ctx<'p, 'b, 'a>(
    p: &'p Prepared,
    b: &'b Bindings<'a>,
    group_id: [u32; 3],
    budget: u64,
) -> Ctx<'p, 'b, 'a> {
    let tgsm = p
        .tgsm
        .iter()
        .map(|(&g, d)| (g, vec![0u32; d.dwords as usize]))
        .collect();
    Ctx {
        p,
        b,
        tgsm,
        group_id,
        executed: 0,
        budget,
        quad_grad: None,
        raster_samples: 1,
    }
}

/// Runs `t` until it stops at a barrier or ends.
fn run_until_stop(cx: &mut Ctx, t: &mut Thread) -> Result<(), RuntimeError> {
    while t.status == Status::Running {
        step(cx, t)?;
    }
    Ok(())
}

/// Executes one instruction of `t`.
pub(super) fn step(cx: &mut Ctx, t: &mut Thread) -> Result<(), RuntimeError> {
    let p = cx.p;
    let i = t.pc;
    let Some(inst) = p.program.insts.get(i) else {
        t.status = Status::Done;
        return Ok(());
    };
    charge(cx, i)?;
    t.pc = i + 1;
    let result = inst.visit(i, &mut Exec { cx, t });
    result.map_err(|e| match e {
        RuntimeError::InvalidProgram {
            inst_index: None,
            reason,
        } => RuntimeError::InvalidProgram {
            inst_index: Some(i),
            reason,
        },
        other => other,
    })
}
