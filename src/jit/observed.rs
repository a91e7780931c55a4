//! Which float results anybody can see bit for bit, so the others can
//! skip `finish` (the output flush and NaN canonicalisation).
//!
//! In: a prepared program. Out: [`Observed`]: for each instruction of the
//! main program (up to the first label), the temp components whose value
//! after it may be observed. A component's value is observed when some
//! path reads it, before it is written again, in a way that depends on
//! its bits: stores, outputs, integer and bit ops, conditions, indices,
//! shims, doubles, unknown opcodes; or copies it (`mov`, `movc`,
//! `swapc`) into a component whose value is observed. Reads as float
//! operands of operations whose result does not depend on a NaN's payload
//! nor on a denormal beyond its sign (float arithmetic, min/max,
//! comparisons, `ftoi`/`ftou`, `_sat`) do not observe: under DAZ (or with
//! the explicit input flush) and for any NaN they give what the finished
//! value gives. Invariant: an over-approximation of what can be observed
//! (a backward dataflow over the interpreter's jumps; only ALU
//! instructions end a value's life; a `call` observes every register;
//! instructions outside the main program always finish), so a result left
//! unfinished (a denormal, or a NaN of any payload) changes no result the
//! interpreter, which finishes every result, would give.

use super::liveness::TempBits;
use crate::analysis::Prepared;
use crate::ir::{Components, Index, Instruction, Opcode, Operand, OperandType, Selection};

/// Observed temp components after each main-program instruction.
pub struct Observed {
    words: usize,
    /// `out[k * words ..][bit 4 * r + c]`: observed after instruction `k`.
    out: Vec<u64>,
    len: usize,
}

impl Observed {
    /// Nothing is known: every result is finished.
    pub fn all() -> Observed {
        Observed {
            words: 1,
            out: Vec::new(),
            len: 0,
        }
    }

    fn observed_after(&self, k: usize, r: u32, c: usize) -> bool {
        if k >= self.len {
            return true;
        }
        let bit = 4 * r as usize + (c & 3);
        match self.out.get(k * self.words + bit / 64) {
            Some(w) => w & (1 << (bit % 64)) != 0,
            None => true,
        }
    }

    /// Whether instruction `k` (`inst`) writes only temp components whose
    /// new values are never observed (null destinations count as such).
    pub fn writes_unobserved(&self, k: usize, inst: &Instruction) -> bool {
        if k >= self.len {
            return false;
        }
        let dsts = inst.opcode.dst_count();
        inst.operands.iter().take(dsts).all(|d| match d.ty {
            OperandType::Null => true,
            OperandType::Temp => match d.imm_index(0) {
                Some(r) => {
                    let m = d.write_mask();
                    (0..4).all(|c| m & (1 << c) == 0 || !self.observed_after(k, r, c))
                }
                None => false,
            },
            _ => false,
        })
    }

    /// Computes what is observed after each main-program instruction of `p`.
    pub fn new(p: &Prepared) -> Observed {
        let insts = &p.program.insts;
        let TempBits { len, bits, words } = TempBits::of(p);
        let bit = |r: u32, c: usize| {
            let b = 4 * r as usize + (c & 3);
            (b < bits).then_some(b)
        };
        let mut uses = vec![0u64; len * words];
        let mut defs = vec![0u64; len * words];
        // (instruction, source register, source comp, dst comp) of copies.
        let mut copies: Vec<Vec<(u32, usize, usize)>> = vec![Vec::new(); len];
        let mut everything = vec![false; len];
        for (k, inst) in insts.iter().enumerate().take(len) {
            let u = &mut uses[k * words..(k + 1) * words];
            let mut all = matches!(inst.opcode, Opcode::Call | Opcode::Callc);
            let mut mark = |r: u32, c: usize| match bit(r, c) {
                Some(b) => u[b / 64] |= 1 << (b % 64),
                None => all = true,
            };
            for op in &inst.operands {
                for_index_temps(op, &mut mark);
            }
            let dsts = inst.opcode.dst_count();
            let how = reads(inst);
            for (n, op) in inst.operands.iter().enumerate().skip(dsts) {
                if op.ty != OperandType::Temp {
                    continue;
                }
                let Some(r) = op.imm_index(0) else {
                    mark(u32::MAX, 0);
                    continue;
                };
                match how {
                    Reads::Float => {}
                    Reads::Copy { from } if n - dsts >= from => {
                        for c in 0..4 {
                            copies[k].push((r, source_comp(op, c), c));
                        }
                    }
                    _ => {
                        for c in read_comps(op) {
                            mark(r, c);
                        }
                    }
                }
            }
            everything[k] = all;
            if super::liveness::kills(inst) {
                let d = &mut defs[k * words..(k + 1) * words];
                for op in inst.operands.iter().take(dsts) {
                    if op.ty != OperandType::Temp {
                        continue;
                    }
                    if let Some(r) = op.imm_index(0) {
                        let m = op.write_mask();
                        for c in 0..4 {
                            if let (true, Some(b)) = (m & (1 << c) != 0, bit(r, c)) {
                                d[b / 64] |= 1 << (b % 64);
                            }
                        }
                    }
                }
            }
        }
        let succs: Vec<Vec<usize>> = (0..len)
            .map(|k| super::liveness::successors(p, k, len))
            .collect();
        let mut ins = vec![0u64; len * words];
        let mut out = vec![0u64; len * words];
        loop {
            let mut changed = false;
            for k in (0..len).rev() {
                let o = &mut out[k * words..(k + 1) * words];
                for w in 0..words {
                    let mut v = 0u64;
                    for &s in &succs[k] {
                        if s < len {
                            v |= ins[s * words + w];
                        }
                    }
                    o[w] = v;
                }
                let mut new: Vec<u64> = (0..words)
                    .map(|w| uses[k * words + w] | (out[k * words + w] & !defs[k * words + w]))
                    .collect();
                if everything[k] {
                    new.iter_mut().for_each(|w| *w = u64::MAX);
                }
                let inst = &insts[k];
                for &(r, sc, dc) in &copies[k] {
                    if dst_observed(inst, &out[k * words..(k + 1) * words], dc, &bit) {
                        if let Some(b) = bit(r, sc) {
                            new[b / 64] |= 1 << (b % 64);
                        }
                    }
                }
                if new[..] != ins[k * words..(k + 1) * words] {
                    ins[k * words..(k + 1) * words].copy_from_slice(&new);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        Observed { words, out, len }
    }
}

/// Whether component `c` of some destination of `inst` is observed after
/// it (`out`); a non-temp destination always is.
fn dst_observed(
    inst: &Instruction,
    out: &[u64],
    c: usize,
    bit: &dyn Fn(u32, usize) -> Option<usize>,
) -> bool {
    inst.operands
        .iter()
        .take(inst.opcode.dst_count())
        .any(|d| match d.ty {
            OperandType::Null => false,
            _ if d.write_mask() & (1 << c) == 0 => false,
            OperandType::Temp => match d.imm_index(0).and_then(|r| bit(r, c)) {
                Some(b) => out[b / 64] & (1 << (b % 64)) != 0,
                None => true,
            },
            _ => true,
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

/// Whether `inst` reads its temp sources only as payload-insensitive
/// float operands (`late.rs` leaves such reads unfinished).
pub(super) fn reads_float(inst: &Instruction) -> bool {
    matches!(reads(inst), Reads::Float)
}

/// The component of `op` destination component `c` reads (as `src`).
pub(super) fn source_comp(op: &Operand, c: usize) -> usize {
    match op.comps {
        Components::One | Components::Zero => 0,
        _ => usize::from(op.swizzle()[c & 3] & 3),
    }
}

/// Every component of `op` an instruction may read.
pub(super) fn read_comps(op: &Operand) -> Vec<usize> {
    match op.comps {
        Components::Zero => vec![],
        Components::One => vec![0],
        Components::Four(Selection::Mask(m)) => (0..4).filter(|c| m & (1 << c) != 0).collect(),
        Components::Four(_) => op.swizzle().iter().map(|&c| usize::from(c & 3)).collect(),
    }
}

/// Calls `f(register, component)` for every temp component the relative
/// indices of `op` read (recursively).
pub(super) fn for_index_temps(op: &Operand, f: &mut dyn FnMut(u32, usize)) {
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

    fn analyse(src: &str) -> (Prepared, Observed) {
        let p = crate::asm::parse_program(src).expect("parse");
        let prepared = crate::analysis::prepare(&p).expect("prepare");
        let o = Observed::new(&prepared);
        (prepared, o)
    }

    fn at(p: &Prepared, op: Opcode, nth: usize) -> (usize, &Instruction) {
        p.program
            .insts
            .iter()
            .enumerate()
            .filter(|(_, i)| i.opcode == op)
            .nth(nth)
            .unwrap()
    }

    #[test]
    fn a_float_only_loop_is_unobserved_and_stores_observe() {
        let (p, o) = analyse(
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
        for (op, n, unobserved) in [
            (Opcode::Mul, 0, true),
            (Opcode::Mad, 0, true),
            (Opcode::Lt, 0, false),
            (Opcode::Mov, 1, true),
            (Opcode::Mov, 2, false),
        ] {
            let (k, inst) = at(&p, op, n);
            assert_eq!(o.writes_unobserved(k, inst), unobserved, "{op:?} {n}");
        }
    }

    #[test]
    fn a_register_reused_for_an_integer_is_observed_only_there() {
        let (p, o) = analyse(
            "cs_5_0
dcl_uav_raw u0
dcl_constantbuffer CB0[4], dynamicIndexed
dcl_temps 3
dcl_thread_group 1, 1, 1
add r0.x, r0.y, r0.z
mul r1.x, r0.x, r0.x
iadd r0.x, r0.w, l(1)
store_raw u0.x, l(0), r0.x
add r2.x, cb0[r1.x + 0].x, r2.y
store_raw u0.x, l(0), r2.x
ret
",
        );
        // The float r0.x is dead before the integer r0.x is stored; r1.x
        // is read as an index.
        let (k, inst) = at(&p, Opcode::Add, 0);
        assert!(o.writes_unobserved(k, inst));
        let (k, inst) = at(&p, Opcode::Mul, 0);
        assert!(!o.writes_unobserved(k, inst));
        let (k, inst) = at(&p, Opcode::Add, 1);
        assert!(!o.writes_unobserved(k, inst));
    }
}
