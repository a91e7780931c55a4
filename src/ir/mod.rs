//! The `Program`: the one type both front ends produce and every back end consumes.
//!
//! In: built by `dxbc::decode` (from tokens) or `asm::parse` (from text).
//! Out: read by `asm::print`, `dxbc::encode`, `validate`, `interp` and `jit`.
//!
//! Invariant: a `Program` is a faithful, typed image of the token stream. It
//! keeps everything needed to re-emit the same tokens dword for dword
//! (opcode-specific control bits, extended opcode tokens, operand component
//! modes, index representations, modifiers), so that
//! `decode(encode(p)) == p` and `parse(print(p)) == p`. Nothing here is
//! validated beyond what the token format itself forces; `validate` checks
//! the meaning.
//!
//! Declarations are kept apart from executable instructions (`decls` and
//! `insts`), each in token order. The token format puts every declaration
//! before the first instruction for the program kinds we run.

pub mod opcode;

pub use opcode::{
    AtomicInst, CompareInst, ConvertInst, CustomDataInst, DeclInst, DoubleInst, FloatInst,
    FlowInst, Form, GraphicsInst, ImmKind, InstVisitor, IntInst, LodSource, MemoryInst, MiscInst,
    Model, MoveInst, OpClass, OpInfo, OpKind, Opcode, Role, SampleForm, SampleInst, Shape,
    SyncInst,
};

/// Which pipeline stage a program is for (bits [31:16] of the version token).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ProgramKind {
    Pixel = 0,
    Vertex = 1,
    Geometry = 2,
    Hull = 3,
    Domain = 4,
    Compute = 5,
}

impl ProgramKind {
    pub fn from_u32(v: u32) -> Option<ProgramKind> {
        Some(match v {
            0 => ProgramKind::Pixel,
            1 => ProgramKind::Vertex,
            2 => ProgramKind::Geometry,
            3 => ProgramKind::Hull,
            4 => ProgramKind::Domain,
            5 => ProgramKind::Compute,
            _ => return None,
        })
    }

    /// The two-letter prefix of the model name (`cs`, `ps`, ...).
    pub fn prefix(self) -> &'static str {
        match self {
            ProgramKind::Pixel => "ps",
            ProgramKind::Vertex => "vs",
            ProgramKind::Geometry => "gs",
            ProgramKind::Hull => "hs",
            ProgramKind::Domain => "ds",
            ProgramKind::Compute => "cs",
        }
    }
}

/// Shader model and kind, e.g. `cs_5_0`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Version {
    pub kind: ProgramKind,
    pub major: u8,
    pub minor: u8,
}

impl Version {
    /// True for SM5.1, whose resource operands carry a range id and a space.
    pub fn is_sm51(self) -> bool {
        self.major == 5 && self.minor >= 1
    }

    /// True for cs_4_0 / cs_4_1 (the downlevel compute models).
    pub fn is_cs4(self) -> bool {
        self.kind == ProgramKind::Compute && self.major == 4
    }
}

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}_{}_{}", self.kind.prefix(), self.major, self.minor)
    }
}

/// A whole shader program.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    pub version: Version,
    /// Declarations, in token order.
    pub decls: Vec<Decl>,
    /// Executable instructions, in token order. Instruction indices used in
    /// error messages are indices into this vector.
    pub insts: Vec<Instruction>,
}

// ---------------------------------------------------------------------------
// Operands
// ---------------------------------------------------------------------------

/// Register file of an operand (bits [19:12] of the operand token).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OperandType {
    Temp = 0,
    Input = 1,
    Output = 2,
    IndexableTemp = 3,
    Imm32 = 4,
    Imm64 = 5,
    Sampler = 6,
    Resource = 7,
    ConstantBuffer = 8,
    ImmConstantBuffer = 9,
    Label = 10,
    InputPrimitiveId = 11,
    OutputDepth = 12,
    Null = 13,
    Rasterizer = 14,
    OutputCoverageMask = 15,
    Stream = 16,
    FunctionBody = 17,
    FunctionTable = 18,
    Interface = 19,
    FunctionInput = 20,
    FunctionOutput = 21,
    OutputControlPointId = 22,
    InputForkInstanceId = 23,
    InputJoinInstanceId = 24,
    InputControlPoint = 25,
    OutputControlPoint = 26,
    InputPatchConstant = 27,
    InputDomainPoint = 28,
    ThisPointer = 29,
    Uav = 30,
    Tgsm = 31,
    ThreadId = 32,
    ThreadGroupId = 33,
    ThreadIdInGroup = 34,
    InputCoverageMask = 35,
    ThreadIdInGroupFlattened = 36,
    InputGsInstanceId = 37,
    OutputDepthGe = 38,
    OutputDepthLe = 39,
    CycleCounter = 40,
    OutputStencilRef = 41,
    InnerCoverage = 42,
}

impl OperandType {
    pub const ALL: [OperandType; 43] = [
        OperandType::Temp,
        OperandType::Input,
        OperandType::Output,
        OperandType::IndexableTemp,
        OperandType::Imm32,
        OperandType::Imm64,
        OperandType::Sampler,
        OperandType::Resource,
        OperandType::ConstantBuffer,
        OperandType::ImmConstantBuffer,
        OperandType::Label,
        OperandType::InputPrimitiveId,
        OperandType::OutputDepth,
        OperandType::Null,
        OperandType::Rasterizer,
        OperandType::OutputCoverageMask,
        OperandType::Stream,
        OperandType::FunctionBody,
        OperandType::FunctionTable,
        OperandType::Interface,
        OperandType::FunctionInput,
        OperandType::FunctionOutput,
        OperandType::OutputControlPointId,
        OperandType::InputForkInstanceId,
        OperandType::InputJoinInstanceId,
        OperandType::InputControlPoint,
        OperandType::OutputControlPoint,
        OperandType::InputPatchConstant,
        OperandType::InputDomainPoint,
        OperandType::ThisPointer,
        OperandType::Uav,
        OperandType::Tgsm,
        OperandType::ThreadId,
        OperandType::ThreadGroupId,
        OperandType::ThreadIdInGroup,
        OperandType::InputCoverageMask,
        OperandType::ThreadIdInGroupFlattened,
        OperandType::InputGsInstanceId,
        OperandType::OutputDepthGe,
        OperandType::OutputDepthLe,
        OperandType::CycleCounter,
        OperandType::OutputStencilRef,
        OperandType::InnerCoverage,
    ];

    pub fn from_u32(v: u32) -> Option<OperandType> {
        OperandType::ALL.get(v as usize).copied()
    }

    /// The register-file prefix fxc prints (`r`, `cb`, `vThreadID`, ...).
    pub fn prefix(self) -> &'static str {
        use OperandType::*;
        match self {
            Temp => "r",
            Input => "v",
            Output => "o",
            IndexableTemp => "x",
            Imm32 => "l",
            Imm64 => "d",
            Sampler => "s",
            Resource => "t",
            ConstantBuffer => "cb",
            ImmConstantBuffer => "icb",
            Label => "l",
            InputPrimitiveId => "vPrim",
            OutputDepth => "oDepth",
            Null => "null",
            Rasterizer => "rasterizer",
            OutputCoverageMask => "oMask",
            Stream => "m",
            FunctionBody => "fb",
            FunctionTable => "ft",
            Interface => "fp",
            FunctionInput => "fi",
            FunctionOutput => "fo",
            OutputControlPointId => "vOutputControlPointID",
            InputForkInstanceId => "vForkInstanceID",
            InputJoinInstanceId => "vJoinInstanceID",
            InputControlPoint => "vicp",
            OutputControlPoint => "vocp",
            InputPatchConstant => "vpc",
            InputDomainPoint => "vDomain",
            ThisPointer => "this",
            Uav => "u",
            Tgsm => "g",
            ThreadId => "vThreadID",
            ThreadGroupId => "vThreadGroupID",
            ThreadIdInGroup => "vThreadIDInGroup",
            InputCoverageMask => "vCoverage",
            ThreadIdInGroupFlattened => "vThreadIDInGroupFlattened",
            InputGsInstanceId => "vGSInstanceID",
            OutputDepthGe => "oDepthGE",
            OutputDepthLe => "oDepthLE",
            CycleCounter => "vCycleCounter",
            OutputStencilRef => "oStencilRef",
            InnerCoverage => "vInnerCoverage",
        }
    }
}

/// How the four components of a 4-component operand are chosen
/// (bits [3:2] and [11:4] of the operand token).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Selection {
    /// Write mask, bit 0 = x ... bit 3 = w (destinations).
    Mask(u8),
    /// Source component for each of x, y, z, w (0 = x ... 3 = w).
    Swizzle([u8; 4]),
    /// One component replicated (0 = x ... 3 = w).
    Select1(u8),
}

/// The operand's component count (bits [1:0]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Components {
    Zero,
    One,
    Four(Selection),
}

/// Source modifier from the extended operand token.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Modifier {
    #[default]
    None,
    Neg,
    Abs,
    AbsNeg,
}

/// One index of a register operand (`dxbc-format.md` §6.2).
#[derive(Clone, Debug, PartialEq)]
pub enum Index {
    Imm32(u32),
    Imm64(u64),
    Relative(Box<Operand>),
    Imm32PlusRelative(u32, Box<Operand>),
    Imm64PlusRelative(u64, Box<Operand>),
}

/// One operand of an instruction or declaration.
#[derive(Clone, Debug, PartialEq)]
pub struct Operand {
    pub ty: OperandType,
    pub comps: Components,
    /// 0 to 3 indices, in token order (`cb0[3]` is `[Imm32(0), Imm32(3)]`).
    pub indices: Vec<Index>,
    pub modifier: Modifier,
    /// Minimum-precision field of the extended operand token (0 = default).
    pub min_precision: u8,
    /// SM5.1 non-uniform index flag of the extended operand token.
    pub nonuniform: bool,
    /// Immediate payload DWORDs for `Imm32` (1 or 4) and `Imm64` (2 or 4).
    pub imm: Vec<u32>,
}

impl Operand {
    /// A register operand with no indices and no modifiers.
    pub fn new(ty: OperandType, comps: Components) -> Operand {
        Operand {
            ty,
            comps,
            indices: Vec::new(),
            modifier: Modifier::None,
            min_precision: 0,
            nonuniform: false,
            imm: Vec::new(),
        }
    }

    /// True if the token needs an extended operand token.
    pub fn needs_extended_token(&self) -> bool {
        self.modifier != Modifier::None || self.min_precision != 0 || self.nonuniform
    }

    /// The write mask of a destination (all four for non-mask operands).
    pub fn write_mask(&self) -> u8 {
        match self.comps {
            Components::Four(Selection::Mask(m)) => m,
            Components::One => 1,
            _ => 0xF,
        }
    }

    /// The source swizzle: which component each of x, y, z, w reads.
    pub fn swizzle(&self) -> [u8; 4] {
        match self.comps {
            Components::Four(Selection::Swizzle(s)) => s,
            Components::Four(Selection::Select1(c)) => [c; 4],
            _ => [0, 1, 2, 3],
        }
    }

    /// The immediate index `i` if that index is a plain immediate.
    pub fn imm_index(&self, i: usize) -> Option<u32> {
        match self.indices.get(i) {
            Some(Index::Imm32(v)) => Some(*v),
            _ => None,
        }
    }
}

// ---------------------------------------------------------------------------
// Instructions
// ---------------------------------------------------------------------------

/// An extended opcode token (`dxbc-format.md` §5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExtOpcode {
    /// `_aoffimmi(u, v, w)` texel offsets, each −8..7.
    SampleControls([i8; 3]),
    /// Resource dimension (§10.3) and, for structured buffers, the stride.
    ResourceDim { dim: ResourceDim, stride: u32 },
    /// Return type per component (§10.3 values).
    ReturnType([ReturnType; 4]),
}

/// An executable instruction.
#[derive(Clone, Debug, PartialEq)]
pub struct Instruction {
    pub opcode: Opcode,
    /// Opcode-specific control bits: bits [23:11] of the opcode token,
    /// shifted down by 11. Read them through the accessors below.
    pub controls: u32,
    /// Extended opcode tokens, in token order.
    pub ext: Vec<ExtOpcode>,
    /// Destinations first, then sources (bytecode order).
    pub operands: Vec<Operand>,
}

/// Sync flag bits (in `controls` of `sync`).
pub mod sync_flags {
    pub const THREADS_IN_GROUP: u32 = 0x1;
    pub const TGSM: u32 = 0x2;
    pub const UAV_GROUP: u32 = 0x4;
    pub const UAV_GLOBAL: u32 = 0x8;
}

impl Instruction {
    pub fn new(opcode: Opcode, operands: Vec<Operand>) -> Instruction {
        Instruction {
            opcode,
            controls: 0,
            ext: Vec::new(),
            operands,
        }
    }

    /// `_sat` (bit 13 of the token).
    pub fn saturate(&self) -> bool {
        self.controls & 0x4 != 0
    }

    /// `_nz` for conditional opcodes (bit 18); `false` means `_z`.
    pub fn test_nz(&self) -> bool {
        self.controls & 0x80 != 0
    }

    /// The `precise` component mask (bits [22:19]).
    pub fn precise_mask(&self) -> u32 {
        (self.controls >> 8) & 0xF
    }

    /// resinfo return type (0 float, 1 rcpFloat, 2 uint) or sampleinfo (1 = uint).
    pub fn return_type_bits(&self) -> u32 {
        self.controls & 0x3
    }

    /// sync flags ([`sync_flags`]).
    pub fn sync_flags(&self) -> u32 {
        self.controls & 0xF
    }

    /// The texel offsets of a `SampleControls` extended token, or zeros.
    pub fn texel_offsets(&self) -> [i8; 3] {
        self.ext
            .iter()
            .find_map(|e| match e {
                ExtOpcode::SampleControls(o) => Some(*o),
                _ => None,
            })
            .unwrap_or([0; 3])
    }
}

// ---------------------------------------------------------------------------
// Declarations
// ---------------------------------------------------------------------------

/// Resource dimension (`dxbc-format.md` §10.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ResourceDim {
    Unknown = 0,
    Buffer = 1,
    Texture1D = 2,
    Texture2D = 3,
    Texture2DMS = 4,
    Texture3D = 5,
    TextureCube = 6,
    Texture1DArray = 7,
    Texture2DArray = 8,
    Texture2DMSArray = 9,
    TextureCubeArray = 10,
    RawBuffer = 11,
    StructuredBuffer = 12,
}

impl ResourceDim {
    pub fn from_u32(v: u32) -> Option<ResourceDim> {
        use ResourceDim::*;
        Some(match v {
            0 => Unknown,
            1 => Buffer,
            2 => Texture1D,
            3 => Texture2D,
            4 => Texture2DMS,
            5 => Texture3D,
            6 => TextureCube,
            7 => Texture1DArray,
            8 => Texture2DArray,
            9 => Texture2DMSArray,
            10 => TextureCubeArray,
            11 => RawBuffer,
            12 => StructuredBuffer,
            _ => return None,
        })
    }
}

/// Resource return type per component (`dxbc-format.md` §10.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReturnType {
    Unorm = 1,
    Snorm = 2,
    Sint = 3,
    Uint = 4,
    Float = 5,
    Mixed = 6,
    Double = 7,
    Continued = 8,
    Unused = 9,
}

impl ReturnType {
    pub fn from_u32(v: u32) -> Option<ReturnType> {
        use ReturnType::*;
        Some(match v {
            1 => Unorm,
            2 => Snorm,
            3 => Sint,
            4 => Uint,
            5 => Float,
            6 => Mixed,
            7 => Double,
            8 => Continued,
            9 => Unused,
            _ => return None,
        })
    }
}

/// UAV declaration flags (bits of the opcode token's controls).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct UavFlags {
    /// `_glc`: globally coherent.
    pub globally_coherent: bool,
    /// Rasterizer-ordered (pixel shaders only).
    pub rasterizer_ordered: bool,
    /// `_opc`: order-preserving counter.
    pub order_preserving_counter: bool,
}

/// `dcl_constantbuffer`: before SM5.1 the operand is `cb#[size]`; in
/// SM5.1 it is `cb#[lower:upper]` and the size follows as `size`.
#[derive(Clone, Debug, PartialEq)]
pub struct ConstantBufferDecl {
    pub op: Operand,
    pub dynamic: bool,
    pub size: u32,
    pub space: u32,
}

/// `dcl_resource_<dim>`: a typed t# (buffer or texture).
#[derive(Clone, Debug, PartialEq)]
pub struct TypedResourceDecl {
    pub op: Operand,
    pub dim: ResourceDim,
    pub sample_count: u32,
    pub ret: [ReturnType; 4],
    pub space: u32,
}

/// `dcl_uav_typed_<dim>`: a typed u#.
#[derive(Clone, Debug, PartialEq)]
pub struct TypedUavDecl {
    pub op: Operand,
    pub dim: ResourceDim,
    pub flags: UavFlags,
    pub ret: [ReturnType; 4],
    pub space: u32,
}

/// `dcl_uav_structured`: a structured u# and its stride in bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct StructuredUavDecl {
    pub op: Operand,
    pub stride: u32,
    pub flags: UavFlags,
    pub space: u32,
    /// vkd3d-shader's form: the opcode token spells the resource
    /// dimension (buffer) in bits 11–15, where fxc leaves them 0. It
    /// means nothing more; kept so the exact round trip holds.
    pub buffer_dim: bool,
}

/// `dcl_interface`: an interface pointer fp# and its function tables.
#[derive(Clone, Debug, PartialEq)]
pub struct InterfaceDecl {
    pub index: u32,
    pub dynamic: bool,
    pub table_len: u32,
    pub array_len: u32,
    pub tables: Vec<u32>,
}

/// A declaration. The register operand is kept whole (`op`) so the printer
/// and encoder can reproduce it exactly; SM5.1 declarations carry their
/// range `[id][lower][upper]` in the operand's indices and `space` here
/// (0 before SM5.1).
#[derive(Clone, Debug, PartialEq)]
pub enum Decl {
    GlobalFlags(u32),
    Temps(u32),
    IndexableTemp {
        reg: u32,
        len: u32,
        comps: u32,
    },
    ThreadGroup([u32; 3]),
    /// `dcl_input` (v#, vThread*, vPrim, ...), with the operand's mask.
    Input(Operand),
    InputSgv {
        op: Operand,
        name: u32,
    },
    InputSiv {
        op: Operand,
        name: u32,
    },
    /// Pixel-shader input with its interpolation mode (controls [14:11]).
    InputPs {
        op: Operand,
        interp: u32,
    },
    InputPsSgv {
        op: Operand,
        interp: u32,
        name: u32,
    },
    InputPsSiv {
        op: Operand,
        interp: u32,
        name: u32,
    },
    Output(Operand),
    OutputSgv {
        op: Operand,
        name: u32,
    },
    OutputSiv {
        op: Operand,
        name: u32,
    },
    ConstantBuffer(ConstantBufferDecl),
    /// The immediate constant buffer's DWORDs (a multiple of 4).
    ImmediateConstantBuffer(Vec<u32>),
    Sampler {
        op: Operand,
        mode: u32,
        space: u32,
    },
    Resource(TypedResourceDecl),
    ResourceRaw {
        op: Operand,
        space: u32,
        /// vkd3d-shader's form: the opcode token spells the resource
        /// dimension (buffer) in bits 11–15, where fxc leaves them 0. It
        /// means nothing more; kept so the exact round trip holds.
        buffer_dim: bool,
    },
    ResourceStructured {
        op: Operand,
        stride: u32,
        space: u32,
        /// vkd3d-shader's form: the opcode token spells the resource
        /// dimension (buffer) in bits 11–15, where fxc leaves them 0. It
        /// means nothing more; kept so the exact round trip holds.
        buffer_dim: bool,
    },
    UavTyped(TypedUavDecl),
    UavRaw {
        op: Operand,
        flags: UavFlags,
        space: u32,
        /// vkd3d-shader's form: the opcode token spells the resource
        /// dimension (buffer) in bits 11–15, where fxc leaves them 0. It
        /// means nothing more; kept so the exact round trip holds.
        buffer_dim: bool,
    },
    UavStructured(StructuredUavDecl),
    TgsmRaw {
        op: Operand,
        bytes: u32,
    },
    TgsmStructured {
        op: Operand,
        stride: u32,
        count: u32,
    },
    IndexRange {
        op: Operand,
        count: u32,
    },
    FunctionBody(u32),
    FunctionTable {
        index: u32,
        bodies: Vec<u32>,
    },
    Interface(InterfaceDecl),
    /// Any other declaration (geometry, hull and domain stages): kept as
    /// raw opcode, controls and the DWORDs after the opcode token so it
    /// round-trips; no engine runs such programs.
    Other {
        opcode: Opcode,
        controls: u32,
        body: Vec<u32>,
    },
}

impl Decl {
    /// The opcode the declaration is written with (`CustomData` for the
    /// immediate constant buffer).
    pub fn opcode(&self) -> Opcode {
        use Opcode::*;
        match self {
            Decl::GlobalFlags(_) => DclGlobalFlags,
            Decl::Temps(_) => DclTemps,
            Decl::IndexableTemp { .. } => DclIndexableTemp,
            Decl::ThreadGroup(_) => DclThreadGroup,
            Decl::Input(_) => DclInput,
            Decl::InputSgv { .. } => DclInputSgv,
            Decl::InputSiv { .. } => DclInputSiv,
            Decl::InputPs { .. } => DclInputPs,
            Decl::InputPsSgv { .. } => DclInputPsSgv,
            Decl::InputPsSiv { .. } => DclInputPsSiv,
            Decl::Output(_) => DclOutput,
            Decl::OutputSgv { .. } => DclOutputSgv,
            Decl::OutputSiv { .. } => DclOutputSiv,
            Decl::ConstantBuffer(_) => DclConstantBuffer,
            Decl::ImmediateConstantBuffer(_) => CustomData,
            Decl::Sampler { .. } => DclSampler,
            Decl::Resource(_) => DclResource,
            Decl::ResourceRaw { .. } => DclResourceRaw,
            Decl::ResourceStructured { .. } => DclResourceStructured,
            Decl::UavTyped(_) => DclUavTyped,
            Decl::UavRaw { .. } => DclUavRaw,
            Decl::UavStructured(_) => DclUavStructured,
            Decl::TgsmRaw { .. } => DclTgsmRaw,
            Decl::TgsmStructured { .. } => DclTgsmStructured,
            Decl::IndexRange { .. } => DclIndexRange,
            Decl::FunctionBody(_) => DclFunctionBody,
            Decl::FunctionTable { .. } => DclFunctionTable,
            Decl::Interface(_) => DclInterface,
            Decl::Other { opcode, .. } => *opcode,
        }
    }
}
