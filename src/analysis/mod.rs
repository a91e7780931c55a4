//! The analysis layer: the facts both engines need about a program,
//! computed once, between validation and execution.
//!
//! In: a [`Program`] (normally one [`crate::validate::validate`] accepted).
//! Out: a [`Prepared`] program: declarations by register (temps, indexable
//! temps, constant buffers, the ICB, t#/u# ranges and kinds, g# layout,
//! thread-group size, v#/o# register counts) and a jump table for
//! structured control flow (if/else/endif, loop/endloop, break/continue
//! targets, switch case tables, label positions); plus the checks every
//! run makes against those facts ([`check_bindings`], [`check_groups`]).
//! The interpreter walks it; the JIT plans its memory and lowers its
//! control flow from it; neither recomputes a fact here.
//!
//! Invariant: every jump target stored here is an index `<= insts.len()`,
//! and every size is bounded by [`crate::limits`], so no engine allocates
//! from an unchecked count. Layout: `decls` (one short function per
//! declaration kind), `jumps` (the structure markers), `checks` (bindings
//! and group counts against the declarations), `tgsm` (whether a group's
//! TGSM is written whole before it is read).

mod checks;
mod decls;
mod jumps;
mod tgsm;

use std::collections::BTreeMap;

use crate::ir::{Program, ResourceDim, ReturnType, Version};
use crate::runtime::RuntimeError;

pub use crate::limits::MAX_CALL_DEPTH;
pub use checks::{check_bindings, check_dispatch, check_groups, indirect_groups};

/// What a t#/u# declaration says the bound view must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResKind {
    Typed {
        dim: ResourceDim,
        ret: [ReturnType; 4],
    },
    Raw,
    Structured {
        stride: u32,
    },
}

/// A t# or u# declaration: register range `lower..=upper` in `space`
/// (before SM5.1 one register: id = lower = upper).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResDecl {
    pub id: u32,
    pub space: u32,
    pub lower: u32,
    pub upper: u32,
    pub kind: ResKind,
}

/// A cb# declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CbDecl {
    pub id: u32,
    pub space: u32,
    pub lower: u32,
    pub upper: u32,
}

/// A g# declaration: its size in DWORDs and, if structured, the stride.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TgsmDecl {
    pub dwords: u32,
    pub stride: Option<u32>,
}

/// Jump information for one instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Jump {
    #[default]
    None,
    /// `if`: where to go when the condition fails (after `else`, or after `endif`).
    IfFalse(usize),
    /// `else` reached from the taken branch, `break(c)`, `continue(c)`,
    /// `endloop`: where to go.
    To(usize),
    /// `switch`: index into [`Prepared::switches`].
    Switch(usize),
}

/// The case table of one `switch`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SwitchTable {
    /// (case value, index of the instruction after `case`).
    pub cases: Vec<(u32, usize)>,
    /// After `default`, or after `endswitch` when there is none.
    pub default: usize,
}

/// A program ready to run.
#[derive(Clone, Debug)]
pub struct Prepared {
    pub program: Program,
    pub jumps: Vec<Jump>,
    pub switches: Vec<SwitchTable>,
    /// label number → index of the first instruction of its body.
    pub labels: BTreeMap<u32, usize>,
    pub temps: u32,
    /// x# register number → (element count, index into the thread's x# list).
    pub indexable: Vec<(u32, u32)>,
    pub group_size: [u32; 3],
    pub cbs: Vec<CbDecl>,
    pub icb: Vec<u32>,
    pub srvs: Vec<ResDecl>,
    pub uavs: Vec<ResDecl>,
    pub tgsm: BTreeMap<u32, TgsmDecl>,
    /// Declared o# registers.
    pub outputs: Vec<u32>,
    /// Highest v#/o# register number + 1 (for the register files),
    /// plus the special register when there is one.
    pub io_regs: u32,
    /// Declared special pixel outputs (`oDepth`, `oMask`, ...).
    pub specials: Vec<crate::runtime::SpecialOutput>,
    /// The register that holds the special pixel registers (one past the
    /// last v#/o#; see `runtime::batch::special_component`), when the
    /// program declares any.
    pub special_reg: Option<u32>,
    /// Every g# DWORD is stored by the group before any of its threads can
    /// read it (`tgsm.rs`): a group's starting zero is never seen, so TGSM
    /// reused from the previous group need not be cleared.
    pub tgsm_written_first: bool,
}

impl Prepared {
    pub fn version(&self) -> Version {
        self.program.version
    }
}

pub(crate) fn invalid(inst_index: Option<usize>, reason: impl Into<String>) -> RuntimeError {
    RuntimeError::InvalidProgram {
        inst_index,
        reason: reason.into(),
    }
}

/// Resolves declarations and control flow.
pub fn prepare(program: &Program) -> Result<Prepared, RuntimeError> {
    let mut p = Prepared {
        program: program.clone(),
        jumps: Vec::new(),
        switches: Vec::new(),
        labels: BTreeMap::new(),
        temps: 0,
        indexable: Vec::new(),
        group_size: [1, 1, 1],
        cbs: Vec::new(),
        icb: Vec::new(),
        srvs: Vec::new(),
        uavs: Vec::new(),
        tgsm: BTreeMap::new(),
        outputs: Vec::new(),
        io_regs: 0,
        specials: Vec::new(),
        special_reg: None,
        tgsm_written_first: false,
    };
    decls::read_decls(&mut p)?;
    jumps::build_jumps(&mut p)?;
    p.tgsm_written_first = tgsm::written_first(&p);
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prep(body: &str) -> Result<Prepared, RuntimeError> {
        let text = format!("cs_5_0\ndcl_temps 2\ndcl_thread_group 1, 1, 1\n{body}");
        prepare(&crate::asm::parse_program(&text).unwrap())
    }

    #[test]
    fn if_else_endif_targets() {
        // 0 if, 1 mov, 2 else, 3 mov, 4 endif, 5 if, 6 endif, 7 ret
        let p = prep(
            "if_nz r0.x\nmov r1.x, l(1)\nelse\nmov r1.x, l(2)\nendif\nif_z r0.x\nendif\nret\n",
        )
        .unwrap();
        assert_eq!(p.jumps[0], Jump::IfFalse(3));
        assert_eq!(p.jumps[2], Jump::To(5));
        assert_eq!(p.jumps[5], Jump::IfFalse(7));
    }

    #[test]
    fn loop_break_continue_targets_skip_inner_switches() {
        // 0 loop, 1 switch, 2 case, 3 continue, 4 break, 5 endswitch, 6 breakc, 7 endloop, 8 ret
        let p = prep("loop\nswitch r0.x\ncase l(3)\ncontinue\nbreak\nendswitch\nbreakc_nz r0.y\nendloop\nret\n").unwrap();
        assert_eq!(p.jumps[3], Jump::To(1));
        assert_eq!(p.jumps[4], Jump::To(6));
        assert_eq!(p.jumps[6], Jump::To(8));
        assert_eq!(p.jumps[7], Jump::To(1));
        assert_eq!(p.jumps[1], Jump::Switch(0));
        assert_eq!(
            p.switches[0],
            SwitchTable {
                cases: vec![(3, 3)],
                default: 6
            }
        );
    }

    #[test]
    fn switch_default_and_labels() {
        // 0 switch, 1 case 1, 2 default, 3 case 2, 4 break, 5 endswitch, 6 call, 7 ret, 8 label, 9 ret
        let p = prep("switch r0.x\ncase l(1)\ndefault\ncase l(2)\nbreak\nendswitch\ncall l7\nret\nlabel l7\nret\n").unwrap();
        assert_eq!(
            p.switches[0],
            SwitchTable {
                cases: vec![(1, 2), (2, 4)],
                default: 3
            }
        );
        assert_eq!(p.labels.get(&7), Some(&9));
    }

    #[test]
    fn declaration_limits() {
        let parse = |t: &str| crate::asm::parse_program(t).unwrap();
        let too_many_temps = parse(
            "cs_5_0\ndcl_temps 4000\ndcl_indexableTemp x0[200], 4\ndcl_thread_group 1, 1, 1\nret\n",
        );
        assert!(matches!(
            prepare(&too_many_temps),
            Err(RuntimeError::InvalidProgram { .. })
        ));
        let tgsm = parse(
            "cs_5_0\ndcl_tgsm_raw g0, 32768\ndcl_tgsm_raw g1, 4\ndcl_thread_group 1, 1, 1\nret\n",
        );
        assert!(matches!(
            prepare(&tgsm),
            Err(RuntimeError::InvalidProgram { .. })
        ));
        let group = parse("cs_5_0\ndcl_thread_group 1024, 2, 1\nret\n");
        assert!(matches!(
            prepare(&group),
            Err(RuntimeError::InvalidProgram { .. })
        ));
        let ok =
            parse("cs_5_0\ndcl_tgsm_structured g0, 4, 8192\ndcl_thread_group 32, 32, 1\nret\n");
        let p = prepare(&ok).unwrap();
        assert_eq!(
            p.tgsm.get(&0),
            Some(&TgsmDecl {
                dwords: 8192,
                stride: Some(4)
            })
        );
        assert_eq!(p.group_size, [32, 32, 1]);
    }

    #[test]
    fn resource_declarations_by_register() {
        let text =
            "cs_5_1\ndcl_uav_structured U3[4:7], 8, space=2\ndcl_resource_raw T0[0:0], space=0\n\
                    dcl_thread_group 1, 1, 1\nret\n";
        let p = prepare(&crate::asm::parse_program(text).unwrap()).unwrap();
        assert_eq!(
            p.uavs,
            vec![ResDecl {
                id: 3,
                space: 2,
                lower: 4,
                upper: 7,
                kind: ResKind::Structured { stride: 8 }
            }]
        );
        assert_eq!(p.srvs[0].kind, ResKind::Raw);
    }
}
