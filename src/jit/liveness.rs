//! Which temp-register components are live before each instruction of the
//! main program, so a register write can skip the blend with the old
//! value when no lane outside the execution mask can read it again.
//!
//! In: a prepared compute, vertex or pixel program. Out: [`Liveness`]: for instruction `k`
//! of the main program (up to the first label) and component `r#.c`,
//! whether some path from `k` reads `r#.c` before writing it. Invariant:
//! an over-approximation — every read an execution can make is counted:
//! the successors are the interpreter's jumps (`Prepared::jumps`), a
//! `call` reads every register, only ALU instructions and the raw and
//! structured loads (which write every component of their mask in every
//! active lane) end a component's life.
//!
//! Why it is enough: each lane runs one path of this graph. A lane outside
//! `exec` at a write inside a construct continues at one of the
//! construct's resume points (the `else` or the end of an `if`, the exit
//! of a loop, its head after a `continue`); if the component is dead at
//! all of them, that lane never reads the old value, so the write may
//! overwrite it (`Lower::write`). At the top level of a compute program a
//! lane outside `exec` has returned or is past the group's end, and never
//! runs again.

use crate::analysis::Jump;
use crate::analysis::Prepared;
use crate::ir::{Components, Index, Instruction, OpClass, Opcode, Operand, OperandType, Selection};

/// Live temp components before each main-program instruction.
pub struct Liveness {
    words: usize,
    /// `live[k * words ..][bit 4 * r + c]`: live before instruction `k`.
    live: Vec<u64>,
    len: usize,
}

impl Liveness {
    /// Whether `r#.c` may be read on some path from instruction `k` (past
    /// the main program: never).
    pub fn live_at(&self, k: usize, r: u32, c: usize) -> bool {
        if k >= self.len {
            return false;
        }
        let bit = 4 * r as usize + (c & 3);
        match self.live.get(k * self.words + bit / 64) {
            Some(w) => w & (1 << (bit % 64)) != 0,
            None => true,
        }
    }

    /// Computes liveness over the main program of `p`.
    pub fn new(p: &Prepared) -> Liveness {
        let insts = &p.program.insts;
        let TempBits { len, bits, words } = TempBits::of(p);
        let mut uses = vec![0u64; len * words];
        let mut defs = vec![0u64; len * words];
        let all: Vec<u64> = (0..words)
            .map(|w| {
                let lo = w * 64;
                if bits >= lo + 64 {
                    u64::MAX
                } else if bits > lo {
                    (1u64 << (bits - lo)) - 1
                } else {
                    0
                }
            })
            .collect();
        for (k, inst) in insts.iter().enumerate().take(len) {
            let u = &mut uses[k * words..(k + 1) * words];
            if matches!(inst.opcode, Opcode::Call | Opcode::Callc) {
                u.copy_from_slice(&all);
            }
            let mut set = |r: u32, c: usize| {
                let bit = 4 * r as usize + (c & 3);
                if bit < bits {
                    u[bit / 64] |= 1 << (bit % 64);
                } else if r == u32::MAX {
                    u.copy_from_slice(&all);
                }
            };
            reads(inst, &mut set);
            if kills(inst) {
                let d = &mut defs[k * words..(k + 1) * words];
                for op in inst.operands.iter().take(inst.opcode.dst_count()) {
                    if op.ty != OperandType::Temp {
                        continue;
                    }
                    if let Some(r) = op.imm_index(0) {
                        let m = op.write_mask();
                        for c in 0..4 {
                            let bit = 4 * r as usize + c;
                            if m & (1 << c) != 0 && bit < bits {
                                d[bit / 64] |= 1 << (bit % 64);
                            }
                        }
                    }
                }
            }
        }
        let succs: Vec<Vec<usize>> = (0..len).map(|k| successors(p, k, len)).collect();
        let mut live = vec![0u64; len * words];
        loop {
            let mut changed = false;
            for k in (0..len).rev() {
                for w in 0..words {
                    let mut out = 0u64;
                    for &s in &succs[k] {
                        if s < len {
                            out |= live[s * words + w];
                        }
                    }
                    let new = uses[k * words + w] | (out & !defs[k * words + w]);
                    if new != live[k * words + w] {
                        live[k * words + w] = new;
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        Liveness { words, live, len }
    }
}

/// The extent both backward analyses (`liveness`, `observed.rs`) work on:
/// the main program (up to the first `label`) and one bit per r#
/// component, packed in `words` 64-bit words per instruction.
pub(super) struct TempBits {
    /// Instructions of the main program.
    pub len: usize,
    /// r# components (4 per register).
    pub bits: usize,
    /// 64-bit words per instruction's set (at least one).
    pub words: usize,
}

impl TempBits {
    pub(super) fn of(p: &Prepared) -> TempBits {
        let insts = &p.program.insts;
        let len = insts
            .iter()
            .position(|i| i.opcode == Opcode::Label)
            .unwrap_or(insts.len());
        let bits = 4 * p.temps as usize;
        TempBits {
            len,
            bits,
            words: bits.div_ceil(64).max(1),
        }
    }
}

/// Where control may go after instruction `k` (`len` = the end).
pub(super) fn successors(p: &Prepared, k: usize, len: usize) -> Vec<usize> {
    let inst = &p.program.insts[k];
    let jump = p.jumps.get(k).copied().unwrap_or_default();
    let to = |j: Jump| match j {
        Jump::To(t) | Jump::IfFalse(t) => Some(t),
        _ => None,
    };
    match inst.opcode {
        Opcode::If | Opcode::Breakc | Opcode::Continuec => {
            let mut v = vec![k + 1];
            v.extend(to(jump));
            v
        }
        Opcode::Else | Opcode::Break | Opcode::Continue | Opcode::EndLoop => {
            to(jump).map_or_else(|| vec![k + 1], |t| vec![t])
        }
        Opcode::Ret => vec![len],
        Opcode::Switch => match jump {
            Jump::Switch(t) => match p.switches.get(t) {
                Some(table) => {
                    let mut v: Vec<usize> = table.cases.iter().map(|c| c.1).collect();
                    v.push(table.default);
                    v
                }
                None => vec![k + 1],
            },
            _ => vec![k + 1],
        },
        _ => vec![k + 1],
    }
}

/// Whether `inst` writes every component of its temp destinations' masks
/// in every active lane: ALU instructions, and `ld_raw`/`ld_structured`
/// (an out-of-bounds or unbound DWORD reads as 0, `sem`'s rule, so every
/// masked component of every active lane is written).
pub(super) fn kills(inst: &Instruction) -> bool {
    matches!(
        inst.opcode.class(),
        OpClass::Float | OpClass::Int | OpClass::Compare | OpClass::Convert | OpClass::Move
    ) || matches!(inst.opcode, Opcode::LdRaw | Opcode::LdStructured)
}

/// Calls `f(register, component)` for every temp component `inst` reads:
/// its source operands (whole swizzles) and every relative index.
fn reads(inst: &Instruction, f: &mut dyn FnMut(u32, usize)) {
    let dsts = inst.opcode.dst_count();
    for (k, op) in inst.operands.iter().enumerate() {
        index_reads(op, f);
        if k >= dsts {
            operand_reads(op, f);
        }
    }
}

fn operand_reads(op: &Operand, f: &mut dyn FnMut(u32, usize)) {
    if op.ty != OperandType::Temp {
        return;
    }
    let r = op.imm_index(0).unwrap_or(u32::MAX);
    let comps: Vec<usize> = match op.comps {
        Components::Zero => vec![],
        Components::One => vec![0],
        Components::Four(Selection::Mask(m)) => (0..4).filter(|c| m & (1 << c) != 0).collect(),
        Components::Four(_) => op.swizzle().iter().map(|&c| usize::from(c & 3)).collect(),
    };
    for c in comps {
        f(r, c);
    }
}

fn index_reads(op: &Operand, f: &mut dyn FnMut(u32, usize)) {
    for idx in &op.indices {
        match idx {
            Index::Relative(o)
            | Index::Imm32PlusRelative(_, o)
            | Index::Imm64PlusRelative(_, o) => {
                operand_reads(o, f);
                index_reads(o, f);
            }
            Index::Imm32(_) | Index::Imm64(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loop_temporaries_are_dead_at_the_exit_and_the_counter_is_not() {
        let p = crate::asm::parse_program(
            "cs_5_0
dcl_uav_raw u0
dcl_temps 3
dcl_thread_group 8, 1, 1
mov r0.xy, l(0, 0, 0, 0)
loop
  mul r1.x, r0.x, r0.x
  lt r2.x, l(4.0), r1.x
  breakc_nz r2.x
  add r0.x, r1.x, l(1.0)
  iadd r0.y, r0.y, l(1)
endloop
store_raw u0.x, l(0), r0.y
ret
",
        )
        .expect("parse");
        let prepared = crate::analysis::prepare(&p).expect("prepare");
        let l = Liveness::new(&prepared);
        let at = |op| {
            prepared
                .program
                .insts
                .iter()
                .position(|i| i.opcode == op)
                .unwrap()
        };
        let exit = at(Opcode::StoreRaw);
        let head = at(Opcode::Loop) + 1;
        assert!(l.live_at(exit, 0, 1));
        assert!(!l.live_at(exit, 0, 0));
        assert!(!l.live_at(exit, 1, 0));
        assert!(!l.live_at(exit, 2, 0));
        // At the loop head r0.x and r0.y are live, r1.x is not.
        assert!(l.live_at(head, 0, 0) && l.live_at(head, 0, 1));
        assert!(!l.live_at(head, 1, 0));
        assert!(!l.live_at(99, 0, 1));
    }

    #[test]
    fn an_if_without_else_keeps_what_is_read_after_it_live() {
        let p = crate::asm::parse_program(
            "cs_5_0
dcl_uav_raw u0
dcl_input vThreadID.x
dcl_temps 2
dcl_thread_group 8, 1, 1
mov r0.x, l(1)
if_nz vThreadID.x
  mov r0.x, l(2)
  mov r1.x, l(3)
endif
store_raw u0.x, l(0), r0.x
ret
",
        )
        .expect("parse");
        let prepared = crate::analysis::prepare(&p).expect("prepare");
        let l = Liveness::new(&prepared);
        let after = prepared
            .program
            .insts
            .iter()
            .position(|i| i.opcode == Opcode::EndIf)
            .unwrap()
            + 1;
        // After the endif: r0.x is read, r1.x is not.
        assert!(l.live_at(after, 0, 0));
        assert!(!l.live_at(after, 1, 0));
    }
}
