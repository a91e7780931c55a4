//! SM5.1 register ranges (`T0[r0.x + 2]`, `CB1[3][r1.y]`): which resource
//! table entry an index selects, per lane, at run time.
//!
//! In: the plan's ranges (every SM5.1 cb#/t#/u# declaration) and, at
//! dispatch, the bindings. Out: the runner's table layout ([`entries`]):
//! each declaration's own entry becomes a header (`dwords` = entries the
//! range spans, `bufinfo` = its first entry, `_pad` = an always-empty
//! entry), followed by one entry per register of each range up to the
//! highest bound one, and the empty entry; and generated code that turns
//! an index into an entry: `index − lower < count ? first + index − lower
//! : empty`. Invariants: an index outside the declared range (or past the
//! last bound register) selects the empty entry, so it reads 0 and drops
//! writes exactly like the interpreter's unbound register; a header is
//! never used as a memory window (a lookup without an index falls back to
//! the empty entry); a range spans at most [`MAX_RANGE_ENTRIES`] entries.
//!
//! Instructions on t#/u# with a per-lane index are lowered once per lane
//! with the execution mask narrowed to that lane, so every lane uses its
//! own entry and side effects keep lane order; cb# reads select per lane
//! inside the fetch.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, Value};

use super::context::{N, OFF_RES, RES_BASE, RES_BUFINFO, RES_DWORDS, RES_SIZE, W};
use super::lower::{trusted, Lower, V};
use super::plan::{Plan, RangeDecl};
use super::JitError;
use crate::ir::{Index, Instruction, OpClass, Operand, OperandType};
use crate::runtime::{BindingKind, Bindings, RuntimeError, Slot};

/// Most registers one range may span in a dispatch (past its first one to
/// the highest bound one).
pub const MAX_RANGE_ENTRIES: u64 = 1 << 16;

/// Offset of the header's empty-entry index (`ResDesc::_pad`).
const RES_EMPTY: i32 = RES_BUFINFO + 4;

/// One resource-table entry as the runner fills it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entry {
    /// The binding at a slot.
    Slot(BindingKind, Slot),
    /// A range header.
    Header { count: u64, first: u32, empty: u32 },
    /// Never bound: every access is out of bounds.
    Empty,
}

/// The highest bound register of `r`, if any is bound.
fn highest_bound(r: &RangeDecl, b: &Bindings) -> Option<u32> {
    let lo = Slot {
        space: r.space,
        index: r.lower,
    };
    let hi = Slot {
        space: r.space,
        index: r.upper,
    };
    let last = match r.kind {
        BindingKind::ConstantBuffer => b.cbs.range(lo..=hi).next_back().map(|(s, _)| *s),
        BindingKind::Srv => b.srvs.range(lo..=hi).next_back().map(|(s, _)| *s),
        BindingKind::Uav => b.uavs.range(lo..=hi).next_back().map(|(s, _)| *s),
    };
    last.map(|s| s.index)
}

/// The table the runner builds for `plan` over `b`.
pub fn entries(plan: &Plan, b: &Bindings) -> Result<Vec<Entry>, RuntimeError> {
    let mut out: Vec<Entry> = plan
        .table
        .iter()
        .map(|&(kind, slot)| Entry::Slot(kind, slot))
        .collect();
    let mut headers = Vec::new();
    for (&h, r) in &plan.ranges {
        let count = highest_bound(r, b).map_or(0, |hi| u64::from(hi - r.lower) + 1);
        if count > MAX_RANGE_ENTRIES {
            return Err(RuntimeError::InvalidProgram {
                inst_index: None,
                reason: format!(
                    "{}{} binds register {} of a range starting at {}: the JIT indexes at most {} registers of a range",
                    r.kind,
                    r.lower,
                    u64::from(r.lower) + count - 1,
                    r.lower,
                    MAX_RANGE_ENTRIES
                ),
            });
        }
        let first = out.len();
        for k in 0..count as u32 {
            let slot = Slot {
                space: r.space,
                index: r.lower + k,
            };
            out.push(Entry::Slot(r.kind, slot));
        }
        headers.push((h, count, first));
    }
    let empty = out.len() as u32;
    out.push(Entry::Empty);
    for (h, count, first) in headers {
        out[h] = Entry::Header {
            count,
            first: first as u32,
            empty,
        };
    }
    Ok(out)
}

impl Lower<'_, '_> {
    /// The entry an SM5.1 index selected for header `e` (the empty entry
    /// when this instruction gave none); `None` when `e` is no header.
    pub fn range_entry(&mut self, e: usize) -> Option<Value> {
        if !self.plan.ranges.contains_key(&e) {
            return None;
        }
        if let Some(&(_, v)) = self.tex.dyn_entries.iter().rev().find(|(h, _)| *h == e) {
            return Some(v);
        }
        let hp = self.header_ptr(e);
        Some(self.b.ins().load(types::I32, trusted(), hp, RES_EMPTY))
    }

    fn header_ptr(&mut self, h: usize) -> Value {
        let res = self.b.ins().load(types::I64, trusted(), self.ctx, OFF_RES);
        self.b.ins().iadd_imm_s(res, h as i64 * RES_SIZE)
    }

    /// The entry register `index` (i32) selects in range header `h`.
    fn select_entry(&mut self, h: usize, index: Value) -> Value {
        let lower = self.plan.ranges.get(&h).map_or(0, |r| r.lower);
        let hp = self.header_ptr(h);
        let count = self.b.ins().load(types::I64, trusted(), hp, RES_DWORDS);
        let first = self.b.ins().load(types::I32, trusted(), hp, RES_BUFINFO);
        let empty = self.b.ins().load(types::I32, trusted(), hp, RES_EMPTY);
        let lo = self.b.ins().iconst(types::I32, i64::from(lower as i32));
        let rel = self.b.ins().isub(index, lo);
        let rel64 = self.b.ins().uextend(types::I64, rel);
        let inb = self.b.ins().icmp(IntCC::UnsignedLessThan, rel64, count);
        let e = self.b.ins().iadd(first, rel);
        self.b.ins().select(inb, e, empty)
    }

    /// An index literal as an i32.
    fn literal_index(&mut self, x: u64) -> Value {
        // A literal above u32::MAX is past every range: u32::MAX is too
        // (ranges end at u32::MAX - 1 at the latest past their first).
        let x = u32::try_from(x).unwrap_or(u32::MAX);
        self.b.ins().iconst(types::I32, i64::from(x as i32))
    }

    /// The range header a t#/u# operand names, with its register index.
    fn ranged_operand<'o>(&self, op: &'o Operand) -> Option<(usize, Option<&'o Index>)> {
        let id = op.imm_index(0)?;
        let list = match op.ty {
            OperandType::Resource => &self.plan.srvs,
            OperandType::Uav => &self.plan.uavs,
            _ => return None,
        };
        let h = list.get(&id)?.0;
        self.plan
            .ranges
            .contains_key(&h)
            .then(|| (h, op.indices.get(1)))
    }

    /// Lowers `inst` with the entries its t#/u# indices select.
    pub fn with_ranges(&mut self, i: usize, inst: &Instruction) -> Result<(), JitError> {
        let mut picks: Vec<(usize, Result<V, u64>)> = Vec::new();
        for op in &inst.operands {
            let Some((h, idx)) = self.ranged_operand(op) else {
                continue;
            };
            let v = match idx {
                Some(x) => self.index_value(x)?,
                None => Err(u64::from(u32::MAX)),
            };
            picks.push((h, v));
        }
        if picks.is_empty() {
            return self.inst_family(i, inst);
        }
        let mark = self.tex.dyn_entries.len();
        if picks.iter().all(|(_, v)| v.is_err()) {
            for (h, v) in &picks {
                let imm = v.as_ref().err().copied().unwrap_or(0);
                let x = self.literal_index(imm);
                let e = self.select_entry(*h, x);
                self.tex.dyn_entries.push((*h, e));
            }
            let r = self.inst_family(i, inst);
            self.tex.dyn_entries.truncate(mark);
            return r;
        }
        if matches!(inst.opcode.class(), OpClass::Flow | OpClass::Sync) {
            return Err(self.unsupported_operand("per-lane resource index in control flow"));
        }
        let saved = self.use_vars(self.exec);
        // One lane at a time: register writes must blend.
        let full = std::mem::replace(&mut self.full_exec, false);
        let live = self.live.take();
        for l in 0..W {
            let only = self.only_lane(saved, l);
            self.def_vars(self.exec, only);
            for (h, v) in &picks {
                let x = match v {
                    Ok(lanes) => self.lane(*lanes, l),
                    Err(imm) => self.literal_index(*imm),
                };
                let e = self.select_entry(*h, x);
                self.tex.dyn_entries.push((*h, e));
            }
            let r = self.inst_family(i, inst);
            self.tex.dyn_entries.truncate(mark);
            r?;
        }
        self.def_vars(self.exec, saved);
        self.full_exec = full;
        self.live = live;
        Ok(())
    }

    /// `mask` with every lane but `l` cleared.
    fn only_lane(&mut self, mask: V, l: usize) -> V {
        let zero = self.vsplat(0);
        let mut out = [zero; N];
        let x = self.b.ins().extractlane(mask[l / 4], (l % 4) as u8);
        out[l / 4] = self.b.ins().insertlane(zero, x, (l % 4) as u8);
        out
    }

    /// Component `comp` of an SM5.1 `CB#[id][index][row]` operand.
    pub fn cb_range_fetch(&mut self, op: &Operand, comp: usize) -> Result<V, JitError> {
        let id = op
            .imm_index(0)
            .ok_or_else(|| self.unsupported_operand("dynamically indexed cb id"))?;
        let Some(&h) = self.plan.cbs.get(&id) else {
            return Ok(self.splat_v(0));
        };
        let index = match op.indices.get(1) {
            Some(x) => self.index_value(x)?,
            None => Err(u64::from(u32::MAX)),
        };
        let row = match op.indices.get(2) {
            Some(x) => self.index_value(x)?,
            None => Err(0),
        };
        let lane_value = |s: &mut Self, v: &Result<V, u64>, l: usize| match v {
            Ok(lanes) => Some(s.lane(*lanes, l)),
            Err(_) => None,
        };
        let uniform = index.is_err() && row.is_err();
        let lanes = if uniform { 1 } else { W };
        let mut out = Vec::with_capacity(lanes);
        for l in 0..lanes {
            let x = match lane_value(self, &index, l) {
                Some(x) => x,
                None => self.literal_index(index.as_ref().err().copied().unwrap_or(0)),
            };
            let e = self.select_entry(h, x);
            let e = self.b.ins().uextend(types::I64, e);
            let res = self.b.ins().load(types::I64, trusted(), self.ctx, OFF_RES);
            let off = self.b.ins().imul_imm_s(e, RES_SIZE);
            let dp = self.b.ins().iadd(res, off);
            let base = self.b.ins().load(types::I64, trusted(), dp, RES_BASE);
            let dwords = self.b.ins().load(types::I64, trusted(), dp, RES_DWORDS);
            let d = match lane_value(self, &row, l) {
                Some(r) => {
                    let r = self.b.ins().uextend(types::I64, r);
                    let r = self.b.ins().imul_imm_s(r, 4);
                    self.b.ins().iadd_imm_s(r, comp as i64)
                }
                None => {
                    let r = row.as_ref().err().copied().unwrap_or(0);
                    // A row past i64 reads out of bounds (`dwords` < 2^62).
                    let d = r
                        .checked_mul(4)
                        .and_then(|x| x.checked_add(comp as u64))
                        .and_then(|x| i64::try_from(x).ok())
                        .unwrap_or(i64::MAX);
                    self.b.ins().iconst(types::I64, d)
                }
            };
            out.push(self.load_fixed_dword(base, dwords, d));
        }
        if uniform {
            let v = self.b.ins().splat(types::I32X4, out[0]);
            return Ok([v; N]);
        }
        Ok(self.lanes_to_v(&out))
    }
}
