//! Structured control flow: balance checks and the match table.
//!
//! In: `Program::insts`. Out: a [`FlowTable`] with one [`Flow`] entry per
//! instruction (the indices of the matching markers) and the label table,
//! or the first structural error. Invariant: in an `Ok` table every
//! `if`/`loop`/`switch` has its closing marker, every `break`/`continue`
//! has an enclosing construct of the right kind, every `case`/`default`
//! sits directly inside a switch, every call target exists, and nesting is
//! at most [`MAX_NESTING`] per subroutine (`sm5-semantics.md` §10, §2).
//!
//! Jump conventions for engines (all indices are into `Program::insts`):
//! - `if` false: go to `else + 1` if there is an else, else `endif + 1`;
//! - reaching `else` (end of the then-part): go to `endif + 1`;
//! - `endloop`: go to `loop + 1`; `break`: go to `end + 1` (end is the
//!   `endloop` or `endswitch`); `continue`: go to `loop + 1`;
//! - `switch`: go to `case + 1` of the matching case, else `default + 1`,
//!   else `endswitch + 1`; reaching a `case`/`default` marker sequentially
//!   is a no-op (fall-through);
//! - `call`: push the return index, go to `label + 1`.

use std::collections::{BTreeMap, HashSet};

use crate::ir::{Components, Instruction, Opcode, OperandType, Program, Selection};

use super::{Rule, VResult, ValidationError};

/// Maximum nesting depth of if/loop/switch per subroutine (FS §7.12).
pub use crate::limits::MAX_FLOW_NESTING as MAX_NESTING;

/// Control-flow facts about one instruction.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum Flow {
    /// Not a control-flow instruction (or one with nothing to match).
    #[default]
    None,
    If {
        else_: Option<usize>,
        endif: usize,
    },
    Else {
        endif: usize,
    },
    EndIf {
        if_: usize,
    },
    Loop {
        endloop: usize,
    },
    EndLoop {
        loop_: usize,
    },
    /// `break`/`breakc`: `end` is the innermost endloop or endswitch.
    Break {
        end: usize,
    },
    /// `continue`/`continuec`: the innermost enclosing loop.
    Continue {
        loop_: usize,
        endloop: usize,
    },
    /// `cases` lists (literal, index of the case instruction) in order.
    Switch {
        cases: Vec<(u32, usize)>,
        default: Option<usize>,
        endswitch: usize,
    },
    Case {
        switch: usize,
    },
    Default {
        switch: usize,
    },
    EndSwitch {
        switch: usize,
    },
    /// `call`/`callc`: the index of the `label` instruction.
    Call {
        label: usize,
    },
    /// `ret`/`retc`: `in_main` is false inside a subroutine body.
    Ret {
        in_main: bool,
    },
    /// A subroutine entry; its body runs to the next label or the end.
    Label {
        id: u32,
    },
}

/// One [`Flow`] per instruction, indexed like `Program::insts`.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct FlowTable {
    pub entries: Vec<Flow>,
    /// Index of the first `label` (the end of main), or `insts.len()`.
    pub main_end: usize,
}

impl FlowTable {
    /// The entry for instruction `index` ([`Flow::None`] past the end).
    pub fn get(&self, index: usize) -> &Flow {
        static NONE: Flow = Flow::None;
        self.entries.get(index).unwrap_or(&NONE)
    }

    /// The end (exclusive) of the body starting at `start`: main starts at
    /// 0, a subroutine at its `label`; a body runs to the next label or to
    /// the end of the program.
    pub fn body_end(&self, start: usize) -> usize {
        self.entries
            .iter()
            .enumerate()
            .skip(start.saturating_add(1))
            .find(|(_, f)| matches!(f, Flow::Label { .. }))
            .map_or(self.entries.len(), |(i, _)| i)
    }
}

/// An open construct on the nesting stack.
enum Open {
    If {
        at: usize,
        else_: Option<usize>,
    },
    Loop {
        at: usize,
    },
    Switch {
        at: usize,
        cases: Vec<(u32, usize)>,
        default: Option<usize>,
        seen: HashSet<u32>,
    },
}

/// A break/continue waiting for its construct to close.
struct Pending {
    at: usize,
    /// Stack depth of the target construct.
    depth: usize,
}

struct Builder<'a> {
    insts: &'a [Instruction],
    entries: Vec<Flow>,
    stack: Vec<Open>,
    breaks: Vec<Pending>,
    continues: Vec<Pending>,
    labels: BTreeMap<u32, usize>,
    in_main: bool,
}

/// Checks the structure of `p` and builds its flow table and label map.
pub fn build_flow(p: &Program) -> VResult<(FlowTable, BTreeMap<u32, usize>)> {
    let mut b = Builder {
        insts: &p.insts,
        entries: vec![Flow::None; p.insts.len()],
        stack: Vec::new(),
        breaks: Vec::new(),
        continues: Vec::new(),
        labels: BTreeMap::new(),
        in_main: true,
    };
    let mut main_end = p.insts.len();
    for (i, inst) in p.insts.iter().enumerate() {
        if inst.opcode == Opcode::Label && b.in_main {
            main_end = i;
        }
        b.step(i, inst)?;
    }
    b.close_body(p.insts.len())?;
    // A shader with subroutines must end with `ret` (FS §22.7.16): a
    // body that ran off the end would have no defined return.
    if !b.in_main && p.insts.last().map(|i| i.opcode) != Some(Opcode::Ret) {
        let last = p.insts.len() - 1;
        return Err(b.err(last, "a shader with subroutines must end with ret"));
    }
    b.resolve_calls()?;
    Ok((
        FlowTable {
            entries: b.entries,
            main_end,
        },
        b.labels,
    ))
}

impl Builder<'_> {
    fn err(&self, at: usize, msg: impl Into<String>) -> ValidationError {
        ValidationError::inst(Rule::Flow, at, self.insts[at].opcode, msg)
    }

    fn step(&mut self, i: usize, inst: &Instruction) -> VResult<()> {
        match inst.opcode {
            Opcode::If => self.push(i, Open::If { at: i, else_: None }),
            Opcode::Else => self.on_else(i),
            Opcode::EndIf => self.on_endif(i),
            Opcode::Loop => self.push(i, Open::Loop { at: i }),
            Opcode::EndLoop => self.on_endloop(i),
            Opcode::Switch => self.push(
                i,
                Open::Switch {
                    at: i,
                    cases: Vec::new(),
                    default: None,
                    seen: HashSet::new(),
                },
            ),
            Opcode::Case => self.on_case(i, inst),
            Opcode::Default => self.on_default(i),
            Opcode::EndSwitch => self.on_endswitch(i),
            Opcode::Break | Opcode::Breakc => self.on_break(i),
            Opcode::Continue | Opcode::Continuec => self.on_continue(i),
            Opcode::Ret | Opcode::Retc => {
                self.entries[i] = Flow::Ret {
                    in_main: self.in_main,
                };
                Ok(())
            }
            Opcode::Label => self.on_label(i, inst),
            _ => Ok(()),
        }
    }

    fn push(&mut self, i: usize, open: Open) -> VResult<()> {
        if self.stack.len() >= MAX_NESTING {
            return Err(self.err(i, format!("nesting deeper than {MAX_NESTING}")));
        }
        self.stack.push(open);
        Ok(())
    }

    fn on_else(&mut self, i: usize) -> VResult<()> {
        match self.stack.last_mut() {
            Some(Open::If {
                else_: slot @ None, ..
            }) => {
                *slot = Some(i);
                Ok(())
            }
            Some(Open::If { .. }) => Err(self.err(i, "second else for one if")),
            _ => Err(self.err(i, "else without an open if")),
        }
    }

    fn on_endif(&mut self, i: usize) -> VResult<()> {
        let Some(Open::If { at, else_ }) = self.stack.last() else {
            return Err(self.err(i, "endif without an open if"));
        };
        let (at, else_) = (*at, *else_);
        self.stack.pop();
        self.entries[at] = Flow::If { else_, endif: i };
        if let Some(e) = else_ {
            self.entries[e] = Flow::Else { endif: i };
        }
        self.entries[i] = Flow::EndIf { if_: at };
        Ok(())
    }

    fn on_endloop(&mut self, i: usize) -> VResult<()> {
        let Some(Open::Loop { at }) = self.stack.last() else {
            return Err(self.err(i, "endloop without an open loop"));
        };
        let at = *at;
        self.stack.pop();
        self.entries[at] = Flow::Loop { endloop: i };
        self.entries[i] = Flow::EndLoop { loop_: at };
        let depth = self.stack.len();
        self.resolve_pending(depth, i, Some(at));
        Ok(())
    }

    fn on_endswitch(&mut self, i: usize) -> VResult<()> {
        let Some(Open::Switch { .. }) = self.stack.last() else {
            return Err(self.err(i, "endswitch without an open switch"));
        };
        let Some(Open::Switch {
            at, cases, default, ..
        }) = self.stack.pop()
        else {
            return Err(self.err(i, "endswitch without an open switch"));
        };
        self.entries[at] = Flow::Switch {
            cases,
            default,
            endswitch: i,
        };
        self.entries[i] = Flow::EndSwitch { switch: at };
        let depth = self.stack.len();
        self.resolve_pending(depth, i, None);
        Ok(())
    }

    /// Fills in the breaks (and, for loops, continues) that target the
    /// construct at stack depth `depth` which just closed at `end`.
    fn resolve_pending(&mut self, depth: usize, end: usize, loop_at: Option<usize>) {
        let entries = &mut self.entries;
        self.breaks.retain(|b| {
            if b.depth == depth {
                entries[b.at] = Flow::Break { end };
                false
            } else {
                true
            }
        });
        if let Some(loop_) = loop_at {
            self.continues.retain(|c| {
                if c.depth == depth {
                    entries[c.at] = Flow::Continue {
                        loop_,
                        endloop: end,
                    };
                    false
                } else {
                    true
                }
            });
        }
    }

    fn on_case(&mut self, i: usize, inst: &Instruction) -> VResult<()> {
        let value = case_literal(inst)
            .ok_or_else(|| self.err(i, "case needs one scalar 32-bit literal operand, l(n)"))?;
        let Some(Open::Switch {
            at, cases, seen, ..
        }) = self.stack.last_mut()
        else {
            return Err(self.err(i, "case outside a switch (or inside a nested if/loop)"));
        };
        let at = *at;
        if !seen.insert(value) {
            return Err(self.err(i, format!("duplicate case value {value}")));
        }
        cases.push((value, i));
        self.entries[i] = Flow::Case { switch: at };
        Ok(())
    }

    fn on_default(&mut self, i: usize) -> VResult<()> {
        let Some(Open::Switch { at, default, .. }) = self.stack.last_mut() else {
            return Err(self.err(i, "default outside a switch (or inside a nested if/loop)"));
        };
        if default.is_some() {
            return Err(self.err(i, "second default in one switch"));
        }
        *default = Some(i);
        let at = *at;
        self.entries[i] = Flow::Default { switch: at };
        Ok(())
    }

    fn on_break(&mut self, i: usize) -> VResult<()> {
        let depth = self
            .stack
            .iter()
            .rposition(|o| matches!(o, Open::Loop { .. } | Open::Switch { .. }))
            .ok_or_else(|| self.err(i, "break outside any loop or switch"))?;
        self.breaks.push(Pending { at: i, depth });
        Ok(())
    }

    fn on_continue(&mut self, i: usize) -> VResult<()> {
        let depth = self
            .stack
            .iter()
            .rposition(|o| matches!(o, Open::Loop { .. }))
            .ok_or_else(|| self.err(i, "continue outside any loop"))?;
        self.continues.push(Pending { at: i, depth });
        Ok(())
    }

    fn on_label(&mut self, i: usize, inst: &Instruction) -> VResult<()> {
        let id = label_id(inst).ok_or_else(|| self.err(i, "label needs one l# operand"))?;
        self.close_body(i)?;
        // A label must follow an unnested `ret` (FS §22.7.16).
        let after_ret = i > 0 && self.insts[i - 1].opcode == Opcode::Ret;
        if !after_ret {
            return Err(self.err(i, "a label must directly follow an unnested ret"));
        }
        if self.labels.insert(id, i).is_some() {
            return Err(self.err(i, format!("label l{id} defined twice")));
        }
        self.in_main = false;
        self.entries[i] = Flow::Label { id };
        Ok(())
    }

    /// Ends a body (main or a subroutine) at `at`: nothing may stay open.
    fn close_body(&self, at: usize) -> VResult<()> {
        let Some(open) = self.stack.last() else {
            return Ok(());
        };
        let (start, what) = match open {
            Open::If { at, .. } => (*at, "if without endif"),
            Open::Loop { at } => (*at, "loop without endloop"),
            Open::Switch { at, .. } => (*at, "switch without endswitch"),
        };
        let end = if at < self.insts.len() {
            format!(" before label at {at}")
        } else {
            String::new()
        };
        Err(self.err(start, format!("{what}{end}")))
    }

    fn resolve_calls(&mut self) -> VResult<()> {
        for (i, inst) in self.insts.iter().enumerate() {
            if !matches!(inst.opcode, Opcode::Call | Opcode::Callc) {
                continue;
            }
            let id = inst
                .operands
                .iter()
                .find(|o| o.ty == OperandType::Label)
                .and_then(|o| o.imm_index(0))
                .ok_or_else(|| self.err(i, "call needs an l# operand"))?;
            let label = *self
                .labels
                .get(&id)
                .ok_or_else(|| self.err(i, format!("call target l{id} has no label")))?;
            self.entries[i] = Flow::Call { label };
        }
        Ok(())
    }
}

/// The literal of `case l(n)`: one Imm32 operand with one component.
fn case_literal(inst: &Instruction) -> Option<u32> {
    match inst.operands.as_slice() {
        [op] if op.ty == OperandType::Imm32 => match op.comps {
            Components::One => op.imm.first().copied(),
            Components::Four(Selection::Select1(c)) => op.imm.get(usize::from(c)).copied(),
            _ => None,
        },
        _ => None,
    }
}

/// The number of `label l#`.
fn label_id(inst: &Instruction) -> Option<u32> {
    match inst.operands.as_slice() {
        [op] if op.ty == OperandType::Label => op.imm_index(0),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Opcode::*;
    use crate::validate::testutil::*;
    use crate::validate::{validate, Rule};

    fn flow(insts: Vec<Instruction>) -> VResult<FlowTable> {
        let p = cs50(2, vec![], insts);
        build_flow(&p).map(|(t, _)| t)
    }

    fn flow_err(insts: Vec<Instruction>) -> (usize, String) {
        let e = flow(insts).expect_err("should fail");
        assert_eq!(e.rule, Rule::Flow);
        (e.inst_index.expect("instruction index"), e.message)
    }

    #[test]
    fn if_else_endif_match() {
        let t = flow(vec![
            inst(If, vec![rx(0)]),
            bare(Nop),
            bare(Else),
            bare(Nop),
            bare(EndIf),
        ])
        .unwrap();
        assert_eq!(
            t.entries[0],
            Flow::If {
                else_: Some(2),
                endif: 4
            }
        );
        assert_eq!(t.entries[2], Flow::Else { endif: 4 });
        assert_eq!(t.entries[4], Flow::EndIf { if_: 0 });
        assert_eq!(t.entries[5], Flow::Ret { in_main: true });
        assert_eq!(t.main_end, 6);
    }

    #[test]
    fn loop_break_continue_targets() {
        let t = flow(vec![
            bare(Loop),
            inst(Breakc, vec![rx(0)]),
            inst(If, vec![rx(1)]),
            bare(Continue),
            bare(EndIf),
            bare(Break),
            bare(EndLoop),
        ])
        .unwrap();
        assert_eq!(t.entries[0], Flow::Loop { endloop: 6 });
        assert_eq!(t.entries[1], Flow::Break { end: 6 });
        assert_eq!(
            t.entries[3],
            Flow::Continue {
                loop_: 0,
                endloop: 6
            }
        );
        assert_eq!(t.entries[5], Flow::Break { end: 6 });
        assert_eq!(t.entries[6], Flow::EndLoop { loop_: 0 });
    }

    #[test]
    fn switch_cases_default_and_inner_break() {
        let t = flow(vec![
            bare(Loop),
            inst(Switch, vec![rx(0)]),
            inst(Case, vec![lit(1)]),
            inst(Case, vec![lit(2)]),
            bare(Break),
            bare(Default),
            bare(Break),
            bare(EndSwitch),
            bare(Break),
            bare(EndLoop),
        ])
        .unwrap();
        assert_eq!(
            t.entries[1],
            Flow::Switch {
                cases: vec![(1, 2), (2, 3)],
                default: Some(5),
                endswitch: 7
            }
        );
        assert_eq!(t.entries[2], Flow::Case { switch: 1 });
        assert_eq!(t.entries[4], Flow::Break { end: 7 });
        assert_eq!(t.entries[6], Flow::Break { end: 7 });
        assert_eq!(t.entries[8], Flow::Break { end: 9 });
        assert_eq!(t.entries[5], Flow::Default { switch: 1 });
    }

    #[test]
    fn continue_inside_switch_targets_the_loop() {
        let t = flow(vec![
            bare(Loop),
            inst(Switch, vec![rx(0)]),
            bare(Default),
            bare(Continue),
            bare(EndSwitch),
            bare(EndLoop),
        ])
        .unwrap();
        assert_eq!(
            t.entries[3],
            Flow::Continue {
                loop_: 0,
                endloop: 5
            }
        );
    }

    #[test]
    fn unbalanced_structures_are_rejected() {
        assert_eq!(flow_err(vec![bare(EndIf)]).0, 0);
        assert_eq!(flow_err(vec![bare(Else)]).0, 0);
        let (i, m) = flow_err(vec![bare(Nop), inst(If, vec![rx(0)])]);
        assert_eq!(i, 1);
        assert!(m.contains("if without endif"), "{m}");
        assert_eq!(flow_err(vec![bare(Loop), bare(EndIf)]).0, 1);
        assert_eq!(flow_err(vec![inst(If, vec![rx(0)]), bare(EndLoop)]).0, 1);
        assert_eq!(flow_err(vec![bare(Loop), bare(EndSwitch)]).0, 1);
        let (i, m) = flow_err(vec![
            inst(If, vec![rx(0)]),
            bare(Else),
            bare(Else),
            bare(EndIf),
        ]);
        assert_eq!((i, m.as_str()), (2, "second else for one if"));
    }

    #[test]
    fn break_and_continue_need_an_enclosing_construct() {
        assert!(flow_err(vec![bare(Break)]).1.contains("break outside"));
        assert!(flow_err(vec![inst(Breakc, vec![rx(0)])])
            .1
            .contains("break outside"));
        let (i, m) = flow_err(vec![
            inst(Switch, vec![rx(0)]),
            bare(Default),
            bare(Continue),
            bare(EndSwitch),
        ]);
        assert_eq!(i, 2);
        assert!(m.contains("continue outside"), "{m}");
    }

    #[test]
    fn case_rules() {
        let (i, m) = flow_err(vec![inst(Case, vec![lit(0)])]);
        assert_eq!(i, 0);
        assert!(m.contains("outside a switch"));
        let (i, m) = flow_err(vec![
            inst(Switch, vec![rx(0)]),
            inst(Case, vec![lit(3)]),
            inst(Case, vec![lit(3)]),
            bare(EndSwitch),
        ]);
        assert_eq!((i, m.as_str()), (2, "duplicate case value 3"));
        let (i, _) = flow_err(vec![
            inst(Switch, vec![rx(0)]),
            bare(Default),
            bare(Default),
            bare(EndSwitch),
        ]);
        assert_eq!(i, 2);
        // A case inside an if nested in the switch is not directly inside it.
        let (i, _) = flow_err(vec![
            inst(Switch, vec![rx(0)]),
            inst(If, vec![rx(0)]),
            inst(Case, vec![lit(1)]),
            bare(EndIf),
            bare(EndSwitch),
        ]);
        assert_eq!(i, 2);
    }

    #[test]
    fn nesting_limit() {
        let mut ok: Vec<_> = (0..MAX_NESTING).map(|_| bare(Loop)).collect();
        ok.extend((0..MAX_NESTING).map(|_| bare(EndLoop)));
        assert!(flow(ok).is_ok());
        let mut deep: Vec<_> = (0..=MAX_NESTING).map(|_| bare(Loop)).collect();
        deep.extend((0..=MAX_NESTING).map(|_| bare(EndLoop)));
        let (i, m) = flow_err(deep);
        assert_eq!(i, MAX_NESTING);
        assert!(m.contains("nesting"));
    }

    fn label(id: u32) -> Instruction {
        inst(
            Label,
            vec![reg(OperandType::Label, &[id], crate::ir::Components::Zero)],
        )
    }

    #[test]
    fn calls_and_labels() {
        let insts = vec![
            inst(
                Call,
                vec![reg(OperandType::Label, &[1], crate::ir::Components::Zero)],
            ),
            bare(Ret),
            label(1),
            bare(Nop),
        ];
        // cs50 appends the final ret of the subroutine.
        let t = flow(insts).unwrap();
        assert_eq!(t.entries[0], Flow::Call { label: 2 });
        assert_eq!(t.entries[1], Flow::Ret { in_main: true });
        assert_eq!(t.entries[2], Flow::Label { id: 1 });
        assert_eq!(t.entries[4], Flow::Ret { in_main: false });
        assert_eq!(t.main_end, 2);
        assert_eq!(t.body_end(0), 2);
        assert_eq!(t.body_end(2), 5);
        assert_eq!(t.get(99), &Flow::None);
        let p = cs50(
            1,
            vec![],
            vec![
                inst(
                    Call,
                    vec![reg(OperandType::Label, &[1], crate::ir::Components::Zero)],
                ),
                bare(Ret),
                label(1),
            ],
        );
        assert_eq!(validate(&p).unwrap().labels.get(&1), Some(&2));
    }

    #[test]
    fn bad_calls_and_labels() {
        let (i, m) = flow_err(vec![inst(
            Call,
            vec![reg(OperandType::Label, &[7], crate::ir::Components::Zero)],
        )]);
        assert_eq!(i, 0);
        assert!(m.contains("l7"), "{m}");
        // A label must follow an unnested ret.
        let (i, _) = flow_err(vec![bare(Nop), label(0)]);
        assert_eq!(i, 1);
        let (i, m) = flow_err(vec![bare(Loop), bare(Ret), label(0), bare(EndLoop)]);
        assert_eq!(i, 0);
        assert!(m.contains("before label"), "{m}");
        let (i, m) = flow_err(vec![bare(Ret), label(0), bare(Ret), label(0)]);
        assert_eq!(i, 3);
        assert!(m.contains("twice"));
    }
}
