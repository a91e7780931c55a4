//! The jump table of structured control flow: one short function per
//! structure marker.
//!
//! In: the instruction list. Out: [`Prepared::jumps`], the switch case
//! tables and label positions, or the first unbalanced marker. Invariant:
//! every target is an index `<= insts.len()`.

use std::collections::BTreeMap;

use crate::ir::{Index, Instruction, Opcode, Operand, OperandType};
use crate::runtime::RuntimeError;

use super::{invalid, Jump, Prepared, SwitchTable};

/// One open construct while matching structure markers.
enum Open {
    If { else_at: Option<usize> },
    Loop { breaks: Vec<usize> },
    Switch { table: usize, breaks: Vec<usize> },
}

/// The tables being built and the constructs still open.
struct Matcher {
    jumps: Vec<Jump>,
    switches: Vec<SwitchTable>,
    labels: BTreeMap<u32, usize>,
    stack: Vec<(usize, Open)>,
}

type Step = Result<(), RuntimeError>;

pub(super) fn build_jumps(p: &mut Prepared) -> Step {
    let mut m = Matcher {
        jumps: vec![Jump::None; p.program.insts.len()],
        switches: Vec::new(),
        labels: BTreeMap::new(),
        stack: Vec::new(),
    };
    for (i, inst) in p.program.insts.iter().enumerate() {
        m.step(i, inst)?;
    }
    if let Some((at, _)) = m.stack.last() {
        return Err(invalid(Some(*at), "construct is never closed"));
    }
    p.jumps = m.jumps;
    p.switches = m.switches;
    p.labels = m.labels;
    Ok(())
}

impl Matcher {
    fn step(&mut self, i: usize, inst: &Instruction) -> Step {
        match inst.opcode {
            Opcode::If => self.open(i, Open::If { else_at: None }),
            Opcode::Else => self.else_(i),
            Opcode::EndIf => self.end_if(i),
            Opcode::Loop => self.open(i, Open::Loop { breaks: Vec::new() }),
            Opcode::EndLoop => self.end_loop(i),
            Opcode::Switch => self.switch(i),
            Opcode::Case => self.case(i, &inst.operands),
            Opcode::Default => self.default(i),
            Opcode::EndSwitch => self.end_switch(i),
            Opcode::Break | Opcode::Breakc => self.break_(i),
            Opcode::Continue | Opcode::Continuec => self.continue_(i),
            Opcode::Label => self.label(i, &inst.operands),
            _ => Ok(()),
        }
    }

    fn open(&mut self, i: usize, o: Open) -> Step {
        self.stack.push((i, o));
        Ok(())
    }

    fn else_(&mut self, i: usize) -> Step {
        match self.stack.last_mut() {
            Some((at, Open::If { else_at: e @ None })) => {
                self.jumps[*at] = Jump::IfFalse(i + 1);
                *e = Some(i);
                Ok(())
            }
            _ => Err(invalid(Some(i), "else without a matching if")),
        }
    }

    fn end_if(&mut self, i: usize) -> Step {
        match self.stack.pop() {
            Some((_, Open::If { else_at: Some(e) })) => self.jumps[e] = Jump::To(i + 1),
            Some((at, Open::If { else_at: None })) => self.jumps[at] = Jump::IfFalse(i + 1),
            _ => return Err(invalid(Some(i), "endif without a matching if")),
        }
        Ok(())
    }

    fn end_loop(&mut self, i: usize) -> Step {
        let Some((at, Open::Loop { breaks })) = self.stack.pop() else {
            return Err(invalid(Some(i), "endloop without a matching loop"));
        };
        self.jumps[i] = Jump::To(at + 1);
        self.land(breaks, i + 1);
        Ok(())
    }

    /// Points every `break` in `breaks` at `to`.
    fn land(&mut self, breaks: Vec<usize>, to: usize) {
        for b in breaks {
            self.jumps[b] = Jump::To(to);
        }
    }

    fn switch(&mut self, i: usize) -> Step {
        self.switches.push(SwitchTable {
            cases: Vec::new(),
            default: usize::MAX,
        });
        let table = self.switches.len() - 1;
        self.jumps[i] = Jump::Switch(table);
        self.open(
            i,
            Open::Switch {
                table,
                breaks: Vec::new(),
            },
        )
    }

    /// The case table of the innermost construct, which must be a switch.
    fn table(&mut self, i: usize) -> Result<&mut SwitchTable, RuntimeError> {
        match self.stack.last() {
            Some((_, Open::Switch { table, .. })) => Ok(&mut self.switches[*table]),
            _ => Err(invalid(Some(i), "case or default outside a switch")),
        }
    }

    fn case(&mut self, i: usize, ops: &[Operand]) -> Step {
        let t = self.table(i)?;
        let v = case_value(ops).ok_or_else(|| invalid(Some(i), "case without a literal"))?;
        t.cases.push((v, i + 1));
        Ok(())
    }

    fn default(&mut self, i: usize) -> Step {
        self.table(i)?.default = i + 1;
        Ok(())
    }

    fn end_switch(&mut self, i: usize) -> Step {
        let Some((_, Open::Switch { table, breaks })) = self.stack.pop() else {
            return Err(invalid(Some(i), "endswitch without a matching switch"));
        };
        let t = &mut self.switches[table];
        if t.default == usize::MAX {
            t.default = i + 1;
        }
        self.land(breaks, i + 1);
        Ok(())
    }

    fn break_(&mut self, i: usize) -> Step {
        let target = self.stack.iter_mut().rev().find_map(|(_, o)| match o {
            Open::Loop { breaks } | Open::Switch { breaks, .. } => Some(breaks),
            Open::If { .. } => None,
        });
        let breaks = target.ok_or_else(|| invalid(Some(i), "break outside a loop or switch"))?;
        breaks.push(i);
        Ok(())
    }

    fn continue_(&mut self, i: usize) -> Step {
        let target = self.stack.iter().rev().find_map(|(at, o)| match o {
            Open::Loop { .. } => Some(*at),
            _ => None,
        });
        let at = target.ok_or_else(|| invalid(Some(i), "continue outside a loop"))?;
        self.jumps[i] = Jump::To(at + 1);
        Ok(())
    }

    fn label(&mut self, i: usize, ops: &[Operand]) -> Step {
        if !self.stack.is_empty() {
            return Err(invalid(Some(i), "label inside an open if, loop or switch"));
        }
        let l = ops
            .first()
            .and_then(|o| o.imm_index(0))
            .ok_or_else(|| invalid(Some(i), "label without a number"))?;
        self.labels.insert(l, i + 1);
        Ok(())
    }
}

fn case_value(ops: &[Operand]) -> Option<u32> {
    let op = ops.first()?;
    match op.ty {
        OperandType::Imm32 => op.imm.first().copied(),
        _ => match op.indices.first() {
            Some(Index::Imm32(v)) => Some(*v),
            _ => None,
        },
    }
}
