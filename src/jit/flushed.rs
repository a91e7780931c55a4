//! Which temp-register components only ever hold flushed values, so float
//! instructions reading them can skip the input flush.
//!
//! In: a prepared program. Out: per `r#` register, four booleans; `true`
//! means every value that component can ever hold — its initial zero and
//! the result of every instruction in the program that writes it —
//! satisfies `sem::float::flush(x) == x` bit for bit (not a denormal).
//! Float results nobody observes (`observed.rs`) skip `finish`, so
//! arithmetic whose result is unobserved does not count as flushed.
//! Invariant: the answer is flow-insensitive and inductive (the greatest
//! fixpoint of "every write of the component produces a flushed value if
//! the components it copies from hold flushed values"), so it holds at
//! every program point, in every lane, whatever path the lanes took; an
//! instruction this module does not know about makes its destinations
//! `false`. Skipping a flush on such a value returns the same bits as
//! flushing it, so results never change.

use crate::analysis::Prepared;
use crate::ir::{Instruction, Opcode, Operand, OperandType};
use crate::sem::float::flush;

use super::late::Late;
use super::observed::Observed;

/// Whether the bits `x` are unchanged by the denormal flush.
pub fn is_flushed_bits(x: u32) -> bool {
    flush(f32::from_bits(x)).to_bits() == x
}

/// The components of every temp register that only hold flushed values,
/// given which results are observed (`observed.rs`; the JIT finishes
/// float results only where they are).
pub fn flushed_temps(p: &Prepared, observed: &Observed, late: &Late) -> Vec<[bool; 4]> {
    let insts = &p.program.insts;
    let mut state = vec![[true; 4]; p.temps as usize];
    loop {
        let mut changed = false;
        for (k, inst) in insts.iter().enumerate() {
            let finished = !observed.writes_unobserved(k, inst) && !late.deferred(k);
            for dst in inst.operands.iter().take(inst.opcode.dst_count()) {
                if dst.ty != OperandType::Temp {
                    continue;
                }
                let Some(r) = dst.imm_index(0) else {
                    // A relatively indexed r# write could reach any register.
                    state.iter_mut().for_each(|s| *s = [false; 4]);
                    return state;
                };
                let mask = dst.write_mask();
                for c in 0..4 {
                    if mask & (1 << c) == 0 {
                        continue;
                    }
                    let keeps = writes_flushed(inst, c, &state, finished);
                    if let Some(s) = state.get_mut(r as usize) {
                        if s[c] && !keeps {
                            s[c] = false;
                            changed = true;
                        }
                    }
                }
            }
        }
        if !changed {
            return state;
        }
    }
}

/// Whether component `c` of any destination of `inst` is always flushed,
/// given which temp components are (`state`).
fn writes_flushed(inst: &Instruction, c: usize, state: &[[bool; 4]], finished: bool) -> bool {
    use Opcode::*;
    let src = |n: usize| {
        inst.operands
            .get(inst.opcode.dst_count() + n)
            .is_some_and(|op| source_flushed(op, c, state))
    };
    match inst.opcode {
        // `_sat` clamps through min/max, which flush.
        _ if inst.saturate() && finishes_float(inst.opcode) => true,
        // Rounded through `finish` when the result is observed.
        Add | Mul | Div | Mad | Sqrt | RoundNe | RoundNi | RoundPi | RoundZ | Rcp | Frc | Dp2
        | Dp3 | Dp4 => finished,
        // `min`/`max` flush their inputs; shims of `sem::float` finish (or
        // return ±INF, ±0 or canonical NaN).
        Min | Max | Exp | Log | Rsq | SinCos => true,
        // All-ones or zero.
        Eq | Ne | Lt | Ge | IEq | INe | ILt | IGe | ULt | UGe => true,
        // An integer as a float: zero or at least 1 in magnitude.
        Itof | Utof => true,
        // `_sat` clamps through min/max, which flush.
        Mov | Movc if inst.saturate() => true,
        Mov => src(0),
        Movc => src(1) && src(2),
        // Both destinations take one of the two selected sources.
        Swapc => src(1) && src(2),
        _ => false,
    }
}

/// Float ops whose `_sat` runs through min/max.
pub(super) fn finishes_float(op: Opcode) -> bool {
    use Opcode::*;
    matches!(
        op,
        Add | Mul
            | Div
            | Mad
            | Sqrt
            | RoundNe
            | RoundNi
            | RoundPi
            | RoundZ
            | Rcp
            | Frc
            | Dp2
            | Dp3
            | Dp4
    )
}

/// Whether the source component `op` gives destination component `c`
/// (through its swizzle) is always flushed. Float modifiers (neg, abs)
/// keep a value flushed.
fn source_flushed(op: &Operand, c: usize, state: &[[bool; 4]]) -> bool {
    operand_flushed(op, usize::from(op.swizzle()[c & 3] & 3), state)
}

/// Whether component `comp` of `op` (before swizzle and modifiers) always
/// holds flushed values: an always-flushed r# component (`state`) or such
/// an immediate.
pub fn operand_flushed(op: &Operand, comp: usize, state: &[[bool; 4]]) -> bool {
    let comp = comp & 3;
    match op.ty {
        OperandType::Temp => op
            .imm_index(0)
            .and_then(|r| state.get(r as usize))
            .is_some_and(|s| s[comp]),
        OperandType::Imm32 => match op.imm.as_slice() {
            [v] => is_flushed_bits(*v),
            [a, b, cc, d] => is_flushed_bits([*a, *b, *cc, *d][comp]),
            _ => false,
        },
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temps(src: &str) -> Vec<[bool; 4]> {
        let p = crate::asm::parse_program(src).expect("parse");
        let prepared = crate::analysis::prepare(&p).expect("prepare");
        flushed_temps(&prepared, &Observed::all(), &Late::none())
    }

    #[test]
    fn float_results_and_copies_of_them_are_flushed() {
        let t = temps(
            "cs_5_0
dcl_constantbuffer CB0[1], immediateIndexed
dcl_temps 3
dcl_thread_group 1, 1, 1
mov r0.x, l(0)
loop
  mul r1.x, r0.x, r0.x
  add r0.x, r1.x, cb0[0].x
  mov r0.y, r0.x
  mov r2.x, cb0[0].x
  iadd r2.y, r2.y, l(1)
  mov r2.z, l(0x00000001)
  mov_sat r2.w, cb0[0].x
  breakc_nz r0.x
endloop
ret
",
        );
        assert_eq!(t[0], [true; 4]);
        assert_eq!(t[1], [true; 4]);
        // A cb# copy, an integer sum and a denormal immediate are not.
        assert_eq!(t[2], [false, false, false, true]);
    }

    #[test]
    fn a_copy_cycle_with_one_unknown_write_is_unknown() {
        let t = temps(
            "cs_5_0
dcl_constantbuffer CB0[1], immediateIndexed
dcl_temps 2
dcl_thread_group 1, 1, 1
mov r0.x, r1.x
mov r1.x, r0.x
mov r1.x, cb0[0].y
ret
",
        );
        assert!(!t[0][0] && !t[1][0]);
    }

    #[test]
    fn denormal_bits_are_not_flushed_and_zeros_nans_are() {
        assert!(!is_flushed_bits(1));
        assert!(!is_flushed_bits(0x8000_0001));
        assert!(is_flushed_bits(0));
        assert!(is_flushed_bits(0x8000_0000));
        assert!(is_flushed_bits(0xFFFF_FFFF));
        assert!(is_flushed_bits(0x0080_0000));
    }
}
