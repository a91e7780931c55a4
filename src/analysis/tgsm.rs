//! Whether a group's TGSM can be left as the previous group left it.
//!
//! In: a [`Prepared`] program whose declarations are read. Out: one fact,
//! [`Prepared::tgsm_written_first`]: every DWORD of every g# declaration
//! is stored by the group itself before any of its threads can read one.
//! Then the zero a group's TGSM starts with (docs/semantics.md) is never
//! observed, and an engine that reuses TGSM memory from group to group
//! need not clear it.
//!
//! Invariant: the fact is only ever claimed, never assumed: it holds when
//! the program opens with a straight-line prefix (no flow control, no g#
//! read or atomic) ending in a thread barrier, in which unconditional
//! stores at addresses affine in the flattened thread id (`t * m + a`,
//! never wrapping) cover each declaration whole. Every thread runs that
//! whole prefix before any thread passes the barrier, so every read comes
//! after every covering store. Anything the prefix does not recognise
//! makes the fact false.

use crate::ir::{
    sync_flags, Components, Instruction, Modifier, OpClass, Opcode, Operand, OperandType,
};

use super::Prepared;

/// At most this many covering stores are marked (each marks up to
/// 1024 threads' DWORDs); a longer prefix makes the fact false.
const MAX_STORES: usize = 64;

/// A value known in the prefix: `t * mul + add` for the flattened thread
/// id `t` of every thread, without wrapping (checked against the group's
/// largest `t` when it is made).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Affine {
    mul: u64,
    add: u64,
}

/// What the temp components are known to hold.
type Facts = std::collections::HashMap<(u32, u8), Affine>;

/// Whether every g# DWORD is written before it can be read (see the module
/// comment). False for a program without TGSM.
pub(super) fn written_first(p: &Prepared) -> bool {
    if p.tgsm.is_empty() {
        return false;
    }
    let threads = u64::from(p.group_size.iter().product::<u32>());
    let mut marks: Vec<(u32, Vec<bool>)> = p
        .tgsm
        .iter()
        .map(|(&g, d)| (g, vec![false; d.dwords as usize]))
        .collect();
    let mut facts = Facts::new();
    let last = threads - 1;
    let mut stores = 0;
    for inst in &p.program.insts {
        let class = inst.opcode.class();
        if matches!(class, OpClass::Decl | OpClass::CustomData) {
            continue;
        }
        if inst.opcode == Opcode::Sync {
            if inst.sync_flags() & sync_flags::THREADS_IN_GROUP != 0 {
                return marks.iter().all(|(_, m)| m.iter().all(|&b| b));
            }
            continue;
        }
        if class == OpClass::Flow {
            return false;
        }
        if let Some(store) = tgsm_store(p, inst, &facts, last) {
            stores += 1;
            if stores > MAX_STORES {
                return false;
            }
            if let Some((_, m)) = marks.iter_mut().find(|(g, _)| *g == store.reg) {
                store.mark(threads, m);
            }
            continue;
        }
        if touches_tgsm(inst) && !matches!(inst.opcode, Opcode::StoreRaw | Opcode::StoreStructured)
        {
            // A read or an atomic before the barrier.
            return false;
        }
        step_facts(p, inst, &mut facts, last);
    }
    false
}

/// One covering store: thread `t` writes DWORDs `t*mul + base ..` (`n` of
/// them) of g# `reg`.
struct Store {
    reg: u32,
    mul: u64,
    base: u64,
    n: u64,
}

impl Store {
    fn mark(&self, threads: u64, marks: &mut [bool]) {
        for t in 0..threads {
            for k in 0..self.n {
                let d = t * self.mul + self.base + k;
                if let Some(m) = usize::try_from(d).ok().and_then(|d| marks.get_mut(d)) {
                    *m = true;
                }
            }
        }
    }
}

/// `inst` as a covering store: a `store_structured` at an affine index
/// and an immediate offset, or a `store_raw` at an affine byte address
/// whose step is a multiple of 4; its mask `.x`, `.xy`, `.xyz` or `.xyzw`.
fn tgsm_store(p: &Prepared, inst: &Instruction, facts: &Facts, last: u64) -> Option<Store> {
    let structured = match inst.opcode {
        Opcode::StoreStructured => true,
        Opcode::StoreRaw => false,
        _ => return None,
    };
    let mem = inst.operands.first()?;
    if mem.ty != OperandType::Tgsm {
        return None;
    }
    let reg = mem.imm_index(0)?;
    let mask = mem.write_mask();
    if !matches!(mask, 0x1 | 0x3 | 0x7 | 0xF) {
        return None;
    }
    let n = u64::from(mask.count_ones());
    let at = affine(p, inst.operands.get(1)?, 0, facts, last)?;
    let (mul, base) = if structured {
        // DWORD (index * stride + offset) >> 2 (`sem::memory`).
        let stride = u64::from(p.tgsm.get(&reg)?.stride?);
        let off = u64::from(imm(inst.operands.get(2)?, 0)?);
        if stride % 4 != 0 {
            return None;
        }
        (at.mul * stride / 4, at.add * stride / 4 + off / 4)
    } else {
        // DWORD address >> 2.
        if at.mul % 4 != 0 {
            return None;
        }
        (at.mul / 4, at.add / 4)
    };
    Some(Store { reg, mul, base, n })
}

/// What component `c` of source `op` holds, when it is affine in the
/// flattened thread id (an immediate is, with step 0).
fn affine(p: &Prepared, op: &Operand, c: usize, facts: &Facts, last: u64) -> Option<Affine> {
    if op.modifier != Modifier::None {
        return None;
    }
    if op.ty == OperandType::Imm32 {
        return made(0, u64::from(imm(op, c)?), last);
    }
    // A one-component operand reads its only component in every lane.
    let comp = match op.comps {
        Components::One => 0,
        _ => op.swizzle()[c],
    };
    let flat = || made(1, 0, last);
    match op.ty {
        OperandType::ThreadIdInGroupFlattened if comp == 0 => flat(),
        OperandType::ThreadIdInGroup if comp == 0 && p.group_size[1..] == [1, 1] => flat(),
        OperandType::Temp => facts.get(&(op.imm_index(0)?, comp)).copied(),
        _ => None,
    }
}

/// `t * mul + add`, when it stays below 2^32 for every `t <= last`.
fn made(mul: u64, add: u64, last: u64) -> Option<Affine> {
    let top = last.checked_mul(mul)?.checked_add(add)?;
    (top <= u64::from(u32::MAX)).then_some(Affine { mul, add })
}

/// The affine result of an integer op on affine sources, when it has one:
/// `mov`, `iadd`, `imul`/`umul` (low half) and `imad`/`umad` with one
/// factor of step 0, `ishl` by an immediate.
fn combine(op: Opcode, args: &[Affine], last: u64) -> Option<Affine> {
    let times = |x: Affine, k: u64| made(x.mul.checked_mul(k)?, x.add.checked_mul(k)?, last);
    let product = |x: Affine, y: Affine| match (x.mul, y.mul) {
        (0, _) => times(y, x.add),
        (_, 0) => times(x, y.add),
        _ => None,
    };
    let sum =
        |x: Affine, y: Affine| made(x.mul.checked_add(y.mul)?, x.add.checked_add(y.add)?, last);
    match (op, args) {
        (Opcode::Mov, [x]) => Some(*x),
        (Opcode::IAdd, [x, y]) => sum(*x, *y),
        (Opcode::IShl, [x, Affine { mul: 0, add }]) => times(*x, 1 << (add & 31)),
        (Opcode::IMul | Opcode::UMul, [x, y]) => product(*x, *y),
        (Opcode::IMad | Opcode::UMad, [x, y, z]) => sum(product(*x, *y)?, *z),
        _ => None,
    }
}

/// Component `c` of an immediate source.
fn imm(op: &Operand, c: usize) -> Option<u32> {
    if op.ty != OperandType::Imm32 || op.modifier != Modifier::None {
        return None;
    }
    match op.imm.as_slice() {
        [v] => Some(*v),
        [_, _, _, _] => op.imm.get(c).copied(),
        _ => None,
    }
}

fn touches_tgsm(inst: &Instruction) -> bool {
    inst.operands.iter().any(|o| o.ty == OperandType::Tgsm)
}

/// The facts after `inst`: an op [`combine`] knows keeps its result
/// affine; every other write forgets what it overwrites.
fn step_facts(p: &Prepared, inst: &Instruction, facts: &mut Facts, last: u64) {
    let Some(roles) = inst.opcode.roles() else {
        facts.clear();
        return;
    };
    // `imul`/`umul` write their low half to the second destination.
    let dsts = match inst.opcode {
        Opcode::IMul | Opcode::UMul => 2,
        _ => 1,
    };
    let mut new = Vec::new();
    // With a real high half the two writes could overlap: no fact.
    let single = dsts == 1
        || inst
            .operands
            .first()
            .is_some_and(|o| o.ty == OperandType::Null);
    if let Some(dst) = inst
        .operands
        .get(dsts - 1)
        .filter(|_| single && !inst.saturate())
    {
        let srcs = inst.operands.get(dsts..).unwrap_or_default();
        for c in 0..4 {
            let (Some(r), true) = (dst.imm_index(0), dst.write_mask() & (1 << c) != 0) else {
                continue;
            };
            let args: Option<Vec<Affine>> =
                srcs.iter().map(|o| affine(p, o, c, facts, last)).collect();
            let v = args.and_then(|a| combine(inst.opcode, &a, last));
            if let (Some(v), OperandType::Temp) = (v, dst.ty) {
                new.push(((r, c as u8), v));
            }
        }
    }
    for (op, role) in inst.operands.iter().zip(roles) {
        if role.is_written() && op.ty == OperandType::Temp {
            match op.imm_index(0) {
                Some(r) => (0..4u8)
                    .filter(|c| op.write_mask() & (1 << c) != 0)
                    .for_each(|c| {
                        facts.remove(&(r, c));
                    }),
                None => facts.clear(),
            }
        }
    }
    facts.extend(new);
}

#[cfg(test)]
mod tests {
    fn fact(text: &str) -> bool {
        let program = crate::asm::parse_program(text).unwrap();
        super::super::prepare(&program).unwrap().tgsm_written_first
    }

    fn cs(decls: &str, body: &str) -> String {
        format!(
            "cs_5_0\ndcl_input vThreadIDInGroupFlattened\ndcl_input vThreadIDInGroup.x\n\
             dcl_temps 2\n{decls}\n{body}\nret\n"
        )
    }

    const G256: &str = "dcl_tgsm_structured g0, 4, 256\ndcl_thread_group 256, 1, 1";

    #[test]
    fn a_flat_id_store_before_the_first_barrier_covers_the_block() {
        let body = "store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), l(5)\nsync_g_t\n\
                    ld_structured r0.x, l(3), l(0), g0.xxxx";
        assert!(fact(&cs(G256, body)));
        // Through a temp, and with vThreadIDInGroup.x of a one-row group.
        let body = "mov r1.y, vThreadIDInGroupFlattened.x\n\
                    store_structured g0.x, r1.y, l(0), l(5)\nsync_g_t";
        assert!(fact(&cs(G256, body)));
        let body = "store_structured g0.x, vThreadIDInGroup.x, l(0), l(5)\nsync_g_t";
        assert!(fact(&cs(G256, body)));
    }

    #[test]
    fn raw_and_wide_structures_need_every_dword() {
        let raw = "dcl_tgsm_raw g0, 1024\ndcl_thread_group 256, 1, 1";
        let body =
            "ishl r0.x, vThreadIDInGroupFlattened.x, l(2)\nstore_raw g0.x, r0.x, l(1)\nsync_g_t";
        assert!(fact(&cs(raw, body)));
        // Every other DWORD only.
        let body =
            "ishl r0.x, vThreadIDInGroupFlattened.x, l(3)\nstore_raw g0.x, r0.x, l(1)\nsync_g_t";
        assert!(!fact(&cs(raw, body)));
        let wide = "dcl_tgsm_structured g0, 8, 256\ndcl_thread_group 256, 1, 1";
        let half = "store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), l(1)\nsync_g_t";
        assert!(!fact(&cs(wide, half)));
        let both = "store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), l(1)\n\
                    store_structured g0.x, vThreadIDInGroupFlattened.x, l(4), l(2)\nsync_g_t";
        assert!(fact(&cs(wide, both)));
        let xy =
            "store_structured g0.xy, vThreadIDInGroupFlattened.x, l(0), l(1, 2, 0, 0)\nsync_g_t";
        assert!(fact(&cs(wide, xy)));
    }

    #[test]
    fn affine_addresses_and_constant_ones_count() {
        // Raw: a shared head of 4 DWORDs at constant addresses, then 2
        // DWORDs a thread at 16 + 8t.
        let raw = "dcl_tgsm_raw g0, 528\ndcl_thread_group 64, 1, 1";
        let body = "imad r0.x, vThreadIDInGroupFlattened.x, l(8), l(16)\n\
                    store_raw g0.xy, r0.x, l(1, 2, 0, 0)\n\
                    store_raw g0.xyzw, l(0), l(0, 0, 0, 0)\nsync_g_t";
        assert!(fact(&cs(raw, body)));
        let no_head = "imad r0.x, vThreadIDInGroupFlattened.x, l(8), l(16)\n\
                       store_raw g0.xy, r0.x, l(1, 2, 0, 0)\nsync_g_t";
        assert!(!fact(&cs(raw, no_head)));
        // Structured, two elements a thread: index 2t through imul, then
        // 2t + 1 through iadd.
        let two = "dcl_tgsm_structured g0, 4, 512\ndcl_thread_group 256, 1, 1";
        let body = "imul null, r0.x, vThreadIDInGroupFlattened.x, l(2)\n\
                    iadd r0.y, r0.x, l(1)\n\
                    store_structured g0.x, r0.x, l(0), l(1)\n\
                    store_structured g0.x, r0.y, l(0), l(2)\nsync_g_t";
        assert!(fact(&cs(two, body)));
        // A high half written to a temp: no fact from that imul.
        let hi = body.replace("imul null, r0.x", "imul r1.x, r0.x");
        assert!(!fact(&cs(two, &hi)));
    }

    #[test]
    fn anything_the_prefix_cannot_prove_leaves_the_clear() {
        let store = "store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), l(5)";
        // No barrier after the store.
        assert!(!fact(&cs(G256, store)));
        // Conditional store.
        let body = format!("if_nz r0.x\n{store}\nendif\nsync_g_t");
        assert!(!fact(&cs(G256, &body)));
        // A read first.
        let body = format!("ld_structured r0.x, l(3), l(0), g0.xxxx\n{store}\nsync_g_t");
        assert!(!fact(&cs(G256, &body)));
        // An atomic first.
        let body = format!("atomic_iadd g0, l(0, 0, 0, 0), l(1)\n{store}\nsync_g_t");
        assert!(!fact(&cs(G256, &body)));
        // A barrier without thread sync.
        let body = format!("{store}\nsync_g");
        assert!(!fact(&cs(G256, &body)));
        // Too few threads for the block.
        let small = "dcl_tgsm_structured g0, 4, 256\ndcl_thread_group 128, 1, 1";
        assert!(!fact(&cs(small, &format!("{store}\nsync_g_t"))));
        // The temp was overwritten after the mov.
        let body = "mov r1.x, vThreadIDInGroupFlattened.x\niadd r1.x, r1.x, l(1)\n\
                    store_structured g0.x, r1.x, l(0), l(5)\nsync_g_t";
        assert!(!fact(&cs(G256, body)));
        // vThreadIDInGroup.x of a two-row group is not the flat id.
        let rows = "dcl_tgsm_structured g0, 4, 256\ndcl_thread_group 128, 2, 1";
        let body = "store_structured g0.x, vThreadIDInGroup.x, l(0), l(5)\nsync_g_t";
        assert!(!fact(&cs(rows, body)));
        // A second block nobody stores.
        let two = "dcl_tgsm_structured g0, 4, 256\ndcl_tgsm_raw g1, 16\ndcl_thread_group 256, 1, 1";
        assert!(!fact(&cs(two, &format!("{store}\nsync_g_t"))));
    }
}
