//! Group loops whose trip count is known when compiling (tier 1).
//!
//! In: a [`GroupPlan`] (the group-level items of a barrier program).
//! Out: [`Trips`]: for each group loop whose breaks the group-level
//! scalar code decides by itself from literals (reduce's `for (s = 128;
//! s > 0; s >>= 1)`), how many times its body reaches `endloop` before
//! a break leaves it. The lowering (`group.rs`) then lowers such a loop
//! as that many copies of its body plus the last, partial one: the
//! group scalars of each copy are constants, so Cranelift folds each
//! step's span, its batch counts and its break, and the budget is
//! charged once, for every iteration, on entry.
//!
//! Invariant: a count is the one running the items gives: every scalar
//! is computed with the interpreter's own `sem::int` functions, a value
//! that depends on anything else (a region's writes, a thread id, a
//! constant buffer) is unknown, and a loop with a break on an unknown
//! value, a nested loop or more than [`MAX_TRIPS`] iterations gets no
//! count. The lowering keeps every break test of every copy (folded to
//! a jump where the count is right) and the ordinary loop after the
//! copies, so a count could only cost speed, never results.

use std::collections::HashMap;

use cranelift_codegen::ir::{condcodes::IntCC, Value};

use super::group::{GroupPlan, Item};
use super::lower::Lower;
use super::span::written;
use super::uniform::src_comp;
use crate::analysis::Prepared;
use crate::ir::{Instruction, Modifier, Opcode, OperandType};
use crate::sem::int;

/// The most iterations a loop is unrolled for.
pub const MAX_TRIPS: u32 = 32;

/// The most instructions the copies of one loop's body may add up to.
pub const MAX_UNROLLED: usize = 512;

/// Per group loop (by the index of its `loop`): the iterations that
/// reach its `endloop`, where known and small enough to unroll.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trips(HashMap<usize, u32>);

impl Trips {
    /// The counts of `plan`'s loops (module doc).
    pub fn of(p: &Prepared, plan: &GroupPlan) -> Trips {
        let mut walk = Walk {
            p,
            plan,
            vals: vec![None; 4 * p.temps as usize],
            seen: HashMap::new(),
        };
        walk.items(&plan.items);
        let trips = walk
            .seen
            .into_iter()
            .filter_map(|(at, (n, len))| Some((at, n?, len)))
            .filter(|&(_, n, len)| len.saturating_mul(n as usize + 1) <= MAX_UNROLLED)
            .map(|(at, n, _)| (at, n))
            .collect();
        Trips(trips)
    }

    /// The iterations of the loop at `at` that reach its `endloop`.
    pub fn get(&self, at: usize) -> Option<u32> {
        self.0.get(&at).copied()
    }
}

/// How a walk over a loop body ended.
enum Flow {
    /// At its end (the back edge).
    End,
    /// A break left the loop.
    Left,
    /// A break on an unknown value.
    Unknown,
}

/// The walk over the items with the r# components' values known so far.
struct Walk<'a> {
    p: &'a Prepared,
    plan: &'a GroupPlan,
    /// Per r# component (`4 * r + c`), its value when known.
    vals: Vec<Option<u32>>,
    /// Per loop met: its count, `None` where unknown or not the same
    /// every time the loop was entered, and its length (`end - at`).
    seen: HashMap<usize, (Option<u32>, usize)>,
}

impl Walk<'_> {
    /// Runs `items` outside any loop.
    fn items(&mut self, items: &[Item]) {
        for item in items {
            match item {
                Item::Loop { at, end, body } => self.group_loop(*at, *end, body),
                // A break outside a loop: no plan has one.
                Item::Break(_) => {}
                _ => self.straight(item),
            }
        }
    }

    /// A region, scalar or barrier.
    fn straight(&mut self, item: &Item) {
        match item {
            Item::Region { start, end, .. } => {
                let insts = &self.p.program.insts[*start..*end];
                for (b, w) in written(insts, self.vals.len()).into_iter().enumerate() {
                    if w {
                        self.vals[b] = None;
                    }
                }
            }
            Item::Scalar(k) => self.scalar(*k),
            _ => {}
        }
    }

    /// The loop `at..end`: its count when every break is decided, then
    /// the values it leaves (all it writes unknown where not).
    fn group_loop(&mut self, at: usize, end: usize, body: &[Item]) {
        let entry = self.vals.clone();
        let count = self.run_loop(body);
        let count = match self.seen.get(&at) {
            Some(&(old, _)) if old != count => None,
            _ => count,
        };
        self.seen.insert(at, (count, end - at));
        if count.is_none() {
            self.vals = entry;
            let insts = &self.p.program.insts[at..=end.min(self.p.program.insts.len() - 1)];
            for (b, w) in written(insts, self.vals.len()).into_iter().enumerate() {
                if w {
                    self.vals[b] = None;
                }
            }
        }
    }

    /// Runs a loop body until a break leaves it: the iterations that
    /// reached its end.
    fn run_loop(&mut self, body: &[Item]) -> Option<u32> {
        for n in 0..=MAX_TRIPS {
            match self.body(body) {
                Flow::End => {}
                Flow::Left => return Some(n),
                Flow::Unknown => return None,
            }
        }
        None
    }

    fn body(&mut self, body: &[Item]) -> Flow {
        for item in body {
            match item {
                // Nested group loops are not unrolled.
                Item::Loop { .. } => return Flow::Unknown,
                Item::Break(k) => match self.breaks(*k) {
                    Some(true) => return Flow::Left,
                    Some(false) => {}
                    None => return Flow::Unknown,
                },
                _ => self.straight(item),
            }
        }
        Flow::End
    }

    /// Whether `breakc` `k` leaves, when known.
    fn breaks(&self, k: usize) -> Option<bool> {
        let inst = &self.p.program.insts[k];
        let op = inst.operands.first()?;
        let v = self.operand(inst, 0, src_comp(op, 0))?;
        Some((v != 0) == inst.test_nz())
    }

    /// [`Item::Scalar`] `k`: the components it writes, computed where
    /// every source is known (and where the lowering keeps a scalar).
    fn scalar(&mut self, k: usize) {
        let inst = &self.p.program.insts[k];
        let Some(d) = inst.operands.first() else {
            return;
        };
        let Some(r) = d.imm_index(0).filter(|_| d.ty == OperandType::Temp) else {
            return;
        };
        let mask = d.write_mask();
        // Every value first: a source may be a component written here.
        let vals: Vec<(usize, Option<u32>)> = (0..4)
            .filter(|c| mask & (1 << c) != 0)
            .map(|c| {
                let kept = self.plan.group.shadowed_write(k, inst, c);
                (c, if kept { self.eval(inst, c) } else { None })
            })
            .collect();
        for (c, v) in vals {
            if let Some(slot) = self.vals.get_mut(4 * r as usize + c) {
                *slot = v;
            }
        }
    }

    /// Source `i` (after the destination) of `inst`, component `comp`,
    /// with its modifier, when known.
    fn operand(&self, inst: &Instruction, i: usize, comp: usize) -> Option<u32> {
        let op = inst.operands.get(i)?;
        let comp = comp & 3;
        let v = match op.ty {
            OperandType::Imm32 => match op.imm.as_slice() {
                [v] => Some(*v),
                [a, b, c, d] => Some([*a, *b, *c, *d][comp]),
                _ => None,
            },
            OperandType::Temp => *self.vals.get(4 * op.imm_index(0)? as usize + comp)?,
            _ => return None,
        }?;
        match op.modifier {
            Modifier::None => Some(v),
            Modifier::Neg if inst.opcode != Opcode::Mov => Some(int::ineg(v)),
            _ => None,
        }
    }

    /// Component `c` of scalar instruction `inst`, when its sources are known.
    fn eval(&self, inst: &Instruction, c: usize) -> Option<u32> {
        let src = |i: usize| {
            let op = inst.operands.get(i)?;
            self.operand(inst, i, src_comp(op, c))
        };
        use Opcode::*;
        let binary: fn(u32, u32) -> u32 = match inst.opcode {
            Mov => return src(1),
            INeg => return Some(int::ineg(src(1)?)),
            Not => return Some(int::not(src(1)?)),
            IMad => return Some(int::imad(src(1)?, src(2)?, src(3)?)),
            UMad => return Some(int::umad(src(1)?, src(2)?, src(3)?)),
            IAdd => int::iadd,
            IShl => int::ishl,
            UShr => int::ushr,
            IShr => int::ishr,
            And => int::and,
            Or => int::or,
            Xor => int::xor,
            IMin => int::imin,
            IMax => int::imax,
            UMin => int::umin,
            UMax => int::umax,
            IEq => int::ieq,
            INe => int::ine,
            ILt => int::ilt,
            IGe => int::ige,
            ULt => int::ult,
            UGe => int::uge,
            _ => return None,
        };
        Some(binary(src(1)?, src(2)?))
    }
}

/// How many instructions back [`Lower::known`] follows a value.
const KNOWN_DEPTH: u32 = 16;

impl Lower<'_, '_> {
    /// The value of the integer `v` when the builder's instructions fix
    /// it (constants and integer arithmetic on them, as an unrolled
    /// copy's spans compute), zero-extended from its type; Cranelift
    /// folds the same when it optimises, this lets the lowering leave
    /// out a batch loop that never runs instead of compiling it.
    ///
    /// Each value's answer is kept with the depth it was found at
    /// ([`Lower::known_values`]; a value's instruction never changes), so
    /// a value shared by many others is looked at once per depth.
    pub(super) fn known(&mut self, v: Value) -> Option<u64> {
        self.known_at(v, KNOWN_DEPTH)
    }

    fn known_at(&mut self, v: Value, depth: u32) -> Option<u64> {
        match self.known_values.get(&v) {
            Some(&(x @ Some(_), _)) => return x,
            Some(&(None, d)) if d >= depth => return None,
            _ => {}
        }
        let x = self.known_eval(v, depth);
        self.known_values.insert(v, (x, depth));
        x
    }

    fn known_eval(&mut self, v: Value, depth: u32) -> Option<u64> {
        use cranelift_codegen::ir::{InstructionData as D, Opcode as C, ValueDef};
        let dfg = &self.b.func.dfg;
        let ty = dfg.value_type(v);
        if !ty.is_int() || ty.bits() > 64 || depth == 0 {
            return None;
        }
        let ValueDef::Result(inst, 0) = dfg.value_def(v) else {
            return None;
        };
        let bits = ty.bits();
        let wrap = |x: u64| {
            if bits == 64 {
                x
            } else {
                x & ((1u64 << bits) - 1)
            }
        };
        let signed = |x: u64| ((x << (64 - bits)) as i64) >> (64 - bits);
        let data = dfg.insts[inst];
        let type_bits = |a: Value| dfg.value_type(a).bits();
        let from = match data {
            D::Unary { arg: a, .. } | D::IntCompare { args: [a, _], .. } => type_bits(a),
            _ => 0,
        };
        let mut arg = |a: Value| self.known_at(a, depth - 1);
        let out = match data {
            D::UnaryImm {
                opcode: C::Iconst,
                imm,
            } => imm.bits() as u64,
            D::Unary { opcode, arg: a } => {
                let x = arg(a)?;
                match opcode {
                    C::Uextend | C::Ireduce => x,
                    C::Sextend => (((x << (64 - from)) as i64) >> (64 - from)) as u64,
                    C::Ineg => x.wrapping_neg(),
                    C::Bnot => !x,
                    _ => return None,
                }
            }
            // A value less itself, whatever it is (a row's start, the
            // flat id less the x id of a group of one row).
            D::Binary {
                opcode: C::Isub | C::Bxor,
                args: [a, b],
            } if a == b => 0,
            D::Binary {
                opcode,
                args: [a, b],
            } => {
                let (x, y) = (arg(a)?, arg(b)?);
                let (sx, sy) = (signed(x), signed(y));
                let amount = (y % u64::from(bits)) as u32;
                match opcode {
                    C::Iadd => x.wrapping_add(y),
                    C::Isub => x.wrapping_sub(y),
                    C::Imul => x.wrapping_mul(y),
                    C::Band => x & y,
                    C::Bor => x | y,
                    C::Bxor => x ^ y,
                    C::Ishl => x << amount,
                    C::Ushr => x >> amount,
                    C::Sshr => (sx >> amount) as u64,
                    C::Umin => x.min(y),
                    C::Umax => x.max(y),
                    C::Smin => sx.min(sy) as u64,
                    C::Smax => sx.max(sy) as u64,
                    _ => return None,
                }
            }
            D::IntCompare {
                opcode: C::Icmp,
                cond,
                args: [a, b],
            } => {
                let (x, y) = (arg(a)?, arg(b)?);
                let s = |x: u64| ((x << (64 - from)) as i64) >> (64 - from);
                u64::from(icmp(cond, x, y, s(x), s(y)))
            }
            D::Ternary {
                opcode: C::Select,
                args: [c, a, b],
            } => {
                if arg(c)? != 0 {
                    arg(a)?
                } else {
                    arg(b)?
                }
            }
            _ => return None,
        };
        Some(wrap(out))
    }
}

/// `icmp cond` on values known as unsigned `x, y` and signed `sx, sy`.
fn icmp(cond: IntCC, x: u64, y: u64, sx: i64, sy: i64) -> bool {
    match cond {
        IntCC::Equal => x == y,
        IntCC::NotEqual => x != y,
        IntCC::UnsignedLessThan => x < y,
        IntCC::UnsignedLessThanOrEqual => x <= y,
        IntCC::UnsignedGreaterThan => x > y,
        IntCC::UnsignedGreaterThanOrEqual => x >= y,
        IntCC::SignedLessThan => sx < sy,
        IntCC::SignedLessThanOrEqual => sx <= sy,
        IntCC::SignedGreaterThan => sx > sy,
        IntCC::SignedGreaterThanOrEqual => sx >= sy,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trips(text: &str) -> Vec<(usize, u32)> {
        let program = crate::asm::parse_program(text).expect("parse");
        let p = crate::analysis::prepare(&program).expect("prepare");
        let plan = GroupPlan::new(&p, p.program.insts.len()).expect("a group plan");
        let t = Trips::of(&p, &plan);
        let mut v: Vec<(usize, u32)> = t.0.into_iter().collect();
        v.sort();
        v
    }

    const HEAD: &str = "cs_5_0\ndcl_temps 2\ndcl_tgsm_structured g0, 4, 64\n\
                        dcl_input vThreadIDInGroupFlattened\ndcl_thread_group 64, 1, 1\n";

    fn halving(start: u32, step: &str) -> String {
        format!(
            "{HEAD}mov r0.y, l({start})\nloop\n  ieq r0.z, r0.y, l(0)\n  breakc_nz r0.z\n\
             store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), r0.y\n  sync_g_t\n\
             {step}\nendloop\nret\n"
        )
    }

    #[test]
    fn a_halving_loop_runs_once_per_bit() {
        let text = halving(32, "ushr r0.y, r0.y, l(1)");
        let insts = crate::asm::parse_program(&text).unwrap().insts;
        let at = insts.iter().position(|i| i.opcode == Opcode::Loop).unwrap();
        // 32, 16, 8, 4, 2, 1 reach the end; 0 breaks.
        assert_eq!(trips(&text), vec![(at, 6)]);
        assert_eq!(trips(&halving(0, "ushr r0.y, r0.y, l(1)")), vec![(at, 0)]);
    }

    #[test]
    fn unknown_or_long_loops_have_no_count() {
        // A counter that never reaches 0 within the limit.
        assert_eq!(trips(&halving(32, "iadd r0.y, r0.y, l(1)")), vec![]);
        // A counter from a constant buffer: group-uniform, unknown.
        let from_cb = halving(32, "ushr r0.y, r0.y, l(1)")
            .replace("mov r0.y, l(32)", "mov r0.y, cb0[0].x")
            .replace(
                "dcl_temps",
                "dcl_constantbuffer cb0[1], immediateIndexed\ndcl_temps",
            );
        assert_eq!(trips(&from_cb), vec![]);
    }

    #[test]
    fn counts_follow_the_interpreters_integer_rules() {
        // Down by a negated register: 4, 3, 2, 1 reach the end.
        let text =
            halving(4, "iadd r0.y, r0.y, -r1.x").replace("mov r0.y", "mov r1.x, l(1)\nmov r0.y");
        assert_eq!(trips(&text).first().map(|t| t.1), Some(4));
        // A shift takes its amount modulo 32: `ishl 1, 33` is 2.
        let text = halving(1, "ishl r0.y, r0.y, l(33)\nand r0.y, r0.y, l(7)");
        // 1, 2, 4 reach the end; 8 & 7 is 0.
        assert_eq!(trips(&text).first().map(|t| t.1), Some(3));
    }
}
