//! The SM4/SM5 opcode list: every opcode of the tokenized program format, once.
//!
//! In: nothing. Out: [`Opcode`] with its token number, its base mnemonic and
//! its [`OpClass`]. Invariant: the table is the only place that spells an
//! opcode's number or name; the decoder, encoder, printer and parser all go
//! through [`Opcode::from_u32`], [`Opcode::number`] and [`Opcode::mnemonic`].
//!
//! The numbers are the implicit enum values of the D3D tokenized program
//! format (`dxbc-format.md` §12). The mnemonic is the base name fxc prints;
//! modifiers such as `_sat`, `_z`/`_nz`, sync flags or resinfo return types are
//! added by the printer from the instruction's fields.

macro_rules! opcodes {
    ($( $num:literal $variant:ident $name:literal $class:ident; )*) => {
        /// One SM4/SM5 opcode (instructions and declarations alike).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Opcode {
            $( $variant, )*
        }

        impl Opcode {
            /// Every opcode, in token-number order.
            pub const ALL: &'static [Opcode] = &[ $( Opcode::$variant, )* ];

            /// The token number (bits [10:0] of the opcode token).
            pub const fn number(self) -> u32 {
                match self { $( Opcode::$variant => $num, )* }
            }

            /// The opcode for a token number, if there is one.
            pub const fn from_u32(n: u32) -> Option<Opcode> {
                match n { $( $num => Some(Opcode::$variant), )* _ => None }
            }

            /// The base mnemonic as fxc prints it.
            pub const fn mnemonic(self) -> &'static str {
                match self { $( Opcode::$variant => $name, )* }
            }

            /// The family this opcode belongs to.
            pub const fn class(self) -> OpClass {
                match self { $( Opcode::$variant => OpClass::$class, )* }
            }
        }
    };
}

/// Broad families of opcodes, used by the validator, the printer and the
/// engines to pick a family function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpClass {
    /// Component-wise float arithmetic (takes `_sat`).
    Float,
    /// Component-wise integer/bit arithmetic.
    Int,
    /// Comparisons producing 0/0xFFFFFFFF masks.
    Compare,
    /// Conversions between number formats.
    Convert,
    /// Moves and selects.
    Move,
    /// 64-bit float operations.
    Double,
    /// Structured control flow, calls and labels.
    Flow,
    /// Resource loads, stores and queries.
    Memory,
    /// Texture sampling and gathering.
    Sample,
    /// Atomic operations and counters.
    Atomic,
    /// Barriers and fences.
    Sync,
    /// Graphics-only operations (derivatives, discard, GS emit, interpolation).
    Graphics,
    /// Declarations.
    Decl,
    /// Custom data blocks (comments, immediate constant buffers).
    CustomData,
    /// Opcodes with no meaning here (nop, reserved numbers, debug).
    Misc,
}

opcodes! {
    0 Add "add" Float;
    1 And "and" Int;
    2 Break "break" Flow;
    3 Breakc "breakc" Flow;
    4 Call "call" Flow;
    5 Callc "callc" Flow;
    6 Case "case" Flow;
    7 Continue "continue" Flow;
    8 Continuec "continuec" Flow;
    9 Cut "cut" Graphics;
    10 Default "default" Flow;
    11 DerivRtx "deriv_rtx" Graphics;
    12 DerivRty "deriv_rty" Graphics;
    13 Discard "discard" Graphics;
    14 Div "div" Float;
    15 Dp2 "dp2" Float;
    16 Dp3 "dp3" Float;
    17 Dp4 "dp4" Float;
    18 Else "else" Flow;
    19 Emit "emit" Graphics;
    20 EmitThenCut "emit_then_cut" Graphics;
    21 EndIf "endif" Flow;
    22 EndLoop "endloop" Flow;
    23 EndSwitch "endswitch" Flow;
    24 Eq "eq" Compare;
    25 Exp "exp" Float;
    26 Frc "frc" Float;
    27 Ftoi "ftoi" Convert;
    28 Ftou "ftou" Convert;
    29 Ge "ge" Compare;
    30 IAdd "iadd" Int;
    31 If "if" Flow;
    32 IEq "ieq" Compare;
    33 IGe "ige" Compare;
    34 ILt "ilt" Compare;
    35 IMad "imad" Int;
    36 IMax "imax" Int;
    37 IMin "imin" Int;
    38 IMul "imul" Int;
    39 INe "ine" Compare;
    40 INeg "ineg" Int;
    41 IShl "ishl" Int;
    42 IShr "ishr" Int;
    43 Itof "itof" Convert;
    44 Label "label" Flow;
    45 Ld "ld" Memory;
    46 LdMs "ld2dms" Memory;
    47 Log "log" Float;
    48 Loop "loop" Flow;
    49 Lt "lt" Compare;
    50 Mad "mad" Float;
    51 Min "min" Float;
    52 Max "max" Float;
    53 CustomData "customdata" CustomData;
    54 Mov "mov" Move;
    55 Movc "movc" Move;
    56 Mul "mul" Float;
    57 Ne "ne" Compare;
    58 Nop "nop" Misc;
    59 Not "not" Int;
    60 Or "or" Int;
    61 ResInfo "resinfo" Memory;
    62 Ret "ret" Flow;
    63 Retc "retc" Flow;
    64 RoundNe "round_ne" Float;
    65 RoundNi "round_ni" Float;
    66 RoundPi "round_pi" Float;
    67 RoundZ "round_z" Float;
    68 Rsq "rsq" Float;
    69 Sample "sample" Sample;
    70 SampleC "sample_c" Sample;
    71 SampleCLz "sample_c_lz" Sample;
    72 SampleL "sample_l" Sample;
    73 SampleD "sample_d" Sample;
    74 SampleB "sample_b" Sample;
    75 Sqrt "sqrt" Float;
    76 Switch "switch" Flow;
    77 SinCos "sincos" Float;
    78 UDiv "udiv" Int;
    79 ULt "ult" Compare;
    80 UGe "uge" Compare;
    81 UMul "umul" Int;
    82 UMad "umad" Int;
    83 UMax "umax" Int;
    84 UMin "umin" Int;
    85 UShr "ushr" Int;
    86 Utof "utof" Convert;
    87 Xor "xor" Int;
    88 DclResource "dcl_resource" Decl;
    89 DclConstantBuffer "dcl_constantbuffer" Decl;
    90 DclSampler "dcl_sampler" Decl;
    91 DclIndexRange "dcl_indexRange" Decl;
    92 DclGsOutputPrimitiveTopology "dcl_outputtopology" Decl;
    93 DclGsInputPrimitive "dcl_inputprimitive" Decl;
    94 DclMaxOutputVertexCount "dcl_maxout" Decl;
    95 DclInput "dcl_input" Decl;
    96 DclInputSgv "dcl_input_sgv" Decl;
    97 DclInputSiv "dcl_input_siv" Decl;
    98 DclInputPs "dcl_input_ps" Decl;
    99 DclInputPsSgv "dcl_input_ps_sgv" Decl;
    100 DclInputPsSiv "dcl_input_ps_siv" Decl;
    101 DclOutput "dcl_output" Decl;
    102 DclOutputSgv "dcl_output_sgv" Decl;
    103 DclOutputSiv "dcl_output_siv" Decl;
    104 DclTemps "dcl_temps" Decl;
    105 DclIndexableTemp "dcl_indexableTemp" Decl;
    106 DclGlobalFlags "dcl_globalFlags" Decl;
    107 Reserved107 "reserved107" Misc;
    108 Lod "lod" Sample;
    109 Gather4 "gather4" Sample;
    110 SamplePos "samplepos" Memory;
    111 SampleInfo "sampleinfo" Memory;
    112 Reserved112 "reserved112" Misc;
    113 HsDecls "hs_decls" Graphics;
    114 HsControlPointPhase "hs_control_point_phase" Graphics;
    115 HsForkPhase "hs_fork_phase" Graphics;
    116 HsJoinPhase "hs_join_phase" Graphics;
    117 EmitStream "emit_stream" Graphics;
    118 CutStream "cut_stream" Graphics;
    119 EmitThenCutStream "emit_then_cut_stream" Graphics;
    120 InterfaceCall "fcall" Flow;
    121 BufInfo "bufinfo" Memory;
    122 DerivRtxCoarse "deriv_rtx_coarse" Graphics;
    123 DerivRtxFine "deriv_rtx_fine" Graphics;
    124 DerivRtyCoarse "deriv_rty_coarse" Graphics;
    125 DerivRtyFine "deriv_rty_fine" Graphics;
    126 Gather4C "gather4_c" Sample;
    127 Gather4Po "gather4_po" Sample;
    128 Gather4PoC "gather4_po_c" Sample;
    129 Rcp "rcp" Float;
    130 F32tof16 "f32tof16" Convert;
    131 F16tof32 "f16tof32" Convert;
    132 UAddc "uaddc" Int;
    133 USubb "usubb" Int;
    134 CountBits "countbits" Int;
    135 FirstBitHi "firstbit_hi" Int;
    136 FirstBitLo "firstbit_lo" Int;
    137 FirstBitShi "firstbit_shi" Int;
    138 UBfe "ubfe" Int;
    139 IBfe "ibfe" Int;
    140 Bfi "bfi" Int;
    141 BfRev "bfrev" Int;
    142 Swapc "swapc" Move;
    143 DclStream "dcl_stream" Decl;
    144 DclFunctionBody "dcl_function_body" Decl;
    145 DclFunctionTable "dcl_function_table" Decl;
    146 DclInterface "dcl_interface" Decl;
    147 DclInputControlPointCount "dcl_input_control_point_count" Decl;
    148 DclOutputControlPointCount "dcl_output_control_point_count" Decl;
    149 DclTessDomain "dcl_tessellator_domain" Decl;
    150 DclTessPartitioning "dcl_tessellator_partitioning" Decl;
    151 DclTessOutputPrimitive "dcl_tessellator_output_primitive" Decl;
    152 DclHsMaxTessFactor "dcl_hs_max_tessfactor" Decl;
    153 DclHsForkPhaseInstanceCount "dcl_hs_fork_phase_instance_count" Decl;
    154 DclHsJoinPhaseInstanceCount "dcl_hs_join_phase_instance_count" Decl;
    155 DclThreadGroup "dcl_thread_group" Decl;
    156 DclUavTyped "dcl_uav_typed" Decl;
    157 DclUavRaw "dcl_uav_raw" Decl;
    158 DclUavStructured "dcl_uav_structured" Decl;
    159 DclTgsmRaw "dcl_tgsm_raw" Decl;
    160 DclTgsmStructured "dcl_tgsm_structured" Decl;
    161 DclResourceRaw "dcl_resource_raw" Decl;
    162 DclResourceStructured "dcl_resource_structured" Decl;
    163 LdUavTyped "ld_uav_typed" Memory;
    164 StoreUavTyped "store_uav_typed" Memory;
    165 LdRaw "ld_raw" Memory;
    166 StoreRaw "store_raw" Memory;
    167 LdStructured "ld_structured" Memory;
    168 StoreStructured "store_structured" Memory;
    169 AtomicAnd "atomic_and" Atomic;
    170 AtomicOr "atomic_or" Atomic;
    171 AtomicXor "atomic_xor" Atomic;
    172 AtomicCmpStore "atomic_cmp_store" Atomic;
    173 AtomicIAdd "atomic_iadd" Atomic;
    174 AtomicIMax "atomic_imax" Atomic;
    175 AtomicIMin "atomic_imin" Atomic;
    176 AtomicUMax "atomic_umax" Atomic;
    177 AtomicUMin "atomic_umin" Atomic;
    178 ImmAtomicAlloc "imm_atomic_alloc" Atomic;
    179 ImmAtomicConsume "imm_atomic_consume" Atomic;
    180 ImmAtomicIAdd "imm_atomic_iadd" Atomic;
    181 ImmAtomicAnd "imm_atomic_and" Atomic;
    182 ImmAtomicOr "imm_atomic_or" Atomic;
    183 ImmAtomicXor "imm_atomic_xor" Atomic;
    184 ImmAtomicExch "imm_atomic_exch" Atomic;
    185 ImmAtomicCmpExch "imm_atomic_cmp_exch" Atomic;
    186 ImmAtomicIMax "imm_atomic_imax" Atomic;
    187 ImmAtomicIMin "imm_atomic_imin" Atomic;
    188 ImmAtomicUMax "imm_atomic_umax" Atomic;
    189 ImmAtomicUMin "imm_atomic_umin" Atomic;
    190 Sync "sync" Sync;
    191 DAdd "dadd" Double;
    192 DMax "dmax" Double;
    193 DMin "dmin" Double;
    194 DMul "dmul" Double;
    195 DEq "deq" Double;
    196 DGe "dge" Double;
    197 DLt "dlt" Double;
    198 DNe "dne" Double;
    199 DMov "dmov" Double;
    200 DMovc "dmovc" Double;
    201 Dtof "dtof" Double;
    202 Ftod "ftod" Double;
    203 EvalSnapped "eval_snapped" Graphics;
    204 EvalSampleIndex "eval_sample_index" Graphics;
    205 EvalCentroid "eval_centroid" Graphics;
    206 DclGsInstanceCount "dcl_gsinstances" Decl;
    207 Abort "abort" Misc;
    208 DebugBreak "debug_break" Misc;
    209 Reserved209 "reserved209" Misc;
    210 DDiv "ddiv" Double;
    211 DFma "dfma" Double;
    212 DRcp "drcp" Double;
    213 Msad "msad" Int;
    214 Dtoi "dtoi" Double;
    215 Dtou "dtou" Double;
    216 Itod "itod" Double;
    217 Utod "utod" Double;
    218 Reserved218 "reserved218" Misc;
    219 Gather4S "gather4_s" Sample;
    220 Gather4CS "gather4_c_s" Sample;
    221 Gather4PoS "gather4_po_s" Sample;
    222 Gather4PoCS "gather4_po_c_s" Sample;
    223 LdS "ld_s" Memory;
    224 LdMsS "ld2dms_s" Memory;
    225 LdUavTypedS "ld_uav_typed_s" Memory;
    226 LdRawS "ld_raw_s" Memory;
    227 LdStructuredS "ld_structured_s" Memory;
    228 SampleLS "sample_l_s" Sample;
    229 SampleCLzS "sample_c_lz_s" Sample;
    230 SampleClS "sample_cl_s" Sample;
    231 SampleBClS "sample_b_cl_s" Sample;
    232 SampleDClS "sample_d_cl_s" Sample;
    233 SampleCClS "sample_c_cl_s" Sample;
    234 CheckAccessFullyMapped "check_access_fully_mapped" Misc;
}

impl Opcode {
    /// True for declarations (including the immediate-constant-buffer custom data).
    pub fn is_declaration(self) -> bool {
        self.class() == OpClass::Decl
    }

    /// Looks an opcode up by its base mnemonic.
    pub fn from_mnemonic(name: &str) -> Option<Opcode> {
        Opcode::ALL.iter().copied().find(|op| op.mnemonic() == name)
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
        }
        assert_eq!(Opcode::from_u32(235), None);
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
    }
}
