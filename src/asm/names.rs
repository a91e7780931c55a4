//! The spellings shared by the printer and the parser, each table once.
//!
//! In: IR enums and numbers. Out: the words fxc prints for them, and back.
//! Invariant: every `*_name` function has an inverse `*_from_name` that
//! accepts exactly what it returns.
//!
//! Our own spellings (fxc has none for these forms):
//! - operand component modes that differ from the role's default:
//!   `.mask_LETTERS` (a write mask on a source, or `.mask_` for mask 0),
//!   `.swizzle_LETTERS` (a swizzle on a destination), `.select_LETTER`
//!   (a select-1 on a destination), `.scalar` (a 1-component register whose
//!   type is normally 0-component), `.none` (the reverse);
//! - extended operand fields: `{min16f}`, `{min2_8f}`, `{min16i}`,
//!   `{min16u}`, `{minprecN}`, `{nonuniform}` after the operand;
//! - a 64-bit index: the number with an `i64` suffix (`[5i64]`); a relative
//!   index with an explicit zero immediate: `[r0.x + 0i32]` (fxc writes a plain
//!   relative index as `[r0.x + 0]`);
//! - declarations of other stages: `MNEMONIC raw(controls, dword, ...)`;
//! - control bits outside the agreed rule: `_ctlHEX` (`ret_ctl40`);
//! - values with no name: resinfo return type 3 as `_rt3`, sampler mode N
//!   as `modeN`, interpolation mode N as `interpN`, a system value as its
//!   number, unknown global-flag bits as hex (`refactoringAllowed | 0x100000`);
//! - a pre-5.1 constant-buffer size that differs from the operand's second
//!   index as `, size=N`, and a non-zero register space before SM5.1 as
//!   `, space=N`;
//! - extended opcode tokens in an order fxc never writes: each word directly
//!   followed by its group (`(uint,uint,uint,uint)_indexable(buffer)`).
//!
//! Immediates: fxc prints integer-typed values in `-10000..=10000` as decimal
//! and others as `0x%08x`, float-typed values as `%f`, and untyped values
//! (`mov`, `movc`, `swapc`, stored values, the immediate constant buffer) per
//! value: small integers as decimal, normal floats and ±0 as `%f`, the rest as
//! hex. Untyped vectors are written without a space after the commas.

use crate::ir::{OperandType, ResourceDim, ReturnType};

const DIMS: [(ResourceDim, &str); 13] = [
    (ResourceDim::Unknown, "unknown"),
    (ResourceDim::Buffer, "buffer"),
    (ResourceDim::Texture1D, "texture1d"),
    (ResourceDim::Texture2D, "texture2d"),
    (ResourceDim::Texture2DMS, "texture2dms"),
    (ResourceDim::Texture3D, "texture3d"),
    (ResourceDim::TextureCube, "texturecube"),
    (ResourceDim::Texture1DArray, "texture1darray"),
    (ResourceDim::Texture2DArray, "texture2darray"),
    (ResourceDim::Texture2DMSArray, "texture2dmsarray"),
    (ResourceDim::TextureCubeArray, "texturecubearray"),
    (ResourceDim::RawBuffer, "raw_buffer"),
    (ResourceDim::StructuredBuffer, "structured_buffer"),
];

pub fn dim_name(d: ResourceDim) -> &'static str {
    DIMS.iter()
        .find(|(x, _)| *x == d)
        .map(|(_, n)| *n)
        .unwrap_or("unknown")
}

pub fn dim_from_name(s: &str) -> Option<ResourceDim> {
    DIMS.iter().find(|(_, n)| *n == s).map(|(d, _)| *d)
}

const RETS: [(ReturnType, &str); 9] = [
    (ReturnType::Unorm, "unorm"),
    (ReturnType::Snorm, "snorm"),
    (ReturnType::Sint, "sint"),
    (ReturnType::Uint, "uint"),
    (ReturnType::Float, "float"),
    (ReturnType::Mixed, "mixed"),
    (ReturnType::Double, "double"),
    (ReturnType::Continued, "continued"),
    (ReturnType::Unused, "unused"),
];

pub fn ret_name(r: ReturnType) -> &'static str {
    RETS.iter()
        .find(|(x, _)| *x == r)
        .map(|(_, n)| *n)
        .unwrap_or("unused")
}

pub fn ret_from_name(s: &str) -> Option<ReturnType> {
    RETS.iter().find(|(_, n)| *n == s).map(|(r, _)| *r)
}

/// `(float,float,float,float)`.
pub fn ret_list(r: &[ReturnType; 4]) -> String {
    let names: Vec<&str> = r.iter().map(|x| ret_name(*x)).collect();
    format!("({})", names.join(","))
}

const SYSVALUES: [&str; 23] = [
    "undefined",
    "position",
    "clip_distance",
    "cull_distance",
    "rendertarget_array_index",
    "viewport_array_index",
    "vertex_id",
    "primitive_id",
    "instance_id",
    "is_front_face",
    "sampleIndex",
    "finalQuadUeq0EdgeTessFactor",
    "finalQuadVeq0EdgeTessFactor",
    "finalQuadUeq1EdgeTessFactor",
    "finalQuadVeq1EdgeTessFactor",
    "finalQuadUInsideTessFactor",
    "finalQuadVInsideTessFactor",
    "finalTriUeq0EdgeTessFactor",
    "finalTriVeq0EdgeTessFactor",
    "finalTriWeq0EdgeTessFactor",
    "finalTriInsideTessFactor",
    "finalLineDetailTessFactor",
    "finalLineDensityTessFactor",
];

/// A system-value name (`position`, ...) or its number when it has none.
pub fn sysvalue_name(v: u32) -> String {
    SYSVALUES
        .get(v as usize)
        .map(|s| s.to_string())
        .unwrap_or_else(|| v.to_string())
}

pub fn sysvalue_from_name(s: &str) -> Option<u32> {
    SYSVALUES.iter().position(|n| *n == s).map(|i| i as u32)
}

const INTERP: [&str; 8] = [
    "",
    "constant",
    "linear",
    "linear centroid",
    "linear noperspective",
    "linear noperspective centroid",
    "linear sample",
    "linear noperspective sample",
];

/// The interpolation mode words of `dcl_input_ps` (empty for mode 0).
pub fn interp_name(v: u32) -> String {
    INTERP
        .get(v as usize)
        .map(|s| s.to_string())
        .unwrap_or_else(|| format!("interp{v}"))
}

pub fn interp_from_words(words: &[&str]) -> Option<u32> {
    let joined = words.join(" ");
    if let Some(n) = joined.strip_prefix("interp") {
        return n.parse().ok();
    }
    INTERP.iter().position(|n| *n == joined).map(|i| i as u32)
}

/// True for the words that may start or continue an interpolation mode.
pub fn is_interp_word(s: &str) -> bool {
    matches!(
        s,
        "constant" | "linear" | "centroid" | "noperspective" | "sample"
    ) || (s.starts_with("interp") && s.len() > 6 && s[6..].bytes().all(|b| b.is_ascii_digit()))
}

const GLOBAL_FLAGS: [&str; 9] = [
    "refactoringAllowed",
    "enableDoublePrecisionFloatOps",
    "forceEarlyDepthStencil",
    "enableRawAndStructuredBuffers",
    "skipOptimization",
    "enableMinimumPrecision",
    "enable11_1DoubleExtensions",
    "enable11_1ShaderExtensions",
    "allResourcesBound",
];

/// Bit of the first global flag: `Decl::GlobalFlags` keeps token bit positions.
const GLOBAL_FLAG_SHIFT: u32 = 11;

/// `refactoringAllowed | enableDoublePrecisionFloatOps`; unknown bits as hex; `0` if none.
pub fn global_flags_text(flags: u32) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut rest = flags;
    for (i, name) in GLOBAL_FLAGS.iter().enumerate() {
        let bit = 1 << (i as u32 + GLOBAL_FLAG_SHIFT);
        if flags & bit != 0 {
            parts.push(name.to_string());
            rest &= !bit;
        }
    }
    if rest != 0 || parts.is_empty() {
        parts.push(if rest == 0 {
            "0".to_string()
        } else {
            format!("0x{rest:x}")
        });
    }
    parts.join(" | ")
}

pub fn global_flag_from_name(s: &str) -> Option<u32> {
    GLOBAL_FLAGS
        .iter()
        .position(|n| *n == s)
        .map(|i| 1 << (i as u32 + GLOBAL_FLAG_SHIFT))
}

pub const SAMPLER_MODES: [&str; 3] = ["mode_default", "mode_comparison", "mode_mono"];

pub fn min_precision_name(v: u8) -> String {
    match v {
        1 => "min16f".into(),
        2 => "min2_8f".into(),
        4 => "min16i".into(),
        5 => "min16u".into(),
        _ => format!("minprec{v}"),
    }
}

pub fn min_precision_from_name(s: &str) -> Option<u8> {
    Some(match s {
        "min16f" => 1,
        "min2_8f" => 2,
        "min16i" => 4,
        "min16u" => 5,
        _ => {
            let v: u8 = s.strip_prefix("minprec")?.parse().ok()?;
            if v > 7 {
                return None;
            }
            v
        }
    })
}

/// Operand types whose registers are normally 1-component (print no suffix).
pub fn default_one(ty: OperandType) -> bool {
    use OperandType::*;
    matches!(
        ty,
        OutputDepth
            | OutputDepthGe
            | OutputDepthLe
            | OutputCoverageMask
            | OutputStencilRef
            | InputPrimitiveId
            | InputCoverageMask
            | InputGsInstanceId
    )
}

/// Operand types that print their first index in brackets (`icb[3]`), not inline.
pub fn bracket_first(ty: OperandType) -> bool {
    use OperandType::*;
    matches!(
        ty,
        ImmConstantBuffer
            | InputControlPoint
            | OutputControlPoint
            | InputPatchConstant
            | ThisPointer
            | Imm32
            | Imm64
            | Null
    )
}

/// Types printed with an upper-case prefix in SM5.1 (`CB0`, `T0`, `U0`, `S0`).
pub fn sm51_upper(ty: OperandType) -> bool {
    use OperandType::*;
    matches!(ty, ConstantBuffer | Resource | Uav | Sampler)
}

/// Finds the operand type of a register prefix (`r`, `cb`, `CB`, `vThreadID`).
pub fn operand_type_from_prefix(s: &str) -> Option<OperandType> {
    let lower = match s {
        "CB" => "cb",
        "T" => "t",
        "U" => "u",
        "S" => "s",
        other => other,
    };
    OperandType::ALL
        .iter()
        .copied()
        .filter(|t| !matches!(t, OperandType::Imm32 | OperandType::Imm64))
        .find(|t| t.prefix() == lower)
}

pub const COMPONENTS: [char; 4] = ['x', 'y', 'z', 'w'];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_invert() {
        for (d, n) in DIMS {
            assert_eq!(dim_from_name(dim_name(d)), Some(d), "{n}");
        }
        for (r, _) in RETS {
            assert_eq!(ret_from_name(ret_name(r)), Some(r));
        }
        for v in 0..30 {
            let n = sysvalue_name(v);
            if v < 23 {
                assert_eq!(sysvalue_from_name(&n), Some(v));
            } else {
                assert_eq!(n, v.to_string());
            }
        }
        for v in 0..8u8 {
            assert_eq!(min_precision_from_name(&min_precision_name(v)), Some(v));
        }
        assert_eq!(
            global_flags_text(0x1800),
            "refactoringAllowed | enableDoublePrecisionFloatOps"
        );
        assert_eq!(global_flags_text(0), "0");
        assert_eq!(global_flags_text(0x801), "refactoringAllowed | 0x1");
        assert_eq!(global_flag_from_name("allResourcesBound"), Some(0x80000));
    }

    #[test]
    fn prefixes_resolve() {
        assert_eq!(operand_type_from_prefix("r"), Some(OperandType::Temp));
        assert_eq!(
            operand_type_from_prefix("CB"),
            Some(OperandType::ConstantBuffer)
        );
        assert_eq!(operand_type_from_prefix("l"), Some(OperandType::Label));
        assert_eq!(
            operand_type_from_prefix("vThreadIDInGroupFlattened"),
            Some(OperandType::ThreadIdInGroupFlattened)
        );
        assert_eq!(operand_type_from_prefix("q"), None);
    }
}
