//! SM4/SM5 assembly text in fxc's listing dialect: printer and parser.
//!
//! In: a [`Program`](crate::ir::Program) (to print) or listing text (to parse).
//! Out: fxc-style text, or a `Program`, or an [`AsmError`] with `line:column`.
//!
//! Invariant: for every `Program` `p`,
//! `parse_program(&print_program(&p, &PrintOptions { exact: true, ..Default::default() })) == Ok(p)`.
//! (for any `p` whose component selectors are 0..=3, masks fit in four bits,
//! immediates hold 1 or 4 values (2 or 4 for doubles) and carry no indices:
//! every program the DXBC decoder produces).
//! With `exact = false` the printer mimics fxc exactly, including its lossy
//! float text; the parser accepts real fxc listings (comment header, blank
//! lines, any whitespace, the slot-count trailer).
//!
//! Spellings fxc never prints (non-default component modes, 64-bit indices,
//! raw declarations of other stages, ...) use a documented spelling of ours,
//! listed in [`names`].

mod lexer;
pub mod names;
mod parse;
mod print;

pub use parse::parse_program;
pub use print::{print_program, ListingStyle, PrintOptions};

/// Malformed assembly text: where (1-based line and column) and what.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{col}: {message}")]
pub struct AsmError {
    pub line: u32,
    pub col: u32,
    pub message: String,
}

impl AsmError {
    pub(crate) fn new(line: u32, col: u32, message: impl Into<String>) -> AsmError {
        AsmError {
            line,
            col,
            message: message.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{
        Components, Decl, ExtOpcode, Index, Instruction, Modifier, Opcode, Operand, OperandType,
        Program, ProgramKind, ResourceDim, ReturnType, Selection, UavFlags, Version,
    };
    use crate::ir::{
        ConstantBufferDecl, InterfaceDecl, StructuredUavDecl, TypedResourceDecl, TypedUavDecl,
    };

    fn reg(ty: OperandType, comps: Components, idx: &[u32]) -> Operand {
        let mut o = Operand::new(ty, comps);
        o.indices = idx.iter().map(|v| Index::Imm32(*v)).collect();
        o
    }

    fn mask(m: u8) -> Components {
        Components::Four(Selection::Mask(m))
    }

    fn sel(c: u8) -> Components {
        Components::Four(Selection::Select1(c))
    }

    fn swz(s: [u8; 4]) -> Components {
        Components::Four(Selection::Swizzle(s))
    }

    fn imm(v: &[u32]) -> Operand {
        let comps = if v.len() == 1 {
            Components::One
        } else {
            mask(0)
        };
        let mut o = Operand::new(OperandType::Imm32, comps);
        o.imm = v.to_vec();
        o
    }

    fn round_trip(p: &Program) -> String {
        let text = print_program(
            p,
            &PrintOptions {
                exact: true,
                ..Default::default()
            },
        );
        let back = parse_program(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(&back, p, "\n{text}");
        text
    }

    #[test]
    fn sm51_declarations_and_operands() {
        let v = Version {
            kind: ProgramKind::Compute,
            major: 5,
            minor: 1,
        };
        let cb = reg(OperandType::ConstantBuffer, swz([0, 1, 2, 3]), &[0, 0, 0]);
        let uav = reg(OperandType::Uav, swz([0, 1, 2, 3]), &[0, 0, 3]);
        let mut u_use = reg(OperandType::Uav, Components::Zero, &[0]);
        u_use.indices.push(Index::Relative(Box::new(reg(
            OperandType::Temp,
            sel(0),
            &[0],
        ))));
        u_use.nonuniform = true;
        let p = Program {
            version: v,
            decls: vec![
                Decl::ConstantBuffer(ConstantBufferDecl {
                    op: cb,
                    dynamic: false,
                    size: 1,
                    space: 0,
                }),
                Decl::UavStructured(StructuredUavDecl {
                    op: uav,
                    stride: 4,
                    flags: UavFlags::default(),
                    space: 2,
                    buffer_dim: false,
                }),
                Decl::Sampler {
                    op: reg(OperandType::Sampler, Components::Zero, &[0, 1, u32::MAX]),
                    mode: 1,
                    space: 0,
                },
            ],
            insts: vec![Instruction::new(
                Opcode::StoreStructured,
                vec![
                    {
                        let mut u = u_use.clone();
                        u.comps = mask(1);
                        u
                    },
                    reg(OperandType::Temp, sel(0), &[0]),
                    imm(&[0]),
                    reg(OperandType::ConstantBuffer, sel(0), &[0, 0, 1]),
                ],
            )],
        };
        let text = round_trip(&p);
        assert!(
            text.contains("dcl_constantbuffer CB0[0:0][1], immediateIndexed, space=0"),
            "{text}"
        );
        assert!(
            text.contains("dcl_uav_structured U0[0:3], 4, space=2"),
            "{text}"
        );
        assert!(
            text.contains("dcl_sampler S0[1:*].none, mode_comparison, space=0"),
            "{text}"
        );
        assert!(
            text.contains("store_structured U0[r0.x + 0].x {nonuniform}, r0.x, l(0), CB0[0][1].x"),
            "{text}"
        );
    }

    #[test]
    fn pixel_declarations_doubles_and_modifiers() {
        let v = Version {
            kind: ProgramKind::Pixel,
            major: 5,
            minor: 0,
        };
        let mut d = Operand::new(OperandType::Imm64, mask(0));
        d.imm = vec![0, 0x3FF0_0000, 0, 0x4000_0000];
        let mut neg = reg(OperandType::Temp, swz([0, 1, 0, 1]), &[1]);
        neg.modifier = Modifier::AbsNeg;
        neg.min_precision = 1;
        let mut add = Instruction::new(
            Opcode::DAdd,
            vec![reg(OperandType::Temp, mask(3), &[0]), neg, d],
        );
        add.controls = 0x4 | (0x3 << 8);
        let mut ld = Instruction::new(
            Opcode::Ld,
            vec![
                reg(OperandType::Temp, mask(0xF), &[0]),
                reg(OperandType::Temp, swz([0, 1, 2, 3]), &[0]),
                reg(OperandType::Resource, swz([0, 1, 2, 3]), &[0]),
            ],
        );
        ld.controls = 0xF << 8;
        ld.ext = vec![
            ExtOpcode::SampleControls([-1, 2, 0]),
            ExtOpcode::ResourceDim {
                dim: ResourceDim::Texture2D,
                stride: 0,
            },
            ExtOpcode::ReturnType([ReturnType::Float; 4]),
        ];
        let mut resinfo = Instruction::new(
            Opcode::ResInfo,
            vec![
                reg(OperandType::Temp, mask(3), &[0]),
                imm(&[0]),
                reg(OperandType::Resource, swz([0, 1, 2, 3]), &[0]),
            ],
        );
        resinfo.controls = 2;
        let odd = vec![
            reg(OperandType::Temp, sel(2), &[0]), // select-1 on a destination
            reg(OperandType::Temp, mask(0xF), &[1]), // a mask on a source
        ];
        let p = Program {
            version: v,
            decls: vec![
                Decl::GlobalFlags(0x1800),
                Decl::InputPs {
                    op: reg(OperandType::Input, mask(3), &[0]),
                    interp: 2,
                },
                Decl::InputPsSiv {
                    op: reg(OperandType::Input, mask(0xF), &[1]),
                    interp: 4,
                    name: 1,
                },
                Decl::Output(reg(OperandType::Output, mask(0xF), &[0])),
                Decl::Output(Operand::new(OperandType::OutputDepth, Components::One)),
                Decl::Resource(TypedResourceDecl {
                    op: reg(OperandType::Resource, Components::Zero, &[0]),
                    dim: ResourceDim::Texture2DMS,
                    sample_count: 4,
                    ret: [ReturnType::Float; 4],
                    space: 0,
                }),
                Decl::UavTyped(TypedUavDecl {
                    op: reg(OperandType::Uav, Components::Zero, &[1]),
                    dim: ResourceDim::Texture2D,
                    flags: UavFlags {
                        globally_coherent: true,
                        ..Default::default()
                    },
                    ret: [ReturnType::Uint; 4],
                    space: 0,
                }),
                Decl::ImmediateConstantBuffer(vec![0x8000_0001, 1, 0x3f80_0000, 0xFFFF_FFFF, 7]),
                Decl::Other {
                    opcode: Opcode::DclMaxOutputVertexCount,
                    controls: 0,
                    body: vec![4],
                },
                Decl::FunctionTable {
                    index: 0,
                    bodies: vec![0, 1],
                },
                Decl::Interface(InterfaceDecl {
                    index: 0,
                    dynamic: true,
                    table_len: 1,
                    array_len: 2,
                    tables: vec![0],
                }),
            ],
            insts: vec![
                add,
                ld,
                resinfo,
                Instruction::new(Opcode::Mov, odd),
                {
                    let mut r = Instruction::new(Opcode::Ret, vec![]);
                    r.controls = 0x1048;
                    r
                },
                {
                    let mut s = Instruction::new(Opcode::Sync, vec![]);
                    s.controls = 0xB;
                    s
                },
                {
                    let mut i = Instruction::new(
                        Opcode::Discard,
                        vec![reg(OperandType::Temp, sel(0), &[0])],
                    );
                    i.controls = 0x80;
                    i
                },
            ],
        };
        let text = round_trip(&p);
        for want in [
            "dcl_globalFlags refactoringAllowed | enableDoublePrecisionFloatOps",
            "dcl_input_ps linear v0.xy",
            "dcl_input_ps_siv linear noperspective v1.xyzw, position",
            "dcl_output oDepth",
            "dcl_resource_texture2dms(4) (float,float,float,float) t0",
            "dcl_uav_typed_texture2d_glc (uint,uint,uint,uint) u1",
            "dadd_sat [precise(xy)] r0.xy, -|r1.xyxy| {min16f}, d(1.000000, 2.000000)",
            "ld_aoffimmi_indexable [precise](-1,2,0)(texture2d)(float,float,float,float) r0.xyzw",
            "resinfo_uint r0.xy, l(0), t0.xyzw",
            "mov r0.select_z, r1.mask_xyzw",
            "sync_uglobal_g_t",
            "ret_ctl1048",
            "discard_nz r0.x",
            "dcl_maxout raw(0x0, 0x00000004)",
        ] {
            assert!(text.contains(want), "missing {want:?} in\n{text}");
        }
    }
}
