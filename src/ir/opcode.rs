//! The SM4/SM5 instruction table: every opcode of the tokenized program
//! format and every fact about it, once.
//!
//! In: nothing. Out: [`Opcode`] and its [`OpInfo`] row (token number,
//! mnemonic, class, operand roles, immediate kinds, minimum model, program
//! kinds, required global flags, allowed opcode-token controls, and the
//! sampling / feedback / atomic / derivative / double form), one enum per
//! class listing that class's instructions ([`FloatInst`], [`IntInst`], ...),
//! and the [`InstVisitor`] trait both engines implement. Invariant: this
//! table is the only place that spells an opcode's number, name or shape;
//! the decoder, encoder, printer, parser, validator, engines and fuzzer all
//! read it. Adding a row adds a variant to its class enum, so every engine's
//! exhaustive match on that enum stops compiling until it handles the new
//! instruction (docs/architecture.md, "Adding an instruction").
//!
//! The numbers are the implicit enum values of the D3D tokenized program
//! format (`dxbc-format.md` §12), the model column its availability column.
//! The mnemonic is the base name fxc prints; modifiers such as `_sat`,
//! `_z`/`_nz`, sync flags or resinfo return types are added by the printer
//! from the instruction's fields. Rows are grouped by class; [`Opcode::ALL`]
//! lists them in token-number order.

use super::{Instruction, ProgramKind};
use crate::sem::atomic::{AtomicKind, AtomicOp};
use crate::sem::quad::Deriv;

/// What an operand position accepts (validated by `validate::shape`).
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

impl Role {
    /// True for the positions an instruction writes (its destinations).
    pub const fn is_written(self) -> bool {
        matches!(self, Role::Dst | Role::Uav | Role::Mem)
    }
}

/// The operand list of an opcode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Every position's role, in bytecode order (destinations first).
    Roles(&'static [Role]),
    /// A fixed operand count whose roles the validator does not model
    /// (GS stream and HS phase markers).
    Count(u8),
    /// Neither count nor roles are fixed (declarations, custom data, class
    /// linkage calls, reserved numbers).
    Free,
}

/// How fxc prints a 32-bit immediate of an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImmKind {
    /// Always `%f`.
    Float,
    /// Decimal when small, else `0x%08x`.
    Int,
    /// Per value: decimal when small, `%f` for normal floats and ±0, else hex.
    Untyped,
}

/// The immediate kind of each source: `each[k]` for source `k`, `rest` after.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Imms {
    pub each: &'static [ImmKind],
    pub rest: ImmKind,
}

/// The lowest shader model an opcode exists in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Model {
    /// D3D10.0 opcode (all 4.x and 5.x models).
    V40,
    /// D3D10.1 opcode (x_4_1 and 5.x).
    V41,
    /// A compute addition granted to cs_4_x (5.0 for other kinds).
    V4xCs,
    /// A raw/structured SRV addition: cs_4_x, or any 4.x kind with the
    /// enableRawAndStructuredBuffers global flag.
    V4xSrv,
    /// 5.0 and later only.
    V50,
    /// Reserved number; never valid.
    Never,
}

/// How an op finds its LOD.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LodSource {
    /// From derivatives (0 in a single invocation), plus an optional bias operand.
    Implicit {
        bias: Option<usize>,
    },
    Explicit(usize),
    Gradients(usize, usize),
    Zero,
}

/// Operand positions of one base (non-feedback) sampling op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SampleForm {
    pub offset: Option<usize>,
    pub res: usize,
    pub samp: usize,
    pub reference: Option<usize>,
    pub lod: LodSource,
    pub gather: bool,
    pub query: bool,
}

/// The opcode-specific meaning the engines read from the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    Plain,
    /// A base sampling op and its operand positions.
    Sample(SampleForm),
    /// A `_s` op: the base op run without operand 1 (the status
    /// destination), and whether its last source is a LOD clamp.
    Feedback {
        base: Opcode,
        clamp: bool,
    },
    /// A memory atomic (not the counter ops).
    Atomic(AtomicKind),
    /// A derivative.
    Deriv(Deriv),
    /// A double op: whether the destination / the sources hold doubles.
    Double {
        dst64: bool,
        src64: bool,
    },
}

/// Everything the table says about one opcode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpInfo {
    pub number: u32,
    pub mnemonic: &'static str,
    pub class: OpClass,
    pub shape: Shape,
    pub imm: Imms,
    pub model: Model,
    /// The program kinds it is limited to (`None` = every kind).
    pub stages: Option<&'static [ProgramKind]>,
    /// `dcl_globalFlags` bits it needs (`Decl::GlobalFlags` positions).
    pub needs: u32,
    /// Opcode-specific control bits (token bits [23:11] >> 11) it may carry
    /// beyond [`COMMON_CONTROLS`].
    pub controls: u32,
    pub form: Form,
}

/// Control bits every opcode may carry: `_sat` (bit 2) and the precise mask (bits 8-11).
pub const COMMON_CONTROLS: u32 = 0x4 | 0xF00;
/// The `_nz` test bit of conditional instructions.
pub const TEST_NZ: u32 = 0x80;

const fn imms(each: &'static [ImmKind], rest: ImmKind) -> Imms {
    Imms { each, rest }
}
const F: ImmKind = ImmKind::Float;
const I: ImmKind = ImmKind::Int;
const U: ImmKind = ImmKind::Untyped;
const ALL_FLOAT: Imms = imms(&[], F);
const ALL_INT: Imms = imms(&[], I);
const ALL_UNTYPED: Imms = imms(&[], U);
/// Sampling: float except the resource and sampler (sources 1 and 2).
const SAMPLE_IMMS: Imms = imms(&[F, I, I], F);
const GATHER_IMMS: Imms = imms(&[F, I, I, F], I);
const GATHER_PO_IMMS: Imms = imms(&[F, I, I, I, F], I);

use ProgramKind as K;
const PS: Option<&[ProgramKind]> = Some(&[K::Pixel]);
const GS: Option<&[ProgramKind]> = Some(&[K::Geometry]);
const HS: Option<&[ProgramKind]> = Some(&[K::Hull]);
const HS_DS: Option<&[ProgramKind]> = Some(&[K::Hull, K::Domain]);
const CS: Option<&[ProgramKind]> = Some(&[K::Compute]);
const GRAPHICS: Option<&[ProgramKind]> =
    Some(&[K::Pixel, K::Vertex, K::Geometry, K::Hull, K::Domain]);

/// `dcl_globalFlags` bits as `Decl::GlobalFlags` holds them: at their
/// opcode-token bit positions (`dxbc-format.md` §10.2).
pub mod global_flags {
    pub const REFACTORING_ALLOWED: u32 = 0x800;
    pub const DOUBLES: u32 = 0x1000;
    pub const RAW_AND_STRUCTURED_4X: u32 = 0x4000;
    pub const DOUBLE_EXTENSIONS_11_1: u32 = 0x20000;
    pub const SHADER_EXTENSIONS_11_1: u32 = 0x40000;
}
use global_flags as needs;
const DOUBLES_11_1: u32 = needs::DOUBLES | needs::DOUBLE_EXTENSIONS_11_1;

const fn sampled(lod: LodSource, reference: Option<usize>) -> Form {
    Form::Sample(SampleForm {
        offset: None,
        res: 2,
        samp: 3,
        reference,
        lod,
        gather: false,
        query: false,
    })
}
const NO_BIAS: LodSource = LodSource::Implicit { bias: None };
const fn gathered(offset: bool, reference: Option<usize>) -> Form {
    let at = if offset { 1 } else { 0 };
    Form::Sample(SampleForm {
        offset: if offset { Some(2) } else { None },
        res: 2 + at,
        samp: 3 + at,
        reference,
        lod: LodSource::Zero,
        gather: true,
        query: false,
    })
}
const fn feedback(base: Opcode, clamp: bool) -> Form {
    Form::Feedback { base, clamp }
}
const fn atomic(op: AtomicOp, returns_old: bool) -> Form {
    Form::Atomic(AtomicKind { op, returns_old })
}
const fn double(dst64: bool, src64: bool) -> Form {
    Form::Double { dst64, src64 }
}

const BASE: OpInfo = OpInfo {
    number: 0,
    mnemonic: "",
    class: OpClass::Misc,
    shape: Shape::Free,
    imm: ALL_INT,
    model: Model::V40,
    stages: None,
    needs: 0,
    controls: 0,
    form: Form::Plain,
};
const FLOAT: OpInfo = OpInfo {
    imm: ALL_FLOAT,
    ..BASE
};
const MOVE: OpInfo = OpInfo {
    imm: ALL_UNTYPED,
    ..BASE
};
const DOUBLE: OpInfo = OpInfo {
    needs: needs::DOUBLES,
    ..BASE
};
const SAMPLE: OpInfo = OpInfo {
    imm: SAMPLE_IMMS,
    ..BASE
};

macro_rules! shape {
    ([$($r:ident),*]) => { Shape::Roles(&[$(Role::$r),*]) };
    (($n:literal)) => { Shape::Count($n) };
    ((_)) => { Shape::Free };
}

macro_rules! opcodes {
    ($(
        $(#[$doc:meta])*
        class $class:ident $enum:ident $method:ident = $defaults:ident {
            $( $num:literal $variant:ident $name:literal $model:ident $shape:tt
               $(, $key:ident : $val:expr)* ; )*
        }
    )*) => {
        /// One SM4/SM5 opcode (instructions and declarations alike).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Opcode {
            $($( $variant, )*)*
        }

        /// Broad families of opcodes: the table's sections, the validator's
        /// and printer's families, and the engines' visitor methods.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum OpClass {
            $( $(#[$doc])* $class, )*
        }

        $(
            $(#[$doc])*
            ///
            /// The instructions of this class, as the visitor hands them to an engine.
            #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
            pub enum $enum {
                $( $variant, )*
            }

            impl $enum {
                /// The opcode of this instruction.
                pub const fn opcode(self) -> Opcode {
                    match self { $( $enum::$variant => Opcode::$variant, )* }
                }
            }
        )*

        /// An opcode sorted into its class's enum.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum OpKind {
            $( $class($enum), )*
        }

        /// One row per opcode, in declaration (class) order.
        const TABLE: &[OpInfo] = &[
            $($( OpInfo {
                number: $num,
                mnemonic: $name,
                class: OpClass::$class,
                model: Model::$model,
                shape: shape!($shape),
                $( $key: $val, )*
                ..$defaults
            }, )*)*
        ];

        /// The opcodes in declaration order (parallel to `TABLE`).
        const DECLARED: &[Opcode] = &[ $($( Opcode::$variant, )*)* ];

        impl Opcode {
            /// The opcode sorted into its class's enum.
            pub const fn kind(self) -> OpKind {
                match self { $($( Opcode::$variant => OpKind::$class($enum::$variant), )*)* }
            }

            /// The opcode for a token number, if there is one.
            pub const fn from_u32(n: u32) -> Option<Opcode> {
                match n { $($( $num => Some(Opcode::$variant), )*)* _ => None }
            }
        }

        /// One method per instruction class, each taking that class's enum:
        /// an engine implements every method and matches its enum
        /// exhaustively, so an instruction added to the table that an engine
        /// does not handle is a compile error in that engine.
        pub trait InstVisitor {
            type Out;
            $( fn $method(&mut self, op: $enum, inst: &Instruction, i: usize) -> Self::Out; )*
        }

        impl Instruction {
            /// Hands this instruction (index `i`) to the visitor method of its class.
            #[inline]
            pub fn visit<V: InstVisitor + ?Sized>(&self, i: usize, v: &mut V) -> V::Out {
                match self.opcode.kind() {
                    $( OpKind::$class(op) => v.$method(op, self, i), )*
                }
            }
        }
    };
}

opcodes! {
    /// Component-wise float arithmetic (takes `_sat`).
    class Float FloatInst float = FLOAT {
        0 Add "add" V40 [Dst, Src, Src];
        14 Div "div" V40 [Dst, Src, Src];
        15 Dp2 "dp2" V40 [Dst, Src, Src];
        16 Dp3 "dp3" V40 [Dst, Src, Src];
        17 Dp4 "dp4" V40 [Dst, Src, Src];
        25 Exp "exp" V40 [Dst, Src];
        26 Frc "frc" V40 [Dst, Src];
        47 Log "log" V40 [Dst, Src];
        50 Mad "mad" V40 [Dst, Src, Src, Src];
        51 Min "min" V40 [Dst, Src, Src];
        52 Max "max" V40 [Dst, Src, Src];
        56 Mul "mul" V40 [Dst, Src, Src];
        64 RoundNe "round_ne" V40 [Dst, Src];
        65 RoundNi "round_ni" V40 [Dst, Src];
        66 RoundPi "round_pi" V40 [Dst, Src];
        67 RoundZ "round_z" V40 [Dst, Src];
        68 Rsq "rsq" V40 [Dst, Src];
        75 Sqrt "sqrt" V40 [Dst, Src];
        77 SinCos "sincos" V40 [Dst, Dst, Src];
        129 Rcp "rcp" V50 [Dst, Src];
    }
    /// Component-wise integer/bit arithmetic.
    class Int IntInst int = BASE {
        1 And "and" V40 [Dst, Src, Src];
        30 IAdd "iadd" V40 [Dst, Src, Src];
        35 IMad "imad" V40 [Dst, Src, Src, Src];
        36 IMax "imax" V40 [Dst, Src, Src];
        37 IMin "imin" V40 [Dst, Src, Src];
        38 IMul "imul" V40 [Dst, Dst, Src, Src];
        40 INeg "ineg" V40 [Dst, Src];
        41 IShl "ishl" V40 [Dst, Src, Src];
        42 IShr "ishr" V40 [Dst, Src, Src];
        59 Not "not" V40 [Dst, Src];
        60 Or "or" V40 [Dst, Src, Src];
        78 UDiv "udiv" V40 [Dst, Dst, Src, Src];
        81 UMul "umul" V40 [Dst, Dst, Src, Src];
        82 UMad "umad" V40 [Dst, Src, Src, Src];
        83 UMax "umax" V40 [Dst, Src, Src];
        84 UMin "umin" V40 [Dst, Src, Src];
        85 UShr "ushr" V40 [Dst, Src, Src];
        87 Xor "xor" V40 [Dst, Src, Src];
        132 UAddc "uaddc" V50 [Dst, Dst, Src, Src];
        133 USubb "usubb" V50 [Dst, Dst, Src, Src];
        134 CountBits "countbits" V50 [Dst, Src];
        135 FirstBitHi "firstbit_hi" V50 [Dst, Src];
        136 FirstBitLo "firstbit_lo" V50 [Dst, Src];
        137 FirstBitShi "firstbit_shi" V50 [Dst, Src];
        138 UBfe "ubfe" V50 [Dst, Src, Src, Src];
        139 IBfe "ibfe" V50 [Dst, Src, Src, Src];
        140 Bfi "bfi" V50 [Dst, Src, Src, Src, Src];
        141 BfRev "bfrev" V50 [Dst, Src];
        213 Msad "msad" V50 [Dst, Src, Src, Src], needs: needs::SHADER_EXTENSIONS_11_1;
    }
    /// Comparisons producing 0/0xFFFFFFFF masks.
    class Compare CompareInst compare = BASE {
        24 Eq "eq" V40 [Dst, Src, Src], imm: ALL_FLOAT;
        29 Ge "ge" V40 [Dst, Src, Src], imm: ALL_FLOAT;
        32 IEq "ieq" V40 [Dst, Src, Src];
        33 IGe "ige" V40 [Dst, Src, Src];
        34 ILt "ilt" V40 [Dst, Src, Src];
        39 INe "ine" V40 [Dst, Src, Src];
        49 Lt "lt" V40 [Dst, Src, Src], imm: ALL_FLOAT;
        57 Ne "ne" V40 [Dst, Src, Src], imm: ALL_FLOAT;
        79 ULt "ult" V40 [Dst, Src, Src];
        80 UGe "uge" V40 [Dst, Src, Src];
    }
    /// Conversions between number formats.
    class Convert ConvertInst convert = BASE {
        27 Ftoi "ftoi" V40 [Dst, Src], imm: ALL_FLOAT;
        28 Ftou "ftou" V40 [Dst, Src], imm: ALL_FLOAT;
        43 Itof "itof" V40 [Dst, Src];
        86 Utof "utof" V40 [Dst, Src];
        130 F32tof16 "f32tof16" V50 [Dst, Src], imm: ALL_FLOAT;
        131 F16tof32 "f16tof32" V50 [Dst, Src];
    }
    /// Moves and selects.
    class Move MoveInst moves = MOVE {
        54 Mov "mov" V40 [Dst, Src];
        55 Movc "movc" V40 [Dst, Src, Src, Src];
        142 Swapc "swapc" V50 [Dst, Dst, Src, Src, Src];
    }
    /// 64-bit float operations.
    class Double DoubleInst double = DOUBLE {
        191 DAdd "dadd" V50 [Dst, Src, Src], form: double(true, true);
        192 DMax "dmax" V50 [Dst, Src, Src], form: double(true, true);
        193 DMin "dmin" V50 [Dst, Src, Src], form: double(true, true);
        194 DMul "dmul" V50 [Dst, Src, Src], form: double(true, true);
        195 DEq "deq" V50 [Dst, Src, Src], form: double(false, true);
        196 DGe "dge" V50 [Dst, Src, Src], form: double(false, true);
        197 DLt "dlt" V50 [Dst, Src, Src], form: double(false, true);
        198 DNe "dne" V50 [Dst, Src, Src], form: double(false, true);
        199 DMov "dmov" V50 [Dst, Src], form: double(true, true), imm: ALL_UNTYPED;
        200 DMovc "dmovc" V50 [Dst, Src, Src, Src], form: double(true, true), imm: ALL_UNTYPED;
        201 Dtof "dtof" V50 [Dst, Src], form: double(false, true);
        202 Ftod "ftod" V50 [Dst, Src], form: double(true, false), imm: ALL_FLOAT;
        210 DDiv "ddiv" V50 [Dst, Src, Src], form: double(true, true), needs: DOUBLES_11_1;
        211 DFma "dfma" V50 [Dst, Src, Src, Src], form: double(true, true),
            needs: DOUBLES_11_1;
        212 DRcp "drcp" V50 [Dst, Src], form: double(true, true), needs: DOUBLES_11_1;
        214 Dtoi "dtoi" V50 [Dst, Src], form: double(false, true), needs: DOUBLES_11_1;
        215 Dtou "dtou" V50 [Dst, Src], form: double(false, true), needs: DOUBLES_11_1;
        216 Itod "itod" V50 [Dst, Src], form: double(true, false), needs: DOUBLES_11_1;
        217 Utod "utod" V50 [Dst, Src], form: double(true, false), needs: DOUBLES_11_1;
    }
    /// Structured control flow, calls and labels.
    class Flow FlowInst flow = BASE {
        2 Break "break" V40 [];
        3 Breakc "breakc" V40 [Scalar], controls: TEST_NZ;
        4 Call "call" V40 [Label];
        5 Callc "callc" V40 [Scalar, Label], controls: TEST_NZ;
        6 Case "case" V40 [Scalar];
        7 Continue "continue" V40 [];
        8 Continuec "continuec" V40 [Scalar], controls: TEST_NZ;
        10 Default "default" V40 [];
        18 Else "else" V40 [];
        21 EndIf "endif" V40 [];
        22 EndLoop "endloop" V40 [];
        23 EndSwitch "endswitch" V40 [];
        31 If "if" V40 [Scalar], controls: TEST_NZ;
        44 Label "label" V40 [Label];
        48 Loop "loop" V40 [];
        62 Ret "ret" V40 [];
        63 Retc "retc" V40 [Scalar], controls: TEST_NZ;
        76 Switch "switch" V40 [Scalar];
        120 InterfaceCall "fcall" V50 (_);
    }
    /// Resource loads, stores and queries.
    class Memory MemoryInst memory = BASE {
        45 Ld "ld" V40 [Dst, Src, Srv];
        46 LdMs "ld2dms" V40 [Dst, Src, Srv, Src];
        61 ResInfo "resinfo" V40 [Dst, Src, SrvUav], controls: 0x3;
        110 SamplePos "samplepos" V41 [Dst, SrvRast, Src];
        111 SampleInfo "sampleinfo" V41 [Dst, SrvRast], controls: 0x1;
        121 BufInfo "bufinfo" V50 [Dst, SrvUav];
        163 LdUavTyped "ld_uav_typed" V50 [Dst, Src, UavSrc];
        164 StoreUavTyped "store_uav_typed" V50 [Uav, Src, Src], imm: imms(&[I, U], I);
        165 LdRaw "ld_raw" V4xSrv [Dst, Src, AnyMem];
        166 StoreRaw "store_raw" V4xCs [Mem, Src, Src], imm: imms(&[I, U], I);
        167 LdStructured "ld_structured" V4xSrv [Dst, Src, Src, AnyMem];
        168 StoreStructured "store_structured" V4xCs [Mem, Src, Src, Src],
            imm: imms(&[I, I, U], I);
        223 LdS "ld_s" V50 [Dst, Dst, Src, Srv], form: feedback(Opcode::Ld, false);
        224 LdMsS "ld2dms_s" V50 [Dst, Dst, Src, Srv, Src], form: feedback(Opcode::LdMs, false);
        225 LdUavTypedS "ld_uav_typed_s" V50 [Dst, Dst, Src, UavSrc],
            form: feedback(Opcode::LdUavTyped, false);
        226 LdRawS "ld_raw_s" V50 [Dst, Dst, Src, AnyMem], form: feedback(Opcode::LdRaw, false);
        227 LdStructuredS "ld_structured_s" V50 [Dst, Dst, Src, Src, AnyMem],
            form: feedback(Opcode::LdStructured, false);
    }
    /// Texture sampling and gathering.
    class Sample SampleInst sample = SAMPLE {
        69 Sample "sample" V40 [Dst, Src, Srv, Sampler], stages: PS, form: sampled(NO_BIAS, None);
        70 SampleC "sample_c" V40 [Dst, Src, Srv, Sampler, Src], stages: PS,
            form: sampled(NO_BIAS, Some(4));
        71 SampleCLz "sample_c_lz" V40 [Dst, Src, Srv, Sampler, Src],
            form: sampled(LodSource::Zero, Some(4));
        72 SampleL "sample_l" V40 [Dst, Src, Srv, Sampler, Src],
            form: sampled(LodSource::Explicit(4), None);
        73 SampleD "sample_d" V40 [Dst, Src, Srv, Sampler, Src, Src],
            form: sampled(LodSource::Gradients(4, 5), None);
        74 SampleB "sample_b" V40 [Dst, Src, Srv, Sampler, Src], stages: PS,
            form: sampled(LodSource::Implicit { bias: Some(4) }, None);
        108 Lod "lod" V41 [Dst, Src, Srv, Sampler], stages: PS,
            form: Form::Sample(SampleForm { query: true, res: 2, samp: 3, offset: None,
                reference: None, lod: NO_BIAS, gather: false });
        109 Gather4 "gather4" V41 [Dst, Src, Srv, Sampler], imm: GATHER_IMMS,
            form: gathered(false, None);
        126 Gather4C "gather4_c" V50 [Dst, Src, Srv, Sampler, Src], imm: GATHER_IMMS,
            form: gathered(false, Some(4));
        127 Gather4Po "gather4_po" V50 [Dst, Src, Src, Srv, Sampler], imm: GATHER_PO_IMMS,
            form: gathered(true, None);
        128 Gather4PoC "gather4_po_c" V50 [Dst, Src, Src, Srv, Sampler, Src],
            imm: GATHER_PO_IMMS, form: gathered(true, Some(5));
        219 Gather4S "gather4_s" V50 [Dst, Dst, Src, Srv, Sampler], imm: GATHER_IMMS,
            form: feedback(Opcode::Gather4, false);
        220 Gather4CS "gather4_c_s" V50 [Dst, Dst, Src, Srv, Sampler, Src], imm: GATHER_IMMS,
            form: feedback(Opcode::Gather4C, false);
        221 Gather4PoS "gather4_po_s" V50 [Dst, Dst, Src, Src, Srv, Sampler],
            imm: GATHER_PO_IMMS, form: feedback(Opcode::Gather4Po, false);
        222 Gather4PoCS "gather4_po_c_s" V50 [Dst, Dst, Src, Src, Srv, Sampler, Src],
            imm: GATHER_PO_IMMS, form: feedback(Opcode::Gather4PoC, false);
        228 SampleLS "sample_l_s" V50 [Dst, Dst, Src, Srv, Sampler, Src],
            form: feedback(Opcode::SampleL, false);
        229 SampleCLzS "sample_c_lz_s" V50 [Dst, Dst, Src, Srv, Sampler, Src],
            form: feedback(Opcode::SampleCLz, false);
        230 SampleClS "sample_cl_s" V50 [Dst, Dst, Src, Srv, Sampler, Src], stages: PS,
            form: feedback(Opcode::Sample, true);
        231 SampleBClS "sample_b_cl_s" V50 [Dst, Dst, Src, Srv, Sampler, Src, Src], stages: PS,
            form: feedback(Opcode::SampleB, true);
        232 SampleDClS "sample_d_cl_s" V50 [Dst, Dst, Src, Srv, Sampler, Src, Src, Src],
            form: feedback(Opcode::SampleD, true);
        233 SampleCClS "sample_c_cl_s" V50 [Dst, Dst, Src, Srv, Sampler, Src, Src], stages: PS,
            form: feedback(Opcode::SampleC, true);
    }
    /// Atomic operations and counters.
    class Atomic AtomicInst atomic = BASE {
        169 AtomicAnd "atomic_and" V50 [Mem, Src, Src], form: atomic(AtomicOp::And, false);
        170 AtomicOr "atomic_or" V50 [Mem, Src, Src], form: atomic(AtomicOp::Or, false);
        171 AtomicXor "atomic_xor" V50 [Mem, Src, Src], form: atomic(AtomicOp::Xor, false);
        172 AtomicCmpStore "atomic_cmp_store" V50 [Mem, Src, Src, Src],
            form: atomic(AtomicOp::CmpExch, false);
        173 AtomicIAdd "atomic_iadd" V50 [Mem, Src, Src], form: atomic(AtomicOp::IAdd, false);
        174 AtomicIMax "atomic_imax" V50 [Mem, Src, Src], form: atomic(AtomicOp::IMax, false);
        175 AtomicIMin "atomic_imin" V50 [Mem, Src, Src], form: atomic(AtomicOp::IMin, false);
        176 AtomicUMax "atomic_umax" V50 [Mem, Src, Src], form: atomic(AtomicOp::UMax, false);
        177 AtomicUMin "atomic_umin" V50 [Mem, Src, Src], form: atomic(AtomicOp::UMin, false);
        178 ImmAtomicAlloc "imm_atomic_alloc" V50 [Dst, Uav];
        179 ImmAtomicConsume "imm_atomic_consume" V50 [Dst, Uav];
        180 ImmAtomicIAdd "imm_atomic_iadd" V50 [Dst, Mem, Src, Src],
            form: atomic(AtomicOp::IAdd, true);
        181 ImmAtomicAnd "imm_atomic_and" V50 [Dst, Mem, Src, Src],
            form: atomic(AtomicOp::And, true);
        182 ImmAtomicOr "imm_atomic_or" V50 [Dst, Mem, Src, Src],
            form: atomic(AtomicOp::Or, true);
        183 ImmAtomicXor "imm_atomic_xor" V50 [Dst, Mem, Src, Src],
            form: atomic(AtomicOp::Xor, true);
        184 ImmAtomicExch "imm_atomic_exch" V50 [Dst, Mem, Src, Src],
            form: atomic(AtomicOp::Exch, true);
        185 ImmAtomicCmpExch "imm_atomic_cmp_exch" V50 [Dst, Mem, Src, Src, Src],
            form: atomic(AtomicOp::CmpExch, true);
        186 ImmAtomicIMax "imm_atomic_imax" V50 [Dst, Mem, Src, Src],
            form: atomic(AtomicOp::IMax, true);
        187 ImmAtomicIMin "imm_atomic_imin" V50 [Dst, Mem, Src, Src],
            form: atomic(AtomicOp::IMin, true);
        188 ImmAtomicUMax "imm_atomic_umax" V50 [Dst, Mem, Src, Src],
            form: atomic(AtomicOp::UMax, true);
        189 ImmAtomicUMin "imm_atomic_umin" V50 [Dst, Mem, Src, Src],
            form: atomic(AtomicOp::UMin, true);
    }
    /// Barriers and fences.
    class Sync SyncInst sync = BASE {
        190 Sync "sync" V4xCs [], controls: 0xF;
    }
    /// Graphics-only operations (derivatives, discard, GS emit, interpolation).
    class Graphics GraphicsInst graphics = BASE {
        9 Cut "cut" V40 [], stages: GS;
        11 DerivRtx "deriv_rtx" V40 [Dst, Src], stages: PS, imm: ALL_FLOAT,
            form: Form::Deriv(Deriv::CoarseX);
        12 DerivRty "deriv_rty" V40 [Dst, Src], stages: PS, imm: ALL_FLOAT,
            form: Form::Deriv(Deriv::CoarseY);
        13 Discard "discard" V40 [Scalar], stages: PS, controls: TEST_NZ;
        19 Emit "emit" V40 [], stages: GS;
        20 EmitThenCut "emit_then_cut" V40 [], stages: GS;
        113 HsDecls "hs_decls" V50 (0), stages: HS;
        114 HsControlPointPhase "hs_control_point_phase" V50 (0), stages: HS;
        115 HsForkPhase "hs_fork_phase" V50 (0), stages: HS;
        116 HsJoinPhase "hs_join_phase" V50 (0), stages: HS;
        117 EmitStream "emit_stream" V50 (1), stages: GS;
        118 CutStream "cut_stream" V50 (1), stages: GS;
        119 EmitThenCutStream "emit_then_cut_stream" V50 (1), stages: GS;
        122 DerivRtxCoarse "deriv_rtx_coarse" V50 [Dst, Src], stages: PS, imm: ALL_FLOAT,
            form: Form::Deriv(Deriv::CoarseX);
        123 DerivRtxFine "deriv_rtx_fine" V50 [Dst, Src], stages: PS, imm: ALL_FLOAT,
            form: Form::Deriv(Deriv::FineX);
        124 DerivRtyCoarse "deriv_rty_coarse" V50 [Dst, Src], stages: PS, imm: ALL_FLOAT,
            form: Form::Deriv(Deriv::CoarseY);
        125 DerivRtyFine "deriv_rty_fine" V50 [Dst, Src], stages: PS, imm: ALL_FLOAT,
            form: Form::Deriv(Deriv::FineY);
        203 EvalSnapped "eval_snapped" V50 [Dst, Src, Src], stages: PS, imm: ALL_FLOAT;
        204 EvalSampleIndex "eval_sample_index" V50 [Dst, Src, Src], stages: PS, imm: ALL_FLOAT;
        205 EvalCentroid "eval_centroid" V50 [Dst, Src], stages: PS, imm: ALL_FLOAT;
    }
    /// Opcodes with no meaning here (nop, reserved numbers, debug) and the tiled-resource query.
    class Misc MiscInst misc = BASE {
        58 Nop "nop" V40 [];
        107 Reserved107 "reserved107" Never (_);
        112 Reserved112 "reserved112" Never (_);
        207 Abort "abort" V50 [];
        208 DebugBreak "debug_break" V50 [];
        209 Reserved209 "reserved209" Never (_);
        218 Reserved218 "reserved218" Never (_);
        234 CheckAccessFullyMapped "check_access_fully_mapped" V50 [Dst, Src];
    }
    /// Declarations (kept in `Program::decls`; never executed).
    class Decl DeclInst decl = BASE {
        88 DclResource "dcl_resource" V40 (_);
        89 DclConstantBuffer "dcl_constantbuffer" V40 (_);
        90 DclSampler "dcl_sampler" V40 (_);
        91 DclIndexRange "dcl_indexRange" V40 (_), stages: GRAPHICS;
        92 DclGsOutputPrimitiveTopology "dcl_outputtopology" V40 (_), stages: GS;
        93 DclGsInputPrimitive "dcl_inputprimitive" V40 (_), stages: GS;
        94 DclMaxOutputVertexCount "dcl_maxout" V40 (_), stages: GS;
        95 DclInput "dcl_input" V40 (_);
        96 DclInputSgv "dcl_input_sgv" V40 (_), stages: GRAPHICS;
        97 DclInputSiv "dcl_input_siv" V40 (_), stages: GRAPHICS;
        98 DclInputPs "dcl_input_ps" V40 (_), stages: PS;
        99 DclInputPsSgv "dcl_input_ps_sgv" V40 (_), stages: PS;
        100 DclInputPsSiv "dcl_input_ps_siv" V40 (_), stages: PS;
        101 DclOutput "dcl_output" V40 (_), stages: GRAPHICS;
        102 DclOutputSgv "dcl_output_sgv" V40 (_), stages: GRAPHICS;
        103 DclOutputSiv "dcl_output_siv" V40 (_), stages: GRAPHICS;
        104 DclTemps "dcl_temps" V40 (_);
        105 DclIndexableTemp "dcl_indexableTemp" V40 (_);
        106 DclGlobalFlags "dcl_globalFlags" V40 (_);
        143 DclStream "dcl_stream" V50 (_), stages: GS;
        144 DclFunctionBody "dcl_function_body" V50 (_);
        145 DclFunctionTable "dcl_function_table" V50 (_);
        146 DclInterface "dcl_interface" V50 (_);
        147 DclInputControlPointCount "dcl_input_control_point_count" V50 (_), stages: HS_DS;
        148 DclOutputControlPointCount "dcl_output_control_point_count" V50 (_), stages: HS;
        149 DclTessDomain "dcl_tessellator_domain" V50 (_), stages: HS_DS;
        150 DclTessPartitioning "dcl_tessellator_partitioning" V50 (_), stages: HS;
        151 DclTessOutputPrimitive "dcl_tessellator_output_primitive" V50 (_), stages: HS;
        152 DclHsMaxTessFactor "dcl_hs_max_tessfactor" V50 (_), stages: HS;
        153 DclHsForkPhaseInstanceCount "dcl_hs_fork_phase_instance_count" V50 (_), stages: HS;
        154 DclHsJoinPhaseInstanceCount "dcl_hs_join_phase_instance_count" V50 (_), stages: HS;
        155 DclThreadGroup "dcl_thread_group" V4xCs (_), stages: CS;
        156 DclUavTyped "dcl_uav_typed" V50 (_);
        157 DclUavRaw "dcl_uav_raw" V4xCs (_);
        158 DclUavStructured "dcl_uav_structured" V4xCs (_);
        159 DclTgsmRaw "dcl_tgsm_raw" V50 (_), stages: CS;
        160 DclTgsmStructured "dcl_tgsm_structured" V4xCs (_), stages: CS;
        161 DclResourceRaw "dcl_resource_raw" V4xSrv (_);
        162 DclResourceStructured "dcl_resource_structured" V4xSrv (_);
        206 DclGsInstanceCount "dcl_gsinstances" V50 (_), stages: GS;
    }
    /// Custom data blocks (comments, immediate constant buffers).
    class CustomData CustomDataInst custom_data = BASE {
        53 CustomData "customdata" V40 (_);
    }
}

/// `ALL` built from the table: slot `n` holds the opcode numbered `n`.
/// Fails to compile if a number is missing, repeated or out of range.
const BY_NUMBER: [Opcode; DECLARED.len()] = {
    let mut out = [Opcode::Nop; DECLARED.len()];
    let mut filled = [false; DECLARED.len()];
    let mut k = 0;
    while k < DECLARED.len() {
        let n = TABLE[k].number as usize;
        assert!(n < DECLARED.len(), "opcode numbers must be dense");
        assert!(!filled[n], "opcode number used twice");
        filled[n] = true;
        out[n] = DECLARED[k];
        k += 1;
    }
    out
};

impl Opcode {
    /// Every opcode, in token-number order.
    pub const ALL: &'static [Opcode] = &BY_NUMBER;

    /// This opcode's row of the table.
    #[inline]
    pub const fn info(self) -> &'static OpInfo {
        &TABLE[self as usize]
    }

    /// The token number (bits [10:0] of the opcode token).
    #[inline]
    pub const fn number(self) -> u32 {
        self.info().number
    }

    /// The base mnemonic as fxc prints it.
    pub const fn mnemonic(self) -> &'static str {
        self.info().mnemonic
    }

    /// The family this opcode belongs to.
    #[inline]
    pub const fn class(self) -> OpClass {
        self.info().class
    }

    /// The operand roles in bytecode order, where the table models them.
    pub const fn roles(self) -> Option<&'static [Role]> {
        match self.info().shape {
            Shape::Roles(r) => Some(r),
            _ => None,
        }
    }

    /// How many operands the opcode takes, where that is fixed (`None` for
    /// declarations, custom data, the class-linkage call and reserved
    /// numbers). The decoder uses it to reject leftover dwords, the parser
    /// to check operand lists.
    pub const fn operand_count(self) -> Option<usize> {
        match self.info().shape {
            Shape::Roles(r) => Some(r.len()),
            Shape::Count(n) => Some(n as usize),
            Shape::Free => None,
        }
    }

    /// How many leading operands are destinations (written positions).
    pub fn dst_count(self) -> usize {
        self.roles()
            .map_or(0, |r| r.iter().take_while(|x| x.is_written()).count())
    }

    /// The immediate kind of source operand `src` (0-based among sources).
    pub fn imm_kind(self, src: usize) -> ImmKind {
        let imm = self.info().imm;
        imm.each.get(src).copied().unwrap_or(imm.rest)
    }

    /// Every control bit the opcode token may carry.
    pub const fn allowed_controls(self) -> u32 {
        COMMON_CONTROLS | self.info().controls
    }

    /// The operand layout of a base sampling op.
    pub const fn sample_form(self) -> Option<SampleForm> {
        match self.info().form {
            Form::Sample(f) => Some(f),
            _ => None,
        }
    }

    /// The base op of a feedback (`_s`) form and whether it ends in a LOD clamp.
    pub const fn feedback_base(self) -> Option<(Opcode, bool)> {
        match self.info().form {
            Form::Feedback { base, clamp } => Some((base, clamp)),
            _ => None,
        }
    }

    /// The operation of a memory atomic (`None` for the counter ops).
    pub const fn atomic(self) -> Option<AtomicKind> {
        match self.info().form {
            Form::Atomic(k) => Some(k),
            _ => None,
        }
    }

    /// The derivative a `deriv_*` opcode takes.
    pub const fn deriv(self) -> Option<Deriv> {
        match self.info().form {
            Form::Deriv(d) => Some(d),
            _ => None,
        }
    }

    /// Whether the op reads other lanes of its pixel quad: a derivative, or
    /// a sampling op (or its feedback form) whose LOD comes from the
    /// quad's derivatives. Such an op reads a neighbour's register as it
    /// stands even where that lane is not executing (docs/semantics.md §9a).
    pub const fn reads_quad(self) -> bool {
        let op = match self.feedback_base() {
            Some((base, _)) => base,
            None => self,
        };
        match op.info().form {
            Form::Deriv(_) => true,
            Form::Sample(f) => matches!(f.lod, LodSource::Implicit { .. }),
            _ => false,
        }
    }

    /// For double ops: whether the destination and the sources hold doubles.
    pub const fn double_form(self) -> Option<(bool, bool)> {
        match self.info().form {
            Form::Double { dst64, src64 } => Some((dst64, src64)),
            _ => None,
        }
    }

    /// True for declarations.
    pub fn is_declaration(self) -> bool {
        self.class() == OpClass::Decl
    }

    /// Looks an opcode up by its base mnemonic.
    pub fn from_mnemonic(name: &str) -> Option<Opcode> {
        Opcode::ALL.iter().copied().find(|op| op.mnemonic() == name)
    }

    /// The executable opcodes (not declarations, custom data or reserved
    /// numbers) that `keep` accepts, in token-number order.
    pub fn select(keep: impl Fn(Opcode) -> bool) -> Vec<Opcode> {
        Opcode::ALL
            .iter()
            .copied()
            .filter(|op| !matches!(op.class(), OpClass::Decl | OpClass::CustomData))
            .filter(|op| op.info().model != Model::Never)
            .filter(|op| keep(*op))
            .collect()
    }
}

/// Opcodes order by token number.
impl PartialOrd for Opcode {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Opcode {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.number().cmp(&other.number())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_dense_and_round_trip() {
        for (i, op) in Opcode::ALL.iter().enumerate() {
            assert_eq!(op.number() as usize, i);
            assert_eq!(Opcode::from_u32(op.number()), Some(*op));
            assert_eq!(op.kind_opcode(), *op);
        }
        assert_eq!(Opcode::from_u32(235), None);
    }

    impl Opcode {
        fn kind_opcode(self) -> Opcode {
            match self.kind() {
                OpKind::Float(x) => x.opcode(),
                OpKind::Int(x) => x.opcode(),
                OpKind::Compare(x) => x.opcode(),
                OpKind::Convert(x) => x.opcode(),
                OpKind::Move(x) => x.opcode(),
                OpKind::Double(x) => x.opcode(),
                OpKind::Flow(x) => x.opcode(),
                OpKind::Memory(x) => x.opcode(),
                OpKind::Sample(x) => x.opcode(),
                OpKind::Atomic(x) => x.opcode(),
                OpKind::Sync(x) => x.opcode(),
                OpKind::Graphics(x) => x.opcode(),
                OpKind::Misc(x) => x.opcode(),
                OpKind::Decl(x) => x.opcode(),
                OpKind::CustomData(x) => x.opcode(),
            }
        }
    }

    #[test]
    fn spot_checks_against_the_format_doc() {
        assert_eq!(Opcode::Sync.number(), 0xBE);
        assert_eq!(Opcode::Msad.number(), 0xD5);
        assert_eq!(Opcode::LdStructured.number(), 0xA7);
        assert_eq!(Opcode::DclThreadGroup.number(), 0x9B);
        assert_eq!(Opcode::CheckAccessFullyMapped.number(), 0xEA);
        assert_eq!(
            Opcode::from_mnemonic("imm_atomic_cmp_exch"),
            Some(Opcode::ImmAtomicCmpExch)
        );
        assert!(Opcode::Add < Opcode::And && Opcode::Abort > Opcode::Sync);
    }

    #[test]
    fn destination_counts() {
        assert_eq!(Opcode::UDiv.dst_count(), 2);
        assert_eq!(Opcode::ImmAtomicCmpExch.dst_count(), 2);
        assert_eq!(Opcode::ImmAtomicAlloc.dst_count(), 2);
        assert_eq!(Opcode::If.dst_count(), 0);
        assert_eq!(Opcode::Callc.dst_count(), 0);
        assert_eq!(Opcode::Sync.dst_count(), 0);
        assert_eq!(Opcode::StoreStructured.dst_count(), 1);
        assert_eq!(Opcode::AtomicAnd.dst_count(), 1);
        assert_eq!(Opcode::LdStructuredS.dst_count(), 2);
        assert_eq!(Opcode::Mov.dst_count(), 1);
    }

    #[test]
    fn immediate_kinds() {
        assert_eq!(Opcode::Mov.imm_kind(0), ImmKind::Untyped);
        assert_eq!(Opcode::StoreStructured.imm_kind(1), ImmKind::Int);
        assert_eq!(Opcode::StoreStructured.imm_kind(2), ImmKind::Untyped);
        assert_eq!(Opcode::Sample.imm_kind(1), ImmKind::Int);
        assert_eq!(Opcode::SampleB.imm_kind(3), ImmKind::Float);
        assert_eq!(Opcode::Gather4Po.imm_kind(4), ImmKind::Float);
        assert_eq!(Opcode::Gather4Po.imm_kind(1), ImmKind::Int);
        assert_eq!(Opcode::Ftod.imm_kind(0), ImmKind::Float);
        assert_eq!(Opcode::DAdd.imm_kind(0), ImmKind::Int);
    }

    #[test]
    fn atomic_forms() {
        let k = Opcode::ImmAtomicCmpExch.atomic().unwrap();
        assert_eq!((k.op, k.returns_old), (AtomicOp::CmpExch, true));
        let k = Opcode::AtomicCmpStore.atomic().unwrap();
        assert_eq!((k.op, k.returns_old), (AtomicOp::CmpExch, false));
        assert_eq!(Opcode::ImmAtomicAlloc.atomic(), None);
        assert_eq!(Opcode::ImmAtomicConsume.atomic(), None);
        let n = Opcode::ALL.iter().filter(|o| o.atomic().is_some()).count();
        assert_eq!(n, 19);
    }

    #[test]
    fn feedback_forms_name_a_base_of_the_same_class_with_one_operand_fewer() {
        for &op in Opcode::ALL {
            let Some((base, clamp)) = op.feedback_base() else {
                continue;
            };
            assert_eq!(base.class(), op.class(), "{op:?}");
            let extra = 1 + usize::from(clamp);
            assert_eq!(
                base.operand_count().map(|n| n + extra),
                op.operand_count(),
                "{op:?}"
            );
        }
    }
}
