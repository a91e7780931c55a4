//! Operand shapes: how many operands each opcode takes, which of them are
//! destinations, and which register files each position accepts.
//!
//! In: one instruction. Out: `Ok` or an [`Rule::Operand`] error naming the
//! operand. Invariant: after `check_shape`, `inst.operands.len()` equals
//! the length of `signature(inst.opcode)`, every destination is a writable
//! register file with a MASK selection, every resource position holds a
//! t#/u#/g#/s#/l# of the accepted file, and the double, store and
//! condition operand rules of `sm5-semantics.md` §8, §9, §11.3 hold. The
//! decoder only knows token lengths, so this is where counts are enforced.

use crate::ir::{
    Components, Instruction, OpClass, Opcode, Operand, OperandType, Program, Selection,
};

use super::{Rule, VResult, ValidationError};

/// What an operand position accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// A written register (r#, x#, o#, null, oDepth, ...).
    Dst,
    /// A read value (r#, v#, cb, icb, l(), ...).
    Src,
    /// A scalar read value (SELECT_1 or 1-component): conditions, selectors.
    Scalar,
    /// A shader resource view t#.
    Srv,
    /// t# or u# (queries).
    SrvUav,
    /// t# or the rasterizer (sampleinfo).
    SrvRast,
    /// t#, u# or g# (raw/structured loads).
    AnyMem,
    /// u# only, written (store_uav_typed, imm_atomic_alloc/consume).
    Uav,
    /// u# read (ld_uav_typed).
    UavSrc,
    /// u# or g#, written (store_raw/structured, atomics).
    Mem,
    /// s#.
    Sampler,
    /// l# label.
    Label,
}

use Role::*;

const D1: &[Role] = &[Dst, Src];
const D2: &[Role] = &[Dst, Src, Src];
const D3: &[Role] = &[Dst, Src, Src, Src];
const D4: &[Role] = &[Dst, Src, Src, Src, Src];
const DD2: &[Role] = &[Dst, Dst, Src, Src];
const NONE: &[Role] = &[];
const COND: &[Role] = &[Scalar];

/// The operand roles of `op` in bytecode order, or `None` for opcodes whose
/// operand list this validator does not model (class linkage, HS/GS/DS
/// markers), which are left unchecked.
pub fn signature(op: Opcode) -> Option<&'static [Role]> {
    match op.class() {
        OpClass::Float => Some(float_signature(op)),
        OpClass::Int => Some(int_signature(op)),
        OpClass::Compare => Some(D2),
        OpClass::Convert => Some(D1),
        OpClass::Move => Some(move_signature(op)),
        OpClass::Double => Some(double_signature(op)),
        OpClass::Flow => flow_signature(op),
        OpClass::Memory => memory_signature(op),
        OpClass::Sample => sample_signature(op),
        OpClass::Atomic => Some(atomic_signature(op)),
        OpClass::Sync => Some(NONE),
        OpClass::Graphics => graphics_signature(op),
        OpClass::Misc => misc_signature(op),
        OpClass::Decl | OpClass::CustomData => None,
    }
}

fn float_signature(op: Opcode) -> &'static [Role] {
    match op {
        Opcode::Add | Opcode::Div | Opcode::Dp2 | Opcode::Dp3 | Opcode::Dp4 => D2,
        Opcode::Min | Opcode::Max | Opcode::Mul => D2,
        Opcode::Mad => D3,
        Opcode::SinCos => &[Dst, Dst, Src],
        _ => D1,
    }
}

fn int_signature(op: Opcode) -> &'static [Role] {
    match op {
        Opcode::INeg | Opcode::Not | Opcode::CountBits | Opcode::BfRev => D1,
        Opcode::FirstBitHi | Opcode::FirstBitLo | Opcode::FirstBitShi => D1,
        Opcode::IMad | Opcode::UMad | Opcode::UBfe | Opcode::IBfe | Opcode::Msad => D3,
        Opcode::IMul | Opcode::UMul | Opcode::UDiv | Opcode::UAddc | Opcode::USubb => DD2,
        Opcode::Bfi => D4,
        _ => D2,
    }
}

fn move_signature(op: Opcode) -> &'static [Role] {
    match op {
        Opcode::Movc => D3,
        Opcode::Swapc => &[Dst, Dst, Src, Src, Src],
        _ => D1,
    }
}

fn double_signature(op: Opcode) -> &'static [Role] {
    match op {
        Opcode::DMov | Opcode::Dtof | Opcode::Ftod | Opcode::DRcp => D1,
        Opcode::Dtoi | Opcode::Dtou | Opcode::Itod | Opcode::Utod => D1,
        Opcode::DMovc | Opcode::DFma => D3,
        _ => D2,
    }
}

fn flow_signature(op: Opcode) -> Option<&'static [Role]> {
    Some(match op {
        Opcode::Breakc | Opcode::Continuec | Opcode::If | Opcode::Retc => COND,
        Opcode::Switch | Opcode::Case => COND,
        Opcode::Call | Opcode::Label => &[Label],
        Opcode::Callc => &[Scalar, Label],
        Opcode::InterfaceCall => return None,
        _ => NONE,
    })
}

fn memory_signature(op: Opcode) -> Option<&'static [Role]> {
    Some(match op {
        Opcode::Ld => &[Dst, Src, Srv],
        Opcode::LdMs => &[Dst, Src, Srv, Src],
        Opcode::ResInfo => &[Dst, Src, SrvUav],
        Opcode::SamplePos => &[Dst, SrvRast, Src],
        Opcode::SampleInfo => &[Dst, SrvRast],
        Opcode::BufInfo => &[Dst, SrvUav],
        Opcode::LdUavTyped => &[Dst, Src, UavSrc],
        Opcode::StoreUavTyped => &[Uav, Src, Src],
        Opcode::LdRaw => &[Dst, Src, AnyMem],
        Opcode::StoreRaw => &[Mem, Src, Src],
        Opcode::LdStructured => &[Dst, Src, Src, AnyMem],
        Opcode::StoreStructured => &[Mem, Src, Src, Src],
        Opcode::LdS => &[Dst, Dst, Src, Srv],
        Opcode::LdMsS => &[Dst, Dst, Src, Srv, Src],
        Opcode::LdUavTypedS => &[Dst, Dst, Src, UavSrc],
        Opcode::LdRawS => &[Dst, Dst, Src, AnyMem],
        Opcode::LdStructuredS => &[Dst, Dst, Src, Src, AnyMem],
        _ => return None,
    })
}

fn sample_signature(op: Opcode) -> Option<&'static [Role]> {
    Some(match op {
        Opcode::Sample | Opcode::Lod | Opcode::Gather4 => &[Dst, Src, Srv, Sampler],
        Opcode::SampleC | Opcode::SampleCLz | Opcode::SampleL | Opcode::SampleB => {
            &[Dst, Src, Srv, Sampler, Src]
        }
        Opcode::Gather4C => &[Dst, Src, Srv, Sampler, Src],
        Opcode::SampleD => &[Dst, Src, Srv, Sampler, Src, Src],
        Opcode::Gather4Po => &[Dst, Src, Src, Srv, Sampler],
        Opcode::Gather4PoC => &[Dst, Src, Src, Srv, Sampler, Src],
        Opcode::Gather4S => &[Dst, Dst, Src, Srv, Sampler],
        Opcode::Gather4CS => &[Dst, Dst, Src, Srv, Sampler, Src],
        Opcode::Gather4PoS => &[Dst, Dst, Src, Src, Srv, Sampler],
        Opcode::Gather4PoCS => &[Dst, Dst, Src, Src, Srv, Sampler, Src],
        Opcode::SampleLS | Opcode::SampleCLzS | Opcode::SampleClS => {
            &[Dst, Dst, Src, Srv, Sampler, Src]
        }
        Opcode::SampleBClS | Opcode::SampleCClS => &[Dst, Dst, Src, Srv, Sampler, Src, Src],
        Opcode::SampleDClS => &[Dst, Dst, Src, Srv, Sampler, Src, Src, Src],
        _ => return None,
    })
}

fn atomic_signature(op: Opcode) -> &'static [Role] {
    match op {
        Opcode::AtomicCmpStore => &[Mem, Src, Src, Src],
        Opcode::ImmAtomicAlloc | Opcode::ImmAtomicConsume => &[Dst, Uav],
        Opcode::ImmAtomicCmpExch => &[Dst, Mem, Src, Src, Src],
        op if op.number() >= Opcode::ImmAtomicIAdd.number() => &[Dst, Mem, Src, Src],
        _ => &[Mem, Src, Src],
    }
}

fn graphics_signature(op: Opcode) -> Option<&'static [Role]> {
    Some(match op {
        Opcode::Discard => COND,
        Opcode::Cut | Opcode::Emit | Opcode::EmitThenCut => NONE,
        Opcode::DerivRtx | Opcode::DerivRty => D1,
        Opcode::DerivRtxCoarse | Opcode::DerivRtxFine => D1,
        Opcode::DerivRtyCoarse | Opcode::DerivRtyFine => D1,
        Opcode::EvalCentroid => D1,
        Opcode::EvalSnapped | Opcode::EvalSampleIndex => D2,
        _ => return None,
    })
}

fn misc_signature(op: Opcode) -> Option<&'static [Role]> {
    match op {
        Opcode::Nop | Opcode::Abort | Opcode::DebugBreak => Some(NONE),
        Opcode::CheckAccessFullyMapped => Some(D1),
        _ => None,
    }
}

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
    let Some(roles) = signature(inst.opcode) else {
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
        (Scalar, Components::Four(Selection::Mask(_) | Selection::Swizzle(_))) => {
            Err("needs a single component (.x, .y, .z or .w)".into())
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
    !matches!(
        op,
        Opcode::DEq
            | Opcode::DGe
            | Opcode::DLt
            | Opcode::DNe
            | Opcode::Dtof
            | Opcode::Dtoi
            | Opcode::Dtou
    )
}

/// True for double ops whose sources are 32-bit (conversions to double).
fn reads_32bit(op: Opcode) -> bool {
    matches!(op, Opcode::Ftod | Opcode::Itod | Opcode::Utod)
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
    fn every_instruction_opcode_with_a_signature_has_sane_roles() {
        for &op in Opcode::ALL {
            if let Some(roles) = signature(op) {
                assert!(roles.len() <= 8, "{op:?}");
                assert!(!op.is_declaration(), "{op:?}");
            }
        }
        assert_eq!(signature(Opcode::ImmAtomicIAdd).map(<[Role]>::len), Some(4));
        assert_eq!(
            signature(Opcode::ImmAtomicCmpExch).map(<[Role]>::len),
            Some(5)
        );
        assert_eq!(signature(Opcode::AtomicUMin).map(<[Role]>::len), Some(3));
        assert_eq!(
            signature(Opcode::ImmAtomicAlloc).map(<[Role]>::len),
            Some(2)
        );
        assert_eq!(signature(Opcode::Swapc).map(<[Role]>::len), Some(5));
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
    fn role_tables_agree_with_the_opcode_table() {
        for &op in Opcode::ALL {
            if let (Some(roles), Some(n)) = (signature(op), op.operand_count()) {
                assert_eq!(roles.len(), n, "{}", op.mnemonic());
            }
        }
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
    }

    #[test]
    fn store_masks() {
        let uav = Decl::UavRaw {
            op: slot(OperandType::Uav, 0),
            flags: crate::ir::UavFlags::default(),
            space: 0,
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
