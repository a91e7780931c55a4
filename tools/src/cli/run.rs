//! `sm5jit run`, `sm5jit case`, the bundled showcase and `info`'s summary.
//!
//! In: parsed options. Out: text or JSON on stdout, timings, exit codes.
//! Invariant: resources are built once from the SPECs and each engine runs
//! on its own copy, so `--engine both` compares like with like; nothing
//! here knows how an engine executes.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use clap::{Args, ValueEnum};

use super::binding::parse_binding;
use super::error::{CliError, ExitCode};
use super::front::{self, Loaded, SourceFormat};
use super::{CaseArgs, EngineChoice, TierArg, DEFAULT_ENGINE};
use crate::case::spec::ResourceKindSpec;
use crate::case::{
    self, CaseReport, Engine, EngineOptions, Outcome, Resource, SlotClass, SlotRef, Summary,
};
use crate::progress::Progress;
use sm5jit::ir::{Decl, Program, ProgramKind};

/// Output format of `run`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    #[default]
    Text,
    Json,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// Shader (.dxbc or .asm): compute, vertex or pixel; `-` reads stdin. Absent: the bundled showcase.
    pub shader: Option<String>,
    /// Thread groups to dispatch, X,Y,Z (default 1,1,1; with --synthetic 2,1,1).
    #[arg(long, value_parser = parse_groups)]
    pub groups: Option<[u32; 3]>,
    /// Bind every declared cb#, t# and u# to deterministic pseudo-random
    /// contents; --uav/--srv/--cb override single slots.
    #[arg(long)]
    pub synthetic: bool,
    /// Bind a UAV: u0=raw:zeros:1024, u1=structured:16:zeros:64, u2=typed:R32_FLOAT:f32:1,2.
    #[arg(long = "uav", value_name = "SLOT=SPEC")]
    pub uavs: Vec<String>,
    /// Bind an SRV: t0=raw:file:data.bin, t1=structured:8:iota:32.
    #[arg(long = "srv", value_name = "SLOT=SPEC")]
    pub srvs: Vec<String>,
    /// Bind a constant buffer: cb0=u32:1,2,3 or cb0=f32:0.5,2.
    #[arg(long = "cb", value_name = "SLOT=SPEC")]
    pub cbs: Vec<String>,
    /// Initial hidden counter of a UAV: u0=8.
    #[arg(long = "counter", value_name = "SLOT=N")]
    pub counters: Vec<String>,
    /// Engine to run on.
    #[arg(long, value_enum, default_value_t = DEFAULT_ENGINE)]
    pub engine: EngineChoice,
    /// JIT tier: 0 (fast compile), 1 (optimised) or auto (0, then 1 in the background).
    #[arg(long, value_enum, default_value_t = TierArg::Auto)]
    pub tier: TierArg,
    /// Worker threads (default and 0: one per core).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Instruction budget per invocation; a shader that runs longer is stopped.
    #[arg(long)]
    pub budget: Option<u64>,
    /// Print all of a UAV (u0), or save its bytes (u0=FILE, `-` for stdout).
    #[arg(long = "dump", value_name = "SLOT[=FILE]")]
    pub dumps: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
    #[command(flatten)]
    pub code: super::codedump::CodeDumpArgs,
    /// Vertex shaders: invocations to run (default 4).
    #[arg(long)]
    pub vertices: Option<usize>,
    /// Pixel shaders: a WxH grid of 2x2 quads, SV_Position at pixel centres (default 8x8).
    #[arg(long, value_parser = super::stage::parse_pixels)]
    pub pixels: Option<[u32; 2]>,
    /// Vertex/pixel shaders: an input register, v1=f32:A,B,C,D (or u32:, i32:, synthetic, index).
    #[arg(long = "input", value_name = "vN=SPEC")]
    pub inputs: Vec<String>,
    /// Pixel shaders: write o0 over the grid as an RGBA8 PNG.
    #[arg(long, value_name = "FILE.png")]
    pub image: Option<String>,
    /// Pixel shaders: samples per pixel of the render target (sampleinfo/samplepos on rasterizer).
    #[arg(long, default_value_t = 1)]
    pub samples: u32,
}

impl Default for RunArgs {
    fn default() -> RunArgs {
        RunArgs {
            shader: None,
            groups: None,
            synthetic: false,
            uavs: Vec::new(),
            srvs: Vec::new(),
            cbs: Vec::new(),
            counters: Vec::new(),
            engine: DEFAULT_ENGINE,
            tier: TierArg::Auto,
            threads: None,
            budget: None,
            dumps: Vec::new(),
            format: OutputFormat::Text,
            code: Default::default(),
            vertices: None,
            pixels: None,
            inputs: Vec::new(),
            image: None,
            samples: 1,
        }
    }
}

/// Parses `X,Y,Z` (each at least 0; D3D allows up to 65535).
pub fn parse_groups(s: &str) -> Result<[u32; 3], String> {
    let parts: Vec<&str> = s.split(',').collect();
    if parts.len() != 3 {
        return Err(format!("`{s}`: expected X,Y,Z"));
    }
    let mut out = [0u32; 3];
    for (o, p) in out.iter_mut().zip(parts) {
        *o = p
            .trim()
            .parse()
            .map_err(|_| format!("`{p}` is not a group count"))?;
        if *o > 65535 {
            return Err(format!("{o} groups is more than D3D's 65535 per dimension"));
        }
    }
    Ok(out)
}

/// The engines `choice` names, in the order they run.
pub fn make_engines(
    choice: EngineChoice,
    opts: EngineOptions,
) -> Result<Vec<Box<dyn Engine>>, CliError> {
    match choice {
        EngineChoice::Interp => Ok(vec![interp_engine(opts)?]),
        EngineChoice::Jit => Ok(vec![jit_engine(opts)?]),
        EngineChoice::Both => Ok(vec![interp_engine(opts)?, jit_engine(opts)?]),
    }
}

fn interp_engine(opts: EngineOptions) -> Result<Box<dyn Engine>, CliError> {
    case::interp_engine(opts).map_err(|e| CliError::runtime(e.to_string()))
}

fn jit_engine(opts: EngineOptions) -> Result<Box<dyn Engine>, CliError> {
    Ok(Box::new(crate::case::jit::JitEngine::new(opts)))
}

fn engine_error(engine: &dyn Engine, e: case::EngineError) -> CliError {
    CliError::runtime(format!("{}: {e}", engine.name()))
}

/// What one engine did.
struct EngineRun {
    name: &'static str,
    compile: Duration,
    dispatch: Duration,
    resources: Vec<Resource>,
}

fn run_engine(
    engine: &mut dyn Engine,
    program: &Program,
    resources: &[Resource],
    groups: [u32; 3],
) -> Result<EngineRun, CliError> {
    let mut resources = resources.to_vec();
    let t = Instant::now();
    engine
        .prepare(program)
        .map_err(|e| engine_error(engine, e))?;
    let compile = t.elapsed();
    let t = Instant::now();
    engine
        .dispatch(program, &mut resources, groups)
        .map_err(|e| engine_error(engine, e))?;
    Ok(EngineRun {
        name: engine.name(),
        compile,
        dispatch: t.elapsed(),
        resources,
    })
}

/// The budget of a `--synthetic` run without `--budget`: real shaders
/// (bgfx's atmospheric scattering, n-body) run up to ~30 million
/// instructions per group on synthetic inputs, past the runtime's default;
/// a runaway loop still stops, in seconds on the interpreter.
pub const SYNTHETIC_BUDGET: u64 = 1 << 26;

/// Groups `run` dispatches: `--groups`, else 2,1,1 with `--synthetic`, else 1,1,1.
/// Groups past which `run` warns that the dispatch may take long (it shows
/// no progress): 2^20, about a million.
pub const MANY_GROUPS: u64 = 1 << 20;

fn warn_many_groups(g: [u32; 3]) {
    if let Some(w) = many_groups_warning(g) {
        eprintln!("{w}");
    }
}

/// The warning for a dispatch of more than [`MANY_GROUPS`] groups.
fn many_groups_warning(g: [u32; 3]) -> Option<String> {
    let total = g.iter().map(|&n| u64::from(n)).product::<u64>();
    (total > MANY_GROUPS).then(|| {
        format!(
            "warning: {total} groups ({} x {} x {}); this may run for a long time and shows \
             no progress (Ctrl-C stops it)",
            g[0], g[1], g[2]
        )
    })
}

/// Warns about each binding at a slot the program declares nothing at: it
/// is never read, which is usually a typo in the slot.
fn warn_undeclared(p: &Program, resources: &[Resource]) {
    for r in resources {
        if !declares(p, r.slot) {
            let name = slot_name(r.slot);
            eprintln!(
                "warning: {name} is bound but the shader declares no {name}; the binding is unused"
            );
        }
    }
}

/// True if a declaration of `p` covers `slot` (SM5.1: its register range
/// in its space).
fn declares(p: &Program, slot: SlotRef) -> bool {
    let sm51 = (p.version.major, p.version.minor) >= (5, 1);
    p.decls.iter().any(|d| {
        let (class, op, space) = match d {
            Decl::ConstantBuffer(cb) => (SlotClass::ConstantBuffer, &cb.op, cb.space),
            Decl::Resource(r) => (SlotClass::Srv, &r.op, r.space),
            Decl::ResourceRaw { op, space, .. } | Decl::ResourceStructured { op, space, .. } => {
                (SlotClass::Srv, op, *space)
            }
            Decl::UavTyped(u) => (SlotClass::Uav, &u.op, u.space),
            Decl::UavStructured(u) => (SlotClass::Uav, &u.op, u.space),
            Decl::UavRaw { op, space, .. } => (SlotClass::Uav, op, *space),
            _ => return false,
        };
        if class != slot.class {
            return false;
        }
        if sm51 {
            let (lo, hi) = (op.imm_index(1), op.imm_index(2));
            space == slot.space
                && lo.is_some_and(|lo| lo <= slot.index)
                && hi.is_some_and(|hi| slot.index <= hi)
        } else {
            op.imm_index(0) == Some(slot.index)
        }
    })
}

fn slot_name(slot: SlotRef) -> String {
    let class = match slot.class {
        SlotClass::Uav => "u",
        SlotClass::Srv => "t",
        SlotClass::ConstantBuffer => "cb",
        SlotClass::Output => "o",
    };
    format!("{class}{}", slot.index)
}

fn kind_name(k: ResourceKindSpec) -> &'static str {
    match k {
        ResourceKindSpec::Raw => "raw",
        ResourceKindSpec::Structured => "structured",
        ResourceKindSpec::Typed => "typed",
        _ => "another kind",
    }
}

fn effective_groups(a: &RunArgs) -> [u32; 3] {
    a.groups
        .unwrap_or(if a.synthetic { [2, 1, 1] } else { [1, 1, 1] })
}

/// The resources of a run: the explicit bindings, plus (with
/// `--synthetic`) a synthetic one for every declared slot they leave free.
fn bindings(a: &RunArgs, synthetic: Vec<Resource>) -> Result<Vec<Resource>, CliError> {
    let mut out = Vec::new();
    for (list, class) in [
        (&a.uavs, SlotClass::Uav),
        (&a.srvs, SlotClass::Srv),
        (&a.cbs, SlotClass::ConstantBuffer),
    ] {
        for text in list {
            let r = parse_binding(text, class)?;
            if out.iter().any(|o: &Resource| o.slot == r.slot) {
                return Err(CliError::usage(format!("slot bound twice: `{text}`")));
            }
            out.push(r);
        }
    }
    for r in synthetic {
        if !out.iter().any(|o: &Resource| o.slot == r.slot) {
            out.push(r);
        }
    }
    for text in &a.counters {
        let (slot, n) = text
            .split_once('=')
            .ok_or_else(|| CliError::usage(format!("bad counter `{text}`: expected u#=N")))?;
        let n: u32 = n
            .parse()
            .map_err(|_| CliError::usage(format!("bad counter `{text}`: `{n}` is not a count")))?;
        let r = out
            .iter_mut()
            .find(|r| r.slot.class == SlotClass::Uav && format!("u{}", r.slot.index) == slot)
            .ok_or_else(|| CliError::usage(format!("counter for unbound UAV `{slot}`")))?;
        if r.kind != ResourceKindSpec::Structured {
            return Err(CliError::usage(format!(
                "counter for `{slot}`: D3D has hidden counters only on structured UAVs, \
                 and {slot} is bound as {}",
                kind_name(r.kind)
            )));
        }
        r.counter = Some(n);
    }
    Ok(out)
}

/// `sm5jit run`.
pub fn run(a: &RunArgs) -> Result<ExitCode, CliError> {
    let Some(path) = &a.shader else {
        if !(a.uavs.is_empty()
            && a.srvs.is_empty()
            && a.cbs.is_empty()
            && a.dumps.is_empty()
            && !a.synthetic)
        {
            return Err(CliError::usage(
                "--uav, --srv, --cb, --dump and --synthetic need a SHADER (without one, run shows the bundled showcase)",
            ));
        }
        return showcase(a);
    };
    let name = front::display_name(path);
    let loaded = front::load(path, false)?;
    front::validate(&name, &loaded.program)?;
    let kind = loaded.program.version.kind;
    if !matches!(
        kind,
        ProgramKind::Compute | ProgramKind::Vertex | ProgramKind::Pixel
    ) {
        return Err(CliError::input(
            name,
            format!(
                "`run` runs compute, vertex and pixel shaders, this is {}",
                model(&loaded.program)
            ),
        ));
    }
    let stage_only =
        a.vertices.is_some() || a.pixels.is_some() || !a.inputs.is_empty() || a.image.is_some();
    if kind == ProgramKind::Compute && stage_only {
        return Err(CliError::usage(
            "--vertices, --pixels, --input and --image are for vertex and pixel shaders",
        ));
    }
    if let Some(why) = case::unsupported_reason(&loaded.program) {
        return Err(CliError::runtime(format!("cannot run {name}: it {why}")));
    }
    let synthetic = if a.synthetic {
        case::synthetic_resources(&loaded.program).map_err(|e| CliError::input(name.clone(), e))?
    } else {
        Vec::new()
    };
    let resources = bindings(a, synthetic)?;
    warn_undeclared(&loaded.program, &resources);
    warn_many_groups(effective_groups(a));
    if kind != ProgramKind::Compute {
        super::codedump::dump(&name, &loaded.program, &a.code, a.tier.into())?;
        return super::stage::run_stage(a, &name, &loaded, &resources);
    }
    check_dumps(a, &resources)?;
    super::codedump::dump(&name, &loaded.program, &a.code, a.tier.into())?;
    let opts = EngineOptions {
        budget: a.budget.or(a.synthetic.then_some(SYNTHETIC_BUDGET)),
        threads: a.threads,
        tier: a.tier.into(),
    };
    let mut runs = Vec::new();
    for mut engine in make_engines(a.engine, opts)? {
        runs.push(run_engine(
            engine.as_mut(),
            &loaded.program,
            &resources,
            effective_groups(a),
        )?);
    }
    let disagreement = compare_runs(&runs);
    if let Some(first) = runs.first() {
        write_dumps(a, first)?;
    }
    match a.format {
        OutputFormat::Text => print_text(&name, &loaded.program, a, &runs)?,
        OutputFormat::Json => print_json(&name, &loaded.program, a, &runs, &disagreement)?,
    }
    match disagreement {
        Some(d) => Err(CliError::failed(format!("engines disagree: {d}"))),
        None => {
            if runs.len() > 1 && a.format == OutputFormat::Text {
                let names: Vec<&str> = runs.iter().map(|r| r.name).collect();
                println!("{}: identical bytes in every UAV", names.join(" and "));
            }
            Ok(ExitCode::Ok)
        }
    }
}

fn model(p: &Program) -> String {
    format!(
        "{}_{}_{}",
        p.version.kind.prefix(),
        p.version.major,
        p.version.minor
    )
}

fn words(bytes: &[u8]) -> impl Iterator<Item = u32> + '_ {
    bytes.chunks(4).map(|c| {
        c.iter()
            .rev()
            .fold(0u32, |acc, b| (acc << 8) | u32::from(*b))
    })
}

/// The first UAV word on which two engines differ.
fn compare_runs(runs: &[EngineRun]) -> Option<String> {
    let (first, rest) = runs.split_first()?;
    for other in rest {
        for (a, b) in first.resources.iter().zip(&other.resources) {
            if a.slot.class != SlotClass::Uav {
                continue;
            }
            if let Some((i, (x, y))) = words(&a.data)
                .zip(words(&b.data))
                .enumerate()
                .find(|(_, (x, y))| x != y)
            {
                return Some(format!(
                    "u{} word {i}: {} 0x{x:08x}, {} 0x{y:08x}",
                    a.slot.index, first.name, other.name
                ));
            }
            if a.counter != b.counter {
                return Some(format!(
                    "u{} counter: {} {:?}, {} {:?}",
                    a.slot.index, first.name, a.counter, other.name, b.counter
                ));
            }
        }
    }
    None
}

/// Words printed per UAV when it is not named by `--dump`.
const SHOWN_WORDS: usize = 64;

fn hex_block(out: &mut String, bytes: &[u8], limit: usize) {
    let all: Vec<u32> = words(bytes).collect();
    for (row, chunk) in all.chunks(8).take(limit.div_ceil(8)).enumerate() {
        let _ = write!(out, "  {:04x}:", row * 8);
        for w in chunk {
            let _ = write!(out, " {w:08x}");
        }
        out.push('\n');
    }
    if all.len() > limit {
        let _ = writeln!(out, "  ... {} more words", all.len() - limit);
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// `--dump` entries: (slot name, optional file).
fn dump_targets(a: &RunArgs) -> Vec<(String, Option<String>)> {
    a.dumps
        .iter()
        .map(|d| match d.split_once('=') {
            Some((s, f)) => (s.to_string(), Some(f.to_string())),
            None => (d.clone(), None),
        })
        .collect()
}

/// Every `--dump` slot must name a bound UAV (checked before running).
fn check_dumps(a: &RunArgs, resources: &[Resource]) -> Result<(), CliError> {
    for (slot, _) in dump_targets(a) {
        let bound = resources
            .iter()
            .any(|r| r.slot.class == SlotClass::Uav && format!("u{}", r.slot.index) == slot);
        if !bound {
            return Err(CliError::usage(format!(
                "--dump {slot}: no such UAV is bound"
            )));
        }
    }
    Ok(())
}

/// Writes the UAVs named by `--dump u#=FILE`.
fn write_dumps(a: &RunArgs, run: &EngineRun) -> Result<(), CliError> {
    for (slot, file) in dump_targets(a) {
        let Some(file) = file else { continue };
        let res = run
            .resources
            .iter()
            .find(|r| r.slot.class == SlotClass::Uav && format!("u{}", r.slot.index) == slot);
        if let Some(res) = res {
            front::write_output(&file, &res.data)?;
        }
    }
    Ok(())
}

fn print_text(
    name: &str,
    program: &Program,
    a: &RunArgs,
    runs: &[EngineRun],
) -> Result<(), CliError> {
    let dumps = dump_targets(a);
    let to_stdout = dumps.iter().any(|(_, f)| f.as_deref() == Some("-"));
    let mut out = String::new();
    let [x, y, z] = effective_groups(a);
    let _ = writeln!(
        out,
        "{name}: {}, {} instructions, groups {x},{y},{z}",
        model(program),
        program.insts.len()
    );
    for r in runs {
        let _ = writeln!(
            out,
            "{}: compile {:.3} ms, dispatch {:.3} ms",
            r.name,
            ms(r.compile),
            ms(r.dispatch)
        );
    }
    let Some(run) = runs.first() else {
        return Ok(());
    };
    for res in run
        .resources
        .iter()
        .filter(|r| r.slot.class == SlotClass::Uav)
    {
        let slot = format!("u{}", res.slot.index);
        let dump = dumps.iter().find(|(s, _)| *s == slot);
        if let Some((_, Some(_))) = dump {
            continue;
        }
        let counter = res
            .counter
            .map_or(String::new(), |c| format!(", counter {c}"));
        let _ = writeln!(out, "{slot}: {} bytes{counter}", res.data.len());
        let limit = if dump.is_some() {
            usize::MAX
        } else {
            SHOWN_WORDS
        };
        hex_block(&mut out, &res.data, limit);
    }
    if !to_stdout {
        print!("{out}");
    }
    Ok(())
}

fn print_json(
    name: &str,
    program: &Program,
    a: &RunArgs,
    runs: &[EngineRun],
    disagreement: &Option<String>,
) -> Result<(), CliError> {
    let engines: Vec<serde_json::Value> = runs
        .iter()
        .map(|r| {
            serde_json::json!({
                "engine": r.name,
                "compile_ms": ms(r.compile),
                "dispatch_ms": ms(r.dispatch),
            })
        })
        .collect();
    let uavs: Vec<serde_json::Value> = runs
        .first()
        .map(|r| {
            r.resources
                .iter()
                .filter(|x| x.slot.class == SlotClass::Uav)
                .map(|x| {
                    serde_json::json!({
                        "slot": format!("u{}", x.slot.index),
                        "bytes": x.data.len(),
                        "counter": x.counter,
                        "words": words(&x.data).collect::<Vec<u32>>(),
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    let doc = serde_json::json!({
        "shader": name,
        "model": model(program),
        "instructions": program.insts.len(),
        "groups": effective_groups(a),
        "engines": engines,
        "uavs": uavs,
        "disagreement": disagreement,
    });
    if !dump_targets(a)
        .iter()
        .any(|(_, f)| f.as_deref() == Some("-"))
    {
        println!("{doc:#}");
    }
    Ok(())
}

/// The bundled showcase: a Mandelbrot set computed by a compute shader
/// written in SM5 assembly, printed as ASCII art.
pub const SHOWCASE_ASM: &str = include_str!("../../../examples/showcase.asm");

const SHOW_W: u32 = 72;
const SHOW_H: u32 = 28;
const SHOW_ITER: u32 = 200;

fn showcase(a: &RunArgs) -> Result<ExitCode, CliError> {
    let name = "examples/showcase.asm";
    let t = Instant::now();
    let program = front::parse(name, SHOWCASE_ASM)?;
    front::validate(name, &program)?;
    let parse_time = t.elapsed();
    super::codedump::dump(name, &program, &a.code, a.tier.into())?;
    let (x0, y0, x1, y1) = (-2.2f32, -1.2f32, 0.8f32, 1.2f32);
    let dx = (x1 - x0) / SHOW_W as f32;
    let dy = (y1 - y0) / SHOW_H as f32;
    // Sample pixel centres: the window's corner plus half a pixel.
    let cb_words = [
        SHOW_W,
        SHOW_H,
        SHOW_ITER,
        0,
        (x0 + dx / 2.0).to_bits(),
        (y0 + dy / 2.0).to_bits(),
        dx.to_bits(),
        dy.to_bits(),
    ];
    let cb = parse_binding(
        &format!("cb0=u32:{}", cb_words.map(|w| w.to_string()).join(",")),
        SlotClass::ConstantBuffer,
    )?;
    let u0 = parse_binding(
        &format!("u0=raw:zeros:{}", SHOW_W * SHOW_H * 4),
        SlotClass::Uav,
    )?;
    let groups = [SHOW_W.div_ceil(8), SHOW_H.div_ceil(8), 1];
    let opts = EngineOptions {
        budget: a.budget.or(a.synthetic.then_some(SYNTHETIC_BUDGET)),
        threads: a.threads,
        tier: a.tier.into(),
    };
    let mut runs = Vec::new();
    for mut engine in make_engines(a.engine, opts)? {
        runs.push(run_engine(
            engine.as_mut(),
            &program,
            &[cb.clone(), u0.clone()],
            groups,
        )?);
    }
    if let Some(d) = compare_runs(&runs) {
        return Err(CliError::failed(format!("engines disagree: {d}")));
    }
    let Some(first) = runs.first() else {
        return Ok(ExitCode::Ok);
    };
    let counts: Vec<u32> = words(&first.resources[1].data).collect();
    if a.format == OutputFormat::Json {
        let doc = serde_json::json!({
            "showcase": "mandelbrot",
            "width": SHOW_W,
            "height": SHOW_H,
            "iterations": counts,
            "engines": runs.iter().map(|r| serde_json::json!({
                "engine": r.name, "compile_ms": ms(r.compile), "dispatch_ms": ms(r.dispatch)
            })).collect::<Vec<_>>(),
        });
        println!("{doc:#}");
        return Ok(ExitCode::Ok);
    }
    println!(
        "sm5jit showcase: the Mandelbrot set, {SHOW_W}x{SHOW_H} pixels, up to {SHOW_ITER} iterations each,"
    );
    println!(
        "computed by a {}-instruction {} compute shader (examples/showcase.asm).",
        program.insts.len(),
        model(&program)
    );
    println!();
    print!("{}", render(&counts, SHOW_W as usize, SHOW_ITER));
    println!();
    println!("parse + validate {:.3} ms", ms(parse_time));
    for r in &runs {
        println!(
            "{}: compile {:.3} ms, dispatch {:.3} ms ({} threads in {}x{} groups of 8x8)",
            r.name,
            ms(r.compile),
            ms(r.dispatch),
            SHOW_W * SHOW_H,
            groups[0],
            groups[1]
        );
    }
    Ok(ExitCode::Ok)
}

/// ASCII art of iteration counts: points inside the set are `@`, the rest
/// get denser characters the longer they took to escape.
pub fn render(counts: &[u32], width: usize, max_iter: u32) -> String {
    const PALETTE: &[u8] = b" .,:-=+*#%";
    let mut out = String::new();
    for row in counts.chunks(width.max(1)) {
        for &c in row {
            let ch = if c >= max_iter {
                '@'
            } else {
                let t = (f64::from(c) / f64::from(max_iter.max(1))).sqrt();
                let i = ((t * PALETTE.len() as f64).floor() as usize).min(PALETTE.len() - 1);
                char::from(PALETTE[i])
            };
            out.push(ch);
        }
        out.push('\n');
    }
    out
}

/// `info`: model, format, declarations and instruction counts.
pub fn describe(name: &str, loaded: &Loaded) -> String {
    let p = &loaded.program;
    let mut out = String::new();
    let format = match loaded.format {
        SourceFormat::Dxbc => "DXBC container",
        SourceFormat::Asm => "assembly text",
    };
    let _ = writeln!(out, "{name}: {format}, {} bytes", loaded.bytes.len());
    let _ = writeln!(out, "model: {}", model(p));
    let _ = writeln!(out, "declarations: {}", p.decls.len());
    let _ = writeln!(out, "instructions: {}", p.insts.len());
    let mut by_class: Vec<(String, usize)> = Vec::new();
    for inst in &p.insts {
        let class = format!("{:?}", inst.opcode.class()).to_lowercase();
        match by_class.iter_mut().find(|(c, _)| *c == class) {
            Some((_, n)) => *n += 1,
            None => by_class.push((class, 1)),
        }
    }
    by_class.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    for (class, n) in by_class {
        let _ = writeln!(out, "  {class}: {n}");
    }
    if let Some(chunks) = &loaded.chunks {
        out.push_str(&chunks.describe());
    }
    if let Some(reason) = case::unsupported_reason(p) {
        let _ = writeln!(
            out,
            "note: this shader {reason}, which no engine implements yet"
        );
    }
    out
}

/// `sm5jit case`.
pub fn cases(a: &CaseArgs) -> Result<ExitCode, CliError> {
    let dirs = case::find_cases(&a.paths).map_err(|e| CliError {
        code: ExitCode::BadInput,
        location: None,
        message: e.to_string(),
    })?;
    if dirs.is_empty() {
        return Err(CliError::usage("no case.json found under the given paths"));
    }
    let opts = EngineOptions {
        tier: a.tier.into(),
        ..EngineOptions::default()
    };
    let mut engines = make_engines(a.engine, opts)?;
    let label = engines.len() > 1;
    let mut summary = Summary::default();
    let bar = Progress::new(dirs.len() as u64, "cases");
    for dir in &dirs {
        bar.set_message(format!("{} failed", summary.failed));
        let t = Instant::now();
        let reports: Vec<CaseReport> = engines
            .iter_mut()
            .map(|e| {
                let mut r = case::run_case_dir(dir, e.as_mut());
                if let (true, Outcome::Fail(m)) = (label, &r.outcome) {
                    r.outcome = Outcome::Fail(format!("[{}] {m}", e.name()));
                }
                r
            })
            .collect();
        bar.inc(1);
        let Some(report) = worst(reports) else {
            continue;
        };
        summary.add(&report.outcome);
        bar.suspend(|| {
            println!("{report}");
            if a.verbose {
                println!("    {} ({:.1} ms)", dir.display(), ms(t.elapsed()));
            }
        });
    }
    bar.finish();
    println!("{summary}");
    Ok(if summary.failed > 0 {
        ExitCode::Failed
    } else {
        ExitCode::Ok
    })
}

/// The report that decides a case run on several engines: the first
/// failure, else the first skip, else a pass.
fn worst(reports: Vec<CaseReport>) -> Option<CaseReport> {
    let rank = |r: &CaseReport| match r.outcome {
        Outcome::Fail(_) => 0,
        Outcome::Skip(_) => 1,
        Outcome::Pass => 2,
    };
    let best_rank = reports.iter().map(rank).min()?;
    reports.into_iter().find(|r| rank(r) == best_rank)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huge_dispatches_warn() {
        assert_eq!(many_groups_warning([1024, 1024, 1]), None);
        let w = many_groups_warning([65535, 65535, 65535]).unwrap();
        assert!(w.contains("281462092005375 groups"), "{w}");
        assert!(w.contains("long time"), "{w}");
    }

    #[test]
    fn groups_parse_and_limits() {
        assert_eq!(parse_groups("4,2,1"), Ok([4, 2, 1]));
        assert!(parse_groups("4,2").is_err());
        assert!(parse_groups("70000,1,1").unwrap_err().contains("65535"));
        assert!(parse_groups("a,1,1").is_err());
    }

    #[test]
    fn render_marks_inside_points() {
        let s = render(&[200, 0, 100, 199], 2, 200);
        assert_eq!(s.lines().count(), 2);
        assert!(s.starts_with('@'));
        assert_eq!(s.as_bytes()[1], b' ');
        assert_ne!(s.as_bytes()[4], b'@');
    }

    #[test]
    fn hex_block_truncates() {
        let bytes: Vec<u8> = (0u32..100).flat_map(u32::to_le_bytes).collect();
        let mut s = String::new();
        hex_block(&mut s, &bytes, 16);
        assert_eq!(s.lines().count(), 3);
        assert!(s.contains("0008: 00000008"));
        assert!(s.ends_with("... 84 more words\n"));
    }

    #[test]
    fn worst_report_wins() {
        let r = |o: Outcome| CaseReport {
            id: "c".into(),
            outcome: o,
        };
        let w = worst(vec![
            r(Outcome::Pass),
            r(Outcome::Skip("s".into())),
            r(Outcome::Fail("f".into())),
        ]);
        assert_eq!(w.unwrap().outcome, Outcome::Fail("f".into()));
        let w = worst(vec![r(Outcome::Pass), r(Outcome::Skip("s".into()))]);
        assert_eq!(w.unwrap().outcome, Outcome::Skip("s".into()));
        assert!(worst(Vec::new()).is_none());
    }

    #[test]
    fn both_runs_the_interpreter_then_the_jit() {
        let Ok(engines) = make_engines(EngineChoice::Both, EngineOptions::default()) else {
            panic!("engines were not created");
        };
        let names: Vec<&str> = engines.iter().map(|e| e.name()).collect();
        assert_eq!(names, ["interp", "jit"]);
    }
}
