//! Structured control flow with execution masks, and barriers.
//!
//! In: if/else/endif, loop/endloop, break(c), continue(c), switch/case/
//! default/endswitch, ret(c) and `sync`. Out: Cranelift blocks that run the
//! batch in lock step: a compile-time stack of [`Frame`]s holds the mask
//! variables of each open construct (ISPC/gallivm style). Invariants:
//! - `exec` is always a subset of the lanes live at the function's entry;
//! - a lane that leaves a construct (break, continue, ret) is cleared from
//!   `exec` and from every saved mask up to the construct it leaves, and is
//!   restored only where that construct ends (or, for continue, at the top
//!   of its loop);
//! - a block whose mask is empty is skipped (`vany_true`), and a loop runs
//!   while any lane is active, charging the context's budget on each
//!   back-edge so a runaway loop returns `STATUS_BUDGET`.
//!
//! A `sync_*_t` saves every vector variable to the context, stores the
//! resume id and returns `STATUS_BARRIER`; the function's entry jumps to
//! the matching resume block, which reloads the variables.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, Block, InstBuilder};
use cranelift_frontend::Variable;

use super::context::{N, OFF_BUDGET, OFF_RESUME, OFF_SAVE, OFF_STOPPED_AT, STATUS_BARRIER};
use super::lower::{trusted, Lower, V};
use super::JitError;
use crate::analysis::Jump;
use crate::ir::{sync_flags, FlowInst, Instruction, Opcode};

/// Instructions all inlined subroutine bodies together may add.
const MAX_INLINED: usize = 100_000;

/// One open construct.
pub enum Frame {
    If {
        /// `exec` when the `if` was reached.
        saved: [Variable; N],
        /// Lanes that take the `else` branch.
        els: [Variable; N],
        /// Where a batch with no lane in the `if` branch goes.
        skip: Block,
        end: Block,
        had_else: bool,
    },
    Loop {
        saved: [Variable; N],
        /// Lanes that executed `continue` in this iteration.
        cont: [Variable; N],
        head: Block,
        exit: Block,
        /// Budget charged per back-edge and active lane.
        cost: u64,
    },
    /// An inlined subroutine: `ret` inside it ends only the subroutine.
    Call { saved: [Variable; N] },
    Switch {
        saved: [Variable; N],
        sel: [Variable; N],
        /// Lanes that already entered a case.
        taken: [Variable; N],
        /// Lanes whose selector matches no case.
        nomatch: [Variable; N],
    },
}

impl Lower<'_, '_> {
    /// The condition mask of if/breakc/continuec/retc: `_nz` = any bit set.
    fn cond_mask(&mut self, inst: &Instruction) -> Result<V, JitError> {
        let op = self.operand(inst, 0)?;
        let v = self.scalar_src(op)?;
        let zero = self.vsplat(0);
        let cc = if inst.test_nz() {
            IntCC::NotEqual
        } else {
            IntCC::Equal
        };
        Ok(self.map1(v, |s, x| s.b.ins().icmp(cc, x, zero)))
    }

    fn exec_v(&mut self) -> V {
        self.use_vars(self.exec)
    }

    fn set_exec(&mut self, v: V) {
        self.def_vars(self.exec, v);
    }

    /// Clears `leaving` from `vars`.
    fn clear(&mut self, vars: [Variable; N], leaving: V) {
        let cur = self.use_vars(vars);
        let new = self.andnot_v(cur, leaving);
        self.def_vars(vars, new);
    }

    /// Lowers one flow-class instruction.
    pub fn flow(&mut self, op: FlowInst, i: usize, inst: &Instruction) -> Result<(), JitError> {
        use FlowInst as F;
        match op {
            F::If => self.op_if(inst),
            F::Else => self.op_else(),
            F::EndIf => self.op_endif(),
            F::Loop => self.op_loop(i),
            F::EndLoop => self.op_endloop(),
            F::Break => self.op_break(None),
            F::Breakc => {
                let c = self.cond_mask(inst)?;
                self.op_break(Some(c))
            }
            F::Continue => self.op_continue(None),
            F::Continuec => {
                let c = self.cond_mask(inst)?;
                self.op_continue(Some(c))
            }
            F::Ret => self.op_ret(None),
            F::Retc => {
                let c = self.cond_mask(inst)?;
                self.op_ret(Some(c))
            }
            F::Switch => self.op_switch(i, inst),
            F::Call => self.op_call(inst, 0, None),
            F::Callc => {
                let c = self.cond_mask(inst)?;
                self.op_call(inst, 1, Some(c))
            }
            F::Case => self.op_case(inst),
            F::Default => self.op_default(),
            F::EndSwitch => self.op_endswitch(),
            // Subroutine bodies are lowered from their labels on; class
            // linkage is not lowered (the interpreter runs those programs).
            F::Label | F::InterfaceCall => Err(self.unsupported(inst.opcode)),
        }
    }

    /// `sync`: a group barrier ends the batch's pass; fences need nothing
    /// more (the batches of one group run on one thread, and UAV accesses
    /// of other groups are unordered).
    pub fn op_sync(&mut self, inst: &Instruction) -> Result<(), JitError> {
        if inst.sync_flags() & sync_flags::THREADS_IN_GROUP != 0 {
            self.barrier();
        }
        Ok(())
    }

    fn op_if(&mut self, inst: &Instruction) -> Result<(), JitError> {
        let cond = self.cond_mask(inst)?;
        let exec = self.exec_v();
        let saved = self.new_vars();
        self.def_vars(saved, exec);
        let els = self.new_vars();
        let e = self.andnot_v(exec, cond);
        self.def_vars(els, e);
        let taken = self.and_v(exec, cond);
        self.set_exec(taken);
        let body = self.b.create_block();
        let skip = self.b.create_block();
        let end = self.b.create_block();
        let any = self.any(taken);
        self.b.ins().brif(any, body, &[], skip, &[]);
        // Sealing each block as soon as its predecessors are known keeps
        // SSA construction linear in the program size.
        self.b.seal_block(body);
        self.b.seal_block(skip);
        self.b.switch_to_block(body);
        self.stack.push(Frame::If {
            saved,
            els,
            skip,
            end,
            had_else: false,
        });
        Ok(())
    }

    fn op_else(&mut self) -> Result<(), JitError> {
        let Some(Frame::If {
            els,
            skip,
            end,
            had_else,
            ..
        }) = self.stack.last_mut()
        else {
            return Err(self.unsupported(Opcode::Else));
        };
        *had_else = true;
        let (els, skip, end) = (*els, *skip, *end);
        let check = self.b.create_block();
        self.b.ins().jump(check, &[]);
        self.b.switch_to_block(skip);
        self.b.ins().jump(check, &[]);
        self.b.seal_block(check);
        self.b.switch_to_block(check);
        let e = self.use_vars(els);
        self.set_exec(e);
        let body = self.b.create_block();
        let any = self.any(e);
        self.b.ins().brif(any, body, &[], end, &[]);
        self.b.seal_block(body);
        self.b.switch_to_block(body);
        Ok(())
    }

    fn op_endif(&mut self) -> Result<(), JitError> {
        let Some(Frame::If {
            saved,
            skip,
            end,
            had_else,
            ..
        }) = self.stack.pop()
        else {
            return Err(self.unsupported(Opcode::EndIf));
        };
        self.b.ins().jump(end, &[]);
        if !had_else {
            self.b.switch_to_block(skip);
            self.b.ins().jump(end, &[]);
        }
        self.b.seal_block(end);
        self.b.switch_to_block(end);
        let s = self.use_vars(saved);
        self.set_exec(s);
        Ok(())
    }

    fn op_loop(&mut self, i: usize) -> Result<(), JitError> {
        let exec = self.exec_v();
        let saved = self.new_vars();
        self.def_vars(saved, exec);
        let cont = self.new_vars();
        let head = self.b.create_block();
        let exit = self.b.create_block();
        let any = self.any(exec);
        self.b.ins().brif(any, head, &[], exit, &[]);
        self.b.switch_to_block(head);
        let cost = self.loop_len.get(&i).copied().unwrap_or(1).max(1);
        self.stack.push(Frame::Loop {
            saved,
            cont,
            head,
            exit,
            cost,
        });
        Ok(())
    }

    fn op_endloop(&mut self) -> Result<(), JitError> {
        let Some(Frame::Loop {
            saved,
            cont,
            head,
            exit,
            cost,
        }) = self.stack.pop()
        else {
            return Err(self.unsupported(Opcode::EndLoop));
        };
        // Lanes that continued rejoin for the next iteration.
        let exec = self.exec_v();
        let c = self.use_vars(cont);
        let next = self.or_v(exec, c);
        self.set_exec(next);
        let z = self.splat_v(0);
        self.def_vars(cont, z);
        // Charge the budget: the loop's length for each lane that ran the
        // iteration (the interpreter charges every instruction of every
        // thread); an exhausted budget stops the batch.
        let mut lanes = self.b.ins().iconst(types::I64, 0);
        for v in exec {
            let bits = self.b.ins().vhigh_bits(types::I64, v);
            let n = self.b.ins().popcnt(bits);
            lanes = self.b.ins().iadd(lanes, n);
        }
        let charge = self.b.ins().imul_imm_s(lanes, cost as i64);
        let left = self
            .b
            .ins()
            .load(types::I64, trusted(), self.ctx, OFF_BUDGET);
        let ok = self
            .b
            .ins()
            .icmp(IntCC::UnsignedGreaterThanOrEqual, left, charge);
        let rest = self.b.ins().isub(left, charge);
        let zero = self.b.ins().iconst(types::I64, 0);
        let new = self.b.ins().select(ok, rest, zero);
        self.b.ins().store(trusted(), new, self.ctx, OFF_BUDGET);
        let again = self.b.create_block();
        let stop = self.b.create_block();
        self.b.ins().brif(ok, again, &[], stop, &[]);
        // Out of budget: name this `endloop` for the error, then stop.
        self.b.seal_block(stop);
        self.b.switch_to_block(stop);
        let at = self.b.ins().iconst(types::I32, self.at as i64);
        self.b.ins().store(trusted(), at, self.ctx, OFF_STOPPED_AT);
        self.b.ins().jump(self.budget_exit, &[]);
        self.b.seal_block(again);
        self.b.switch_to_block(again);
        let any = self.any(next);
        self.b.ins().brif(any, head, &[], exit, &[]);
        self.b.seal_block(head);
        self.b.seal_block(exit);
        self.b.switch_to_block(exit);
        let s = self.use_vars(saved);
        self.set_exec(s);
        Ok(())
    }

    /// The lanes that leave: all active lanes, or those whose condition holds.
    fn leaving(&mut self, cond: Option<V>) -> V {
        let exec = self.exec_v();
        match cond {
            Some(c) => self.and_v(exec, c),
            None => exec,
        }
    }

    fn op_break(&mut self, cond: Option<V>) -> Result<(), JitError> {
        let leaving = self.leaving(cond);
        let exec = self.exec_v();
        let rest = self.andnot_v(exec, leaving);
        self.set_exec(rest);
        let mut found = false;
        for k in (0..self.stack.len()).rev() {
            match &self.stack[k] {
                Frame::If { saved, els, .. } => {
                    let (s, e) = (*saved, *els);
                    self.clear(s, leaving);
                    self.clear(e, leaving);
                }
                Frame::Loop { .. } | Frame::Switch { .. } => {
                    found = true;
                    break;
                }
                Frame::Call { .. } => break,
            }
        }
        if !found {
            return Err(self.unsupported(Opcode::Break));
        }
        Ok(())
    }

    fn op_continue(&mut self, cond: Option<V>) -> Result<(), JitError> {
        let leaving = self.leaving(cond);
        let exec = self.exec_v();
        let rest = self.andnot_v(exec, leaving);
        self.set_exec(rest);
        for k in (0..self.stack.len()).rev() {
            match &self.stack[k] {
                Frame::If { saved, els, .. } => {
                    let (s, e) = (*saved, *els);
                    self.clear(s, leaving);
                    self.clear(e, leaving);
                }
                Frame::Switch { saved, .. } => {
                    let s = *saved;
                    self.clear(s, leaving);
                }
                Frame::Loop { cont, .. } => {
                    let c = *cont;
                    let cur = self.use_vars(c);
                    let new = self.or_v(cur, leaving);
                    self.def_vars(c, new);
                    return Ok(());
                }
                Frame::Call { .. } => break,
            }
        }
        Err(self.unsupported(Opcode::Continue))
    }

    /// ret/retc: in the main program the lanes are done for good; in a
    /// subroutine they leave it and resume after the `call`.
    fn op_ret(&mut self, cond: Option<V>) -> Result<(), JitError> {
        let leaving = self.leaving(cond);
        let exec = self.exec_v();
        let rest = self.andnot_v(exec, leaving);
        self.set_exec(rest);
        for k in (0..self.stack.len()).rev() {
            let vars: Vec<[Variable; N]> = match &self.stack[k] {
                Frame::If { saved, els, .. } => vec![*saved, *els],
                Frame::Loop { saved, .. } => vec![*saved],
                Frame::Switch { saved, .. } => vec![*saved],
                Frame::Call { .. } => break,
            };
            for v in vars {
                self.clear(v, leaving);
            }
        }
        Ok(())
    }

    /// `call`/`callc`: the subroutine's body is lowered in place (SM5 has
    /// no recursion; a call nested 32 deep is skipped, as the interpreter
    /// skips it), under the lanes that call it.
    fn op_call(
        &mut self,
        inst: &Instruction,
        label_op: usize,
        cond: Option<V>,
    ) -> Result<(), JitError> {
        let label = self
            .operand(inst, label_op)?
            .imm_index(0)
            .ok_or_else(|| self.unsupported_operand("call without a label"))?;
        let Some(&start) = self.p.labels.get(&label) else {
            return Err(self.unsupported_operand("call to an undefined label"));
        };
        if self.call_depth >= crate::limits::MAX_CALL_DEPTH {
            return Ok(());
        }
        let insts = &self.p.program.insts;
        let end = (start..insts.len())
            .find(|&k| insts[k].opcode == Opcode::Label)
            .unwrap_or(insts.len());
        self.inlined += end - start;
        if self.inlined > MAX_INLINED {
            return Err(self.unsupported_operand("subroutines inlined past the size limit"));
        }
        let exec = self.exec_v();
        let saved = self.new_vars();
        self.def_vars(saved, exec);
        if let Some(c) = cond {
            let e = self.and_v(exec, c);
            self.set_exec(e);
        }
        let at = self.at;
        self.stack.push(Frame::Call { saved });
        self.call_depth += 1;
        self.body(start, end)?;
        self.call_depth -= 1;
        self.at = at;
        match self.stack.pop() {
            Some(Frame::Call { saved }) => {
                let s = self.use_vars(saved);
                self.set_exec(s);
                Ok(())
            }
            _ => Err(self.unsupported_operand("subroutine with an unclosed construct")),
        }
    }

    /// Lowers instructions `start..end` (the main program or a subroutine).
    pub fn body(&mut self, start: usize, end: usize) -> Result<(), JitError> {
        let p = self.p;
        for (i, inst) in p.program.insts.iter().enumerate().take(end).skip(start) {
            self.inst(i, inst)?;
        }
        Ok(())
    }

    fn op_switch(&mut self, i: usize, inst: &Instruction) -> Result<(), JitError> {
        let Some(Jump::Switch(k)) = self.p.jumps.get(i).copied() else {
            return Err(self.unsupported(Opcode::Switch));
        };
        let cases: Vec<u32> = self
            .p
            .switches
            .get(k)
            .map(|t| t.cases.iter().map(|c| c.0).collect())
            .unwrap_or_default();
        let op = self.operand(inst, 0)?;
        let sel_v = self.scalar_src(op)?;
        let exec = self.exec_v();
        let saved = self.new_vars();
        self.def_vars(saved, exec);
        let sel = self.new_vars();
        self.def_vars(sel, sel_v);
        let taken = self.new_vars();
        // Lanes matching no case go to `default`.
        let mut nm = exec;
        for c in cases {
            let cv = self.vsplat(c);
            let eq = self.map1(sel_v, |s, x| s.b.ins().icmp(IntCC::Equal, x, cv));
            nm = self.andnot_v(nm, eq);
        }
        let nomatch = self.new_vars();
        self.def_vars(nomatch, nm);
        let z = self.splat_v(0);
        self.set_exec(z);
        self.stack.push(Frame::Switch {
            saved,
            sel,
            taken,
            nomatch,
        });
        Ok(())
    }

    /// Lanes in `entering` that have not entered a case yet join `exec`.
    fn enter_case(&mut self, entering: V) {
        let Some(Frame::Switch { saved, taken, .. }) = self.stack.last() else {
            return;
        };
        let (saved, taken) = (*saved, *taken);
        let s = self.use_vars(saved);
        let t = self.use_vars(taken);
        let e = self.and_v(entering, s);
        let new = self.andnot_v(e, t);
        let t2 = self.or_v(t, new);
        self.def_vars(taken, t2);
        let exec = self.exec_v();
        let x = self.or_v(exec, new);
        self.set_exec(x);
    }

    fn op_case(&mut self, inst: &Instruction) -> Result<(), JitError> {
        let Some(Frame::Switch { sel, .. }) = self.stack.last() else {
            return Err(self.unsupported(Opcode::Case));
        };
        let sel = *sel;
        let op = self.operand(inst, 0)?;
        let value = op
            .imm
            .first()
            .copied()
            .or_else(|| op.imm_index(0))
            .ok_or_else(|| self.unsupported_operand("case without a literal"))?;
        let s = self.use_vars(sel);
        let cv = self.vsplat(value);
        let eq = self.map1(s, |b, x| b.b.ins().icmp(IntCC::Equal, x, cv));
        self.enter_case(eq);
        Ok(())
    }

    fn op_default(&mut self) -> Result<(), JitError> {
        let Some(Frame::Switch { nomatch, .. }) = self.stack.last() else {
            return Err(self.unsupported(Opcode::Default));
        };
        let nm = *nomatch;
        let v = self.use_vars(nm);
        self.enter_case(v);
        Ok(())
    }

    fn op_endswitch(&mut self) -> Result<(), JitError> {
        let Some(Frame::Switch { saved, .. }) = self.stack.pop() else {
            return Err(self.unsupported(Opcode::EndSwitch));
        };
        let s = self.use_vars(saved);
        self.set_exec(s);
        Ok(())
    }

    /// `sync_*_t`: save every variable, return, and continue here on resume.
    fn barrier(&mut self) {
        let count = self.all_vars.len();
        let save = self.b.ins().load(types::I64, trusted(), self.ctx, OFF_SAVE);
        for k in 0..count {
            let v = self.b.use_var(self.all_vars[k]);
            self.b.ins().store(trusted(), v, save, (16 * k) as i32);
        }
        let id = self.resumes.len() as i64 + 1;
        let idv = self.b.ins().iconst(types::I32, id);
        self.b.ins().store(trusted(), idv, self.ctx, OFF_RESUME);
        let st = self.b.ins().iconst(types::I32, i64::from(STATUS_BARRIER));
        self.b.ins().return_(&[st]);
        // The resume block reloads the variables and continues here.
        let resume = self.b.create_block();
        let cont = self.b.create_block();
        self.b.switch_to_block(resume);
        let save = self.b.ins().load(types::I64, trusted(), self.ctx, OFF_SAVE);
        for k in 0..count {
            let v = self
                .b
                .ins()
                .load(types::I32X4, trusted(), save, (16 * k) as i32);
            self.b.def_var(self.all_vars[k], v);
        }
        self.b.ins().jump(cont, &[]);
        self.resumes.push((resume, count));
        self.b.seal_block(cont);
        self.b.switch_to_block(cont);
    }
}
