//! Control flow, calls, barriers and the few graphics/misc opcodes a
//! compute or single pixel invocation can meet.
//!
//! In: a flow instruction and the prepared jump table. Out: the thread's
//! next `pc`, call stack and status. Invariant: jumps only go to targets
//! from the prepare pass (`<= insts.len()`), and the call stack never grows
//! past 32 frames (a deeper call is skipped, FS §7.12).

use crate::ir::{sync_flags, FlowInst, GraphicsInst, Instruction, MiscInst, SyncInst};
use crate::runtime::RuntimeError;

use super::exec_memory::FULLY_MAPPED;
use super::thread::{condition, Ctx, Status, Thread};
use crate::analysis::Jump;
use crate::limits::MAX_CALL_DEPTH;

pub fn flow(
    cx: &mut Ctx,
    t: &mut Thread,
    op: FlowInst,
    inst: &Instruction,
    i: usize,
) -> Result<(), RuntimeError> {
    use FlowInst::*;
    let jump = cx.p.jumps.get(i).copied().unwrap_or_default();
    match op {
        If => {
            if !condition(cx, t, inst) {
                go(t, jump);
            }
        }
        Else | Break | Continue | EndLoop => go(t, jump),
        Breakc | Continuec => {
            if condition(cx, t, inst) {
                go(t, jump);
            }
        }
        Switch => switch(cx, t, inst, jump),
        EndIf | Loop | Case | Default | EndSwitch => {}
        Ret => ret(t),
        Retc => {
            if condition(cx, t, inst) {
                ret(t);
            }
        }
        // A label reached by falling through ends the routine like `ret`.
        Label => ret(t),
        Call => call(cx, t, inst, 0, i)?,
        Callc => {
            if condition(cx, t, inst) {
                call(cx, t, inst, 1, i)?;
            }
        }
        // Class linkage (interfaces) is not run here.
        InterfaceCall => return Err(unsupported(i, inst)),
    }
    Ok(())
}

/// `sync`: a group barrier stops the thread until its group arrives; the
/// fences alone need nothing when threads run one at a time.
pub fn sync(t: &mut Thread, op: SyncInst, inst: &Instruction) {
    match op {
        SyncInst::Sync => {
            if inst.sync_flags() & sync_flags::THREADS_IN_GROUP != 0 {
                t.status = Status::Barrier;
            }
        }
    }
}

/// `discard` in a pixel invocation; the other graphics instructions are not
/// run by a single thread (derivatives run across a quad in `interp::quad`).
pub fn graphics(
    cx: &mut Ctx,
    t: &mut Thread,
    op: GraphicsInst,
    inst: &Instruction,
    i: usize,
) -> Result<(), RuntimeError> {
    use GraphicsInst::*;
    match op {
        Discard => {
            // The pixel becomes a helper lane of its quad: it keeps running
            // (its neighbours' derivatives read its registers) but writes
            // no memory from here on, and its outputs are not reported.
            if condition(cx, t, inst) {
                t.discarded = true;
                t.helper = true;
            }
            Ok(())
        }
        DerivRtx | DerivRty | DerivRtxCoarse | DerivRtxFine | DerivRtyCoarse | DerivRtyFine => {
            Err(unsupported(i, inst))
        }
        // Geometry, hull and interpolation instructions: no such stages here.
        Cut | Emit | EmitThenCut | EmitStream | CutStream | EmitThenCutStream | HsDecls
        | HsControlPointPhase | HsForkPhase | HsJoinPhase | EvalSnapped | EvalSampleIndex
        | EvalCentroid => Err(unsupported(i, inst)),
    }
}

/// nop, debug_break, abort, check_access_fully_mapped and the reserved numbers.
pub fn misc(
    cx: &mut Ctx,
    t: &mut Thread,
    op: MiscInst,
    inst: &Instruction,
    i: usize,
) -> Result<(), RuntimeError> {
    use MiscInst::*;
    match op {
        Nop | DebugBreak => Ok(()),
        CheckAccessFullyMapped => {
            let status = inst.operands.get(1).map_or([0; 4], |op| cx.src(t, op));
            let v = status.map(|s| if s == FULLY_MAPPED { u32::MAX } else { 0 });
            if let Some(dst) = inst.operands.first() {
                cx.write(t, dst, v);
            }
            Ok(())
        }
        Abort => Err(RuntimeError::Unsupported {
            inst_index: i,
            what: "abort (the shader aborted)".into(),
        }),
        // Validation rejects reserved numbers; a raw program meets this.
        Reserved107 | Reserved112 | Reserved209 | Reserved218 => Err(unsupported(i, inst)),
    }
}

fn unsupported(i: usize, inst: &Instruction) -> RuntimeError {
    RuntimeError::Unsupported {
        inst_index: i,
        what: inst.opcode.mnemonic().to_string(),
    }
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
