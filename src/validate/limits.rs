//! Per-model limits and opcode availability.
//!
//! In: the program's [`Version`], one declaration or instruction, or the
//! gathered [`ProgramInfo`]. Out: `Ok` or a [`Rule::Model`] /
//! [`Rule::Limit`] error. Invariant: an `Ok` program only uses opcodes of
//! its model and kind (`dxbc-format.md` §12 availability column, §12.6),
//! has the global flags its double/11.1 opcodes need, and stays inside the
//! limits of `sm5-semantics.md` §2 and §15 (thread-group size, TGSM size,
//! UAV count, temp count, cs_4_x TGSM write rules).

use crate::ir::{
    sync_flags, Decl, Instruction, Model, OpClass, Opcode, OperandType, Program, ProgramKind,
    Version,
};

use super::{ProgramInfo, Rule, TgsmKind, VResult, ValidationError};

pub use crate::ir::opcode::global_flags;

pub use crate::limits::{
    CB_SLOTS, MAX_CB_VEC4, MAX_STRIDE, MAX_TEMPS, SAMPLER_SLOTS, SRV_SLOTS, TGSM_BYTES_4,
    TGSM_BYTES_5, UAV_SLOTS_5,
};
use crate::limits::{MAX_GROUP_THREADS_4, MAX_GROUP_THREADS_5, MAX_GROUP_Z};

/// Why `op` is not available in model `v` (ignoring the program kind).
fn model_problem(op: Opcode, v: Version, flags: u32) -> Option<String> {
    match op.info().model {
        Model::Never => Some("reserved opcode".into()),
        _ if v.major >= 5 => None,
        Model::V40 => None,
        Model::V41 if v.minor >= 1 => None,
        Model::V41 => Some(format!("needs model 4.1 or later, program is {v}")),
        Model::V50 => Some(format!("needs model 5.0, program is {v}")),
        Model::V4xCs | Model::V4xSrv if v.kind == ProgramKind::Compute => None,
        Model::V4xSrv if flags & global_flags::RAW_AND_STRUCTURED_4X != 0 => None,
        Model::V4xSrv => Some(format!(
            "needs dcl_globalFlags enableRawAndStructuredBuffers in {v}"
        )),
        Model::V4xCs => Some(format!(
            "only compute shaders have it in model 4.x, program is {v}"
        )),
    }
}

/// Checks model, kind and global-flag availability of `op`.
fn availability(op: Opcode, v: Version, flags: u32) -> Result<(), String> {
    if let Some(problem) = model_problem(op, v, flags) {
        return Err(problem);
    }
    if let Some(kinds) = op.info().stages {
        if !kinds.contains(&v.kind) {
            return Err(format!(
                "not allowed in {} programs ({v})",
                kind_name(v.kind)
            ));
        }
    }
    flag_problem(op, flags).map_or(Ok(()), Err)
}

/// The global flags a double / 11.1 opcode needs, if one is missing.
fn flag_problem(op: Opcode, flags: u32) -> Option<String> {
    use global_flags::*;
    let need = op.info().needs;
    if flags & need == need {
        return None;
    }
    let names = [
        (DOUBLES, "enableDoublePrecisionFloatOps"),
        (DOUBLE_EXTENSIONS_11_1, "enable11_1DoubleExtensions"),
        (SHADER_EXTENSIONS_11_1, "enable11_1ShaderExtensions"),
    ];
    let missing: Vec<&str> = names
        .iter()
        .filter(|(bit, _)| need & bit != 0)
        .map(|(_, name)| *name)
        .collect();
    Some(format!("needs dcl_globalFlags {}", missing.join(" and ")))
}

fn kind_name(k: ProgramKind) -> &'static str {
    match k {
        ProgramKind::Pixel => "pixel",
        ProgramKind::Vertex => "vertex",
        ProgramKind::Geometry => "geometry",
        ProgramKind::Hull => "hull",
        ProgramKind::Domain => "domain",
        ProgramKind::Compute => "compute",
    }
}

/// The global flags of `p` (all `dcl_globalFlags` OR-ed together).
pub fn program_flags(p: &Program) -> u32 {
    p.decls
        .iter()
        .map(|d| match d {
            Decl::GlobalFlags(f) => *f,
            _ => 0,
        })
        .fold(0, |a, b| a | b)
}

/// Checks that declaration `index` exists in the program's model and kind.
pub fn check_decl_available(p: &Program, flags: u32, index: usize, d: &Decl) -> VResult<()> {
    let op = d.opcode();
    if op == Opcode::CustomData {
        return Ok(());
    }
    availability(op, p.version, flags).map_err(|m| ValidationError::decl(Rule::Model, index, op, m))
}

/// Checks that instruction `index` exists in the program's model and kind.
pub fn check_opcode_available(
    p: &Program,
    info: &ProgramInfo,
    index: usize,
    inst: &Instruction,
) -> VResult<()> {
    let err = |m: String| ValidationError::inst(Rule::Model, index, inst.opcode, m);
    if inst.opcode.is_declaration() || inst.opcode.class() == OpClass::CustomData {
        return Err(err("a declaration among the executable instructions".into()));
    }
    availability(inst.opcode, p.version, info.global_flags).map_err(err)?;
    if inst.opcode == Opcode::Sync {
        check_sync(p.version, inst.sync_flags()).map_err(err)?;
    }
    Ok(())
}

/// `sync` needs at least one fence; `_t` and `_g` exist only in compute;
/// `_ugroup` and `_uglobal` exclude each other (`sm5-semantics.md` §14).
fn check_sync(v: Version, flags: u32) -> Result<(), String> {
    use sync_flags::*;
    if flags & (TGSM | UAV_GROUP | UAV_GLOBAL) == 0 {
        return Err(
            "sync needs a fence (_g, _ugroup or _uglobal); a bare sync_t is not legal".into(),
        );
    }
    if flags & UAV_GROUP != 0 && flags & UAV_GLOBAL != 0 {
        return Err("sync cannot be both _ugroup and _uglobal".into());
    }
    if v.kind != ProgramKind::Compute && flags & (THREADS_IN_GROUP | TGSM | UAV_GROUP) != 0 {
        return Err(format!(
            "only sync_uglobal is allowed in {} programs",
            kind_name(v.kind)
        ));
    }
    Ok(())
}

/// Checks `dcl_thread_group X, Y, Z` against the model's limits.
pub fn check_thread_group(v: Version, [x, y, z]: [u32; 3]) -> Result<(), String> {
    let max = if v.is_cs4() {
        MAX_GROUP_THREADS_4
    } else {
        MAX_GROUP_THREADS_5
    };
    let (max_xy, max_total) = (max, max);
    let (x, y, z) = (u64::from(x), u64::from(y), u64::from(z));
    if x == 0 || y == 0 || z == 0 {
        return Err(format!("thread group {x}x{y}x{z} has a zero dimension"));
    }
    if x > max_xy || y > max_xy || z > MAX_GROUP_Z {
        return Err(format!(
            "thread group {x}x{y}x{z} exceeds the per-dimension limit {max_xy}x{max_xy}x{MAX_GROUP_Z} of {v}"
        ));
    }
    if x * y * z > max_total {
        return Err(format!(
            "thread group {x}x{y}x{z} has {} threads, more than {max_total} allowed in {v}",
            x * y * z
        ));
    }
    Ok(())
}

/// Checks a structure stride: a multiple of 4 in 4..=2048 bytes.
pub fn check_stride(stride: u32) -> Result<(), String> {
    if stride == 0 || stride % 4 != 0 || stride > MAX_STRIDE {
        return Err(format!(
            "structure stride {stride} must be a multiple of 4 between 4 and {MAX_STRIDE} bytes"
        ));
    }
    Ok(())
}

/// Checks a u# slot number against the model (SM5.1 range ids are free).
pub fn check_uav_slot(v: Version, slot: u32) -> Result<(), String> {
    if v.is_sm51() {
        return Ok(());
    }
    if v.major == 4 && slot != 0 {
        return Err(format!("{v} has a single UAV slot, u0; found u{slot}"));
    }
    if slot >= UAV_SLOTS_5 {
        return Err(format!(
            "u{slot} is past the last UAV slot u{}",
            UAV_SLOTS_5 - 1
        ));
    }
    Ok(())
}

/// Checks a t#/s#/cb# slot number (SM5.1 range ids are free).
pub fn check_slot(v: Version, ty: OperandType, slot: u32) -> Result<(), String> {
    if v.is_sm51() {
        return Ok(());
    }
    let count = match ty {
        OperandType::Resource => SRV_SLOTS,
        OperandType::Sampler => SAMPLER_SLOTS,
        OperandType::ConstantBuffer => CB_SLOTS,
        _ => return Ok(()),
    };
    if slot >= count {
        return Err(format!(
            "{}{slot} is past the last slot {}{}",
            ty.prefix(),
            ty.prefix(),
            count - 1
        ));
    }
    Ok(())
}

/// Per-thread writable TGSM bytes on cs_4_x for `threads` threads per group
/// (FS §18.7.2.7, constants D3D11_CS_4_X_BUCKETnn_*).
pub fn cs4_tgsm_bytes_per_thread(threads: u32) -> u32 {
    const BUCKETS: [(u32, u32); 16] = [
        (64, 256),
        (68, 240),
        (72, 224),
        (76, 208),
        (84, 192),
        (92, 176),
        (100, 160),
        (112, 144),
        (128, 128),
        (144, 112),
        (168, 96),
        (204, 80),
        (256, 64),
        (340, 48),
        (512, 32),
        (768, 16),
    ];
    BUCKETS
        .iter()
        .find(|(max, _)| threads <= *max)
        .map_or(0, |(_, bytes)| *bytes)
}

/// Whole-program limits, checked once every declaration and instruction
/// has been seen.
pub fn check_program_limits(p: &Program, info: &ProgramInfo) -> VResult<()> {
    let v = p.version;
    let limit = |m: String| ValidationError::program(Rule::Limit, m);
    if v.kind == ProgramKind::Compute && info.thread_group.is_none() {
        return Err(limit("a compute program needs dcl_thread_group".into()));
    }
    if info.temp_vec4_count() > MAX_TEMPS {
        return Err(limit(format!(
            "{} temp registers (r# plus x# elements), more than {MAX_TEMPS}",
            info.temp_vec4_count()
        )));
    }
    let tgsm_max = if v.is_cs4() {
        TGSM_BYTES_4
    } else {
        TGSM_BYTES_5
    };
    if u64::from(info.tgsm_bytes) > tgsm_max {
        return Err(limit(format!(
            "{} bytes of thread-group shared memory, more than {tgsm_max} in {v}",
            info.tgsm_bytes
        )));
    }
    if v.is_cs4() {
        check_cs4(info)?;
    }
    Ok(())
}

/// The cs_4_x extras: one UAV, structured TGSM with one struct per thread
/// and the per-thread write budget (`sm5-semantics.md` §15).
fn check_cs4(info: &ProgramInfo) -> VResult<()> {
    if info.uavs.len() > 1 {
        return Err(ValidationError::program(
            Rule::Limit,
            format!("{} allows one UAV, found {}", info.version, info.uavs.len()),
        ));
    }
    let threads = info.threads_per_group().unwrap_or(0);
    let mut per_thread = 0u64;
    for (reg, g) in &info.tgsm {
        let TgsmKind::Structured { stride, count } = g.kind else {
            return Err(ValidationError::decl(
                Rule::Model,
                g.decl_index,
                Opcode::DclTgsmRaw,
                format!("g{reg}: {} allows only dcl_tgsm_structured", info.version),
            ));
        };
        if count != threads {
            return Err(ValidationError::decl(
                Rule::Limit,
                g.decl_index,
                Opcode::DclTgsmStructured,
                format!(
                    "g{reg} has {count} structures; {} needs one per thread ({threads})",
                    info.version
                ),
            ));
        }
        per_thread += u64::from(stride);
    }
    let budget = cs4_tgsm_bytes_per_thread(threads);
    if per_thread > u64::from(budget) {
        return Err(ValidationError::program(
            Rule::Limit,
            format!(
                "{per_thread} TGSM bytes per thread, more than {budget} allowed for {threads} threads in {}",
                info.version
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn csv(major: u8, minor: u8) -> Version {
        Version {
            kind: ProgramKind::Compute,
            major,
            minor,
        }
    }

    #[test]
    fn thread_group_limits_per_model() {
        assert!(check_thread_group(csv(5, 0), [1024, 1, 1]).is_ok());
        assert!(check_thread_group(csv(5, 0), [32, 32, 1]).is_ok());
        assert!(check_thread_group(csv(5, 0), [32, 32, 2]).is_err());
        assert!(check_thread_group(csv(5, 0), [1, 1, 65]).is_err());
        assert!(check_thread_group(csv(5, 0), [0, 1, 1]).is_err());
        assert!(check_thread_group(csv(4, 0), [768, 1, 1]).is_ok());
        assert!(check_thread_group(csv(4, 0), [769, 1, 1]).is_err());
        assert!(check_thread_group(csv(4, 1), [16, 16, 4]).is_err());
        assert!(check_thread_group(csv(5, 0), [u32::MAX, u32::MAX, 64]).is_err());
    }

    #[test]
    fn availability_table() {
        assert_eq!(Opcode::Add.info().model, Model::V40);
        assert_eq!(Opcode::DclGlobalFlags.info().model, Model::V40);
        assert_eq!(Opcode::Gather4.info().model, Model::V41);
        assert_eq!(Opcode::LdStructured.info().model, Model::V4xSrv);
        assert_eq!(Opcode::Rcp.info().model, Model::V50);
        assert_eq!(Opcode::AtomicIAdd.info().model, Model::V50);
        assert_eq!(Opcode::DclTgsmRaw.info().model, Model::V50);
        assert_eq!(Opcode::Reserved209.info().model, Model::Never);
        assert!(availability(Opcode::Gather4, csv(4, 0), 0).is_err());
        assert!(availability(Opcode::Gather4, csv(4, 1), 0).is_ok());
        assert!(availability(Opcode::Sample, csv(5, 0), 0).is_err());
        assert!(availability(Opcode::SampleL, csv(5, 0), 0).is_ok());
        let ps40 = Version {
            kind: ProgramKind::Pixel,
            major: 4,
            minor: 0,
        };
        assert!(availability(Opcode::LdStructured, ps40, 0).is_err());
        assert!(availability(
            Opcode::LdStructured,
            ps40,
            global_flags::RAW_AND_STRUCTURED_4X
        )
        .is_ok());
        assert!(availability(Opcode::StoreRaw, ps40, global_flags::RAW_AND_STRUCTURED_4X).is_err());
    }

    #[test]
    fn double_flags() {
        assert!(flag_problem(Opcode::DAdd, 0).is_some());
        assert!(flag_problem(Opcode::DAdd, global_flags::DOUBLES).is_none());
        assert!(flag_problem(Opcode::DDiv, global_flags::DOUBLES).is_some());
        assert!(flag_problem(
            Opcode::DDiv,
            global_flags::DOUBLES | global_flags::DOUBLE_EXTENSIONS_11_1
        )
        .is_none());
        assert!(flag_problem(Opcode::Msad, 0).is_some());
        assert!(flag_problem(Opcode::Add, 0).is_none());
    }

    #[test]
    fn sync_rules() {
        use sync_flags::*;
        assert!(check_sync(csv(5, 0), TGSM | THREADS_IN_GROUP).is_ok());
        assert!(check_sync(csv(5, 0), THREADS_IN_GROUP).is_err());
        assert!(check_sync(csv(5, 0), UAV_GROUP | UAV_GLOBAL).is_err());
        let ps = Version {
            kind: ProgramKind::Pixel,
            major: 5,
            minor: 0,
        };
        assert!(check_sync(ps, UAV_GLOBAL).is_ok());
        assert!(check_sync(ps, UAV_GLOBAL | TGSM).is_err());
    }

    use crate::ir::{Components, Operand};
    use crate::validate::testutil::*;
    use crate::validate::{validate, ValidationError};

    fn err(p: &Program) -> ValidationError {
        validate(p).expect_err("program should be rejected")
    }

    fn tgsm(reg: u32, stride: u32, count: u32) -> Decl {
        Decl::TgsmStructured {
            op: slot(OperandType::Tgsm, reg),
            stride,
            count,
        }
    }

    #[test]
    fn temp_budget_counts_indexable_elements() {
        let x = |reg, len| Decl::IndexableTemp { reg, len, comps: 4 };
        assert!(validate(&cs50(96, vec![x(0, 4000)], vec![])).is_ok());
        let e = err(&cs50(97, vec![x(0, 4000)], vec![]));
        assert_eq!(
            (e.rule, e.inst_index, e.decl_index),
            (Rule::Limit, None, None)
        );
        assert!(e.message.contains("4097"), "{e}");
    }

    #[test]
    fn tgsm_totals_per_model() {
        assert!(validate(&cs50(1, vec![tgsm(0, 2048, 16)], vec![])).is_ok());
        let e = err(&cs50(1, vec![tgsm(0, 2048, 16), tgsm(1, 4, 1)], vec![]));
        assert_eq!(e.rule, Rule::Limit);
        assert!(e.message.contains("32768"), "{e}");
        let raw = Decl::TgsmRaw {
            op: slot(OperandType::Tgsm, 0),
            bytes: 32768,
        };
        assert!(validate(&cs50(1, vec![raw], vec![])).is_ok());
    }

    #[test]
    fn cs4_tgsm_rules() {
        let ok = cs(
            4,
            0,
            [64, 1, 1],
            1,
            vec![tgsm(0, 128, 64), tgsm(1, 128, 64)],
            vec![],
        );
        assert_eq!(validate(&ok).expect("valid").tgsm_bytes, 16384);
        // 260 bytes per thread is over the 256-byte budget of a 64-thread group.
        let e = err(&cs(
            4,
            0,
            [64, 1, 1],
            1,
            vec![tgsm(0, 128, 64), tgsm(1, 132, 64)],
            vec![],
        ));
        assert_eq!(e.rule, Rule::Limit);
        // One structure per thread.
        let e = err(&cs(4, 0, [64, 1, 1], 1, vec![tgsm(0, 4, 32)], vec![]));
        assert_eq!((e.rule, e.decl_index), (Rule::Limit, Some(3)));
        let raw = Decl::TgsmRaw {
            op: slot(OperandType::Tgsm, 0),
            bytes: 64,
        };
        let e = err(&cs(4, 1, [64, 1, 1], 1, vec![raw], vec![]));
        assert_eq!((e.rule, e.decl_index), (Rule::Model, Some(3)));
    }

    #[test]
    fn compute_needs_a_thread_group() {
        let mut p = cs50(1, vec![], vec![]);
        p.decls.retain(|d| !matches!(d, Decl::ThreadGroup(_)));
        assert!(err(&p).message.contains("dcl_thread_group"));
    }

    #[test]
    fn declarations_of_other_stages_are_rejected() {
        let out = Decl::Output(Operand::new(OperandType::Output, Components::Zero));
        let e = err(&cs50(1, vec![out], vec![]));
        assert_eq!((e.rule, e.decl_index), (Rule::Model, Some(3)));
        let mut p = ps50(1, vec![], vec![]);
        p.decls.push(Decl::ThreadGroup([1, 1, 1]));
        assert_eq!(err(&p).rule, Rule::Model);
    }

    #[test]
    fn instructions_of_other_models_are_rejected() {
        let e = err(&cs50(1, vec![], vec![bare(Opcode::Reserved209)]));
        assert_eq!((e.rule, e.inst_index), (Rule::Model, Some(0)));
        let e = err(&cs50(1, vec![], vec![bare(Opcode::Emit)]));
        assert_eq!((e.rule, e.inst_index), (Rule::Model, Some(0)));
        let e = err(&cs50(1, vec![], vec![bare(Opcode::DclTemps)]));
        assert!(e.message.contains("declaration"), "{e}");
        let rcp = bare(Opcode::Rcp);
        let e = err(&cs(4, 1, [8, 1, 1], 1, vec![], vec![rcp]));
        assert_eq!(
            e.to_string(),
            "instruction 0 (rcp): needs model 5.0, program is cs_4_1"
        );
    }

    #[test]
    fn ps4_structured_buffers_need_the_flag() {
        let srv = Decl::ResourceStructured {
            op: slot(OperandType::Resource, 0),
            stride: 4,
            space: 0,
            buffer_dim: false,
        };
        let mut p = ps50(1, vec![srv], vec![]);
        p.version.major = 4;
        let e = err(&p);
        assert!(e.message.contains("enableRawAndStructuredBuffers"), "{e}");
        p.decls
            .push(Decl::GlobalFlags(global_flags::RAW_AND_STRUCTURED_4X));
        assert!(validate(&p).is_ok());
    }

    #[test]
    fn cs4_buckets() {
        assert_eq!(cs4_tgsm_bytes_per_thread(64), 256);
        assert_eq!(cs4_tgsm_bytes_per_thread(65), 240);
        assert_eq!(cs4_tgsm_bytes_per_thread(768), 16);
        assert_eq!(cs4_tgsm_bytes_per_thread(769), 0);
    }

    #[test]
    fn strides_and_slots() {
        assert!(check_stride(4).is_ok());
        assert!(check_stride(2048).is_ok());
        assert!(check_stride(0).is_err());
        assert!(check_stride(6).is_err());
        assert!(check_stride(2052).is_err());
        assert!(check_uav_slot(csv(5, 0), 63).is_ok());
        assert!(check_uav_slot(csv(5, 0), 64).is_err());
        assert!(check_uav_slot(csv(4, 0), 1).is_err());
        assert!(check_slot(csv(5, 0), OperandType::Sampler, 16).is_err());
        assert!(check_slot(csv(5, 0), OperandType::ConstantBuffer, 14).is_ok());
    }
}
