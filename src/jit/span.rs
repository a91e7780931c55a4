//! The batches a group-level region can act on (tier 1).
//!
//! In: a region of a [`super::group::GroupPlan`] whose code is quiet
//! register arithmetic followed by one `if` (no `else`) on a comparison
//! of the flat thread id with a group-uniform value, as reduce's
//! `if (tid < s)` and a final `if (tid == 0)`. Out: a [`Span`]: the
//! comparison as an interval of flat thread ids, and the lowering that
//! turns it into the first batch and the batch count the region loop
//! runs, so the batches holding no thread of the interval are never
//! entered.
//!
//! Invariant: a batch left out would have changed nothing. No lane of it
//! enters the `if`; the arithmetic before it writes only r# components
//! dead after the region; every component the region stores at its end
//! was loaded from the batch's save area at its start, so a batch left
//! out keeps it; and no component the group keeps as a scalar after the
//! region is written in it. The batch of flat thread `t` is `t / W`
//! (`runner.rs`, `BatchContext::set_lanes`).

use cranelift_codegen::ir::{condcodes::IntCC, types, InstBuilder, Value};

use super::context::W;
use super::liveness::Liveness;
use super::lower::Lower;
use super::uniform::{first_comp, src_comp, Uniform};
use crate::analysis::Prepared;
use crate::ir::{Instruction, Modifier, OpClass, Opcode, Operand, OperandType};

/// The flat thread ids `t` a region's `if` can admit: `t rel bound`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Span {
    pub rel: Rel,
    /// Whether the comparison is signed (`ilt`, `ige`).
    pub signed: bool,
    pub bound: Bound,
}

/// How the flat thread id `t` compares with the bound `s`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rel {
    /// `t < s`
    Below,
    /// `t >= s`
    AtLeast,
    /// `t > s`
    Above,
    /// `t <= s`
    AtMost,
    /// `t == s`
    Equal,
}

/// The value a flat thread id is compared with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Bound {
    Literal(u32),
    /// Source `operand` of instruction `at`, component `comp`: group-
    /// uniform there, and holding the value it has at the region's start.
    Operand {
        at: usize,
        operand: usize,
        comp: usize,
    },
}

/// The facts [`span`] reads.
pub struct Facts<'a> {
    pub p: &'a Prepared,
    pub group: &'a Uniform,
    pub live: &'a Liveness,
    pub risk: &'a [bool],
}

/// The span of region `start..end`, when it has one (module doc).
pub fn span(f: &Facts, start: usize, end: usize) -> Option<Span> {
    let insts = &f.p.program.insts;
    let last = end.checked_sub(1)?;
    if insts.get(last)?.opcode != Opcode::EndIf {
        return None;
    }
    let at_if = (start..last).find(|&k| !quiet(&insts[k]))?;
    if insts[at_if].opcode != Opcode::If || !single_if(&insts[at_if..last]) {
        return None;
    }
    if !skipping_is_invisible(f, start, at_if, end) {
        return None;
    }
    let test = insts[at_if].operands.first()?;
    let nz = insts[at_if].test_nz();
    if test.modifier != Modifier::None {
        return None;
    }
    if is_flat_id(f.p, test, first_comp(test)) {
        // `if_z t`: t == 0; `if_nz t` admits every batch but the first's
        // thread 0, which is no interval worth a span.
        return (!nz).then_some(Span {
            rel: Rel::Equal,
            signed: false,
            bound: Bound::Literal(0),
        });
    }
    if test.ty != OperandType::Temp {
        return None;
    }
    let (r, c) = (test.imm_index(0)?, first_comp(test));
    let k = (start..at_if).rev().find(|&k| writes(&insts[k], r, c))?;
    let span = compare(f, start, k, c)?;
    if nz {
        Some(span)
    } else {
        span.inverted()
    }
}

impl Span {
    /// The span of the complement (`if_z` on the comparison), when it is
    /// an interval.
    fn inverted(self) -> Option<Span> {
        let rel = match self.rel {
            Rel::Below => Rel::AtLeast,
            Rel::AtLeast => Rel::Below,
            Rel::Above => Rel::AtMost,
            Rel::AtMost => Rel::Above,
            Rel::Equal => return None,
        };
        Some(Span { rel, ..self })
    }
}

/// Whether `inst` only computes r# components from registers (no
/// memory, no control, no side effect).
fn quiet(inst: &Instruction) -> bool {
    let class = inst.opcode.class();
    matches!(
        class,
        OpClass::Float
            | OpClass::Int
            | OpClass::Compare
            | OpClass::Convert
            | OpClass::Move
            | OpClass::Double
    ) && inst
        .operands
        .iter()
        .take(inst.opcode.dst_count())
        .all(|d| matches!(d.ty, OperandType::Temp | OperandType::Null))
        && inst
            .operands
            .iter()
            .all(|o| !matches!(o.ty, OperandType::Uav | OperandType::Tgsm))
}

/// Whether `insts` (from an `if` to just before an `endif`) is that
/// `if`'s body, with no `else`: the `endif` closes it.
fn single_if(insts: &[Instruction]) -> bool {
    let mut depth = 0usize;
    for inst in insts {
        match inst.opcode {
            Opcode::Loop | Opcode::If | Opcode::Switch => depth += 1,
            Opcode::EndLoop | Opcode::EndIf | Opcode::EndSwitch => {
                depth -= 1;
                if depth == 0 {
                    return false;
                }
            }
            Opcode::Else if depth == 1 => return false,
            _ => {}
        }
    }
    depth == 1
}

/// Whether `inst` writes `r#.c`.
fn writes(inst: &Instruction, r: u32, c: usize) -> bool {
    inst.operands.iter().take(inst.opcode.dst_count()).any(|d| {
        d.ty == OperandType::Temp && d.imm_index(0) == Some(r) && d.write_mask() & (1 << c) != 0
    })
}

/// The r# component bits (`4 * r + c`) `insts` may write (every
/// component for a dynamically indexed destination).
pub(super) fn written(insts: &[Instruction], bits: usize) -> Vec<bool> {
    let mut out = vec![false; bits];
    for inst in insts {
        for d in inst.operands.iter().take(inst.opcode.dst_count()) {
            if d.ty != OperandType::Temp {
                continue;
            }
            match d.imm_index(0) {
                Some(r) => {
                    for c in (0..4).filter(|c| d.write_mask() & (1 << c) != 0) {
                        if let Some(b) = out.get_mut(4 * r as usize + c) {
                            *b = true;
                        }
                    }
                }
                None => out.iter_mut().for_each(|b| *b = true),
            }
        }
    }
    out
}

/// The register rules of the module doc, for region `start..end` whose
/// `if` is at `at_if`.
fn skipping_is_invisible(f: &Facts, start: usize, at_if: usize, end: usize) -> bool {
    let insts = &f.p.program.insts;
    let bits = 4 * f.p.temps as usize;
    let before = written(&insts[start..at_if], bits);
    let all = written(&insts[start..end], bits);
    (0..bits).all(|b| {
        let (r, c) = ((b / 4) as u32, b % 4);
        let live_end = f.live.live_at(end, r, c);
        let kept = f.group.uniform_at(end, r, c) && !f.risk[b];
        let loaded = f.live.live_at(start, r, c) && !f.group.uniform_at(start, r, c);
        let stored = live_end && !kept;
        !(before[b] && live_end) && (!stored || loaded) && !(kept && live_end && all[b])
    })
}

/// Whether `op` (component `comp`) is the flat thread id in the group.
fn is_flat_id(p: &Prepared, op: &Operand, comp: usize) -> bool {
    op.modifier == Modifier::None
        && match op.ty {
            OperandType::ThreadIdInGroupFlattened => true,
            OperandType::ThreadIdInGroup => {
                comp == 0 && p.group_size[1] == 1 && p.group_size[2] == 1
            }
            _ => false,
        }
}

/// The span of the comparison at `k` whose component `c` the `if` tests.
fn compare(f: &Facts, start: usize, k: usize, c: usize) -> Option<Span> {
    let inst = &f.p.program.insts[k];
    let (rel, signed) = match inst.opcode {
        Opcode::ULt => (Rel::Below, false),
        Opcode::ILt => (Rel::Below, true),
        Opcode::UGe => (Rel::AtLeast, false),
        Opcode::IGe => (Rel::AtLeast, true),
        Opcode::IEq => (Rel::Equal, false),
        _ => return None,
    };
    let (a, b) = (inst.operands.get(1)?, inst.operands.get(2)?);
    let (ca, cb) = (src_comp(a, c), src_comp(b, c));
    let (rel, operand, comp) = if is_flat_id(f.p, a, ca) {
        (rel, 2, cb)
    } else if is_flat_id(f.p, b, cb) {
        // `s < t` is `t > s`; `s >= t` is `t <= s`.
        let flipped = match rel {
            Rel::Below => Rel::Above,
            Rel::AtLeast => Rel::AtMost,
            other => other,
        };
        (flipped, 1, ca)
    } else {
        return None;
    };
    let op = &inst.operands[operand];
    if !f.group.operand_uniform_at(k, op, comp) || !stable(f, op, comp, start, k) {
        return None;
    }
    Some(Span {
        rel,
        signed,
        bound: Bound::Operand {
            at: k,
            operand,
            comp,
        },
    })
}

/// Whether `op` (register component `comp`) holds at instruction `k`
/// what it held at `start`, so the region's entry can read it: a literal,
/// a cb# at a literal row, the group id, or an r# component that no
/// instruction of `start..k` writes and that is group-uniform at `start`
/// (its group scalar then holds it). `op` is group-uniform at `k`.
fn stable(f: &Facts, op: &Operand, comp: usize, start: usize, k: usize) -> bool {
    match op.ty {
        OperandType::Imm32 | OperandType::ThreadGroupId | OperandType::ConstantBuffer => true,
        OperandType::Temp => op.imm_index(0).is_some_and(|r| {
            f.group.uniform_at(start, r, comp)
                && !f.p.program.insts[start..k]
                    .iter()
                    .any(|i| writes(i, r, comp))
        }),
        _ => false,
    }
}

impl Lower<'_, '_> {
    /// The first batch and the number of batches (at most `count`) that
    /// hold a flat thread id in `span`; read at the region's entry, at the
    /// group level.
    pub(super) fn span_batches(&mut self, span: &Span, count: Value) -> (Value, Value) {
        let (lo, hi) = self.span_threads(span, count);
        let zero = self.b.ins().iconst(types::I64, 0);
        let shift = W.trailing_zeros() as i64;
        let first = self.b.ins().ushr_imm_u(lo, shift);
        let round = self.b.ins().iadd_imm_s(hi, W as i64 - 1);
        let stop = self.b.ins().ushr_imm_u(round, shift);
        let n = self.b.ins().isub(stop, first);
        let empty = self.b.ins().icmp(IntCC::SignedLessThan, n, zero);
        let n = self.b.ins().select(empty, zero, n);
        let n = self.b.ins().ireduce(types::I32, n);
        (first, n)
    }

    /// The flat thread ids `lo .. hi` (i64, within `0 ..= 8 * count`)
    /// whose lanes pass `span`'s test: exactly those, so a batch whose
    /// ids all lie in the range has every lane in the `if`.
    pub(super) fn span_threads(&mut self, span: &Span, count: Value) -> (Value, Value) {
        let s = match &span.bound {
            Bound::Literal(v) => self.b.ins().iconst(types::I32, i64::from(*v as i32)),
            Bound::Operand { at, operand, comp } => {
                let op = &self.p.program.insts[*at].operands[*operand];
                self.uniform_src(op, *comp)
            }
        };
        let s = if span.signed {
            self.b.ins().sextend(types::I64, s)
        } else {
            self.b.ins().uextend(types::I64, s)
        };
        let zero = self.b.ins().iconst(types::I64, 0);
        let n64 = self.b.ins().uextend(types::I64, count);
        let lanes = self.b.ins().imul_imm_s(n64, W as i64);
        let s1 = self.b.ins().iadd_imm_s(s, 1);
        // Threads lo..hi (i64: a sign-extended bound below 0 and an
        // unsigned bound past 2^31 both compare as the u32/i32 op does).
        let (lo, hi) = match span.rel {
            Rel::Below => (zero, s),
            Rel::AtLeast => (s, lanes),
            Rel::Above => (s1, lanes),
            Rel::AtMost => (zero, s1),
            Rel::Equal => (s, s1),
        };
        let lo = self.clamp(lo, zero, lanes);
        let hi = self.clamp(hi, zero, lanes);
        (lo, hi)
    }

    /// `v` limited to `lo..=hi` (i64, signed).
    fn clamp(&mut self, v: Value, lo: Value, hi: Value) -> Value {
        let below = self.b.ins().icmp(IntCC::SignedLessThan, v, lo);
        let v = self.b.ins().select(below, lo, v);
        let above = self.b.ins().icmp(IntCC::SignedGreaterThan, v, hi);
        self.b.ins().select(above, hi, v)
    }
}

#[cfg(test)]
mod tests {
    use super::super::group::{GroupPlan, Item};
    use super::*;

    /// The spans of `body`'s regions, in order, in a 64-thread group
    /// (`size`: the `dcl_thread_group` line's numbers).
    fn spans(size: &str, body: &str) -> Vec<Option<Span>> {
        let text = format!(
            "cs_5_0\n\
            dcl_constantbuffer cb0[1], immediateIndexed\n\
            dcl_uav_raw u0\n\
            dcl_input vThreadIDInGroupFlattened\n\
            dcl_input vThreadIDInGroup.xy\n\
            dcl_temps 3\n\
            dcl_tgsm_structured g0, 4, 64\n\
            dcl_thread_group {size}\n\
            {body}ret\n"
        );
        let program = crate::asm::parse_program(&text).expect("assembles");
        let p = crate::analysis::prepare(&program).expect("prepares");
        let plan = GroupPlan::new(&p, p.program.insts.len()).expect("qualifies");
        fn walk(items: &[Item], out: &mut Vec<Option<Span>>) {
            for item in items {
                match item {
                    Item::Region { span, .. } => out.push(span.clone()),
                    Item::Loop { body, .. } => walk(body, out),
                    _ => {}
                }
            }
        }
        let mut out = Vec::new();
        walk(&plan.items, &mut out);
        out
    }

    /// A region testing `cond` (an instruction writing r1.x) then storing
    /// to g0 under `if_nz` or `if_z`, ending at a barrier.
    fn guarded(cond: &str, test: &str) -> String {
        format!(
            "{cond}\n\
            {test} r1.x\n\
              store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), l(1)\n\
            endif\n\
            sync_g_t\n"
        )
    }

    fn at(rel: Rel, signed: bool, operand: usize, comp: usize) -> Option<Span> {
        Some(Span {
            rel,
            signed,
            bound: Bound::Operand {
                at: 0,
                operand,
                comp,
            },
        })
    }

    #[test]
    fn each_comparison_of_the_flat_id_gives_its_interval() {
        let t = "vThreadIDInGroupFlattened.x";
        let cases = [
            (
                format!("ult r1.x, {t}, cb0[0].y"),
                "if_nz",
                at(Rel::Below, false, 2, 1),
            ),
            (
                format!("ult r1.x, {t}, cb0[0].y"),
                "if_z",
                at(Rel::AtLeast, false, 2, 1),
            ),
            (
                format!("ilt r1.x, cb0[0].z, {t}"),
                "if_nz",
                at(Rel::Above, true, 1, 2),
            ),
            (
                format!("ilt r1.x, cb0[0].z, {t}"),
                "if_z",
                at(Rel::AtMost, true, 1, 2),
            ),
            (
                format!("uge r1.x, {t}, l(9)"),
                "if_nz",
                at(Rel::AtLeast, false, 2, 0),
            ),
            (
                format!("ige r1.x, l(9), {t}"),
                "if_nz",
                at(Rel::AtMost, true, 1, 0),
            ),
            (
                format!("ieq r1.x, {t}, cb0[0].w"),
                "if_nz",
                at(Rel::Equal, false, 2, 3),
            ),
            (format!("ieq r1.x, {t}, cb0[0].w"), "if_z", None),
            (format!("ine r1.x, {t}, cb0[0].w"), "if_nz", None),
            // vThreadIDInGroup.x is the flat id only in a one-row group.
            (
                "ult r1.x, vThreadIDInGroup.x, l(5)".into(),
                "if_nz",
                at(Rel::Below, false, 2, 0),
            ),
            // A per-thread bound.
            (format!("ult r1.x, {t}, vThreadIDInGroup.y"), "if_nz", None),
        ];
        for (cond, test, want) in cases {
            let got = spans("64, 1, 1", &guarded(&cond, test));
            assert_eq!(got, vec![want], "{cond} / {test}");
        }
        let two_rows = spans(
            "32, 2, 1",
            &guarded("ult r1.x, vThreadIDInGroup.x, l(5)", "if_nz"),
        );
        assert_eq!(two_rows, vec![None]);
        // The thread id itself as the condition.
        let zero = format!("if_z {t}\n  store_raw u0.x, l(0), l(1)\nendif\n");
        let want = Span {
            rel: Rel::Equal,
            signed: false,
            bound: Bound::Literal(0),
        };
        assert_eq!(spans("64, 1, 1", &zero), vec![Some(want)]);
        let nonzero = zero.replace("if_z", "if_nz");
        assert_eq!(spans("64, 1, 1", &nonzero), vec![None]);
    }

    #[test]
    fn a_batch_left_out_must_change_nothing() {
        let t = "vThreadIDInGroupFlattened.x";
        let cond = format!("ult r1.x, {t}, cb0[0].x");
        // The plain case first.
        assert!(spans("64, 1, 1", &guarded(&cond, "if_nz"))[0].is_some());
        let cases = [
            // An `else` runs in the batches the `if` leaves out.
            guarded(&cond, "if_nz").replace(
                "endif",
                "else\n  store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), l(2)\nendif",
            ),
            // Memory before the `if`.
            format!("store_raw u0.x, l(0), l(1)\n{}", guarded(&cond, "if_nz")),
            // A value computed before the `if` and read after the region.
            format!(
                "iadd r2.x, {t}, l(1)\n{}store_raw u0.x, l(0), r2.x\n",
                guarded(&cond, "if_nz")
            ),
            // The bound written in the region before the comparison.
            // (behind a per-thread `mov`, so the region starts before it).
            format!(
                "mov r2.y, {t}\nmov r0.x, cb0[0].y\n{}",
                guarded(&format!("ult r1.x, {t}, r0.x"), "if_nz")
            ),
            // Code after the `endif`.
            guarded(&cond, "if_nz").replace(
                "endif\n",
                "endif\nstore_structured g0.x, l(0), l(0), l(3)\n",
            ),
        ];
        for body in cases {
            assert_eq!(spans("64, 1, 1", &body)[0], None, "{body}");
        }
        // A per-thread value the region stores: loaded at its start, so a
        // batch left out keeps it.
        let sum = format!(
            "mov r2.x, {t}\nsync_g_t\n\
            {cond}\nif_nz r1.x\n  iadd r2.x, r2.x, l(1)\nendif\nsync_g_t\n\
            store_raw u0.x, l(0), r2.x\n"
        );
        assert!(spans("64, 1, 1", &sum)[1].is_some());
        // Set to the group's zero before the region and per-thread after
        // it: a batch left out would never store it.
        let zeroed = sum.replace(&format!("mov r2.x, {t}"), "mov r2.x, l(0)");
        // (the `mov` is a group scalar: the `if`'s region comes first).
        let got = spans("64, 1, 1", &zeroed);
        assert_eq!((got.len(), &got[0]), (2, &None));
    }
}
