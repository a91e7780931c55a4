//! Running one thread group, with barrier scheduling, and one pixel/vertex
//! invocation.
//!
//! In: a prepared program, the bindings and a group id. Out: the group's
//! effects on UAV memory and its executed-instruction count. Invariant:
//! threads run one at a time, each until it reaches a `sync_*_t` barrier or
//! ends; when every thread has arrived (threads that ended count as arrived)
//! all are resumed. The order is fixed (flattened thread id), so a run is
//! deterministic, and every fence is satisfied because no two threads ever
//! run at the same time.

use crate::ir::OpClass;
use crate::runtime::{Bindings, Invocation, RuntimeError};

use super::prepare::Prepared;
use super::thread::{charge, Ctx, Status, Thread};
use super::{exec_alu, exec_atomic, exec_double, exec_flow, exec_memory, exec_sample};

/// Runs group `group_id` to completion; returns the instructions executed.
pub fn run_group(
    p: &Prepared,
    b: &mut Bindings,
    group_id: [u32; 3],
    budget: u64,
) -> Result<u64, RuntimeError> {
    let mut cx = new_ctx(p, b, group_id, budget);
    let [gx, gy, gz] = p.group_size;
    let mut threads = Vec::new();
    for z in 0..gz {
        for y in 0..gy {
            for x in 0..gx {
                threads.push(Thread::new(p, [x, y, z]));
            }
        }
    }
    loop {
        for t in threads.iter_mut() {
            if t.status == Status::Barrier {
                t.status = Status::Running;
            }
            run_until_stop(&mut cx, t)?;
        }
        if threads.iter().all(|t| t.status == Status::Done) {
            return Ok(cx.executed);
        }
    }
}

/// Runs one pixel/vertex invocation with `inputs` in v#.
pub fn run_single(
    p: &Prepared,
    b: &mut Bindings,
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
    b: &'b mut Bindings<'a>,
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
    let result = match inst.opcode.class() {
        OpClass::Float | OpClass::Int | OpClass::Compare | OpClass::Convert | OpClass::Move => {
            exec_alu::exec(cx, t, inst, i)
        }
        OpClass::Double => exec_double::exec(cx, t, inst, i),
        OpClass::Memory => exec_memory::exec(cx, t, inst, i),
        OpClass::Atomic => exec_atomic::exec(cx, t, inst, i),
        OpClass::Flow | OpClass::Sync | OpClass::Graphics | OpClass::Misc => {
            exec_flow::exec(cx, t, inst, i)
        }
        OpClass::Decl | OpClass::CustomData => Ok(()),
        OpClass::Sample => exec_sample::exec(cx, t, inst, i),
    };
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
