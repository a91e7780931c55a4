//! The fuzz loop behind `sm5jit fuzz`: generate, run on two engines,
//! compare, reduce and save what differs.
//!
//! In: [`FuzzOptions`] (seed, time or program budget, worker threads, engine
//! names). Out: a [`FuzzReport`] (programs, instructions executed, per-opcode
//! generation counts, operand forms, failures with their seeds). Invariant:
//! program `k` of a run is generated from seed `seed + k`, whatever the
//! number of worker threads, so any failure is reproducible from its seed.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::case::{Engine, EngineError, EngineOptions, Resource, SlotClass};
use crate::progress::Progress;
use sm5jit::interp::Interpreter;
use sm5jit::ir::{Components, Index, Modifier, Opcode, OperandType, Program, Selection};
use sm5jit::jit::Tier;
use sm5jit::runtime::{Bindings, BufferKind, BufferView, Format, Slot, View};

use super::compare::{compare_engines, Verdict};
use super::gen::{generate, GenConfig};
use super::inputs::FuzzInputs;
use super::reduce::{reduce, save_reproducer, ReduceOptions, Reproducer};

/// Engines the fuzzer can compare (`--engines a,b`).
pub const ENGINE_NAMES: [&str; 5] = ["interp", "interp2", "jit", "jit0", "jit1"];

/// Budget per group for fuzz programs.
pub const FUZZ_BUDGET: u64 = 1 << 22;

/// The fuzzer's interpreter (`interp`): prepared and bound here, not
/// through the case runner the JIT engine shares, and counting the
/// instructions it executes.
#[derive(Default)]
pub struct CountingInterp {
    prepared: Option<Interpreter>,
    pub instructions: u64,
}

fn buffer_view(r: &Resource) -> Result<View, EngineError> {
    let kind = match r.kind {
        crate::case::spec::ResourceKindSpec::Structured => {
            BufferKind::Structured { stride: r.stride }
        }
        crate::case::spec::ResourceKindSpec::Typed => {
            let name = r.format.as_deref().unwrap_or("");
            BufferKind::Typed(
                Format::from_dxgi_name(name)
                    .ok_or_else(|| EngineError::Unsupported(format!("needs format {name}")))?,
            )
        }
        crate::case::spec::ResourceKindSpec::Texture2d => {
            return Err(EngineError::Unsupported("needs textures".into()))
        }
        _ => BufferKind::Raw,
    };
    Ok(View::Buffer(BufferView {
        kind,
        first_element: u64::from(r.first_element),
        num_elements: u64::from(r.num_elements),
    }))
}

impl Engine for CountingInterp {
    fn name(&self) -> &'static str {
        "interp"
    }

    fn prepare(&mut self, program: &Program) -> Result<(), EngineError> {
        let interp = Interpreter::new(program).map_err(|e| EngineError::Failed(e.to_string()))?;
        self.prepared = Some(interp);
        Ok(())
    }

    fn dispatch(
        &mut self,
        program: &Program,
        resources: &mut [Resource],
        groups: [u32; 3],
    ) -> Result<(), EngineError> {
        if self.prepared.is_none() {
            self.prepare(program)?;
        }
        let views: Vec<View> = resources
            .iter()
            .map(buffer_view)
            .collect::<Result<_, _>>()?;
        let mut counters = Vec::new();
        {
            let mut b = Bindings::new();
            let mut uavs = Vec::new();
            for (i, (r, v)) in resources.iter_mut().zip(views).enumerate() {
                let slot = Slot {
                    space: r.slot.space,
                    index: r.slot.index,
                };
                match (r.slot.class, r.counter) {
                    (SlotClass::ConstantBuffer, _) => {
                        b.cb(slot, &r.data);
                    }
                    (SlotClass::Srv, _) => {
                        b.srv(slot, &r.data, v);
                    }
                    (SlotClass::Uav, Some(c)) => {
                        b.uav_with_counter(slot, &mut r.data, v, c);
                    }
                    (SlotClass::Uav, None) => {
                        b.uav(slot, &mut r.data, v);
                    }
                    (SlotClass::Output, _) => {}
                }
                if r.slot.class == SlotClass::Uav {
                    uavs.push((i, slot));
                }
            }
            let fail = |e: sm5jit::runtime::RuntimeError| EngineError::Failed(e.to_string());
            b.check_fits().map_err(fail)?;
            let interp = self
                .prepared
                .as_ref()
                .ok_or_else(|| EngineError::Failed("not prepared".into()))?;
            let stats = interp
                .dispatch(
                    &mut b,
                    groups,
                    &sm5jit::runtime::DispatchOptions {
                        budget: FUZZ_BUDGET,
                    },
                )
                .map_err(fail)?;
            self.instructions += stats.instructions;
            for (i, slot) in uavs {
                counters.push((i, b.counter(slot)));
            }
        }
        for (i, c) in counters {
            if let (Some(r), Some(c)) = (resources.get_mut(i), c) {
                r.counter = Some(c);
            }
        }
        Ok(())
    }

    fn invoke(
        &mut self,
        _program: &Program,
        _resources: &mut [Resource],
    ) -> Result<Vec<(u32, [u32; 4])>, EngineError> {
        Err(EngineError::Unsupported(
            "the fuzz engine runs compute only".into(),
        ))
    }
}

/// What `sm5jit fuzz` compares unless told otherwise: the reference
/// interpreter, the JIT's tier 0 and its tier 1 (three ways).
pub const DEFAULT_ENGINES: [&str; 3] = ["interp", "jit0", "jit1"];

/// Builds an engine by name (`interp`: [`CountingInterp`]; `interp2`: the
/// case runner's interpreter, a second, independently bound one; `jit`:
/// the Cranelift JIT).
pub fn make_engine(name: &str) -> Result<Box<dyn Engine>, String> {
    match name {
        "interp" => Ok(Box::new(CountingInterp::default())),
        "interp2" => crate::case::interp_engine(EngineOptions {
            budget: Some(FUZZ_BUDGET),
            threads: Some(1),
            ..EngineOptions::default()
        })
        .map_err(|e| e.to_string()),
        "jit" | "jit0" | "jit1" => Ok(Box::new(crate::case::jit::JitEngine::new(EngineOptions {
            budget: Some(FUZZ_BUDGET),
            threads: Some(1),
            tier: match name {
                "jit0" => Tier::Zero,
                "jit1" => Tier::One,
                _ => Tier::Auto,
            },
        }))),
        other => Err(format!(
            "unknown engine `{other}` (known: {})",
            ENGINE_NAMES.join(", ")
        )),
    }
}

/// Settings of one fuzz run.
#[derive(Clone, Debug)]
pub struct FuzzOptions {
    pub seed: u64,
    /// Stop after this long (checked between programs).
    pub duration: Option<Duration>,
    /// Stop after this many programs.
    pub programs: Option<u64>,
    pub threads: usize,
    /// The engines compared (two or more): the first against each other.
    pub engines: Vec<String>,
    /// Where reduced reproducers go.
    pub save: Option<PathBuf>,
    pub gen: GenConfig,
    /// Show a progress bar on stderr when it is a terminal.
    pub progress: bool,
}

impl Default for FuzzOptions {
    fn default() -> FuzzOptions {
        FuzzOptions {
            seed: 1,
            duration: None,
            programs: Some(100),
            threads: 1,
            engines: DEFAULT_ENGINES.map(String::from).to_vec(),
            save: None,
            gen: GenConfig::default(),
            progress: false,
        }
    }
}

/// One program the engines did not agree on (or could not generate).
#[derive(Clone, Debug)]
pub struct Failure {
    pub seed: u64,
    pub what: String,
    /// Where its reduced reproducer was saved.
    pub saved: Option<PathBuf>,
}

/// What a run did.
#[derive(Clone, Debug, Default)]
pub struct FuzzReport {
    /// The engines compared.
    pub engines: Vec<String>,
    pub programs: u64,
    pub budget_outs: u64,
    pub instructions: u64,
    pub opcodes: BTreeMap<Opcode, u64>,
    pub forms: BTreeMap<&'static str, u64>,
    pub failures: Vec<Failure>,
    pub elapsed: Duration,
    /// Texture-sampling pixel programs run (interpreter against JIT).
    pub sampling_programs: u64,
    /// What they covered (`fuzz::sampling::coverage` keys).
    pub sampling: BTreeMap<String, u64>,
}

impl FuzzReport {
    fn merge(&mut self, o: FuzzReport) {
        self.programs += o.programs;
        self.budget_outs += o.budget_outs;
        self.instructions += o.instructions;
        for (k, v) in o.opcodes {
            *self.opcodes.entry(k).or_default() += v;
        }
        for (k, v) in o.forms {
            *self.forms.entry(k).or_default() += v;
        }
        self.failures.extend(o.failures);
        self.sampling_programs += o.sampling_programs;
        for (k, v) in o.sampling {
            *self.sampling.entry(k).or_default() += v;
        }
    }
}

/// The kind of memory access `inst` makes (`raw_uav`, `typed_srv`,
/// `atomic_tgsm`, ...), if it is one.
fn access_form(inst: &sm5jit::ir::Instruction) -> Option<&'static str> {
    use Opcode::*;
    let space = inst
        .operands
        .iter()
        .find(|o| {
            matches!(
                o.ty,
                OperandType::Uav | OperandType::Resource | OperandType::Tgsm
            )
        })?
        .ty;
    let kind = match inst.opcode {
        LdRaw | StoreRaw => 0,
        LdStructured | StoreStructured => 1,
        Ld | LdUavTyped | StoreUavTyped => 2,
        op if op.class() == sm5jit::ir::OpClass::Atomic => 3,
        _ => return None,
    };
    let names = match space {
        OperandType::Uav => ["raw_uav", "structured_uav", "typed_uav", "atomic_uav"],
        OperandType::Resource => ["raw_srv", "structured_srv", "typed_srv", "atomic_srv"],
        _ => ["raw_tgsm", "structured_tgsm", "typed_tgsm", "atomic_tgsm"],
    };
    Some(names[kind])
}

/// Operand forms of a program, counted by name (`swizzle`, `neg`,
/// `rel_cb`, `raw_tgsm`, ...).
pub fn operand_forms(p: &Program, forms: &mut BTreeMap<&'static str, u64>) {
    let mut add = |k: &'static str| *forms.entry(k).or_default() += 1;
    for inst in &p.insts {
        if let Some(f) = access_form(inst) {
            add(f);
        }
        if inst.saturate() {
            add("sat");
        }
        for op in &inst.operands {
            match op.comps {
                Components::Four(Selection::Swizzle(_)) => add("swizzle"),
                Components::Four(Selection::Select1(_)) => add("select_1"),
                Components::Four(Selection::Mask(m)) if m != 0xF => add("partial_mask"),
                _ => {}
            }
            match op.modifier {
                Modifier::Neg => add("neg"),
                Modifier::Abs => add("abs"),
                Modifier::AbsNeg => add("abs_neg"),
                Modifier::None => {}
            }
            if op
                .indices
                .iter()
                .any(|i| !matches!(i, Index::Imm32(_) | Index::Imm64(_)))
            {
                add(match op.ty {
                    OperandType::IndexableTemp => "rel_x",
                    OperandType::ConstantBuffer => "rel_cb",
                    OperandType::ImmConstantBuffer => "rel_icb",
                    _ => "rel_other",
                });
            }
            if op.ty == OperandType::Imm64 {
                add("imm64");
            }
            if op.ty == OperandType::Imm32 {
                for v in &op.imm {
                    add(match *v {
                        v if v & 0x7F80_0000 == 0x7F80_0000 && v & 0x007F_FFFF != 0 => "imm_nan",
                        0x7F80_0000 | 0xFF80_0000 => "imm_inf",
                        0 => "imm_zero",
                        0x8000_0000 => "imm_neg_zero_int_min",
                        v if v & 0x7F80_0000 == 0 => "imm_denormal",
                        _ => "imm_other",
                    });
                }
            }
        }
    }
}

/// One engine of a comparison; the fuzzer's interpreter is kept by value
/// so its instruction count can be read afterwards.
enum Side {
    Counting(Box<CountingInterp>),
    Other(Box<dyn Engine>),
}

impl Side {
    fn new(name: &str) -> Result<Side, String> {
        Ok(match name {
            "interp" => Side::Counting(Box::default()),
            other => Side::Other(make_engine(other)?),
        })
    }

    fn engine(&mut self) -> &mut dyn Engine {
        match self {
            Side::Counting(c) => c.as_mut(),
            Side::Other(e) => e.as_mut(),
        }
    }

    fn instructions(&self) -> Option<u64> {
        match self {
            Side::Counting(c) => Some(c.instructions),
            Side::Other(_) => None,
        }
    }
}

/// Prefix of a sampling program's failure (it has no compute reproducer).
const SAMPLING_FAILURE: &str = "sampling program: ";

/// Runs the texture-sampling pixel program of `seed` on the interpreter
/// and the JIT (`fuzz::sampling`), when the run compares the interpreter
/// with a JIT.
fn one_sampling(seed: u64, opts: &FuzzOptions, report: &mut FuzzReport) -> Result<(), String> {
    let jit = opts.engines.iter().any(|e| e != "interp");
    if !jit || !opts.engines.iter().any(|e| e == "interp") {
        return Ok(());
    }
    let p = super::sampling::generate_sampling(seed);
    super::sampling::coverage(&p, &mut report.sampling);
    report.sampling_programs += 1;
    super::sampling::compare_sampling(&p).map_err(|e| format!("{SAMPLING_FAILURE}{e}"))
}

/// Runs one generated program; returns the verdict (or the generator's error).
fn one(seed: u64, opts: &FuzzOptions, report: &mut FuzzReport) -> Result<(), String> {
    one_sampling(seed, opts, report)?;
    let g = generate(seed, &opts.gen).map_err(|e| e.to_string())?;
    for inst in &g.program.insts {
        *report.opcodes.entry(inst.opcode).or_default() += 1;
    }
    operand_forms(&g.program, &mut report.forms);
    if sm5jit::jit::runs_group_level(&g.program) {
        *report.forms.entry("group_level").or_default() += 1;
    }
    if sm5jit::jit::runs_region_pretested(&g.program) {
        *report.forms.entry("region_pretested").or_default() += 1;
    }
    if sm5jit::jit::runs_recomputed(&g.program) {
        *report.forms.entry("group_recomputed").or_default() += 1;
    }
    if sm5jit::jit::runs_pretested(&g.program) {
        *report.forms.entry("pretested").or_default() += 1;
    }
    for (k, v) in &g.forms {
        *report.forms.entry(k).or_default() += v;
    }
    // The first engine against each other one, each pair on fresh engines.
    let mut verdict = Verdict::Agree;
    let mut instructions = None;
    for name in &opts.engines[1..] {
        let mut a = Side::new(&opts.engines[0])?;
        let mut b = Side::new(name)?;
        let v = compare_engines(a.engine(), b.engine(), &g.program, &g.inputs);
        instructions = instructions.or(a.instructions()).or(b.instructions());
        match v {
            Verdict::Agree => {}
            Verdict::BothOutOfBudget => verdict = v,
            _ => {
                verdict = v;
                break;
            }
        }
    }
    report.instructions += instructions.unwrap_or(0);
    report.programs += 1;
    match verdict {
        Verdict::Agree => Ok(()),
        Verdict::BothOutOfBudget => {
            report.budget_outs += 1;
            Ok(())
        }
        Verdict::Differ(d) => Err(format!("engines differ: {d}")),
        Verdict::Error { engine, message } => Err(format!("{engine} failed: {message}")),
    }
}

/// True when the first named engine and any other do not agree on `p`
/// with `inputs`.
pub fn engines_disagree(engines: &[String], p: &Program, inputs: &FuzzInputs) -> bool {
    let Some((first, rest)) = engines.split_first() else {
        return false;
    };
    rest.iter()
        .any(|other| match (make_engine(first), make_engine(other)) {
            (Ok(mut a), Ok(mut b)) => !compare_engines(a.as_mut(), b.as_mut(), p, inputs).agrees(),
            _ => false,
        })
}

fn record_failure(seed: u64, what: String, opts: &FuzzOptions) -> Failure {
    let compute = !what.starts_with(SAMPLING_FAILURE);
    let saved = opts.save.as_ref().filter(|_| compute).and_then(|dir| {
        let g = generate(seed, &opts.gen).ok()?;
        let start = Reproducer {
            program: g.program,
            inputs: g.inputs,
        };
        let engines = opts.engines.clone();
        let mut fails = |p: &Program, i: &FuzzInputs| engines_disagree(&engines, p, i);
        let small = reduce(start, &mut fails, ReduceOptions::default());
        let path = dir.join(format!("seed-{seed}"));
        save_reproducer(&path, &small, &format!("seed {seed}: {what}")).ok()?;
        Some(path)
    });
    Failure { seed, what, saved }
}

/// Runs the fuzz loop until the time or program budget is used up.
pub fn fuzz(opts: &FuzzOptions) -> FuzzReport {
    let start = Instant::now();
    let next = AtomicU64::new(0);
    let total = Mutex::new(FuzzReport::default());
    let done = AtomicU64::new(0);
    let mismatches = AtomicU64::new(0);
    let keep_going = |k: u64| {
        opts.programs.is_none_or(|n| k < n) && opts.duration.is_none_or(|d| start.elapsed() < d)
    };
    std::thread::scope(|s| {
        for _ in 0..opts.threads.max(1) {
            s.spawn(|| {
                let mut mine = FuzzReport::default();
                loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    if !keep_going(k) {
                        break;
                    }
                    let seed = opts.seed.wrapping_add(k);
                    if let Err(what) = one(seed, opts, &mut mine) {
                        mismatches.fetch_add(1, Ordering::Relaxed);
                        mine.failures.push(record_failure(seed, what, opts));
                    }
                    done.fetch_add(1, Ordering::Relaxed);
                }
                if let Ok(mut t) = total.lock() {
                    t.merge(mine);
                }
            });
        }
        if opts.progress {
            show_progress(opts, start, &done, &mismatches);
        }
    });
    let mut report = total.into_inner().unwrap_or_default();
    report.engines = opts.engines.clone();
    report.failures.sort_by_key(|f| f.seed);
    report.elapsed = start.elapsed();
    report
}

/// Draws a progress bar on a terminal until the run ends: over the
/// programs when their number is bounded, else over the seconds. Prints
/// nothing when stderr is not a terminal.
fn show_progress(opts: &FuzzOptions, start: Instant, done: &AtomicU64, mismatches: &AtomicU64) {
    let bar = match (opts.programs, opts.duration) {
        (Some(n), _) => Progress::new(n, "programs"),
        (None, Some(d)) => Progress::new(d.as_secs(), "s"),
        (None, None) => Progress::hidden(),
    };
    if !bar.visible() {
        return;
    }
    while done.load(Ordering::Relaxed) < opts.programs.unwrap_or(u64::MAX)
        && opts.duration.is_none_or(|d| start.elapsed() < d)
    {
        std::thread::sleep(Duration::from_millis(100));
        let n = done.load(Ordering::Relaxed);
        bar.set_position(if opts.programs.is_some() {
            n
        } else {
            start.elapsed().as_secs()
        });
        bar.set_message(format!(
            "{n} programs, {:.0}/s, {} mismatches",
            n as f64 / start.elapsed().as_secs_f64().max(1e-9),
            mismatches.load(Ordering::Relaxed)
        ));
    }
    bar.finish();
}

/// The summary printed at the end of `sm5jit fuzz`.
pub fn summary(r: &FuzzReport, coverage: bool) -> String {
    let mut s = format!(
        "{} programs in {:.1} s ({:.0}/s) on {} against {}, {} instructions executed, {} out of budget, {} mismatches\n",
        r.programs,
        r.elapsed.as_secs_f64(),
        r.programs as f64 / r.elapsed.as_secs_f64().max(1e-9),
        r.engines.first().map_or("", String::as_str),
        r.engines.get(1..).unwrap_or_default().join(" and "),
        r.instructions,
        r.budget_outs,
        r.failures.len()
    );
    let forms: Vec<String> = r.forms.iter().map(|(k, v)| format!("{k} {v}")).collect();
    s.push_str(&format!("operand forms: {}\n", forms.join(", ")));
    let list = super::gen::generated_opcodes();
    let hit = list.iter().filter(|op| r.opcodes.contains_key(op)).count();
    s.push_str(&format!("opcodes generated: {hit} of {}\n", list.len()));
    s.push_str(&sampling_line(r));
    if coverage {
        for (op, n) in &r.opcodes {
            s.push_str(&format!("  {:<20} {n}\n", op.mnemonic()));
        }
        for op in list.iter().filter(|op| !r.opcodes.contains_key(op)) {
            s.push_str(&format!("  {:<20} 0 (never generated)\n", op.mnemonic()));
        }
    }
    for f in &r.failures {
        s.push_str(&format!("seed {}: {}", f.seed, f.what));
        if let Some(p) = &f.saved {
            s.push_str(&format!(" (reproducer: {})", p.display()));
        }
        s.push('\n');
    }
    s
}

/// The sampling coverage line: programs, then each sampling
/// instruction, format, address mode, filter and dimension with its count.
fn sampling_line(r: &FuzzReport) -> String {
    let group = |prefix: &str| {
        let items: Vec<String> = r
            .sampling
            .iter()
            .filter_map(|(k, v)| Some(format!("{} {v}", k.strip_prefix(prefix)?)))
            .collect();
        items.join(", ")
    };
    format!(
        "sampling: {} programs; instructions: {}; formats: {}; address modes: {}; filters: {}; dimensions: {}\n",
        r.sampling_programs,
        group("inst:"),
        group("format:"),
        group("address:"),
        group("filter:"),
        group("dim:")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_run_agrees_and_counts() {
        let r = fuzz(&FuzzOptions {
            programs: Some(20),
            threads: 2,
            ..FuzzOptions::default()
        });
        assert_eq!(r.programs, 20, "{}", summary(&r, false));
        assert!(r.failures.is_empty(), "{}", summary(&r, false));
        assert!(r.instructions > 0);
        assert!(r.forms.contains_key("swizzle"));
        assert_eq!(r.sampling_programs, 20);
        assert!(summary(&r, false).contains("sampling: 20 programs; instructions: "));
        assert!(make_engine("nope").is_err());
    }
}
