//! Declarations, register files and resource kinds.
//!
//! In: `Program::decls` (to build the slot tables of [`ProgramInfo`]) and
//! then each instruction. Out: the filled-in [`ProgramInfo`], or the first
//! [`Rule::Declaration`] / [`Rule::Undeclared`] / [`Rule::ResourceKind`]
//! error. Invariant: after `collect_decls` every slot is declared once with
//! sane parameters (strides, sizes, dimensions); after `check_instruction`
//! every register an instruction names (including registers used inside
//! relative indices) is declared and every constant index is inside its
//! declaration; the resource-kind rules live in [`super::kinds`].

use crate::ir::{
    Components, Decl, Index, Instruction, Opcode, Operand, OperandType, Program, ProgramKind,
    ResourceDim, Selection, Version,
};
use crate::ir::{ConstantBufferDecl, StructuredUavDecl, TypedResourceDecl, TypedUavDecl};

use super::info::{
    CbInfo, IndexableTempInfo, IoReg, ResourceInfo, ResourceKind, SamplerInfo, TgsmInfo, TgsmKind,
    UavInfo,
};
use super::kinds;
use super::limits::{self, MAX_CB_VEC4, MAX_TEMPS};
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
        let op = d.opcode();
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
        Decl::ConstantBuffer(cb) => add_cb(v, info, index, cb),
        Decl::ImmediateConstantBuffer(words) => add_icb(info, words),
        Decl::Sampler { op, mode, space } => add_sampler(v, info, index, op, *mode, *space),
        Decl::Resource(r) => add_typed_srv(v, info, index, r),
        Decl::ResourceRaw { op, space, .. } => {
            add_srv(v, info, index, op, ResourceKind::Raw, *space)
        }
        Decl::ResourceStructured {
            op, stride, space, ..
        } => {
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
        Decl::UavTyped(u) => add_typed_uav(v, info, index, u),
        Decl::UavRaw {
            op, flags, space, ..
        } => add_uav(v, info, index, op, ResourceKind::Raw, *flags, *space),
        Decl::UavStructured(u) => add_structured_uav(v, info, index, u),
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
        | Decl::Interface(_)
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
    cb: &ConstantBufferDecl,
) -> Result<(), String> {
    let (op, dynamic, size, space) = (&cb.op, cb.dynamic, cb.size, cb.space);
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

fn add_typed_srv(
    v: Version,
    info: &mut ProgramInfo,
    decl_index: usize,
    r: &TypedResourceDecl,
) -> Result<(), String> {
    check_typed_dim(r.dim, false)?;
    let kind = ResourceKind::Typed {
        dim: r.dim,
        ret: r.ret,
        sample_count: r.sample_count,
    };
    add_srv(v, info, decl_index, &r.op, kind, r.space)
}

fn add_typed_uav(
    v: Version,
    info: &mut ProgramInfo,
    decl_index: usize,
    u: &TypedUavDecl,
) -> Result<(), String> {
    check_typed_dim(u.dim, true)?;
    let kind = ResourceKind::Typed {
        dim: u.dim,
        ret: u.ret,
        sample_count: 0,
    };
    add_uav(v, info, decl_index, &u.op, kind, u.flags, u.space)
}

fn add_structured_uav(
    v: Version,
    info: &mut ProgramInfo,
    decl_index: usize,
    u: &StructuredUavDecl,
) -> Result<(), String> {
    limits::check_stride(u.stride)?;
    let kind = ResourceKind::Structured { stride: u.stride };
    add_uav(v, info, decl_index, &u.op, kind, u.flags, u.space)
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
    kinds::check_kinds(info, inst)
        .map_err(|m| ValidationError::inst(Rule::ResourceKind, index, inst.opcode, m))?;
    kinds::check_ext_tokens(info, inst)
        .map_err(|m| ValidationError::inst(Rule::ResourceKind, index, inst.opcode, m))?;
    if p.version.is_cs4() && inst.opcode == Opcode::StoreStructured {
        kinds::check_cs4_tgsm_store(inst)
            .map_err(|m| ValidationError::inst(Rule::Limit, index, inst.opcode, m))?;
    }
    kinds::record_usage(info, inst)
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
        T::Tgsm => check_tgsm(info, op),
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
    if let Some(e) = op.imm_index(1) {
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
    if let Some(e) = op.imm_index(want - 1) {
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
    if let Some(e) = op.imm_index(0) {
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

/// g#: declared, one index (TGSM has no SM5.1 ranges).
fn check_tgsm(info: &ProgramInfo, op: &Operand) -> RegResult {
    let [Index::Imm32(g)] = op.indices.as_slice() else {
        return Err(bad_operand("g# takes exactly one constant index".into()));
    };
    if !info.tgsm.contains_key(g) {
        return Err(undeclared(format!("g{g} is not declared")));
    }
    Ok(())
}

/// SM5.1: a constant register index `i` must lie inside the declared range.
fn check_in_range(op: &Operand, range: Option<(u32, u32)>, i: usize) -> RegResult {
    if let (Some((lo, hi)), Some(r)) = (range, op.imm_index(i)) {
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
    let Some(reg) = op.imm_index(0) else {
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

#[cfg(test)]
mod tests {
    use crate::ir::Opcode::*;
    use crate::ir::{
        ConstantBufferDecl, Decl, OperandType as T, ResourceDim, ReturnType, StructuredUavDecl,
        TypedResourceDecl, TypedUavDecl, UavFlags,
    };
    use crate::validate::testutil::*;
    use crate::validate::{validate, Rule, ValidationError};

    fn err(p: &crate::ir::Program) -> ValidationError {
        validate(p).expect_err("program should be rejected")
    }

    fn uav_raw(i: u32) -> Decl {
        Decl::UavRaw {
            op: slot(T::Uav, i),
            flags: UavFlags::default(),
            space: 0,
            buffer_dim: false,
        }
    }

    fn uav_structured(i: u32, stride: u32) -> Decl {
        Decl::UavStructured(StructuredUavDecl {
            op: slot(T::Uav, i),
            stride,
            flags: UavFlags::default(),
            space: 0,
            buffer_dim: false,
        })
    }

    fn uav_typed(i: u32, dim: ResourceDim, ret: ReturnType) -> Decl {
        Decl::UavTyped(TypedUavDecl {
            op: slot(T::Uav, i),
            dim,
            flags: UavFlags::default(),
            ret: [ret; 4],
            space: 0,
        })
    }

    fn srv_typed(i: u32, dim: ResourceDim) -> Decl {
        Decl::Resource(TypedResourceDecl {
            op: slot(T::Resource, i),
            dim,
            sample_count: 0,
            ret: [ReturnType::Float; 4],
            space: 0,
        })
    }

    fn cb(i: u32, size: u32, dynamic: bool) -> Decl {
        Decl::ConstantBuffer(ConstantBufferDecl {
            op: reg(T::ConstantBuffer, &[i, size], swz([0, 1, 2, 3])),
            dynamic,
            size,
            space: 0,
        })
    }

    fn store_raw(dst: crate::ir::Operand) -> crate::ir::Instruction {
        inst(StoreRaw, vec![dst, lit(0), rx(0)])
    }

    #[test]
    fn temps_must_be_declared() {
        let p = cs50(2, vec![], vec![inst(Mov, vec![rd(1, 1), rs(0)])]);
        assert!(validate(&p).is_ok());
        let p = cs50(2, vec![], vec![inst(Mov, vec![rd(0, 1), rs(2)])]);
        let e = err(&p);
        assert_eq!((e.rule, e.inst_index), (Rule::Undeclared, Some(0)));
        assert_eq!(
            e.to_string(),
            "instruction 0 (mov): r2 is not declared (dcl_temps 2)"
        );
    }

    #[test]
    fn indexable_temps_and_constant_indices() {
        let x = Decl::IndexableTemp {
            reg: 0,
            len: 4,
            comps: 4,
        };
        let p = cs50(
            1,
            vec![x.clone()],
            vec![inst(
                Mov,
                vec![reg(T::IndexableTemp, &[0, 3], mask(0xF)), rs(0)],
            )],
        );
        let info = validate(&p).unwrap();
        assert_eq!(info.indexable_temps[&0].len, 4);
        assert_eq!(info.temp_vec4_count(), 5);
        let p = cs50(
            1,
            vec![x.clone()],
            vec![inst(
                Mov,
                vec![reg(T::IndexableTemp, &[0, 4], mask(0xF)), rs(0)],
            )],
        );
        assert!(err(&p)
            .message
            .contains("x0[4] is past the declared length 4"));
        let p = cs50(
            1,
            vec![x],
            vec![inst(
                Mov,
                vec![
                    rd(0, 0xF),
                    reg(T::IndexableTemp, &[1, 0], swz([0, 1, 2, 3])),
                ],
            )],
        );
        assert_eq!(err(&p).message, "x1 is not declared");
        // A relative index names registers that must be declared too.
        let mut rel = reg(T::IndexableTemp, &[0, 0], swz([0, 1, 2, 3]));
        rel.indices[1] = crate::ir::Index::Imm32PlusRelative(1, Box::new(rx(5)));
        let p = cs50(
            1,
            vec![Decl::IndexableTemp {
                reg: 0,
                len: 4,
                comps: 4,
            }],
            vec![inst(Mov, vec![rd(0, 0xF), rel])],
        );
        assert_eq!(err(&p).message, "r5 is not declared (dcl_temps 1)");
    }

    #[test]
    fn constant_buffers() {
        let read = |slot: u32, e: u32| {
            inst(
                Mov,
                vec![
                    rd(0, 0xF),
                    reg(T::ConstantBuffer, &[slot, e], swz([0, 1, 2, 3])),
                ],
            )
        };
        assert!(validate(&cs50(1, vec![cb(0, 2, false)], vec![read(0, 1)])).is_ok());
        let e = err(&cs50(1, vec![cb(0, 2, false)], vec![read(0, 2)]));
        assert_eq!(
            (e.rule, e.message.as_str()),
            (Rule::Undeclared, "cb0[2] is past the declared size 2")
        );
        // Dynamically indexed buffers are bound-checked at run time instead.
        assert!(validate(&cs50(1, vec![cb(0, 2, true)], vec![read(0, 2)])).is_ok());
        assert_eq!(
            err(&cs50(1, vec![cb(0, 2, false)], vec![read(1, 0)])).message,
            "cb1 is not declared"
        );
        let e = err(&cs50(1, vec![cb(0, 4097, false)], vec![]));
        assert_eq!((e.rule, e.decl_index), (Rule::Declaration, Some(3)));
        let e = err(&cs50(1, vec![cb(0, 1, false), cb(0, 1, false)], vec![]));
        assert!(e.message.contains("declared twice"));
    }

    #[test]
    fn immediate_constant_buffer() {
        let icb = Decl::ImmediateConstantBuffer(vec![1, 2, 3, 4, 5, 6, 7, 8]);
        let read = |e: u32| {
            inst(
                Mov,
                vec![
                    rd(0, 0xF),
                    reg(T::ImmConstantBuffer, &[e], swz([0, 1, 2, 3])),
                ],
            )
        };
        let info = validate(&cs50(1, vec![icb.clone()], vec![read(1)])).unwrap();
        assert_eq!(info.icb, Some(vec![[1, 2, 3, 4], [5, 6, 7, 8]]));
        assert!(err(&cs50(1, vec![icb], vec![read(2)]))
            .message
            .contains("icb[2]"));
        assert!(err(&cs50(1, vec![], vec![read(0)]))
            .message
            .contains("no immediate constant buffer"));
        let e = err(&cs50(
            1,
            vec![Decl::ImmediateConstantBuffer(vec![1, 2, 3])],
            vec![],
        ));
        assert_eq!(e.rule, Rule::Declaration);
    }

    #[test]
    fn resource_slots_must_be_declared() {
        let ld = inst(
            LdStructured,
            vec![rd(0, 1), rx(0), lit(0), res(T::Resource, 3)],
        );
        let e = err(&cs50(1, vec![], vec![ld.clone()]));
        assert_eq!(
            e.to_string(),
            "instruction 0 (ld_structured): t3 is not declared"
        );
        let srv = Decl::ResourceStructured {
            op: slot(T::Resource, 3),
            stride: 16,
            space: 0,
            buffer_dim: false,
        };
        let info = validate(&cs50(1, vec![srv], vec![ld])).unwrap();
        assert_eq!(
            info.srvs[&3].kind,
            crate::validate::ResourceKind::Structured { stride: 16 }
        );
        assert!(err(&cs50(1, vec![], vec![store_raw(resd(T::Uav, 0, 1))]))
            .message
            .contains("u0 is not declared"));
        assert!(err(&cs50(1, vec![], vec![store_raw(resd(T::Tgsm, 0, 1))]))
            .message
            .contains("g0 is not declared"));
    }

    #[test]
    fn thread_inputs_must_be_declared() {
        let use_it = inst(Mov, vec![rd(0, 1), sysv(T::ThreadIdInGroupFlattened)]);
        let e = err(&cs50(1, vec![], vec![use_it.clone()]));
        assert_eq!(e.rule, Rule::Undeclared);
        assert!(e.message.contains("vThreadIDInGroupFlattened"));
        let dcl = Decl::Input(crate::ir::Operand::new(
            T::ThreadIdInGroupFlattened,
            crate::ir::Components::Zero,
        ));
        let info = validate(&cs50(1, vec![dcl], vec![use_it])).unwrap();
        assert!(info.has_input(T::ThreadIdInGroupFlattened));
    }

    #[test]
    fn pixel_inputs_and_outputs_must_be_declared() {
        let v1 = reg(T::Input, &[1], swz([0, 1, 2, 3]));
        let e = err(&ps50(
            1,
            vec![],
            vec![inst(Mov, vec![reg(T::Output, &[0], mask(0xF)), v1.clone()])],
        ));
        assert_eq!(e.message, "v1 is not declared");
        let dcl = Decl::InputPs {
            op: reg(T::Input, &[1], mask(0xF)),
            interp: 2,
        };
        assert!(validate(&ps50(
            1,
            vec![dcl],
            vec![inst(Mov, vec![reg(T::Output, &[0], mask(0xF)), v1])]
        ))
        .is_ok());
        let e = err(&ps50(
            1,
            vec![],
            vec![inst(Mov, vec![reg(T::Output, &[1], mask(0xF)), rs(0)])],
        ));
        assert_eq!(e.message, "o1 is not declared");
        // v# does not exist in compute programs.
        let e = err(&cs50(
            1,
            vec![],
            vec![inst(
                Mov,
                vec![rd(0, 0xF), reg(T::Input, &[0], swz([0, 1, 2, 3]))],
            )],
        ));
        assert_eq!(e.rule, Rule::Operand);
    }

    #[test]
    fn raw_and_structured_kinds() {
        let tgsm_raw = Decl::TgsmRaw {
            op: slot(T::Tgsm, 0),
            bytes: 64,
        };
        let tgsm_st = Decl::TgsmStructured {
            op: slot(T::Tgsm, 1),
            stride: 8,
            count: 4,
        };
        let ok = cs50(
            1,
            vec![uav_raw(0), tgsm_raw.clone(), tgsm_st.clone()],
            vec![
                store_raw(resd(T::Uav, 0, 1)),
                store_raw(resd(T::Tgsm, 0, 3)),
                inst(
                    StoreStructured,
                    vec![resd(T::Tgsm, 1, 1), rx(0), lit(4), rx(0)],
                ),
                inst(LdRaw, vec![rd(0, 1), lit(0), res(T::Tgsm, 0)]),
            ],
        );
        let info = validate(&ok).unwrap();
        assert_eq!(info.tgsm[&0].offset, 0);
        assert_eq!(info.tgsm[&1].offset, 64);
        assert_eq!(info.tgsm_bytes, 96);
        let bad = cs50(
            1,
            vec![uav_structured(0, 4)],
            vec![store_raw(resd(T::Uav, 0, 1))],
        );
        let e = err(&bad);
        assert_eq!((e.rule, e.inst_index), (Rule::ResourceKind, Some(0)));
        assert!(
            e.message.contains("u0 is a structured buffer"),
            "{}",
            e.message
        );
        let bad = cs50(
            1,
            vec![tgsm_raw],
            vec![inst(
                LdStructured,
                vec![rd(0, 1), rx(0), lit(0), res(T::Tgsm, 0)],
            )],
        );
        assert_eq!(err(&bad).rule, Rule::ResourceKind);
    }

    #[test]
    fn typed_uav_and_bufinfo_kinds() {
        let store = inst(StoreUavTyped, vec![resd(T::Uav, 0, 0xF), rs(0), rs(0)]);
        assert!(validate(&cs50(
            1,
            vec![uav_typed(0, ResourceDim::Texture2D, ReturnType::Float)],
            vec![store.clone()]
        ))
        .is_ok());
        assert_eq!(
            err(&cs50(1, vec![uav_raw(0)], vec![store])).rule,
            Rule::ResourceKind
        );
        let bufinfo = inst(BufInfo, vec![rd(0, 1), res(T::Uav, 0)]);
        assert!(validate(&cs50(1, vec![uav_raw(0)], vec![bufinfo.clone()])).is_ok());
        assert!(validate(&cs50(
            1,
            vec![uav_typed(0, ResourceDim::Buffer, ReturnType::Uint)],
            vec![bufinfo.clone()]
        ))
        .is_ok());
        assert_eq!(
            err(&cs50(
                1,
                vec![uav_typed(0, ResourceDim::Texture2D, ReturnType::Uint)],
                vec![bufinfo]
            ))
            .rule,
            Rule::ResourceKind
        );
        let resinfo = inst(ResInfo, vec![rd(0, 0xF), lit(0), res(T::Resource, 0)]);
        assert!(validate(&cs50(
            1,
            vec![srv_typed(0, ResourceDim::Texture2D)],
            vec![resinfo.clone()]
        ))
        .is_ok());
        assert_eq!(
            err(&cs50(
                1,
                vec![srv_typed(0, ResourceDim::Buffer)],
                vec![resinfo]
            ))
            .rule,
            Rule::ResourceKind
        );
    }

    #[test]
    fn atomics_and_counters() {
        let add = |m| inst(AtomicIAdd, vec![m, rx(0), rx(0)]);
        assert!(
            validate(&cs50(1, vec![uav_raw(0)], vec![add(resd(T::Uav, 0, 0xF))]))
                .unwrap()
                .uses_atomics
        );
        let e = err(&cs50(
            1,
            vec![uav_typed(0, ResourceDim::Buffer, ReturnType::Float)],
            vec![add(resd(T::Uav, 0, 0xF))],
        ));
        assert_eq!(e.rule, Rule::ResourceKind);
        let alloc = inst(ImmAtomicAlloc, vec![rd(0, 1), resd(T::Uav, 0, 0xF)]);
        let consume = inst(ImmAtomicConsume, vec![rd(0, 1), resd(T::Uav, 0, 0xF)]);
        let info = validate(&cs50(1, vec![uav_structured(0, 4)], vec![alloc.clone()])).unwrap();
        assert!(info.uavs[&0].uses_alloc);
        assert_eq!(
            err(&cs50(1, vec![uav_raw(0)], vec![alloc.clone()])).rule,
            Rule::ResourceKind
        );
        let e = err(&cs50(1, vec![uav_structured(0, 4)], vec![alloc, consume]));
        assert_eq!(e.inst_index, Some(1));
        assert!(e.message.contains("both"));
    }

    #[test]
    fn sampling_needs_textures_and_samplers() {
        let smp = Decl::Sampler {
            op: slot(T::Sampler, 0),
            mode: 0,
            space: 0,
        };
        let sample = inst(
            SampleL,
            vec![
                rd(0, 0xF),
                rs(0),
                res(T::Resource, 0),
                res(T::Sampler, 0),
                lit(0),
            ],
        );
        assert!(validate(&cs50(
            1,
            vec![srv_typed(0, ResourceDim::Texture2D), smp.clone()],
            vec![sample.clone()]
        ))
        .is_ok());
        assert_eq!(
            err(&cs50(
                1,
                vec![srv_typed(0, ResourceDim::Texture2D)],
                vec![sample.clone()]
            ))
            .message,
            "s0 is not declared"
        );
        assert_eq!(
            err(&cs50(
                1,
                vec![srv_typed(0, ResourceDim::Buffer), smp],
                vec![sample]
            ))
            .rule,
            Rule::ResourceKind
        );
    }

    #[test]
    fn extended_resource_tokens_must_agree() {
        let mut ld = inst(LdStructured, vec![rd(0, 1), rx(0), lit(0), res(T::Uav, 0)]);
        ld.ext.push(crate::ir::ExtOpcode::ResourceDim {
            dim: ResourceDim::StructuredBuffer,
            stride: 8,
        });
        assert!(validate(&cs50(1, vec![uav_structured(0, 8)], vec![ld.clone()])).is_ok());
        let e = err(&cs50(1, vec![uav_structured(0, 16)], vec![ld]));
        assert_eq!(e.rule, Rule::ResourceKind);
        assert!(e.message.contains("extended token"));
    }

    #[test]
    fn declaration_rules() {
        let e = err(&cs50(1, vec![uav_structured(0, 6)], vec![]));
        assert_eq!((e.rule, e.decl_index), (Rule::Declaration, Some(3)));
        assert!(e.message.contains("stride 6"));
        assert!(err(&cs50(1, vec![uav_structured(0, 4096)], vec![]))
            .message
            .contains("stride"));
        let e = err(&cs50(
            1,
            vec![Decl::TgsmRaw {
                op: slot(T::Tgsm, 0),
                bytes: 6,
            }],
            vec![],
        ));
        assert_eq!(e.rule, Rule::Declaration);
        let e = err(&cs50(1, vec![uav_raw(64)], vec![]));
        assert!(e.message.contains("u64"));
        let e = err(&cs50(1, vec![Decl::Temps(1)], vec![]));
        assert!(e.message.contains("twice"));
        let e = err(&cs50(
            1,
            vec![uav_typed(0, ResourceDim::TextureCube, ReturnType::Float)],
            vec![],
        ));
        assert_eq!(e.rule, Rule::Declaration);
    }
}
