//! The JIT as a case-runner [`Engine`] (`sm5jit case --engine jit`).
//!
//! In: a program and case [`Resource`]s. Out: the resources updated in
//! place by a JIT dispatch, or the o# of one pixel (vertex) invocation
//! run through the batch path (`JitShader::run_batch`). Invariant: resources are bound by the same function
//! as for the interpreter engine (`case::interp::with_bindings`), so the
//! two engines see the same memory; a program the JIT cannot compile yet is
//! a skip naming the instruction ([`EngineError::Unsupported`]), never a
//! silent run on the interpreter.

use crate::case::interp::with_bindings;
use crate::case::{Engine, EngineError, EngineOptions, Resource};
use sm5jit::ir::{Program, ProgramKind};
use sm5jit::runtime::batch::{declared_inputs, BatchInputs, QUAD};
use sm5jit::runtime::{DispatchOptions, RuntimeError};

use sm5jit::jit::{JitError, JitShader};

/// Compiles each program once and dispatches it with the JIT.
pub struct JitEngine {
    options: DispatchOptions,
    compile: sm5jit::jit::CompileOptions,
    threads: usize,
    compiled: Option<(Program, JitShader)>,
}

impl JitEngine {
    pub fn new(opts: EngineOptions) -> JitEngine {
        let mut options = DispatchOptions::default();
        if let Some(b) = opts.budget {
            options.budget = b;
        }
        // None and 0 both mean one worker per core, as in `DispatchConfig`.
        let threads = opts
            .threads
            .filter(|&n| n != 0)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        JitEngine {
            options,
            // Each engine compiles for real: benchmarks time the compile.
            compile: sm5jit::jit::CompileOptions {
                cache: false,
                ..sm5jit::jit::CompileOptions::tier(opts.tier)
            },
            threads,
            compiled: None,
        }
    }

    fn shader(&mut self, program: &Program) -> Result<JitShader, EngineError> {
        if let Some((p, s)) = &self.compiled {
            if p == program {
                return Ok(s.clone());
            }
        }
        let s = JitShader::compile_with(program, &self.compile).map_err(|e| match e {
            JitError::Unsupported { .. } | JitError::NotCompute(_) | JitError::Host(_) => {
                EngineError::Unsupported(format!("jit: {e}"))
            }
            JitError::Runtime(RuntimeError::Unsupported { .. }) => {
                EngineError::Unsupported(format!("jit: {e}"))
            }
            other => EngineError::Failed(other.to_string()),
        })?;
        self.compiled = Some((program.clone(), s.clone()));
        Ok(s)
    }

    /// One dispatch of `s` on the engine's workers and options.
    fn run(
        &self,
        s: &JitShader,
        resources: &mut [Resource],
        groups: [u32; 3],
    ) -> Result<(), EngineError> {
        let (o, threads) = (self.options, self.threads);
        with_bindings(resources, |b| s.dispatch_threads(b, groups, &o, threads)).map(|_| ())
    }
}

impl Engine for JitEngine {
    fn name(&self) -> &'static str {
        match self.compile.tier {
            sm5jit::jit::Tier::Zero => "jit0",
            sm5jit::jit::Tier::One => "jit1",
            sm5jit::jit::Tier::Auto => "jit",
        }
    }

    fn settled(&self) -> bool {
        match &self.compile.tier {
            sm5jit::jit::Tier::Auto => self.compiled.as_ref().is_none_or(|(_, s)| s.tier() == 1),
            _ => true,
        }
    }

    fn prepare(&mut self, program: &Program) -> Result<(), EngineError> {
        self.shader(program).map(|_| ())
    }

    fn dispatch(
        &mut self,
        program: &Program,
        resources: &mut [Resource],
        groups: [u32; 3],
    ) -> Result<(), EngineError> {
        let s = self.shader(program)?;
        self.run(&s, resources, groups)
    }

    fn dispatch_prepared(
        &mut self,
        program: &Program,
        resources: &mut [Resource],
        groups: [u32; 3],
    ) -> Result<(), EngineError> {
        let s = match &self.compiled {
            Some((p, s)) => {
                debug_assert!(p == program, "dispatch_prepared of another program");
                s.clone()
            }
            None => self.shader(program)?,
        };
        self.run(&s, resources, groups)
    }

    /// One pixel as D3D draws it: the top-left lane of a quad whose other
    /// three lanes are helpers, all with zero inputs, through the batch
    /// path. A discarded pixel reports no outputs.
    fn invoke(
        &mut self,
        program: &Program,
        resources: &mut [Resource],
    ) -> Result<Vec<(u32, [u32; 4])>, EngineError> {
        let s = self.shader(program)?;
        let o = self.options;
        let registers = declared_inputs(program);
        let data = vec![0u32; QUAD * registers as usize * 4];
        let helpers = [false, true, true, true];
        let count = if program.version.kind == ProgramKind::Vertex {
            1
        } else {
            QUAD
        };
        let mut inputs =
            BatchInputs::new(count, registers, &data[..count * registers as usize * 4]);
        if count == QUAD {
            inputs = inputs.with_helpers(&helpers);
        }
        let r = with_bindings(resources, |b| s.run_batch(b, &inputs, &o))?;
        Ok(r.outputs(0).unwrap_or_default())
    }
}
