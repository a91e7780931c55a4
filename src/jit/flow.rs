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
//!   back-edge (the loop's length times `W`, whatever lanes ran it) so a
//!   runaway loop returns `STATUS_BUDGET`.
//!
//! A `sync_*_t` saves the vector variables still needed to the batch's
//! save area, stores the resume id in the batch's context, marks the group
//! as waiting and goes on with the next batch of the group (`Lower::next`,
//! the batch loop built in `mod.rs`); the next pass over the group's
//! batches enters the matching resume block, which reloads the variables.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, Block, InstBuilder};
use cranelift_frontend::Variable;

use super::context::{N, OFF_BUDGET, OFF_RESUME, OFF_SAVE, OFF_WAITING, W};
use super::lower::{trusted, Lower, V};
use super::JitError;
use crate::analysis::Jump;
use crate::ir::{sync_flags, FlowInst, Instruction, Opcode};

/// What `Lower::full_stack` keeps per open construct.
pub struct Open {
    /// `full_exec` when the construct opened.
    pub full: bool,
    /// `lane_exits` when the construct opened.
    pub exits: u64,
    /// Where the lanes outside `exec` inside the construct continue
    /// (instruction indices), or `None` when that is not tracked
    /// (switch, inlined call: writes always blend).
    pub resume: Option<Vec<usize>>,
}

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
        /// The scalar condition (non-zero: the `if` branch runs) of an
        /// `if` on a uniform condition (`uniform.rs`): the branches run
        /// on the whole mask, one or the other.
        uniform: Option<cranelift_codegen::ir::Value>,
    },
    Loop {
        saved: [Variable; N],
        /// Lanes that executed `continue` in this iteration.
        cont: [Variable; N],
        head: Block,
        exit: Block,
        /// Budget charged per back-edge and lane of the batch.
        cost: u64,
        /// Whether a `continue` of this loop exists (else `cont` stays
        /// empty and is not merged).
        has_continue: bool,
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
        // A comparison result is a mask already (every lane all ones or
        // zero): `_nz` is the value itself.
        if inst.test_nz() && v.iter().all(|x| self.mask_values.contains(x)) {
            return Ok(v);
        }
        let zero = self.vsplat(0);
        let cc = if inst.test_nz() {
            IntCC::NotEqual
        } else {
            IntCC::Equal
        };
        Ok(self.map1(v, |s, x| s.b.ins().icmp(cc, x, zero)))
    }

    pub(super) fn exec_v(&mut self) -> V {
        self.use_vars(self.exec)
    }

    pub(super) fn set_exec(&mut self, v: V) {
        self.def_vars(self.exec, v);
    }

    /// Clears `leaving` from `vars`.
    fn clear(&mut self, vars: [Variable; N], leaving: V) {
        let cur = self.use_vars(vars);
        let new = self.andnot_v(cur, leaving);
        self.def_vars(vars, new);
    }

    /// Entering a construct: its body may run on part of the lanes, the
    /// others continue at `resume`.
    pub(super) fn push_full(&mut self, keep: bool, resume: Option<Vec<usize>>) {
        self.full_stack.push(Open {
            full: self.full_exec,
            exits: self.lane_exits,
            resume,
        });
        self.full_exec &= keep;
    }

    /// The jump target of instruction `k` (`Prepared::jumps`).
    pub(super) fn jump_target(&self, k: usize) -> Option<usize> {
        match self.p.jumps.get(k) {
            Some(Jump::To(t) | Jump::IfFalse(t)) => Some(*t),
            _ => None,
        }
    }

    /// Where the lanes outside a loop's `exec` continue: after its
    /// `endloop`, and at its head when it has a `continue`.
    fn loop_resume(&self, at: usize) -> Option<Vec<usize>> {
        let insts = &self.p.program.insts;
        let mut depth = 0usize;
        let mut cont = false;
        for (k, inst) in insts.iter().enumerate().skip(at + 1) {
            match inst.opcode {
                Opcode::Loop => depth += 1,
                Opcode::EndLoop if depth == 0 => {
                    let mut v = vec![k + 1];
                    if cont {
                        v.push(at + 1);
                    }
                    return Some(v);
                }
                Opcode::EndLoop => depth -= 1,
                Opcode::Continue | Opcode::Continuec => {
                    cont |= self.jump_target(k) == Some(at + 1);
                }
                _ => {}
            }
        }
        None
    }

    /// Leaving a construct: every lane that entered is back unless some
    /// instruction inside may have dropped lanes for good (`ret` to the
    /// top, counted conservatively with break and continue). `returns`
    /// says the construct restores its entry mask whatever happened
    /// inside (an inlined call).
    pub(super) fn pop_full(&mut self, returns: bool) {
        if let Some(o) = self.full_stack.pop() {
            self.full_exec = o.full && (returns || o.exits == self.lane_exits);
        }
    }

    /// Lowers one flow-class instruction.
    pub fn flow(&mut self, op: FlowInst, i: usize, inst: &Instruction) -> Result<(), JitError> {
        use FlowInst as F;
        // A uniform `breakc` (`uniform.rs`): all active lanes leave the
        // loop together or none does; no lane leaves the mask.
        if op == F::Breakc && self.uniform.as_ref().is_some_and(|u| u.uniform_break(i)) {
            if let Some(c) = self.uniform_cond(i, inst) {
                return self.uniform_break(inst, c);
            }
        }
        // An unconditional `break` directly in its loop leaves with every
        // active lane, as the analysis assumes: the code after it is never
        // reached, so its shadow writes (which no mask guards) cannot
        // reach the loop's exit.
        if op == F::Break && self.uniform.as_ref().is_some_and(|u| u.uniform_break(i)) {
            if let Some(Frame::Loop { exit, .. }) = self.stack.last() {
                let exit = *exit;
                self.b.ins().jump(exit, &[]);
                let dead = self.b.create_block();
                self.b.seal_block(dead);
                self.b.switch_to_block(dead);
                return Ok(());
            }
        }
        if matches!(
            op,
            F::Ret | F::Retc | F::Break | F::Breakc | F::Continue | F::Continuec
        ) {
            self.full_exec = false;
            self.lane_exits += 1;
        }
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
        if !self.barrier_in_branch() {
            if let Some(c) = self.uniform_cond(self.at, inst) {
                return self.uniform_if(inst, c);
            }
        }
        let cond = self.cond_mask(inst)?;
        let exec = self.exec_v();
        let saved = self.new_vars();
        self.def_vars(saved, exec);
        let els = self.new_vars();
        let e = self.andnot_v(exec, cond);
        self.def_vars(els, e);
        let taken = self.and_v(exec, cond);
        self.set_exec(taken);
        let any = self.any(taken);
        self.open_if(any, saved, els, None);
        Ok(())
    }

    /// Branches on `go` into a new `if` body (or to its skip block) and
    /// opens the `if`'s frame: `saved` and `els` hold the masks to restore
    /// and to run the `else` with; `uniform` is the scalar condition of a
    /// mask-free `if`, whose body keeps a full mask.
    fn open_if(
        &mut self,
        go: cranelift_codegen::ir::Value,
        saved: [Variable; N],
        els: [Variable; N],
        uniform: Option<cranelift_codegen::ir::Value>,
    ) {
        let body = self.b.create_block();
        let skip = self.b.create_block();
        let end = self.b.create_block();
        self.b.ins().brif(go, body, &[], skip, &[]);
        // Sealing each block as soon as its predecessors are known keeps
        // SSA construction linear in the program size.
        self.b.seal_block(body);
        self.b.seal_block(skip);
        self.b.switch_to_block(body);
        let resume = self.jump_target(self.at).map(|t| vec![t]);
        self.push_full(uniform.is_some(), resume);
        self.stack.push(Frame::If {
            saved,
            els,
            skip,
            end,
            had_else: false,
            uniform,
        });
    }

    /// Whether the `if` branch of the `if` being lowered may reach a group
    /// barrier (a `sync` with the thread flag, or a `call`, whose body is
    /// inlined): the code after a barrier continues from its resume block,
    /// where no value computed before the barrier is available, so the
    /// `else` could not branch on the `if`'s scalar condition.
    fn barrier_in_branch(&self) -> bool {
        let end = self.jump_target(self.at).unwrap_or(usize::MAX);
        let insts = &self.p.program.insts;
        insts
            .iter()
            .take(end.min(insts.len()))
            .skip(self.at + 1)
            .any(|i| match i.opcode {
                Opcode::Sync => i.sync_flags() & sync_flags::THREADS_IN_GROUP != 0,
                Opcode::Call | Opcode::Callc => true,
                _ => false,
            })
    }

    /// `if` on the uniform scalar `c` (`_z` tests it for zero): a branch,
    /// no mask changes; the `else` runs when the `if` branch did not.
    fn uniform_if(
        &mut self,
        inst: &Instruction,
        c: cranelift_codegen::ir::Value,
    ) -> Result<(), JitError> {
        let c = if inst.test_nz() {
            c
        } else {
            let t = self.b.ins().icmp_imm_s(IntCC::Equal, c, 0);
            self.b.ins().uextend(types::I32, t)
        };
        let exec = self.exec_v();
        let saved = self.new_vars();
        self.def_vars(saved, exec);
        let els = self.new_vars();
        self.def_vars(els, exec);
        self.open_if(c, saved, els, Some(c));
        Ok(())
    }

    fn op_else(&mut self) -> Result<(), JitError> {
        let Some(Frame::If {
            els,
            skip,
            end,
            had_else,
            uniform,
            ..
        }) = self.stack.last_mut()
        else {
            return Err(self.unsupported(Opcode::Else));
        };
        *had_else = true;
        let (els, skip, end, uniform) = (*els, *skip, *end, *uniform);
        // In the else branch the idle lanes are those that took the if.
        let resume = self.jump_target(self.at).map(|t| vec![t]);
        if let Some(o) = self.full_stack.last_mut() {
            o.resume = resume;
        }
        let check = self.b.create_block();
        self.b.ins().jump(check, &[]);
        self.b.switch_to_block(skip);
        self.b.ins().jump(check, &[]);
        self.b.seal_block(check);
        self.b.switch_to_block(check);
        let e = self.use_vars(els);
        self.set_exec(e);
        let body = self.b.create_block();
        match uniform {
            Some(c) => {
                self.b.ins().brif(c, end, &[], body, &[]);
            }
            None => {
                let any = self.any(e);
                self.b.ins().brif(any, body, &[], end, &[]);
            }
        }
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
        self.pop_full(false);
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
        let resume = self.loop_resume(i);
        let has_continue = resume.as_ref().is_none_or(|r| r.len() > 1);
        // A loop left only by uniform breaks keeps every lane it started
        // with until it ends.
        let keep = self.uniform.as_ref().is_some_and(|u| u.uniform_loop(i));
        self.push_full(keep, resume);
        self.stack.push(Frame::Loop {
            saved,
            cont,
            head,
            exit,
            cost,
            has_continue,
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
            has_continue,
        }) = self.stack.pop()
        else {
            return Err(self.unsupported(Opcode::EndLoop));
        };
        // Lanes that continued rejoin for the next iteration.
        let exec = self.exec_v();
        let next = if has_continue {
            let c = self.use_vars(cont);
            let next = self.or_v(exec, c);
            self.set_exec(next);
            let z = self.splat_v(0);
            self.def_vars(cont, z);
            next
        } else {
            exec
        };
        // Charge the budget: the loop's length for each of the batch's `W`
        // lanes, whether it ran the iteration or not (docs/semantics.md,
        // "budget": a constant needs no count of the active lanes); an
        // exhausted budget stops the batch.
        let charge = self.b.ins().iconst(
            types::I64,
            cost.saturating_mul(W as u64).min(i64::MAX as u64) as i64,
        );
        self.charge_budget(charge, self.at);
        let any = self.any(next);
        self.b.ins().brif(any, head, &[], exit, &[]);
        self.b.seal_block(head);
        self.b.seal_block(exit);
        self.b.switch_to_block(exit);
        let s = self.use_vars(saved);
        self.set_exec(s);
        self.pop_full(false);
        Ok(())
    }

    /// Takes `charge` (i64) from the group's loop budget; when less is
    /// left, the function leaves through the budget exit naming the
    /// `endloop` at `at`.
    pub(super) fn charge_budget(&mut self, charge: cranelift_codegen::ir::Value, at: usize) {
        let left = self
            .b
            .ins()
            .load(types::I64, trusted(), self.group, OFF_BUDGET);
        let ok = self
            .b
            .ins()
            .icmp(IntCC::UnsignedGreaterThanOrEqual, left, charge);
        // Out of budget: the shared exit stores the `endloop`'s index for
        // the error. No block of its own: a block outside the loop
        // dominated by a block inside it makes Cranelift's elaboration
        // forget the loop (see `budget_exit` in `jit/mod.rs`).
        let again = self.b.create_block();
        let at = self.b.ins().iconst(types::I32, at as i64);
        self.b
            .ins()
            .brif(ok, again, &[], self.budget_exit, &[at.into()]);
        self.b.seal_block(again);
        self.b.switch_to_block(again);
        let rest = self.b.ins().isub(left, charge);
        self.b.ins().store(trusted(), rest, self.group, OFF_BUDGET);
    }

    /// `breakc` on the uniform scalar condition `c`, directly in its loop:
    /// jump to the loop's exit (which restores the loop's entry mask) when
    /// the condition holds.
    fn uniform_break(
        &mut self,
        inst: &Instruction,
        c: cranelift_codegen::ir::Value,
    ) -> Result<(), JitError> {
        let Some(Frame::Loop { exit, .. }) = self.stack.last() else {
            return Err(self.unsupported(Opcode::Breakc));
        };
        let exit = *exit;
        self.break_to(inst, c, exit);
        Ok(())
    }

    /// Jumps to `exit` when the scalar condition `c` of `breakc` `inst`
    /// holds (`_nz`: non-zero) and goes on in a new block otherwise.
    pub(super) fn break_to(
        &mut self,
        inst: &Instruction,
        c: cranelift_codegen::ir::Value,
        exit: cranelift_codegen::ir::Block,
    ) {
        let stay = self.b.create_block();
        if inst.test_nz() {
            self.b.ins().brif(c, exit, &[], stay, &[]);
        } else {
            self.b.ins().brif(c, stay, &[], exit, &[]);
        }
        self.b.seal_block(stay);
        self.b.switch_to_block(stay);
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
        self.push_full(cond.is_none(), None);
        self.call_depth += 1;
        self.body(start, end)?;
        self.call_depth -= 1;
        self.at = at;
        match self.stack.pop() {
            Some(Frame::Call { saved }) => {
                let s = self.use_vars(saved);
                self.set_exec(s);
                self.pop_full(true);
                Ok(())
            }
            _ => Err(self.unsupported_operand("subroutine with an unclosed construct")),
        }
    }

    /// Lowers instructions `start..end` (the main program or a subroutine).
    pub fn body(&mut self, start: usize, end: usize) -> Result<(), JitError> {
        let p = self.p;
        let mut i = start;
        while i < end {
            // An `if` on a thread-id range is lowered whole (`split.rs`).
            if let Some(next) = self.split_if(i, end)? {
                i = next;
                continue;
            }
            self.inst(i, &p.program.insts[i])?;
            i += 1;
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
        self.push_full(false, None);
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
        self.pop_full(false);
        Ok(())
    }

    /// The r# variables whose components are dead after the barrier at
    /// `self.at` for the active lanes and wherever the idle lanes continue
    /// (`liveness.rs`; none inside an inlined subroutine).
    fn dead_after_barrier(&self) -> std::collections::HashSet<u32> {
        let mut dead = std::collections::HashSet::new();
        let Some(live) = self.live.as_ref().filter(|_| self.call_depth == 0) else {
            return dead;
        };
        for (r, reg) in self.regs.iter().enumerate() {
            for (c, vars) in reg.iter().enumerate() {
                // Dead on the path of the active lanes and where every idle
                // lane continues (they pass the barrier without running the
                // instructions after it).
                if !live.live_at(self.at + 1, r as u32, c)
                    && self.idle_lanes_never_read(r as u32, c)
                {
                    dead.extend(vars.iter().map(|v| v.as_u32()));
                }
            }
        }
        dead
    }

    /// The variables a batch may still read after the barrier at
    /// `self.at`: `exec`, the masks of the constructs open here, the stage
    /// variables and the r# components not in `dead`. The masks of
    /// constructs closed before the barrier are written again before any
    /// read (a construct's lowering defines its masks where it opens).
    fn needed_after_barrier(
        &self,
        dead: &std::collections::HashSet<u32>,
    ) -> std::collections::HashSet<u32> {
        let mut keep: Vec<[Variable; N]> = vec![self.exec];
        for f in &self.stack {
            match f {
                Frame::If { saved, els, .. } => keep.extend([*saved, *els]),
                Frame::Loop {
                    saved,
                    cont,
                    has_continue,
                    ..
                } => {
                    keep.push(*saved);
                    // Without a `continue`, `cont` is never read.
                    if *has_continue {
                        keep.push(*cont);
                    }
                }
                Frame::Call { saved } => keep.push(*saved),
                Frame::Switch {
                    saved,
                    sel,
                    taken,
                    nomatch,
                } => keep.extend([*saved, *sel, *taken, *nomatch]),
            }
        }
        let st = &self.stage;
        keep.extend(st.inputs.iter().chain(&st.outputs).flatten());
        keep.extend(st.killed);
        keep.extend(self.regs.iter().flatten());
        keep.iter()
            .flatten()
            .map(|v| v.as_u32())
            .filter(|v| !dead.contains(v))
            .collect()
    }

    /// `sync_*_t`: save every variable still needed, go on with the next
    /// batch, and continue here on resume (variables not needed after the
    /// barrier, `needed_after_barrier`, are neither saved nor restored;
    /// they restart as zero). On tier 0 the variables already live in the
    /// save area: nothing is saved or reloaded.
    ///
    /// A batch with no lane active here passes straight on: its threads
    /// are elsewhere (left the loop, continued, returned), and a thread
    /// waits only at a barrier it executes, so the wave runs on as in
    /// the interpreter (docs/semantics.md, "threads of one group between
    /// barriers").
    fn barrier(&mut self) {
        let cont = self.b.create_block();
        if !self.full_exec {
            let exec = self.exec_v();
            let any = self.any(exec);
            let stop = self.b.create_block();
            self.b.ins().brif(any, stop, &[], cont, &[]);
            self.b.seal_block(stop);
            self.b.switch_to_block(stop);
        }
        let tier1 = self.slots.is_none();
        let kept: Vec<Variable> = if tier1 {
            let dead = self.dead_after_barrier();
            let needed = self.needed_after_barrier(&dead);
            self.all_vars
                .iter()
                .copied()
                .filter(|v| needed.contains(&v.as_u32()))
                .collect()
        } else {
            self.all_vars.clone()
        };
        if tier1 {
            let save = self.b.ins().load(types::I64, trusted(), self.ctx, OFF_SAVE);
            for (k, var) in kept.iter().enumerate() {
                let v = self.b.use_var(*var);
                self.b.ins().store(trusted(), v, save, (16 * k) as i32);
            }
        }
        let count = kept.len();
        let id = self.resumes.len() as i64 + 1;
        let idv = self.b.ins().iconst(types::I32, id);
        self.b.ins().store(trusted(), idv, self.ctx, OFF_RESUME);
        // Another pass over the group's batches follows this one.
        let one = self.b.ins().iconst(types::I32, 1);
        self.b.ins().store(trusted(), one, self.group, OFF_WAITING);
        self.b.ins().jump(self.next, &[]);
        // The resume block reloads the variables and continues here.
        let resume = self.b.create_block();
        self.b.switch_to_block(resume);
        if tier1 {
            let save = self.b.ins().load(types::I64, trusted(), self.ctx, OFF_SAVE);
            for (k, var) in kept.iter().enumerate() {
                let v = self
                    .b
                    .ins()
                    .load(types::I32X4, trusted(), save, (16 * k) as i32);
                self.b.def_var(*var, v);
            }
            if kept.len() < self.all_vars.len() {
                let zero = self.vsplat(0);
                let kept: std::collections::HashSet<u32> =
                    kept.iter().map(|v| v.as_u32()).collect();
                for var in self.all_vars.clone() {
                    if !kept.contains(&var.as_u32()) {
                        self.b.def_var(var, zero);
                    }
                }
            }
            self.reload_shadows(self.at);
        }
        self.b.ins().jump(cont, &[]);
        self.resumes.push((resume, count));
        self.b.seal_block(cont);
        self.b.switch_to_block(cont);
    }
}
