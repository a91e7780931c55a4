//! Ifs on a thread-id range: the batch's first and last id decide.
//!
//! In: an `if` whose condition compares a thread id along x with a
//! uniform value: a comparison right before it (`ult r0.z,
//! vThreadIDInGroupFlattened.x, r0.y` then `if_nz r0.z`), or the id tested
//! itself (`if_z vThreadIDInGroupFlattened.x`, fxc's `if (tid == 0)`), in a
//! batch that lies in one row of its group and runs on every lane, with a
//! short body free of flow, barriers and calls and no `else`. Out: the
//! batch's ids are `x0 .. x0 + W - 1` without wrap, so an ordered
//! comparison holds on a prefix or a suffix of the lanes and an equality
//! on at most one; scalar tests of `x0` and `x0 + W - 1` pick whether the
//! body runs on every lane (lowered on the full mask: no mask is built,
//! no write blends), on none (skipped) or on some (the vector comparison
//! and the masked body of a plain `if`). The body is lowered twice.
//!
//! An early return, `if (id >= n) return;` at the top level of a program
//! without barriers (the `if`'s body one `ret`), splits the same way, with
//! the rest of the program in the paths: where no lane returns, the rest
//! is lowered on the full mask; where every lane does, the batch ends;
//! otherwise the plain `if` and the rest on the mask it leaves. The rest
//! is lowered twice, so it is bounded ([`MAX_REST`], no `call`).
//!
//! Invariant: every register ends as the plain lowering leaves it; the
//! comparison's destination gets each lane's result on all three paths
//! (all ones or zero where the scalar tests decide it).

use cranelift_codegen::ir::condcodes::{CondCode, IntCC};
use cranelift_codegen::ir::{types, Block, InstBuilder, Value};

use super::context::{OFF_FLAT, W};
use super::lower::{Lower, Ty};
use super::uniform::{first_comp, src_comp};
use super::JitError;
use crate::ir::{Instruction, Modifier, OpClass, Opcode, Operand, OperandType};

/// Instructions a split body may hold: it is lowered twice.
const MAX_BODY: usize = 64;

/// Instructions the program may hold after an early return that splits:
/// they are lowered twice.
const MAX_REST: usize = 256;

/// A recognised `if` on a thread-id range.
struct Split<'p> {
    /// The comparison writing the `if`'s condition (`None`: the `if`
    /// tests the id itself).
    cmp: Option<usize>,
    /// The `if` and its `endif`.
    at_if: usize,
    end: usize,
    /// The thread id and the component it reads.
    x: (&'p Operand, usize),
    /// The uniform operand and its component (`None`: zero).
    u: Option<(&'p Operand, usize)>,
    /// The condition as `cc(x, u)`.
    cc: IntCC,
    /// The body runs where `cc(x, u)` holds (`if_nz`), else where it
    /// does not.
    on_true: bool,
}

/// The blocks of a split's three-way branch ([`Lower::split_branch`]).
struct Branch {
    /// Where the `if`'s body runs on every lane (`None` where that cannot
    /// be), sealed.
    all: Option<Block>,
    /// Where it runs on none, sealed.
    none: Option<Block>,
    /// The plain `if`, sealed.
    part: Block,
    /// Where the paths meet, for the caller to seal.
    end: Block,
    /// The uniform operand.
    u: Value,
}

/// While a split body is lowered on its full-mask path where every lane's
/// id is at least the uniform operand (`x >= u`, `x > u`): a difference
/// `x - u` the body computes lies in `0 ..= x` on every lane, below the
/// id's bound (`Lower::lane_bound`), so it keeps the id's facts.
pub(super) struct IdFloor {
    /// The id's register type (its x component, or the flattened id).
    id: OperandType,
    /// `u`: an r# component (not written after `since`) or a literal.
    u: Floor,
    since: usize,
    bound: u32,
}

#[derive(Clone, Copy, PartialEq)]
enum Floor {
    Reg(u32, usize),
    Literal(u32),
}

/// The comparison of an integer compare opcode, `a` against `b`.
fn compare_cc(op: Opcode) -> Option<IntCC> {
    Some(match op {
        Opcode::IEq => IntCC::Equal,
        Opcode::INe => IntCC::NotEqual,
        Opcode::ILt => IntCC::SignedLessThan,
        Opcode::IGe => IntCC::SignedGreaterThanOrEqual,
        Opcode::ULt => IntCC::UnsignedLessThan,
        Opcode::UGe => IntCC::UnsignedGreaterThanOrEqual,
        _ => return None,
    })
}

/// Whether component `comp` of `op` is a thread id whose lanes, in a
/// batch that lies in one row, are `x0 + l` with no wrap (ids along x are
/// below 2^26: 65,535 groups of at most 1,024 threads).
fn row_id(op: &Operand, comp: usize) -> bool {
    op.modifier == Modifier::None
        && match op.ty {
            OperandType::ThreadIdInGroupFlattened => true,
            OperandType::ThreadIdInGroup | OperandType::ThreadId => comp == 0,
            _ => false,
        }
}

/// Whether instructions `body` may be lowered twice as a split body: no
/// flow (the body opens no construct and drops no lane), no barrier, no
/// discard, and short.
fn plain_body(body: &[Instruction]) -> bool {
    body.len() <= MAX_BODY
        && body.iter().all(|i| {
            !matches!(i.opcode.class(), OpClass::Flow | OpClass::Sync)
                && !matches!(i.opcode, Opcode::Discard)
        })
}

impl Lower<'_, '_> {
    /// The split `if` starting at instruction `i` (its comparison or the
    /// `if` itself), with the `endif` before `limit`, if there is one.
    fn find_split<'p>(
        &self,
        insts: &'p [Instruction],
        i: usize,
        limit: usize,
    ) -> Option<Split<'p>> {
        let s = self.id_condition(insts, i)?;
        (s.end < limit && plain_body(insts.get(s.at_if + 1..s.end)?)).then_some(s)
    }

    /// The early return starting at instruction `i` (its comparison or
    /// the `if` itself): an `if` on a thread-id range whose body is one
    /// `ret`, at the top level of the main program (`limit`, the first
    /// label), in a program without group barriers, followed by at most
    /// [`MAX_REST`] instructions and no `call`.
    fn find_early_return<'p>(
        &self,
        insts: &'p [Instruction],
        i: usize,
        limit: usize,
    ) -> Option<Split<'p>> {
        let main_end = insts
            .iter()
            .position(|i| i.opcode == Opcode::Label)
            .unwrap_or(insts.len());
        if limit != main_end
            || !self.stack.is_empty()
            || self.call_depth != 0
            || super::has_group_barrier(self.p)
        {
            return None;
        }
        let s = self.id_condition(insts, i)?;
        let body = insts.get(s.at_if + 1..s.end)?;
        let rest = insts.get(s.end + 1..limit)?;
        let calls = |i: &Instruction| matches!(i.opcode, Opcode::Call | Opcode::Callc);
        (body.len() == 1
            && body[0].opcode == Opcode::Ret
            && rest.len() <= MAX_REST
            && !rest.iter().any(calls))
        .then_some(s)
    }

    /// The `if` starting at instruction `i` (its comparison or the `if`
    /// itself) when its condition compares a thread id with a uniform
    /// value and it has no `else`; its body is the caller's to judge.
    fn id_condition<'p>(&self, insts: &'p [Instruction], i: usize) -> Option<Split<'p>> {
        if self.slots.is_some()
            || super::opt_off("split")
            || !(self.full_exec || self.span_full.is_some())
            || !self.plan.ranges.is_empty()
            || !self.batch_in_row()
        {
            return None;
        }
        let uniform = self.uniform.as_ref()?;
        let inst = insts.get(i)?;
        let (cmp, at_if, x, u, cc) = if inst.opcode == Opcode::If {
            let op = inst.operands.first()?;
            let c = first_comp(op);
            if !row_id(op, c) {
                return None;
            }
            (None, i, (op, c), None, IntCC::NotEqual)
        } else {
            let cc = compare_cc(inst.opcode)?;
            let cond = insts.get(i + 1)?;
            let dst = inst.operands.first()?;
            let t = cond.operands.first()?;
            let mask = dst.write_mask();
            let c = mask.trailing_zeros() as usize;
            if cond.opcode != Opcode::If
                || dst.ty != OperandType::Temp
                || mask.count_ones() != 1
                || t.ty != OperandType::Temp
                || t.modifier != Modifier::None
                || t.imm_index(0).is_none()
                || t.imm_index(0) != dst.imm_index(0)
                || first_comp(t) != c
            {
                return None;
            }
            let (a, b) = (inst.operands.get(1)?, inst.operands.get(2)?);
            let (a, b) = ((a, src_comp(a, c)), (b, src_comp(b, c)));
            let uniform_at = |(op, c): (&Operand, usize)| {
                uniform.operand_uniform_at(i, op, c) || self.region_held(insts, i, op, c)
            };
            if row_id(a.0, a.1) && uniform_at(b) {
                (Some(i), i + 1, a, Some(b), cc)
            } else if row_id(b.0, b.1) && uniform_at(a) {
                (Some(i), i + 1, b, Some(a), cc.swap_args())
            } else {
                return None;
            }
        };
        // The `if`'s target is the instruction after its `endif` (or after
        // its `else`, which rules the split out).
        let end = self.jump_target(at_if)?.checked_sub(1)?;
        if insts.get(end)?.opcode != Opcode::EndIf {
            return None;
        }
        Some(Split {
            cmp,
            at_if,
            end,
            x,
            u,
            cc,
            on_true: insts[at_if].test_nz(),
        })
    }

    /// Whether the `if` at `at_if`, the one `if` of the group-level
    /// region `start..end`, is lowered as a split: [`Self::split_if`]'s
    /// test with the state every batch enters the region with (the entry
    /// mask, the region's group scalars). The arithmetic before the `if`
    /// opens no construct (`span.rs`), so that state holds at the `if`.
    pub(super) fn region_if_splits(
        &mut self,
        held: Vec<bool>,
        start: usize,
        at_if: usize,
        end: usize,
    ) -> bool {
        let insts = &self.p.program.insts;
        let full = std::mem::replace(&mut self.full_exec, self.entry_full);
        let region = self.region_uniform.replace((start, held));
        let found = [at_if.checked_sub(1), Some(at_if)]
            .into_iter()
            .flatten()
            .filter(|&i| i >= start)
            .any(|i| {
                self.find_split(insts, i, end)
                    .is_some_and(|s| s.at_if == at_if)
            });
        self.full_exec = full;
        self.region_uniform = region;
        found
    }

    /// Whether r# component `c` of `op` is group-uniform at the start of
    /// the group region being lowered and not written before `i`: its
    /// shadow holds it ([`Lower::region_uniform`]).
    fn region_held(&self, insts: &[Instruction], i: usize, op: &Operand, c: usize) -> bool {
        let Some((start, held)) = &self.region_uniform else {
            return false;
        };
        let Some(r) = op.imm_index(0) else {
            return false;
        };
        let k = 4 * r as usize + c;
        op.ty == OperandType::Temp
            && op.modifier == Modifier::None
            && held.get(k) == Some(&true)
            && insts
                .get(*start..i)
                .is_some_and(|before| !super::span::written(before, held.len())[k])
    }

    /// Lowers the split `if` starting at instruction `i` through its
    /// `endif` (before `limit`) and returns the index after the `endif`;
    /// `None` (nothing lowered) where there is none.
    pub(super) fn split_if(&mut self, i: usize, limit: usize) -> Result<Option<usize>, JitError> {
        let p = self.p;
        if let Some(s) = self.find_early_return(&p.program.insts, i, limit) {
            return self.split_return(&s, i, limit).map(Some);
        }
        let Some(s) = self.find_split(&p.program.insts, i, limit) else {
            return Ok(None);
        };
        if self.span_full == Some(s.at_if) {
            // A batch inside its region's span (`group.rs`), or one whose
            // lanes outside it are idle (`Lower::idle_lanes`): every
            // lane that runs passes the test, so the full-mask path is
            // all there is.
            self.at = s.cmp.unwrap_or(s.at_if);
            self.split_full(&s)?;
            self.at = s.end;
            return Ok(Some(s.end + 1));
        }
        if !self.full_exec {
            // A part batch's idle lanes (`Lower::idle_lanes`) leave the
            // mask short: the plain `if`.
            return Ok(None);
        }
        let Branch {
            all: full,
            none: skipped,
            part,
            end,
            u,
        } = self.split_branch(&s, false);
        if let Some(full) = full {
            self.b.switch_to_block(full);
            self.split_full(&s)?;
            self.b.ins().jump(end, &[]);
        }
        if let Some(skipped) = skipped {
            self.b.switch_to_block(skipped);
            self.split_result(&s, !s.on_true)?;
            self.b.ins().jump(end, &[]);
        }
        self.b.switch_to_block(part);
        self.split_masked(&s, u)?;
        self.b.ins().jump(end, &[]);
        self.b.seal_block(end);
        self.b.switch_to_block(end);
        self.at = s.end;
        Ok(Some(s.end + 1))
    }

    /// The path of split `s` where its body runs on every lane: the
    /// comparison's result on every lane, then the body on the full mask.
    fn split_full(&mut self, s: &Split) -> Result<(), JitError> {
        self.split_result(s, s.on_true)?;
        self.at = s.at_if;
        // Idle lanes run the body too, masked, with ids outside the
        // span: `x - u` may wrap there, so no floor.
        self.id_floor = self.floor_of(s).filter(|_| self.idle_lanes == 0);
        self.push_full(true, Some(vec![s.end + 1]));
        let lowered = self.body(s.at_if + 1, s.end);
        self.id_floor = None;
        lowered?;
        self.pop_full(false);
        Ok(())
    }

    /// The three-way branch of a split `s`, emitted where the builder is.
    /// `skip_for_group`: in the pretested loop, let the group's entry
    /// decide the path where the body runs on no lane (`pretest.rs`; an
    /// early return that no lane of the group takes).
    fn split_branch(&mut self, s: &Split, skip_for_group: bool) -> Branch {
        self.at = s.cmp.unwrap_or(s.at_if);
        let x0 = self.row_id_lane0(s.x.0);
        let xl = self.b.ins().iadd_imm_s(x0, W as i64 - 1);
        let u = match s.u {
            Some((op, c)) => self.uniform_src(op, c),
            None => self.b.ins().iconst(types::I32, 0),
        };
        let (every, none) = self.range_tests(s.cc, x0, xl, u);
        let (mut all, mut skip) = if s.on_true {
            (every, none)
        } else {
            (none, every)
        };
        if let Some(n) = skip.filter(|_| skip_for_group && self.pretesting()) {
            let decided = self.pretested(n);
            if decided != n {
                // Where the body runs on no lane of any batch, it runs on
                // every lane of none.
                skip = Some(decided);
                all = all.map(|_| self.b.ins().iconst(types::I8, 0));
            }
        }
        let end = self.b.create_block();
        let part = self.b.create_block();
        let all = all.map(|a| {
            let all = self.b.create_block();
            let rest = self.b.create_block();
            self.b.ins().brif(a, all, &[], rest, &[]);
            self.b.seal_block(all);
            self.b.seal_block(rest);
            self.b.switch_to_block(rest);
            all
        });
        let skip = match skip {
            Some(n) => {
                let skip = self.b.create_block();
                self.b.ins().brif(n, skip, &[], part, &[]);
                self.b.seal_block(skip);
                Some(skip)
            }
            None => {
                self.b.ins().jump(part, &[]);
                None
            }
        };
        self.b.seal_block(part);
        Branch {
            all,
            none: skip,
            part,
            end,
            u,
        }
    }

    /// Lowers the early return `s` starting at instruction `i` and the
    /// rest of the main program after it (to `limit`); returns `limit`.
    fn split_return(&mut self, s: &Split, i: usize, limit: usize) -> Result<usize, JitError> {
        let p = self.p;
        // Where every lane returns, and where none does.
        let Branch {
            all: gone,
            none: full,
            part,
            end,
            ..
        } = self.split_branch(s, true);
        if let Some(gone) = gone {
            self.b.switch_to_block(gone);
            self.split_result(s, s.on_true)?;
            let zero = self.splat_v(0);
            self.set_exec(zero);
            self.b.ins().jump(end, &[]);
        }
        if let Some(full) = full {
            // No lane returns: the rest on the mask of the program's
            // entry, as if the `if` were not there.
            self.b.switch_to_block(full);
            self.split_result(s, !s.on_true)?;
            let (exits, depth) = (self.lane_exits, self.full_stack.len());
            self.body(s.end + 1, limit)?;
            self.b.ins().jump(end, &[]);
            self.lane_exits = exits;
            self.full_stack.truncate(depth);
            self.full_exec = true;
        }
        // Some lanes return: the plain `if` and the rest.
        self.b.switch_to_block(part);
        for k in i..=s.end {
            self.inst(k, &p.program.insts[k])?;
        }
        self.body(s.end + 1, limit)?;
        self.b.ins().jump(end, &[]);
        self.b.seal_block(end);
        self.b.switch_to_block(end);
        self.full_exec = false;
        self.at = limit.saturating_sub(1);
        Ok(limit)
    }

    /// The floor the full-mask path of `s` sets: its body runs where
    /// `x >= u` (or `x > u`, unsigned) holds on every lane, for an id
    /// with a bound and a `u` that is an r# component or a literal.
    fn floor_of(&self, s: &Split) -> Option<IdFloor> {
        let runs = if s.on_true { s.cc } else { s.cc.complement() };
        let (x, (u, uc)) = (s.x.0, s.u?);
        if !matches!(
            runs,
            IntCC::UnsignedGreaterThanOrEqual | IntCC::UnsignedGreaterThan
        ) || u.modifier != Modifier::None
        {
            return None;
        }
        let g = self.p.group_size;
        let bound = match x.ty {
            OperandType::ThreadIdInGroupFlattened => g[0] * g[1] * g[2],
            OperandType::ThreadIdInGroup => g[0],
            _ => return None,
        };
        let u = match u.ty {
            OperandType::Temp => Floor::Reg(u.imm_index(0)?, src_comp(u, uc)),
            OperandType::Imm32 => Floor::Literal(*u.imm.get(src_comp(u, uc)).or(u.imm.first())?),
            _ => return None,
        };
        Some(IdFloor {
            id: x.ty,
            u,
            since: s.cmp?,
            bound,
        })
    }

    /// The id's bound when `inst` (instruction `k`, inside the full-mask
    /// path of a split body) is `iadd r.c, x, -u` (either order) under the
    /// path's [`IdFloor`]: each lane's sum is `x - u`, in `0 ..= x`.
    pub(super) fn floored_difference(&self, inst: &Instruction, k: usize) -> Option<u32> {
        let f = self.id_floor.as_ref()?;
        let dst = inst.operands.first()?;
        if inst.opcode != Opcode::IAdd || dst.write_mask().count_ones() != 1 {
            return None;
        }
        let c = dst.write_mask().trailing_zeros() as usize;
        let (a, b) = (inst.operands.get(1)?, inst.operands.get(2)?);
        let is_id = |op: &Operand| {
            op.ty == f.id
                && op.modifier == Modifier::None
                && (op.ty == OperandType::ThreadIdInGroupFlattened || src_comp(op, c) == 0)
        };
        let insts = &self.p.program.insts;
        let is_neg_u = |op: &Operand| match (f.u, op.ty, op.modifier) {
            (Floor::Reg(r, rc), OperandType::Temp, Modifier::Neg) => {
                op.imm_index(0) == Some(r)
                    && src_comp(op, c) == rc
                    && insts.get(f.since..k).is_some_and(|before| {
                        let n = 4 * (r as usize + 1);
                        !super::span::written(before, n)[4 * r as usize + rc]
                    })
            }
            (Floor::Literal(v), OperandType::Imm32, m) => {
                let lit = *op.imm.get(src_comp(op, c)).or(op.imm.first()).unwrap_or(&0);
                let value = match m {
                    Modifier::None => lit,
                    Modifier::Neg => lit.wrapping_neg(),
                    _ => return false,
                };
                value == v.wrapping_neg()
            }
            _ => false,
        };
        ((is_id(a) && is_neg_u(b)) || (is_id(b) && is_neg_u(a))).then_some(f.bound)
    }

    /// The body on the lanes that take it, as a plain `if` lowers it.
    fn split_masked(&mut self, s: &Split, u: Value) -> Result<(), JitError> {
        self.at = s.cmp.unwrap_or(s.at_if);
        let x = self.src(s.x.0, s.x.1, Ty::Int)?;
        let us = self.b.ins().splat(types::I32X4, u);
        let cc = s.cc;
        let cond = self.map1(x, |l, x| {
            let r = l.b.ins().icmp(cc, x, us);
            l.mask_values.insert(r);
            r
        });
        if s.cmp.is_some() {
            self.write_cmp(s, cond)?;
        }
        self.at = s.at_if;
        let exec = self.exec_v();
        let saved = self.new_vars();
        self.def_vars(saved, exec);
        let taken = if s.on_true {
            self.and_v(exec, cond)
        } else {
            self.andnot_v(exec, cond)
        };
        self.set_exec(taken);
        self.push_full(false, Some(vec![s.end + 1]));
        self.body(s.at_if + 1, s.end)?;
        self.pop_full(false);
        let restored = self.use_vars(saved);
        self.set_exec(restored);
        Ok(())
    }

    /// The comparison's destination where every lane's result is `holds`.
    fn split_result(&mut self, s: &Split, holds: bool) -> Result<(), JitError> {
        if s.cmp.is_none() {
            return Ok(());
        }
        let v = self.splat_v(if holds { u32::MAX } else { 0 });
        for x in v {
            self.mask_values.insert(x);
        }
        self.write_cmp(s, v)
    }

    fn write_cmp(&mut self, s: &Split, v: super::lower::V) -> Result<(), JitError> {
        let Some(k) = s.cmp else { return Ok(()) };
        self.at = k;
        let dst = &self.p.program.insts[k].operands[0];
        let c = dst.write_mask().trailing_zeros() as usize;
        let mut out = [None; 4];
        out[c] = Some(v);
        self.write(dst, &out)
    }

    /// Lane 0's value of a [`row_id`] operand (`i32`).
    fn row_id_lane0(&mut self, op: &Operand) -> Value {
        match op.ty {
            OperandType::ThreadIdInGroupFlattened => self.ctx_word(self.ctx, OFF_FLAT),
            // Lane 0's x id (plus the group's base for `vThreadID`).
            _ => self.uniform_operand(op, 0),
        }
    }

    /// For `cc(x, u)` over the lanes `x0 ..= xl` (increasing, no wrap):
    /// the `i8` flags "it holds on every lane" and "on no lane", `None`
    /// where that cannot be (an equality holds on at most one lane of a
    /// batch, an inequality on at least `W - 1`).
    fn range_tests(
        &mut self,
        cc: IntCC,
        x0: Value,
        xl: Value,
        u: Value,
    ) -> (Option<Value>, Option<Value>) {
        use IntCC::*;
        let ins = |s: &mut Self, cc: IntCC, a: Value, b: Value| s.b.ins().icmp(cc, a, b);
        match cc {
            Equal | NotEqual => {
                let below = ins(self, UnsignedLessThan, u, x0);
                let above = ins(self, UnsignedGreaterThan, u, xl);
                let outside = self.b.ins().bor(below, above);
                if cc == Equal {
                    (None, Some(outside))
                } else {
                    (Some(outside), None)
                }
            }
            // Holds from some lane on.
            SignedGreaterThan
            | SignedGreaterThanOrEqual
            | UnsignedGreaterThan
            | UnsignedGreaterThanOrEqual => {
                let every = ins(self, cc, x0, u);
                let none = ins(self, cc.complement(), xl, u);
                (Some(every), Some(none))
            }
            // Holds up to some lane.
            _ => {
                let every = ins(self, cc, xl, u);
                let none = ins(self, cc.complement(), x0, u);
                (Some(every), Some(none))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_integer_compares_split() {
        assert_eq!(compare_cc(Opcode::ULt), Some(IntCC::UnsignedLessThan));
        assert_eq!(
            compare_cc(Opcode::IGe),
            Some(IntCC::SignedGreaterThanOrEqual)
        );
        assert_eq!(compare_cc(Opcode::Lt), None);
        assert_eq!(compare_cc(Opcode::IAdd), None);
    }
}
