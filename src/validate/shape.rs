//! Operand shapes: how many operands each opcode takes, which of them are
//! destinations, and which register files each position accepts (the roles
//! come from the instruction table, [`Opcode::roles`]).
//!
//! In: one instruction. Out: `Ok` or an [`Rule::Operand`] error naming the
//! operand. Invariant: after `check_shape`, `inst.operands.len()` equals
//! the length of `inst.opcode.roles()`, every destination is a writable
//! register file with a MASK selection, every resource position holds a
//! t#/u#/g#/s#/l# of the accepted file, and the double, store and
//! condition operand rules of `sm5-semantics.md` §8, §9, §11.3 hold. The
//! decoder only knows token lengths, so this is where counts are enforced.

use crate::ir::{
    Components, Instruction, OpClass, Opcode, Operand, OperandType, Program, Role, Selection,
};

use super::{Rule, VResult, ValidationError};

use Role::*;

/// Register files an instruction may write.
pub fn is_writable(ty: OperandType) -> bool {
    use OperandType::*;
    matches!(
        ty,
        Temp | IndexableTemp
            | Output
            | Null
            | OutputDepth
            | OutputDepthGe
            | OutputDepthLe
            | OutputCoverageMask
            | OutputStencilRef
            | OutputControlPoint
    )
}

/// Register files an instruction may read as a value.
pub fn is_readable(ty: OperandType) -> bool {
    use OperandType::*;
    !matches!(
        ty,
        Output
            | Null
            | OutputDepth
            | OutputDepthGe
            | OutputDepthLe
            | OutputCoverageMask
            | OutputStencilRef
            | Sampler
            | Resource
            | Uav
            | Tgsm
            | Label
            | Stream
            | FunctionBody
            | FunctionTable
            | Interface
            | Rasterizer
    )
}

/// Checks operand count, roles, masks and the special shape rules of `inst`.
pub fn check_shape(_p: &Program, index: usize, inst: &Instruction) -> VResult<()> {
    let Some(roles) = inst.opcode.roles() else {
        return Ok(());
    };
    let err = |msg: String| ValidationError::inst(Rule::Operand, index, inst.opcode, msg);
    if inst.operands.len() != roles.len() {
        return Err(err(format!(
            "takes {} operands, found {}",
            roles.len(),
            inst.operands.len()
        )));
    }
    for (n, (op, role)) in inst.operands.iter().zip(roles).enumerate() {
        check_role(op, *role).map_err(|m| err(format!("operand {n} ({}): {m}", op.ty.prefix())))?;
    }
    check_special(inst).map_err(err)
}

fn check_role(op: &Operand, role: Role) -> Result<(), String> {
    use OperandType as T;
    let file_ok = match role {
        Dst => is_writable(op.ty),
        Src | Scalar => is_readable(op.ty),
        Srv => op.ty == T::Resource,
        SrvUav => matches!(op.ty, T::Resource | T::Uav),
        SrvRast => matches!(op.ty, T::Resource | T::Rasterizer),
        AnyMem => matches!(op.ty, T::Resource | T::Uav | T::Tgsm),
        Uav | UavSrc => op.ty == T::Uav,
        Mem => matches!(op.ty, T::Uav | T::Tgsm),
        Sampler => op.ty == T::Sampler,
        Label => op.ty == T::Label,
    };
    if !file_ok {
        return Err(format!("register file not allowed here ({role:?})"));
    }
    match (role, op.comps) {
        (Dst | Uav | Mem, Components::Four(Selection::Mask(_))) => Ok(()),
        (Dst | Uav | Mem, Components::Four(_)) => Err("a destination needs a write mask".into()),
        // A replicated swizzle (`.xxxx`, vkd3d-shader's form) names one
        // component as surely as fxc's select-1 `.x`.
        (Scalar, Components::Four(Selection::Swizzle([c, d, e, f])))
            if c == d && c == e && c == f =>
        {
            Ok(())
        }
        (Scalar, Components::Four(Selection::Mask(_) | Selection::Swizzle(_))) => {
            Err("needs a single component (.x, .y, .z or .w, or a replicated .xxxx)".into())
        }
        (Src, Components::Four(Selection::Mask(_))) if op.ty != T::Imm32 && op.ty != T::Imm64 => {
            Err("a source needs a swizzle, not a write mask".into())
        }
        _ => Ok(()),
    }
}

/// Shape rules that depend on the opcode, not only the position.
fn check_special(inst: &Instruction) -> Result<(), String> {
    match inst.opcode {
        Opcode::StoreRaw | Opcode::StoreStructured => {
            let m = inst.operands[0].write_mask();
            if !matches!(m, 0x1 | 0x3 | 0x7 | 0xF) {
                return Err(format!(
                    "store mask must be .x, .xy, .xyz or .xyzw, found {}",
                    mask_name(m)
                ));
            }
            Ok(())
        }
        Opcode::StoreUavTyped if inst.operands[0].write_mask() != 0xF => Err(format!(
            "store_uav_typed mask must be .xyzw, found {}",
            mask_name(inst.operands[0].write_mask())
        )),
        op if op.class() == OpClass::Double => check_double(inst),
        _ => Ok(()),
    }
}

/// True for double ops whose destination holds doubles (vs 32-bit results).
fn writes_doubles(op: Opcode) -> bool {
    op.double_form().is_some_and(|(dst64, _)| dst64)
}

/// True for double ops whose sources are 32-bit (conversions to double).
fn reads_32bit(op: Opcode) -> bool {
    op.double_form().is_some_and(|(_, src64)| !src64)
}

fn check_double(inst: &Instruction) -> Result<(), String> {
    let dst = &inst.operands[0];
    if dst.ty == OperandType::Null {
        return Ok(());
    }
    let mask = dst.write_mask();
    if writes_doubles(inst.opcode) {
        if !matches!(mask, 0x3 | 0xC | 0xF) {
            return Err(format!(
                "double destination mask must be .xy, .zw or .xyzw, found {}",
                mask_name(mask)
            ));
        }
    } else if !matches!(mask.count_ones(), 1 | 2) {
        return Err(format!(
            "destination takes 1 or 2 components, found {}",
            mask_name(mask)
        ));
    }
    if reads_32bit(inst.opcode) {
        return Ok(());
    }
    let doubles = if writes_doubles(inst.opcode) {
        (mask.count_ones() / 2) as usize
    } else {
        mask.count_ones() as usize
    };
    let first = if writes_doubles(inst.opcode) && mask == 0xC {
        1
    } else {
        0
    };
    // dmovc's condition (source 0) is 32-bit.
    let skip = usize::from(inst.opcode == Opcode::DMovc);
    for src in inst.operands.iter().skip(1 + skip) {
        check_double_swizzle(src, first, doubles)?;
    }
    Ok(())
}

/// Each double read by slot `first..first+count` must come from `.xy` or `.zw`.
fn check_double_swizzle(src: &Operand, first: usize, count: usize) -> Result<(), String> {
    let Components::Four(Selection::Swizzle(s)) = src.comps else {
        return Ok(());
    };
    for slot in first..(first + count).min(2) {
        let pair = (s[2 * slot], s[2 * slot + 1]);
        if !matches!(pair, (0, 1) | (2, 3)) {
            return Err(format!(
                "double source swizzle must pick .xy or .zw pairs, found {}",
                swizzle_name(s)
            ));
        }
    }
    Ok(())
}

/// `.xyzw`-style name of a write mask.
pub fn mask_name(mask: u8) -> String {
    let mut s = String::from(".");
    for (bit, c) in ['x', 'y', 'z', 'w'].iter().enumerate() {
        if mask & (1 << bit) != 0 {
            s.push(*c);
        }
    }
    if s.len() == 1 {
        s.push_str("(none)");
    }
    s
}

fn swizzle_name(s: [u8; 4]) -> String {
    let names = ['x', 'y', 'z', 'w'];
    let mut out = String::from(".");
    for c in s {
        out.push(names[usize::from(c & 3)]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::TypedUavDecl;

    #[test]
    fn every_instruction_opcode_with_roles_has_sane_roles() {
        for &op in Opcode::ALL {
            if let Some(roles) = op.roles() {
                assert!(roles.len() <= 8, "{op:?}");
                assert!(!op.is_declaration(), "{op:?}");
            }
        }
        let len = |op: Opcode| op.roles().map(<[Role]>::len);
        assert_eq!(len(Opcode::ImmAtomicIAdd), Some(4));
        assert_eq!(len(Opcode::ImmAtomicCmpExch), Some(5));
        assert_eq!(len(Opcode::AtomicUMin), Some(3));
        assert_eq!(len(Opcode::ImmAtomicAlloc), Some(2));
        assert_eq!(len(Opcode::Swapc), Some(5));
    }

    use crate::ir::{Decl, Opcode::*};
    use crate::validate::testutil::*;
    use crate::validate::{validate, Rule, ValidationError};

    fn operand_err(insts: Vec<Instruction>) -> ValidationError {
        let flags = Decl::GlobalFlags(0x800 | 0x1000 | 0x20000);
        let e = validate(&cs50(2, vec![flags], insts)).expect_err("should fail");
        assert_eq!((e.rule, e.inst_index), (Rule::Operand, Some(0)), "{e}");
        e
    }

    #[test]
    fn operand_counts() {
        let e = operand_err(vec![inst(Add, vec![rd(0, 1), rs(0)])]);
        assert_eq!(e.message, "takes 3 operands, found 2");
        operand_err(vec![inst(IMul, vec![rd(0, 1), rs(0), rs(1)])]);
        operand_err(vec![inst(Loop, vec![rs(0)])]);
    }

    #[test]
    fn destinations_must_be_writable_masks() {
        let e = operand_err(vec![inst(Mov, vec![lit(1), rs(0)])]);
        assert!(e.message.contains("operand 0"), "{e}");
        let e = operand_err(vec![inst(Mov, vec![rs(0), rs(1)])]);
        assert!(e.message.contains("write mask"), "{e}");
        let e = operand_err(vec![inst(Mov, vec![rd(0, 1), rd(1, 1)])]);
        assert!(e.message.contains("swizzle"), "{e}");
        // null is a legal destination of a two-result op.
        let null = Operand::new(OperandType::Null, Components::Zero);
        let p = cs50(
            2,
            vec![],
            vec![inst(UDiv, vec![null, rd(0, 1), rx(0), rx(1)])],
        );
        assert!(validate(&p).is_ok());
    }

    #[test]
    fn conditions_are_scalars() {
        let e = operand_err(vec![inst(If, vec![rs(0)]), bare(EndIf)]);
        assert!(e.message.contains("single component"), "{e}");
        let p = cs50(2, vec![], vec![inst(If, vec![rx(0)]), bare(EndIf)]);
        assert!(validate(&p).is_ok());
        // vkd3d-shader's replicated swizzle is one component too; a mixed
        // swizzle is not.
        let mut yyyy = rx(0);
        yyyy.comps = Components::Four(Selection::Swizzle([1; 4]));
        let p = cs50(2, vec![], vec![inst(If, vec![yyyy.clone()]), bare(EndIf)]);
        assert!(validate(&p).is_ok());
        yyyy.comps = Components::Four(Selection::Swizzle([1, 1, 1, 0]));
        let e = operand_err(vec![inst(If, vec![yyyy]), bare(EndIf)]);
        assert!(e.message.contains("single component"), "{e}");
    }

    #[test]
    fn store_masks() {
        let uav = Decl::UavRaw {
            op: slot(OperandType::Uav, 0),
            flags: crate::ir::UavFlags::default(),
            space: 0,
            buffer_dim: false,
        };
        for (m, ok) in [
            (0x1, true),
            (0x3, true),
            (0x7, true),
            (0xF, true),
            (0x2, false),
            (0x5, false),
            (0xE, false),
        ] {
            let store = inst(StoreRaw, vec![resd(OperandType::Uav, 0, m), lit(0), rs(0)]);
            let r = validate(&cs50(1, vec![uav.clone()], vec![store]));
            assert_eq!(r.is_ok(), ok, "mask {m:#x}: {r:?}");
        }
        let typed = Decl::UavTyped(TypedUavDecl {
            op: slot(OperandType::Uav, 0),
            dim: crate::ir::ResourceDim::Buffer,
            flags: crate::ir::UavFlags::default(),
            ret: [crate::ir::ReturnType::Float; 4],
            space: 0,
        });
        let store = inst(
            StoreUavTyped,
            vec![resd(OperandType::Uav, 0, 0x1), rx(0), rs(0)],
        );
        let e = validate(&cs50(1, vec![typed], vec![store])).expect_err("partial mask");
        assert!(e.message.contains(".xyzw"), "{e}");
    }

    #[test]
    fn double_masks_and_swizzles() {
        let ok = |insts| validate(&cs50(2, vec![Decl::GlobalFlags(0x1800)], insts));
        assert!(ok(vec![inst(DAdd, vec![rd(0, 0x3), rs(0), rs(1)])]).is_ok());
        assert!(ok(vec![inst(
            DAdd,
            vec![
                rd(0, 0xC),
                reg(OperandType::Temp, &[0], swz([0, 1, 0, 1])),
                rs(1)
            ]
        )])
        .is_ok());
        assert!(ok(vec![inst(DEq, vec![rd(0, 0x1), rs(0), rs(1)])]).is_ok());
        assert!(ok(vec![inst(
            Ftod,
            vec![rd(0, 0x3), reg(OperandType::Temp, &[0], swz([2, 0, 0, 0]))]
        )])
        .is_ok());
        let e = operand_err(vec![inst(DAdd, vec![rd(0, 0x1), rs(0), rs(1)])]);
        assert!(e.message.contains(".xy, .zw or .xyzw"), "{e}");
        let e = operand_err(vec![inst(
            DAdd,
            vec![
                rd(0, 0x3),
                reg(OperandType::Temp, &[0], swz([1, 0, 2, 3])),
                rs(1),
            ],
        )]);
        assert!(e.message.contains("pairs"), "{e}");
        operand_err(vec![inst(DEq, vec![rd(0, 0x7), rs(0), rs(1)])]);
    }

    #[test]
    fn resource_positions_need_resource_files() {
        let e = operand_err(vec![inst(LdRaw, vec![rd(0, 1), lit(0), rs(0)])]);
        assert!(e.message.contains("operand 2"), "{e}");
        operand_err(vec![inst(StoreRaw, vec![rd(0, 1), lit(0), rs(0)])]);
    }

    #[test]
    fn mask_names() {
        assert_eq!(mask_name(0xF), ".xyzw");
        assert_eq!(mask_name(0x5), ".xz");
        assert_eq!(mask_name(0), ".(none)");
    }
}
