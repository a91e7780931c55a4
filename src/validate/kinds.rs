//! Resource kinds: which declared memory each resource opcode accepts.
//!
//! In: one instruction and the slot tables of [`ProgramInfo`]. Out: `Ok`
//! or a message for a [`super::Rule::ResourceKind`] error. Invariant: after
//! `check_kinds`, a raw opcode names raw memory, a structured opcode
//! structured memory, a typed opcode a typed view of a suitable dimension,
//! an atomic a u#/g# an atomic can target, and every RESOURCE_DIM extended
//! token agrees with the declaration. `record_usage` also notes barriers,
//! atomics, doubles and UAV counters in [`ProgramInfo`].

use crate::ir::{
    ExtOpcode, Instruction, OpClass, Opcode, Operand, OperandType, ResourceDim, ReturnType,
};

use super::info::{ResourceKind, TgsmKind};
use super::ProgramInfo;

/// The declared memory an operand names: an SRV, a UAV or a TGSM block.
#[derive(Clone, Copy, Debug)]
enum Mem {
    Srv(ResourceKind),
    Uav(ResourceKind),
    Tgsm(TgsmKind),
}

impl Mem {
    fn is_raw(self) -> bool {
        matches!(
            self,
            Mem::Srv(ResourceKind::Raw) | Mem::Uav(ResourceKind::Raw) | Mem::Tgsm(TgsmKind::Raw)
        )
    }

    fn is_structured(self) -> bool {
        matches!(
            self,
            Mem::Srv(ResourceKind::Structured { .. })
                | Mem::Uav(ResourceKind::Structured { .. })
                | Mem::Tgsm(TgsmKind::Structured { .. })
        )
    }

    fn typed(self) -> Option<(ResourceDim, [ReturnType; 4])> {
        match self {
            Mem::Srv(ResourceKind::Typed { dim, ret, .. })
            | Mem::Uav(ResourceKind::Typed { dim, ret, .. }) => Some((dim, ret)),
            _ => None,
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Mem::Srv(k) | Mem::Uav(k) => k.describe(),
            Mem::Tgsm(TgsmKind::Raw) => "raw TGSM",
            Mem::Tgsm(TgsmKind::Structured { .. }) => "structured TGSM",
        }
    }
}

/// The declaration behind a t#/u#/g# operand (already known to exist).
fn lookup(info: &ProgramInfo, op: &Operand) -> Option<Mem> {
    let key = op.imm_index(0)?;
    match op.ty {
        OperandType::Resource => info.srvs.get(&key).map(|r| Mem::Srv(r.kind)),
        OperandType::Uav => info.uavs.get(&key).map(|u| Mem::Uav(u.kind)),
        OperandType::Tgsm => info.tgsm.get(&key).map(|g| Mem::Tgsm(g.kind)),
        _ => None,
    }
}

/// The memory operand of a resource instruction and its position.
fn mem_operand(inst: &Instruction) -> Option<&Operand> {
    inst.operands.iter().find(|o| {
        matches!(
            o.ty,
            OperandType::Resource | OperandType::Uav | OperandType::Tgsm
        )
    })
}

fn name(op: &Operand) -> String {
    format!("{}{}", op.ty.prefix(), op.imm_index(0).unwrap_or(0))
}

pub fn check_kinds(info: &ProgramInfo, inst: &Instruction) -> Result<(), String> {
    let Some(op) = mem_operand(inst) else {
        return Ok(());
    };
    let Some(mem) = lookup(info, op) else {
        return Ok(());
    };
    let Some((ok, want)) = kind_rule(inst.opcode, mem) else {
        return Ok(());
    };
    if ok {
        return Ok(());
    }
    Err(format!(
        "{} needs {want}, but {} is {}",
        inst.opcode.mnemonic(),
        name(op),
        mem.describe()
    ))
}

/// Whether `mem` suits opcode `op`, and what the opcode wants (`None` for
/// opcodes without a kind rule).
fn kind_rule(op: Opcode, mem: Mem) -> Option<(bool, &'static str)> {
    use Opcode::*;
    let typed = |ok: fn(ResourceDim) -> bool| mem.typed().is_some_and(|(d, _)| ok(d));
    Some(match op {
        LdRaw | LdRawS | StoreRaw => (mem.is_raw(), "a raw buffer or raw TGSM"),
        LdStructured | LdStructuredS | StoreStructured => (
            mem.is_structured(),
            "a structured buffer or structured TGSM",
        ),
        LdUavTyped | LdUavTypedS | StoreUavTyped => (
            matches!(mem, Mem::Uav(ResourceKind::Typed { .. })),
            "a typed UAV",
        ),
        Ld | LdS => (
            typed(|d| !is_ms(d) && !is_cube(d)),
            "a typed, non-multisampled, non-cube resource",
        ),
        LdMs | LdMsS => (typed(is_ms), "a multisampled texture"),
        ResInfo => (
            typed(|d| d != ResourceDim::Buffer),
            "a typed texture (not a buffer)",
        ),
        BufInfo => (
            matches!(mem, Mem::Srv(k) | Mem::Uav(k) if k.is_buffer()),
            "a buffer (typed, raw or structured)",
        ),
        SampleInfo | SamplePos => (typed(|_| true), "a typed texture"),
        ImmAtomicAlloc | ImmAtomicConsume => (
            matches!(mem, Mem::Uav(ResourceKind::Structured { .. })),
            "a structured UAV",
        ),
        op if op.class() == OpClass::Sample => (
            typed(|d| d != ResourceDim::Buffer && !is_ms(d)),
            "a typed texture (not a buffer or multisampled)",
        ),
        op if op.class() == OpClass::Atomic => (
            is_atomic_target(mem),
            "raw, structured or 32-bit integer typed memory",
        ),
        _ => return None,
    })
}

fn is_ms(d: ResourceDim) -> bool {
    matches!(d, ResourceDim::Texture2DMS | ResourceDim::Texture2DMSArray)
}

fn is_cube(d: ResourceDim) -> bool {
    matches!(d, ResourceDim::TextureCube | ResourceDim::TextureCubeArray)
}

/// Atomics work on u#/g#; a typed u# must be declared UINT or SINT.
fn is_atomic_target(mem: Mem) -> bool {
    match mem {
        Mem::Srv(_) => false,
        Mem::Uav(ResourceKind::Typed { ret, .. }) => {
            matches!(ret[0], ReturnType::Uint | ReturnType::Sint)
        }
        Mem::Uav(_) | Mem::Tgsm(_) => true,
    }
}

/// fxc repeats the declaration in RESOURCE_DIM extended tokens; they must agree.
pub fn check_ext_tokens(info: &ProgramInfo, inst: &Instruction) -> Result<(), String> {
    let Some(op) = mem_operand(inst) else {
        return Ok(());
    };
    let Some(mem) = lookup(info, op) else {
        return Ok(());
    };
    let kind = match mem {
        Mem::Srv(k) | Mem::Uav(k) => k,
        Mem::Tgsm(_) => return Ok(()),
    };
    for ext in &inst.ext {
        let ExtOpcode::ResourceDim { dim, stride } = *ext else {
            continue;
        };
        let agrees = match kind {
            ResourceKind::Raw => dim == ResourceDim::RawBuffer,
            ResourceKind::Structured { stride: s } => {
                dim == ResourceDim::StructuredBuffer && stride == s
            }
            ResourceKind::Typed { dim: d, .. } => dim == d,
        };
        if !agrees {
            return Err(format!(
                "the extended token says {dim:?} (stride {stride}) but {} is declared as {}",
                name(op),
                kind.describe()
            ));
        }
    }
    Ok(())
}

/// cs_4_x writes TGSM only as `store_structured g#, vThreadIDInGroupFlattened, l(offset)`.
pub fn check_cs4_tgsm_store(inst: &Instruction) -> Result<(), String> {
    if inst.operands.first().map(|o| o.ty) != Some(OperandType::Tgsm) {
        return Ok(());
    }
    let index_ok =
        inst.operands.get(1).map(|o| o.ty) == Some(OperandType::ThreadIdInGroupFlattened);
    let offset_ok = inst.operands.get(2).map(|o| o.ty) == Some(OperandType::Imm32);
    if !index_ok || !offset_ok {
        return Err("cs_4_x writes TGSM only with struct index vThreadIDInGroupFlattened and a literal byte offset".into());
    }
    Ok(())
}

/// Records barriers, atomics, doubles and counter use.
pub fn record_usage(info: &mut ProgramInfo, inst: &Instruction) -> Result<(), String> {
    match inst.opcode.class() {
        OpClass::Sync => {
            info.uses_barrier |= inst.sync_flags() & crate::ir::sync_flags::THREADS_IN_GROUP != 0;
        }
        OpClass::Atomic => info.uses_atomics = true,
        OpClass::Double => info.uses_doubles = true,
        _ => {}
    }
    let alloc = inst.opcode == Opcode::ImmAtomicAlloc;
    if !alloc && inst.opcode != Opcode::ImmAtomicConsume {
        return Ok(());
    }
    let Some(slot) = inst.operands.get(1).and_then(|o| o.imm_index(0)) else {
        return Ok(());
    };
    let Some(uav) = info.uavs.get_mut(&slot) else {
        return Ok(());
    };
    if alloc {
        uav.uses_alloc = true;
    } else {
        uav.uses_consume = true;
    }
    if uav.uses_alloc && uav.uses_consume {
        return Err(format!(
            "u{slot} is used with both imm_atomic_alloc and imm_atomic_consume"
        ));
    }
    Ok(())
}
