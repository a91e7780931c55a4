//! The "prepare" pass: everything the interpreter needs to know about a
//! program before running it, computed once.
//!
//! In: a [`Program`]. Out: a [`Prepared`] program: declarations by register
//! (temps, indexable temps, constant buffers, the ICB, t#/u# ranges, g#
//! sizes, thread-group size) and a jump table for structured control flow
//! (if/else/endif, loop/endloop, break/continue targets, switch case tables,
//! label positions). Invariant: every jump target stored here is an index
//! `<= insts.len()`, and every size is bounded by the D3D limits, so the
//! interpreter never allocates from an unchecked count.

use std::collections::BTreeMap;

use crate::ir::{Decl, Index, Opcode, Operand, Program, ResourceDim, ReturnType, Version};
use crate::runtime::RuntimeError;

/// Temps (r# plus all x# elements) a program may declare (FS §7.3).
pub const MAX_TEMP_VEC4: u64 = 4096;
/// TGSM bytes a program may declare (FS §18.6.6).
pub const MAX_TGSM_BYTES: u64 = 32 * 1024;
/// Threads one group may have (FS §22.3.40).
pub const MAX_GROUP_THREADS: u64 = 1024;
/// Call frames (FS §7.12): a call with this many frames active is skipped.
pub const MAX_CALL_DEPTH: usize = 32;

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
}

impl Prepared {
    pub fn version(&self) -> Version {
        self.program.version
    }
}

fn invalid(inst_index: Option<usize>, reason: impl Into<String>) -> RuntimeError {
    RuntimeError::InvalidProgram {
        inst_index,
        reason: reason.into(),
    }
}

/// The register range of a declaration operand: `[id]` before SM5.1,
/// `[id][lower][upper]` in SM5.1.
fn decl_range(op: &Operand, sm51: bool) -> Result<(u32, u32, u32), RuntimeError> {
    let id = op
        .imm_index(0)
        .ok_or_else(|| invalid(None, "declaration without a register number"))?;
    if !sm51 {
        return Ok((id, id, id));
    }
    let lower = op.imm_index(1).unwrap_or(id);
    let upper = op.imm_index(2).unwrap_or(lower);
    Ok((id, lower, upper))
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
    };
    read_decls(&mut p)?;
    build_jumps(&mut p)?;
    Ok(p)
}

fn read_decls(p: &mut Prepared) -> Result<(), RuntimeError> {
    let sm51 = p.program.version.is_sm51();
    let mut temp_vec4: u64 = 0;
    let mut tgsm_bytes: u64 = 0;
    for d in &p.program.decls {
        match d {
            Decl::Temps(n) => {
                temp_vec4 += u64::from(*n);
                p.temps = *n;
            }
            Decl::IndexableTemp { reg, len, .. } => {
                temp_vec4 += u64::from(*len);
                p.indexable.retain(|(r, _)| r != reg);
                p.indexable.push((*reg, *len));
            }
            Decl::ThreadGroup(dims) => {
                let n: u64 = dims.iter().map(|&d| u64::from(d)).product();
                if n == 0 || n > MAX_GROUP_THREADS {
                    return Err(invalid(
                        None,
                        format!("thread group {dims:?} has {n} threads (1..=1024 allowed)"),
                    ));
                }
                p.group_size = *dims;
            }
            Decl::ConstantBuffer { op, space, .. } => {
                let (id, lower, upper) = decl_range(op, sm51)?;
                p.cbs.push(CbDecl {
                    id,
                    space: *space,
                    lower,
                    upper,
                });
            }
            Decl::ImmediateConstantBuffer(data) => p.icb = data.clone(),
            Decl::Resource {
                op,
                dim,
                ret,
                space,
                ..
            } => push_res(
                &mut p.srvs,
                op,
                *space,
                ResKind::Typed {
                    dim: *dim,
                    ret: *ret,
                },
                sm51,
            )?,
            Decl::ResourceRaw { op, space } => {
                push_res(&mut p.srvs, op, *space, ResKind::Raw, sm51)?
            }
            Decl::ResourceStructured { op, stride, space } => push_res(
                &mut p.srvs,
                op,
                *space,
                ResKind::Structured { stride: *stride },
                sm51,
            )?,
            Decl::UavTyped {
                op,
                dim,
                ret,
                space,
                ..
            } => push_res(
                &mut p.uavs,
                op,
                *space,
                ResKind::Typed {
                    dim: *dim,
                    ret: *ret,
                },
                sm51,
            )?,
            Decl::UavRaw { op, space, .. } => {
                push_res(&mut p.uavs, op, *space, ResKind::Raw, sm51)?
            }
            Decl::UavStructured {
                op, stride, space, ..
            } => push_res(
                &mut p.uavs,
                op,
                *space,
                ResKind::Structured { stride: *stride },
                sm51,
            )?,
            Decl::TgsmRaw { op, bytes } => {
                let g = op
                    .imm_index(0)
                    .ok_or_else(|| invalid(None, "dcl_tgsm_raw without a register"))?;
                tgsm_bytes += u64::from(*bytes);
                p.tgsm.insert(
                    g,
                    TgsmDecl {
                        dwords: bytes / 4,
                        stride: None,
                    },
                );
            }
            Decl::TgsmStructured { op, stride, count } => {
                let g = op
                    .imm_index(0)
                    .ok_or_else(|| invalid(None, "dcl_tgsm_structured without a register"))?;
                let bytes = u64::from(*stride) * u64::from(*count);
                tgsm_bytes += bytes;
                let dwords = u32::try_from(bytes / 4).unwrap_or(u32::MAX);
                p.tgsm.insert(
                    g,
                    TgsmDecl {
                        dwords,
                        stride: Some(*stride),
                    },
                );
            }
            Decl::Output(op) if crate::runtime::SpecialOutput::from_operand(op.ty).is_some() => {
                p.specials
                    .extend(crate::runtime::SpecialOutput::from_operand(op.ty));
            }
            Decl::Output(op) | Decl::OutputSgv { op, .. } | Decl::OutputSiv { op, .. } => {
                if let Some(r) = op.imm_index(0).filter(|r| !p.outputs.contains(r)) {
                    p.outputs.push(r);
                    p.io_regs = p.io_regs.max(r.saturating_add(1));
                }
            }
            Decl::Input(op)
            | Decl::InputSgv { op, .. }
            | Decl::InputSiv { op, .. }
            | Decl::InputPs { op, .. }
            | Decl::InputPsSgv { op, .. }
            | Decl::InputPsSiv { op, .. } => {
                if let (crate::ir::OperandType::Input, Some(r)) = (op.ty, op.imm_index(0)) {
                    p.io_regs = p.io_regs.max(r.saturating_add(1));
                }
            }
            _ => {}
        }
        if temp_vec4 > MAX_TEMP_VEC4 {
            return Err(invalid(
                None,
                format!("{temp_vec4} temp registers declared (at most 4096)"),
            ));
        }
        if tgsm_bytes > MAX_TGSM_BYTES {
            return Err(invalid(
                None,
                format!("{tgsm_bytes} bytes of TGSM declared (at most 32768)"),
            ));
        }
    }
    let special_inputs = p.program.decls.iter().any(|d| {
        matches!(d, Decl::Input(op) if crate::runtime::batch::special_component(op.ty).is_some())
    });
    if p.program.version.kind == crate::ir::ProgramKind::Pixel
        && (special_inputs || !p.specials.is_empty())
    {
        p.special_reg = Some(p.io_regs);
        p.io_regs += 1;
    }
    if p.io_regs > 64 {
        return Err(invalid(
            None,
            format!("input/output register {} is out of range", p.io_regs - 1),
        ));
    }
    Ok(())
}

fn push_res(
    list: &mut Vec<ResDecl>,
    op: &Operand,
    space: u32,
    kind: ResKind,
    sm51: bool,
) -> Result<(), RuntimeError> {
    let (id, lower, upper) = decl_range(op, sm51)?;
    list.push(ResDecl {
        id,
        space,
        lower,
        upper,
        kind,
    });
    Ok(())
}

/// One open construct while matching structure markers.
enum Open {
    If {
        at: usize,
        else_at: Option<usize>,
    },
    Loop {
        at: usize,
        breaks: Vec<usize>,
    },
    Switch {
        at: usize,
        table: usize,
        breaks: Vec<usize>,
    },
}

fn build_jumps(p: &mut Prepared) -> Result<(), RuntimeError> {
    let n = p.program.insts.len();
    let mut jumps = vec![Jump::None; n];
    let mut stack: Vec<Open> = Vec::new();
    for (i, inst) in p.program.insts.iter().enumerate() {
        match inst.opcode {
            Opcode::If => stack.push(Open::If {
                at: i,
                else_at: None,
            }),
            Opcode::Else => match stack.last_mut() {
                Some(Open::If {
                    at,
                    else_at: e @ None,
                }) => {
                    jumps[*at] = Jump::IfFalse(i + 1);
                    *e = Some(i);
                }
                _ => return Err(invalid(Some(i), "else without a matching if")),
            },
            Opcode::EndIf => match stack.pop() {
                Some(Open::If { at, else_at }) => match else_at {
                    Some(e) => jumps[e] = Jump::To(i + 1),
                    None => jumps[at] = Jump::IfFalse(i + 1),
                },
                _ => return Err(invalid(Some(i), "endif without a matching if")),
            },
            Opcode::Loop => stack.push(Open::Loop {
                at: i,
                breaks: Vec::new(),
            }),
            Opcode::EndLoop => match stack.pop() {
                Some(Open::Loop { at, breaks }) => {
                    jumps[i] = Jump::To(at + 1);
                    for b in breaks {
                        jumps[b] = Jump::To(i + 1);
                    }
                }
                _ => return Err(invalid(Some(i), "endloop without a matching loop")),
            },
            Opcode::Switch => {
                p.switches.push(SwitchTable {
                    cases: Vec::new(),
                    default: usize::MAX,
                });
                let table = p.switches.len() - 1;
                jumps[i] = Jump::Switch(table);
                stack.push(Open::Switch {
                    at: i,
                    table,
                    breaks: Vec::new(),
                });
            }
            Opcode::Case | Opcode::Default => {
                let Some(Open::Switch { table, .. }) = stack.last() else {
                    return Err(invalid(Some(i), "case or default outside a switch"));
                };
                let t = &mut p.switches[*table];
                if inst.opcode == Opcode::Default {
                    t.default = i + 1;
                } else {
                    let v = case_value(&inst.operands)
                        .ok_or_else(|| invalid(Some(i), "case without a literal"))?;
                    t.cases.push((v, i + 1));
                }
            }
            Opcode::EndSwitch => match stack.pop() {
                Some(Open::Switch {
                    at: _,
                    table,
                    breaks,
                }) => {
                    let t = &mut p.switches[table];
                    if t.default == usize::MAX {
                        t.default = i + 1;
                    }
                    for b in breaks {
                        jumps[b] = Jump::To(i + 1);
                    }
                }
                _ => return Err(invalid(Some(i), "endswitch without a matching switch")),
            },
            Opcode::Break | Opcode::Breakc => {
                let target = stack.iter_mut().rev().find_map(|o| match o {
                    Open::Loop { breaks, .. } | Open::Switch { breaks, .. } => Some(breaks),
                    Open::If { .. } => None,
                });
                match target {
                    Some(breaks) => breaks.push(i),
                    None => return Err(invalid(Some(i), "break outside a loop or switch")),
                }
            }
            Opcode::Continue | Opcode::Continuec => {
                let target = stack.iter().rev().find_map(|o| match o {
                    Open::Loop { at, .. } => Some(*at),
                    _ => None,
                });
                match target {
                    Some(at) => jumps[i] = Jump::To(at + 1),
                    None => return Err(invalid(Some(i), "continue outside a loop")),
                }
            }
            Opcode::Label => {
                if !stack.is_empty() {
                    return Err(invalid(Some(i), "label inside an open if, loop or switch"));
                }
                let l = inst
                    .operands
                    .first()
                    .and_then(|o| o.imm_index(0))
                    .ok_or_else(|| invalid(Some(i), "label without a number"))?;
                p.labels.insert(l, i + 1);
            }
            _ => {}
        }
    }
    if let Some(open) = stack.last() {
        let at = match open {
            Open::If { at, .. } | Open::Loop { at, .. } | Open::Switch { at, .. } => *at,
        };
        return Err(invalid(Some(at), "construct is never closed"));
    }
    p.jumps = jumps;
    Ok(())
}

fn case_value(ops: &[Operand]) -> Option<u32> {
    let op = ops.first()?;
    match op.ty {
        crate::ir::OperandType::Imm32 => op.imm.first().copied(),
        _ => match op.indices.first() {
            Some(Index::Imm32(v)) => Some(*v),
            _ => None,
        },
    }
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
