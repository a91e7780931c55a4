//! Which temp-register components hold bits anybody can see, so float
//! results written elsewhere can skip NaN canonicalisation.
//!
//! In: a prepared program. Out: per `r#` register, four booleans; `false`
//! ("unobserved") means every instruction that reads the component reads
//! it as a float operand of an operation whose result does not depend on
//! a NaN operand's bits (float arithmetic, min/max, comparisons, `ftoi`/
//! `ftou`, `_sat`), or copies it (`mov`, `movc`, `swapc`) into another
//! unobserved component. Everything else observes: stores, outputs,
//! integer and bit ops, conditions, indices, shims, doubles, unknown
//! opcodes. Invariant: the answer is flow-insensitive (the least fixpoint
//! of "a component is observed when some read of it is payload-sensitive
//! or copies it into an observed place"), so it holds at every program
//! point, in every lane. A NaN with a non-canonical payload in an
//! unobserved component changes no result: every consumer maps it to the
//! same result any NaN gives (a NaN, canonicalised before it becomes
//! visible, or a comparison result, or 0), so the JIT matches the
//! interpreter, which canonicalises every NaN it produces, bit for bit.

use crate::asm::names::dst_count;
use crate::interp::Prepared;
use crate::ir::{Components, Index, Instruction, Opcode, Operand, OperandType, Selection};

/// The components of every temp register whose bits are observed.
pub fn observed_temps(p: &Prepared) -> Vec<[bool; 4]> {
    let insts = &p.program.insts;
    let mut state = vec![[false; 4]; p.temps as usize];
    loop {
        let mut changed = false;
        for inst in insts {
            changed |= visit(inst, &mut state);
        }
        if !changed {
            return state;
        }
    }
}

/// Whether every destination component `inst` writes is an unobserved r#
/// component (so its float results may keep any NaN payload).
pub fn writes_unobserved(inst: &Instruction, observed: &[[bool; 4]]) -> bool {
    let dsts = dst_count(inst.opcode);
    inst.operands.iter().take(dsts).all(|d| match d.ty {
        OperandType::Null => true,
        OperandType::Temp => {
            let Some(r) = d.imm_index(0).and_then(|r| observed.get(r as usize)) else {
                return false;
            };
            let m = d.write_mask();
            (0..4).all(|c| m & (1 << c) == 0 || !r[c])
        }
        _ => false,
    })
}

/// How an instruction reads its source operands.
enum Reads {
    /// Payload-insensitive float operands: nothing observed.
    Float,
    /// Copies: sources `from..` go to the destinations component-wise;
    /// the source operands before `from` are observed.
    Copy { from: usize },
    /// Anything else: every temp component read is observed.
    Observes,
}

fn reads(inst: &Instruction) -> Reads {
    use Opcode::*;
    match inst.opcode {
        Add | Mul | Div | Mad | Min | Max | Sqrt | RoundNe | RoundNi | RoundPi | RoundZ | Rcp
        | Frc | Eq | Ne | Lt | Ge | Ftoi | Ftou | Dp2 | Dp3 | Dp4 => Reads::Float,
        // `_sat` reads through min/max.
        Mov if inst.saturate() => Reads::Float,
        Mov => Reads::Copy { from: 0 },
        // The condition is observed; the selected values are copied
        // (through min/max with `_sat`, which only observes less).
        Movc | Swapc => Reads::Copy { from: 1 },
        _ => Reads::Observes,
    }
}

/// Applies one instruction's reads to `state`; true when anything changed.
fn visit(inst: &Instruction, state: &mut [[bool; 4]]) -> bool {
    let dsts = dst_count(inst.opcode);
    let mut changed = false;
    let mut mark = |state: &mut [[bool; 4]], r: u32, c: usize| {
        if let Some(s) = state.get_mut(r as usize) {
            if !s[c & 3] {
                s[c & 3] = true;
                changed = true;
            }
        }
    };
    // Relative indices are integer reads, in every operand.
    for op in &inst.operands {
        for_index_temps(op, &mut |r, c| mark(state, r, c));
    }
    let how = reads(inst);
    // Whether component `c` of some destination is observed (a non-temp
    // destination always is).
    let dst_observed = |state: &[[bool; 4]], c: usize| {
        inst.operands.iter().take(dsts).any(|d| match d.ty {
            OperandType::Null => false,
            OperandType::Temp => match d.imm_index(0).and_then(|r| state.get(r as usize)) {
                Some(s) => d.write_mask() & (1 << c) != 0 && s[c],
                None => true,
            },
            _ => d.write_mask() & (1 << c) != 0,
        })
    };
    for (k, op) in inst.operands.iter().enumerate().skip(dsts) {
        if op.ty != OperandType::Temp {
            continue;
        }
        let Some(r) = op.imm_index(0) else {
            // Not lowered by the JIT; observe the whole register set.
            for r in 0..state.len() {
                for c in 0..4 {
                    mark(state, r as u32, c);
                }
            }
            continue;
        };
        match how {
            Reads::Float => {}
            Reads::Copy { from } if k - dsts >= from => {
                for c in 0..4 {
                    if dst_observed(state, c) {
                        mark(state, r, source_comp(op, c));
                    }
                }
            }
            _ => {
                for c in read_comps(op) {
                    mark(state, r, c);
                }
            }
        }
    }
    changed
}

/// The component of `op` destination component `c` reads (as `src`).
fn source_comp(op: &Operand, c: usize) -> usize {
    match op.comps {
        Components::One | Components::Zero => 0,
        _ => usize::from(op.swizzle()[c & 3] & 3),
    }
}

/// Every component of `op` an instruction may read.
fn read_comps(op: &Operand) -> Vec<usize> {
    match op.comps {
        Components::Zero => vec![],
        Components::One => vec![0],
        Components::Four(Selection::Mask(m)) => (0..4).filter(|c| m & (1 << c) != 0).collect(),
        Components::Four(_) => op.swizzle().iter().map(|&c| usize::from(c & 3)).collect(),
    }
}

/// Calls `f(register, component)` for every temp component the relative
/// indices of `op` read (recursively).
fn for_index_temps(op: &Operand, f: &mut dyn FnMut(u32, usize)) {
    for idx in &op.indices {
        let rel = match idx {
            Index::Relative(o)
            | Index::Imm32PlusRelative(_, o)
            | Index::Imm64PlusRelative(_, o) => o,
            Index::Imm32(_) | Index::Imm64(_) => continue,
        };
        if rel.ty == OperandType::Temp {
            match rel.imm_index(0) {
                Some(r) => {
                    for c in read_comps(rel) {
                        f(r, c);
                    }
                }
                None => {
                    for c in 0..4 {
                        f(u32::MAX, c);
                    }
                }
            }
        }
        for_index_temps(rel, f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::Interpreter;

    fn temps(src: &str) -> (Prepared, Vec<[bool; 4]>) {
        let p = crate::asm::parse_program(src).expect("parse");
        let prepared = Interpreter::new(&p).expect("prepare").prepared().clone();
        let o = observed_temps(&prepared);
        (prepared, o)
    }

    #[test]
    fn a_float_only_loop_is_unobserved_and_stores_observe() {
        let (p, t) = temps(
            "cs_5_0
dcl_constantbuffer CB0[1], immediateIndexed
dcl_uav_raw u0
dcl_temps 4
dcl_thread_group 1, 1, 1
mov r0.xyz, l(0, 0, 0, 0)
loop
  mul r1.x, r0.x, r0.x
  mad r0.x, r1.x, cb0[0].x, r0.y
  lt r2.x, l(4.0), r0.x
  breakc_nz r2.x
  mov r3.x, r0.y
  mov r3.y, r0.z
  iadd r0.w, r0.w, l(1)
endloop
store_raw u0.xy, l(0), r3.yw
ret
",
        );
        // r0.x, r0.y (copied to the unobserved r3.x) and r1.x only meet
        // float ops; r2.x is a condition; r0.z reaches the store through
        // r3.y; r0.w is an integer.
        assert_eq!(t[0], [false, false, true, true]);
        assert_eq!(t[1], [false; 4]);
        assert!(t[2][0]);
        assert_eq!(t[3], [false, true, false, true]);
        let insts = &p.program.insts;
        let mul = insts.iter().find(|i| i.opcode == Opcode::Mul).unwrap();
        assert!(writes_unobserved(mul, &t));
        let lt = insts.iter().find(|i| i.opcode == Opcode::Lt).unwrap();
        assert!(!writes_unobserved(lt, &t));
    }

    #[test]
    fn integer_ops_and_indices_observe() {
        let (_, t) = temps(
            "cs_5_0
dcl_constantbuffer CB0[4], dynamicIndexed
dcl_temps 3
dcl_thread_group 1, 1, 1
add r0.x, r0.y, r0.z
and r1.x, r0.x, l(0x7fffffff)
add r2.x, cb0[r0.w + 0].x, r2.y
ret
",
        );
        assert_eq!(t[0], [true, false, false, true]);
        assert_eq!(t[2], [false; 4]);
    }
}
