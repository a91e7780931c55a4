//! The embedding API: load a shader once, compile it once, dispatch it
//! any number of times over memory the caller owns.
//!
//! In: DXBC bytes ([`Shader::from_dxbc`]), assembly text
//! ([`Shader::from_asm`]) or an [`ir::Program`](crate::ir::Program), an
//! [`EngineKind`], and per dispatch the caller's [`Bindings`] plus the
//! group counts (direct or read from an argument buffer). Out: the bound
//! UAV memory and hidden counters changed as the shader says,
//! [`DispatchStats`], or one typed [`Error`].
//!
//! Invariants: a [`Shader`] is validated and compiled when it is built and
//! never changes afterwards, so it is `Send + Sync` and any number of
//! threads may dispatch it at the same time, each with its own
//! [`Bindings`]; every view is checked against its memory before any
//! shader code runs, and the engines bounds-check every access against the
//! view window, so a shader never touches memory outside what was bound.
//! Nothing here exposes Cranelift types.
//!
//! Compute programs run with [`Shader::dispatch`]; vertex and pixel
//! programs run as *invocation batches* with [`Shader::run_batch`] (arrays
//! of v# inputs and o# outputs, pixels as 2x2 quads). Batches take the
//! bindings by shared reference: any number of threads may run batches of
//! one shader against one [`Bindings`] at once, best through one
//! [`BatchRunner`] (bindings checked once, working memory kept for the
//! next batch).
//!
//! ```rust
//! use sm5jit::{Bindings, EngineKind, Shader, Slot, View};
//!
//! // out[i] = in[i] * 2 + cb0[0].x, one thread per element.
//! let shader = Shader::from_asm(
//!     "cs_5_0
//!      dcl_constantbuffer CB0[1], immediateIndexed
//!      dcl_resource_raw t0
//!      dcl_uav_raw u0
//!      dcl_input vThreadID.x
//!      dcl_temps 1
//!      dcl_thread_group 64, 1, 1
//!      ishl r0.x, vThreadID.x, l(2)
//!      ld_raw r0.y, r0.x, t0.xxxx
//!      imad r0.y, r0.y, l(2), cb0[0].x
//!      store_raw u0.x, r0.x, r0.y
//!      ret",
//!     EngineKind::Jit,
//! )?;
//! let input: Vec<u8> = (0..128u32).flat_map(|v| v.to_le_bytes()).collect();
//! let cb: Vec<u8> = [5u32, 0, 0, 0].iter().flat_map(|v| v.to_le_bytes()).collect();
//! let mut output = vec![0u8; 128 * 4];
//!
//! let mut b = Bindings::new();
//! b.srv(Slot::new(0), &input, View::raw(0, 128))
//!     .uav(Slot::new(0), &mut output, View::raw(0, 128))
//!     .cb(Slot::new(0), &cb);
//! let stats = shader.dispatch(&mut b, [2, 1, 1])?;
//! drop(b); // the bindings borrow `output` until they are dropped
//!
//! assert_eq!(stats.groups, 2);
//! let word = |i: usize| u32::from_le_bytes(output[4 * i..4 * i + 4].try_into().unwrap());
//! assert_eq!(word(0), 5);
//! assert_eq!(word(127), 127 * 2 + 5);
//! # Ok::<(), sm5jit::Error>(())
//! ```

use crate::dxbc::{read_dxbc, ChunkInfo, ReadOptions};
use crate::error::Error;
use crate::interp::Interpreter;
use crate::ir::{Program, ProgramKind, Version};
use crate::jit::{CompileOptions, JitBatchRunner, JitShader};
use crate::reflect::Reflection;
use crate::runtime::{
    BatchInputs, BatchResult, BufferKind, BufferView, DispatchOptions, DispatchStats, Format,
    RuntimeError, TextureView, View, DEFAULT_BUDGET,
};

use crate::runtime::Bindings;

/// Which engine runs a [`Shader`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum EngineKind {
    /// Native SIMD code compiled with Cranelift; compute groups run on
    /// worker threads. The default. Programs it cannot lower fail to build
    /// with [`Error::Jit`] naming the instruction; use
    /// [`EngineKind::Interpreter`] for those.
    #[default]
    Jit,
    /// The reference interpreter: runs everything the crate supports, one
    /// group after another on the calling thread.
    Interpreter,
}

impl std::fmt::Display for EngineKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            EngineKind::Jit => "jit",
            EngineKind::Interpreter => "interpreter",
        })
    }
}

/// How one dispatch runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DispatchConfig {
    /// Worker threads for the JIT; 0 means one per available core, 1 runs
    /// every group on the calling thread; larger requests are capped at
    /// four per core (and never exceed the number of groups). The
    /// interpreter always runs on the calling thread.
    pub threads: usize,
    /// Instructions one thread group may execute before the dispatch stops
    /// with [`RuntimeError::BudgetExhausted`] (so a runaway loop ends).
    pub budget: u64,
}

impl Default for DispatchConfig {
    fn default() -> Self {
        DispatchConfig {
            threads: 0,
            budget: DEFAULT_BUDGET,
        }
    }
}

impl DispatchConfig {
    fn worker_threads(&self) -> usize {
        let cores = crate::jit::pool::cores();
        match self.threads {
            0 => cores,
            n => n.min(4 * cores),
        }
    }
}

/// The compiled form behind a [`Shader`].
#[derive(Clone, Debug)]
enum Compiled {
    Jit(JitShader),
    Interp(std::sync::Arc<Interpreter>),
}

/// A validated, compiled shader. Cheap to clone (clones share the compiled
/// code), `Send + Sync`: dispatch it from any number of threads at once,
/// each with its own [`Bindings`].
///
/// ```rust
/// use sm5jit::{EngineKind, Shader};
///
/// let shader = Shader::from_asm(
///     "cs_5_0\ndcl_thread_group 8, 4, 1\nret\n",
///     EngineKind::Interpreter,
/// )?;
/// assert_eq!(shader.thread_group_size(), [8, 4, 1]);
/// assert_eq!(shader.version().to_string(), "cs_5_0");
/// assert_eq!(shader.engine(), EngineKind::Interpreter);
///
/// // Errors are typed: a bad mnemonic is an assembly error with its line.
/// let err = Shader::from_asm("cs_5_0\nfrobnicate r0.x\n", EngineKind::Jit).unwrap_err();
/// assert!(matches!(&err, sm5jit::Error::Asm(e) if e.line == 2), "{err}");
/// # Ok::<(), sm5jit::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Shader {
    compiled: Compiled,
    engine: EngineKind,
    version: Version,
    group_size: [u32; 3],
    reflection: std::sync::Arc<Reflection>,
    /// The output elements held in `o#` registers, as
    /// [`BatchResult::semantics`] lists them.
    semantics: std::sync::Arc<[(String, u32, u32)]>,
}

const _: () = {
    const fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Shader>();
    assert_send_sync::<BatchRunner>();
    assert_send_sync::<Bindings>();
};

impl Shader {
    /// Decodes a DXBC container (checksum verified), validates and
    /// compiles its program with `engine`.
    pub fn from_dxbc(bytes: &[u8], engine: EngineKind) -> Result<Shader, Error> {
        let shader = read_dxbc(bytes, &ReadOptions::default())?;
        Shader::build(&shader.program, engine, Some(&shader.info))
    }

    /// Parses SM4/SM5 assembly text (fxc's dialect), validates and
    /// compiles it with `engine`.
    pub fn from_asm(text: &str, engine: EngineKind) -> Result<Shader, Error> {
        let program = crate::asm::parse_program(text)?;
        Shader::new(&program, engine)
    }

    /// Validates and compiles a decoded program; `chunks` (the container's
    /// reflection chunks, `dxbc::read_dxbc(..).info`) name its signature
    /// elements and bindings in [`Shader::reflect`].
    pub fn from_decoded(
        program: &Program,
        chunks: Option<&ChunkInfo>,
        engine: EngineKind,
    ) -> Result<Shader, Error> {
        Shader::build(program, engine, chunks)
    }

    /// Validates and compiles an already decoded program (default
    /// [`CompileOptions`]: tier auto, cached).
    pub fn new(program: &Program, engine: EngineKind) -> Result<Shader, Error> {
        Shader::build(program, engine, None)
    }

    /// Like [`Shader::from_dxbc`], with JIT [`CompileOptions`] (tier,
    /// tier-up threshold, cache); the interpreter ignores them.
    pub fn from_dxbc_with(
        bytes: &[u8],
        engine: EngineKind,
        options: &CompileOptions,
    ) -> Result<Shader, Error> {
        let shader = read_dxbc(bytes, &ReadOptions::default())?;
        Shader::build_with(&shader.program, engine, Some(&shader.info), options)
    }

    /// Like [`Shader::from_asm`], with JIT [`CompileOptions`].
    pub fn from_asm_with(
        text: &str,
        engine: EngineKind,
        options: &CompileOptions,
    ) -> Result<Shader, Error> {
        let program = crate::asm::parse_program(text)?;
        Shader::new_with(&program, engine, options)
    }

    /// Like [`Shader::new`], with JIT [`CompileOptions`].
    ///
    /// ```rust
    /// use sm5jit::{CompileOptions, EngineKind, Shader, Tier};
    ///
    /// let text = "cs_5_0\ndcl_thread_group 8, 1, 1\nret\n";
    /// let fast = Shader::from_asm_with(text, EngineKind::Jit, &CompileOptions::tier(Tier::Zero))?;
    /// assert_eq!(fast.tier(), Some(0));
    /// let best = Shader::from_asm_with(text, EngineKind::Jit, &CompileOptions::tier(Tier::One))?;
    /// assert_eq!(best.tier(), Some(1));
    /// # Ok::<(), sm5jit::Error>(())
    /// ```
    pub fn new_with(
        program: &Program,
        engine: EngineKind,
        options: &CompileOptions,
    ) -> Result<Shader, Error> {
        Shader::build_with(program, engine, None, options)
    }

    /// Validates, reflects (names from `chunks` when given) and compiles
    /// with the default options.
    fn build(
        program: &Program,
        engine: EngineKind,
        chunks: Option<&ChunkInfo>,
    ) -> Result<Shader, Error> {
        Shader::build_with(program, engine, chunks, &CompileOptions::default())
    }

    /// Validates, reflects and compiles with `options`.
    fn build_with(
        program: &Program,
        engine: EngineKind,
        chunks: Option<&ChunkInfo>,
        options: &CompileOptions,
    ) -> Result<Shader, Error> {
        let info = crate::validate::validate(program)?;
        let reflection = std::sync::Arc::new(crate::reflect::reflect(program, &info, chunks));
        let (compiled, group_size) = match engine {
            EngineKind::Jit => {
                let s = JitShader::compile_with(program, options)?;
                let size = s.prepared().group_size;
                (Compiled::Jit(s), size)
            }
            EngineKind::Interpreter => {
                let i = Interpreter::new(program)?;
                let size = i.prepared().group_size;
                (Compiled::Interp(std::sync::Arc::new(i)), size)
            }
        };
        let semantics = reflection
            .outputs
            .iter()
            .filter_map(|e| Some((e.semantic.clone(), e.semantic_index, e.register?)))
            .collect();
        Ok(Shader {
            compiled,
            engine,
            version: program.version,
            group_size,
            reflection,
            semantics,
        })
    }

    /// What the shader declares: signatures, bindings, thread-group size,
    /// instruction counts and flags (see [`Reflection`]). Semantic and
    /// resource names come from the DXBC container when the shader was
    /// loaded from one.
    ///
    /// ```rust
    /// use sm5jit::{EngineKind, Shader};
    ///
    /// let ps = Shader::from_asm(
    ///     "ps_5_0
    ///      dcl_sampler s0, mode_comparison
    ///      dcl_resource_texture2d (float,float,float,float) t3
    ///      dcl_input_ps linear v1.xy
    ///      dcl_output oDepth
    ///      sample_c_lz oDepth, v1.xyxx, t3.xxxx, s0, l(0.5)
    ///      ret",
    ///     EngineKind::Jit,
    /// )?;
    /// let r = ps.reflect();
    /// assert_eq!(r.inputs[0].register, Some(1));
    /// assert_eq!(r.inputs[0].mask, 0b0011);
    /// assert_eq!(r.outputs[0].semantic, "SV_Depth");
    /// assert_eq!(r.samplers[0].textures, [3]);
    /// assert_eq!(r.flags.writes_depth, sm5jit::reflect::DepthOutput::Any);
    /// # Ok::<(), sm5jit::Error>(())
    /// ```
    pub fn reflect(&self) -> &Reflection {
        &self.reflection
    }

    /// The engine this shader was compiled for.
    pub fn engine(&self) -> EngineKind {
        self.engine
    }

    /// The JIT tier the next dispatch runs (0 or 1); `None` on the
    /// interpreter.
    pub fn tier(&self) -> Option<u8> {
        match &self.compiled {
            Compiled::Jit(s) => Some(s.tier()),
            Compiled::Interp(_) => None,
        }
    }

    /// The shader model (`cs_5_0`, ...).
    pub fn version(&self) -> Version {
        self.version
    }

    /// Threads per group (`dcl_thread_group`); `[1, 1, 1]` for programs
    /// that are not compute shaders.
    pub fn thread_group_size(&self) -> [u32; 3] {
        self.group_size
    }

    /// Runs `groups` thread groups with [`DispatchConfig::default`] (all
    /// cores, the default instruction budget).
    pub fn dispatch(&self, b: &mut Bindings, groups: [u32; 3]) -> Result<DispatchStats, Error> {
        self.dispatch_with(b, groups, &DispatchConfig::default())
    }

    /// Runs `groups` thread groups. Bindings are checked first (every
    /// declared slot bound with a matching kind, every view inside its
    /// memory); a failing group stops the dispatch with its error, and
    /// UAV writes made before it stay.
    pub fn dispatch_with(
        &self,
        b: &mut Bindings,
        groups: [u32; 3],
        config: &DispatchConfig,
    ) -> Result<DispatchStats, Error> {
        self.check_compute()?;
        b.check_fits()?;
        let o = DispatchOptions {
            budget: config.budget,
        };
        let stats = match &self.compiled {
            Compiled::Jit(s) => s.dispatch_threads(b, groups, &o, config.worker_threads())?,
            Compiled::Interp(i) => i.dispatch(b, groups, &o)?,
        };
        Ok(stats)
    }

    /// Reads the group counts (three little-endian u32) from `args` at
    /// byte `offset` and dispatches, like `DispatchIndirect`. The offset
    /// must be 4-aligned and the 12 bytes inside `args`; a `cs_4_x` shader
    /// runs no groups (the D3D11 runtime drops indirect dispatches for
    /// them) after its bindings are checked.
    ///
    /// ```rust
    /// use sm5jit::{Bindings, DispatchConfig, EngineKind, Shader, Slot, View};
    ///
    /// let shader = Shader::from_asm(
    ///     "cs_5_0
    ///      dcl_uav_raw u0
    ///      dcl_thread_group 1, 1, 1
    ///      atomic_iadd u0, l(0), l(1)
    ///      ret",
    ///     EngineKind::Jit,
    /// )?;
    /// let args: Vec<u8> = [0u32, 3, 2, 1].iter().flat_map(|v| v.to_le_bytes()).collect();
    /// let mut count = [0u8; 4];
    /// let mut b = Bindings::new();
    /// b.uav(Slot::new(0), &mut count, View::raw(0, 1));
    /// let config = DispatchConfig { threads: 2, ..DispatchConfig::default() };
    /// shader.dispatch_indirect(&mut b, &args, 4, &config)?; // 3 x 2 x 1 groups
    /// drop(b);
    /// assert_eq!(u32::from_le_bytes(count), 6);
    ///
    /// // Arguments that do not fit are an error, not a read past the end.
    /// let mut b = Bindings::new();
    /// b.uav(Slot::new(0), &mut count, View::raw(0, 1));
    /// assert!(shader.dispatch_indirect(&mut b, &args, 8, &config).is_err());
    /// # Ok::<(), sm5jit::Error>(())
    /// ```
    pub fn dispatch_indirect(
        &self,
        b: &mut Bindings,
        args: &[u8],
        offset: u64,
        config: &DispatchConfig,
    ) -> Result<DispatchStats, Error> {
        let groups = crate::analysis::indirect_groups(self.version, args, offset)?;
        self.dispatch_with(b, groups, config)
    }

    fn check_compute(&self) -> Result<(), Error> {
        if self.version.kind == ProgramKind::Compute {
            return Ok(());
        }
        Err(Error::Runtime(RuntimeError::InvalidProgram {
            inst_index: None,
            reason: format!("dispatch needs a compute program, not {}", self.version),
        }))
    }

    // -----------------------------------------------------------------
    // Invocation batches (vertex and pixel programs)
    // -----------------------------------------------------------------

    /// The `o#` registers a vertex or pixel program declares, in
    /// declaration order: the registers a [`BatchResult`] reports for each
    /// invocation. Empty for compute programs.
    pub fn output_registers(&self) -> &[u32] {
        match &self.compiled {
            Compiled::Jit(s) => &s.prepared().outputs,
            Compiled::Interp(i) => &i.prepared().outputs,
        }
    }

    /// Runs a batch of vertex or pixel invocations with
    /// [`DispatchConfig::default`]; see [`Shader::run_batch_with`].
    pub fn run_batch(&self, b: &Bindings, inputs: &BatchInputs) -> Result<BatchResult, Error> {
        self.run_batch_with(b, inputs, &DispatchConfig::default())
    }

    /// Runs `inputs.count` invocations of a vertex or pixel program: each
    /// reads its v# registers from `inputs` and reports its declared o#
    /// registers in the [`BatchResult`]. Pixel invocations come as 2x2
    /// quads (invocations `4q..4q+4`: top-left, top-right, bottom-left,
    /// bottom-right), so derivatives work; lanes flagged as helpers run
    /// for derivatives only and lanes that `discard` report
    /// [`LaneResult::Discarded`](crate::LaneResult::Discarded). The inputs
    /// are checked against the program (kind, register count, data
    /// length, quads) and the bindings against its declarations before
    /// anything runs. A batch runs on the calling thread; only
    /// `config.budget` (instructions per invocation, or per quad) applies.
    /// The bindings are only shared: other threads may run batches against
    /// the same [`Bindings`] at the same time (see [`Shader::batch_runner`]
    /// for the rules, and for running many batches without checking the
    /// bindings each time).
    ///
    /// ```rust
    /// use sm5jit::{BatchInputs, Bindings, EngineKind, Shader, Slot};
    ///
    /// // o0 = (v0.xy * 2 + (1, -1), v0.zw), o1 = v1: a tiny transform.
    /// let vs = Shader::from_asm(
    ///     "vs_5_0
    ///      dcl_constantbuffer CB0[1], immediateIndexed
    ///      dcl_input v0.xyzw
    ///      dcl_input v1.xyzw
    ///      dcl_output_siv o0.xyzw, position
    ///      dcl_output o1.xyzw
    ///      mad o0.xy, v0.xyxx, cb0[0].xxxx, cb0[0].yzyy
    ///      mov o0.zw, v0.zzzw
    ///      mov o1.xyzw, v1.xyzw
    ///      ret",
    ///     EngineKind::Jit,
    /// )?;
    /// let cb: Vec<u8> = [2.0f32, 1.0, -1.0, 0.0]
    ///     .iter()
    ///     .flat_map(|v| v.to_bits().to_le_bytes())
    ///     .collect();
    /// // Two vertices, two registers each (position, colour), as bits.
    /// let data: Vec<u32> = [
    ///     [0.0f32, 0.0, 0.5, 1.0], [1.0, 0.0, 0.0, 1.0],
    ///     [0.5, -0.25, 0.5, 1.0], [0.0, 1.0, 0.0, 1.0],
    /// ]
    /// .iter()
    /// .flatten()
    /// .map(|v| v.to_bits())
    /// .collect();
    /// let mut b = Bindings::new();
    /// b.cb(Slot::new(0), &cb);
    /// let out = vs.run_batch(&b, &BatchInputs::new(2, 2, &data))?;
    ///
    /// let pos = |i| out.output(i, 0).unwrap().map(f32::from_bits);
    /// assert_eq!(pos(0), [1.0, -1.0, 0.5, 1.0]);
    /// assert_eq!(pos(1), [2.0, -1.5, 0.5, 1.0]);
    /// assert_eq!(out.output(1, 1).unwrap().map(f32::from_bits), [0.0, 1.0, 0.0, 1.0]);
    ///
    /// // Inputs that do not match the program are a typed error.
    /// assert!(vs.run_batch(&b, &BatchInputs::new(2, 1, &data[..8])).is_err());
    /// # Ok::<(), sm5jit::Error>(())
    /// ```
    pub fn run_batch_with(
        &self,
        b: &Bindings,
        inputs: &BatchInputs,
        config: &DispatchConfig,
    ) -> Result<BatchResult, Error> {
        b.check_fits()?;
        crate::runtime::batch::check(self.program(), inputs).map_err(RuntimeError::from)?;
        let mut result = BatchResult::new(Vec::new(), 0);
        self.batch_runner_with(b, config)?
            .run_into(inputs, &mut result)?;
        Ok(result)
    }

    /// Checks `b` against the shader's declarations once and returns a
    /// [`BatchRunner`] that runs any number of batches of this vertex or
    /// pixel shader against it, from any number of threads at once
    /// ([`DispatchConfig::default`]'s budget).
    ///
    /// The rules, as for the groups of a compute dispatch: SRVs, constant
    /// buffers and samplers are only read and shared by every batch with no
    /// copy. UAVs are written in place by every batch that writes them:
    /// batches writing different bytes never interfere; several batches
    /// writing the same bytes without atomics race (as several pixels of
    /// one draw do in D3D: each DWORD ends up holding one of the values
    /// written, which one is unspecified); atomics (`atomic_*`,
    /// `imm_atomic_*`) and the hidden counters (`imm_atomic_alloc` /
    /// `_consume`) are atomic across all threads. The bindings cannot
    /// change while a runner borrows them.
    ///
    /// ```rust
    /// use sm5jit::{BatchInputs, Bindings, EngineKind, Shader, Slot, View};
    ///
    /// // Each pixel adds 1 to u0[0] and returns the old value in o0.x.
    /// let ps = Shader::from_asm(
    ///     "ps_5_0
    ///      dcl_uav_raw u1
    ///      dcl_output o0.xyzw
    ///      imm_atomic_iadd o0.x, u1, l(0), l(1)
    ///      mov o0.yzw, l(0, 0, 0, 0)
    ///      ret",
    ///     EngineKind::Jit,
    /// )?;
    /// let mut count = [0u8; 4];
    /// let mut b = Bindings::new();
    /// b.uav(Slot::new(1), &mut count, View::raw(0, 1));
    /// let runner = ps.batch_runner(&b)?;
    /// // Four threads, 25 batches of 4 quads each, all into one counter.
    /// std::thread::scope(|s| {
    ///     for _ in 0..4 {
    ///         s.spawn(|| {
    ///             let mut out = sm5jit::BatchResult::new(Vec::new(), 0);
    ///             for _ in 0..25 {
    ///                 runner.run_into(&BatchInputs::new(16, 0, &[]), &mut out).unwrap();
    ///             }
    ///         });
    ///     }
    /// });
    /// drop(runner);
    /// drop(b);
    /// assert_eq!(u32::from_le_bytes(count), 4 * 25 * 16);
    /// # Ok::<(), sm5jit::Error>(())
    /// ```
    pub fn batch_runner<'r>(&'r self, b: &'r Bindings) -> Result<BatchRunner<'r>, Error> {
        self.batch_runner_with(b, &DispatchConfig::default())
    }

    /// [`Shader::batch_runner`] with `config.budget` (its `threads` does
    /// not apply: each batch runs on the thread that calls it).
    pub fn batch_runner_with<'r>(
        &'r self,
        b: &'r Bindings,
        config: &DispatchConfig,
    ) -> Result<BatchRunner<'r>, Error> {
        if !matches!(self.version.kind, ProgramKind::Vertex | ProgramKind::Pixel) {
            return Err(Error::Runtime(RuntimeError::Batch(
                crate::runtime::BatchError::NotVertexOrPixel(self.version.to_string()),
            )));
        }
        b.check_fits()?;
        let o = DispatchOptions {
            budget: config.budget,
        };
        let engine = match &self.compiled {
            Compiled::Jit(s) => RunnerEngine::Jit(s.batch_runner(b, &o)?),
            Compiled::Interp(i) => {
                i.check_bindings(b)?;
                RunnerEngine::Interp(i, b, o)
            }
        };
        Ok(BatchRunner {
            engine,
            semantics: &self.semantics,
        })
    }

    fn program(&self) -> &Program {
        match &self.compiled {
            Compiled::Jit(s) => &s.prepared().program,
            Compiled::Interp(i) => &i.prepared().program,
        }
    }
}

/// Batches of one vertex or pixel shader against bindings checked once
/// ([`Shader::batch_runner`]). `Send + Sync`: share it (`&BatchRunner`)
/// with every thread of a rasterizer; each [`BatchRunner::run_into`] runs
/// one batch on the calling thread, in working memory the runner keeps for
/// the next batch: on the JIT, the batch path of a thread that reuses its
/// [`BatchResult`] allocates nothing once warm (texture instructions
/// still call into `runtime::sampling`, which may).
pub struct BatchRunner<'r> {
    engine: RunnerEngine<'r>,
    semantics: &'r [(String, u32, u32)],
}

enum RunnerEngine<'r> {
    Jit(JitBatchRunner<'r>),
    Interp(&'r Interpreter, &'r Bindings<'r>, DispatchOptions),
}

impl BatchRunner<'_> {
    /// Runs one batch (see [`Shader::run_batch_with`] for what a batch is
    /// and what it reports).
    pub fn run(&self, inputs: &BatchInputs) -> Result<BatchResult, Error> {
        let mut result = BatchResult::new(Vec::new(), 0);
        self.run_into(inputs, &mut result)?;
        Ok(result)
    }

    /// Runs one batch into `result`, reusing its memory.
    pub fn run_into(&self, inputs: &BatchInputs, result: &mut BatchResult) -> Result<(), Error> {
        match &self.engine {
            RunnerEngine::Jit(r) => r.run_into(inputs, result)?,
            RunnerEngine::Interp(i, b, o) => *result = i.run_batch_checked(b, inputs, o)?,
        }
        if result.semantics[..] != *self.semantics {
            result.semantics = self.semantics.to_vec();
        }
        Ok(())
    }
}

/// The three group counts of an indirect dispatch at `offset` in `args`.
/// Shorthands for the common views.
impl View {
    /// A byte-address buffer window: 32-bit words `first_word ..
    /// first_word + words`.
    pub fn raw(first_word: u64, words: u64) -> View {
        View::Buffer(BufferView {
            kind: BufferKind::Raw,
            first_element: first_word,
            num_elements: words,
        })
    }

    /// A structured buffer window of `elements` structures of `stride`
    /// bytes, starting at structure `first`.
    pub fn structured(stride: u32, first: u64, elements: u64) -> View {
        View::Buffer(BufferView {
            kind: BufferKind::Structured { stride },
            first_element: first,
            num_elements: elements,
        })
    }

    /// A typed buffer window of `elements` texels of `format`, starting at
    /// texel `first`.
    pub fn typed(format: Format, first: u64, elements: u64) -> View {
        View::Buffer(BufferView {
            kind: BufferKind::Typed(format),
            first_element: first,
            num_elements: elements,
        })
    }

    /// A texture view.
    pub fn texture(view: TextureView) -> View {
        View::Texture(view)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::memory::indirect_groups;
    use crate::runtime::Slot;

    const DOUBLE: &str = "cs_5_0
dcl_uav_structured u0, 4
dcl_input vThreadID.x
dcl_temps 1
dcl_thread_group 4, 1, 1
ld_structured r0.x, vThreadID.x, l(0), u0.xxxx
iadd r0.x, r0.x, r0.x
store_structured u0.x, vThreadID.x, l(0), r0.x
ret
";

    fn run(engine: EngineKind, first: u64) -> Vec<u32> {
        let s = Shader::from_asm(DOUBLE, engine).expect("build");
        let mut mem: Vec<u8> = (0..12u32).flat_map(|v| v.to_le_bytes()).collect();
        let mut b = Bindings::new();
        b.uav(Slot::new(0), &mut mem, View::structured(4, first, 8));
        s.dispatch(&mut b, [2, 1, 1]).expect("dispatch");
        drop(b);
        mem.chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }

    #[test]
    fn engines_agree_and_respect_the_window() {
        let jit = run(EngineKind::Jit, 2);
        assert_eq!(jit, run(EngineKind::Interpreter, 2));
        let want: Vec<u32> = (0..12)
            .map(|v| if (2..10).contains(&v) { 2 * v } else { v })
            .collect();
        assert_eq!(jit, want);
    }

    #[test]
    fn a_view_past_its_memory_is_refused_before_running() {
        let s = Shader::from_asm(DOUBLE, EngineKind::Jit).unwrap();
        let mut mem = vec![0u8; 16];
        let mut b = Bindings::new();
        b.uav(Slot::new(0), &mut mem, View::structured(4, 2, 4));
        let e = s.dispatch(&mut b, [1, 1, 1]).unwrap_err();
        assert!(
            matches!(
                e,
                Error::Runtime(RuntimeError::ViewOutOfRange { needed: 24, .. })
            ),
            "{e}"
        );
    }

    #[test]
    fn missing_binding_and_non_compute_are_errors() {
        let s = Shader::from_asm(DOUBLE, EngineKind::Interpreter).unwrap();
        let e = s.dispatch(&mut Bindings::new(), [1, 1, 1]).unwrap_err();
        assert!(
            matches!(e, Error::Runtime(RuntimeError::MissingBinding { .. })),
            "{e}"
        );
        for engine in [EngineKind::Interpreter, EngineKind::Jit] {
            let ps = Shader::from_asm(
                "ps_5_0\ndcl_output o0.xyzw\nmov o0, l(1,1,1,1)\nret\n",
                engine,
            )
            .unwrap();
            let e = ps.dispatch(&mut Bindings::new(), [1, 1, 1]).unwrap_err();
            assert!(e.to_string().contains("compute"), "{e}");
            assert_eq!(ps.output_registers(), [0]);
            let r = ps
                .run_batch(&Bindings::new(), &BatchInputs::new(4, 0, &[]))
                .unwrap();
            // `l(1, ...)` without a point is the integer 1.
            assert_eq!(r.output(3, 0), Some([1; 4]));
            // A compute shader is not a batch program.
            let e = s.run_batch(&Bindings::new(), &BatchInputs::new(4, 0, &[]));
            assert!(e.unwrap_err().to_string().contains("vertex or pixel"));
        }
    }

    #[test]
    fn worker_threads_are_capped() {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let huge = DispatchConfig {
            threads: usize::MAX,
            ..DispatchConfig::default()
        };
        assert_eq!(huge.worker_threads(), 4 * cores);
        assert_eq!(DispatchConfig::default().worker_threads(), cores);
        let one = DispatchConfig {
            threads: 1,
            ..DispatchConfig::default()
        };
        assert_eq!(one.worker_threads(), 1);
    }

    #[test]
    fn indirect_arguments_are_bounds_checked() {
        assert_eq!(
            indirect_groups(&[1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0], 0),
            Ok([1, 2, 3])
        );
        assert!(indirect_groups(&[0; 12], 2).is_err());
        assert!(indirect_groups(&[0; 12], 4).is_err());
        assert!(indirect_groups(&[0; 12], u64::MAX - 3).is_err());
    }
}
