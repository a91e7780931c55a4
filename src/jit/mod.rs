//! The Cranelift JIT: compiles a validated compute, vertex or pixel
//! [`Program`] to native SIMD code; dispatches compute programs over
//! thread groups and runs vertex/pixel programs over invocation batches
//! (`batch`, [`crate::runtime::batch`]).
//!
//! In: a [`Program`] (checked with [`crate::validate::validate`] and
//! analysed by [`crate::analysis`], as the interpreter's is). Out: a [`JitShader`] holding one
//! `JITModule` with one group function `extern "C" fn(*mut BatchContext,
//! u32) -> u32` that runs every batch of [`context::W`] threads of one
//! group, in SoA form, through all its barriers (the contexts of the
//! group's batches lie one after another; a vertex/pixel batch is a group
//! of one).
//! Invariants: a shader compiles completely or fails with
//! [`JitError::Unsupported`] naming the first instruction it cannot lower
//! — there is never a silent fallback to the interpreter; the generated
//! code produces the same memory bits as [`crate::interp`]; its machine
//! code is freed (`free_memory`) when the last clone of the shader drops.
//!
//! Layout: `context` (the ABI), `plan` (where memory lives), `lower`
//! (operands and ALU), `flow` (execution masks, barriers), `memory`
//! (bounds-checked access), `double` (64-bit floats), `typed` (typed
//! buffers and textures through the runtime's formats), `sample`
//! (sampling, gather, texture loads through `runtime::sampling`),
//! `texvec` (the common 2D sampling case as vector code),
//! `ranges` (SM5.1 register ranges), `libcalls` (shims into `sem`),
//! `stage` (v#, o#, the special pixel registers, discard, quad
//! derivatives), `runner` (groups,
//! batches, worker threads), `pool` (the worker threads dispatches
//! share), `lanes` (the out-of-line per-lane memory path), `flushed`
//! (registers known to hold flushed floats), `fpmode` (MXCSR.DAZ around
//! generated code), `observed` (which float results are seen bit for
//! bit), `liveness` (live registers: blend-free writes, barrier saves),
//! `tier0`/`tier0_alu` (tier 0's slots and out-of-line routines), `tiers`
//! (tier-up and the cache),
//! `batch` (vertex/pixel invocation batches) and `transpose` (its
//! four-lane copies), `prune` (loop-carried values nothing reads, removed
//! before Cranelift compiles), `pretest` (batch tests decided once per
//! group), `engine` (the case-runner engine).
//!
//! Not lowered yet (compile fails with `Unsupported`): relative v#/o#
//! indices, `eval_*`, 64-bit relative indices, a per-lane SM5.1 resource index inside a
//! control-flow condition; hull, domain and geometry programs are refused
//! (`NotCompute`).

mod batch;
mod claims;
pub mod context;
mod double;
mod elementary;
mod flow;
mod flushed;
pub mod fpmode;
mod group;
mod lanes;
mod late;
pub mod libcalls;
mod liveness;
mod lower;
mod memory;
mod observed;
mod perfmap;
pub mod plan;
pub(crate) mod pool;
mod pretest;
mod prune;
mod ranges;
mod remat;
mod runner;
mod sample;
mod shadow;
mod span;
mod split;
mod stage;
mod texvec;
mod tier0;
mod tier0_alu;
pub mod tiers;
mod transpose;
pub mod typed;
mod uniform;
mod unroll;

pub use batch::JitBatchRunner;
pub use tiers::{CompileOptions, Tier};

use std::collections::BTreeMap;
use std::mem::ManuallyDrop;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, OnceLock};

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, AbiParam, InstBuilder, UserFuncName};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Switch};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{default_libcall_names, Linkage, Module};

use crate::analysis::{self, Jump, Prepared};
use crate::ir::{Opcode, Program, ProgramKind};
use crate::runtime::RuntimeError;

use context::{
    BatchContext, N, OFF_BUDGET, OFF_GROUP_BASE, OFF_GROUP_BUDGET, OFF_GROUP_ID, OFF_RES,
    OFF_RESUME, OFF_RUN, OFF_SAVE, OFF_STOPPED_AT, OFF_WAITING, STATUS_BUDGET, STATUS_DONE,
};
use lower::{trusted, Lower};
use plan::Plan;

/// Whether `SM5JIT_NO_OPT` (a comma-separated list, read once) turns the
/// optimisation `name` off, to measure what it buys: `nan` (finish —
/// flush and canonicalise — every float result, `observed.rs`), `full` (blend every register write,
/// even under a full mask), `dead` (blend writes even when no idle lane
/// reads the register again, `liveness.rs`), `hoist` (cb#/context loads not hoistable),
/// `late` (finish loop results where they are computed, not where they
/// are read after the loop, `late.rs`),
/// `vectex` (every sampling instruction calls the texture shim, none
/// takes `texvec.rs`'s vector path), `t0call` (tier 0 lowers ALU, typed and atomic instructions inline
/// instead of calling `tier0_alu`'s routines), `vecexp` (`exp` and `log`
/// through per-lane shims instead of vector code, `elementary.rs`),
/// `groups` (barrier programs keep the resume scheme, `group.rs`),
/// `spans` (a group-level region runs every batch, even those its `if`
/// on the thread id leaves out, `span.rs`), `prune` (block parameters
/// nothing reads stay, `prune.rs`), `split` (an `if` on a thread-id range
/// stays one masked `if`, `split.rs`), `peel` (a prefix or suffix span
/// runs all its batches through the split code, none on the full-mask
/// path alone, `group.rs`), `pairs` (a short TGSM region runs its batches
/// one at a time, `group.rs`), `pretest` (no batch loop whose
/// tests the group's entry decided, `pretest.rs`, nor a region loop
/// whose tests its range's ends decided, `group.rs`), `runs` (one call per
/// group, `runs_groups`), `tgsmfill` (TGSM cleared before every group,
/// even when the program stores all of it before reading any,
/// `analysis::Prepared::tgsm_written_first`), `blend` (a g# store
/// under a partial mask branches per lane instead of blending,
/// `memory.rs`), `tail` (no vector g# load ending at lane 3's DWORD,
/// `memory.rs`), `unroll` (a group loop with a known trip count stays a
/// loop, `unroll.rs`), `idle` (a span's part batch runs all its lanes and loads whole vectors,
/// `group.rs`), `ids` (every lane-0 id is a load of its own, no
/// batch loads, `lower.rs`), `wide` (lane-0 addresses on 32 bits,
/// zero-extended, `lower.rs`).
/// FTZ+DAZ has its own switch, `SM5JIT_SOFT_FLUSH` (`fpmode`).
pub fn opt_off(name: &str) -> bool {
    static OFF: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    OFF.get_or_init(|| {
        std::env::var("SM5JIT_NO_OPT")
            .map(|v| v.split(',').map(|s| s.trim().to_string()).collect())
            .unwrap_or_default()
    })
    .iter()
    .any(|o| o == name)
}

/// Why a program could not be compiled.
#[derive(Debug, thiserror::Error)]
pub enum JitError {
    #[error("instruction {inst_index}: {opcode} is not supported by the JIT yet")]
    Unsupported { inst_index: usize, opcode: String },
    /// A hull, domain or geometry program.
    #[error("the JIT runs compute, vertex and pixel programs only, not {0}")]
    NotCompute(String),
    #[error("the JIT needs an x86-64 CPU with SSE4.1: {0}")]
    Host(String),
    #[error(transparent)]
    Validation(#[from] crate::validate::ValidationError),
    #[error(transparent)]
    Runtime(#[from] RuntimeError),
    #[error("code generation failed: {0}")]
    Codegen(String),
}

/// The group function's type: runs the batches whose contexts lie at
/// `ctx`, `ctx + 1`, ... (`count` of them, at least 1, consecutive in
/// memory) to their ends, through every barrier, and returns a status.
type BatchFn = unsafe extern "C" fn(*mut BatchContext, u32) -> u32;

/// The module owning the machine code. Only `Drop` touches it after
/// compilation, so sharing it between threads is sound.
struct Code(ManuallyDrop<JITModule>);

// SAFETY: after `finalize_definitions` the module is never used again
// except by `Drop`, which runs once, when no other reference exists; the
// `RefCell` inside `JITModule` is therefore never reached concurrently.
unsafe impl Sync for Code {}
// SAFETY: as above; `JITModule` owns plain memory mappings.
unsafe impl Send for Code {}

impl Drop for Code {
    fn drop(&mut self) {
        // SAFETY: the only function pointer into this module lives in the
        // same `Inner` and is dropped with it; no call can be running
        // because calls borrow the `JitShader`.
        unsafe { ManuallyDrop::take(&mut self.0).free_memory() };
    }
}

/// One compiled batch function with the module that owns its code.
struct Compiled {
    func: BatchFn,
    /// 16-byte slots the save area needs per batch (tier 1: the barrier
    /// save area; tier 0: every variable).
    save_slots: usize,
    /// 0 or 1.
    tier: u8,
    /// The function runs `run` groups along x per call (`runs_groups`).
    runs: bool,
    /// The function reads each context's `resume` (barriers in the resume
    /// scheme): the runner sets it to 0 before each group. Group-level
    /// code (`group.rs`) never reads it.
    resumes: bool,
    /// Declared after `func` so the code is freed last.
    _code: Code,
    /// Tier 0's out-of-line ALU descriptors, whose addresses the code
    /// embeds (`tier0_alu.rs`); freed with the code.
    _alu: tier0::Descs,
}

struct Inner {
    prepared: Prepared,
    plan: Plan,
    /// The code compiled with the shader (tier 0, or tier 1 on
    /// [`Tier::One`]).
    first: Compiled,
    /// Tier-1 code installed by the background compile (`tiers.rs`).
    upgraded: OnceLock<Compiled>,
    /// [`Tier::Auto`]: tier up after `tier_up_after` batches run.
    auto: bool,
    tier_up_after: u64,
    /// Batches run so far (counted until the tier-up is queued).
    calls: AtomicU64,
    /// Workers of finished dispatches, for the next ones (`runner.rs`).
    spare: runner::Spare,
}

impl Inner {
    /// The code the next group or batch runs: tier 1 once installed.
    fn code(&self) -> &Compiled {
        self.upgraded.get().unwrap_or(&self.first)
    }

    /// The largest save area either installed code needs.
    fn save_slots(&self) -> usize {
        self.code().save_slots.max(self.first.save_slots)
    }
}

/// A compiled compute shader: cheap to clone, `Send + Sync`.
#[derive(Clone)]
pub struct JitShader {
    inner: Arc<Inner>,
}

const _: () = {
    const fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<JitShader>();
};

impl std::fmt::Debug for JitShader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JitShader")
            .field("version", &self.inner.prepared.version())
            .field("instructions", &self.inner.prepared.program.insts.len())
            .finish()
    }
}

/// The host ISA for a program of `insts` instructions. Building one
/// (CPU feature detection, settings, back-end tables) costs about as much
/// as compiling a small shader, so each distinct configuration is built
/// once per process and shared (`TargetIsa` is `Send + Sync` and
/// immutable).
fn host_isa(
    tier: u8,
    insts: usize,
) -> Result<Arc<dyn cranelift_codegen::isa::TargetIsa>, JitError> {
    type Isa = Arc<dyn cranelift_codegen::isa::TargetIsa>;
    /// (register allocator, verifier on, tier).
    type Key = (String, bool, u8);
    static CACHE: std::sync::Mutex<Vec<(Key, Isa)>> = std::sync::Mutex::new(Vec::new());
    // Cranelift's IR verifier: in debug builds, and in any build with
    // SM5JIT_VERIFY=1 (CI runs the release test suite with it).
    let verify = cfg!(debug_assertions) || std::env::var("SM5JIT_VERIFY").is_ok_and(|v| v == "1");
    // `SM5JIT_REGALLOC=backtracking|single_pass` overrides the register
    // allocator (see docs/performance.md for the trade-off).
    // Tier 0 always uses the single-pass allocator without optimisation.
    let regalloc = match tier {
        0 => "single_pass".to_string(),
        _ => std::env::var("SM5JIT_REGALLOC").unwrap_or_else(|_| regalloc_for(insts).into()),
    };
    let key = (regalloc, verify, tier);
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, isa)) = cache.iter().find(|(k, _)| *k == key) {
        return Ok(isa.clone());
    }
    let opt = if tier == 0 { "none" } else { "speed" };
    let isa = build_isa(&key.0, opt, verify)?;
    cache.push((key, isa.clone()));
    Ok(isa)
}

fn build_isa(
    regalloc: &str,
    opt: &str,
    verify: bool,
) -> Result<Arc<dyn cranelift_codegen::isa::TargetIsa>, JitError> {
    #[cfg(target_arch = "x86_64")]
    {
        if !std::arch::is_x86_feature_detected!("sse4.1") {
            return Err(JitError::Host("this CPU has no SSE4.1".into()));
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        return Err(JitError::Host("the host is not x86-64".into()));
    }
    let mut flags = settings::builder();
    let set = |f: &mut settings::Builder, k: &str, v: &str| {
        f.set(k, v)
            .map_err(|e| JitError::Codegen(format!("setting {k}={v}: {e}")))
    };
    set(&mut flags, "opt_level", opt)?;
    set(&mut flags, "regalloc_algorithm", regalloc)?;
    set(
        &mut flags,
        "enable_verifier",
        if verify { "true" } else { "false" },
    )?;
    set(&mut flags, "is_pic", "false")?;
    set(&mut flags, "use_colocated_libcalls", "false")?;
    let isa = cranelift_native::builder().map_err(|e| JitError::Host(e.to_string()))?;
    isa.finish(settings::Flags::new(flags))
        .map_err(|e| JitError::Codegen(e.to_string()))
}

/// Programs with at least this many instructions use Cranelift's
/// single-pass register allocator.
const SINGLE_PASS_FROM: usize = 500;

/// The register allocator for a program of `insts` instructions: the
/// backtracking allocator gives the fastest code (single-pass code ran
/// saxpy, mandelbrot and matmul 1.5-2.4x slower) but takes most of the
/// compile time and grows much faster than linearly (5 s instead of 0.7 s
/// for the 3806-instruction BC6H encoder), so large programs use the
/// single-pass one.
fn regalloc_for(insts: usize) -> &'static str {
    if insts >= SINGLE_PASS_FROM {
        "single_pass"
    } else {
        "backtracking"
    }
}

/// The typed-access shims: (symbol, address), in `Lower::typed_fns` order.
const TYPED_SHIMS: [(&str, *const u8); 4] = [
    ("sm5jit_typed_load", typed::typed_load as *const u8),
    ("sm5jit_typed_store", typed::typed_store as *const u8),
    ("sm5jit_typed_resinfo", typed::typed_resinfo as *const u8),
    ("sm5jit_typed_addr", typed::typed_addr as *const u8),
];

/// The double-precision shim's symbol.
const DOUBLE_SHIM: &str = "sm5jit_double_op";

/// Instructions in each loop body (`loop` index → length), the budget a
/// back-edge costs.
fn loop_lengths(p: &Prepared) -> BTreeMap<usize, u64> {
    let mut out = BTreeMap::new();
    for (i, inst) in p.program.insts.iter().enumerate() {
        if inst.opcode == Opcode::EndLoop {
            if let Some(Jump::To(head)) = p.jumps.get(i) {
                let start = head.saturating_sub(1);
                out.insert(start, (i - start) as u64);
            }
        }
    }
    out
}

/// Compute, vertex and pixel programs: the kinds the JIT runs as batches.
fn runs_in_batches(p: &Prepared) -> bool {
    matches!(
        p.version().kind,
        ProgramKind::Compute | ProgramKind::Vertex | ProgramKind::Pixel
    )
}

/// Whether a register write at the top of the program, before any
/// construct that may drop lanes, may skip the blend with the old value:
/// every lane outside the entry `exec` is one nothing ever observes. In a
/// compute program whose group is a whole number of batches there is no
/// such lane. In vertex and pixel batches those lanes are the padding past
/// the batch's count: whole invocations (whole quads, as pixel batches
/// are made of quads) whose registers no other lane reads and whose
/// outputs are never reported.
fn entry_exec_full(p: &Prepared) -> bool {
    match p.version().kind {
        ProgramKind::Compute => {
            let g = p.group_size;
            (g[0] * g[1] * g[2]) as usize % context::W == 0
        }
        ProgramKind::Vertex | ProgramKind::Pixel => true,
        _ => false,
    }
}

/// Whether a lane that is not executing keeps its registers to itself, so
/// a write may overwrite a register where it is dead for the lanes outside
/// `exec` (`liveness.rs`). A pixel lane's registers are read by its quad's
/// derivatives and implicit-LOD samples even while it is not executing
/// (docs/semantics.md §9a), so pixel programs with such ops keep every
/// blend.
fn idle_lanes_private(p: &Prepared) -> bool {
    match p.version().kind {
        ProgramKind::Compute | ProgramKind::Vertex => true,
        ProgramKind::Pixel => !p.program.insts.iter().any(|i| i.opcode.reads_quad()),
        _ => false,
    }
}

/// The group-level plan of a barrier program's tier-1 code (`group.rs`:
/// the control runs once per group, the code between it batch by batch),
/// or `None` when it keeps the resume scheme.
fn group_plan(p: &Prepared, tier: u8, main_end: usize) -> Option<group::GroupPlan> {
    let on = tier != 0
        && p.version().kind == ProgramKind::Compute
        && has_group_barrier(p)
        && !opt_off("uniform")
        && !opt_off("groups");
    on.then(|| group::GroupPlan::new(p, main_end)).flatten()
}

/// `program` prepared, with the end of its main program (the first
/// label, or its length): what the `runs_*` predicates below ask about.
/// `None` for a program that does not prepare.
fn prepared_main(program: &Program) -> Option<(Prepared, usize)> {
    let p = analysis::prepare(program).ok()?;
    let insts = &p.program.insts;
    let main_end = insts
        .iter()
        .position(|i| i.opcode == Opcode::Label)
        .unwrap_or(insts.len());
    Some((p, main_end))
}

/// Whether `program`'s tier-1 code runs its barriers at group level
/// (docs/architecture.md, "Barriers"): a compute program whose every
/// group barrier sits in control flow that is the same for every thread
/// of the group. False for a program that does not prepare.
pub fn runs_group_level(program: &Program) -> bool {
    prepared_main(program).is_some_and(|(p, end)| group_plan(&p, 1, end).is_some())
}

/// Whether `program`'s tier-1 code has a pretested batch loop (its early
/// return and whole-batch buffer tests decided once per group,
/// `pretest.rs`). False for a program that does not prepare.
pub fn runs_pretested(program: &Program) -> bool {
    prepared_main(program).is_some_and(|(p, end)| {
        group_plan(&p, 1, end).is_none() && pretest_on(&p, 1, has_group_barrier(&p), end)
    })
}

/// Whether `program`'s tier-1 code has a group-level region loop lowered
/// with a pretested copy in view (its whole-batch buffer tests decided
/// for the loop's range of batches, `group.rs`). False for a program
/// that does not prepare.
pub fn runs_region_pretested(program: &Program) -> bool {
    prepared_main(program).is_some_and(|(p, end)| {
        group_plan(&p, 1, end).is_some_and(|plan| group::region_pretest_applies(&p, &plan))
    })
}

/// Whether `program`'s tier-1 code runs at group level with some r#
/// component recomputed after a barrier instead of saved (`remat.rs`).
/// False for a program that does not prepare.
pub fn runs_recomputed(program: &Program) -> bool {
    prepared_main(program).is_some_and(|(p, end)| {
        group_plan(&p, 1, end).is_some_and(|plan| plan.remat.iter().any(Option::is_some))
    })
}

/// Whether the program has a `sync_*_t` (a group barrier): its batches
/// keep a resume id and may take several passes per group.
fn has_group_barrier(p: &Prepared) -> bool {
    p.program.insts.iter().any(|i| {
        i.opcode == Opcode::Sync && i.sync_flags() & crate::ir::sync_flags::THREADS_IN_GROUP != 0
    })
}

/// Whether the tier-1 code of `p` (not in group mode) runs groups in runs:
/// one call runs the `run` groups along x from the first context's
/// `group_id` (the runner sets it per run), stepping the group's id and
/// base in registers, so a group costs a few instructions instead of a
/// call and the runner's work. A program without barriers, g# or x#
/// storage: nothing of a group outlives it or needs clearing between
/// groups. `SM5JIT_NO_OPT=runs` turns it off.
fn runs_groups(p: &Prepared, plan: &Plan, tier: u8, barriers: bool) -> bool {
    tier != 0
        && !barriers
        && p.version().kind == ProgramKind::Compute
        && plan.tgsm_dwords == 0
        && plan.x_elems == 0
        && !opt_off("runs")
}

/// Whether the tier-1 code of `p` (not in group mode) gets a pretested
/// batch loop (`pretest.rs`): a compute program without barriers or
/// calls, whose group is a whole number of batches that each
/// lie in one row, and whose main program is short enough to lower
/// twice. `SM5JIT_NO_OPT=pretest` turns it off.
fn pretest_on(p: &Prepared, tier: u8, barriers: bool, main_end: usize) -> bool {
    let insts = &p.program.insts;
    let calls = insts
        .iter()
        .any(|i| matches!(i.opcode, Opcode::Call | Opcode::Callc));
    tier != 0
        && !barriers
        && !calls
        && p.version().kind == ProgramKind::Compute
        && entry_exec_full(p)
        && N > 1
        && p.group_size[0] as usize % context::W == 0
        && main_end <= pretest::MAX_INSTS
        && !opt_off("uniform")
        && !opt_off("pretest")
}

/// The generated code of a compiled shader, for reading: what
/// `--dump-clif` and `--dump-asm` print.
#[derive(Clone, Debug, Default)]
pub struct CodeDump {
    /// The batch function in Cranelift IR after Cranelift's optimisations
    /// (the input of instruction selection).
    pub clif: String,
    /// The machine code, one instruction a line with its real registers,
    /// as Cranelift's x86-64 back end prints it.
    pub asm: String,
    /// The machine code's bytes as Cranelift emitted them, before the
    /// module's relocations (call targets and constants' addresses read
    /// as zero): the instructions and their offsets of the installed
    /// function, for a disassembler or a per-instruction profile.
    pub code: Vec<u8>,
}

impl JitShader {
    /// Validates, prepares and compiles `program` with the default
    /// [`CompileOptions`] (tier 0, then tier 1 in the background; cached).
    pub fn compile(program: &Program) -> Result<JitShader, JitError> {
        Self::compile_with(program, &CompileOptions::default())
    }

    /// Compiles `program` on tier 1 and also returns the generated code as
    /// text (slower: the disassembly is built during compilation; never
    /// cached).
    pub fn compile_dump(program: &Program) -> Result<(JitShader, CodeDump), JitError> {
        Self::compile_dump_with(program, &CompileOptions::tier(Tier::One))
    }

    /// Like [`JitShader::compile_dump`] with `options` (the dump shows the
    /// first code: tier 0 unless `options.tier` is [`Tier::One`]).
    pub fn compile_dump_with(
        program: &Program,
        options: &CompileOptions,
    ) -> Result<(JitShader, CodeDump), JitError> {
        Self::compile_inner(program, options, true).map(|(s, d)| (s, d.unwrap_or_default()))
    }

    fn compile_inner(
        program: &Program,
        options: &CompileOptions,
        dump: bool,
    ) -> Result<(JitShader, Option<CodeDump>), JitError> {
        crate::validate::validate(program)?;
        let prepared = analysis::prepare(program)?;
        let kind = prepared.version().kind;
        if !matches!(
            kind,
            ProgramKind::Compute | ProgramKind::Pixel | ProgramKind::Vertex
        ) {
            return Err(JitError::NotCompute(prepared.version().to_string()));
        }
        let plan = Plan::new(&prepared);
        let tier = if options.tier == Tier::One { 1 } else { 0 };
        let (first, code_dump) = compile_code(&prepared, &plan, tier, dump)?;
        let auto = options.tier == Tier::Auto;
        let shader = JitShader {
            inner: Arc::new(Inner {
                prepared,
                plan,
                first,
                upgraded: OnceLock::new(),
                auto,
                tier_up_after: options.tier_up_after,
                calls: AtomicU64::new(0),
                spare: runner::Spare::default(),
            }),
        };
        if auto && options.tier_up_after == 0 {
            tiers::spawn_tier_up(Arc::downgrade(&shader.inner));
        }
        Ok((shader, code_dump))
    }

    /// The prepared program the shader was compiled from.
    pub fn prepared(&self) -> &Prepared {
        &self.inner.prepared
    }
}

/// Compiles the batch function of `prepared` on `tier` (0 or 1) into a
/// module of its own.
fn compile_code(
    prepared: &Prepared,
    plan: &Plan,
    tier: u8,
    dump: bool,
) -> Result<(Compiled, Option<CodeDump>), JitError> {
    let isa = host_isa(tier, prepared.program.insts.len())?;
    let mut builder = JITBuilder::with_isa(isa, default_libcall_names());
    for (name, addr) in TYPED_SHIMS {
        builder.symbol(name, addr);
    }
    builder.symbol(DOUBLE_SHIM, double::double_op as *const u8);
    builder.symbol(lanes::SYMBOL, lanes::preserving_call as *const u8);
    builder.symbol(sample::SHIM, sample::texture_shim as *const u8);
    builder.symbol(texvec::QUAD_MIPS, sample::quad_mips as *const u8);
    let mut module = JITModule::new(builder);
    let built = build(&mut module, prepared, plan, tier, dump);
    let Built {
        id,
        save_slots,
        runs,
        resumes,
        alu,
        dump: code_dump,
        size,
    } = match built {
        Ok(x) => x,
        Err(e) => {
            // SAFETY: nothing from this module was handed out.
            unsafe { module.free_memory() };
            return Err(e);
        }
    };
    if let Err(e) = module.finalize_definitions() {
        // SAFETY: as above.
        unsafe { module.free_memory() };
        return Err(JitError::Codegen(e.to_string()));
    }
    let ptr = module.get_finalized_function(id);
    perfmap::note(ptr, size, tier);
    // SAFETY: the function was built with exactly this signature
    // (one pointer argument, one i32 result, the host's C convention).
    let func = unsafe { std::mem::transmute::<*const u8, BatchFn>(ptr) };
    let compiled = Compiled {
        func,
        save_slots,
        tier,
        runs,
        resumes,
        _code: Code(ManuallyDrop::new(module)),
        _alu: alu,
    };
    Ok((compiled, code_dump))
}

thread_local! {
    /// Cranelift's per-function contexts, kept between compiles on this
    /// thread so that their allocations (IR, CFG, the register
    /// allocator's state) are reused; put back only after a successful
    /// compile, when both are clear.
    static CONTEXTS: std::cell::Cell<Option<(cranelift_codegen::Context, FunctionBuilderContext)>> =
        const { std::cell::Cell::new(None) };
}

/// This thread's reused contexts (or new ones), ready for a function of
/// `module`.
fn reused_contexts(module: &JITModule) -> (cranelift_codegen::Context, FunctionBuilderContext) {
    match CONTEXTS.with(|c| c.take()) {
        Some((mut ctx, fctx)) => {
            module.clear_context(&mut ctx);
            (ctx, fctx)
        }
        None => (module.make_context(), FunctionBuilderContext::new()),
    }
}

/// What [`build`] returns.
struct Built {
    id: cranelift_module::FuncId,
    /// Save slots the code needs (see [`Compiled::save_slots`]).
    save_slots: usize,
    /// See [`Compiled::runs`].
    runs: bool,
    /// See [`Compiled::resumes`].
    resumes: bool,
    /// Tier 0's out-of-line call descriptors the code points at.
    alu: tier0::Descs,
    dump: Option<CodeDump>,
    /// The machine code's length in bytes.
    size: usize,
}

/// Builds and defines the batch function; returns its id, the number
/// of save slots its barriers need, the descriptors its tier-0 calls
/// point at and, when `dump` is set, its code as text.
fn build(
    module: &mut JITModule,
    p: &Prepared,
    plan: &Plan,
    tier: u8,
    dump: bool,
) -> Result<Built, JitError> {
    let cg = |e: cranelift_module::ModuleError| JitError::Codegen(e.to_string());
    // typed shims: (env: i64, entry: i32, flag: i32, io: i64) -> ()
    let mut tsig = module.make_signature();
    for t in [types::I64, types::I32, types::I32, types::I64] {
        tsig.params.push(AbiParam::new(t));
    }
    let mut typed_fns = Vec::new();
    for (name, _) in TYPED_SHIMS {
        typed_fns.push(
            module
                .declare_function(name, Linkage::Import, &tsig)
                .map_err(cg)?,
        );
    }
    // double shim: (op: i32, sat: i32, io: i64) -> ()
    let mut dsig = module.make_signature();
    for t in [types::I32, types::I32, types::I64] {
        dsig.params.push(AbiParam::new(t));
    }
    let double_fn = module
        .declare_function(DOUBLE_SHIM, Linkage::Import, &dsig)
        .map_err(cg)?;
    // lanes::preserving_call: (ctx: i64, a: i64, b: i64, c: i32,
    // target: i64) -> (), keeping every register.
    let mut lsig = module.make_signature();
    lsig.call_conv = cranelift_codegen::isa::CallConv::PreserveAll;
    for t in [types::I64, types::I64, types::I64, types::I32, types::I64] {
        lsig.params.push(AbiParam::new(t));
    }
    let preserve_fn = module
        .declare_function(lanes::SYMBOL, Linkage::Import, &lsig)
        .map_err(cg)?;

    let mut sig = module.make_signature();
    sig.params.push(AbiParam::new(types::I64));
    sig.params.push(AbiParam::new(types::I32));
    sig.returns.push(AbiParam::new(types::I32));
    let id = module.declare_anonymous_function(&sig).map_err(cg)?;
    let (mut ctx, mut fctx) = reused_contexts(module);
    ctx.func.signature = sig;
    ctx.func.name = UserFuncName::user(0, id.as_u32());
    let save_slots;
    let runs;
    let resumes;
    let alu;
    let observed = if opt_off("nan") {
        observed::Observed::all()
    } else {
        observed::Observed::new(p)
    };
    let late = if tier != 0 && !opt_off("nan") && !opt_off("late") {
        late::Late::new(p, &observed)
    } else {
        late::Late::none()
    };
    let flushed_regs = flushed::flushed_temps(p, &observed, &late);
    {
        let mut b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
        // The group function (see `docs/architecture.md`, "Groups"):
        //   entry(ctx0, count): count == 0 -> return STATUS_DONE;
        //     count == u32::MAX (never passed) -> budget exit
        //   head(ctx): one batch; tier 0 loads its slot base here
        //     [barriers: resume = ctx.resume; resume != 0 -> dispatch]
        //     init (exec from `live`, stage inputs) -> start -> body
        //   body end [barriers: ctx.resume = RESUME_DONE] -> next
        //   barrier k: save, ctx.resume = k, ctx0.waiting = 1 -> next
        //   next: more batches -> head(ctx + CTX_SIZE);
        //     [barriers: ctx0.waiting -> waiting = 0, head(ctx0)]
        //     else return STATUS_DONE
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let group = b.block_params(entry)[0];
        let count = b.block_params(entry)[1];
        // The budget exit takes the index of the `endloop` that ran out.
        let budget_exit = b.create_block();
        b.append_block_param(budget_exit, types::I32);
        let setup = b.create_block();
        let check = b.create_block();
        let fin = b.create_block();
        // The exits are reached from outside every loop too (a count of
        // 0 returns at once; a count of u32::MAX, never passed, reaches
        // the budget exit), so their immediate dominators are never blocks
        // inside a loop. Cranelift's egraph elaboration forgets the loop
        // it is in after visiting a dominator-tree child outside the loop,
        // and then sinks loop-invariant code into the rest of the loop
        // body: with the budget exit (or a per-loop block storing the
        // `endloop` index in front of it) as a child of a loop block, no
        // loop-invariant value was hoisted out of that loop. So no block
        // outside a loop may have its immediate dominator inside it.
        b.ins().brif(count, check, &[], fin, &[]);
        b.seal_block(check);
        b.switch_to_block(check);
        let never = b.ins().icmp_imm_s(IntCC::Equal, count, -1);
        let at0 = b.ins().iconst(types::I32, 0);
        b.ins().brif(never, budget_exit, &[at0.into()], setup, &[]);
        b.seal_block(setup);
        b.switch_to_block(setup);
        let barriers = has_group_barrier(p);
        // The main program ends at the first label; subroutines are
        // lowered where they are called.
        let insts = &p.program.insts;
        let main_end = insts
            .iter()
            .position(|i| i.opcode == Opcode::Label)
            .unwrap_or(insts.len());
        let uniform_on = tier != 0 && runs_in_batches(p) && !opt_off("uniform");
        let group_plan = group_plan(p, tier, main_end);
        resumes = barriers && group_plan.is_none();
        if group_plan.is_some() {
            // Group mode runs the group's batches, all of them: a region's
            // batch loop may run them in pairs (`group.rs`).
            let batches = group::group_batches(p);
            let (ok, wrong) = (b.create_block(), b.create_block());
            let other = b.ins().icmp_imm_s(IntCC::NotEqual, count, batches as i64);
            b.ins().brif(other, wrong, &[], ok, &[]);
            b.seal_block(wrong);
            b.switch_to_block(wrong);
            let st = b.ins().iconst(types::I32, i64::from(context::STATUS_COUNT));
            b.ins().return_(&[st]);
            b.seal_block(ok);
            b.switch_to_block(ok);
        }
        let arg = cranelift_codegen::ir::BlockArg::Value;
        // Group runs: the groups `run` of them along x, one after another
        // in this call (`runs_groups`). `grun(id.x, base.x, left)` starts
        // a group; the batch loops end in `done`, which steps to the next.
        runs = group_plan.is_none() && runs_groups(p, plan, tier, barriers);
        let mut run_loop = None;
        let mut group_ids = None;
        let mut run_res = None;
        if runs {
            let at = |d: usize, off: i32| off + 4 * d as i32;
            let id: Vec<_> = (0..3)
                .map(|d| {
                    b.ins()
                        .load(types::I32, trusted(), group, at(d, OFF_GROUP_ID))
                })
                .collect();
            let base: Vec<_> = (0..3)
                .map(|d| {
                    b.ins()
                        .load(types::I32, trusted(), group, at(d, OFF_GROUP_BASE))
                })
                .collect();
            let n = b.ins().load(types::I32, trusted(), group, OFF_RUN);
            let grun = b.create_block();
            let idx = b.append_block_param(grun, types::I32);
            let bx = b.append_block_param(grun, types::I32);
            let gleft = b.append_block_param(grun, types::I32);
            b.ins().jump(grun, &[arg(id[0]), arg(base[0]), arg(n)]);
            b.switch_to_block(grun);
            // The group this call is on, for an error to name; its budget.
            b.ins().store(trusted(), idx, group, OFF_GROUP_ID);
            let budget = b.ins().load(types::I64, trusted(), group, OFF_GROUP_BUDGET);
            b.ins().store(trusted(), budget, group, OFF_BUDGET);
            group_ids = Some(([idx, id[1], id[2]], [bx, base[1], base[2]]));
            run_res = Some(b.ins().load(types::I64, trusted(), group, OFF_RES));
            run_loop = Some((grun, idx, bx, gleft, b.create_block()));
        }
        // Where the batch loops end: the run's step, or the return.
        let done = run_loop.map_or(fin, |r| r.4);
        // head(ctx, left): the batch at `ctx`, `left` batches from it to
        // the end of the group (not in group mode, whose regions have a
        // batch loop each).
        let head = b.create_block();
        let pretested = group_plan.is_none() && pretest_on(p, tier, barriers, main_end);
        // The pretested loop (`pretest.rs`): its head, and the probe that
        // chooses between it and the ordinary loop, filled once the loop
        // has been lowered.
        let mut fast = None;
        let (cptr, left) = if group_plan.is_some() {
            (group, count)
        } else {
            let cptr = b.append_block_param(head, types::I64);
            let left = b.append_block_param(head, types::I32);
            if pretested {
                let (probe, fhead) = (b.create_block(), b.create_block());
                let n = b.ins().uextend(types::I64, count);
                let bytes = b.ins().imul_imm_s(n, context::CTX_SIZE);
                let end = b.ins().iadd(group, bytes);
                b.ins().jump(probe, &[]);
                let fctx = b.append_block_param(fhead, types::I64);
                // The batches left: compared with `end` instead, the
                // loop kept that (live across the whole run) in a stack
                // slot, reloaded and stored back every batch.
                let fleft = b.append_block_param(fhead, types::I32);
                // Its batches' lane-0 flattened id, carried from batch to
                // batch in a group that is one row of whole batches
                // (`Lower::preload_ids`); `SM5JIT_NO_OPT=carry` loads it.
                let fid = (group::one_row_of_batches(p) && !opt_off("carry"))
                    .then(|| b.append_block_param(fhead, types::I64));
                b.switch_to_block(fhead);
                fast = Some((probe, fhead, fctx, fleft, fid, end));
            } else {
                b.ins().jump(head, &[arg(group), arg(count)]);
                b.switch_to_block(head);
            }
            (cptr, left)
        };
        // Tier 0 keeps its variables in the batch's save area (`tier0.rs`).
        let slots = (tier == 0).then(|| b.ins().load(types::I64, trusted(), cptr, OFF_SAVE));
        let next = b.create_block();
        let mut lw = Lower {
            b,
            module,
            typed_fns: [typed_fns[0], typed_fns[1], typed_fns[2], typed_fns[3]],
            double_fn,
            preserve_fn,
            imported: Default::default(),
            shim_sig: None,
            p,
            plan,
            ctx: cptr,
            group,
            next,
            regs: Vec::new(),
            exec: [cranelift_frontend::Variable::from_u32(0); N],
            stack: Vec::new(),
            all_vars: Vec::new(),
            resumes: Vec::new(),
            budget_exit,
            at: 0,
            loop_len: loop_lengths(p),
            call_depth: 0,
            inlined: 0,
            tex: sample::TexState::default(),
            stage: stage::StageVars::default(),
            flushed_regs,
            known_flushed: Default::default(),
            slots,
            slot_cache: Vec::new(),
            value_cache: Default::default(),
            hw_flush: fpmode::hw_flush(),
            observed,
            late,
            unobserved: false,
            full_exec: !opt_off("full") && entry_exec_full(p),
            entry_full: !opt_off("full") && entry_exec_full(p),
            full_stack: Vec::new(),
            live: (!opt_off("dead") && idle_lanes_private(p)).then(|| liveness::Liveness::new(p)),
            lane_exits: 0,
            mask_values: Default::default(),
            consecutive: Default::default(),
            consecutive4: Default::default(),
            lane_bound: Default::default(),
            nonneg: Default::default(),
            splats: Default::default(),
            uniform: uniform_on.then(|| uniform::Uniform::new(p, context::W as u32)),
            shadows: Vec::new(),
            consec_base: None,
            bytes_base: None,
            region_uniform: None,
            save_map: None,
            id_floor: None,
            span_full: None,
            idle_lanes: 0,
            known_values: Default::default(),
            id_loads: Default::default(),
            ctx_loads: Default::default(),
            group_ids,
            run_res,
            pretest: None,
            t0: Default::default(),
        };
        if let Some((probe, fhead, fctx, fleft, fid, end)) = fast {
            // The pretested loop first: its flags make the probe.
            let fnext = lw.b.create_block();
            (lw.ctx, lw.next) = (fctx, fnext);
            let mut pretest = pretest::Pretest::new(fctx, p.group_size);
            pretest.fid = fid;
            lw.pretest = Some(pretest);
            lw.batch_start();
            if fid.is_some() {
                lw.preload_ids(fctx);
            }
            lw.body(0, main_end)?;
            lw.forget_ids();
            lw.stage_finish();
            lw.b.ins().jump(fnext, &[]);
            lw.b.switch_to_block(fnext);
            lw.batch_end();
            let following = lw.b.ins().iadd_imm_s(fctx, context::CTX_SIZE);
            let rest = lw.b.ins().iadd_imm_s(fleft, -1);
            let mut back = vec![arg(following), arg(rest)];
            if let Some(fid) = fid {
                back.push(arg(lw.b.ins().iadd_imm_s(fid, context::W as i64)));
            }
            lw.b.ins().brif(rest, fhead, &back, done, &[]);
            // Each loop is entered through a block of its own, where
            // Cranelift puts what it hoists out of that loop: the probe
            // runs none of either loop's invariants.
            lw.b.switch_to_block(probe);
            let last = lw.b.ins().iadd_imm_s(end, -context::CTX_SIZE);
            let (fpre, pre) = (lw.b.create_block(), lw.b.create_block());
            match lw.probe(group, last) {
                Some(ok) => lw.b.ins().brif(ok, fpre, &[], pre, &[]),
                None => lw.b.ins().jump(pre, &[]),
            };
            lw.b.switch_to_block(fpre);
            let mut entering = vec![arg(group), arg(count)];
            if fid.is_some() {
                let first = lw.b.ins().uload32(lower::fixed(), group, context::OFF_FLAT);
                entering.push(arg(first));
            }
            lw.b.ins().jump(fhead, &entering);
            lw.b.switch_to_block(pre);
            lw.b.ins().jump(head, &[arg(group), arg(count)]);
            lw.restart(cptr, next);
            lw.b.switch_to_block(head);
        }
        // Resume id 0 starts at the top; others go through the dispatch,
        // before the variables are initialised: on tier 0 they live in the
        // save area and hold the state a barrier left there; on tier 1 the
        // resume block defines every variable (reloaded or zero).
        if let Some(plan) = &group_plan {
            lw.exec = lw.new_vars();
            lw.declare_registers();
            lw.group_function(plan, count, fin)?;
        } else {
            let dispatch = lw.b.create_block();
            let start = lw.b.create_block();
            let resume = barriers.then(|| lw.b.ins().load(types::I32, trusted(), cptr, OFF_RESUME));
            if let Some(resume) = resume {
                let init = lw.b.create_block();
                lw.b.ins().brif(resume, dispatch, &[], init, &[]);
                lw.b.seal_block(init);
                lw.b.switch_to_block(init);
            }
            lw.batch_start();
            lw.b.ins().jump(start, &[]);
            lw.b.seal_block(start);
            lw.b.switch_to_block(start);
            lw.body(0, main_end)?;
            lw.stage_finish();
            if barriers {
                let done =
                    lw.b.ins()
                        .iconst(types::I32, i64::from(context::RESUME_DONE));
                lw.b.ins().store(trusted(), done, cptr, OFF_RESUME);
            }
            lw.b.ins().jump(next, &[]);
            // The entry dispatch: resume id k resumes after barrier k, a batch
            // that has ended goes to the next one.
            lw.b.switch_to_block(dispatch);
            if let Some(resume) = resume {
                let mut sw = Switch::new();
                for (k, (blk, _)) in lw.resumes.iter().enumerate() {
                    sw.set_entry(k as u128 + 1, *blk);
                }
                // An unknown resume id (never produced) ends the batch too.
                sw.emit(&mut lw.b, resume, next);
            } else {
                lw.b.ins().jump(next, &[]);
            }
            // The next batch, or the next pass over the group's batches.
            lw.b.switch_to_block(next);
            if tier == 1 {
                lw.batch_end();
            }
            let following = lw.b.ins().iadd_imm_s(cptr, context::CTX_SIZE);
            let rest = lw.b.ins().iadd_imm_s(left, -1);
            if barriers {
                let last = lw.b.create_block();
                lw.b.ins()
                    .brif(rest, head, &[arg(following), arg(rest)], last, &[]);
                lw.b.switch_to_block(last);
                let again = lw.b.create_block();
                let w = lw.b.ins().load(types::I32, trusted(), group, OFF_WAITING);
                lw.b.ins().brif(w, again, &[], fin, &[]);
                lw.b.switch_to_block(again);
                let zero = lw.b.ins().iconst(types::I32, 0);
                lw.b.ins().store(trusted(), zero, group, OFF_WAITING);
                lw.b.ins().jump(head, &[arg(group), arg(count)]);
            } else {
                lw.b.ins()
                    .brif(rest, head, &[arg(following), arg(rest)], done, &[]);
            }
        }
        if let Some((grun, idx, bx, gleft, done)) = run_loop {
            // The next group along x, if the run has one.
            lw.b.switch_to_block(done);
            let step = lw.b.create_block();
            let gleft = lw.b.ins().iadd_imm_s(gleft, -1);
            lw.b.ins().brif(gleft, step, &[], fin, &[]);
            lw.b.switch_to_block(step);
            let idx = lw.b.ins().iadd_imm_s(idx, 1);
            let bx = lw.b.ins().iadd_imm_s(bx, i64::from(p.group_size[0]));
            lw.b.ins().jump(grun, &[arg(idx), arg(bx), arg(gleft)]);
        }
        // The budget exit.
        lw.b.switch_to_block(budget_exit);
        let at = lw.b.block_params(budget_exit)[0];
        lw.b.ins().store(trusted(), at, group, OFF_STOPPED_AT);
        let st = lw.b.ins().iconst(types::I32, i64::from(STATUS_BUDGET));
        lw.b.ins().return_(&[st]);
        lw.b.switch_to_block(fin);
        let st = lw.b.ins().iconst(types::I32, i64::from(STATUS_DONE));
        lw.b.ins().return_(&[st]);
        save_slots = match tier {
            0 => lw.all_vars.len(),
            _ if group_plan.is_some() => lw.save_map.as_ref().map_or(0, group::SaveMap::slots),
            _ => lw.resumes.iter().map(|r| r.1).max().unwrap_or(0),
        };
        lw.b.seal_all_blocks();
        let Lower { b, module, t0, .. } = lw;
        alu = (t0.descs, t0.typed, t0.atomics);
        let tc = module.target_config();
        b.finalize(tc);
    }
    if tier != 0 {
        // The pretested loop's decided tests (`pretest.rs`).
        prune::fold_constant_branches(&mut ctx.func);
    }
    if tier != 0 && !opt_off("prune") {
        prune::dead_params(&mut ctx.func);
    }
    ctx.set_disasm(dump);
    module
        .define_function(id, &mut ctx)
        .map_err(|e| JitError::Codegen(format!("{e:?}")))?;
    let code_dump = dump.then(|| CodeDump {
        clif: ctx.func.display().to_string(),
        asm: ctx
            .compiled_code()
            .and_then(|c| c.vcode.clone())
            .unwrap_or_default(),
        code: ctx
            .compiled_code()
            .map(|c| c.code_buffer().to_vec())
            .unwrap_or_default(),
    });
    let size = ctx.compiled_code().map_or(0, |c| c.code_buffer().len());
    module.clear_context(&mut ctx);
    CONTEXTS.with(|c| c.set(Some((ctx, fctx))));
    Ok(Built {
        id,
        save_slots,
        runs,
        resumes,
        alu,
        dump: code_dump,
        size,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loop_cost_is_the_body_length() {
        let p = crate::asm::parse_program(
            "cs_5_0
dcl_temps 1
dcl_thread_group 1, 1, 1
mov r0.x, l(0)
loop
  iadd r0.x, r0.x, l(1)
  breakc_nz r0.x
endloop
ret
",
        )
        .expect("parse");
        let prepared = analysis::prepare(&p).expect("prepare");
        let lens = loop_lengths(&prepared);
        assert_eq!(lens.get(&1), Some(&3));
    }

    #[test]
    fn compile_reports_the_first_unsupported_instruction() {
        let p = crate::asm::parse_program(
            "ps_5_0
dcl_input_ps linear v0.xy
dcl_output o0.xyzw
dcl_temps 1
mov r0.x, l(0.5)
eval_centroid r0.xy, v0.xyxx
mov o0.xyzw, r0.xyxy
ret
",
        )
        .expect("parse");
        let e = JitShader::compile(&p).unwrap_err();
        assert!(
            matches!(&e, JitError::Unsupported { inst_index: 1, .. }),
            "{e}"
        );
    }

    #[test]
    fn the_dump_shows_the_function_and_its_machine_code() {
        let p = crate::asm::parse_program(
            "cs_5_0
dcl_uav_raw u0
dcl_temps 1
dcl_thread_group 8, 1, 1
dcl_input vThreadID.x
ishl r0.x, vThreadID.x, l(2)
store_raw u0.x, r0.x, vThreadID.x
ret
",
        )
        .expect("parse");
        let (_, d) = JitShader::compile_dump(&p).expect("compile");
        assert!(d.clif.starts_with("function "), "{}", d.clif);
        assert!(d.clif.contains("ishl"), "{}", d.clif);
        assert!(d.asm.contains("ret"), "{}", d.asm);
        assert!(d.asm.lines().count() > 10, "{}", d.asm);
    }

    #[test]
    fn dynamically_indexed_ranges_compile() {
        let p = crate::asm::parse_program(
            "cs_5_1
dcl_uav_raw U0[0:1], space=0
dcl_temps 1
dcl_thread_group 1, 1, 1
mov r0.x, l(0)
store_raw U0[r0.x + 0].x, l(0), r0.x
ret
",
        )
        .expect("parse");
        JitShader::compile(&p).expect("SM5.1 ranges compile");
    }
}
