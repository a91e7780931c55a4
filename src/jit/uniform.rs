//! Which temp-register components hold one value in every active lane of
//! a batch, so the JIT can keep them as scalars ("shadows") and branch on
//! conditions made of them without execution masks.
//!
//! In: a prepared compute, vertex or pixel program and the batch width. Out: [`Uniform`]:
//! before each main-program instruction, the set `S` of r# components
//! that are *uniform*: every lane active there holds the same value, and
//! that value was computed by an integer op the JIT also computes as a
//! scalar ([`scalar_op`]) from uniform sources (literals, cb# at literal
//! rows, the group id, thread-id components that are constant across a
//! batch, other uniform components); which `breakc` leave their loop
//! uniformly; which loops only ever exit that way.
//!
//! Invariants (what the lowering relies on):
//! - a component is in `S` only if, on every path the JIT's structured code
//!   takes to this point, its last write was a uniform (shadowed) write;
//! - a join where lanes with different histories meet removes what either
//!   side wrote: the end of a divergent `if` (and its `else`, which the
//!   JIT lowers after the `then` branch), a loop's head when it has a
//!   `continue`, the exit of a loop with a divergent exit, every `case`
//!   and the end of a `switch`; a `call` empties `S` (the subroutine is
//!   not analysed);
//! - a `breakc` (or `break`) directly in a loop's body (no `if` or
//!   `switch` between) whose condition is uniform is a *uniform break*:
//!   all active lanes leave together, so the JIT jumps to the loop's exit
//!   and the lanes left keep their mask;
//! - `ret` never brings lanes back (main program), so it changes nothing.
//!
//! Loops are iterated to a fixed point (the head's set only shrinks; after
//! a few rounds the head is emptied, which is always stable).

use crate::analysis::Prepared;
use crate::ir::{Index, Instruction, Modifier, Opcode, Operand, OperandType};

use super::liveness::TempBits;

/// Rounds of a loop body before its head's set is emptied.
const MAX_ROUNDS: u32 = 6;

/// The result of the analysis (see the module doc).
pub struct Uniform {
    words: usize,
    len: usize,
    /// `sets[k * words ..]`: `S` before instruction `k`.
    sets: Vec<u64>,
    /// Per instruction: a uniform break (see the module doc).
    uniform_break: Vec<bool>,
    /// Per `loop` instruction: every exit of the loop is a uniform break
    /// (or a `ret`), and it has no `continue`.
    uniform_loop: Vec<bool>,
    group: [u32; 3],
    batch: u32,
    /// SM5.1 (cb# through ranges): cb# reads are not scalars here.
    sm51: bool,
    /// Where the consecutive bits start (4 per r#).
    xbit: usize,
    /// Where the byte-id bits start (4 per r#).
    qbit: usize,
}

type Bits = Vec<u64>;

enum Frame {
    If {
        entry: Bits,
        uniform: bool,
        then_end: Option<Bits>,
        written: Bits,
    },
    Loop {
        start: usize,
        head: Bits,
        rounds: u32,
        divergent: bool,
        has_continue: bool,
        exits: Option<Bits>,
        written: Bits,
    },
    Switch {
        entry: Bits,
        written: Bits,
    },
}

impl Frame {
    fn written(&mut self) -> &mut Bits {
        match self {
            Frame::If { written, .. }
            | Frame::Loop { written, .. }
            | Frame::Switch { written, .. } => written,
        }
    }
}

fn and(a: &mut Bits, b: &Bits) {
    a.iter_mut().zip(b).for_each(|(x, y)| *x &= y);
}

fn and_not(a: &mut Bits, b: &Bits) {
    a.iter_mut().zip(b).for_each(|(x, y)| *x &= !y);
}

fn or(a: &mut Bits, b: &Bits) {
    a.iter_mut().zip(b).for_each(|(x, y)| *x |= y);
}

fn get(a: &[u64], bit: usize) -> bool {
    a.get(bit / 64).is_some_and(|w| w & (1 << (bit % 64)) != 0)
}

fn set(a: &mut [u64], bit: usize, on: bool) {
    if let Some(w) = a.get_mut(bit / 64) {
        if on {
            *w |= 1 << (bit % 64);
        } else {
            *w &= !(1 << (bit % 64));
        }
    }
}

/// How an r# component's value is spread over the active lanes, and so
/// what its shadow holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spread {
    /// Uniform: the same value in every active lane (the shadow).
    Same,
    /// Consecutive: the shadow (the base) plus the lane's
    /// `vThreadIDInGroup.x`.
    Ids,
    /// Byte ids: the shadow (the base) plus 4 × the lane's
    /// `vThreadIDInGroup.x`.
    ByteIds,
}

/// Whether opcode `op` writes its (single, temp) destination with an
/// integer result the JIT also computes as a scalar (`Lower::scalar_op`),
/// exactly: these ops have no float rules.
pub fn scalar_op(op: Opcode) -> bool {
    use Opcode::*;
    matches!(
        op,
        Mov | IAdd
            | INeg
            | IMad
            | UMad
            | IShl
            | UShr
            | IShr
            | And
            | Or
            | Xor
            | Not
            | IMin
            | IMax
            | UMin
            | UMax
            | IEq
            | INe
            | ILt
            | IGe
            | ULt
            | UGe
    )
}

impl Uniform {
    /// Analyses the main program of `p` for batches of `batch` lanes
    /// (consecutive flattened thread ids starting at a multiple of
    /// `batch`).
    pub fn new(p: &Prepared, batch: u32) -> Uniform {
        let TempBits { len, bits, .. } = TempBits::of(p);
        // Three bits per component: uniform at `bit`, consecutive at
        // `bits + bit`, byte ids at `2 * bits + bit`; every join treats
        // them alike.
        let words = (3 * bits).div_ceil(64).max(1);
        let insts = &p.program.insts;
        let mut u = Uniform {
            words,
            len,
            sets: vec![0; len * words],
            uniform_break: vec![false; len],
            uniform_loop: vec![false; len],
            group: p.group_size,
            batch,
            sm51: p.version().is_sm51(),
            xbit: bits,
            qbit: 2 * bits,
        };
        let all: Bits = vec![u64::MAX; words];
        // Every register starts as zero in every lane: uniform, and the
        // lowering starts every shadow at zero.
        let mut cur: Bits = vec![0; words];
        for bit in 0..4 * p.temps as usize {
            set(&mut cur, bit, true);
        }
        let mut stack: Vec<Frame> = Vec::new();
        let mut k = 0;
        while k < len {
            let inst = &insts[k];
            u.sets[k * words..(k + 1) * words].copy_from_slice(&cur);
            let next = k + 1;
            match inst.opcode {
                Opcode::If => {
                    let uniform = u.cond_uniform(inst, &cur);
                    stack.push(Frame::If {
                        entry: cur.clone(),
                        uniform,
                        then_end: None,
                        written: vec![0; words],
                    });
                }
                Opcode::Else => {
                    if let Some(Frame::If {
                        entry,
                        uniform,
                        then_end,
                        written,
                    }) = stack.last_mut()
                    {
                        *then_end = Some(cur.clone());
                        cur = entry.clone();
                        if !*uniform {
                            and_not(&mut cur, written);
                        }
                    }
                }
                Opcode::EndIf => {
                    if let Some(Frame::If {
                        entry,
                        uniform,
                        then_end,
                        written,
                    }) = stack.pop()
                    {
                        and(&mut cur, then_end.as_ref().unwrap_or(&entry));
                        if !uniform {
                            and_not(&mut cur, &written);
                        }
                        if let Some(f) = stack.last_mut() {
                            or(f.written(), &written);
                        }
                    }
                }
                Opcode::Loop => stack.push(Frame::Loop {
                    start: k,
                    head: cur.clone(),
                    rounds: 0,
                    divergent: false,
                    has_continue: false,
                    exits: None,
                    written: vec![0; words],
                }),
                Opcode::Break | Opcode::Breakc => {
                    // A `continue` earlier in the iteration may have parked
                    // lanes for the next one: jumping to the exit with the
                    // rest would drop them.
                    let direct = matches!(
                        stack.last(),
                        Some(Frame::Loop {
                            has_continue: false,
                            ..
                        })
                    );
                    let uniform =
                        direct && (inst.opcode == Opcode::Break || u.cond_uniform(inst, &cur));
                    u.uniform_break[k] = uniform;
                    if let Some(Frame::Loop {
                        divergent, exits, ..
                    }) = stack
                        .iter_mut()
                        .rev()
                        .find(|f| matches!(f, Frame::Loop { .. } | Frame::Switch { .. }))
                    {
                        *divergent |= !uniform;
                        match exits {
                            Some(e) => and(e, &cur),
                            None => *exits = Some(cur.clone()),
                        }
                    }
                }
                Opcode::Continue | Opcode::Continuec => {
                    if let Some(Frame::Loop { has_continue, .. }) = stack
                        .iter_mut()
                        .rev()
                        .find(|f| matches!(f, Frame::Loop { .. }))
                    {
                        *has_continue = true;
                    }
                }
                Opcode::EndLoop => {
                    if let Some(Frame::Loop {
                        start,
                        head,
                        rounds,
                        divergent,
                        has_continue,
                        exits,
                        written,
                    }) = stack.last_mut()
                    {
                        let mut new_head = head.clone();
                        and(&mut new_head, &cur);
                        if *has_continue {
                            and_not(&mut new_head, written);
                        }
                        if new_head != *head {
                            // Not stable yet: walk the body again from the
                            // smaller head.
                            *rounds += 1;
                            if *rounds >= MAX_ROUNDS {
                                new_head.iter_mut().for_each(|w| *w = 0);
                            }
                            *head = new_head;
                            cur = head.clone();
                            *divergent = false;
                            *has_continue = false;
                            *exits = None;
                            written.iter_mut().for_each(|w| *w = 0);
                            k = *start + 1;
                            continue;
                        }
                        let uniform = !*divergent && !*has_continue;
                        u.uniform_loop[*start] = uniform;
                        cur = match exits {
                            Some(e) if uniform => e.clone(),
                            Some(e) => {
                                let mut x = e.clone();
                                and(&mut x, head);
                                and_not(&mut x, written);
                                x
                            }
                            None => {
                                let mut x = head.clone();
                                and_not(&mut x, written);
                                x
                            }
                        };
                        let written = written.clone();
                        stack.pop();
                        if let Some(f) = stack.last_mut() {
                            or(f.written(), &written);
                        }
                    }
                }
                Opcode::Switch => {
                    stack.push(Frame::Switch {
                        entry: cur.clone(),
                        written: vec![0; words],
                    });
                }
                Opcode::Case | Opcode::Default => {
                    if let Some(Frame::Switch { entry, written }) = stack.last() {
                        cur = entry.clone();
                        and_not(&mut cur, written);
                    }
                }
                Opcode::EndSwitch => {
                    if let Some(Frame::Switch { entry, written }) = stack.pop() {
                        cur = entry;
                        and_not(&mut cur, &written);
                        if let Some(f) = stack.last_mut() {
                            or(f.written(), &written);
                        }
                    }
                }
                Opcode::Call | Opcode::Callc => {
                    cur.iter_mut().for_each(|w| *w = 0);
                    for f in stack.iter_mut() {
                        or(f.written(), &all);
                    }
                }
                _ => {
                    let writes = u.transfer(inst, &mut cur);
                    if let Some(f) = stack.last_mut() {
                        or(f.written(), &writes);
                    }
                }
            }
            k = next;
        }
        u
    }

    /// Applies the temp writes of a non-flow instruction to `cur`;
    /// returns the components it writes.
    fn transfer(&self, inst: &Instruction, cur: &mut Bits) -> Bits {
        let mut writes = vec![0; self.words];
        let dsts = inst.opcode.dst_count().min(inst.operands.len());
        let mut new: Vec<(usize, bool, bool, bool)> = Vec::new();
        for (d, op) in inst.operands.iter().take(dsts).enumerate() {
            if op.ty != OperandType::Temp {
                continue;
            }
            let Some(r) = op.imm_index(0) else { continue };
            let m = op.write_mask();
            for c in 0..4 {
                if m & (1 << c) == 0 {
                    continue;
                }
                let bit = 4 * r as usize + c;
                let single = d == 0 && dsts == 1;
                let uniform = single && self.scalar_write(inst, c, cur);
                let consec = single && !uniform && self.consecutive_write(inst, c, cur);
                let bytes = single && !uniform && !consec && self.byte_ids_write(inst, c, cur);
                new.push((bit, uniform, consec, bytes));
            }
        }
        for (bit, uniform, consec, bytes) in new {
            set(cur, bit, uniform);
            set(cur, self.xbit + bit, consec);
            set(cur, self.qbit + bit, bytes);
            set(&mut writes, bit, true);
            set(&mut writes, self.xbit + bit, true);
            set(&mut writes, self.qbit + bit, true);
        }
        writes
    }

    /// Whether source `op`'s component `comp` is *consecutive*: in every
    /// active lane a uniform base plus the lane's `vThreadIDInGroup.x`,
    /// with x ids consecutive in each four-lane vector (group width a
    /// multiple of 4; for `vThreadIDInGroupFlattened`, a multiple of the
    /// batch).
    fn operand_consecutive(&self, op: &Operand, comp: usize, cur: &[u64]) -> bool {
        if op.modifier != Modifier::None || self.group[0] % 4 != 0 {
            return false;
        }
        match op.ty {
            OperandType::ThreadIdInGroup | OperandType::ThreadId => comp & 3 == 0,
            // When a batch lies in one row, the flat id is the row's
            // start (the same in every lane) plus the lane's x.
            OperandType::ThreadIdInGroupFlattened => self.group[0] % self.batch == 0,
            OperandType::Temp => match op.imm_index(0) {
                Some(r) if op.indices.len() == 1 => {
                    get(cur, self.xbit + 4 * r as usize + (comp & 3))
                }
                _ => false,
            },
            _ => false,
        }
    }

    /// Whether `inst` writes destination component `c` as a consecutive
    /// value (`mov` of one, `iadd` of one and a uniform value); the
    /// lowering keeps its base as the component's shadow.
    fn consecutive_write(&self, inst: &Instruction, c: usize, cur: &[u64]) -> bool {
        if inst.saturate() {
            return false;
        }
        let src = |k: usize| inst.operands.get(k);
        match inst.opcode {
            Opcode::Mov => src(1).is_some_and(|a| self.operand_consecutive(a, src_comp(a, c), cur)),
            Opcode::IAdd => match (src(1), src(2)) {
                (Some(a), Some(b)) => {
                    let uni = |o: &Operand| {
                        matches!(o.modifier, Modifier::None | Modifier::Neg)
                            && self.operand_uniform(o, src_comp(o, c), cur)
                    };
                    (self.operand_consecutive(a, src_comp(a, c), cur) && uni(b))
                        || (uni(a) && self.operand_consecutive(b, src_comp(b, c), cur))
                }
                _ => false,
            },
            _ => false,
        }
    }

    /// Whether source `op`'s component `comp` holds *byte ids*: in every
    /// active lane a uniform base plus 4 × the lane's `vThreadIDInGroup.x`
    /// (a consecutive value shifted left by 2: the byte addresses of
    /// consecutive DWORDs).
    fn operand_byte_ids(&self, op: &Operand, comp: usize, cur: &[u64]) -> bool {
        op.modifier == Modifier::None
            && op.ty == OperandType::Temp
            && op.indices.len() == 1
            && op
                .imm_index(0)
                .is_some_and(|r| get(cur, self.qbit + 4 * r as usize + (comp & 3)))
    }

    /// Whether `inst` writes destination component `c` as byte ids:
    /// `ishl` of a consecutive value by 2, `mov` of byte ids, `iadd` of
    /// byte ids and a uniform value. The lowering keeps the base as the
    /// component's shadow.
    fn byte_ids_write(&self, inst: &Instruction, c: usize, cur: &[u64]) -> bool {
        if inst.saturate() {
            return false;
        }
        let src = |k: usize| inst.operands.get(k);
        let bytes = |o: &Operand| self.operand_byte_ids(o, src_comp(o, c), cur);
        match (inst.opcode, src(1), src(2)) {
            (Opcode::Mov, Some(a), _) => bytes(a),
            (Opcode::IShl, Some(a), Some(b)) => {
                self.operand_consecutive(a, src_comp(a, c), cur)
                    && b.ty == OperandType::Imm32
                    && b.modifier == Modifier::None
                    && literal_comp(b, c).is_some_and(|s| s & 31 == 2)
            }
            (Opcode::IAdd, Some(a), Some(b)) => {
                let uni = |o: &Operand| {
                    matches!(o.modifier, Modifier::None | Modifier::Neg)
                        && self.operand_uniform(o, src_comp(o, c), cur)
                };
                (bytes(a) && uni(b)) || (uni(a) && bytes(b))
            }
            _ => false,
        }
    }

    /// Whether instruction `inst` computes destination component `c` as a
    /// uniform scalar when `cur` is the uniform set before it.
    fn scalar_write(&self, inst: &Instruction, c: usize, cur: &[u64]) -> bool {
        if !scalar_op(inst.opcode) || inst.saturate() {
            return false;
        }
        let mov = inst.opcode == Opcode::Mov;
        inst.operands.iter().skip(1).all(|op| {
            let modifier_ok = match op.modifier {
                Modifier::None => true,
                Modifier::Neg => !mov,
                _ => false,
            };
            modifier_ok && self.operand_uniform(op, src_comp(op, c), cur)
        })
    }

    /// Whether component `comp` of source `op` is the same in every active
    /// lane and the lowering can read it as a scalar (`Lower::scalar_src`).
    pub fn operand_uniform(&self, op: &Operand, comp: usize, cur: &[u64]) -> bool {
        let imm = |o: &Operand| o.indices.iter().all(|i| matches!(i, Index::Imm32(_)));
        match op.ty {
            OperandType::Imm32 => true,
            OperandType::Temp => match op.imm_index(0) {
                Some(r) if op.indices.len() == 1 => get(cur, 4 * r as usize + (comp & 3)),
                _ => false,
            },
            OperandType::ConstantBuffer => !self.sm51 && imm(op) && op.indices.len() == 2,
            OperandType::ThreadGroupId => true,
            OperandType::ThreadIdInGroup | OperandType::ThreadId => match comp & 3 {
                // x varies along the batch; y when a batch lies in one
                // row, z when it lies in one slice.
                1 => self.group[0] % self.batch == 0,
                2 => (self.group[0] * self.group[1]) % self.batch == 0,
                3 => true,
                _ => false,
            },
            _ => false,
        }
    }

    fn cond_uniform(&self, inst: &Instruction, cur: &[u64]) -> bool {
        match inst.operands.first() {
            Some(op) if op.modifier == Modifier::None => {
                self.operand_uniform(op, first_comp(op), cur)
            }
            _ => false,
        }
    }

    /// `S` before main-program instruction `k` (past it: empty).
    pub fn set_at(&self, k: usize) -> &[u64] {
        if k >= self.len {
            return &[];
        }
        &self.sets[k * self.words..(k + 1) * self.words]
    }

    /// Whether `inst` at `k` writes destination component `c` as a
    /// consecutive value or as byte ids (its shadow is the base), and
    /// which; `None` for any other write (a uniform one included).
    pub fn spread_write_at(&self, k: usize, inst: &Instruction, c: usize) -> Option<Spread> {
        let cur = self.set_at(k);
        let to_temp = inst.opcode.dst_count() == 1
            && inst
                .operands
                .first()
                .is_some_and(|o| o.ty == OperandType::Temp);
        if k >= self.len || !to_temp || self.scalar_write(inst, c, cur) {
            return None;
        }
        if self.consecutive_write(inst, c, cur) {
            Some(Spread::Ids)
        } else if self.byte_ids_write(inst, c, cur) {
            Some(Spread::ByteIds)
        } else {
            None
        }
    }

    /// Whether source `op`'s component `comp` is spread as `spread` at `k`
    /// (`Spread::Same`: uniform, without a modifier).
    pub fn operand_spread_at(&self, k: usize, op: &Operand, comp: usize, spread: Spread) -> bool {
        match spread {
            Spread::Same => self.operand_uniform_at(k, op, comp),
            Spread::Ids => self.operand_consecutive_at(k, op, comp),
            Spread::ByteIds => k < self.len && self.operand_byte_ids(op, comp, self.set_at(k)),
        }
    }

    /// Whether source `op`'s component `comp` is consecutive at `k`.
    pub fn operand_consecutive_at(&self, k: usize, op: &Operand, comp: usize) -> bool {
        k < self.len && self.operand_consecutive(op, comp, self.set_at(k))
    }

    /// Whether `r#.c` is consecutive before instruction `k`.
    pub fn consecutive_at(&self, k: usize, r: u32, c: usize) -> bool {
        get(self.set_at(k), self.xbit + 4 * r as usize + (c & 3))
    }

    /// Whether `r#.c` holds byte ids before instruction `k`.
    pub fn byte_ids_at(&self, k: usize, r: u32, c: usize) -> bool {
        get(self.set_at(k), self.qbit + 4 * r as usize + (c & 3))
    }

    /// Whether `r#.c` is uniform before instruction `k`.
    pub fn uniform_at(&self, k: usize, r: u32, c: usize) -> bool {
        get(self.set_at(k), 4 * r as usize + (c & 3))
    }

    /// Whether instruction `k` writes `inst`'s destination component `c`
    /// as a uniform scalar (the lowering defines its shadow there).
    pub fn shadowed_write(&self, k: usize, inst: &Instruction, c: usize) -> bool {
        k < self.len
            && inst.opcode.dst_count() == 1
            && inst
                .operands
                .first()
                .is_some_and(|o| o.ty == OperandType::Temp)
            && self.scalar_write(inst, c, self.set_at(k))
    }

    /// Whether operand `op`'s component `comp` is a uniform scalar at
    /// instruction `k`.
    pub fn operand_uniform_at(&self, k: usize, op: &Operand, comp: usize) -> bool {
        k < self.len
            && op.modifier == Modifier::None
            && self.operand_uniform(op, comp, self.set_at(k))
    }

    /// Whether the `break`/`breakc` at `k` is a uniform break.
    pub fn uniform_break(&self, k: usize) -> bool {
        self.uniform_break.get(k).copied().unwrap_or(false)
    }

    /// Whether the loop opened at `k` only exits by uniform breaks.
    pub fn uniform_loop(&self, k: usize) -> bool {
        self.uniform_loop.get(k).copied().unwrap_or(false)
    }
}

/// The component of `op` that destination component `c` reads.
pub fn src_comp(op: &Operand, c: usize) -> usize {
    use crate::ir::Components;
    match op.comps {
        Components::One | Components::Zero => 0,
        _ => usize::from(op.swizzle()[c] & 3),
    }
}

/// The literal component destination component `c` of `op` reads.
fn literal_comp(op: &Operand, c: usize) -> Option<u32> {
    match op.imm.as_slice() {
        [v] => Some(*v),
        [a, b, x, y] => Some([*a, *b, *x, *y][src_comp(op, c)]),
        _ => None,
    }
}

/// The component a condition or index reads (`Lower::scalar_src`).
pub fn first_comp(op: &Operand) -> usize {
    src_comp(op, 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn analyse(text: &str) -> (Prepared, Uniform) {
        let p = crate::asm::parse_program(text).expect("parse");
        let prepared = crate::analysis::prepare(&p).expect("prepare");
        let u = Uniform::new(&prepared, 8);
        (prepared, u)
    }

    fn at(p: &Prepared, op: Opcode, nth: usize) -> usize {
        p.program
            .insts
            .iter()
            .enumerate()
            .filter(|(_, i)| i.opcode == op)
            .nth(nth)
            .map(|(k, _)| k)
            .expect("instruction")
    }

    #[test]
    fn a_loop_counter_is_uniform_inside_and_not_after_a_divergent_exit() {
        let (p, u) = analyse(
            "cs_5_0
dcl_constantbuffer CB0[1], immediateIndexed
dcl_uav_raw u0
dcl_input vThreadID.x
dcl_temps 3
dcl_thread_group 8, 1, 1
mov r0.x, l(0)
loop
  uge r1.x, r0.x, cb0[0].x
  breakc_nz r1.x
  ult r2.x, vThreadID.x, r0.x
  breakc_nz r2.x
  iadd r0.x, r0.x, l(1)
endloop
store_raw u0.x, l(0), r0.x
ret
",
        );
        let first = at(&p, Opcode::Breakc, 0);
        let second = at(&p, Opcode::Breakc, 1);
        assert!(u.uniform_at(first, 0, 0) && u.uniform_at(first, 1, 0));
        assert!(u.uniform_break(first));
        assert!(!u.uniform_at(second, 2, 0));
        assert!(!u.uniform_break(second));
        assert!(!u.uniform_loop(at(&p, Opcode::Loop, 0)));
        // After the divergent exit the counter differs between lanes.
        assert!(!u.uniform_at(at(&p, Opcode::StoreRaw, 0), 0, 0));
    }

    #[test]
    fn a_loop_with_uniform_exits_keeps_its_counter_uniform_after_it() {
        let (p, u) = analyse(
            "cs_5_0
dcl_uav_raw u0
dcl_temps 2
dcl_thread_group 8, 1, 1
mov r0.x, l(0)
loop
  uge r1.x, r0.x, l(16)
  breakc_nz r1.x
  iadd r0.x, r0.x, l(1)
endloop
store_raw u0.x, l(0), r0.x
ret
",
        );
        assert!(u.uniform_loop(at(&p, Opcode::Loop, 0)));
        assert!(u.uniform_at(at(&p, Opcode::StoreRaw, 0), 0, 0));
    }

    #[test]
    fn writes_under_a_divergent_if_are_not_uniform_after_it_nor_in_its_else() {
        let (p, u) = analyse(
            "cs_5_0
dcl_uav_raw u0
dcl_input vThreadID.x
dcl_temps 2
dcl_thread_group 8, 1, 1
mov r0.xy, l(1, 2, 0, 0)
if_nz vThreadID.x
  mov r0.x, l(5)
else
  iadd r1.x, r0.x, l(1)
endif
store_raw u0.x, l(0), r0.x
ret
",
        );
        let els = at(&p, Opcode::Else, 0) + 1;
        // The JIT lowers `then` before `else`: what `then` wrote is not
        // uniform in `else`; what it did not write stays uniform.
        assert!(!u.uniform_at(els, 0, 0));
        assert!(u.uniform_at(els, 0, 1));
        let after = at(&p, Opcode::StoreRaw, 0);
        assert!(!u.uniform_at(after, 0, 0) && !u.uniform_at(after, 1, 0));
        assert!(u.uniform_at(after, 0, 1));
    }

    #[test]
    fn a_continue_and_a_nested_break_make_a_loop_divergent() {
        let (p, u) = analyse(
            "cs_5_0
dcl_uav_raw u0
dcl_input vThreadID.x
dcl_temps 2
dcl_thread_group 8, 1, 1
mov r0.x, l(0)
loop
  uge r1.x, r0.x, l(4)
  if_nz r1.x
    break
  endif
  iadd r0.x, r0.x, l(1)
  continuec_nz vThreadID.x
  iadd r0.x, r0.x, l(1)
endloop
ret
",
        );
        assert!(!u.uniform_break(at(&p, Opcode::Break, 0)));
        assert!(!u.uniform_loop(at(&p, Opcode::Loop, 0)));
        // The continue lets lanes at the head differ.
        assert!(!u.uniform_at(at(&p, Opcode::Loop, 0) + 1, 0, 0));
    }

    #[test]
    fn a_break_after_a_continue_is_not_uniform() {
        // Lanes 1 and 2 continue; the `break` leaves with lane 0 only,
        // (fuzz seed 3738) and so does a `breakc` on a uniform value.
        let (p, u) = analyse(
            "cs_5_0
dcl_uav_raw u0
dcl_input vThreadIDInGroupFlattened
dcl_temps 4
dcl_thread_group 1, 3, 1
mov r0.y, vThreadIDInGroupFlattened.x
loop
  and r3.w, r0.y, l(3)
  continuec_nz r3.w
  breakc_z l(0)
  break
endloop
ret
",
        );
        assert!(!u.uniform_break(at(&p, Opcode::Breakc, 0)));
        assert!(!u.uniform_break(at(&p, Opcode::Break, 0)));
    }

    #[test]
    fn thread_id_rows_are_uniform_when_a_batch_is_in_one_row() {
        let (p, u) = analyse(
            "cs_5_0
dcl_uav_raw u0
dcl_input vThreadIDInGroup.xy
dcl_temps 1
dcl_thread_group 16, 4, 1
ishl r0.x, vThreadIDInGroup.y, l(4)
mov r0.y, vThreadIDInGroup.x
ret
",
        );
        let ret = at(&p, Opcode::Ret, 0);
        assert!(u.uniform_at(ret, 0, 0));
        assert!(!u.uniform_at(ret, 0, 1));
        // x ids are consecutive: a base (0) plus the lane's x.
        assert!(u.consecutive_at(ret, 0, 1) && !u.consecutive_at(ret, 0, 0));
    }

    #[test]
    fn a_consecutive_index_stays_consecutive_when_a_uniform_step_is_added() {
        let (p, u) = analyse(
            "cs_5_0
dcl_uav_raw u0
dcl_input vThreadIDInGroup.x
dcl_temps 2
dcl_thread_group 16, 1, 1
mov r0.x, vThreadIDInGroup.x
mov r0.y, l(0)
loop
  uge r1.x, r0.y, l(16)
  breakc_nz r1.x
  iadd r0.x, r0.x, l(16)
  iadd r0.y, r0.y, l(1)
endloop
imul null, r0.z, r0.x, r0.x
ret
",
        );
        let head = at(&p, Opcode::Loop, 0) + 1;
        assert!(u.consecutive_at(head, 0, 0) && !u.uniform_at(head, 0, 0));
        assert!(u.uniform_at(head, 0, 1));
        // The product of two consecutive values is neither.
        let ret = at(&p, Opcode::Ret, 0);
        assert!(!u.consecutive_at(ret, 0, 2) && !u.uniform_at(ret, 0, 2));
    }

    fn flat_program(group: &str) -> String {
        format!(
            "cs_5_0
dcl_uav_raw u0
dcl_input vThreadIDInGroupFlattened
dcl_temps 1
dcl_thread_group {group}
mov r0.y, l(16)
iadd r0.x, vThreadIDInGroupFlattened.x, -r0.y
ret
"
        )
    }

    #[test]
    fn the_flat_id_is_consecutive_only_when_a_batch_lies_in_one_row() {
        // 16 x 4: every batch of 8 lies in one row, so flat = row start + x.
        let (p, u) = analyse(&flat_program("16, 4, 1"));
        let ret = at(&p, Opcode::Ret, 0);
        assert!(u.consecutive_at(ret, 0, 0) && !u.uniform_at(ret, 0, 0));
        // 4 x 4: a batch spans two rows; flat - x differs between them.
        let (p, u) = analyse(&flat_program("4, 4, 1"));
        let ret = at(&p, Opcode::Ret, 0);
        assert!(!u.consecutive_at(ret, 0, 0) && !u.uniform_at(ret, 0, 0));
        // The group-level analysis never treats it as consecutive.
        let (p, _) = analyse(&flat_program("256, 1, 1"));
        let g = Uniform::new(&p, u32::MAX);
        assert!(!g.consecutive_at(at(&p, Opcode::Ret, 0), 0, 0));
    }

    #[test]
    fn a_thread_id_shifted_left_by_two_holds_byte_ids_through_a_loop() {
        let (p, u) = analyse(
            "cs_5_0
dcl_constantbuffer CB0[1], immediateIndexed
dcl_uav_raw u0
dcl_input vThreadID.x
dcl_temps 3
dcl_thread_group 16, 1, 1
ishl r0.x, vThreadID.x, l(2)
ishl r0.y, vThreadID.x, l(3)
mov r0.w, l(0)
loop
  uge r1.x, r0.w, cb0[0].x
  breakc_nz r1.x
  iadd r0.x, r0.x, cb0[0].y
  iadd r0.w, r0.w, l(1)
endloop
mov r2.x, r0.x
iadd r2.y, r0.x, r0.x
ishl r2.z, r0.x, l(2)
ret
",
        );
        let head = at(&p, Opcode::Loop, 0) + 1;
        assert!(u.byte_ids_at(head, 0, 0) && !u.consecutive_at(head, 0, 0));
        assert!(!u.uniform_at(head, 0, 0));
        // A shift by 3 spreads the lanes 8 apart: not byte ids.
        assert!(!u.byte_ids_at(head, 0, 1) && !u.consecutive_at(head, 0, 1));
        let ret = at(&p, Opcode::Ret, 0);
        assert!(u.byte_ids_at(ret, 0, 0) && u.byte_ids_at(ret, 2, 0));
        // Byte ids plus byte ids, or shifted again, are neither.
        assert!(!u.byte_ids_at(ret, 2, 1) && !u.byte_ids_at(ret, 2, 2));
        assert!(!u.consecutive_at(ret, 2, 2) && !u.uniform_at(ret, 2, 2));
    }

    #[test]
    fn byte_ids_written_under_a_divergent_if_are_dropped_at_its_end() {
        let (p, u) = analyse(
            "cs_5_0
dcl_uav_raw u0
dcl_input vThreadIDInGroup.x
dcl_temps 2
dcl_thread_group 16, 1, 1
ishl r0.x, vThreadIDInGroup.x, l(2)
ult r1.x, vThreadIDInGroup.x, l(3)
if_nz r1.x
  iadd r0.x, r0.x, l(64)
endif
ret
",
        );
        let inside = at(&p, Opcode::EndIf, 0);
        assert!(u.byte_ids_at(inside, 0, 0));
        let ret = at(&p, Opcode::Ret, 0);
        assert!(!u.byte_ids_at(ret, 0, 0));
    }
}
