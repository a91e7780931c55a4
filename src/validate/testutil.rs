//! A tiny builder for hand-made test programs (unit tests only).

use crate::ir::{
    Components, Decl, Index, Instruction, Opcode, Operand, OperandType, Program, ProgramKind,
    Selection, Version,
};

pub fn version(kind: ProgramKind, major: u8, minor: u8) -> Version {
    Version { kind, major, minor }
}

/// A register operand with immediate indices and the given components.
pub fn reg(ty: OperandType, idx: &[u32], comps: Components) -> Operand {
    let mut o = Operand::new(ty, comps);
    o.indices = idx.iter().map(|&i| Index::Imm32(i)).collect();
    o
}

pub fn mask(m: u8) -> Components {
    Components::Four(Selection::Mask(m))
}

pub fn swz(s: [u8; 4]) -> Components {
    Components::Four(Selection::Swizzle(s))
}

pub fn sel(c: u8) -> Components {
    Components::Four(Selection::Select1(c))
}

/// `r#.mask` destination.
pub fn rd(i: u32, m: u8) -> Operand {
    reg(OperandType::Temp, &[i], mask(m))
}

/// `r#.xyzw` source.
pub fn rs(i: u32) -> Operand {
    reg(OperandType::Temp, &[i], swz([0, 1, 2, 3]))
}

/// `r#.x` scalar source.
pub fn rx(i: u32) -> Operand {
    reg(OperandType::Temp, &[i], sel(0))
}

/// `l(v)` scalar literal.
pub fn lit(v: u32) -> Operand {
    let mut o = Operand::new(OperandType::Imm32, Components::One);
    o.imm = vec![v];
    o
}

/// A 0-component register such as `u0`, `t1`, `g0`, `s0` (for declarations).
pub fn slot(ty: OperandType, i: u32) -> Operand {
    reg(ty, &[i], Components::Zero)
}

/// A resource operand as instructions use it (`t0.xyzw`).
pub fn res(ty: OperandType, i: u32) -> Operand {
    reg(ty, &[i], swz([0, 1, 2, 3]))
}

/// A resource destination (`u0.xyzw`).
pub fn resd(ty: OperandType, i: u32, m: u8) -> Operand {
    reg(ty, &[i], mask(m))
}

/// A system input read as `.x` (`vThreadIDInGroupFlattened.x`).
pub fn sysv(ty: OperandType) -> Operand {
    Operand::new(ty, sel(0))
}

pub fn inst(op: Opcode, operands: Vec<Operand>) -> Instruction {
    Instruction::new(op, operands)
}

pub fn bare(op: Opcode) -> Instruction {
    Instruction::new(op, Vec::new())
}

/// `cs_5_0` with 64x1x1 threads, `temps` temps, the given extra
/// declarations and instructions (a final `ret` is appended).
pub fn cs50(temps: u32, decls: Vec<Decl>, insts: Vec<Instruction>) -> Program {
    cs(5, 0, [64, 1, 1], temps, decls, insts)
}

pub fn cs(
    major: u8,
    minor: u8,
    group: [u32; 3],
    temps: u32,
    decls: Vec<Decl>,
    mut insts: Vec<Instruction>,
) -> Program {
    let mut all = vec![
        Decl::GlobalFlags(0x800),
        Decl::Temps(temps),
        Decl::ThreadGroup(group),
    ];
    all.extend(decls);
    insts.push(bare(Opcode::Ret));
    Program {
        version: version(ProgramKind::Compute, major, minor),
        decls: all,
        insts,
    }
}

/// `ps_5_0` declaring `o0` and the given declarations.
pub fn ps50(temps: u32, decls: Vec<Decl>, mut insts: Vec<Instruction>) -> Program {
    let mut all = vec![
        Decl::Temps(temps),
        Decl::Output(reg(OperandType::Output, &[0], mask(0xF))),
    ];
    all.extend(decls);
    insts.push(bare(Opcode::Ret));
    Program {
        version: version(ProgramKind::Pixel, 5, 0),
        decls: all,
        insts,
    }
}
