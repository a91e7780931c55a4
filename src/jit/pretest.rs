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
use super::lower::{fixed, Lower};
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
    /// Values numbered below this were made before the loop's head and
    /// its probe: where the loop reads one, it is the same in every
    /// batch and the probe can read it too ([`Pretest::before_loop`]).
    before: Option<u32>,
    /// The loop's lane-0 flattened id (`i64`), a parameter of its head
    /// that steps by `W` a batch, where the loop carries one
    /// ([`Lower::preload_ids`]): a rising value, which the probe reads
    /// from the batch's context.
    pub fid: Option<Value>,
}

impl Pretest {
    /// The pretested loop at batch context `ctx` of a group of `size`.
    pub fn new(ctx: Value, size: [u32; 3]) -> Pretest {
        Pretest {
            ctx,
            flags: Vec::new(),
            size,
            before: None,
            fid: None,
        }
    }

    /// [`Pretest::new`] for a loop whose head was made when the function
    /// had `values` values: every value numbered below is defined before
    /// the loop. The loop's body reads the values of the code before it
    /// through its head's parameters (the lowering's variables) or as
    /// values that dominate its head (a region's group-uniform
    /// registers, its count and first context), so each such value it
    /// reads dominates the probe and does not change from batch to batch.
    pub fn after(ctx: Value, size: [u32; 3], values: usize) -> Pretest {
        Pretest {
            before: u32::try_from(values).ok(),
            ..Pretest::new(ctx, size)
        }
    }

    /// Whether `v` was made before the loop ([`Pretest::after`]).
    fn before_loop(&self, v: Value) -> bool {
        self.before.is_some_and(|n| v.as_u32() < n)
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
    /// A rising value plus one the same in every batch, which may wrap:
    /// `((x + t) mod m) * mul + k`, no wrap in its own type.
    Circ(Circ),
}

/// `((x + t) mod m) * mul + k` ([`Fact::Circ`]): `x` is the same in every
/// batch, `t` a rising value of at most `r`, and the value is less than
/// its type's limit. Across the batches `t` moves forward from its
/// first value to its last, by at most `r`; as `u = (x + t) mod m` it
/// walks that far around a circle of `m` points, which may wrap once.
/// A comparison of the value with a constant holds for a range of `u`,
/// an arc of the circle in `t`; a walk that starts and ends on the arc
/// leaves it only by passing the whole rest of the circle, which is
/// longer than `r` when the arc has at most `m - r` points. Then the
/// comparison holds in every batch when it holds in the first and the
/// last ([`compare`]).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Circ {
    r: u128,
    m: u128,
    mul: u128,
    k: u128,
}

impl Circ {
    /// `(x + t) mod m` for `t` rising to at most `r` in a type of `m`
    /// values.
    fn wrapping(r: u128, m: u128) -> Circ {
        Circ { r, m, mul: 1, k: 0 }
    }

    /// The greatest value (at `u = m - 1`).
    fn top(&self) -> Option<u128> {
        (self.m - 1).checked_mul(self.mul)?.checked_add(self.k)
    }

    /// Whether this is `(x + t) mod lim` itself in a type of `lim`
    /// values, where adding a constant or multiplying by one keeps the
    /// form (`x` absorbs it, or `t` scales with `r`).
    fn whole(&self, lim: u128) -> bool {
        self.m == lim && self.mul == 1 && self.k == 0
    }

    /// `self + c` in a type of `lim` values.
    fn plus(self, c: Option<u128>, lim: u128) -> Option<Circ> {
        if self.whole(lim) {
            return Some(self);
        }
        let k = self.k.checked_add(c?)?;
        let sum = Circ { k, ..self };
        (sum.top()? < lim).then_some(sum)
    }

    /// `self * c` in a type of `lim` values.
    fn times(self, c: u128, lim: u128) -> Option<Circ> {
        if c == 1 {
            return Some(self);
        }
        let scaled = Circ {
            mul: self.mul.checked_mul(c)?,
            k: self.k.checked_mul(c)?,
            ..self
        };
        (scaled.top()? < lim).then_some(scaled)
    }

    /// How many `u` in `0..m` make `u * mul + k <= v` (`or_equal`) or
    /// `< v`.
    fn below(&self, v: u128, or_equal: bool) -> u128 {
        let room = v.checked_sub(self.k);
        let count = match (room, or_equal) {
            (None, _) => 0,
            (Some(d), true) => d / self.mul + 1,
            (Some(d), false) => d.div_ceil(self.mul),
        };
        count.min(self.m)
    }

    /// The flag `cc(self, v)` (`v` on the right), unsigned comparisons
    /// only: both ends' batches decide it when its arc is short enough.
    fn compare(&self, cc: IntCC, v: u128) -> Option<Fact> {
        use IntCC::*;
        let arc = match cc {
            UnsignedLessThan => self.below(v, false),
            UnsignedLessThanOrEqual => self.below(v, true),
            UnsignedGreaterThan => self.m - self.below(v, true),
            UnsignedGreaterThanOrEqual => self.m - self.below(v, false),
            _ => return None,
        };
        (arc + self.r <= self.m).then_some(Fact::Ends(Need::BOTH))
    }
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
    const BOTH: Need = Need {
        first: true,
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
        Fact::Rising(_) | Fact::Circ(_) => None,
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
        (Rising(x), Fixed(y)) | (Fixed(y), Rising(x)) => match y.and_then(|y| fits(x + y)) {
            Some(s) => Rising(s),
            // It may wrap: the same value on a circle.
            None => Circ(self::Circ::wrapping(x, lim)),
        },
        (Rising(x), Rising(y)) => Rising(fits(x + y)?),
        (Circ(c), Fixed(y)) | (Fixed(y), Circ(c)) => Circ(c.plus(y, lim)?),
        _ => return None,
    })
}

/// The fact of `a - b` in a type of `lim` values: a rising value less
/// one the same in every batch is `t + (lim - y)` on the circle.
fn difference(a: Fact, b: Fact, lim: u128) -> Option<Fact> {
    use Fact::*;
    match (a, b) {
        (Fixed(_), Fixed(_)) => Some(Fixed(None)),
        (Rising(x), Fixed(_)) => Some(Circ(self::Circ::wrapping(x, lim))),
        (Circ(c), Fixed(_)) if c.whole(lim) => Some(Circ(c)),
        _ => None,
    }
}

/// The fact of `a * k` (`k >= 0`) in a type of `lim` values.
fn scaled(a: Fact, k: u128, lim: u128) -> Option<Fact> {
    Some(match a {
        Fact::Fixed(x) => Fact::Fixed(x.and_then(|x| x.checked_mul(k)).filter(|&p| p < lim)),
        Fact::Rising(x) => Fact::Rising(x.checked_mul(k).filter(|&p| p < lim)?),
        Fact::Circ(c) => Fact::Circ(c.times(k, lim)?),
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
        (Circ(c), Fixed(Some(v))) => return c.compare(cc, v),
        (Fixed(Some(v)), Circ(c)) => return c.compare(cc.swap_args(), v),
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
        let before = self.pretest.as_ref().is_some_and(|p| p.before_loop(v));
        let f = self
            .fact_of(v, memo)
            .or(before.then_some(Fact::Fixed(None)));
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
        if p.fid == Some(v) {
            let n = p.size[0] * p.size[1] * p.size[2];
            return Some(Fact::Rising(u128::from(n.max(1) - 1)));
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
            // A narrowing keeps a bound below its type's limit.
            InstructionData::Unary {
                opcode: Clif::Ireduce,
                arg,
            } => match self.fact(arg, memo)? {
                Fixed(x) => Some(Fixed(x.filter(|&x| x < lim))),
                Rising(x) => (x < lim).then_some(Rising(x)),
                Ends(_) | Circ(_) => None,
            },
            InstructionData::BinaryImm8 {
                opcode: Clif::Extractlane,
                arg,
                ..
            } => self.fact(arg, memo),
            InstructionData::Binary {
                opcode,
                args: [a, b],
            } => {
                if opcode == Clif::Isub && (a == b || self.equal_ids(a, b)) {
                    return Some(Fixed(Some(0)));
                }
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
                            Ends(_) | Circ(_) => None,
                        }
                    }
                    Clif::Isub => difference(fa, fb, lim),
                    // Bit operations of values the same in every batch
                    // are too.
                    Clif::Band | Clif::Bor | Clif::Bxor | Clif::Sshr => match (fa, fb) {
                        (Fixed(_), Fixed(_)) => Some(Fixed(None)),
                        _ => None,
                    },
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

    /// Whether `a` and `b` are the pretested loop's loads of two id rows
    /// that hold the same numbers in every lane: in a group of one row,
    /// the flattened id is the x id (`flat - x`, which an access's
    /// consecutive base may hold, is then 0).
    fn equal_ids(&self, a: Value, b: Value) -> bool {
        let Some(p) = self.pretest.as_ref() else {
            return false;
        };
        let dfg = &self.b.func.dfg;
        // A row's word as loaded, or as the `i32` of a batch's `i64` load
        // of it (`Lower::preload_ids`).
        let loaded = |v: Value| match dfg.value_def(dfg.resolve_aliases(v)).inst() {
            Some(i) => match dfg.insts[i] {
                InstructionData::Load {
                    opcode: Clif::Load | Clif::Uload32,
                    arg,
                    flags,
                    offset,
                } if dfg.resolve_aliases(arg) == p.ctx && dfg.mem_flags[flags].readonly() => {
                    Some(i32::from(offset))
                }
                InstructionData::Unary {
                    opcode: Clif::Ireduce,
                    arg,
                } => match dfg.value_def(dfg.resolve_aliases(arg)).inst() {
                    Some(j) => match dfg.insts[j] {
                        InstructionData::Load {
                            opcode: Clif::Uload32,
                            arg,
                            flags,
                            offset,
                        } if dfg.resolve_aliases(arg) == p.ctx
                            && dfg.mem_flags[flags].readonly() =>
                        {
                            Some(i32::from(offset))
                        }
                        _ => None,
                    },
                    None => None,
                },
                _ => None,
            },
            None => None,
        };
        let field = |v: Value| loaded(v).map(|o| (o, dfg.value_type(v)));
        let (Some((oa, ta)), Some((ob, tb))) = (field(a), field(b)) else {
            return false;
        };
        let row = 4 * W as i32;
        // The same lanes of the x row and the flattened row.
        let x_of = |o: i32| {
            (OFF_FLAT..OFF_FLAT + row)
                .contains(&o)
                .then(|| o - OFF_FLAT + OFF_TID)
        };
        ta == tb
            && p.size[1] <= 1
            && p.size[2] <= 1
            && (oa == ob || x_of(oa) == Some(ob) || x_of(ob) == Some(oa))
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
        if self.pretest.as_ref()?.fid == Some(v) {
            let id = *built
                .fid
                .entry(ctx)
                .or_insert_with(|| self.b.ins().uload32(fixed(), ctx, OFF_FLAT));
            return Some(id);
        }
        // Made before the loop: it dominates the probe.
        if self.pretest.as_ref()?.before_loop(v) {
            return Some(v);
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
    /// The lane-0 flattened id read per probed context.
    fid: HashMap<Value, Value>,
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
        // One that may wrap is not rising (it is on a circle, below).
        let rises = |f: Option<Fact>| matches!(f, Some(Fact::Rising(_)));
        assert!(!rises(sum(Fact::Rising(63), Fact::Fixed(None), lim)));
        assert!(!rises(sum(
            Fact::Rising(lim - 1),
            Fact::Fixed(Some(1)),
            lim
        )));
        assert_eq!(sum(Fact::Rising(lim - 1), Fact::Rising(1), lim), None);
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
    fn a_rising_value_plus_an_unknown_one_wraps_on_a_circle() {
        let lim = 1u128 << 32;
        let c = Circ::wrapping(255, lim);
        assert_eq!(
            sum(Fact::Rising(255), Fact::Fixed(None), lim),
            Some(Fact::Circ(c))
        );
        // A known addend that may wrap is on the circle too.
        assert_eq!(
            sum(Fact::Rising(255), Fact::Fixed(Some(lim - 1)), lim),
            Some(Fact::Circ(c))
        );
        assert_eq!(
            difference(Fact::Rising(255), Fact::Fixed(None), lim),
            Some(Fact::Circ(c))
        );
        assert_eq!(difference(Fact::Fixed(None), Fact::Rising(255), lim), None);
        // In its own type a constant moves the circle; a multiple does not
        // keep its form.
        assert_eq!(
            sum(Fact::Circ(c), Fact::Fixed(Some(7)), lim),
            Some(Fact::Circ(c))
        );
        assert_eq!(scaled(Fact::Circ(c), 4, lim), None);
        // Widened (a zero-extended index), constants and multiples add up.
        let wide = 1u128 << 64;
        let c4 = scaled(Fact::Circ(c), 4, wide);
        let want = Circ { mul: 4, ..c };
        assert_eq!(c4, Some(Fact::Circ(want)));
        assert_eq!(
            sum(Fact::Circ(want), Fact::Fixed(Some(28)), wide),
            Some(Fact::Circ(Circ { k: 28, ..want }))
        );
        assert_eq!(sum(Fact::Circ(want), Fact::Fixed(None), wide), None);
    }

    #[test]
    fn a_circle_comparison_needs_both_ends_and_an_arc_the_walk_cannot_leave() {
        let both = Some(Fact::Ends(Need::BOTH));
        let lim = 1u128 << 32;
        // `u + 7 < 256` in 64 bits: 249 values of `u`, far from the 2^32.
        let c = Circ {
            k: 7,
            ..Circ::wrapping(255, lim)
        };
        assert_eq!(c.compare(IntCC::UnsignedLessThan, 256), both);
        assert_eq!(c.below(256, false), 249);
        assert_eq!(c.below(256, true), 250);
        assert_eq!(c.below(6, false), 0);
        // `u <= 2^32 - 8` (no wrap of the lanes after the first) holds on
        // all but 7 values: a walk of up to 255 may cross them.
        let u = Circ::wrapping(255, lim);
        assert_eq!(u.compare(IntCC::UnsignedLessThanOrEqual, lim - 8), None);
        // A walk shorter than the gap cannot.
        let short = Circ::wrapping(6, lim);
        assert_eq!(short.compare(IntCC::UnsignedLessThanOrEqual, lim - 8), both);
        assert_eq!(short.compare(IntCC::UnsignedLessThanOrEqual, lim - 7), both);
        assert_eq!(u.compare(IntCC::UnsignedGreaterThanOrEqual, lim - 8), both);
        // `u > 254` is false on 255 values, which a walk of 255 cannot
        // cross from one true value to another; `u > 253` on 254.
        assert_eq!(u.compare(IntCC::UnsignedGreaterThan, 254), both);
        assert_eq!(u.compare(IntCC::UnsignedGreaterThan, 253), None);
        // Multiples: `4u < 1024` holds for 256 values of `u`.
        let m = Circ {
            mul: 4,
            ..Circ::wrapping(255, lim)
        };
        assert_eq!(m.below(1024, false), 256);
        assert_eq!(m.below(1021, false), 256);
        assert_eq!(m.below(1020, false), 255);
        assert_eq!(m.below(1020, true), 256);
        assert_eq!(m.compare(IntCC::UnsignedLessThan, 1024), both);
        // Equality and signed comparisons are not arcs this reads.
        assert_eq!(c.compare(IntCC::Equal, 256), None);
        assert_eq!(c.compare(IntCC::SignedLessThan, 256), None);
        // Through `compare`, with the constant on either side.
        assert_eq!(
            compare(
                IntCC::UnsignedGreaterThan,
                Fact::Fixed(Some(256)),
                Fact::Circ(c),
                types::I64
            ),
            both
        );
        assert_eq!(
            compare(
                IntCC::UnsignedLessThan,
                Fact::Circ(c),
                Fact::Fixed(None),
                types::I64
            ),
            None
        );
    }

    #[test]
    fn group_fields_other_than_ids_and_pointers_are_unknown() {
        assert!(group_field(OFF_GROUP_BASE, [64, 1, 1]).is_some());
        assert!(group_field(OFF_GROUP_ID + 8, [64, 1, 1]).is_some());
        assert!(group_field(super::super::context::OFF_BUDGET, [64, 1, 1]).is_none());
        assert!(group_field(super::super::context::OFF_WAITING, [64, 1, 1]).is_none());
    }
}
