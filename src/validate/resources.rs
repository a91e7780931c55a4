//! Declarations, register files and resource kinds.
//!
//! In: `Program::decls` (to build the slot tables of [`ProgramInfo`]) and
//! then each instruction. Out: the filled-in [`ProgramInfo`], or the first
//! [`Rule::Declaration`] / [`Rule::Undeclared`] / [`Rule::ResourceKind`]
//! error. Invariant: after `collect_decls` every slot is declared once with
//! sane parameters (strides, sizes, dimensions); after `check_instruction`
//! every register an instruction names (including registers used inside
//! relative indices) is declared, every constant index is inside its
//! declaration, and every resource operand has a kind the opcode accepts.

use crate::ir::{
    Components, Decl, ExtOpcode, Index, Instruction, OpClass, Opcode, Operand, OperandType,
    Program, ProgramKind, ResourceDim, ReturnType, Selection, Version,
};

use super::info::{
    CbInfo, IndexableTempInfo, IoReg, ResourceInfo, ResourceKind, SamplerInfo, TgsmInfo, TgsmKind,
    UavInfo,
};
use super::limits::{self, decl_opcode, MAX_CB_VEC4, MAX_TEMPS};
use super::{ProgramInfo, Rule, VResult, ValidationError};

// ---------------------------------------------------------------------------
// Declarations
// ---------------------------------------------------------------------------

/// Builds the slot tables from the declarations, checking each one.
pub fn collect_decls(p: &Program) -> VResult<ProgramInfo> {
    let mut info = ProgramInfo::new(p.version);
    info.global_flags = limits::program_flags(p);
    for (index, d) in p.decls.iter().enumerate() {
        limits::check_decl_available(p, info.global_flags, index, d)?;
        let op = decl_opcode(d);
        add_decl(p.version, &mut info, index, d)
            .map_err(|m| ValidationError::decl(Rule::Declaration, index, op, m))?;
    }
    Ok(info)
}

/// The register key (slot, or SM5.1 range id) and SM5.1 range of a
/// resource-like declaration operand.
fn decl_key(v: Version, op: &Operand) -> Result<(u32, Option<(u32, u32)>), String> {
    let key = op
        .imm_index(0)
        .ok_or_else(|| format!("{} declaration needs a register number", op.ty.prefix()))?;
    if !v.is_sm51() {
        return Ok((key, None));
    }
    let lo = op
        .imm_index(1)
        .ok_or("SM5.1 declaration needs a lower bound")?;
    let hi = op
        .imm_index(2)
        .ok_or("SM5.1 declaration needs an upper bound")?;
    if hi < lo {
        return Err(format!("register range [{lo}:{hi}] is empty"));
    }
    Ok((key, Some((lo, hi))))
}

fn dup(ty: OperandType, key: u32) -> String {
    format!("{}{key} is declared twice", ty.prefix())
}

fn add_decl(v: Version, info: &mut ProgramInfo, index: usize, d: &Decl) -> Result<(), String> {
    match d {
        Decl::GlobalFlags(_) => Ok(()),
        Decl::Temps(n) => add_temps(info, *n),
        Decl::IndexableTemp { reg, len, comps } => add_indexable(info, *reg, *len, *comps),
        Decl::ThreadGroup(dims) => add_thread_group(v, info, *dims),
        Decl::ConstantBuffer {
            op,
            dynamic,
            size,
            space,
        } => add_cb(v, info, index, op, *dynamic, *size, *space),
        Decl::ImmediateConstantBuffer(words) => add_icb(info, words),
        Decl::Sampler { op, mode, space } => add_sampler(v, info, index, op, *mode, *space),
        Decl::Resource {
            op,
            dim,
            sample_count,
            ret,
            space,
        } => {
            check_typed_dim(*dim, false)?;
            let kind = ResourceKind::Typed {
                dim: *dim,
                ret: *ret,
                sample_count: *sample_count,
            };
            add_srv(v, info, index, op, kind, *space)
        }
        Decl::ResourceRaw { op, space } => add_srv(v, info, index, op, ResourceKind::Raw, *space),
        Decl::ResourceStructured { op, stride, space } => {
            limits::check_stride(*stride)?;
            add_srv(
                v,
                info,
                index,
                op,
                ResourceKind::Structured { stride: *stride },
                *space,
            )
        }
        Decl::UavTyped {
            op,
            dim,
            flags,
            ret,
            space,
        } => {
            check_typed_dim(*dim, true)?;
            let kind = ResourceKind::Typed {
                dim: *dim,
                ret: *ret,
                sample_count: 0,
            };
            add_uav(v, info, index, op, kind, *flags, *space)
        }
        Decl::UavRaw { op, flags, space } => {
            add_uav(v, info, index, op, ResourceKind::Raw, *flags, *space)
        }
        Decl::UavStructured {
            op,
            stride,
            flags,
            space,
        } => {
            limits::check_stride(*stride)?;
            add_uav(
                v,
                info,
                index,
                op,
                ResourceKind::Structured { stride: *stride },
                *flags,
                *space,
            )
        }
        Decl::TgsmRaw { op, bytes } => add_tgsm(info, index, op, TgsmKind::Raw, *bytes),
        Decl::TgsmStructured { op, stride, count } => {
            limits::check_stride(*stride)?;
            if *count == 0 {
                return Err("dcl_tgsm_structured needs at least one structure".into());
            }
            let bytes = u64::from(*stride) * u64::from(*count);
            let bytes =
                u32::try_from(bytes).map_err(|_| format!("{bytes} bytes of TGSM is too large"))?;
            add_tgsm(
                info,
                index,
                op,
                TgsmKind::Structured {
                    stride: *stride,
                    count: *count,
                },
                bytes,
            )
        }
        Decl::Input(op) => add_io(info, true, op, None, None),
        Decl::InputSgv { op, name } | Decl::InputSiv { op, name } => {
            add_io(info, true, op, Some(*name), None)
        }
        Decl::InputPs { op, interp } => add_io(info, true, op, None, Some(*interp)),
        Decl::InputPsSgv { op, interp, name } | Decl::InputPsSiv { op, interp, name } => {
            add_io(info, true, op, Some(*name), Some(*interp))
        }
        Decl::Output(op) => add_io(info, false, op, None, None),
        Decl::OutputSgv { op, name } | Decl::OutputSiv { op, name } => {
            add_io(info, false, op, Some(*name), None)
        }
        Decl::IndexRange { .. }
        | Decl::FunctionBody(_)
        | Decl::FunctionTable { .. }
        | Decl::Interface { .. }
        | Decl::Other { .. } => Ok(()),
    }
}

fn add_temps(info: &mut ProgramInfo, n: u32) -> Result<(), String> {
    if info.temps != 0 {
        return Err("dcl_temps appears twice".into());
    }
    if u64::from(n) > MAX_TEMPS {
        return Err(format!("{n} temps, more than {MAX_TEMPS}"));
    }
    info.temps = n;
    Ok(())
}

fn add_indexable(info: &mut ProgramInfo, reg: u32, len: u32, comps: u32) -> Result<(), String> {
    if len == 0 || u64::from(len) > MAX_TEMPS {
        return Err(format!(
            "x{reg} has {len} elements; 1..={MAX_TEMPS} allowed"
        ));
    }
    if !(1..=4).contains(&comps) {
        return Err(format!("x{reg} has {comps} components; 1..=4 allowed"));
    }
    if info
        .indexable_temps
        .insert(reg, IndexableTempInfo { len, comps })
        .is_some()
    {
        return Err(dup(OperandType::IndexableTemp, reg));
    }
    Ok(())
}

fn add_thread_group(v: Version, info: &mut ProgramInfo, dims: [u32; 3]) -> Result<(), String> {
    if info.thread_group.is_some() {
        return Err("dcl_thread_group appears twice".into());
    }
    limits::check_thread_group(v, dims)?;
    info.thread_group = Some(dims);
    Ok(())
}

fn add_cb(
    v: Version,
    info: &mut ProgramInfo,
    decl_index: usize,
    op: &Operand,
    dynamic: bool,
    size: u32,
    space: u32,
) -> Result<(), String> {
    let (key, range) = decl_key(v, op)?;
    limits::check_slot(v, OperandType::ConstantBuffer, key)?;
    // Before SM5.1 the size is the operand's second index.
    let size = if v.is_sm51() {
        size
    } else {
        op.imm_index(1).unwrap_or(size)
    };
    if size > MAX_CB_VEC4 {
        return Err(format!("cb{key} has {size} vec4, more than {MAX_CB_VEC4}"));
    }
    let cb = CbInfo {
        size,
        dynamic,
        range,
        space,
        decl_index,
    };
    if info.constant_buffers.insert(key, cb).is_some() {
        return Err(dup(OperandType::ConstantBuffer, key));
    }
    Ok(())
}

fn add_icb(info: &mut ProgramInfo, words: &[u32]) -> Result<(), String> {
    if info.icb.is_some() {
        return Err("a second immediate constant buffer".into());
    }
    if words.len() % 4 != 0 {
        return Err(format!(
            "immediate constant buffer has {} DWORDs, not a multiple of 4",
            words.len()
        ));
    }
    let rows = words.len() / 4;
    if rows > MAX_CB_VEC4 as usize {
        return Err(format!(
            "immediate constant buffer has {rows} vec4, more than {MAX_CB_VEC4}"
        ));
    }
    info.icb = Some(
        words
            .chunks_exact(4)
            .map(|c| [c[0], c[1], c[2], c[3]])
            .collect(),
    );
    Ok(())
}

fn add_sampler(
    v: Version,
    info: &mut ProgramInfo,
    decl_index: usize,
    op: &Operand,
    mode: u32,
    space: u32,
) -> Result<(), String> {
    let (key, range) = decl_key(v, op)?;
    limits::check_slot(v, OperandType::Sampler, key)?;
    if mode > 2 {
        return Err(format!(
            "sampler mode {mode} is not default, comparison or mono"
        ));
    }
    if info
        .samplers
        .insert(
            key,
            SamplerInfo {
                mode,
                range,
                space,
                decl_index,
            },
        )
        .is_some()
    {
        return Err(dup(OperandType::Sampler, key));
    }
    Ok(())
}

/// Typed declarations need a real dimension; UAVs exclude cubes and MS.
fn check_typed_dim(dim: ResourceDim, uav: bool) -> Result<(), String> {
    use ResourceDim::*;
    let ok = match dim {
        Unknown | RawBuffer | StructuredBuffer => false,
        TextureCube | TextureCubeArray | Texture2DMS | Texture2DMSArray => !uav,
        _ => true,
    };
    if ok {
        Ok(())
    } else {
        Err(format!("dimension {dim:?} is not allowed here"))
    }
}

fn add_srv(
    v: Version,
    info: &mut ProgramInfo,
    decl_index: usize,
    op: &Operand,
    kind: ResourceKind,
    space: u32,
) -> Result<(), String> {
    let (key, range) = decl_key(v, op)?;
    limits::check_slot(v, OperandType::Resource, key)?;
    if info
        .srvs
        .insert(
            key,
            ResourceInfo {
                kind,
                range,
                space,
                decl_index,
            },
        )
        .is_some()
    {
        return Err(dup(OperandType::Resource, key));
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn add_uav(
    v: Version,
    info: &mut ProgramInfo,
    decl_index: usize,
    op: &Operand,
    kind: ResourceKind,
    flags: crate::ir::UavFlags,
    space: u32,
) -> Result<(), String> {
    let (key, range) = decl_key(v, op)?;
    limits::check_uav_slot(v, key)?;
    let uav = UavInfo {
        kind,
        flags,
        range,
        space,
        decl_index,
        uses_alloc: false,
        uses_consume: false,
    };
    if info.uavs.insert(key, uav).is_some() {
        return Err(dup(OperandType::Uav, key));
    }
    Ok(())
}

fn add_tgsm(
    info: &mut ProgramInfo,
    decl_index: usize,
    op: &Operand,
    kind: TgsmKind,
    bytes: u32,
) -> Result<(), String> {
    let key = op
        .imm_index(0)
        .ok_or("g# declaration needs a register number")?;
    if bytes == 0 || bytes % 4 != 0 {
        return Err(format!(
            "g{key} is {bytes} bytes; TGSM sizes are non-zero multiples of 4"
        ));
    }
    let offset = info.tgsm_bytes;
    let total = u64::from(offset) + u64::from(bytes);
    info.tgsm_bytes = u32::try_from(total).map_err(|_| "TGSM total overflows".to_string())?;
    if info
        .tgsm
        .insert(
            key,
            TgsmInfo {
                kind,
                offset,
                bytes,
                decl_index,
            },
        )
        .is_some()
    {
        return Err(dup(OperandType::Tgsm, key));
    }
    Ok(())
}

fn add_io(
    info: &mut ProgramInfo,
    input: bool,
    op: &Operand,
    system_value: Option<u32>,
    interpolation: Option<u32>,
) -> Result<(), String> {
    let mask = match op.comps {
        Components::Four(Selection::Mask(m)) => m,
        Components::One => 1,
        _ => 0xF,
    };
    // Graphics inputs may be 2D (GS `v[vertex][reg]`); the last index is the register.
    let index = op
        .indices
        .len()
        .checked_sub(1)
        .and_then(|last| op.imm_index(last));
    let reg = IoReg {
        ty: op.ty,
        index,
        mask,
        system_value,
        interpolation,
    };
    if input {
        info.inputs.push(reg);
    } else {
        info.outputs.push(reg);
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Instructions
// ---------------------------------------------------------------------------

/// Checks the registers and resource kinds of instruction `index` and
/// records what it uses (barriers, atomics, doubles, counters).
pub fn check_instruction(
    p: &Program,
    info: &mut ProgramInfo,
    index: usize,
    inst: &Instruction,
) -> VResult<()> {
    for op in &inst.operands {
        check_register(p.version, info, op, 0)
            .map_err(|(rule, m)| ValidationError::inst(rule, index, inst.opcode, m))?;
    }
    check_kinds(info, inst)
        .map_err(|m| ValidationError::inst(Rule::ResourceKind, index, inst.opcode, m))?;
    check_ext_tokens(info, inst)
        .map_err(|m| ValidationError::inst(Rule::ResourceKind, index, inst.opcode, m))?;
    if p.version.is_cs4() && inst.opcode == Opcode::StoreStructured {
        check_cs4_tgsm_store(inst)
            .map_err(|m| ValidationError::inst(Rule::Limit, index, inst.opcode, m))?;
    }
    record_usage(info, inst)
        .map_err(|m| ValidationError::inst(Rule::ResourceKind, index, inst.opcode, m))
}

type RegResult = Result<(), (Rule, String)>;

fn undeclared(m: String) -> (Rule, String) {
    (Rule::Undeclared, m)
}

fn bad_operand(m: String) -> (Rule, String) {
    (Rule::Operand, m)
}

/// Checks that the register named by `op` is declared, recursing into
/// relative indices (`depth` guards against pathological nesting).
fn check_register(v: Version, info: &ProgramInfo, op: &Operand, depth: u32) -> RegResult {
    if depth > 2 {
        return Err(bad_operand("relative indices nested too deeply".into()));
    }
    for idx in &op.indices {
        if let Index::Relative(inner)
        | Index::Imm32PlusRelative(_, inner)
        | Index::Imm64PlusRelative(_, inner) = idx
        {
            let imm = matches!(inner.ty, OperandType::Imm32 | OperandType::Imm64);
            if imm || !super::shape::is_readable(inner.ty) {
                return Err(bad_operand(format!(
                    "{} cannot be used as a relative index",
                    inner.ty.prefix()
                )));
            }
            check_register(v, info, inner, depth + 1)?;
        }
    }
    use OperandType as T;
    match op.ty {
        T::Temp => check_temp(info, op),
        T::IndexableTemp => check_indexable(info, op),
        T::ConstantBuffer => check_cb(v, info, op),
        T::ImmConstantBuffer => check_icb(info, op),
        T::Resource => check_slot_declared(v, op, info.srvs.get(&key(op)?).map(|r| r.range)),
        T::Uav => check_slot_declared(v, op, info.uavs.get(&key(op)?).map(|r| r.range)),
        T::Sampler => check_slot_declared(v, op, info.samplers.get(&key(op)?).map(|r| r.range)),
        T::Tgsm => check_slot_declared(
            Version {
                major: 5,
                minor: 0,
                ..v
            },
            op,
            info.tgsm.get(&key(op)?).map(|_| None),
        ),
        T::Input | T::Output => check_io(v, info, op),
        ty if is_declared_system_input(ty) => check_system_input(v, info, ty),
        ty if is_declared_system_output(ty) => check_system_output(v, info, ty),
        _ => Ok(()),
    }
}

fn key(op: &Operand) -> Result<u32, (Rule, String)> {
    op.imm_index(0).ok_or_else(|| {
        bad_operand(format!(
            "{} needs a constant register number",
            op.ty.prefix()
        ))
    })
}

/// A constant index value, if the index is a plain immediate.
fn const_index(op: &Operand, i: usize) -> Option<u32> {
    op.imm_index(i)
}

fn check_temp(info: &ProgramInfo, op: &Operand) -> RegResult {
    let [Index::Imm32(r)] = op.indices.as_slice() else {
        return Err(bad_operand("r# takes exactly one constant index".into()));
    };
    if *r >= info.temps {
        return Err(undeclared(format!(
            "r{r} is not declared (dcl_temps {})",
            info.temps
        )));
    }
    Ok(())
}

fn check_indexable(info: &ProgramInfo, op: &Operand) -> RegResult {
    if op.indices.len() != 2 {
        return Err(bad_operand("x# takes two indices, x#[n]".into()));
    }
    let reg = key(op)?;
    let x = info
        .indexable_temps
        .get(&reg)
        .ok_or_else(|| undeclared(format!("x{reg} is not declared")))?;
    if let Some(e) = const_index(op, 1) {
        if e >= x.len {
            return Err(undeclared(format!(
                "x{reg}[{e}] is past the declared length {}",
                x.len
            )));
        }
    }
    Ok(())
}

fn check_cb(v: Version, info: &ProgramInfo, op: &Operand) -> RegResult {
    let want = if v.is_sm51() { 3 } else { 2 };
    if op.indices.len() != want {
        return Err(bad_operand(format!("cb# takes {want} indices in {v}")));
    }
    let slot = key(op)?;
    let cb = info
        .constant_buffers
        .get(&slot)
        .ok_or_else(|| undeclared(format!("cb{slot} is not declared")))?;
    if v.is_sm51() {
        check_in_range(op, cb.range, 1)?;
    }
    if let Some(e) = const_index(op, want - 1) {
        if cb.size != 0 && !cb.dynamic && e >= cb.size {
            return Err(undeclared(format!(
                "cb{slot}[{e}] is past the declared size {}",
                cb.size
            )));
        }
    }
    Ok(())
}

fn check_icb(info: &ProgramInfo, op: &Operand) -> RegResult {
    let rows = info.icb.as_ref().map(Vec::len).ok_or_else(|| {
        undeclared("icb is used but no immediate constant buffer is declared".into())
    })?;
    if op.indices.len() != 1 {
        return Err(bad_operand("icb takes one index".into()));
    }
    if let Some(e) = const_index(op, 0) {
        if e as usize >= rows {
            return Err(undeclared(format!(
                "icb[{e}] is past the {rows} declared rows"
            )));
        }
    }
    Ok(())
}

/// t#/u#/s#/g#: declared; in SM5.1 the second index must be in the range.
fn check_slot_declared(v: Version, op: &Operand, found: Option<Option<(u32, u32)>>) -> RegResult {
    let slot = key(op)?;
    let Some(range) = found else {
        return Err(undeclared(format!(
            "{}{slot} is not declared",
            op.ty.prefix()
        )));
    };
    let want = if v.is_sm51() { 2 } else { 1 };
    if op.indices.len() != want {
        return Err(bad_operand(format!(
            "{}# takes {want} index(es) in {v}",
            op.ty.prefix()
        )));
    }
    if v.is_sm51() {
        check_in_range(op, range, 1)?;
    }
    Ok(())
}

/// SM5.1: a constant register index `i` must lie inside the declared range.
fn check_in_range(op: &Operand, range: Option<(u32, u32)>, i: usize) -> RegResult {
    if let (Some((lo, hi)), Some(r)) = (range, const_index(op, i)) {
        if r < lo || r > hi {
            return Err(undeclared(format!(
                "{}{}[{r}] is outside the declared range [{lo}:{hi}]",
                op.ty.prefix(),
                op.imm_index(0).unwrap_or(0)
            )));
        }
    }
    Ok(())
}

fn check_io(v: Version, info: &ProgramInfo, op: &Operand) -> RegResult {
    let input = op.ty == OperandType::Input;
    match v.kind {
        ProgramKind::Compute => {
            return Err(bad_operand(format!(
                "{}# does not exist in compute programs",
                op.ty.prefix()
            )))
        }
        ProgramKind::Pixel | ProgramKind::Vertex => {}
        // Geometry and tessellation register files are not modelled.
        _ => return Ok(()),
    }
    if op.indices.len() != 1 {
        return Err(bad_operand(format!("{}# takes one index", op.ty.prefix())));
    }
    let Some(reg) = const_index(op, 0) else {
        return Ok(());
    };
    let list = if input { &info.inputs } else { &info.outputs };
    if !list.iter().any(|r| r.ty == op.ty && r.index == Some(reg)) {
        return Err(undeclared(format!(
            "{}{reg} is not declared",
            op.ty.prefix()
        )));
    }
    Ok(())
}

/// Input registers that exist only if declared with `dcl_input*`.
fn is_declared_system_input(ty: OperandType) -> bool {
    use OperandType::*;
    matches!(
        ty,
        ThreadId
            | ThreadGroupId
            | ThreadIdInGroup
            | ThreadIdInGroupFlattened
            | InputPrimitiveId
            | InputCoverageMask
            | InnerCoverage
            | InputGsInstanceId
    )
}

fn is_compute_input(ty: OperandType) -> bool {
    use OperandType::*;
    matches!(
        ty,
        ThreadId | ThreadGroupId | ThreadIdInGroup | ThreadIdInGroupFlattened
    )
}

/// Output registers that exist only if declared with `dcl_output`.
fn is_declared_system_output(ty: OperandType) -> bool {
    use OperandType::*;
    matches!(
        ty,
        OutputDepth | OutputDepthGe | OutputDepthLe | OutputCoverageMask | OutputStencilRef
    )
}

fn check_system_input(v: Version, info: &ProgramInfo, ty: OperandType) -> RegResult {
    let compute = v.kind == ProgramKind::Compute;
    if is_compute_input(ty) != compute {
        return Err(bad_operand(format!(
            "{} does not exist in {v} programs",
            ty.prefix()
        )));
    }
    if !matches!(v.kind, ProgramKind::Compute | ProgramKind::Pixel) {
        return Ok(());
    }
    if !info.has_input(ty) {
        return Err(undeclared(format!(
            "{} is not declared (dcl_input {})",
            ty.prefix(),
            ty.prefix()
        )));
    }
    Ok(())
}

fn check_system_output(v: Version, info: &ProgramInfo, ty: OperandType) -> RegResult {
    if v.kind != ProgramKind::Pixel {
        return Err(bad_operand(format!(
            "{} exists only in pixel programs",
            ty.prefix()
        )));
    }
    if !info.outputs.iter().any(|r| r.ty == ty) {
        return Err(undeclared(format!(
            "{} is not declared (dcl_output {})",
            ty.prefix(),
            ty.prefix()
        )));
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Resource kinds
// ---------------------------------------------------------------------------

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

fn check_kinds(info: &ProgramInfo, inst: &Instruction) -> Result<(), String> {
    let Some(op) = mem_operand(inst) else {
        return Ok(());
    };
    let Some(mem) = lookup(info, op) else {
        return Ok(());
    };
    let wrong = |want: &str| {
        Err(format!(
            "{} needs {want}, but {} is {}",
            inst.opcode.mnemonic(),
            name(op),
            mem.describe()
        ))
    };
    use Opcode::*;
    match inst.opcode {
        LdRaw | LdRawS | StoreRaw => {
            if mem.is_raw() {
                Ok(())
            } else {
                wrong("a raw buffer or raw TGSM")
            }
        }
        LdStructured | LdStructuredS | StoreStructured => {
            if mem.is_structured() {
                Ok(())
            } else {
                wrong("a structured buffer or structured TGSM")
            }
        }
        LdUavTyped | LdUavTypedS | StoreUavTyped => match mem {
            Mem::Uav(ResourceKind::Typed { .. }) => Ok(()),
            _ => wrong("a typed UAV"),
        },
        Ld | LdS => typed_dim(mem, |d| !is_ms(d) && !is_cube(d)).map_or_else(
            || wrong("a typed, non-multisampled, non-cube resource"),
            |_| Ok(()),
        ),
        LdMs | LdMsS => {
            typed_dim(mem, is_ms).map_or_else(|| wrong("a multisampled texture"), |_| Ok(()))
        }
        ResInfo => typed_dim(mem, |d| d != ResourceDim::Buffer)
            .map_or_else(|| wrong("a typed texture (not a buffer)"), |_| Ok(())),
        BufInfo => match mem {
            Mem::Srv(k) | Mem::Uav(k) if k.is_buffer() => Ok(()),
            _ => wrong("a buffer (typed, raw or structured)"),
        },
        SampleInfo | SamplePos => {
            typed_dim(mem, |_| true).map_or_else(|| wrong("a typed texture"), |_| Ok(()))
        }
        ImmAtomicAlloc | ImmAtomicConsume => match mem {
            Mem::Uav(ResourceKind::Structured { .. }) => Ok(()),
            _ => wrong("a structured UAV"),
        },
        op if op.class() == OpClass::Sample => {
            typed_dim(mem, |d| d != ResourceDim::Buffer && !is_ms(d)).map_or_else(
                || wrong("a typed texture (not a buffer or multisampled)"),
                |_| Ok(()),
            )
        }
        op if op.class() == OpClass::Atomic => check_atomic_target(mem).map_or_else(
            || wrong("raw, structured or 32-bit integer typed memory"),
            |_| Ok(()),
        ),
        _ => Ok(()),
    }
}

fn typed_dim(mem: Mem, ok: impl Fn(ResourceDim) -> bool) -> Option<()> {
    let (dim, _) = mem.typed()?;
    ok(dim).then_some(())
}

fn is_ms(d: ResourceDim) -> bool {
    matches!(d, ResourceDim::Texture2DMS | ResourceDim::Texture2DMSArray)
}

fn is_cube(d: ResourceDim) -> bool {
    matches!(d, ResourceDim::TextureCube | ResourceDim::TextureCubeArray)
}

/// Atomics work on u#/g#; a typed u# must be declared UINT or SINT.
fn check_atomic_target(mem: Mem) -> Option<()> {
    match mem {
        Mem::Srv(_) => None,
        Mem::Uav(ResourceKind::Typed { ret, .. }) => {
            matches!(ret[0], ReturnType::Uint | ReturnType::Sint).then_some(())
        }
        Mem::Uav(_) | Mem::Tgsm(_) => Some(()),
    }
}

/// fxc repeats the declaration in RESOURCE_DIM extended tokens; they must agree.
fn check_ext_tokens(info: &ProgramInfo, inst: &Instruction) -> Result<(), String> {
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
fn check_cs4_tgsm_store(inst: &Instruction) -> Result<(), String> {
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
fn record_usage(info: &mut ProgramInfo, inst: &Instruction) -> Result<(), String> {
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
