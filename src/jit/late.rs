//! Late finishes: float results computed in a loop but observed only
//! outside it are left unfinished in the loop and finished where they are
//! read (an accumulator: matmul's `mad`, a noise octave sum).
//!
//! In: a prepared program and what is observed (`observed.rs`). Out:
//! [`Late`]: the main-program instructions whose float results the JIT
//! leaves unfinished although some later read observes them (*deferred*),
//! and the r# components they write (*late* components), whose every read
//! except a payload-insensitive float operand is finished on the spot.
//!
//! Invariants (why results never change):
//! - a late component is written, anywhere in the program, only by float
//!   arithmetic that `finish`es its result (or would, if not deferred) and
//!   by `mov`s of literals that `finish` leaves unchanged, and it starts
//!   at zero: in every lane, at every point, it holds either a finished
//!   value or the unfinished result of float arithmetic, and finishing
//!   the read gives the bits the interpreter holds there;
//! - reads as float operands of the ops `observed.rs` calls
//!   payload-insensitive read an unfinished value as its finished self
//!   (DAZ and NaN rules); every other read (stores, outputs, copies,
//!   integer and bit ops, conditions, indices, shims) finishes it first;
//! - an instruction is deferred only inside a loop with no finishing read
//!   of what it writes anywhere in that loop, so the finishes move out of
//!   the loop rather than multiply.

use crate::analysis::Prepared;
use crate::ir::{Instruction, Modifier, Opcode, OperandType};
use crate::sem::float::finish;

use super::flushed::finishes_float;
use super::liveness::TempBits;
use super::observed::{for_index_temps, read_comps, reads_float, source_comp, Observed};

/// The result of the analysis (see the module doc).
pub struct Late {
    /// Per main-program instruction: its result stays unfinished.
    deferred: Vec<bool>,
    /// Per r# component (`4 * r + c`): reads finish it.
    late: Vec<bool>,
    /// Per instruction of the whole program: its direct temp sources are
    /// payload-insensitive float operands.
    float_reads: Vec<bool>,
}

impl Late {
    /// Nothing deferred: every result is finished where it is computed.
    pub fn none() -> Late {
        Late {
            deferred: Vec::new(),
            late: Vec::new(),
            float_reads: Vec::new(),
        }
    }

    /// Whether instruction `k` leaves its float result unfinished.
    pub fn deferred(&self, k: usize) -> bool {
        self.deferred.get(k).copied().unwrap_or(false)
    }

    /// Whether instruction `k` must finish its read of `r#.c`: the
    /// component is late and the read is not a direct float operand
    /// (`direct`: the operand itself, not an index inside it).
    pub fn finish_on_read(&self, k: usize, r: u32, c: usize, direct: bool) -> bool {
        let late = self
            .late
            .get(4 * r as usize + (c & 3))
            .copied()
            .unwrap_or(false);
        late && !(direct && self.float_reads.get(k).copied().unwrap_or(false))
    }

    /// Finds the deferred instructions of `p` (see the module doc).
    pub fn new(p: &Prepared, observed: &Observed) -> Late {
        let insts = &p.program.insts;
        let TempBits { len, bits, .. } = TempBits::of(p);
        let Some(allowed) = late_capable(insts, bits) else {
            return Late::none();
        };
        let loops = loop_ranges(&insts[..len]);
        // Per loop: every component some instruction in it reads other
        // than as a float operand.
        let finishing: Vec<Vec<bool>> = loops
            .iter()
            .map(|&(start, end)| {
                let mut set = vec![false; bits];
                for inst in &insts[start..=end] {
                    finishing_reads(inst, &mut set);
                }
                set
            })
            .collect();
        let mut deferred = vec![false; len];
        let mut late = vec![false; bits];
        for (k, inst) in insts.iter().enumerate().take(len) {
            if !finishes_float(inst.opcode)
                || inst.saturate()
                || observed.writes_unobserved(k, inst)
            {
                continue;
            }
            // The innermost loop around `k`: the shortest range holding it.
            let Some(l) = (0..loops.len())
                .filter(|&l| loops[l].0 < k && k < loops[l].1)
                .min_by_key(|&l| loops[l].1 - loops[l].0)
            else {
                continue;
            };
            let Some(comps) = written(inst) else {
                continue;
            };
            if comps
                .iter()
                .all(|&b| allowed.get(b) == Some(&true) && !finishing[l][b])
            {
                deferred[k] = true;
                comps.iter().for_each(|&b| late[b] = true);
            }
        }
        Late {
            deferred,
            late,
            float_reads: insts.iter().map(reads_float).collect(),
        }
    }
}

/// The r# component bits `inst` writes, if it writes only r# components.
fn written(inst: &Instruction) -> Option<Vec<usize>> {
    let mut out = Vec::new();
    for d in inst.operands.iter().take(inst.opcode.dst_count()) {
        if d.ty != OperandType::Temp {
            return None;
        }
        let r = d.imm_index(0)? as usize;
        let m = d.write_mask();
        out.extend((0..4).filter(|c| m & (1 << c) != 0).map(|c| 4 * r + c));
    }
    Some(out)
}

/// Per r# component: whether every write of it in the whole program is
/// float arithmetic that finishes its result or a `mov` of a literal
/// that finishing leaves unchanged (`None`: an r# write the analysis
/// cannot place).
fn late_capable(insts: &[Instruction], bits: usize) -> Option<Vec<bool>> {
    let mut ok = vec![true; bits];
    for inst in insts {
        for d in inst.operands.iter().take(inst.opcode.dst_count()) {
            if d.ty != OperandType::Temp {
                continue;
            }
            let r = d.imm_index(0)? as usize;
            let m = d.write_mask();
            for c in (0..4).filter(|c| m & (1 << c) != 0) {
                if !writes_finished_float(inst, c) {
                    if let Some(b) = ok.get_mut(4 * r + c) {
                        *b = false;
                    }
                }
            }
        }
    }
    Some(ok)
}

/// Whether `inst` writes destination component `c` as a float that
/// `finish` leaves as it is (once finished, for the arithmetic).
fn writes_finished_float(inst: &Instruction, c: usize) -> bool {
    if finishes_float(inst.opcode) {
        return true;
    }
    if inst.opcode != Opcode::Mov {
        return false;
    }
    match inst.operands.get(1) {
        Some(src) if src.ty == OperandType::Imm32 && src.modifier == Modifier::None => {
            let x = match src.imm.as_slice() {
                [v] => *v,
                [a, b, cc, d] => [*a, *b, *cc, *d][source_comp(src, c)],
                _ => return false,
            };
            finish(f32::from_bits(x)).to_bits() == x
        }
        _ => false,
    }
}

/// `(loop, endloop)` index pairs of the main program.
fn loop_ranges(insts: &[Instruction]) -> Vec<(usize, usize)> {
    let mut open = Vec::new();
    let mut out = Vec::new();
    for (k, inst) in insts.iter().enumerate() {
        match inst.opcode {
            Opcode::Loop => open.push(k),
            Opcode::EndLoop => {
                if let Some(s) = open.pop() {
                    out.push((s, k));
                }
            }
            _ => {}
        }
    }
    out
}

/// Marks in `set` every r# component `inst` reads other than as a direct
/// float operand (a `call` reads them all).
fn finishing_reads(inst: &Instruction, set: &mut [bool]) {
    if matches!(inst.opcode, Opcode::Call | Opcode::Callc) {
        set.iter_mut().for_each(|b| *b = true);
        return;
    }
    // (register, component); `u32::MAX`: any register.
    let mut reads: Vec<(u32, usize)> = Vec::new();
    let dsts = inst.opcode.dst_count();
    for (n, op) in inst.operands.iter().enumerate() {
        for_index_temps(op, &mut |r, c| reads.push((r, c)));
        if n < dsts || op.ty != OperandType::Temp || reads_float(inst) {
            continue;
        }
        let r = op.imm_index(0).unwrap_or(u32::MAX);
        reads.extend(read_comps(op).into_iter().map(|c| (r, c)));
    }
    for (r, c) in reads {
        if r == u32::MAX {
            set.iter_mut().for_each(|b| *b = true);
        } else if let Some(b) = set.get_mut(4 * r as usize + (c & 3)) {
            *b = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn analyse(src: &str) -> (Prepared, Late) {
        let p = crate::asm::parse_program(src).expect("parse");
        let prepared = crate::analysis::prepare(&p).expect("prepare");
        let o = Observed::new(&prepared);
        let late = Late::new(&prepared, &o);
        (prepared, late)
    }

    fn index_of(p: &Prepared, op: Opcode, nth: usize) -> usize {
        p.program
            .insts
            .iter()
            .enumerate()
            .filter(|(_, i)| i.opcode == op)
            .nth(nth)
            .map(|(k, _)| k)
            .unwrap()
    }

    #[test]
    fn an_accumulator_stored_after_its_loop_is_finished_at_the_store() {
        let (p, l) = analyse(
            "cs_5_0
dcl_constantbuffer CB0[1], immediateIndexed
dcl_uav_raw u0
dcl_temps 3
dcl_thread_group 8, 1, 1
mov r0.x, l(0.0)
mov r0.y, l(0)
loop
  uge r0.z, r0.y, cb0[0].x
  breakc_nz r0.z
  mad r0.x, r0.x, l(1.5), cb0[0].y
  mul r1.x, r0.x, l(2.0)
  and r2.x, r1.x, l(0x7fffffff)
  iadd r0.y, r0.y, l(1)
endloop
store_raw u0.xy, l(0), r0.xxxx
ret
",
        );
        let mad = index_of(&p, Opcode::Mad, 0);
        let mul = index_of(&p, Opcode::Mul, 0);
        let store = index_of(&p, Opcode::StoreRaw, 0);
        assert!(l.deferred(mad));
        // r1.x is read by `and` inside the loop: finished where computed.
        assert!(!l.deferred(mul));
        // The mad reads its own accumulator as a float: no finish there;
        // the store finishes it.
        assert!(!l.finish_on_read(mad, 0, 0, true));
        assert!(l.finish_on_read(store, 0, 0, true));
        assert!(!l.finish_on_read(store, 1, 0, true));
    }

    #[test]
    fn a_component_also_holding_integers_is_never_late() {
        let (p, l) = analyse(
            "cs_5_0
dcl_uav_raw u0
dcl_temps 2
dcl_thread_group 8, 1, 1
mov r0.x, l(0.0)
mov r1.x, l(0)
loop
  uge r1.y, r1.x, l(4)
  breakc_nz r1.y
  add r0.x, r0.x, l(0.5)
  iadd r1.x, r1.x, l(1)
endloop
iadd r0.x, r0.x, l(1)
store_raw u0.x, l(0), r0.x
ret
",
        );
        assert!(!l.deferred(index_of(&p, Opcode::Add, 0)));
    }
}
