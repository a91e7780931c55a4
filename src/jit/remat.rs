//! Registers a group-level region recomputes instead of reloading.
//!
//! In: the main program of a group-level program (`group.rs`), its
//! liveness and its group-uniform analysis. Out: for each r# component
//! (`4 * r + c`), the instruction whose value it always holds after the
//! first barrier, when a region may lower that instruction again in
//! place of a load from the batch's save area ([`recomputable`]).
//!
//! Invariant: a component is given instruction `k` only when `k` is the
//! one instruction of the main program that writes it, `k` sits at the
//! top level before the first barrier (so every thread runs it, once,
//! before any later region), nothing reads the component before `k`
//! (so no thread sees its initial zero), and `k` is a pure integer
//! operation of thread ids and literals (so running it again in the same
//! thread gives the same bits). Every other component `k` writes
//! qualifies too, so lowering `k` again changes no value a region sees.
//!
//! Why: a value such as `vThreadID.x << 2` kept across barriers costs
//! each batch two stores where it is made and two loads wherever it is
//! read; recomputed, it costs a few vector operations, and the region
//! sees it as a function of the thread ids, which lets a whole-batch
//! access through it be tested once per range of batches (`pretest.rs`)
//! instead of per batch. `SM5JIT_NO_OPT=remat` turns it off.

use super::liveness::Liveness;
use super::uniform::{scalar_op, Uniform};
use crate::ir::{Instruction, Opcode, OperandType};

/// Per r# component of `temps` registers: the instruction of `main` (the
/// main program, without subroutines) a region may lower again to get
/// its value after the first barrier (see the module doc), or `None`.
pub fn recomputable(
    main: &[Instruction],
    temps: usize,
    live: &Liveness,
    group: &Uniform,
) -> Vec<Option<usize>> {
    let bits = 4 * temps;
    let mut out = vec![None; bits];
    let Some(first_barrier) = main.iter().position(super::group::is_barrier) else {
        return out;
    };
    let Some(writers) = single_writers(main, bits) else {
        return out;
    };
    let mut depth = 0usize;
    for (k, inst) in main.iter().enumerate().take(first_barrier) {
        match inst.opcode {
            Opcode::Loop | Opcode::If | Opcode::Switch => depth += 1,
            Opcode::EndLoop | Opcode::EndIf | Opcode::EndSwitch => depth = depth.saturating_sub(1),
            _ if depth == 0 && of_thread_ids(inst) => {
                let comps = dst_comps(inst);
                let qualifies = |&b: &usize| {
                    let (r, c) = ((b / 4) as u32, b % 4);
                    writers[b] == Some(k)
                        && !live.live_at(0, r, c)
                        && !group.uniform_at(k + 1, r, c)
                };
                if !comps.is_empty() && comps.iter().all(qualifies) {
                    for b in comps {
                        out[b] = Some(k);
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// Per component: the one instruction that writes it, `None` where none
/// or several do; `None` for the whole program when some destination is
/// indexed (it could write any component).
fn single_writers(main: &[Instruction], bits: usize) -> Option<Vec<Option<usize>>> {
    // 0: no writer yet; k + 1: only `k`; usize::MAX: several.
    let mut seen = vec![0usize; bits];
    for (k, inst) in main.iter().enumerate() {
        for d in inst.operands.iter().take(inst.opcode.dst_count()) {
            if d.ty != OperandType::Temp {
                continue;
            }
            let r = d.imm_index(0)? as usize;
            for c in (0..4).filter(|c| d.write_mask() & (1 << c) != 0) {
                if let Some(s) = seen.get_mut(4 * r + c) {
                    *s = if *s == 0 { k + 1 } else { usize::MAX };
                }
            }
        }
    }
    Some(
        seen.into_iter()
            .map(|s| (s != 0 && s != usize::MAX).then(|| s - 1))
            .collect(),
    )
}

/// Whether `inst` is a pure integer operation (one r# destination, no
/// saturate) whose sources are thread ids and literals only.
fn of_thread_ids(inst: &Instruction) -> bool {
    let dsts = inst.opcode.dst_count();
    scalar_op(inst.opcode)
        && dsts == 1
        && !inst.saturate()
        && inst
            .operands
            .first()
            .is_some_and(|d| d.ty == OperandType::Temp)
        && inst.operands.len() > dsts
        && inst.operands[dsts..].iter().all(|s| match s.ty {
            OperandType::Imm32 => true,
            OperandType::ThreadId
            | OperandType::ThreadGroupId
            | OperandType::ThreadIdInGroup
            | OperandType::ThreadIdInGroupFlattened => s.indices.is_empty(),
            _ => false,
        })
}

/// The component bits (`4 * r + c`) `inst`'s one r# destination writes.
fn dst_comps(inst: &Instruction) -> Vec<usize> {
    let Some(d) = inst.operands.first() else {
        return Vec::new();
    };
    let Some(r) = d.imm_index(0) else {
        return Vec::new();
    };
    (0..4)
        .filter(|c| d.write_mask() & (1 << c) != 0)
        .map(|c| 4 * r as usize + c)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::prepare;

    /// The components (as `r#.c` names) the program body recomputes.
    fn recomputed(body: &str) -> Vec<String> {
        let text = format!(
            "cs_5_0\ndcl_input vThreadID.x\ndcl_input vThreadIDInGroupFlattened\n\
             dcl_input vThreadGroupID.x\ndcl_temps 3\ndcl_tgsm_raw g0, 1024\n\
             dcl_thread_group 64, 1, 1\n{body}"
        );
        let p = prepare(&crate::asm::parse_program(&text).unwrap()).unwrap();
        let main = &p.program.insts[..];
        let out = recomputable(
            main,
            p.temps as usize,
            &Liveness::new(&p),
            &Uniform::new(&p, u32::MAX),
        );
        out.iter()
            .enumerate()
            .filter(|(_, k)| k.is_some())
            .map(|(b, _)| format!("r{}.{}", b / 4, "xyzw".as_bytes()[b % 4] as char))
            .collect()
    }

    #[test]
    fn a_thread_id_address_made_once_before_the_first_barrier_is_recomputed() {
        let got = recomputed(
            "ishl r0.xy, vThreadID.xxxx, l(2, 3, 0, 0)\nsync_g_t\n\
             store_raw g0.x, r0.x, r0.y\nret\n",
        );
        assert_eq!(got, ["r0.x", "r0.y"]);
    }

    #[test]
    fn values_that_can_change_or_differ_stay_in_the_save_area() {
        // Written twice; under an `if`; read before written; from a temp;
        // after the first barrier; group-uniform; a float operation.
        let cases = [
            "ishl r0.x, vThreadID.x, l(2)\niadd r0.x, r0.x, l(4)\nsync_g_t\nstore_raw g0.x, r0.x, r0.x\n",
            "if_nz vThreadID.x\nishl r0.x, vThreadID.x, l(2)\nendif\nsync_g_t\nstore_raw g0.x, r0.x, r0.x\n",
            "store_raw g0.x, l(0), r0.x\nishl r0.x, vThreadID.x, l(2)\nsync_g_t\nstore_raw g0.x, r0.x, r0.x\n",
            "mov r1.x, vThreadID.x\nishl r0.x, r1.x, l(2)\nsync_g_t\nstore_raw g0.x, r0.x, r0.x\n",
            "sync_g_t\nishl r0.x, vThreadID.x, l(2)\nsync_g_t\nstore_raw g0.x, r0.x, r0.x\n",
            "ishl r0.x, vThreadGroupID.x, l(2)\nsync_g_t\nstore_raw g0.x, r0.x, r0.x\n",
            "utof r0.x, vThreadID.x\nsync_g_t\nstore_raw g0.x, l(0), r0.x\n",
        ];
        for body in cases {
            let got = recomputed(&format!("{body}ret\n"));
            assert!(
                got.iter().all(|n| n != "r0.x"),
                "{body}: {got:?} recomputes r0.x"
            );
        }
    }

    #[test]
    fn an_instruction_with_one_component_written_elsewhere_is_not_lowered_again() {
        // r0.y has a second writer, so lowering `ishl r0.xy` again after
        // the barrier would overwrite it: neither component qualifies.
        let got = recomputed(
            "ishl r0.xy, vThreadID.xxxx, l(2, 2, 0, 0)\nsync_g_t\niadd r0.y, r0.y, l(1)\n\
             store_raw g0.x, r0.x, r0.y\nret\n",
        );
        assert!(got.is_empty(), "{got:?}");
    }
}
