//! Shaders of a `.shader_test` file: decoded once, compiled per engine.
//!
//! In: a DXBC blob (or the built-in pass-through vertex shader). Out: a
//! [`Loaded`] shader: the compiled [`Shader`] (or why it cannot be built,
//! kept so the draw or dispatch that uses it reports it), its signatures
//! and, for pixel shaders, each input register's interpolation mode.
//! Invariant: decoding and compiling never panic; every failure is text
//! naming the stage and the library's error.

use sm5jit::dxbc::{read_dxbc, ReadOptions, SignatureElement};
use sm5jit::ir::{Decl, OperandType, Program};
use sm5jit::{EngineKind, Shader};

/// `D3D_NAME` values the pipeline gives meaning to.
pub mod sv {
    pub const POSITION: u32 = 1;
    pub const VERTEX_ID: u32 = 6;
    pub const PRIMITIVE_ID: u32 = 7;
    pub const INSTANCE_ID: u32 = 8;
    pub const IS_FRONT_FACE: u32 = 9;
    pub const SAMPLE_INDEX: u32 = 10;
    pub const TARGET: u32 = 64;
    pub const DEPTH: u32 = 65;
    pub const COVERAGE: u32 = 66;
}

/// Interpolation modes of `dcl_input_ps` (D3D10_SB_INTERPOLATION_MODE).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interp {
    Constant,
    /// Perspective-correct; `at` says where it is evaluated.
    Perspective(At),
    /// Screen-linear.
    NoPerspective(At),
}

/// Where an interpolated attribute is evaluated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum At {
    Center,
    Centroid,
    Sample,
}

impl Interp {
    fn from_token(mode: u32) -> Interp {
        match mode {
            2 => Interp::Perspective(At::Center),
            3 => Interp::Perspective(At::Centroid),
            4 => Interp::NoPerspective(At::Center),
            5 => Interp::NoPerspective(At::Centroid),
            6 => Interp::Perspective(At::Sample),
            7 => Interp::NoPerspective(At::Sample),
            _ => Interp::Constant,
        }
    }
}

/// Signatures for a blob that has none (assembled without them): every
/// declared v#/o# becomes an element named after its register, so a vertex
/// shader's `o{r}` feeds a pixel shader's `v{r}`; a pixel shader's `o{r}`
/// is `SV_Target{r}`; `_siv`/`_sgv` names become system values.
fn synthesized(program: &Program) -> (Vec<SignatureElement>, Vec<SignatureElement>) {
    use sm5jit::ir::{Components, ProgramKind, Selection};
    let pixel = program.version.kind == ProgramKind::Pixel;
    let element = |op: &sm5jit::ir::Operand, sv: u32, output: bool| {
        let r = op.imm_index(0)?;
        let mask = match op.comps {
            Components::Four(Selection::Mask(m)) => m,
            _ => 0xf,
        };
        let target = output && pixel;
        Some(SignatureElement {
            name: if target {
                "SV_Target".into()
            } else {
                format!("__reg{r}")
            },
            semantic_index: if target { r } else { 0 },
            system_value: if target { sv::TARGET } else { sv },
            component_type: 3,
            register: r,
            mask,
            rw_mask: mask,
            stream: 0,
            min_precision: 0,
        })
    };
    let mut inputs = Vec::new();
    let mut outputs = Vec::new();
    for d in &program.decls {
        match d {
            Decl::Input(op) | Decl::InputPs { op, .. } if op.ty == OperandType::Input => {
                inputs.extend(element(op, 0, false))
            }
            Decl::InputSgv { op, name }
            | Decl::InputSiv { op, name }
            | Decl::InputPsSgv { op, name, .. }
            | Decl::InputPsSiv { op, name, .. }
                if op.ty == OperandType::Input =>
            {
                inputs.extend(element(op, *name, false))
            }
            Decl::Output(op) if op.ty == OperandType::Output => {
                outputs.extend(element(op, 0, true))
            }
            Decl::OutputSgv { op, name } | Decl::OutputSiv { op, name }
                if op.ty == OperandType::Output =>
            {
                outputs.extend(element(op, *name, true))
            }
            _ => {}
        }
    }
    (inputs, outputs)
}

/// A decoded shader, compiled for one engine.
#[derive(Clone, Debug)]
pub struct Loaded {
    pub shader: Result<Shader, String>,
    pub program: Option<Program>,
    pub inputs: Vec<SignatureElement>,
    pub outputs: Vec<SignatureElement>,
    /// Pixel shaders: the interpolation of each input register (by index).
    pub interp: Vec<(u32, Interp)>,
}

impl Loaded {
    /// Decodes `blob` and compiles it with `engine`.
    pub fn from_dxbc(blob: &[u8], engine: EngineKind) -> Loaded {
        match read_dxbc(blob, &ReadOptions::default()) {
            Ok(s) => {
                let inputs = s.info.input_signature.clone().unwrap_or_default();
                let outputs = s.info.output_signature.clone().unwrap_or_default();
                Loaded::new(s.program, engine, inputs, outputs)
            }
            Err(e) => Loaded {
                shader: Err(format!("decode: {e}")),
                program: None,
                inputs: Vec::new(),
                outputs: Vec::new(),
                interp: Vec::new(),
            },
        }
    }

    /// The built-in vertex shader: `position` straight to `SV_Position`.
    pub fn builtin_vertex(engine: EngineKind) -> Loaded {
        const TEXT: &str = "vs_4_0\ndcl_input v0.xyzw\ndcl_output_siv o0.xyzw, position\n\
                            mov o0.xyzw, v0.xyzw\nret\n";
        let element = |name: &str, system_value| SignatureElement {
            name: name.to_string(),
            semantic_index: 0,
            system_value,
            component_type: 3,
            register: 0,
            mask: 0xf,
            rw_mask: 0xf,
            stream: 0,
            min_precision: 0,
        };
        match sm5jit::asm::parse_program(TEXT) {
            Ok(p) => Loaded::new(
                p,
                engine,
                vec![element("POSITION", 0)],
                vec![element("SV_Position", sv::POSITION)],
            ),
            Err(e) => Loaded {
                shader: Err(format!("built-in vertex shader: {e}")),
                program: None,
                inputs: Vec::new(),
                outputs: Vec::new(),
                interp: Vec::new(),
            },
        }
    }

    fn new(
        program: Program,
        engine: EngineKind,
        inputs: Vec<SignatureElement>,
        outputs: Vec<SignatureElement>,
    ) -> Loaded {
        let shader = Shader::new(&program, engine).map_err(|e| e.to_string());
        let (inputs, outputs) = if inputs.is_empty() && outputs.is_empty() {
            synthesized(&program)
        } else {
            (inputs, outputs)
        };
        let interp = program
            .decls
            .iter()
            .filter_map(|d| match d {
                Decl::InputPs { op, interp }
                | Decl::InputPsSgv { op, interp, .. }
                | Decl::InputPsSiv { op, interp, .. }
                    if op.ty == OperandType::Input =>
                {
                    Some((op.imm_index(0)?, Interp::from_token(*interp)))
                }
                _ => None,
            })
            .collect();
        Loaded {
            shader,
            program: Some(program),
            inputs,
            outputs,
            interp,
        }
    }

    /// The compiled shader, or why there is none.
    pub fn get(&self) -> Result<&Shader, String> {
        self.shader.as_ref().map_err(Clone::clone)
    }

    /// The interpolation of input register `reg` (constant when undeclared).
    pub fn interp_of(&self, reg: u32) -> Interp {
        self.interp
            .iter()
            .find(|(r, _)| *r == reg)
            .map(|(_, i)| *i)
            .unwrap_or(Interp::Constant)
    }

    /// Input registers per invocation: one past the highest register any
    /// input element or declaration uses.
    pub fn input_registers(&self) -> u32 {
        let sig = self
            .inputs
            .iter()
            .filter(|e| e.register != u32::MAX)
            .map(|e| e.register + 1)
            .max()
            .unwrap_or(0);
        let decl = self
            .program
            .as_ref()
            .map(sm5jit::runtime::batch::declared_inputs)
            .unwrap_or(0);
        sig.max(decl)
    }

    /// Whether an instruction of the program uses operand type `ty`
    /// (oMask, oDepth, vCoverage, ...).
    pub fn uses(&self, ty: OperandType) -> bool {
        self.program.as_ref().is_some_and(|p| {
            p.insts
                .iter()
                .any(|i| i.operands.iter().any(|o| o.ty == ty))
        })
    }
}
