//! Control flow, calls, barriers and the few graphics/misc opcodes a
//! compute or single pixel invocation can meet.
//!
//! In: a flow instruction and the prepared jump table. Out: the thread's
//! next `pc`, call stack and status. Invariant: jumps only go to targets
//! from the prepare pass (`<= insts.len()`), and the call stack never grows
//! past 32 frames (a deeper call is skipped, FS §7.12).

use crate::ir::{sync_flags, Instruction, Opcode};
use crate::runtime::RuntimeError;

use super::exec_memory::FULLY_MAPPED;
use super::thread::{condition, Ctx, Status, Thread};
use crate::analysis::Jump;
use crate::limits::MAX_CALL_DEPTH;

pub fn exec(
    cx: &mut Ctx,
    t: &mut Thread,
    inst: &Instruction,
    i: usize,
) -> Result<(), RuntimeError> {
    let jump = cx.p.jumps.get(i).copied().unwrap_or_default();
    match inst.opcode {
        Opcode::If => {
            if !condition(cx, t, inst) {
                go(t, jump);
            }
        }
        Opcode::Else | Opcode::Break | Opcode::Continue | Opcode::EndLoop => go(t, jump),
        Opcode::Breakc | Opcode::Continuec => {
            if condition(cx, t, inst) {
                go(t, jump);
            }
        }
        Opcode::Switch => switch(cx, t, inst, jump),
        Opcode::EndIf | Opcode::Loop | Opcode::Case | Opcode::Default | Opcode::EndSwitch => {}
        Opcode::Ret => ret(t),
        Opcode::Retc => {
            if condition(cx, t, inst) {
                ret(t);
            }
        }
        // A label reached by falling through ends the routine like `ret`.
        Opcode::Label => ret(t),
        Opcode::Call => call(cx, t, inst, 0, i)?,
        Opcode::Callc => {
            if condition(cx, t, inst) {
                call(cx, t, inst, 1, i)?;
            }
        }
        Opcode::Sync => {
            if inst.sync_flags() & sync_flags::THREADS_IN_GROUP != 0 {
                t.status = Status::Barrier;
            }
        }
        Opcode::Discard => {
            if condition(cx, t, inst) {
                t.discarded = true;
                t.status = Status::Done;
            }
        }
        Opcode::Nop | Opcode::DebugBreak => {}
        Opcode::CheckAccessFullyMapped => {
            let status = inst.operands.get(1).map_or([0; 4], |op| cx.src(t, op));
            let v = status.map(|s| if s == FULLY_MAPPED { u32::MAX } else { 0 });
            if let Some(dst) = inst.operands.first() {
                cx.write(t, dst, v);
            }
        }
        Opcode::Abort => {
            return Err(RuntimeError::Unsupported {
                inst_index: i,
                what: "abort (the shader aborted)".into(),
            });
        }
        other => {
            return Err(RuntimeError::Unsupported {
                inst_index: i,
                what: other.mnemonic().to_string(),
            });
        }
    }
    Ok(())
}

fn go(t: &mut Thread, jump: Jump) {
    match jump {
        Jump::IfFalse(to) | Jump::To(to) => t.pc = to,
        Jump::None | Jump::Switch(_) => {}
    }
}

fn switch(cx: &Ctx, t: &mut Thread, inst: &Instruction, jump: Jump) {
    let Jump::Switch(k) = jump else { return };
    let Some(table) = cx.p.switches.get(k) else {
        return;
    };
    let v = inst.operands.first().map_or(0, |op| cx.scalar(t, op));
    t.pc = table
        .cases
        .iter()
        .find(|(c, _)| *c == v)
        .map_or(table.default, |(_, to)| *to);
}

/// `ret` in a subroutine returns; in main it ends the thread.
fn ret(t: &mut Thread) {
    match t.calls.pop() {
        Some(back) => t.pc = back,
        None => t.status = Status::Done,
    }
}

fn call(
    cx: &Ctx,
    t: &mut Thread,
    inst: &Instruction,
    label_op: usize,
    i: usize,
) -> Result<(), RuntimeError> {
    let label = inst.operands.get(label_op).and_then(|o| o.imm_index(0));
    let Some(&target) = label.and_then(|l| cx.p.labels.get(&l)) else {
        return Err(RuntimeError::InvalidProgram {
            inst_index: Some(i),
            reason: "call to an undefined label".into(),
        });
    };
    if t.calls.len() >= MAX_CALL_DEPTH {
        return Ok(());
    }
    t.calls.push(t.pc);
    t.pc = target;
    Ok(())
}
