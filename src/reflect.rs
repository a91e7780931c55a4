//! Shader reflection: what a loaded shader declares, in the terms D3D's
//! shader reflection uses.
//!
//! In: a validated [`Program`], its [`ProgramInfo`] and, for DXBC input,
//! the container's parsed reflection chunks ([`ChunkInfo`]). Out: a
//! [`Reflection`] — input and output signature elements, constant
//! buffers, SRVs, UAVs, samplers (with the textures each is sampled
//! with), thread-group size, TGSM bytes, instruction counts and flags.
//! Invariants: registers, masks, interpolation modes, slots, kinds and
//! dimensions come from the program's declarations, so they are exactly
//! what the engines run; names (semantic names, cbuffer and resource
//! names, cbuffer variables, component types, rw masks, streams) come from
//! the container when it has them. Without a container (assembly), a
//! system value gives its `SV_*` name and every other element is named
//! `TEXCOORD<register>` (`SV_Target<register>` for pixel outputs), with
//! component type [`ComponentType::Unknown`].

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::dxbc::{ChunkInfo, SignatureElement as ChunkElement};
use crate::ir::{
    Decl, OpClass, Opcode, Operand, OperandType, Program, ProgramKind, ResourceDim, ReturnType,
};
use crate::validate::{ProgramInfo, ResourceKind};

/// `dcl_globalFlags` bit of `forceEarlyDepthStencil` (token position).
const EARLY_DEPTH_STENCIL: u32 = 1 << 13;

/// Everything a shader declares.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Reflection {
    /// `vs_5_0`, `ps_4_1`, ...
    pub model: String,
    /// Input signature, by register (special registers last).
    pub inputs: Vec<SignatureElement>,
    /// Output signature, by register (special registers last).
    pub outputs: Vec<SignatureElement>,
    pub constant_buffers: Vec<ConstantBuffer>,
    pub srvs: Vec<Resource>,
    pub uavs: Vec<Resource>,
    pub samplers: Vec<Sampler>,
    /// `dcl_thread_group`; `[1, 1, 1]` for other stages.
    pub thread_group: [u32; 3],
    /// Thread-group shared memory per group, in bytes.
    pub tgsm_bytes: u32,
    pub instructions: InstructionCounts,
    pub flags: Flags,
    /// Where names came from: `true` when the DXBC container's signature
    /// chunks were read, `false` for names made up from declarations.
    pub from_container: bool,
}

/// One input or output signature element
/// (`D3D11_SIGNATURE_PARAMETER_DESC`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SignatureElement {
    pub semantic: String,
    pub semantic_index: u32,
    /// The `v#`/`o#` register; `None` for the special registers (`oDepth`,
    /// `oMask`, `vCoverage`, `vThreadID`, ...).
    pub register: Option<u32>,
    /// The register as assembly names it: `v1`, `o0`, `oDepth`, `vCoverage`.
    pub operand: String,
    /// The components the element occupies (`xyzw` = 0xF).
    pub mask: u8,
    /// D3D's read/write mask as the container stores it (inputs: the
    /// components the shader reads; outputs: the compiler's "never written"
    /// mask); the declared mask without a container.
    pub rw_mask: u8,
    /// The components the program's `dcl_input*`/`dcl_output*` declare for
    /// this element (0: declared nowhere, the shader ignores it).
    pub declared_mask: u8,
    pub system_value: SystemValue,
    pub component_type: ComponentType,
    /// Pixel-shader inputs: how the rasterizer interpolates it.
    pub interpolation: Option<Interpolation>,
    /// Geometry-shader output stream (0 elsewhere).
    pub stream: u32,
}

/// A D3D_NAME system value, by number and by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct SystemValue(pub u32);

impl SystemValue {
    pub const NONE: SystemValue = SystemValue(0);
    pub const POSITION: SystemValue = SystemValue(1);
    pub const RENDER_TARGET_ARRAY_INDEX: SystemValue = SystemValue(4);
    pub const VIEWPORT_ARRAY_INDEX: SystemValue = SystemValue(5);
    pub const VERTEX_ID: SystemValue = SystemValue(6);
    pub const PRIMITIVE_ID: SystemValue = SystemValue(7);
    pub const INSTANCE_ID: SystemValue = SystemValue(8);
    pub const IS_FRONT_FACE: SystemValue = SystemValue(9);
    pub const SAMPLE_INDEX: SystemValue = SystemValue(10);
    pub const TARGET: SystemValue = SystemValue(64);
    pub const DEPTH: SystemValue = SystemValue(65);
    pub const COVERAGE: SystemValue = SystemValue(66);
    pub const DEPTH_GREATER_EQUAL: SystemValue = SystemValue(67);
    pub const DEPTH_LESS_EQUAL: SystemValue = SystemValue(68);
    pub const STENCIL_REF: SystemValue = SystemValue(69);
    pub const INNER_COVERAGE: SystemValue = SystemValue(70);

    /// The HLSL semantic (`SV_Position`, ...); `None` for 0 and unknown values.
    pub fn semantic(self) -> Option<&'static str> {
        Some(match self.0 {
            1 => "SV_Position",
            2 => "SV_ClipDistance",
            3 => "SV_CullDistance",
            4 => "SV_RenderTargetArrayIndex",
            5 => "SV_ViewportArrayIndex",
            6 => "SV_VertexID",
            7 => "SV_PrimitiveID",
            8 => "SV_InstanceID",
            9 => "SV_IsFrontFace",
            10 => "SV_SampleIndex",
            11..=16 | 17..=19 | 21 | 22 => "SV_TessFactor",
            20 => "SV_InsideTessFactor",
            64 => "SV_Target",
            65 => "SV_Depth",
            66 => "SV_Coverage",
            67 => "SV_DepthGreaterEqual",
            68 => "SV_DepthLessEqual",
            69 => "SV_StencilRef",
            70 => "SV_InnerCoverage",
            _ => return None,
        })
    }
}

/// `D3D_REGISTER_COMPONENT_TYPE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ComponentType {
    Unknown,
    Uint,
    Sint,
    Float,
}

impl ComponentType {
    fn from_u32(v: u32) -> ComponentType {
        match v {
            1 => ComponentType::Uint,
            2 => ComponentType::Sint,
            3 => ComponentType::Float,
            _ => ComponentType::Unknown,
        }
    }
}

/// `D3D_INTERPOLATION_MODE` of a pixel-shader input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Interpolation {
    Undefined,
    Constant,
    Linear,
    LinearCentroid,
    LinearNoPerspective,
    LinearNoPerspectiveCentroid,
    LinearSample,
    LinearNoPerspectiveSample,
}

impl Interpolation {
    /// From the `dcl_input_ps` mode number.
    pub fn from_u32(v: u32) -> Interpolation {
        use Interpolation::*;
        match v {
            1 => Constant,
            2 => Linear,
            3 => LinearCentroid,
            4 => LinearNoPerspective,
            5 => LinearNoPerspectiveCentroid,
            6 => LinearSample,
            7 => LinearNoPerspectiveSample,
            _ => Undefined,
        }
    }

    /// Flat: every pixel takes the provoking vertex's value.
    pub fn is_constant(self) -> bool {
        self == Interpolation::Constant
    }

    /// Interpolated in screen space, without the perspective divide.
    pub fn is_noperspective(self) -> bool {
        use Interpolation::*;
        matches!(
            self,
            LinearNoPerspective | LinearNoPerspectiveCentroid | LinearNoPerspectiveSample
        )
    }

    /// Evaluated at each sample: the shader runs once per sample.
    pub fn is_sample(self) -> bool {
        matches!(
            self,
            Interpolation::LinearSample | Interpolation::LinearNoPerspectiveSample
        )
    }
}

/// One constant buffer (`D3D11_SHADER_BUFFER_DESC` with its binding).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ConstantBuffer {
    /// RDEF's name, if the container has one.
    pub name: Option<String>,
    pub slot: u32,
    pub space: u32,
    /// Slots bound by an SM5.1 range (1 before SM5.1; `u32::MAX` unbounded).
    pub count: u32,
    /// Bytes: 16 x the declared vec4 count (RDEF's size when the
    /// declaration gives none).
    pub size: u32,
    /// `dynamicIndexed` (rows read with a computed index).
    pub dynamic: bool,
    /// RDEF's variables, when the container has them.
    pub variables: Vec<CbVariable>,
}

/// One variable of a constant buffer (`D3D11_SHADER_VARIABLE_DESC`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CbVariable {
    pub name: String,
    /// Byte offset in the buffer.
    pub offset: u32,
    pub size: u32,
    /// The shader reads it (`D3D_SVF_USED`).
    pub used: bool,
}

/// How a t# or u# views its memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ResourceClass {
    Typed,
    Raw,
    Structured,
}

/// One SRV or UAV (`D3D11_SHADER_INPUT_BIND_DESC`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Resource {
    pub name: Option<String>,
    pub slot: u32,
    pub space: u32,
    pub count: u32,
    pub class: ResourceClass,
    /// `buffer`, `texture2d`, `texture2dms`, ..., `raw_buffer`, `structured_buffer`.
    pub dimension: String,
    /// The same as the token's resource-dimension number (1 buffer, 3
    /// texture2d, ..., 11 raw, 12 structured).
    #[serde(skip)]
    pub dimension_code: u32,
    /// Typed resources: the return type of each component (`float`, `uint`, ...).
    pub return_type: Option<[String; 4]>,
    /// Multisampled textures: the declared sample count (0 = any).
    pub sample_count: u32,
    /// Structured resources: bytes per structure.
    pub stride: Option<u32>,
    /// UAVs: the shader uses the hidden counter (`imm_atomic_alloc`/`consume`).
    pub counter: bool,
    /// UAVs the container names append or consume buffers.
    pub append_consume: bool,
    /// UAVs: `_glc`, rasterizer-ordered.
    pub globally_coherent: bool,
    pub rasterizer_ordered: bool,
}

/// One sampler.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Sampler {
    pub name: Option<String>,
    pub slot: u32,
    pub space: u32,
    pub count: u32,
    /// `default`, `comparison` or `mono`.
    pub mode: String,
    /// The SRV slots of the textures sampled with it, ascending.
    pub textures: Vec<u32>,
}

/// Instructions by kind (declarations excluded).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct InstructionCounts {
    pub total: u32,
    pub float: u32,
    pub int: u32,
    pub compare: u32,
    pub convert: u32,
    pub movement: u32,
    pub double: u32,
    pub flow: u32,
    pub memory: u32,
    pub sample: u32,
    pub atomic: u32,
    pub sync: u32,
    pub graphics: u32,
    /// fxc's own count from the STAT chunk, when present.
    pub stat_total: Option<u32>,
}

/// Which depth output a pixel shader writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DepthOutput {
    #[default]
    None,
    /// `oDepth` (`SV_Depth`).
    Any,
    /// `oDepthGE` (`SV_DepthGreaterEqual`).
    GreaterEqual,
    /// `oDepthLE` (`SV_DepthLessEqual`).
    LessEqual,
}

/// What the shader does that a pipeline must know.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Flags {
    pub discards: bool,
    pub writes_depth: DepthOutput,
    /// Writes `oMask` (`SV_Coverage`).
    pub writes_coverage: bool,
    /// Writes `oStencilRef`.
    pub writes_stencil_ref: bool,
    /// Reads `vCoverage` (`SV_Coverage` input).
    pub reads_coverage: bool,
    /// Reads `SV_SampleIndex` or has a sample-interpolated input: a
    /// rasterizer runs it once per sample.
    pub per_sample: bool,
    /// `deriv_*` or an implicit-LOD `sample`/`sample_b`/`sample_c`/`lod`.
    pub uses_derivatives: bool,
    pub uses_doubles: bool,
    pub uses_atomics: bool,
    pub uses_barriers: bool,
    /// `forceEarlyDepthStencil`.
    pub early_depth_stencil: bool,
}

/// Builds the reflection of a validated program.
pub fn reflect(program: &Program, info: &ProgramInfo, chunks: Option<&ChunkInfo>) -> Reflection {
    let rdef = chunks.and_then(|c| c.rdef.as_ref());
    let kind = program.version.kind;
    let in_sig = chunks.and_then(|c| c.input_signature.as_deref());
    let out_sig = chunks.and_then(|c| c.output_signature.as_deref());
    let samplers_of = sampled_pairs(program);
    Reflection {
        model: program.version.to_string(),
        inputs: signature(kind, true, &info.inputs, in_sig),
        outputs: signature(kind, false, &info.outputs, out_sig),
        constant_buffers: constant_buffers(info, rdef),
        srvs: srvs(info, rdef),
        uavs: uavs(info, rdef),
        samplers: samplers(info, rdef, &samplers_of),
        thread_group: info.thread_group.unwrap_or([1, 1, 1]),
        tgsm_bytes: info.tgsm_bytes,
        instructions: counts(program, chunks),
        flags: flags(program, info),
        from_container: in_sig.is_some() || out_sig.is_some(),
    }
}

// ---------------------------------------------------------------------------
// Signatures
// ---------------------------------------------------------------------------

/// The system value of a special register (one without an index).
fn special_value(ty: OperandType) -> Option<(SystemValue, &'static str)> {
    use OperandType::*;
    Some(match ty {
        OutputDepth => (SystemValue::DEPTH, "SV_Depth"),
        OutputDepthGe => (SystemValue::DEPTH_GREATER_EQUAL, "SV_DepthGreaterEqual"),
        OutputDepthLe => (SystemValue::DEPTH_LESS_EQUAL, "SV_DepthLessEqual"),
        OutputCoverageMask => (SystemValue::COVERAGE, "SV_Coverage"),
        OutputStencilRef => (SystemValue::STENCIL_REF, "SV_StencilRef"),
        InputCoverageMask => (SystemValue::COVERAGE, "SV_Coverage"),
        InnerCoverage => (SystemValue::INNER_COVERAGE, "SV_InnerCoverage"),
        InputPrimitiveId => (SystemValue::PRIMITIVE_ID, "SV_PrimitiveID"),
        ThreadId => (SystemValue::NONE, "SV_DispatchThreadID"),
        ThreadGroupId => (SystemValue::NONE, "SV_GroupID"),
        ThreadIdInGroup => (SystemValue::NONE, "SV_GroupThreadID"),
        ThreadIdInGroupFlattened => (SystemValue::NONE, "SV_GroupIndex"),
        _ => return None,
    })
}

/// The component type a system value has in HLSL.
fn system_value_type(sv: SystemValue, ty: OperandType) -> ComponentType {
    use OperandType::*;
    match (sv.0, ty) {
        (4..=10, _) | (66 | 69 | 70, _) => ComponentType::Uint,
        (1..=3, _) | (65 | 67 | 68, _) => ComponentType::Float,
        (
            _,
            ThreadId
            | ThreadGroupId
            | ThreadIdInGroup
            | ThreadIdInGroupFlattened
            | InputCoverageMask,
        ) => ComponentType::Uint,
        _ => ComponentType::Unknown,
    }
}

fn operand_name(input: bool, reg: &crate::validate::IoReg) -> String {
    match reg.index {
        Some(r) if matches!(reg.ty, OperandType::Input | OperandType::Output) => {
            format!("{}{r}", if input { "v" } else { "o" })
        }
        _ => reg.ty.prefix().to_string(),
    }
}

/// Elements from the declarations alone (no container).
fn declared_element(
    kind: ProgramKind,
    input: bool,
    reg: &crate::validate::IoReg,
) -> SignatureElement {
    let special = special_value(reg.ty);
    let sv = match (special, reg.system_value) {
        (Some((sv, _)), _) if sv != SystemValue::NONE => sv,
        (_, Some(v)) => SystemValue(v),
        _ if !input && kind == ProgramKind::Pixel && reg.ty == OperandType::Output => {
            SystemValue::TARGET
        }
        _ => SystemValue::NONE,
    };
    let register = reg
        .index
        .filter(|_| matches!(reg.ty, OperandType::Input | OperandType::Output));
    let (semantic, semantic_index) = match (special, sv.semantic()) {
        (Some((_, name)), _) => (name.to_string(), 0),
        (None, Some(name)) if sv == SystemValue::TARGET => {
            (name.to_string(), register.unwrap_or(0))
        }
        (None, Some(name)) => (name.to_string(), 0),
        (None, None) => ("TEXCOORD".to_string(), register.unwrap_or(0)),
    };
    SignatureElement {
        semantic,
        semantic_index,
        register,
        operand: operand_name(input, reg),
        mask: reg.mask,
        rw_mask: reg.mask,
        declared_mask: reg.mask,
        system_value: sv,
        component_type: system_value_type(sv, reg.ty),
        interpolation: reg.interpolation.map(Interpolation::from_u32),
        stream: 0,
    }
}

/// Does declaration `reg` belong to container element `e`?
fn decl_matches(e: &ChunkElement, reg: &crate::validate::IoReg) -> bool {
    match (reg.ty, reg.index) {
        (OperandType::Input | OperandType::Output, Some(r)) => {
            e.register == r && e.mask & reg.mask != 0
        }
        (ty, _) => special_value(ty).is_some_and(|(sv, _)| {
            sv != SystemValue::NONE && e.system_value == sv.0 && e.register == u32::MAX
        }),
    }
}

fn signature(
    kind: ProgramKind,
    input: bool,
    decls: &[crate::validate::IoReg],
    sig: Option<&[ChunkElement]>,
) -> Vec<SignatureElement> {
    let Some(sig) = sig else {
        let mut out: Vec<SignatureElement> = decls
            .iter()
            .map(|r| declared_element(kind, input, r))
            .collect();
        out.sort_by_key(|e| e.register.unwrap_or(u32::MAX));
        return out;
    };
    let mut used = vec![false; decls.len()];
    let mut out = Vec::new();
    for e in sig {
        let mut declared_mask = 0;
        let mut interpolation = None;
        let mut ty = None;
        for (k, reg) in decls.iter().enumerate() {
            if decl_matches(e, reg) {
                used[k] = true;
                declared_mask |= reg.mask & e.mask;
                interpolation = interpolation.or(reg.interpolation.map(Interpolation::from_u32));
                ty = Some(reg.ty);
            }
        }
        let register = (e.register != u32::MAX).then_some(e.register);
        let operand = match (register, ty) {
            (Some(r), _) => format!("{}{r}", if input { "v" } else { "o" }),
            (None, Some(t)) => t.prefix().to_string(),
            (None, None) => String::new(),
        };
        out.push(SignatureElement {
            semantic: e.name.clone(),
            semantic_index: e.semantic_index,
            register,
            operand,
            mask: e.mask,
            rw_mask: e.rw_mask,
            declared_mask,
            system_value: SystemValue(e.system_value),
            component_type: ComponentType::from_u32(e.component_type),
            interpolation,
            stream: e.stream,
        });
    }
    // Declarations the container does not list (vThreadID, vPrim, ...).
    for (k, reg) in decls.iter().enumerate() {
        if !used[k] {
            out.push(declared_element(kind, input, reg));
        }
    }
    out
}

// ---------------------------------------------------------------------------
// Bindings
// ---------------------------------------------------------------------------

/// (slot, count) of a declaration key: the key itself before SM5.1, the
/// range in SM5.1.
fn slot_range(key: u32, range: Option<(u32, u32)>) -> (u32, u32) {
    match range {
        None => (key, 1),
        Some((lo, hi)) if hi == u32::MAX => (lo, u32::MAX),
        Some((lo, hi)) => (lo, hi.saturating_sub(lo).saturating_add(1)),
    }
}

/// RDEF's binding of `input_types` at `slot` in `space`.
fn rdef_binding<'a>(
    rdef: Option<&'a crate::dxbc::Rdef>,
    input_types: &[u32],
    slot: u32,
    space: u32,
) -> Option<&'a crate::dxbc::BoundResource> {
    rdef?
        .resources
        .iter()
        .find(|r| input_types.contains(&r.input_type) && r.bind_point == slot && r.space == space)
}

const SIT_CBUFFER: u32 = 0;
const SIT_TBUFFER: u32 = 1;
const SIT_TEXTURE: u32 = 2;
const SIT_SAMPLER: u32 = 3;
const SIT_STRUCTURED: u32 = 5;
const SIT_BYTEADDRESS: u32 = 7;
const SIT_UAV_APPEND: u32 = 9;
const SIT_UAV_CONSUME: u32 = 10;
const SIT_UAV_WITH_COUNTER: u32 = 11;
const SRV_TYPES: [u32; 4] = [SIT_TBUFFER, SIT_TEXTURE, SIT_STRUCTURED, SIT_BYTEADDRESS];
const UAV_TYPES: [u32; 6] = [
    4,
    6,
    8,
    SIT_UAV_APPEND,
    SIT_UAV_CONSUME,
    SIT_UAV_WITH_COUNTER,
];
/// `D3D_SVF_USED`.
const SVF_USED: u32 = 2;

fn constant_buffers(info: &ProgramInfo, rdef: Option<&crate::dxbc::Rdef>) -> Vec<ConstantBuffer> {
    info.constant_buffers
        .iter()
        .map(|(&key, cb)| {
            let (slot, count) = slot_range(key, cb.range);
            let bound = rdef_binding(rdef, &[SIT_CBUFFER], slot, cb.space);
            let layout =
                bound.and_then(|b| rdef?.constant_buffers.iter().find(|c| c.name == b.name));
            let size = match (cb.size, layout) {
                (0, Some(l)) => l.size,
                (n, _) => n.saturating_mul(16),
            };
            ConstantBuffer {
                name: bound.map(|b| b.name.clone()),
                slot,
                space: cb.space,
                count,
                size,
                dynamic: cb.dynamic,
                variables: layout
                    .map(|l| {
                        l.variables
                            .iter()
                            .map(|v| CbVariable {
                                name: v.name.clone(),
                                offset: v.offset,
                                size: v.size,
                                used: v.flags & SVF_USED != 0,
                            })
                            .collect()
                    })
                    .unwrap_or_default(),
            }
        })
        .collect()
}

fn dim_name(d: ResourceDim) -> &'static str {
    use ResourceDim::*;
    match d {
        Unknown => "unknown",
        Buffer => "buffer",
        Texture1D => "texture1d",
        Texture2D => "texture2d",
        Texture2DMS => "texture2dms",
        Texture3D => "texture3d",
        TextureCube => "texturecube",
        Texture1DArray => "texture1darray",
        Texture2DArray => "texture2darray",
        Texture2DMSArray => "texture2dmsarray",
        TextureCubeArray => "texturecubearray",
        RawBuffer => "raw_buffer",
        StructuredBuffer => "structured_buffer",
    }
}

fn ret_name(r: ReturnType) -> String {
    crate::asm::names::ret_name(r).to_string()
}

/// A resource's shape from its declared kind.
fn resource(
    name: Option<String>,
    slot: u32,
    space: u32,
    count: u32,
    kind: ResourceKind,
) -> Resource {
    let code = match kind {
        ResourceKind::Typed { dim, .. } => dim as u32,
        ResourceKind::Raw => ResourceDim::RawBuffer as u32,
        ResourceKind::Structured { .. } => ResourceDim::StructuredBuffer as u32,
    };
    let (class, dimension, return_type, sample_count, stride) = match kind {
        ResourceKind::Typed {
            dim,
            ret,
            sample_count,
        } => (
            ResourceClass::Typed,
            dim_name(dim),
            Some(ret.map(ret_name)),
            sample_count,
            None,
        ),
        ResourceKind::Raw => (ResourceClass::Raw, "raw_buffer", None, 0, None),
        ResourceKind::Structured { stride } => (
            ResourceClass::Structured,
            "structured_buffer",
            None,
            0,
            Some(stride),
        ),
    };
    Resource {
        name,
        slot,
        space,
        count,
        class,
        dimension: dimension.to_string(),
        dimension_code: code,
        return_type,
        sample_count,
        stride,
        counter: false,
        append_consume: false,
        globally_coherent: false,
        rasterizer_ordered: false,
    }
}

fn srvs(info: &ProgramInfo, rdef: Option<&crate::dxbc::Rdef>) -> Vec<Resource> {
    info.srvs
        .iter()
        .map(|(&key, r)| {
            let (slot, count) = slot_range(key, r.range);
            let name = rdef_binding(rdef, &SRV_TYPES, slot, r.space).map(|b| b.name.clone());
            resource(name, slot, r.space, count, r.kind)
        })
        .collect()
}

fn uavs(info: &ProgramInfo, rdef: Option<&crate::dxbc::Rdef>) -> Vec<Resource> {
    info.uavs
        .iter()
        .map(|(&key, u)| {
            let (slot, count) = slot_range(key, u.range);
            let bound = rdef_binding(rdef, &UAV_TYPES, slot, u.space);
            let mut r = resource(bound.map(|b| b.name.clone()), slot, u.space, count, u.kind);
            r.append_consume =
                bound.is_some_and(|b| matches!(b.input_type, SIT_UAV_APPEND | SIT_UAV_CONSUME));
            r.counter = u.uses_alloc
                || u.uses_consume
                || bound.is_some_and(|b| b.input_type == SIT_UAV_WITH_COUNTER)
                || r.append_consume;
            r.globally_coherent = u.flags.globally_coherent;
            r.rasterizer_ordered = u.flags.rasterizer_ordered;
            r
        })
        .collect()
}

/// (sampler register, texture register) of every sampling instruction,
/// as the instructions name them (first operand index).
fn sampled_pairs(program: &Program) -> BTreeSet<(u32, u32)> {
    let first = |ty: OperandType, ops: &[Operand]| {
        ops.iter().find(|o| o.ty == ty).and_then(|o| o.imm_index(0))
    };
    program
        .insts
        .iter()
        .filter(|i| i.opcode.class() == OpClass::Sample || i.opcode == Opcode::Lod)
        .filter_map(|i| {
            Some((
                first(OperandType::Sampler, &i.operands)?,
                first(OperandType::Resource, &i.operands)?,
            ))
        })
        .collect()
}

fn samplers(
    info: &ProgramInfo,
    rdef: Option<&crate::dxbc::Rdef>,
    pairs: &BTreeSet<(u32, u32)>,
) -> Vec<Sampler> {
    // Instruction keys are declaration keys; turn texture keys into slots.
    let tex_slot: BTreeMap<u32, u32> = info
        .srvs
        .iter()
        .map(|(&k, r)| (k, slot_range(k, r.range).0))
        .collect();
    info.samplers
        .iter()
        .map(|(&key, s)| {
            let (slot, count) = slot_range(key, s.range);
            let textures: BTreeSet<u32> = pairs
                .iter()
                .filter(|(smp, _)| *smp == key)
                .map(|(_, t)| tex_slot.get(t).copied().unwrap_or(*t))
                .collect();
            Sampler {
                name: rdef_binding(rdef, &[SIT_SAMPLER], slot, s.space).map(|b| b.name.clone()),
                slot,
                space: s.space,
                count,
                mode: match s.mode {
                    1 => "comparison",
                    2 => "mono",
                    _ => "default",
                }
                .to_string(),
                textures: textures.into_iter().collect(),
            }
        })
        .collect()
}

// ---------------------------------------------------------------------------
// Counts and flags
// ---------------------------------------------------------------------------

fn counts(program: &Program, chunks: Option<&ChunkInfo>) -> InstructionCounts {
    let mut c = InstructionCounts {
        stat_total: chunks
            .and_then(|c| c.stat.as_ref())
            .and_then(|s| s.instruction_count()),
        ..InstructionCounts::default()
    };
    for inst in &program.insts {
        let slot = match inst.opcode.class() {
            OpClass::Float => &mut c.float,
            OpClass::Int => &mut c.int,
            OpClass::Compare => &mut c.compare,
            OpClass::Convert => &mut c.convert,
            OpClass::Move => &mut c.movement,
            OpClass::Double => &mut c.double,
            OpClass::Flow => &mut c.flow,
            OpClass::Memory => &mut c.memory,
            OpClass::Sample => &mut c.sample,
            OpClass::Atomic => &mut c.atomic,
            OpClass::Sync => &mut c.sync,
            OpClass::Graphics => &mut c.graphics,
            OpClass::Decl | OpClass::CustomData | OpClass::Misc => continue,
        };
        *slot += 1;
        c.total += 1;
    }
    c
}

/// Opcodes that take implicit derivatives of their coordinates.
fn uses_derivatives(op: Opcode) -> bool {
    op.deriv().is_some()
        || matches!(
            op,
            Opcode::Sample | Opcode::SampleB | Opcode::SampleC | Opcode::Lod
        )
}

fn flags(program: &Program, info: &ProgramInfo) -> Flags {
    let has_out = |ty| info.outputs.iter().any(|r| r.ty == ty);
    let writes_depth = if has_out(OperandType::OutputDepth) {
        DepthOutput::Any
    } else if has_out(OperandType::OutputDepthGe) {
        DepthOutput::GreaterEqual
    } else if has_out(OperandType::OutputDepthLe) {
        DepthOutput::LessEqual
    } else {
        DepthOutput::None
    };
    let per_sample = info.inputs.iter().any(|r| {
        r.system_value == Some(SystemValue::SAMPLE_INDEX.0)
            || r.interpolation
                .is_some_and(|m| Interpolation::from_u32(m).is_sample())
    });
    let global = program
        .decls
        .iter()
        .filter_map(|d| match d {
            Decl::GlobalFlags(f) => Some(*f),
            _ => None,
        })
        .fold(0, |a, f| a | f);
    Flags {
        discards: program.insts.iter().any(|i| i.opcode == Opcode::Discard),
        writes_depth,
        writes_coverage: has_out(OperandType::OutputCoverageMask),
        writes_stencil_ref: has_out(OperandType::OutputStencilRef),
        reads_coverage: info.has_input(OperandType::InputCoverageMask),
        per_sample,
        uses_derivatives: program.insts.iter().any(|i| uses_derivatives(i.opcode)),
        uses_doubles: info.uses_doubles,
        uses_atomics: info.uses_atomics,
        uses_barriers: info.uses_barrier,
        early_depth_stencil: global & EARLY_DEPTH_STENCIL != 0,
    }
}

impl Reflection {
    /// The input element at register `reg` covering component `comp`.
    pub fn input_at(&self, reg: u32, comp: usize) -> Option<&SignatureElement> {
        self.inputs
            .iter()
            .find(|e| e.register == Some(reg) && e.mask & (1 << comp) != 0)
    }

    /// The output element named `semantic` (case-insensitive, as D3D) with `index`.
    pub fn output_named(&self, semantic: &str, index: u32) -> Option<&SignatureElement> {
        self.outputs
            .iter()
            .find(|e| e.semantic.eq_ignore_ascii_case(semantic) && e.semantic_index == index)
    }

    /// The input element named `semantic` with `index`.
    pub fn input_named(&self, semantic: &str, index: u32) -> Option<&SignatureElement> {
        self.inputs
            .iter()
            .find(|e| e.semantic.eq_ignore_ascii_case(semantic) && e.semantic_index == index)
    }

    /// A human-readable report (what `sm5jit info` prints).
    pub fn describe(&self) -> String {
        describe::text(self)
    }
}

mod describe;

#[cfg(test)]
mod tests;
