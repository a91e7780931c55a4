//! Batch tests decided once per group.
//!
//! In: the i8 flags a compute program's batch loop tests on every batch
//! to pick its fast path — an early return where no lane of the batch
//! returns (`split.rs`), a whole-batch access whose DWORDs all lie in
//! the window (`memory.rs`) — while the *pretested* copy of the loop is
//! lowered. Out: for each flag whose truth in every batch of the group
//! follows from its truth in the group's first and last batch, the
//! constant 1 to branch on instead (the other path becomes unreachable
//! and goes, `prune::fold_constant_branches`), and, at the group's
//! entry, the *probe*: the same flags computed for the first and the
//! last batch, which picks the pretested loop when all of them hold
//! and the ordinary loop otherwise.
//!
//! Invariant: a flag is taken only when the analysis proves it a
//! conjunction of comparisons of a value that is the same in every
//! batch with one that lies, in every batch, between its values in the
//! first batch and the last: a non-decreasing function, without a wrap,
//! of the batch's thread ids (sums, shifts and multiples of them and of
//! values the same in every batch). In a group of whole batches that
//! each lie in one row, lane `l` of the first batch holds the least id
//! of every dimension that lane ever holds and lane `l` of the last the
//! greatest, so such a value is least in the first batch and greatest
//! in the last. Such a comparison holds on a range of values, so it
//! holds in every batch when it holds at both ends; the pretested loop
//! therefore takes exactly the paths the ordinary loop would, and
//! results cannot change.
//!
//! The same holds for a region loop of a group-level program (`group.rs`)
//! that runs a range of consecutive batches of a group that is one row
//! of whole batches: there lane `l` of the range's first batch holds the
//! least id of every dimension that lane holds in the range (y and z are
//! 0) and of its last batch the greatest, so the probe tests the range's
//! first and last batch instead of the group's.

use std::collections::HashMap;

use cranelift_codegen::ir::condcodes::{CondCode, IntCC};
use cranelift_codegen::ir::{
    types, InstBuilder, InstBuilderBase, InstructionData, Opcode as Clif, Type, Value, ValueDef,
};

use super::context::{OFF_FLAT, OFF_GROUP_BASE, OFF_GROUP_ID, OFF_RES, OFF_TGSM, OFF_TID, W};
use super::lower::Lower;
use crate::limits::MAX_GROUPS_PER_DIM;

/// The most instructions of the main program a pretested loop lowers
/// (the loop is lowered twice).
pub(super) const MAX_INSTS: usize = 256;

/// The pretested loop being lowered: its batch context and the flags
/// taken so far.
pub(super) struct Pretest {
    /// The pretested loop's batch context (its head's parameter).
    pub ctx: Value,
    /// The flags the probe must find true, with the batches they must
    /// hold in.
    flags: Vec<(Value, Need)>,
    /// The group's thread counts per dimension.
    pub size: [u32; 3],
}

impl Pretest {
    /// The pretested loop at batch context `ctx` of a group of `size`.
    pub fn new(ctx: Value, size: [u32; 3]) -> Pretest {
        Pretest {
            ctx,
            flags: Vec::new(),
            size,
        }
    }

    /// Whether the loop took any flag (the probe has something to test).
    pub fn taken(&self) -> bool {
        !self.flags.is_empty()
    }
}

/// What is known of a value over the batches of one group.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Fact {
    /// The same in every batch; at most the bound where one is known.
    Fixed(Option<u128>),
    /// A non-decreasing function of the batch's thread ids: least in the
    /// first batch, greatest in the last, and at most the bound (no wrap
    /// in its type).
    Rising(u128),
    /// An i8 flag that holds in every batch when it holds in the batches
    /// named: a comparison that bounds a rising value from above holds in
    /// every batch when it holds in the last, one that bounds it from
    /// below when it holds in the first.
    Ends(Need),
}

/// The batches in which a flag must hold ([`Fact::Ends`]).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Need {
    first: bool,
    last: bool,
}

impl Need {
    const FIRST: Need = Need {
        first: true,
        last: false,
    };
    const LAST: Need = Need {
        first: false,
        last: true,
    };

    fn and(self, o: Need) -> Need {
        Need {
            first: self.first || o.first,
            last: self.last || o.last,
        }
    }
}

/// The batches a flag of fact `f` must hold in (`None`: not a flag the
/// group's ends decide).
fn need(f: Fact) -> Option<Need> {
    match f {
        Fact::Ends(n) => Some(n),
        // The same in every batch: the first decides.
        Fact::Fixed(_) => Some(Need::FIRST),
        Fact::Rising(_) => None,
    }
}

/// The most values one flag's analysis visits (the flags are small).
const MAX_NODES: usize = 256;

/// 2^bits of a scalar or lane type.
fn limit(ty: Type) -> u128 {
    1u128 << ty.lane_type().bits()
}

/// Whether `cc` orders its operands (holds on a range of one of them).
fn ordered(cc: IntCC) -> bool {
    !matches!(cc, IntCC::Equal | IntCC::NotEqual)
}

fn signed(cc: IntCC) -> bool {
    matches!(
        cc,
        IntCC::SignedLessThan
            | IntCC::SignedLessThanOrEqual
            | IntCC::SignedGreaterThan
            | IntCC::SignedGreaterThanOrEqual
    )
}

/// The fact of `a + b` in a type of `lim` values.
fn sum(a: Fact, b: Fact, lim: u128) -> Option<Fact> {
    use Fact::*;
    let fits = |s: u128| (s < lim).then_some(s);
    Some(match (a, b) {
        (Fixed(x), Fixed(y)) => Fixed(x.zip(y).and_then(|(x, y)| fits(x + y))),
        (Rising(x), Fixed(Some(y))) | (Fixed(Some(y)), Rising(x)) | (Rising(x), Rising(y)) => {
            Rising(fits(x + y)?)
        }
        _ => return None,
    })
}

/// The fact of `a * k` (`k >= 0`) in a type of `lim` values.
fn scaled(a: Fact, k: u128, lim: u128) -> Option<Fact> {
    Some(match a {
        Fact::Fixed(x) => Fact::Fixed(x.and_then(|x| x.checked_mul(k)).filter(|&p| p < lim)),
        Fact::Rising(x) => Fact::Rising(x.checked_mul(k).filter(|&p| p < lim)?),
        Fact::Ends(_) => return None,
    })
}

/// The flag `cc(a, b)`.
fn compare(cc: IntCC, a: Fact, b: Fact, ty: Type) -> Option<Fact> {
    use Fact::*;
    let half = limit(ty) / 2;
    // Whether `cc(x, c)` bounds `x` from above (holds for the small x).
    let below = |cc: IntCC| {
        matches!(
            cc,
            IntCC::UnsignedLessThan
                | IntCC::UnsignedLessThanOrEqual
                | IntCC::SignedLessThan
                | IntCC::SignedLessThanOrEqual
        )
    };
    let (x, upper) = match (a, b) {
        (Fixed(_), Fixed(_)) => return Some(Ends(Need::FIRST)),
        (Rising(x), Fixed(_)) => (x, below(cc)),
        (Fixed(_), Rising(x)) => (x, below(cc.swap_args())),
        _ => return None,
    };
    if !ordered(cc) || (signed(cc) && x >= half) {
        return None;
    }
    Some(Ends(if upper { Need::LAST } else { Need::FIRST }))
}

impl Lower<'_, '_> {
    /// Whether a pretested loop is being lowered.
    pub(super) fn pretesting(&self) -> bool {
        self.pretest.is_some()
    }

    /// `flag`, or the constant 1 when the pretested loop is being lowered
    /// and the probe can decide it for the whole group (then it is one of
    /// the probe's flags).
    pub(super) fn pretested(&mut self, flag: Value) -> Value {
        if self.pretest.is_none() {
            return flag;
        }
        let mut facts = HashMap::new();
        let Some(Fact::Ends(need)) = self.fact(flag, &mut facts) else {
            return flag;
        };
        if let Some(p) = self.pretest.as_mut() {
            p.flags.push((flag, need));
        }
        self.b.ins().iconst(types::I8, 1)
    }

    /// What is known of `v` over the group's batches (`None`: nothing).
    fn fact(&self, v: Value, memo: &mut HashMap<Value, Option<Fact>>) -> Option<Fact> {
        let dfg = &self.b.func.dfg;
        let v = dfg.resolve_aliases(v);
        if let Some(f) = memo.get(&v) {
            return *f;
        }
        if memo.len() >= MAX_NODES {
            return None;
        }
        // A cycle through a value being analysed finds `None`.
        memo.insert(v, None);
        let f = self.fact_of(v, memo);
        memo.insert(v, f);
        f
    }

    fn fact_of(&self, v: Value, memo: &mut HashMap<Value, Option<Fact>>) -> Option<Fact> {
        let p = self.pretest.as_ref()?;
        let dfg = &self.b.func.dfg;
        let ty = dfg.value_type(v);
        let lim = limit(ty);
        if let Some(f) = self.run_value(v) {
            return Some(f);
        }
        let ValueDef::Result(inst, 0) = dfg.value_def(v) else {
            // The group's first context (the function's parameter) is the
            // same in every batch; any other parameter is not known.
            return (v == self.group).then_some(Fact::Fixed(None));
        };
        use Fact::*;
        match dfg.insts[inst] {
            InstructionData::UnaryImm {
                opcode: Clif::Iconst,
                imm,
            } => {
                let x = (imm.bits() as u128) & (lim - 1);
                Some(Fixed(Some(x)))
            }
            InstructionData::Load {
                opcode: Clif::Load | Clif::Uload32,
                arg,
                flags,
                offset,
            } => {
                if !dfg.mem_flags[flags].readonly() {
                    return None;
                }
                let arg = dfg.resolve_aliases(arg);
                let off = i32::from(offset);
                if arg == p.ctx {
                    return self.batch_field(off);
                }
                if arg == self.group {
                    return group_field(off, p.size);
                }
                // Through a pointer that is the same in every batch (the
                // resource table, a cb#): read-only memory.
                matches!(self.fact(arg, memo)?, Fixed(_)).then_some(Fixed(None))
            }
            InstructionData::Unary {
                opcode: Clif::Uextend | Clif::Splat,
                arg,
            } => self.fact(arg, memo),
            InstructionData::BinaryImm8 {
                opcode: Clif::Extractlane,
                arg,
                ..
            } => self.fact(arg, memo),
            InstructionData::Binary {
                opcode,
                args: [a, b],
            } => {
                let (fa, fb) = (self.fact(a, memo)?, self.fact(b, memo)?);
                // A shift or a multiple by a constant.
                let by = |f: Fact| match f {
                    Fixed(Some(k)) => Some(k),
                    _ => None,
                };
                let shift = |k: u128| (k as u32) & (ty.lane_bits() - 1);
                match opcode {
                    Clif::Iadd => sum(fa, fb, lim),
                    Clif::Band if ty == types::I8 => Some(Ends(need(fa)?.and(need(fb)?))),
                    Clif::Imul => match (by(fa), by(fb)) {
                        (_, Some(k)) => scaled(fa, k, lim),
                        (Some(k), None) => scaled(fb, k, lim),
                        _ => None,
                    },
                    Clif::Ishl => scaled(fa, 1u128 << shift(by(fb)?), lim),
                    Clif::Ushr => {
                        let s = shift(by(fb)?);
                        match fa {
                            Fixed(x) => Some(Fixed(x.map(|x| x >> s))),
                            Rising(x) => Some(Rising(x >> s)),
                            Ends(_) => None,
                        }
                    }
                    // Bit operations of values the same in every batch
                    // are too.
                    Clif::Band | Clif::Bor | Clif::Bxor | Clif::Sshr | Clif::Isub => {
                        match (fa, fb) {
                            (Fixed(_), Fixed(_)) => Some(Fixed(None)),
                            _ => None,
                        }
                    }
                    _ => None,
                }
            }
            InstructionData::IntCompare {
                opcode: Clif::Icmp,
                args: [a, b],
                cond,
            } if ty == types::I8 => {
                let at = dfg.value_type(a);
                compare(cond, self.fact(a, memo)?, self.fact(b, memo)?, at)
            }
            _ => None,
        }
    }

    /// What is known of `v` when it is the group's id or base as a value
    /// of the run's loop (`Lower::group_ids`), or its resource table
    /// (`Lower::run_res`): the same in every batch, bounded as the group
    /// context's fields are ([`group_field`]).
    fn run_value(&self, v: Value) -> Option<Fact> {
        if self.run_res == Some(v) {
            return Some(Fact::Fixed(None));
        }
        let (id, base) = self.group_ids?;
        let size = self.pretest.as_ref()?.size;
        let groups = u128::from(MAX_GROUPS_PER_DIM);
        if id.contains(&v) {
            return Some(Fact::Fixed(Some(groups)));
        }
        let d = base.iter().position(|&b| b == v)?;
        Some(Fact::Fixed(Some(groups * u128::from(size[d]))))
    }

    /// What is known of the pretested loop's batch-context field at
    /// `off`: the thread ids (in a group of whole batches that each lie in
    /// one row, lane `l` of the first batch holds the least id of every
    /// dimension and lane `l` of the last the greatest); the resource
    /// table pointer is the same in every context.
    fn batch_field(&self, off: i32) -> Option<Fact> {
        let size = self.pretest.as_ref()?.size;
        let row = 4 * W as i32;
        let inside = |start: i32, rows: i32| (start..start + rows * row).contains(&off);
        if inside(OFF_TID, 3) {
            let d = ((off - OFF_TID) / row) as usize;
            return Some(Fact::Rising(u128::from(size[d].max(1) - 1)));
        }
        if inside(OFF_FLAT, 1) {
            let n = size[0] * size[1] * size[2];
            return Some(Fact::Rising(u128::from(n.max(1) - 1)));
        }
        (off == OFF_RES).then_some(Fact::Fixed(None))
    }

    /// The probe: every flag taken, computed for the group's first batch
    /// (context `first`) and its last (context `last`) where it must hold
    /// there, and-ed together; `None` when a flag cannot be rebuilt (then
    /// the probe must choose the ordinary loop). Equal computations are
    /// built once.
    pub(super) fn probe(&mut self, first: Value, last: Value) -> Option<Value> {
        let flags = self.pretest.as_ref()?.flags.clone();
        let mut built = Built::default();
        let mut tested = Vec::new();
        for (ctx, at_first) in [(first, true), (last, false)] {
            built.memo.clear();
            for &(f, need) in &flags {
                if (at_first && !need.first) || (!at_first && !need.last) {
                    continue;
                }
                let v = self.rebuild(f, ctx, &mut built)?;
                if !tested.contains(&v) {
                    tested.push(v);
                }
            }
        }
        let (&one, rest) = tested.split_first()?;
        Some(rest.iter().fold(one, |all, &v| self.b.ins().band(all, v)))
    }

    /// `v` computed again where the builder is, with the pretested loop's
    /// batch context replaced by `ctx`: the same instruction formats that
    /// [`Lower::fact`] reads (it accepts a subset of their opcodes).
    fn rebuild(&mut self, v: Value, ctx: Value, built: &mut Built) -> Option<Value> {
        let pctx = self.pretest.as_ref()?.ctx;
        let v = self.b.func.dfg.resolve_aliases(v);
        if v == pctx {
            return Some(ctx);
        }
        // The group's context and the run's values are defined before the
        // probe.
        if v == self.group || self.run_value(v).is_some() {
            return Some(v);
        }
        if let Some(&r) = built.memo.get(&v) {
            return Some(r);
        }
        let dfg = &self.b.func.dfg;
        let ValueDef::Result(inst, 0) = dfg.value_def(v) else {
            return None;
        };
        let ctrl = dfg.ctrl_typevar(inst);
        let mut data = dfg.insts[inst];
        match &mut data {
            InstructionData::UnaryImm { .. } => {}
            InstructionData::Load { arg, .. }
            | InstructionData::Unary { arg, .. }
            | InstructionData::BinaryImm8 { arg, .. } => *arg = self.rebuild(*arg, ctx, built)?,
            InstructionData::Binary { args, .. } | InstructionData::IntCompare { args, .. } => {
                for a in args.iter_mut() {
                    *a = self.rebuild(*a, ctx, built)?;
                }
            }
            _ => return None,
        }
        let r = match built.same.get(&(data, ctrl)) {
            Some(&r) => r,
            None => {
                let (made, dfg) = self.b.ins().build(data, ctrl);
                let r = dfg.first_result(made);
                built.same.insert((data, ctrl), r);
                r
            }
        };
        built.memo.insert(v, r);
        Some(r)
    }
}

/// What the probe has built: per value of the loop, its value for the
/// batch being probed; per instruction, the value already made.
#[derive(Default)]
struct Built {
    memo: HashMap<Value, Value>,
    same: HashMap<(InstructionData, Type), Value>,
}

/// What is known of the group context's field at `off`: the group's id
/// and first thread id per dimension (a dispatch has at most
/// `MAX_GROUPS_PER_DIM` groups per dimension, `check_groups`), and its
/// pointers, all the same in every batch. Other fields (the budget, the barrier state) change.
fn group_field(off: i32, size: [u32; 3]) -> Option<Fact> {
    let groups = u128::from(MAX_GROUPS_PER_DIM);
    let dim = |start: i32| {
        (start..start + 12)
            .contains(&off)
            .then(|| ((off - start) / 4) as usize)
    };
    if let Some(d) = dim(OFF_GROUP_BASE) {
        return Some(Fact::Fixed(Some(groups * u128::from(size[d]))));
    }
    if dim(OFF_GROUP_ID).is_some() {
        return Some(Fact::Fixed(Some(groups)));
    }
    (off == OFF_RES || off == OFF_TGSM).then_some(Fact::Fixed(None))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_of_rising_values_rise_only_without_a_wrap() {
        let lim = 1u128 << 32;
        assert_eq!(
            sum(Fact::Rising(63), Fact::Fixed(Some(100)), lim),
            Some(Fact::Rising(163))
        );
        assert_eq!(sum(Fact::Rising(63), Fact::Fixed(None), lim), None);
        assert_eq!(sum(Fact::Rising(lim - 1), Fact::Fixed(Some(1)), lim), None);
        assert_eq!(
            sum(Fact::Fixed(None), Fact::Fixed(Some(1)), lim),
            Some(Fact::Fixed(None))
        );
        assert_eq!(scaled(Fact::Rising(1 << 30), 4, lim), None);
        assert_eq!(
            scaled(Fact::Rising(1 << 20), 4, lim),
            Some(Fact::Rising(1 << 22))
        );
    }

    #[test]
    fn only_ordered_comparisons_of_a_rising_value_decide_at_the_ends() {
        let (r, f) = (Fact::Rising(100), Fact::Fixed(None));
        let (first, last) = (Some(Fact::Ends(Need::FIRST)), Some(Fact::Ends(Need::LAST)));
        assert_eq!(compare(IntCC::UnsignedLessThan, r, f, types::I64), last);
        assert_eq!(compare(IntCC::UnsignedGreaterThan, f, r, types::I64), last);
        assert_eq!(
            compare(IntCC::SignedGreaterThanOrEqual, f, r, types::I32),
            last
        );
        assert_eq!(
            compare(IntCC::UnsignedGreaterThanOrEqual, r, f, types::I32),
            first
        );
        assert_eq!(compare(IntCC::Equal, r, f, types::I32), None);
        assert_eq!(compare(IntCC::NotEqual, r, f, types::I32), None);
        assert_eq!(compare(IntCC::UnsignedLessThan, r, r, types::I32), None);
        // A signed comparison of a value that may reach the sign bit is not
        // a range of it.
        let big = Fact::Rising(1 << 31);
        assert_eq!(compare(IntCC::SignedLessThan, big, f, types::I32), None);
        assert_eq!(compare(IntCC::UnsignedLessThan, big, f, types::I32), last);
    }

    #[test]
    fn group_fields_other_than_ids_and_pointers_are_unknown() {
        assert!(group_field(OFF_GROUP_BASE, [64, 1, 1]).is_some());
        assert!(group_field(OFF_GROUP_ID + 8, [64, 1, 1]).is_some());
        assert!(group_field(super::super::context::OFF_BUDGET, [64, 1, 1]).is_none());
        assert!(group_field(super::super::context::OFF_WAITING, [64, 1, 1]).is_none());
    }
}
