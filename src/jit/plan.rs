//! Where each resource, g# and x# register of a program lives at run time.
//!
//! In: a [`Prepared`] program. Out: a [`Plan`]: an index into the batch
//! context's resource table for every declared cb#, t# and u#, a DWORD
//! range of the group's TGSM block for every g#, and an element range of
//! the batch's x# block for every x#. Invariant: every range is computed
//! from declarations the interpreter's prepare pass already bounded (TGSM ≤
//! 32 KB, temps ≤ 4096 vec4), so the runner's allocations are bounded too.

use std::collections::BTreeMap;

use crate::analysis::Prepared;
use crate::analysis::ResKind;
use crate::ir::OperandType;
use crate::runtime::{BindingKind, Slot};

/// One g# register: first DWORD in the group's TGSM block, size, stride.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TgsmPlace {
    pub first: u32,
    pub dwords: u32,
    pub stride: Option<u32>,
}

/// The run-time placement of a program's memory.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    /// Resource table entries, in order: which binding fills each.
    pub table: Vec<(BindingKind, Slot)>,
    /// cb register number → table index.
    pub cbs: BTreeMap<u32, usize>,
    /// SM5.0 cb table index → the DWORDs every binding of it provides at
    /// run time: one past the highest DWORD the program reads at a literal
    /// row ([`cb_floors`]). The runner pads a shorter binding with zeros
    /// to this length (`runner::build_table`), which reads the same as
    /// the bounds check (a DWORD past the bound size reads 0), so literal
    /// reads below it load without a check.
    pub cb_floor: BTreeMap<usize, u32>,
    /// t# register number → (table index, declared stride if structured).
    pub srvs: BTreeMap<u32, (usize, Option<u32>)>,
    /// u# register number → (table index, declared stride if structured).
    pub uavs: BTreeMap<u32, (usize, Option<u32>)>,
    /// Registers whose declaration is typed (loads go through the runtime).
    pub typed: Vec<(BindingKind, u32)>,
    pub tgsm: BTreeMap<u32, TgsmPlace>,
    pub tgsm_dwords: u32,
    /// x# register number → (first element, element count).
    pub xregs: BTreeMap<u32, (u32, u32)>,
    pub x_elems: u32,
    /// SM5.1: every cb#/t#/u# declaration is a register range; its table
    /// entry (the key) is a header the runner points at the range's
    /// entries (`ranges.rs`).
    pub ranges: BTreeMap<usize, RangeDecl>,
    /// The sampling instructions that may take the vector path, in order
    /// (`texvec::candidates`): an instruction's position here is its
    /// descriptor's in the dispatch's table.
    pub vec_samples: Vec<u32>,
}

/// An SM5.1 register range: `lower..=upper` of `kind` in `space`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RangeDecl {
    pub kind: BindingKind,
    pub space: u32,
    pub lower: u32,
    pub upper: u32,
}

impl Plan {
    pub fn new(p: &Prepared) -> Plan {
        let mut plan = Plan::default();
        let sm51 = p.version().is_sm51();
        let range = |plan: &mut Plan, kind, space, lower, upper| {
            if sm51 {
                let r = RangeDecl {
                    kind,
                    space,
                    lower,
                    upper,
                };
                plan.ranges.insert(plan.table.len(), r);
            }
        };
        for c in &p.cbs {
            range(
                &mut plan,
                BindingKind::ConstantBuffer,
                c.space,
                c.lower,
                c.upper,
            );
            plan.cbs.insert(c.id, plan.table.len());
            plan.table.push((
                BindingKind::ConstantBuffer,
                Slot {
                    space: c.space,
                    index: c.lower,
                },
            ));
        }
        for (kind, list) in [(BindingKind::Srv, &p.srvs), (BindingKind::Uav, &p.uavs)] {
            for d in list {
                let stride = match d.kind {
                    ResKind::Structured { stride } => Some(stride),
                    ResKind::Typed { .. } => {
                        plan.typed.push((kind, d.id));
                        None
                    }
                    ResKind::Raw => None,
                };
                range(&mut plan, kind, d.space, d.lower, d.upper);
                let entry = (plan.table.len(), stride);
                plan.table.push((
                    kind,
                    Slot {
                        space: d.space,
                        index: d.lower,
                    },
                ));
                match kind {
                    BindingKind::Srv => plan.srvs.insert(d.id, entry),
                    _ => plan.uavs.insert(d.id, entry),
                };
            }
        }
        for (&g, d) in &p.tgsm {
            plan.tgsm.insert(
                g,
                TgsmPlace {
                    first: plan.tgsm_dwords,
                    dwords: d.dwords,
                    stride: d.stride,
                },
            );
            plan.tgsm_dwords = plan.tgsm_dwords.saturating_add(d.dwords);
        }
        for &(reg, len) in &p.indexable {
            plan.xregs.insert(reg, (plan.x_elems, len));
            plan.x_elems = plan.x_elems.saturating_add(len);
        }
        plan.vec_samples = super::texvec::candidates(p, &plan.srvs, &plan.ranges);
        if !sm51 {
            for (reg, dwords) in cb_floors(p) {
                if let Some(&idx) = plan.cbs.get(&reg) {
                    plan.cb_floor.insert(idx, dwords);
                }
            }
        }
        plan
    }
}

/// The most DWORDs a cb floor asks of a binding: D3D11's largest constant
/// buffer (4096 rows of four), so a pad is at most 64 KB. A literal read
/// beyond it keeps its bounds check.
pub const MAX_CB_FLOOR: u32 = 4096 * 4;

/// For each cb register the program reads at a literal row (a top-level
/// operand `cb#[row]`), one past the highest DWORD `row * 4 + component`
/// its swizzles select, when that is at most [`MAX_CB_FLOOR`].
pub fn cb_floors(p: &Prepared) -> BTreeMap<u32, u32> {
    let mut floors = BTreeMap::new();
    let reads = p.program.insts.iter().flat_map(|i| {
        let dsts = i.opcode.dst_count();
        i.operands.iter().skip(dsts)
    });
    for op in reads {
        if op.ty != OperandType::ConstantBuffer {
            continue;
        }
        let (Some(reg), Some(row)) = (op.imm_index(0), op.imm_index(1)) else {
            continue;
        };
        let comp = op.swizzle().into_iter().max().unwrap_or(3).min(3);
        let end = u64::from(row) * 4 + u64::from(comp) + 1;
        let Ok(end) = u32::try_from(end) else {
            continue;
        };
        if end <= MAX_CB_FLOOR {
            let f = floors.entry(reg).or_insert(0);
            *f = end.max(*f);
        }
    }
    floors
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prepared(text: &str) -> Prepared {
        let p = crate::asm::parse_program(text).expect("parse");
        crate::analysis::prepare(&p).expect("prepare")
    }

    #[test]
    fn cb_floors_reach_the_highest_literal_dword_read() {
        let p = prepared(
            "cs_5_0
dcl_constantbuffer CB0[8], dynamicIndexed
dcl_constantbuffer CB1[2], immediateIndexed
dcl_constantbuffer CB2[1], immediateIndexed
dcl_temps 2
dcl_thread_group 1, 1, 1
mov r0.xy, cb0[2].zyzz
mov r1.x, cb0[r0.x + 5].w
iadd r0.x, cb1[1].x, cb1[0].w
ret
",
        );
        // cb0: row 2, component z (the swizzle's highest) -> DWORD 10; the
        // relative read does not count. cb1: row 1 .x -> DWORD 4. cb2 is
        // never read.
        let floors = cb_floors(&p);
        assert_eq!(floors.get(&0), Some(&11));
        assert_eq!(floors.get(&1), Some(&5));
        assert_eq!(floors.get(&2), None);
        let plan = Plan::new(&p);
        assert_eq!(plan.cb_floor.get(&plan.cbs[&0]), Some(&11));
        assert_eq!(plan.cb_floor.get(&plan.cbs[&1]), Some(&5));
    }

    #[test]
    fn tgsm_and_xregs_are_packed_back_to_back() {
        let p = prepared(
            "cs_5_0
dcl_tgsm_raw g0, 64
dcl_tgsm_structured g1, 8, 4
dcl_indexableTemp x0[3], 4
dcl_indexableTemp x2[5], 4
dcl_thread_group 1, 1, 1
ret
",
        );
        let plan = Plan::new(&p);
        assert_eq!(plan.tgsm[&0].first, 0);
        assert_eq!(plan.tgsm[&1].first, 16);
        assert_eq!(plan.tgsm[&1].stride, Some(8));
        assert_eq!(plan.tgsm_dwords, 24);
        assert_eq!(plan.xregs[&0], (0, 3));
        assert_eq!(plan.xregs[&2], (3, 5));
        assert_eq!(plan.x_elems, 8);
    }

    #[test]
    fn every_declared_resource_gets_a_table_entry() {
        let p = prepared(
            "cs_5_0
dcl_constantbuffer CB1[2], immediateIndexed
dcl_resource_structured t3, 12
dcl_uav_raw u0
dcl_uav_typed_buffer (uint,uint,uint,uint) u2
dcl_thread_group 1, 1, 1
ret
",
        );
        let plan = Plan::new(&p);
        assert_eq!(plan.table.len(), 4);
        assert_eq!(plan.table[plan.cbs[&1]].0, BindingKind::ConstantBuffer);
        assert_eq!(plan.srvs[&3].1, Some(12));
        assert_eq!(plan.uavs[&0].1, None);
        assert!(plan.typed.contains(&(BindingKind::Uav, 2)));
        assert!(!plan.typed.contains(&(BindingKind::Uav, 0)));
    }
}
