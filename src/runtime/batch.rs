//! Batches of vertex or pixel invocations: the inputs a rasterizer hands
//! to an engine per draw, and the outputs it gets back.
//!
//! In: a vertex or pixel [`Program`] and [`BatchInputs`] — `count`
//! invocations, each with `registers` input registers v0..v(registers-1)
//! of four DWORDs, invocation-major (`data[(inv * registers + reg) * 4 +
//! comp]`), laid out as the program's input signature / `dcl_input*`
//! declarations say (the caller interpolates; the engines only read).
//! Pixel batches are made of 2x2 quads: invocations `4q..4q+4` are quad
//! `q` in the order top-left, top-right, bottom-left, bottom-right, and
//! `helpers` marks the lanes of a partial quad that only run for
//! derivatives. Out: a [`BatchResult`] with every declared `o#` register
//! of every invocation that wrote its outputs, and each lane's
//! [`LaneResult`]. Invariant: [`check`] accepts exactly the inputs both
//! engines can run (`Interpreter::run_batch`, `JitShader::run_batch`) and
//! rejects everything else with a [`BatchError`] naming what is wrong,
//! before any code runs; the output allocation is bounded by
//! [`MAX_BATCH`] invocations.

use crate::ir::{Decl, OperandType, Program, ProgramKind};

/// Lanes per pixel quad.
pub const QUAD: usize = 4;

/// The most invocations one batch call may hold (2^24).
pub const MAX_BATCH: usize = 1 << 24;

/// The most input registers per invocation (the D3D11 limit is 32).
pub const MAX_INPUT_REGISTERS: u32 = 32;

/// The inputs of one batch.
#[derive(Clone, Copy, Debug)]
pub struct BatchInputs<'a> {
    /// Invocations (a multiple of [`QUAD`] for pixel programs).
    pub count: usize,
    /// Input registers per invocation (at least the number the program
    /// declares; extra registers are ignored).
    pub registers: u32,
    /// `count * registers * 4` DWORDs, invocation-major.
    pub data: &'a [u32],
    /// Pixel batches only: `true` marks a helper lane of a partial quad
    /// (it runs so its quad has derivatives, but writes no memory and
    /// reports no outputs). `None`: every lane is a real pixel.
    pub helpers: Option<&'a [bool]>,
    /// Pixel batches only: each invocation's `vCoverage` (`SV_Coverage`
    /// input), one DWORD per invocation. `None`: every sample covered,
    /// `(1 << sample_count) - 1`.
    pub coverage: Option<&'a [u32]>,
    /// Samples per pixel of the render target (1, 2, 4, 8 or 16; 0 counts
    /// as 1): what `sampleinfo`/`samplepos` on `rasterizer` report.
    pub sample_count: u32,
}

impl<'a> BatchInputs<'a> {
    /// Every invocation a real one (no helpers).
    pub fn new(count: usize, registers: u32, data: &'a [u32]) -> BatchInputs<'a> {
        BatchInputs {
            count,
            registers,
            data,
            helpers: None,
            coverage: None,
            sample_count: 1,
        }
    }

    /// The same inputs with each invocation's `vCoverage`.
    pub fn with_coverage(self, coverage: &'a [u32]) -> BatchInputs<'a> {
        BatchInputs {
            coverage: Some(coverage),
            ..self
        }
    }

    /// The same inputs for a render target of `samples` samples per pixel.
    pub fn with_sample_count(self, samples: u32) -> BatchInputs<'a> {
        BatchInputs {
            sample_count: samples,
            ..self
        }
    }

    /// The render target's samples per pixel (at least 1, at most 32).
    pub fn samples(&self) -> u32 {
        self.sample_count.clamp(1, 32)
    }

    /// The special input register of invocation `inv`: `[vCoverage,
    /// vInnerCoverage, 0, 0]` (see [`special_component`]).
    pub fn special_input(&self, inv: usize) -> [u32; 4] {
        let all = u32::MAX >> (32 - self.samples());
        let cov = self
            .coverage
            .and_then(|c| c.get(inv).copied())
            .unwrap_or(all);
        [cov, 0, 0, 0]
    }

    /// The same inputs with helper flags.
    pub fn with_helpers(self, helpers: &'a [bool]) -> BatchInputs<'a> {
        BatchInputs {
            helpers: Some(helpers),
            ..self
        }
    }

    /// Input register `reg` of invocation `inv` (zeros past the data).
    pub fn register(&self, inv: usize, reg: u32) -> [u32; 4] {
        let at = (inv * self.registers as usize + reg as usize) * 4;
        match self.data.get(at..at + 4) {
            Some(s) => [s[0], s[1], s[2], s[3]],
            None => [0; 4],
        }
    }

    /// Whether invocation `inv` is a helper lane.
    pub fn is_helper(&self, inv: usize) -> bool {
        self.helpers
            .and_then(|h| h.get(inv).copied())
            .unwrap_or(false)
    }
}

/// What became of one invocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaneResult {
    /// It ran to the end; its outputs are reported.
    Written,
    /// It executed `discard`: no outputs, no memory writes after the discard.
    Discarded,
    /// A helper lane of a partial quad: it ran for derivatives only.
    Helper,
}

/// A pixel output without a register number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum SpecialOutput {
    /// `oDepth` (`SV_Depth`), float.
    Depth,
    /// `oDepthGE` (`SV_DepthGreaterEqual`), float.
    DepthGreaterEqual,
    /// `oDepthLE` (`SV_DepthLessEqual`), float.
    DepthLessEqual,
    /// `oMask` (`SV_Coverage`), the sample mask the pixel keeps.
    CoverageMask,
    /// `oStencilRef` (`SV_StencilRef`), the stencil reference value.
    StencilRef,
}

impl SpecialOutput {
    /// The special output an operand type names.
    pub fn from_operand(ty: OperandType) -> Option<SpecialOutput> {
        Some(match ty {
            OperandType::OutputDepth => SpecialOutput::Depth,
            OperandType::OutputDepthGe => SpecialOutput::DepthGreaterEqual,
            OperandType::OutputDepthLe => SpecialOutput::DepthLessEqual,
            OperandType::OutputCoverageMask => SpecialOutput::CoverageMask,
            OperandType::OutputStencilRef => SpecialOutput::StencilRef,
            _ => return None,
        })
    }

    /// The HLSL semantic.
    pub fn semantic(self) -> &'static str {
        match self {
            SpecialOutput::Depth => "SV_Depth",
            SpecialOutput::DepthGreaterEqual => "SV_DepthGreaterEqual",
            SpecialOutput::DepthLessEqual => "SV_DepthLessEqual",
            SpecialOutput::CoverageMask => "SV_Coverage",
            SpecialOutput::StencilRef => "SV_StencilRef",
        }
    }
}

/// The component of the special register (one past the program's last
/// v#/o#) that holds special register `ty`: outputs `[depth (any kind),
/// oMask, oStencilRef, -]`, inputs `[vCoverage, vInnerCoverage, -, -]`.
/// Both engines keep the special registers there.
pub fn special_component(ty: OperandType) -> Option<usize> {
    use OperandType::*;
    match ty {
        OutputDepth | OutputDepthGe | OutputDepthLe | InputCoverageMask => Some(0),
        OutputCoverageMask | InnerCoverage => Some(1),
        OutputStencilRef => Some(2),
        _ => None,
    }
}

impl SpecialOutput {
    /// Its component of the special register.
    pub fn component(self) -> usize {
        match self {
            SpecialOutput::Depth
            | SpecialOutput::DepthGreaterEqual
            | SpecialOutput::DepthLessEqual => 0,
            SpecialOutput::CoverageMask => 1,
            SpecialOutput::StencilRef => 2,
        }
    }
}

/// The outputs of one batch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BatchResult {
    /// The declared `o#` registers, in declaration order.
    pub registers: Vec<u32>,
    /// `lanes.len() * registers.len()` values, invocation-major; zeros for
    /// lanes that are not [`LaneResult::Written`].
    pub values: Vec<[u32; 4]>,
    /// Each invocation's fate.
    pub lanes: Vec<LaneResult>,
    /// The declared special outputs (`oDepth`, `oMask`, ...), in
    /// declaration order.
    pub specials: Vec<SpecialOutput>,
    /// `lanes.len() * specials.len()` DWORDs, invocation-major (a depth as
    /// float bits); zeros for lanes that are not written. Like `o#`, a
    /// declared special output the shader never writes reads 0.
    pub special_values: Vec<u32>,
    /// Every output signature element held in an `o#` register, as
    /// (semantic name, semantic index, register), from the shader's
    /// reflection (`Shader::run_batch` fills it; empty when the result
    /// comes straight from an engine). Packed elements share a register.
    pub semantics: Vec<(String, u32, u32)>,
}

impl BatchResult {
    /// A result for `count` lanes with `registers` outputs, all zero.
    pub fn new(registers: Vec<u32>, count: usize) -> BatchResult {
        BatchResult {
            values: vec![[0; 4]; registers.len() * count],
            registers,
            lanes: vec![LaneResult::Written; count],
            specials: Vec::new(),
            special_values: Vec::new(),
            semantics: Vec::new(),
        }
    }

    /// Makes this result the all-zero result of [`BatchResult::new`] +
    /// [`BatchResult::with_specials`] for `count` lanes, reusing its
    /// vectors (a batch runner's per-batch result allocates nothing once
    /// they are large enough). `semantics` is left as it is.
    pub fn reset(&mut self, registers: &[u32], specials: &[SpecialOutput], count: usize) {
        self.registers.clear();
        self.registers.extend_from_slice(registers);
        self.values.clear();
        self.values.resize(registers.len() * count, [0; 4]);
        self.lanes.clear();
        self.lanes.resize(count, LaneResult::Written);
        self.specials.clear();
        self.specials.extend_from_slice(specials);
        self.special_values.clear();
        self.special_values.resize(specials.len() * count, 0);
    }

    /// The same result with room for the special outputs `specials`.
    pub fn with_specials(self, specials: Vec<SpecialOutput>) -> BatchResult {
        BatchResult {
            special_values: vec![0; specials.len() * self.lanes.len()],
            specials,
            ..self
        }
    }

    /// Stores written lane `inv`'s special outputs from its special
    /// register (`[depth, oMask, oStencilRef, -]`).
    pub fn set_specials(&mut self, inv: usize, reg: [u32; 4]) {
        let n = self.specials.len();
        for (k, s) in self.specials.iter().enumerate() {
            if let Some(v) = self.special_values.get_mut(inv * n + k) {
                *v = reg[s.component()];
            }
        }
    }

    /// Special output `which` of invocation `inv`, or `None` when the
    /// invocation reported no outputs or the program does not declare it.
    pub fn special(&self, inv: usize, which: SpecialOutput) -> Option<u32> {
        if self.lanes.get(inv) != Some(&LaneResult::Written) {
            return None;
        }
        let k = self.specials.iter().position(|&s| s == which)?;
        self.special_values
            .get(inv * self.specials.len() + k)
            .copied()
    }

    /// The depth invocation `inv` wrote (`oDepth`, `oDepthGE` or `oDepthLE`).
    pub fn depth(&self, inv: usize) -> Option<f32> {
        [
            SpecialOutput::Depth,
            SpecialOutput::DepthGreaterEqual,
            SpecialOutput::DepthLessEqual,
        ]
        .iter()
        .find_map(|&s| self.special(inv, s))
        .map(f32::from_bits)
    }

    /// The `oMask` invocation `inv` wrote.
    pub fn coverage_mask(&self, inv: usize) -> Option<u32> {
        self.special(inv, SpecialOutput::CoverageMask)
    }

    /// The `oStencilRef` invocation `inv` wrote.
    pub fn stencil_ref(&self, inv: usize) -> Option<u32> {
        self.special(inv, SpecialOutput::StencilRef)
    }

    /// An output of invocation `inv` by semantic (case-insensitive):
    /// the whole `o#` register holding a signature element (through
    /// [`BatchResult::semantics`]; a packed element uses only its mask's
    /// components), or a special output (`SV_Depth`, `SV_Coverage`, `SV_StencilRef`,
    /// ...) as `[value, 0, 0, 0]`.
    pub fn by_semantic(&self, inv: usize, name: &str, index: u32) -> Option<[u32; 4]> {
        if let Some(s) = self
            .specials
            .iter()
            .find(|s| s.semantic().eq_ignore_ascii_case(name) && index == 0)
        {
            return self.special(inv, *s).map(|v| [v, 0, 0, 0]);
        }
        let (_, _, reg) = self
            .semantics
            .iter()
            .find(|(n, i, _)| n.eq_ignore_ascii_case(name) && *i == index)?;
        self.output(inv, *reg)
    }

    /// Invocations in the batch.
    pub fn count(&self) -> usize {
        self.lanes.len()
    }

    /// Output `o{reg}` of invocation `inv`, or `None` when the invocation
    /// reported no outputs or `reg` is not declared.
    pub fn output(&self, inv: usize, reg: u32) -> Option<[u32; 4]> {
        if self.lanes.get(inv) != Some(&LaneResult::Written) {
            return None;
        }
        let k = self.registers.iter().position(|&r| r == reg)?;
        self.values.get(inv * self.registers.len() + k).copied()
    }

    /// Every output of invocation `inv` as `(register, value)`, or `None`
    /// when it reported none.
    pub fn outputs(&self, inv: usize) -> Option<Vec<(u32, [u32; 4])>> {
        if self.lanes.get(inv) != Some(&LaneResult::Written) {
            return None;
        }
        let n = self.registers.len();
        let vals = self.values.get(inv * n..(inv + 1) * n)?;
        Some(
            self.registers
                .iter()
                .copied()
                .zip(vals.iter().copied())
                .collect(),
        )
    }
}

/// Why a batch cannot run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BatchError {
    #[error("batches run vertex or pixel programs, not {0}")]
    NotVertexOrPixel(String),
    #[error(
        "the program reads input registers v0..v{} ({declared}) but the batch gives {given} per invocation",
        declared.saturating_sub(1)
    )]
    TooFewRegisters { declared: u32, given: u32 },
    #[error("{given} input registers per invocation is more than {MAX_INPUT_REGISTERS}")]
    TooManyRegisters { given: u32 },
    #[error(
        "{count} invocations of {registers} registers need {expected} input DWORDs, got {got}"
    )]
    InputLength {
        count: usize,
        registers: u32,
        expected: u64,
        got: usize,
    },
    #[error("a pixel batch is made of 2x2 quads: {count} invocations is not a multiple of 4")]
    NotQuads { count: usize },
    #[error("{got} helper flags for {count} invocations")]
    HelperLength { count: usize, got: usize },
    #[error("helper lanes exist only in pixel batches")]
    HelpersInVertexBatch,
    #[error("{count} invocations is more than the {MAX_BATCH} one batch may hold")]
    TooLarge { count: usize },
    #[error("{got} coverage masks for {count} invocations")]
    CoverageLength { count: usize, got: usize },
    #[error("coverage masks exist only in pixel batches")]
    CoverageInVertexBatch,
}

/// The kind of invocation a batch runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Vertex,
    Pixel,
}

/// Input registers the program declares: one past the highest v# of its
/// `dcl_input*` declarations.
pub fn declared_inputs(program: &Program) -> u32 {
    program
        .decls
        .iter()
        .filter_map(|d| match d {
            Decl::Input(op)
            | Decl::InputSgv { op, .. }
            | Decl::InputSiv { op, .. }
            | Decl::InputPs { op, .. }
            | Decl::InputPsSgv { op, .. }
            | Decl::InputPsSiv { op, .. }
                if op.ty == OperandType::Input =>
            {
                op.imm_index(0)
            }
            _ => None,
        })
        .map(|r| r.saturating_add(1))
        .max()
        .unwrap_or(0)
}

/// Checks `inputs` against `program`; returns the stage to run.
pub fn check(program: &Program, inputs: &BatchInputs) -> Result<Stage, BatchError> {
    let stage = match program.version.kind {
        ProgramKind::Vertex => Stage::Vertex,
        ProgramKind::Pixel => Stage::Pixel,
        _ => return Err(BatchError::NotVertexOrPixel(program.version.to_string())),
    };
    let count = inputs.count;
    if count > MAX_BATCH {
        return Err(BatchError::TooLarge { count });
    }
    let declared = declared_inputs(program);
    if inputs.registers < declared {
        return Err(BatchError::TooFewRegisters {
            declared,
            given: inputs.registers,
        });
    }
    if inputs.registers > MAX_INPUT_REGISTERS {
        return Err(BatchError::TooManyRegisters {
            given: inputs.registers,
        });
    }
    let expected = count as u64 * u64::from(inputs.registers) * 4;
    if inputs.data.len() as u64 != expected {
        return Err(BatchError::InputLength {
            count,
            registers: inputs.registers,
            expected,
            got: inputs.data.len(),
        });
    }
    match (stage, inputs.coverage) {
        (Stage::Vertex, Some(_)) => return Err(BatchError::CoverageInVertexBatch),
        (Stage::Pixel, Some(c)) if c.len() != count => {
            return Err(BatchError::CoverageLength {
                count,
                got: c.len(),
            })
        }
        _ => {}
    }
    match (stage, inputs.helpers) {
        (Stage::Pixel, _) if count % QUAD != 0 => Err(BatchError::NotQuads { count }),
        (Stage::Vertex, Some(_)) => Err(BatchError::HelpersInVertexBatch),
        (Stage::Pixel, Some(h)) if h.len() != count => Err(BatchError::HelperLength {
            count,
            got: h.len(),
        }),
        _ => Ok(stage),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ps() -> Program {
        crate::asm::parse_program(
            "ps_5_0\ndcl_input_ps linear v1.xy\ndcl_output o0.xyzw\nmov o0.xy, v1.xyxx\nmov o0.zw, l(0,0,0,0)\nret\n",
        )
        .expect("parse")
    }

    #[test]
    fn declared_inputs_is_one_past_the_highest_v() {
        assert_eq!(declared_inputs(&ps()), 2);
    }

    #[test]
    fn check_names_each_problem() {
        let p = ps();
        let data = [0u32; 32];
        let ok = BatchInputs::new(4, 2, &data);
        assert_eq!(check(&p, &ok), Ok(Stage::Pixel));
        assert_eq!(
            check(&p, &BatchInputs::new(4, 1, &data[..16])),
            Err(BatchError::TooFewRegisters {
                declared: 2,
                given: 1
            })
        );
        assert!(matches!(
            check(&p, &BatchInputs::new(4, 2, &data[..31])),
            Err(BatchError::InputLength {
                expected: 32,
                got: 31,
                ..
            })
        ));
        assert_eq!(
            check(&p, &BatchInputs::new(2, 2, &data[..16])),
            Err(BatchError::NotQuads { count: 2 })
        );
        assert_eq!(
            check(&p, &ok.with_helpers(&[false; 3])),
            Err(BatchError::HelperLength { count: 4, got: 3 })
        );
        assert_eq!(
            check(&p, &BatchInputs::new(usize::MAX, 0, &[])),
            Err(BatchError::TooLarge { count: usize::MAX })
        );
        let cs = crate::asm::parse_program("cs_5_0\ndcl_thread_group 1, 1, 1\nret\n").unwrap();
        assert!(matches!(
            check(&cs, &ok),
            Err(BatchError::NotVertexOrPixel(v)) if v.starts_with("cs_5_0")
        ));
    }

    #[test]
    fn results_hide_lanes_that_wrote_nothing() {
        let mut r = BatchResult::new(vec![0, 2], 2);
        r.values[1] = [7; 4];
        r.values[3] = [9; 4];
        r.lanes[1] = LaneResult::Discarded;
        assert_eq!(r.output(0, 2), Some([7; 4]));
        assert_eq!(r.output(0, 1), None);
        assert_eq!(r.output(1, 2), None);
        assert_eq!(r.outputs(0), Some(vec![(0, [0; 4]), (2, [7; 4])]));
        assert_eq!(r.outputs(1), None);
    }
}
