//! Group-level execution of barrier programs (tier 1).
//!
//! In: a prepared compute program with group barriers. Out: a
//! [`GroupPlan`] when the program's barriers all sit in group-uniform
//! control flow (the main program's top level, or the top level of loops
//! whose every exit is a `breakc` on a value equal in every thread of the
//! group), and the lowering of such a program as one walk over its
//! structure: the group-uniform control (those loops, their breaks and
//! the scalar integer instructions next to them) runs once per group on
//! scalars, and each stretch of code between them (a *region*) runs as a
//! loop over the group's batches, which reloads the batch's live
//! registers from its save area and stores them back at the end. A
//! batch that would only pass through a region (reduce's later halving
//! steps) costs a few instructions instead of a resume, a restore and a
//! save.
//!
//! Invariants:
//! - the threads run the same instructions in the same order as in the
//!   resume scheme (`flow.rs`, "barriers"), and every access to memory
//!   other threads see (u#, g#) gives the same result: a region runs its
//!   batches in wave order, and between two barriers no region writes
//!   what another reads or writes ([`GroupPlan::new`] checks this on
//!   every path);
//! - a scalar kept for the group (a shadow, `shadow.rs`) is only read
//!   where the group analysis (`Uniform` with no thread-id row uniform)
//!   says every thread of the group holds that value;
//! - a batch's save area holds every live r# component that is not
//!   group-uniform at a region's start: regions store those live at their
//!   end, and a value group-uniform on one side of a group loop's edge
//!   and per-thread on the other ([`GroupPlan::risk`]) is computed and
//!   stored by a region, never as a scalar item alone.
//!
//! A region loop over a range of batches of a one-row group gets a
//! pretested copy where its whole-batch tests can be decided for the
//! range (`pretest.rs`): the probe tests the range's first and last
//! batch and picks the copy without those tests or the ordinary loop.
//!
//! Programs that do not qualify (a barrier under a branch or a loop with
//! a divergent exit, a `ret` before the end, a `call`, two regions
//! between two barriers where one writes memory the other reads or
//! writes) keep the resume scheme.
//! `SM5JIT_NO_OPT=groups` turns this off.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, Block, InstBuilder, Value};

use super::context::{
    CTX_SIZE, INLINE_SAVE_SLOTS, N, OFF_FLAT, OFF_INLINE_SAVE, OFF_LIVE, OFF_SAVE, W,
};
use super::liveness::Liveness;
use super::lower::{fixed, trusted, Lower};
use super::pretest::Pretest;
use super::remat;
use super::span::{self, Facts, Rel, Span};
use super::uniform::{first_comp, scalar_op, Spread, Uniform};
use super::unroll::Trips;
use super::JitError;
use crate::analysis::Prepared;
use crate::ir::{sync_flags, Instruction, Opcode, OperandType};

/// One piece of a group-level sequence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    /// Instructions `start..end` (no barrier among them), run batch by
    /// batch; `memory`: what they read and write of u# and g#.
    Region {
        start: usize,
        end: usize,
        memory: Access,
        /// The flat thread ids it can act on, when the batches holding
        /// none of them can skip it (`span.rs`).
        span: Option<Span>,
    },
    /// A scalar integer instruction whose result is group-uniform: only
    /// its shadows are computed, once.
    Scalar(usize),
    /// A `breakc` on a group-uniform condition, directly in a group loop.
    Break(usize),
    /// A group barrier: the regions before it have run for every batch.
    Barrier(usize),
    /// A loop with barriers whose exits are all group-uniform breaks:
    /// `loop` at `at`, `endloop` at `end`.
    Loop {
        at: usize,
        end: usize,
        body: Vec<Item>,
    },
}

/// The main program as group-level items, and the analysis that proves
/// the scalars group-uniform.
pub struct GroupPlan {
    pub items: Vec<Item>,
    /// `Uniform` with no thread-id row uniform: uniform across the group.
    pub group: Uniform,
    /// Per r# component (`4 * r + c`): group-uniform where some group
    /// loop edge leaves and not where it arrives (see [`at_risk`]).
    pub risk: Vec<bool>,
    /// Per r# component: the instruction a region lowers again instead
    /// of loading the component from the save area (`remat.rs`); such a
    /// component is never stored there.
    pub remat: Vec<Option<usize>>,
}

pub(super) fn is_barrier(inst: &Instruction) -> bool {
    inst.opcode == Opcode::Sync && inst.sync_flags() & sync_flags::THREADS_IN_GROUP != 0
}

/// Memory other threads can see, as bits: bit 0 every u# (views may
/// share a buffer through the C ABI), bit `1 + i` g#`i` (the last bit
/// also every higher g#).
type Places = u64;

/// What a run of instructions reads and writes of [`Places`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Access {
    pub reads: Places,
    pub writes: Places,
}

impl Access {
    fn join(self, o: Access) -> Access {
        Access {
            reads: self.reads | o.reads,
            writes: self.writes | o.writes,
        }
    }

    /// Whether running `self` and `o` in either order can give different
    /// results: one writes what the other reads or writes.
    fn conflicts(self, o: Access) -> bool {
        self.writes & (o.reads | o.writes) != 0 || o.writes & self.reads != 0
    }
}

/// What `inst` reads and writes of the memory other threads see. Loads
/// read; stores, atomics and counters write (and read); `abort` ends the
/// dispatch, so it counts as writing everything: the batches before it
/// must have done what they do in wave order.
fn access(inst: &Instruction) -> Access {
    use Opcode::*;
    if inst.opcode == Abort {
        return Access {
            reads: Places::MAX,
            writes: Places::MAX,
        };
    }
    let places = inst.operands.iter().fold(0, |m, o| match o.ty {
        OperandType::Uav => m | 1,
        OperandType::Tgsm => {
            let g = o.imm_index(0).unwrap_or(u32::MAX).min(62);
            m | 1 << (1 + g)
        }
        _ => m,
    });
    let load = matches!(
        inst.opcode,
        LdRaw | LdStructured | LdUavTyped | LdRawS | LdStructuredS | LdUavTypedS
    );
    Access {
        reads: places,
        writes: if load { 0 } else { places },
    }
}

/// The index of the instruction closing the construct opened at `k`
/// (`loop`, `if`, `switch`), or `None` when it is not closed before `end`.
fn construct_end(insts: &[Instruction], k: usize, end: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (j, inst) in insts.iter().enumerate().take(end).skip(k) {
        match inst.opcode {
            Opcode::Loop | Opcode::If | Opcode::Switch => depth += 1,
            Opcode::EndLoop | Opcode::EndIf | Opcode::EndSwitch => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(j);
                }
            }
            _ => {}
        }
    }
    None
}

/// Why a program keeps the resume scheme (for the unit tests).
type NotGroup = &'static str;

impl GroupPlan {
    /// The plan of `p`'s main program (instructions `0..main_end`), or
    /// `None` when it does not qualify (see the module doc).
    pub fn new(p: &Prepared, main_end: usize) -> Option<GroupPlan> {
        Self::build(p, main_end).ok()
    }

    fn build(p: &Prepared, main_end: usize) -> Result<GroupPlan, NotGroup> {
        // Every thread-id row varies across the group: with a batch this
        // wide, no row is uniform.
        let group = Uniform::new(p, u32::MAX);
        let insts = &p.program.insts[..main_end];
        if insts
            .iter()
            .any(|i| matches!(i.opcode, Opcode::Call | Opcode::Callc))
        {
            return Err("call");
        }
        // A `ret` is allowed only as the last instruction.
        let last = main_end.saturating_sub(1);
        if insts.iter().enumerate().any(|(k, i)| {
            matches!(i.opcode, Opcode::Ret | Opcode::Retc)
                && !(k == last && i.opcode == Opcode::Ret)
        }) {
            return Err("ret before the end");
        }
        let end = if insts.last().is_some_and(|i| i.opcode == Opcode::Ret) {
            last
        } else {
            main_end
        };
        let live = Liveness::new(p);
        let bits = 4 * p.temps as usize;
        // The loops and breaks do not depend on which scalars are peeled
        // off the regions, so a first pass finds the components at risk.
        let first = sequence(insts, &group, 0, end, false, &vec![false; bits])?;
        let mut risk = vec![false; bits];
        at_risk(&first, &group, &live, &mut risk);
        let mut items = sequence(insts, &group, 0, end, false, &risk)?;
        let (mut since, mut exits) = (Access::default(), Access::default());
        if !memory_in_order(&items, &mut since, &mut exits) {
            return Err("conflicting memory accesses in two regions between barriers");
        }
        // A component at risk that is read before any write still holds
        // the program's initial zero, which no region has stored.
        if (0..bits).any(|b| risk[b] && live.live_at(0, (b / 4) as u32, b % 4)) {
            return Err("a register read before it is written meets a group loop");
        }
        let facts = Facts {
            p,
            group: &group,
            live: &live,
            risk: &risk,
        };
        if !super::opt_off("spans") {
            add_spans(&mut items, &facts);
        }
        let remat = if super::opt_off("remat") {
            vec![None; bits]
        } else {
            remat::recomputable(insts, p.temps as usize, &live, &group)
        };
        Ok(GroupPlan {
            items,
            group,
            risk,
            remat,
        })
    }
}

/// The items of `start..end`; `in_loop`: the top level of a group loop's
/// body.
fn sequence(
    insts: &[Instruction],
    gu: &Uniform,
    start: usize,
    end: usize,
    in_loop: bool,
    risk: &[bool],
) -> Result<Vec<Item>, NotGroup> {
    let mut items = Vec::new();
    let mut region: Option<usize> = None;
    let mut k = start;
    while k < end {
        let inst = &insts[k];
        if is_barrier(inst) {
            close(insts, gu, risk, &mut items, &mut region, k);
            items.push(Item::Barrier(k));
            k += 1;
            continue;
        }
        match inst.opcode {
            Opcode::Loop | Opcode::If | Opcode::Switch => {
                let e = construct_end(insts, k, end).ok_or("unclosed construct")?;
                let barriers = insts[k..e].iter().any(is_barrier);
                if !barriers {
                    region.get_or_insert(k);
                    k = e + 1;
                    continue;
                }
                if inst.opcode != Opcode::Loop {
                    return Err("barrier under a branch");
                }
                if !gu.uniform_loop(k) {
                    return Err("barrier in a loop with a divergent exit");
                }
                close(insts, gu, risk, &mut items, &mut region, k);
                let body = sequence(insts, gu, k + 1, e, true, risk)?;
                items.push(Item::Loop {
                    at: k,
                    end: e,
                    body,
                });
                k = e + 1;
            }
            Opcode::Breakc if in_loop => {
                if !gu.uniform_break(k) {
                    return Err("divergent break of a group loop");
                }
                close(insts, gu, risk, &mut items, &mut region, k);
                items.push(Item::Break(k));
                k += 1;
            }
            Opcode::Break | Opcode::Continue | Opcode::Continuec if in_loop => {
                return Err("break or continue of a group loop")
            }
            _ => {
                region.get_or_insert(k);
                k += 1;
            }
        }
    }
    close(insts, gu, risk, &mut items, &mut region, end);
    Ok(items)
}

/// Whether instruction `k` is computed for the group as a scalar only:
/// its result is group-uniform, and no component it writes is at risk
/// (those are computed in a region, whose end stores them).
fn group_scalar(insts: &[Instruction], gu: &Uniform, risk: &[bool], k: usize) -> bool {
    let inst = &insts[k];
    let Some(dst) = inst.operands.first() else {
        return false;
    };
    let Some(r) = dst.imm_index(0) else {
        return false;
    };
    scalar_op(inst.opcode)
        && dst.ty == OperandType::Temp
        && (0..4)
            .filter(|c| dst.write_mask() & (1 << c) != 0)
            .all(|c| {
                gu.shadowed_write(k, inst, c)
                    && !risk.get(4 * r as usize + c).copied().unwrap_or(true)
            })
}

/// Ends the open region at `end`: its leading and trailing group scalars
/// become [`Item::Scalar`]s (they touch no memory, so peeling them off
/// the ends never splits a region's memory accesses).
fn close(
    insts: &[Instruction],
    gu: &Uniform,
    risk: &[bool],
    items: &mut Vec<Item>,
    region: &mut Option<usize>,
    end: usize,
) {
    let Some(mut start) = region.take() else {
        return;
    };
    while start < end && group_scalar(insts, gu, risk, start) {
        items.push(Item::Scalar(start));
        start += 1;
    }
    let mut stop = end;
    while stop > start && group_scalar(insts, gu, risk, stop - 1) {
        stop -= 1;
    }
    if start < stop {
        let memory = insts[start..stop]
            .iter()
            .fold(Access::default(), |a, i| a.join(access(i)));
        items.push(Item::Region {
            start,
            end: stop,
            memory,
            span: None,
        });
    }
    items.extend((stop..end).map(Item::Scalar));
}

/// Sets the span of every region of `items` that has one.
fn add_spans(items: &mut [Item], facts: &Facts) {
    for item in items {
        match item {
            Item::Region {
                start, end, span, ..
            } => *span = span::span(facts, *start, *end),
            Item::Loop { body, .. } => add_spans(body, facts),
            _ => {}
        }
    }
}

/// Walks `items` with `since`: what the regions run since the last
/// barrier accessed; `exits` collects `since` at the breaks. False when a
/// region's accesses conflict with an earlier one's before the next
/// barrier: running the batches region by region would then order them
/// differently from wave order.
fn memory_in_order(items: &[Item], since: &mut Access, exits: &mut Access) -> bool {
    for item in items {
        match item {
            Item::Region { memory, .. } => {
                if memory.conflicts(*since) {
                    return false;
                }
                *since = since.join(*memory);
            }
            Item::Scalar(_) => {}
            Item::Barrier(_) => *since = Access::default(),
            Item::Break(_) => *exits = exits.join(*since),
            Item::Loop { body, .. } => {
                let entry = *since;
                let mut head = entry;
                loop {
                    let (mut s, mut ex) = (head, Access::default());
                    if !memory_in_order(body, &mut s, &mut ex) {
                        return false;
                    }
                    let next = entry.join(s);
                    if next == head {
                        *since = ex;
                        break;
                    }
                    head = next;
                }
            }
        }
    }
    true
}

/// Marks in `risk` the r# components that are group-uniform where a group
/// loop's edge (entry, back edge, break) leaves and not where it arrives,
/// while live there. Such a value reaches per-thread code through the
/// save area: a scalar item would define only its shadow, and a region
/// stores group-uniform components only when they are at risk.
fn at_risk(items: &[Item], gu: &Uniform, live: &Liveness, risk: &mut [bool]) {
    for item in items {
        let Item::Loop { at, end, body } = item else {
            continue;
        };
        let head = at + 1;
        let breaks = body.iter().filter_map(|i| match i {
            Item::Break(k) => Some((*k, end + 1)),
            _ => None,
        });
        for (from, to) in [(*at, head), (*end, head)].into_iter().chain(breaks) {
            for (b, flag) in risk.iter_mut().enumerate() {
                let (r, c) = ((b / 4) as u32, b % 4);
                if gu.uniform_at(from, r, c) && !gu.uniform_at(to, r, c) && live.live_at(to, r, c) {
                    *flag = true;
                }
            }
        }
        at_risk(body, gu, live, risk);
    }
}

/// A group loop being lowered.
struct GroupLoop {
    exit: Block,
}

impl Lower<'_, '_> {
    /// Lowers the main program by `plan`, from the current block (at the
    /// group level, `self.ctx` = the first context), then jumps to `fin`.
    /// `count` is the number of batches.
    pub fn group_function(
        &mut self,
        plan: &GroupPlan,
        count: Value,
        fin: Block,
    ) -> Result<(), JitError> {
        self.save_map = Some(self.save_map_of(plan));
        let trips = if super::opt_off("unroll") {
            Trips::default()
        } else {
            Trips::of(self.p, plan)
        };
        let mut loops = Vec::new();
        self.group_items(plan, &plan.items, count, &mut loops, &trips)?;
        self.b.ins().jump(fin, &[]);
        Ok(())
    }

    fn group_items(
        &mut self,
        plan: &GroupPlan,
        items: &[Item],
        count: Value,
        loops: &mut Vec<GroupLoop>,
        trips: &Trips,
    ) -> Result<(), JitError> {
        for item in items {
            match item {
                Item::Region {
                    start, end, span, ..
                } => self.region(plan, *start, *end, span.as_ref(), count)?,
                Item::Scalar(k) => self.group_scalar(plan, *k),
                Item::Break(k) => {
                    self.at = *k;
                    let inst = &self.p.program.insts[*k];
                    let op = inst
                        .operands
                        .first()
                        .ok_or_else(|| self.unsupported(Opcode::Breakc))?;
                    // Group-uniform (`Item::Break`): the shadows hold it.
                    let c = self.uniform_src(op, first_comp(op));
                    let exit = loops.last().map(|l| l.exit);
                    let exit = exit.ok_or_else(|| self.unsupported(Opcode::Breakc))?;
                    self.break_to(inst, c, exit);
                }
                Item::Barrier(_) => {}
                Item::Loop { at, end, body } => {
                    let exit = self.b.create_block();
                    if let Some(n) = trips.get(*at) {
                        self.unrolled_loop(plan, (*at, *end, body), n, count, exit, trips)?;
                    }
                    // The ordinary loop: after an unrolled one, reached
                    // only if a copy's break did not leave as counted
                    // (never: Cranelift drops it with the folded breaks).
                    let head = self.b.create_block();
                    self.b.ins().jump(head, &[]);
                    self.b.switch_to_block(head);
                    loops.push(GroupLoop { exit });
                    self.group_items(plan, body, count, loops, trips)?;
                    loops.pop();
                    self.at = *end;
                    self.group_charge(*at, *end, count, 1);
                    self.b.ins().jump(head, &[]);
                    self.b.seal_block(head);
                    self.b.seal_block(exit);
                    self.b.switch_to_block(exit);
                }
            }
        }
        Ok(())
    }

    /// The group loop `at..end` whose body reaches `endloop` `n` times
    /// (`unroll.rs`) as `n + 1` copies of its body in a row, each with
    /// its breaks to `exit` (the last copy's break leaves), after one
    /// budget charge for all `n` iterations.
    fn unrolled_loop(
        &mut self,
        plan: &GroupPlan,
        (at, end, body): (usize, usize, &[Item]),
        n: u32,
        count: Value,
        exit: Block,
        trips: &Trips,
    ) -> Result<(), JitError> {
        if n > 0 {
            self.at = end;
            self.group_charge(at, end, count, u64::from(n));
        }
        // The entry checked `count`: with it a constant, each copy's
        // spans fold to constant batch ranges.
        let batches = group_batches(self.p) as i64;
        let count = self.b.ins().iconst(types::I32, batches);
        let mut loops = vec![GroupLoop { exit }];
        for _ in 0..=n {
            self.group_items(plan, body, count, &mut loops, trips)?;
        }
        Ok(())
    }

    /// [`Item::Scalar`] `k`: the shadows of the components it writes,
    /// from the group analysis (all of them are group-uniform there).
    fn group_scalar(&mut self, plan: &GroupPlan, k: usize) {
        self.at = k;
        let inst = &self.p.program.insts[k];
        let Some(r) = inst.operands.first().and_then(|d| d.imm_index(0)) else {
            return;
        };
        let mask = inst.operands[0].write_mask();
        // Every value first: a source may be a component written here.
        let vals: Vec<(usize, Value)> = (0..4)
            .filter(|c| mask & (1 << c) != 0 && plan.group.shadowed_write(k, inst, *c))
            .map(|c| (c, self.scalar_alu(inst, c)))
            .collect();
        for (c, v) in vals {
            // A value the builder's constants fix (an unrolled loop's
            // counter, `unroll.rs`) as one constant: what reads it later
            // then finds it without following every step before.
            let v = match self.known(v) {
                Some(k) => self.b.ins().iconst(types::I32, k as i64),
                None => v,
            };
            self.b.def_var(self.shadows[r as usize][c], v);
        }
    }

    /// The budget of `times` iterations of the group loop `at..end`:
    /// what every batch would be charged at its `endloop` (`flow.rs`),
    /// for all `count` batches at once.
    fn group_charge(&mut self, at: usize, end: usize, count: Value, times: u64) {
        let cost = self.loop_len.get(&at).copied().unwrap_or(1).max(1);
        let per = cost
            .saturating_mul(W as u64)
            .saturating_mul(times)
            .min(u32::MAX as u64) as i64;
        let n = self.b.ins().uextend(types::I64, count);
        let charge = self.b.ins().imul_imm_s(n, per);
        self.charge_budget(charge, end);
    }

    /// Runs instructions `start..end` for every batch of the group: the
    /// batch's live registers come from its save area (group-uniform ones
    /// from their group scalars), the region's code runs on them, and the
    /// registers live after it that it may have changed go back to the
    /// save area. With a `span`,
    /// only the batches holding one of its threads run. A short region in
    /// a group of an even number of batches runs them in pairs (its code
    /// lowered twice in the loop, [`pairs_region`]).
    fn region(
        &mut self,
        plan: &GroupPlan,
        start: usize,
        end: usize,
        span: Option<&Span>,
        count: Value,
    ) -> Result<(), JitError> {
        let temps = self.regs.len();
        let gu = &plan.group;
        // The group scalars every batch starts the region with.
        let mut entry: Vec<(usize, usize, Value)> = Vec::new();
        for r in 0..temps {
            for c in 0..4 {
                if gu.uniform_at(start, r as u32, c) {
                    let v = self.b.use_var(self.shadows[r][c]);
                    entry.push((r, c, v));
                }
            }
        }
        let batches = group_batches(self.p);
        let paired = pairs_region(&self.p.program.insts, start, end, batches);
        let batches_c = self.b.ins().iconst(types::I32, batches as i64);
        let group = self.group;
        let lp = |from, n, full_if| BatchLoop {
            from,
            n,
            paired,
            full_if,
        };
        match span {
            // Every batch: `count` is the group's batches (the entry
            // checks it), so pairs run `batches / 2` times.
            None => {
                let n = if paired {
                    self.b.ins().iconst(types::I32, (batches / 2) as i64)
                } else {
                    count
                };
                self.batch_loop(plan, start, end, &entry, lp(group, n, None), false)?;
            }
            // The entry checked `count`: as a constant, a span whose bound
            // is known when compiling (a literal, a step of an unrolled
            // loop) gives constant batch ranges, and its part batches
            // their idle lanes.
            Some(span) => match self.peeled_region(plan, span, start, end, batches_c, paired) {
                Some((at_if, parts)) => {
                    for (first, n, inside) in parts {
                        let from = self.batch_ctx(first);
                        self.idle_lanes = match inside {
                            false => self.idle_in_part(span, batches_c, first, n),
                            true => 0,
                        };
                        // A part batch whose lanes outside the span are
                        // idle: every lane that runs enters the `if`.
                        let full_if = (inside || self.idle_lanes != 0).then_some(at_if);
                        let one = BatchLoop {
                            paired: paired && inside,
                            ..lp(from, n, full_if)
                        };
                        let lowered = self.batch_loop(plan, start, end, &entry, one, true);
                        self.idle_lanes = 0;
                        lowered?;
                    }
                }
                None => {
                    let (first, n) = self.span_batches(span, batches_c);
                    let (first, n) = if paired {
                        self.pair_span(first, n, batches)
                    } else {
                        self.idle_lanes = self.idle_in_part(span, batches_c, first, n);
                        (first, n)
                    };
                    // One batch whose lanes outside the span are idle
                    // (`if (tid == 0)`): the lane that runs enters the `if`.
                    let full_if = match self.idle_lanes {
                        0 => None,
                        _ => self.splitting_if(plan, start, end),
                    };
                    let from = self.batch_ctx(first);
                    let lowered =
                        self.batch_loop(plan, start, end, &entry, lp(from, n, full_if), true);
                    self.idle_lanes = 0;
                    lowered?;
                }
            },
        }
        self.ctx = group;
        Ok(())
    }

    /// For a part of a span's batches that is one batch, known when
    /// compiling, in a span known too (an unrolled loop's, `unroll.rs`):
    /// the lanes of that batch that hold no thread of the span, as bits
    /// ([`Lower::idle_lanes`]). The batch of flat thread `t` is `t / W`,
    /// its lane `t % W`, so lane `l` of batch `b` holds thread `b * W + l`.
    fn idle_in_part(&mut self, span: &Span, count: Value, first: Value, n: Value) -> u8 {
        if self.known(n) != Some(1) || super::opt_off("idle") {
            return 0;
        }
        let (lo, hi) = self.span_threads(span, count);
        let (Some(b), Some(lo), Some(hi)) = (self.known(first), self.known(lo), self.known(hi))
        else {
            return 0;
        };
        idle_lanes_of(b, lo, hi)
    }

    /// The context of batch `first` (i64) of the group.
    fn batch_ctx(&mut self, first: Value) -> Value {
        let offset = self.b.ins().imul_imm_s(first, CTX_SIZE);
        self.b.ins().iadd(self.group, offset)
    }

    /// The `if` of a region with a span (the one `if` it holds) and the
    /// parts of [`Self::peeled_span`], where that `if` is lowered as a
    /// split (`split.rs`): elsewhere (a group that ends in a part batch,
    /// `SM5JIT_NO_OPT=split`) the batches inside the span would lower
    /// the same masked code as the rest, so one loop runs them all.
    fn peeled_region(
        &mut self,
        plan: &GroupPlan,
        span: &Span,
        start: usize,
        end: usize,
        count: Value,
        paired: bool,
    ) -> Option<(usize, Vec<Part>)> {
        let at_if = self.splitting_if(plan, start, end)?;
        Some((at_if, self.peeled_span(span, count, paired)?))
    }

    /// The `if` of span region `start..end` when it is lowered as a split
    /// (`split.rs`), which then takes its full-mask path alone in a batch
    /// the `if` admits on every lane that runs.
    fn splitting_if(&mut self, plan: &GroupPlan, start: usize, end: usize) -> Option<usize> {
        let insts = &self.p.program.insts;
        let at_if = (start..end).find(|&k| insts[k].opcode == Opcode::If)?;
        let held = held_at(plan, start, self.regs.len());
        self.region_if_splits(held, start, at_if, end)
            .then_some(at_if)
    }

    /// A span of a prefix (`t < s`, `t <= s`) or a suffix (`t >= s`,
    /// `t > s`) of the group's threads as the parts its batches run in,
    /// in batch order: `(first batch, loop count, inside)`. The batches
    /// *inside* (every id of them in the span, so every lane enters the
    /// `if`) run with the `if`'s full-mask path alone, in pairs where the
    /// region pairs its batches (`count` then counts pairs); the rest of
    /// the span (the batch it only partly covers, and one batch inside
    /// where pairs leave one over) runs the plain code. The parts cover
    /// exactly the span's batches. `None` for an equality (one thread,
    /// never a whole batch) or with `SM5JIT_NO_OPT=peel`.
    fn peeled_span(&mut self, span: &Span, count: Value, paired: bool) -> Option<Vec<Part>> {
        let prefix = match span.rel {
            Rel::Below | Rel::AtMost => true,
            Rel::AtLeast | Rel::Above => false,
            Rel::Equal => return None,
        };
        if super::opt_off("peel") {
            return None;
        }
        let (lo, hi) = self.span_threads(span, count);
        let shift = W.trailing_zeros() as i64;
        let batches = group_batches(self.p) as i64;
        let even = |lw: &mut Self, n: Value| {
            if paired {
                lw.b.ins().band_imm_s(n, -2)
            } else {
                n
            }
        };
        let loops = |lw: &mut Self, n: Value| {
            let n = if paired {
                lw.b.ins().ushr_imm_u(n, 1)
            } else {
                n
            };
            lw.b.ins().ireduce(types::I32, n)
        };
        if prefix {
            // Ids `0 .. hi`: batches `0 .. hi / W` whole, then the one
            // `hi` ends in, if it ends inside a batch.
            let whole = self.b.ins().ushr_imm_u(hi, shift);
            let inside = even(self, whole);
            let round = self.b.ins().iadd_imm_s(hi, W as i64 - 1);
            let stop = self.b.ins().ushr_imm_u(round, shift);
            let rest = self.b.ins().isub(stop, inside);
            let zero = self.b.ins().iconst(types::I64, 0);
            let n_in = loops(self, inside);
            let n_rest = self.b.ins().ireduce(types::I32, rest);
            Some(vec![(zero, n_in, true), (inside, n_rest, false)])
        } else {
            // Ids `lo ..` the group's end: the batch `lo` starts inside,
            // if any, then the batches from `ceil(lo / W)` whole.
            let first = self.b.ins().ushr_imm_u(lo, shift);
            let round = self.b.ins().iadd_imm_s(lo, W as i64 - 1);
            let whole = self.b.ins().ushr_imm_u(round, shift);
            let all = self.b.ins().iconst(types::I64, batches);
            let left = self.b.ins().isub(all, whole);
            let left = even(self, left);
            let from = self.b.ins().isub(all, left);
            let rest = self.b.ins().isub(from, first);
            let n_rest = self.b.ins().ireduce(types::I32, rest);
            let n_in = loops(self, left);
            Some(vec![(first, n_rest, false), (from, n_in, true)])
        }
    }

    /// One batch loop of a region: `lp.n` times (batches, or pairs) from
    /// the context `lp.from`, each running the region's code on its
    /// batch (and the next, paired); entered only when `n` is not zero
    /// where `may_be_empty`. With `lp.full_if`, every batch it runs lies
    /// inside the region's span ([`Lower::span_full`]).
    fn batch_loop(
        &mut self,
        plan: &GroupPlan,
        start: usize,
        end: usize,
        entry: &[(usize, usize, Value)],
        lp: BatchLoop,
        may_be_empty: bool,
    ) -> Result<(), JitError> {
        let arg = cranelift_codegen::ir::BlockArg::Value;
        // A count fixed when compiling (an unrolled loop's span,
        // `unroll.rs`): no loop where it is 0, no test where it is not.
        let known = self.known(lp.n);
        if known == Some(0) {
            return Ok(());
        }
        let after = self.b.create_block();
        if may_be_empty && known.is_none() {
            let enter = self.b.create_block();
            self.b.ins().brif(lp.n, enter, &[], after, &[]);
            self.b.seal_block(enter);
            self.b.switch_to_block(enter);
        }
        let stop = self.loop_stop(&lp);
        let entering = match stop {
            Some(_) => vec![arg(lp.from)],
            None => vec![arg(lp.from), arg(lp.n)],
        };
        let counted = stop.is_none();
        if self.region_pretest_on(&lp) {
            // The pretested copy runs on copies of the group's context,
            // its first context and its stop that the register allocator
            // sees as values of their own (`Lower::fence`): sharing them
            // with the ordinary loop, where calls and more values compete
            // for registers, it kept the copy's context in a stack slot,
            // stored and reloaded every batch.
            let zero = self.fence();
            let fgroup = self.b.ins().iadd(self.group, zero);
            let ffrom = self.b.ins().iadd(lp.from, zero);
            let fstop = stop.map(|s| self.b.ins().iadd(s, zero));
            let mut fentering = entering.clone();
            fentering[0] = arg(ffrom);
            let group = std::mem::replace(&mut self.group, fgroup);
            // The pretested copy first: its flags make the probe.
            let probe = self.b.create_block();
            self.b.ins().jump(probe, &[]);
            let values = self.b.func.dfg.num_values();
            let fhead = self.loop_head(counted);
            // Its batches' lane-0 flattened id, carried from batch to batch
            // instead of loaded from each context (`Lower::preload_ids`).
            // `SM5JIT_NO_OPT=carry` turns it off.
            let fid =
                (!super::opt_off("carry")).then(|| self.b.append_block_param(fhead, types::I64));
            self.b.switch_to_block(fhead);
            let fctx = self.b.func.dfg.block_params(fhead)[0];
            let mut pretest = Pretest::after(fctx, self.p.group_size, values);
            pretest.fid = fid;
            self.pretest = Some(pretest);
            let lowered = self.batch_loop_body(plan, start, end, entry, &lp, (fhead, fstop), after);
            let pretest = self.pretest.take();
            if let Err(e) = lowered {
                self.group = group;
                return Err(e);
            }
            self.b.switch_to_block(probe);
            self.b.seal_block(probe);
            let taken = pretest.as_ref().is_some_and(Pretest::taken);
            if !taken {
                // Nothing decided: the copy is the ordinary loop.
                self.group = group;
                self.enter_carrying_id(fhead, &fentering, ffrom);
                self.b.seal_block(fhead);
            } else {
                // The loop's last batch: `n - 1` contexts on from its first.
                let n = self.b.ins().uextend(types::I64, lp.n);
                let n1 = self.b.ins().iadd_imm_s(n, -1);
                let off = self.b.ins().imul_imm_s(n1, CTX_SIZE);
                let last = self.b.ins().iadd(ffrom, off);
                self.pretest = pretest;
                let ok = self.probe(ffrom, last);
                self.pretest = None;
                self.group = group;
                // Each loop is entered through a block of its own, where
                // Cranelift puts what it hoists out of that loop.
                let (fpre, pre) = (self.b.create_block(), self.b.create_block());
                match ok {
                    Some(ok) => self.b.ins().brif(ok, fpre, &[], pre, &[]),
                    None => self.b.ins().jump(pre, &[]),
                };
                self.b.switch_to_block(fpre);
                self.b.seal_block(fpre);
                self.enter_carrying_id(fhead, &fentering, ffrom);
                self.b.seal_block(fhead);
                self.b.switch_to_block(pre);
                self.b.seal_block(pre);
                let head = self.loop_head_from(&entering, counted);
                self.batch_loop_body(plan, start, end, entry, &lp, (head, stop), after)?;
                self.b.seal_block(head);
            }
        } else {
            let head = self.loop_head_from(&entering, counted);
            self.batch_loop_body(plan, start, end, entry, &lp, (head, stop), after)?;
            self.b.seal_block(head);
        }
        self.b.switch_to_block(after);
        self.b.seal_block(after);
        self.ctx = self.group;
        Ok(())
    }

    /// Jumps to the pretested loop's head `head` with `entering` and the
    /// lane-0 flattened id of its first batch, at context `from`.
    fn enter_carrying_id(
        &mut self,
        head: Block,
        entering: &[cranelift_codegen::ir::BlockArg],
        from: Value,
    ) {
        let mut args = entering.to_vec();
        if self.b.func.dfg.num_block_params(head) > args.len() {
            let id = self.b.ins().uload32(fixed(), from, OFF_FLAT);
            args.push(cranelift_codegen::ir::BlockArg::Value(id));
        }
        self.b.ins().jump(head, &args);
    }

    /// Where a batch loop whose count is known only at run time (a
    /// span's) stops: the context one step past its last iteration's,
    /// so that its back edge compares the context it steps instead of
    /// also counting down. `None` for a constant count, which keeps the
    /// count (Cranelift would fold the end into the group's context
    /// and rebuild it inside the loop), and for a paired loop whose
    /// count is known when compiling (an unrolled loop's span,
    /// `Lower::known`): scan's unrolled steps rebuilt that end every
    /// pair from a stack slot (callgrind: 5,908 against 5,608
    /// instructions a group), where reduce's unpaired ones keep it in a
    /// register and the count would cost one more a batch.
    fn loop_stop(&mut self, lp: &BatchLoop) -> Option<Value> {
        let dfg = &self.b.func.dfg;
        let iconst = dfg
            .value_def(lp.n)
            .inst()
            .is_some_and(|i| dfg.insts[i].opcode() == cranelift_codegen::ir::Opcode::Iconst);
        if super::opt_off("endptr") || iconst || (lp.paired && self.known(lp.n).is_some()) {
            return None;
        }
        let step = if lp.paired { 2 * CTX_SIZE } else { CTX_SIZE };
        let n = self.b.ins().uextend(types::I64, lp.n);
        let span = self.b.ins().imul_imm_s(n, step);
        Some(self.b.ins().iadd(lp.from, span))
    }

    /// A batch loop's head, not yet reached: parameters the batch's
    /// context (i64) and, when `counted`, the iterations left (i32).
    fn loop_head(&mut self, counted: bool) -> Block {
        let head = self.b.create_block();
        self.b.append_block_param(head, types::I64);
        if counted {
            self.b.append_block_param(head, types::I32);
        }
        head
    }

    /// [`Self::loop_head`], entered from the current block with
    /// `entering`, and made the current block.
    fn loop_head_from(
        &mut self,
        entering: &[cranelift_codegen::ir::BlockArg],
        counted: bool,
    ) -> Block {
        let head = self.loop_head(counted);
        self.b.ins().jump(head, entering);
        self.b.switch_to_block(head);
        head
    }

    /// Whether a region's batch loop `lp` gets a pretested copy
    /// (`pretest.rs`): its batches are a range of a one-row group of
    /// whole batches (lane `l` of the range's first batch then holds the
    /// least id of every dimension that lane holds in the range, and of
    /// its last batch the greatest), run one at a time.
    fn region_pretest_on(&self, lp: &BatchLoop) -> bool {
        !lp.paired && one_row_of_batches(self.p) && !super::opt_off("pretest")
    }

    /// The body of a batch loop at `head` (the current block, from
    /// [`Self::loop_head`]; the caller seals it once every edge into it
    /// is made): the region's code on the batch, the step, the back edge
    /// (until the context reaches `stop`, or the count runs out), and the
    /// exit to `after`.
    #[allow(clippy::too_many_arguments)]
    fn batch_loop_body(
        &mut self,
        plan: &GroupPlan,
        start: usize,
        end: usize,
        entry: &[(usize, usize, Value)],
        lp: &BatchLoop,
        (head, stop): (Block, Option<Value>),
        after: Block,
    ) -> Result<(), JitError> {
        let arg = cranelift_codegen::ir::BlockArg::Value;
        let (cptr, left) = {
            let ps = self.b.func.dfg.block_params(head);
            (ps[0], ps.get(1).copied())
        };
        self.span_full = lp.full_if;
        let lowered = self
            .region_batch(plan, start, end, cptr, entry)
            .and_then(|()| {
                if lp.paired {
                    let second = self.b.ins().iadd_imm_s(cptr, CTX_SIZE);
                    self.region_batch(plan, start, end, second, entry)
                } else {
                    Ok(())
                }
            });
        self.span_full = None;
        lowered?;
        let step = if lp.paired { 2 } else { 1 };
        let following = self.b.ins().iadd_imm_s(cptr, step * CTX_SIZE);
        // The pretested loop's carried id steps with the context.
        let next_id = match self.pretest.as_ref().and_then(|p| p.fid) {
            Some(fid) => vec![arg(self.b.ins().iadd_imm_s(fid, step * W as i64))],
            None => Vec::new(),
        };
        match (stop, left) {
            (Some(stop), _) => {
                let more = self.b.ins().icmp(IntCC::NotEqual, following, stop);
                let args = [vec![arg(following)], next_id].concat();
                self.b.ins().brif(more, head, &args, after, &[]);
            }
            (None, Some(left)) => {
                let rest = self.b.ins().iadd_imm_s(left, -1);
                let args = [vec![arg(following), arg(rest)], next_id].concat();
                self.b.ins().brif(rest, head, &args, after, &[]);
            }
            (None, None) => return Err(self.unsupported(Opcode::Loop)),
        }
        self.ctx = self.group;
        Ok(())
    }

    /// A span's batches `first .. first + n` as `ceil(n / 2)` pairs,
    /// from `first`, or from one batch earlier where the last pair would
    /// pass the group's end (`n` odd and the span at the end; the group
    /// has an even number of batches, so `first >= 1` then). The batch
    /// run besides the span's is one the span leaves out, on which the
    /// region changes nothing (`span.rs` checks that for every batch), so
    /// running it is the same. Every pair lies in the group: a batch
    /// loop's context is never one past its last.
    fn pair_span(&mut self, first: Value, n: Value, batches: usize) -> (Value, Value) {
        let n1 = self.b.ins().iadd_imm_s(n, 1);
        let pairs = self.b.ins().ushr_imm_u(n1, 1);
        let p64 = self.b.ins().uextend(types::I64, pairs);
        let covered = self.b.ins().ishl_imm_u(p64, 1);
        let all = self.b.ins().iconst(types::I64, batches as i64);
        let latest = self.b.ins().isub(all, covered);
        (self.b.ins().umin(first, latest), pairs)
    }

    /// One batch of a region (its context at `cptr`): registers from the
    /// save area and the group scalars `entry`, the region's code, the
    /// registers it changed back to the save area. The batch's lane-0
    /// ids are loaded once at its head ([`Lower::preload_ids`]).
    fn region_batch(
        &mut self,
        plan: &GroupPlan,
        start: usize,
        end: usize,
        cptr: Value,
        entry: &[(usize, usize, Value)],
    ) -> Result<(), JitError> {
        self.preload_ids(cptr);
        let lowered = self.region_batch_code(plan, start, end, cptr, entry);
        self.forget_ids();
        lowered
    }

    /// [`Self::region_batch`] once its ids are loaded.
    fn region_batch_code(
        &mut self,
        plan: &GroupPlan,
        start: usize,
        end: usize,
        cptr: Value,
        entry: &[(usize, usize, Value)],
    ) -> Result<(), JitError> {
        let temps = self.regs.len();
        let gu = &plan.group;
        let live = |lw: &Self, k: usize, r: usize, c: usize| {
            lw.live
                .as_ref()
                .is_none_or(|l: &Liveness| l.live_at(k, r as u32, c))
        };
        self.ctx = cptr;
        // An idle vector's lanes run nothing: the mask is not full.
        self.full_exec = self.entry_full && self.idle_lanes == 0;
        // Every variable starts the batch defined: nothing flows from one
        // batch into the next.
        let zero = self.vsplat(0);
        for v in self.all_vars.clone() {
            self.b.def_var(v, zero);
        }
        let zero_s = self.b.ins().iconst(types::I32, 0);
        for sh in self.shadows.clone() {
            for v in sh {
                self.b.def_var(v, zero_s);
            }
        }
        // A group of whole batches with no `ret` before the end
        // (`GroupPlan::new`) has every lane live at every region's start:
        // the mask is the all-ones constant, which `and_v` folds away.
        let mut exec: [Value; N] = if self.entry_full {
            [self.vsplat(u32::MAX); N]
        } else {
            std::array::from_fn(|j| {
                self.b
                    .ins()
                    .load(types::I32X4, trusted(), cptr, OFF_LIVE + 16 * j as i32)
            })
        };
        for (j, e) in exec.iter_mut().enumerate() {
            match self.idle_in_vector(j) {
                0 => {}
                0xF => *e = self.vsplat(0),
                idle => {
                    // A constant where every lane entered: stores read the
                    // lanes that write from it (`memory.rs`).
                    let live = self.lanes_const(!idle);
                    *e = match self.entry_full {
                        true => live,
                        false => self.b.ins().band(*e, live),
                    };
                }
            }
        }
        self.def_vars(self.exec, exec);
        let save = self.save_base(cptr);
        for &(r, c, v) in entry {
            self.b.def_var(self.shadows[r][c], v);
            if live(self, start, r, c) {
                let s = self.b.ins().splat(types::I32X4, v);
                self.def_vars(self.regs[r][c], [s; N]);
            }
        }
        // Components recomputed (`remat.rs`) are never in the save area:
        // their instructions run again here, each once.
        let mut again: Vec<usize> = Vec::new();
        for r in 0..temps {
            for c in 0..4 {
                if gu.uniform_at(start, r as u32, c) || !live(self, start, r, c) {
                    continue;
                }
                if let Some(k) = plan.remat[4 * r + c] {
                    if !(start..end).contains(&k) && !again.contains(&k) {
                        again.push(k);
                    }
                    continue;
                }
                let at = self.save_offsets(r, c)?;
                let vals: [Value; N] = std::array::from_fn(|j| {
                    self.b.ins().load(types::I32X4, trusted(), save, at[j])
                });
                self.def_vars(self.regs[r][c], vals);
            }
        }
        let p = self.p;
        for k in again {
            self.inst(k, &p.program.insts[k])?;
        }
        self.reload_shadows_where(start, |r, c| !gu.uniform_at(start, r as u32, c));
        self.region_uniform = Some((start, held_at(plan, start, temps)));
        self.body(start, end)?;
        self.region_uniform = None;
        // A component group-uniform after the region leaves it in its
        // shadow; where the batch analysis did not keep that shadow (it
        // gave up on a loop the group analysis settled), the lanes give it.
        let lost: Vec<(usize, usize, Spread)> = (0..temps)
            .flat_map(|r| (0..4).map(move |c| (r, c)))
            .filter(|&(r, c)| {
                gu.uniform_at(end, r as u32, c)
                    && !self
                        .uniform
                        .as_ref()
                        .is_some_and(|u| u.uniform_at(end, r as u32, c))
            })
            .map(|(r, c)| (r, c, Spread::Same))
            .collect();
        self.shadows_from_lanes(&lost);
        // A component loaded from the save area and not written here is
        // already there.
        let written = span::written(&self.p.program.insts[start..end], 4 * temps);
        for r in 0..temps {
            for c in 0..4 {
                let kept = gu.uniform_at(end, r as u32, c) && !plan.risk[4 * r + c];
                let loaded = live(self, start, r, c) && !gu.uniform_at(start, r as u32, c);
                let again = plan.remat[4 * r + c].is_some();
                if kept || again || !live(self, end, r, c) || (loaded && !written[4 * r + c]) {
                    continue;
                }
                let vals = self.use_vars(self.regs[r][c]);
                let at = self.save_offsets(r, c)?;
                for (v, at) in vals.into_iter().zip(at) {
                    self.b.ins().store(trusted(), v, save, at);
                }
            }
        }
        Ok(())
    }
}

impl Lower<'_, '_> {
    /// The [`SaveMap`] of `plan`: every component some region may load
    /// at its start (live there, not group-uniform, not recomputed) or
    /// store at its end (live there and not kept as a group scalar); the
    /// same tests [`Lower::region_batch`] makes.
    fn save_map_of(&self, plan: &GroupPlan) -> SaveMap {
        let temps = self.regs.len();
        let gu = &plan.group;
        let live = |k: usize, r: usize, c: usize| {
            self.live
                .as_ref()
                .is_none_or(|l: &Liveness| l.live_at(k, r as u32, c))
        };
        let mut regions = Vec::new();
        regions_of(&plan.items, &mut regions);
        let mut kept = vec![false; 4 * temps];
        for (start, end) in regions {
            for r in 0..temps {
                for c in 0..4 {
                    if plan.remat[4 * r + c].is_some() {
                        continue;
                    }
                    let loads = live(start, r, c) && !gu.uniform_at(start, r as u32, c);
                    let scalar = gu.uniform_at(end, r as u32, c) && !plan.risk[4 * r + c];
                    let stores = live(end, r, c) && !scalar;
                    kept[4 * r + c] |= loads || stores;
                }
            }
        }
        SaveMap::new(&kept)
    }

    /// The base of the batch at `cptr`'s save slots: the context itself
    /// where they are inline, else the area its `save` pointer names.
    fn save_base(&mut self, cptr: Value) -> Value {
        match &self.save_map {
            Some(m) if m.inline => cptr,
            _ => self.b.ins().load(types::I64, trusted(), cptr, OFF_SAVE),
        }
    }

    /// [`SaveMap::offset`] of the function's map, for each vector of
    /// component `c` of r`r`; an error (never met: the map keeps every
    /// component a region loads or stores) where it has none.
    fn save_offsets(&self, r: usize, c: usize) -> Result<[i32; N], JitError> {
        let m = self.save_map.as_ref();
        let at: Option<Vec<i32>> = (0..N).map(|j| m?.offset(r, c, j)).collect();
        at.and_then(|v| v.try_into().ok())
            .ok_or_else(|| JitError::Codegen(format!("r{r}.{c} has no save slot")))
    }
}

/// One batch loop of a region ([`Lower::batch_loop`]).
struct BatchLoop {
    /// The first batch's context.
    from: Value,
    /// Iterations: batches, or pairs of them.
    n: Value,
    paired: bool,
    /// The region's `if` where every batch lies inside its span.
    full_if: Option<usize>,
}

/// The lanes of batch `b` that hold no thread of `lo .. hi` (flat ids;
/// lane `l` holds thread `b * W + l`), as bits.
fn idle_lanes_of(b: u64, lo: u64, hi: u64) -> u8 {
    (0..W)
        .filter(|&l| {
            let t = b * W as u64 + l as u64;
            t < lo || t >= hi
        })
        .fold(0, |bits, l| bits | 1 << l)
}

/// Whether the group of `p` is one row of whole batches (`y` and `z`
/// sizes 1, width a multiple of `W`): any range of its batches holds its
/// least ids in its first batch and its greatest in its last, which a
/// region loop's pretested copy needs ([`Lower::region_pretest_on`]).
pub(super) fn one_row_of_batches(p: &Prepared) -> bool {
    let g = p.group_size;
    g[1] == 1 && g[2] == 1 && g[0] as usize % W == 0
}

/// Whether the group-level program `plan` of `p` has a region loop
/// lowered with a pretested copy in view (docs/architecture.md, "Region
/// loops tested once"): a one-row group of whole batches, and a region
/// that runs its batches one at a time with a raw or structured access
/// to a t#, u# or g#, whose whole-batch test the copy may decide. The
/// fuzzer counts such programs.
pub fn region_pretest_applies(p: &Prepared, plan: &GroupPlan) -> bool {
    fn buffer_access(inst: &Instruction) -> bool {
        use Opcode::*;
        matches!(
            inst.opcode,
            LdRaw | LdStructured | StoreRaw | StoreStructured | LdRawS | LdStructuredS
        ) && inst.operands.iter().any(|o| {
            matches!(
                o.ty,
                OperandType::Resource | OperandType::Uav | OperandType::Tgsm
            )
        })
    }
    fn walk(items: &[Item], insts: &[Instruction], batches: usize) -> bool {
        items.iter().any(|item| match item {
            Item::Region { start, end, .. } => {
                !pairs_region(insts, *start, *end, batches)
                    && insts[*start..*end].iter().any(buffer_access)
            }
            Item::Loop { body, .. } => walk(body, insts, batches),
            _ => false,
        })
    }
    one_row_of_batches(p)
        && !super::opt_off("pretest")
        && walk(&plan.items, &p.program.insts, group_batches(p))
}

/// The batches of one group of `p`: every group-mode call runs exactly
/// these (the function's entry checks the count).
pub fn group_batches(p: &Prepared) -> usize {
    let g = p.group_size;
    ((g[0] * g[1] * g[2]) as usize).div_ceil(W)
}

/// Instructions a region may hold to run its batches in pairs (its code
/// lowered twice in the batch loop, which then counts and steps once per
/// two batches). The loop's own 4 instructions per batch matter only
/// next to a very short body; a longer one loses more to the register
/// pressure of two copies in one loop (reduce's 8-instruction `if`
/// region, paired, reloaded its g# base from the stack: +7%
/// instructions, against scan's 6-instruction one: -5%).
const PAIR_MAX: usize = 6;

/// Whether region `start..end` of `insts` runs its batches in pairs: a
/// short region in a group of an even number of batches whose memory is
/// TGSM only. A t# or u# access keeps run-time shape and bounds tests
/// and out-of-line fallbacks whatever its index, code that in two copies
/// spilled (reduce's first region, 3 instructions with a `ld_raw`,
/// reloaded its g# base from the stack in the paired loop: +2%).
fn pairs_region(insts: &[Instruction], start: usize, end: usize, batches: usize) -> bool {
    let buffers = |i: &Instruction| {
        i.operands
            .iter()
            .any(|o| matches!(o.ty, OperandType::Resource | OperandType::Uav))
    };
    end - start <= PAIR_MAX
        && batches >= 2
        && batches % 2 == 0
        && !insts[start..end].iter().any(buffers)
        && !super::opt_off("pairs")
}

/// One loop of a peeled span ([`Lower::peeled_span`]): its first batch
/// (i64), its loop count (i32) and whether its batches lie inside the span.
type Part = (Value, Value, bool);

/// Which r# components (`4 * r + c`) of `temps` registers are
/// group-uniform at instruction `start`: the scalars a region's batches
/// start from.
fn held_at(plan: &GroupPlan, start: usize, temps: usize) -> Vec<bool> {
    (0..4 * temps)
        .map(|k| plan.group.uniform_at(start, (k / 4) as u32, k % 4))
        .collect()
}

/// Where a batch keeps the r# components its regions carry across
/// barriers: each such component gets [`N`] consecutive 16-byte slots
/// (its vectors), numbered densely, in the context's inline area
/// ([`BatchContext::inline_save`](super::context::BatchContext)) when
/// they all fit, else in the area its `save` pointer names.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SaveMap {
    /// Per r# component (`4 * r + c`): its index among the kept ones.
    index: Vec<Option<usize>>,
    inline: bool,
}

impl SaveMap {
    /// A map for the components `kept` marks (per `4 * r + c`).
    fn new(kept: &[bool]) -> SaveMap {
        let mut next = 0;
        let index: Vec<Option<usize>> = kept
            .iter()
            .map(|&k| {
                k.then(|| {
                    next += 1;
                    next - 1
                })
            })
            .collect();
        SaveMap {
            index,
            inline: next * N <= INLINE_SAVE_SLOTS,
        }
    }

    /// 16-byte slots a batch's out-of-line save area needs (0 when the
    /// components are kept inline).
    pub fn slots(&self) -> usize {
        if self.inline {
            return 0;
        }
        N * self.index.iter().flatten().count()
    }

    /// The byte offset of vector `j` of component `c` of r`r` from the
    /// base [`Lower::save_base`] gives; `None` for a component no region
    /// loads or stores.
    fn offset(&self, r: usize, c: usize, j: usize) -> Option<i32> {
        let k = self.index.get(4 * r + c).copied().flatten()?;
        let first = if self.inline { OFF_INLINE_SAVE } else { 0 };
        Some(first + (16 * (k * N + j)) as i32)
    }
}

/// The regions of `items`, loops' bodies included, as `(start, end)`.
fn regions_of(items: &[Item], out: &mut Vec<(usize, usize)>) {
    for item in items {
        match item {
            Item::Region { start, end, .. } => out.push((*start, *end)),
            Item::Loop { body, .. } => regions_of(body, out),
            Item::Scalar(_) | Item::Break(_) | Item::Barrier(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::span::{Bound, Rel};
    use super::*;

    fn plan(text: &str) -> Result<GroupPlan, NotGroup> {
        let program = crate::asm::parse_program(text).expect("assembles");
        let p = crate::analysis::prepare(&program).expect("prepares");
        let end = p
            .program
            .insts
            .iter()
            .position(|i| i.opcode == Opcode::Label)
            .unwrap_or(p.program.insts.len());
        GroupPlan::build(&p, end)
    }

    /// Kept components are numbered densely; the map is inline while
    /// their vectors fit in the context's area.
    #[test]
    fn idle_lanes_are_those_outside_the_span() {
        // Batch 0 of `tid < 2`: lanes 2 to 7 idle.
        assert_eq!(idle_lanes_of(0, 0, 2), 0b1111_1100);
        // Batch 2 (threads 16..24) of `tid >= 21`: lanes 0 to 4 idle.
        assert_eq!(idle_lanes_of(2, 21, 64), 0b0001_1111);
        // A batch the span covers, and one it misses.
        assert_eq!(idle_lanes_of(1, 0, 64), 0);
        assert_eq!(idle_lanes_of(3, 0, 8), 0xFF);
    }

    #[test]
    fn save_maps_number_kept_components_densely_inline_up_to_the_limit() {
        // r0.y and r1.w kept: slots 0-1 and 2-3, in the context.
        let mut kept = vec![false; 8];
        kept[1] = true;
        kept[7] = true;
        let m = SaveMap::new(&kept);
        assert_eq!(m.slots(), 0);
        assert_eq!(m.offset(0, 1, 1), Some(OFF_INLINE_SAVE + 16));
        assert_eq!(m.offset(1, 3, 0), Some(OFF_INLINE_SAVE + 16 * N as i32));
        assert_eq!(m.offset(0, 0, 0), None);
        assert_eq!(m.offset(5, 0, 0), None);
        // As many components as the inline area holds, then one more.
        let per = INLINE_SAVE_SLOTS / N;
        assert_eq!(SaveMap::new(&vec![true; per]).slots(), 0);
        let over = SaveMap::new(&vec![true; per + 1]);
        assert_eq!(over.slots(), N * (per + 1));
        assert_eq!(over.offset(0, 1, 0), Some(16 * N as i32));
    }

    /// Region copies are in view for a one-row group of whole batches
    /// with a buffer access in an unpaired region, and only there.
    #[test]
    fn region_copies_are_in_view_only_for_one_row_groups_with_buffer_regions() {
        let program = |group: &str, load: &str| {
            let text = format!(
                "cs_5_0
dcl_resource_raw t0
dcl_input vThreadIDInGroupFlattened
dcl_input vThreadID.x
dcl_temps 1
dcl_tgsm_structured g0, 4, 64
dcl_thread_group {group}
{load}
store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), r0.x
sync_g_t
ld_structured r0.x, l(0), l(0), g0.xxxx
store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), r0.x
ret
"
            );
            crate::asm::parse_program(&text).expect("assembles")
        };
        use crate::jit::{runs_group_level, runs_region_pretested};
        let from_t0 = "ishl r0.x, vThreadID.x, l(2)\nld_raw r0.x, r0.x, t0.xxxx";
        let own_id = "mov r0.x, vThreadID.x";
        assert!(runs_group_level(&program("64, 1, 1", from_t0)));
        assert!(runs_region_pretested(&program("64, 1, 1", from_t0)));
        // Two rows: a range of batches need not hold its least x first.
        assert!(runs_group_level(&program("32, 2, 1", from_t0)));
        assert!(!runs_region_pretested(&program("32, 2, 1", from_t0)));
        // A part batch: its idle lanes hold id 0.
        assert!(!runs_region_pretested(&program("60, 1, 1", from_t0)));
        // No buffer in any region: nothing for a copy to decide.
        assert!(runs_group_level(&program("64, 1, 1", own_id)));
        assert!(!runs_region_pretested(&program("64, 1, 1", own_id)));
    }

    const HEAD: &str = "cs_5_0\n\
        dcl_uav_raw u0\n\
        dcl_input vThreadIDInGroupFlattened\n\
        dcl_input vThreadGroupID.x\n\
        dcl_temps 2\n\
        dcl_tgsm_structured g0, 4, 64\n\
        dcl_thread_group 64, 1, 1\n";

    #[test]
    fn a_halving_loop_runs_at_group_level() {
        let text = format!(
            "{HEAD}\
            store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), vThreadIDInGroupFlattened.x\n\
            sync_g_t\n\
            mov r0.y, l(32)\n\
            loop\n\
              ieq r0.z, r0.y, l(0)\n\
              breakc_nz r0.z\n\
              ult r0.z, vThreadIDInGroupFlattened.x, r0.y\n\
              if_nz r0.z\n\
                ld_structured r1.x, vThreadIDInGroupFlattened.x, l(0), g0.xxxx\n\
                store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), r1.x\n\
              endif\n\
              sync_g_t\n\
              ushr r0.y, r0.y, l(1)\n\
            endloop\n\
            store_raw u0.x, l(0), r0.y\n\
            ret\n"
        );
        let plan = plan(&text).expect("qualifies");
        let region = |start, end, places: Places, span| Item::Region {
            start,
            end,
            memory: Access {
                reads: places,
                writes: places,
            },
            span,
        };
        // Only threads below r0.y enter the halving step's `if`.
        let below = Span {
            rel: Rel::Below,
            signed: false,
            bound: Bound::Operand {
                at: 6,
                operand: 2,
                comp: 1,
            },
        };
        assert_eq!(
            plan.items,
            vec![
                region(0, 1, 0b10, None),
                Item::Barrier(1),
                Item::Scalar(2),
                Item::Loop {
                    at: 3,
                    end: 13,
                    body: vec![
                        Item::Scalar(4),
                        Item::Break(5),
                        region(6, 11, 0b10, Some(below)),
                        Item::Barrier(11),
                        Item::Scalar(12),
                    ],
                },
                region(14, 15, 0b01, None),
            ]
        );
    }

    #[test]
    fn divergent_barriers_and_unordered_memory_keep_the_resume_scheme() {
        // A barrier under an `if`.
        let under_if = format!(
            "{HEAD}\
            if_nz vThreadIDInGroupFlattened.x\n\
              sync_g_t\n\
            endif\n\
            ret\n"
        );
        assert_eq!(plan(&under_if).err(), Some("barrier under a branch"));
        // A loop left by a per-thread condition.
        let divergent = format!(
            "{HEAD}\
            loop\n\
              ult r0.z, vThreadIDInGroupFlattened.x, r0.y\n\
              breakc_nz r0.z\n\
              iadd r0.y, r0.y, l(1)\n\
              sync_g_t\n\
            endloop\n\
            ret\n"
        );
        assert_eq!(
            plan(&divergent).err(),
            Some("barrier in a loop with a divergent exit")
        );
        // Memory accesses on both sides of the loop's group-uniform break,
        // with no barrier between: group order would differ from wave order.
        let racy = format!(
            "{HEAD}\
            mov r0.y, l(4)\n\
            loop\n\
              store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), r0.y\n\
              ieq r0.z, r0.y, l(0)\n\
              breakc_nz r0.z\n\
              ld_structured r1.x, l(0), l(0), g0.xxxx\n\
              store_raw u0.x, l(0), r1.x\n\
              sync_g_t\n\
              iadd r0.y, r0.y, l(-1)\n\
            endloop\n\
            ret\n"
        );
        assert_eq!(
            plan(&racy).err(),
            Some("conflicting memory accesses in two regions between barriers")
        );
        // An early return.
        let early = format!(
            "{HEAD}\
            retc_nz vThreadIDInGroupFlattened.x\n\
            sync_g_t\n\
            ret\n"
        );
        assert_eq!(plan(&early).err(), Some("ret before the end"));
    }

    #[test]
    fn a_scalar_that_becomes_per_thread_in_the_loop_stays_in_a_region() {
        // r1.x starts as the group's zero and becomes a per-thread sum in
        // the loop: its `mov` runs per batch, whose region stores it.
        let text = format!(
            "{HEAD}\
            mov r0.y, l(3)\n\
            mov r1.x, l(0)\n\
            loop\n\
              ieq r0.z, r0.y, l(0)\n\
              breakc_nz r0.z\n\
              iadd r1.x, r1.x, vThreadIDInGroupFlattened.x\n\
              sync_g_t\n\
              iadd r0.y, r0.y, l(-1)\n\
            endloop\n\
            store_raw u0.x, l(0), r1.x\n\
            ret\n"
        );
        let got = plan(&text).expect("qualifies");
        assert!(got.risk[4]);
        assert!(!got.risk[1]);
        assert_eq!(got.items[0], Item::Scalar(0));
        assert_eq!(
            got.items[1],
            Item::Region {
                start: 1,
                end: 2,
                memory: Access::default(),
                span: None,
            }
        );
        // The same loop without the `mov`: r1.x is read before any write.
        let unset = text.replace("mov r1.x, l(0)\n", "");
        assert_eq!(
            plan(&unset).err(),
            Some("a register read before it is written meets a group loop")
        );
    }

    #[test]
    fn memory_after_the_loop_meets_the_last_iterations_region() {
        // The region after the loop runs before any barrier once the
        // break is taken, after the loop's first region of that iteration.
        let text = format!(
            "{HEAD}\
            mov r0.y, l(4)\n\
            loop\n\
              store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), r0.y\n\
              ieq r0.z, r0.y, l(0)\n\
              breakc_nz r0.z\n\
              sync_g_t\n\
              iadd r0.y, r0.y, l(-1)\n\
            endloop\n\
            ld_structured r1.x, l(0), l(0), g0.xxxx\n\
            store_raw u0.x, l(0), r1.x\n\
            ret\n"
        );
        // Stores to another place after the loop do not conflict.
        let other = text.replace("ld_structured r1.x, l(0), l(0), g0.xxxx\n", "");
        assert!(plan(&other).is_ok());
        assert_eq!(
            plan(&text).err(),
            Some("conflicting memory accesses in two regions between barriers")
        );
    }
}
