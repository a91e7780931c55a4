//! Benchmarks: the kernels of [`kernels`] timed on any [`Engine`] and
//! against their native Rust baselines.
//!
//! In: a [`Kernel`], a problem size, a way to make engines and a number of
//! runs. Out: [`EngineTiming`] (compile ms, median dispatch ms, threads per
//! second) and [`NativeTiming`], and the [`Row`] `sm5jit bench` prints.
//! Invariant: a timing is only returned after the engine's output of the
//! same problem has passed the kernel's checker against the native output,
//! so a fast wrong engine never shows up as a number; every timed dispatch
//! starts from the problem's initial UAV contents, set outside the timed
//! region, unless [`Between::Resident`] asks for back-to-back runs on the
//! buffers as the run before left them.

pub mod kernels;
pub mod pixel;

use std::time::{Duration, Instant};

use thiserror::Error;

pub use kernels::{kernel, Kernel, Problem, Tolerance, KERNELS};
pub use pixel::{pixel_kernel, PixelKernel, PixelProblem, PIXEL_KERNELS};

use crate::case::{Engine, EngineError, Resource, SlotClass};
use sm5jit::ir::Program;

/// Instruction budget per thread group for benchmark runs: large enough for
/// every kernel at any size [`Kernel::fit_size`] allows to finish.
pub const BENCH_BUDGET: u64 = 1 << 40;

/// Why a kernel could not be measured.
#[derive(Debug, Error)]
pub enum BenchError {
    #[error("{kernel}: assembly: {message}")]
    Assembly {
        kernel: &'static str,
        message: String,
    },
    #[error("{kernel}: {engine}: {source}")]
    Engine {
        kernel: &'static str,
        engine: String,
        #[source]
        source: EngineError,
    },
    #[error("{kernel}: cannot make the engine: {message}")]
    NoEngine {
        kernel: &'static str,
        message: String,
    },
    /// The engine's output differs from the native output.
    #[error("{engine} output differs from native: {message}")]
    Mismatch { engine: String, message: String },
}

/// Parses and validates a kernel's assembly.
pub fn program(k: &Kernel) -> Result<Program, BenchError> {
    let err = |message: String| BenchError::Assembly {
        kernel: k.name,
        message,
    };
    let p = sm5jit::asm::parse_program(k.asm).map_err(|e| err(e.to_string()))?;
    sm5jit::validate::validate(&p).map_err(|e| err(e.to_string()))?;
    Ok(p)
}

/// What happens to the UAVs between timed runs (of an engine's dispatch
/// or a native baseline).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Between {
    /// Set back to the problem's initial contents before each run,
    /// outside the clock: every run computes the same result (`sm5jit
    /// bench`'s default). The writes of the reset leave the buffers in the
    /// cache of the CPU that made them.
    #[default]
    Reset,
    /// Left as the run before left them: back-to-back runs over resident
    /// buffers, as a pipeline of dispatches runs them (`--resident`). Each
    /// worker finds the part of the buffers it touched last time where it
    /// left it. Only the first run starts from the initial contents, and
    /// only its output is the one checked.
    Resident,
}

/// Median of durations in milliseconds (0 for none).
pub fn median_ms(samples: &mut [Duration]) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    samples.sort_unstable();
    let n = samples.len();
    let mid = if n % 2 == 1 {
        samples[n / 2]
    } else {
        (samples[n / 2 - 1] + samples[n / 2]) / 2
    };
    mid.as_secs_f64() * 1e3
}

/// What one engine took on one problem.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EngineTiming {
    /// Median of `prepare` on a fresh engine, ms.
    pub compile_ms: f64,
    /// Median of one dispatch, ms.
    pub dispatch_ms: f64,
    /// Invocations per second at the median dispatch time.
    pub threads_per_s: f64,
    /// The process's CPU time during the timed dispatches over their wall
    /// time, in percent: about 100 per worker that had a CPU to itself
    /// (a two-worker run that shows 110 got little of the second CPU, and
    /// its speed-up says nothing about scaling).
    pub cpu_pct: f64,
}

/// What the native baseline took.
#[derive(Clone, Debug, PartialEq)]
pub struct NativeTiming {
    /// Median of one call, ms.
    pub ms: f64,
    /// Its output words, per output UAV (the reference for the checker).
    pub outputs: Vec<Vec<u32>>,
}

/// Runs the native baseline `runs` times (at least once).
pub fn time_native(k: &Kernel, p: &Problem, runs: usize, between: Between) -> NativeTiming {
    time_fn(k.native, p, runs, between)
}

/// Runs the kernel's plain "limit" loop `runs` times, when it has one, and
/// checks it against the native output (`native`): `Err` names the kernel
/// whose two baselines disagree.
pub fn time_plain(
    k: &Kernel,
    p: &Problem,
    native: &[Vec<u32>],
    runs: usize,
    between: Between,
) -> Result<Option<f64>, BenchError> {
    let Some(plain) = k.plain else {
        return Ok(None);
    };
    let t = time_fn(plain, p, runs, between);
    k.check(p, native, &t.outputs)
        .map_err(|message| BenchError::Mismatch {
            engine: "limit baseline".into(),
            message,
        })?;
    Ok(Some(t.ms))
}

/// Times `f` alone: its inputs are decoded once and its outputs set back
/// to their initial words in place before the clock starts, as an
/// engine's bindings are ready, and its UAVs reset, before its dispatch
/// is timed ([`dispatch_timed`]); with [`Between::Resident`] only before
/// the first run. The outputs returned are the first run's.
fn time_fn(f: kernels::Baseline, p: &Problem, runs: usize, between: Between) -> NativeTiming {
    let inputs = p.inputs();
    let initial = p.outputs_of(&p.resources);
    let mut samples = Vec::new();
    let mut out = initial.clone();
    let mut first = None;
    for _ in 0..runs.max(1) {
        if between == Between::Reset {
            for (o, i) in out.iter_mut().zip(&initial) {
                o.copy_from_slice(i);
            }
        }
        let start = Instant::now();
        f(
            std::hint::black_box(&inputs),
            std::hint::black_box(&mut out),
        );
        samples.push(start.elapsed());
        if first.is_none() && between == Between::Resident {
            first = Some(out.clone());
        }
    }
    NativeTiming {
        ms: median_ms(&mut samples),
        outputs: first.unwrap_or(out),
    }
}

/// The machine a table was measured on, one line: the CPU model (from
/// `/proc/cpuinfo` where there is one) and the vector extensions the CPU
/// has, e.g. `cpu: AMD EPYC; vector: sse2 sse4.2 avx avx2 fma avx512f`.
pub fn machine_line() -> String {
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, m)| m.trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string());
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    format!(
        "cpu: {model} ({threads} hardware threads); vector: {}",
        vector_extensions().join(" ")
    )
}

/// The SIMD extensions of the host CPU, oldest first.
pub fn vector_extensions() -> Vec<&'static str> {
    #[allow(unused_mut)]
    let mut v = Vec::new();
    #[cfg(target_arch = "x86_64")]
    {
        macro_rules! has {
            ($($f:tt),*) => {
                $(if std::arch::is_x86_feature_detected!($f) { v.push($f); })*
            };
        }
        has!(
            "sse2", "sse3", "ssse3", "sse4.1", "sse4.2", "avx", "avx2", "fma", "f16c", "avx512f",
            "avx512bw", "avx512vl", "avx512dq"
        );
    }
    #[cfg(target_arch = "aarch64")]
    {
        if std::arch::is_aarch64_feature_detected!("neon") {
            v.push("neon");
        }
    }
    v
}

/// Runs one dispatch of `p` on `engine` from fresh resources and returns
/// the time and the output words; `program` is the one `engine` prepared
/// or dispatched last, if any ([`Engine::dispatch_prepared`]).
pub fn dispatch_once(
    engine: &mut dyn Engine,
    program: &Program,
    k: &Kernel,
    p: &Problem,
) -> Result<(Duration, Vec<Vec<u32>>), BenchError> {
    let mut resources = p.resources.clone();
    let (took, _) = dispatch_timed(engine, program, k, p, &mut resources, Between::Reset)?;
    Ok((took, p.outputs_of(&resources)))
}

/// The CPU time (user and system) the process has used so far, all
/// threads together.
pub fn process_cpu() -> Duration {
    // SAFETY: getrusage only writes the struct it is given.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) } != 0 {
        return Duration::ZERO;
    }
    let tv = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec.max(0) as u64) + Duration::from_micros(t.tv_usec.max(0) as u64)
    };
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

/// Like [`dispatch_once`] without reading the outputs back (the timed
/// runs: a profile of the benchmark then shows the dispatch, not the
/// conversion of the outputs), on `resources` as the last run left them:
/// the UAVs are set back to `p`'s initial contents before the clock
/// starts ([`reset_uavs`]) unless `between` is [`Between::Resident`], the
/// SRVs and constant buffers stay where they
/// are, as an embedder's bound buffers stay between dispatches. Returns
/// the wall time and the process's CPU time in the same interval.
/// `program` is the one `engine` prepared last
/// ([`Engine::dispatch_prepared`]).
pub fn dispatch_timed(
    engine: &mut dyn Engine,
    program: &Program,
    k: &Kernel,
    p: &Problem,
    resources: &mut [Resource],
    between: Between,
) -> Result<(Duration, Duration), BenchError> {
    if between == Between::Reset {
        reset_uavs(resources, &p.resources);
    }
    let cpu = process_cpu();
    let start = Instant::now();
    engine
        .dispatch_prepared(program, resources, p.groups)
        .map_err(|source| BenchError::Engine {
            kernel: k.name,
            engine: engine.name().to_string(),
            source,
        })?;
    let took = start.elapsed();
    Ok((took, process_cpu().saturating_sub(cpu)))
}

/// Sets every UAV of `resources` (a copy of `initial`) back to its
/// initial bytes and counter, in place: the next timed dispatch neither
/// allocates its buffers nor finds them in another state. A dispatch
/// writes only UAVs.
pub fn reset_uavs(resources: &mut [Resource], initial: &[Resource]) {
    for (r, i) in resources.iter_mut().zip(initial) {
        if r.slot.class == SlotClass::Uav {
            r.data.copy_from_slice(&i.data);
            r.counter = i.counter;
        }
    }
}

/// How long dispatches keep warming up once the engine has settled.
pub const WARM_UP: Duration = Duration::from_millis(25);

/// Times `runs` compiles (each on a fresh engine from `make`) and `runs`
/// dispatches, after one checked warm-up dispatch (from the initial
/// contents) and [`WARM_UP`] more once the engine runs its final code;
/// `between` says what the UAVs are between the warm-up and timed ones.
pub fn time_engine(
    k: &Kernel,
    p: &Problem,
    native: &[Vec<u32>],
    make: &mut dyn FnMut() -> Result<Box<dyn Engine>, String>,
    runs: usize,
    between: Between,
) -> Result<EngineTiming, BenchError> {
    let program = program(k)?;
    let runs = runs.max(1);
    let no_engine = |message| BenchError::NoEngine {
        kernel: k.name,
        message,
    };
    let mut compiles = Vec::new();
    let mut engine = make().map_err(no_engine)?;
    for n in 0..runs {
        if n > 0 {
            engine = make().map_err(no_engine)?;
        }
        let start = Instant::now();
        engine
            .prepare(&program)
            .map_err(|source| BenchError::Engine {
                kernel: k.name,
                engine: engine.name().to_string(),
                source,
            })?;
        compiles.push(start.elapsed());
    }
    let (first, outputs) = dispatch_once(engine.as_mut(), &program, k, p)?;
    k.check(p, native, &outputs)
        .map_err(|message| BenchError::Mismatch {
            engine: engine.name().to_string(),
            message,
        })?;
    // Steady state: a JIT on tier auto is timed once its tier-1 code is in
    // (compiled in the background while these warm-up dispatches run).
    let mut resources = p.resources.clone();
    let warm = Instant::now();
    while !engine.settled() && warm.elapsed() < std::time::Duration::from_secs(20) {
        dispatch_timed(engine.as_mut(), &program, k, p, &mut resources, between)?;
    }
    // Then for another WARM_UP (unless one dispatch takes that long), so
    // that what is timed is the steady state: the first dispatches after
    // a tier-up meet threads the scheduler has just moved (the pool keeps
    // its helpers off the caller's CPU, `jit/pool.rs`, but by moving them
    // when it finds them there).
    let settled = Instant::now();
    while first < WARM_UP && settled.elapsed() < WARM_UP {
        dispatch_timed(engine.as_mut(), &program, k, p, &mut resources, between)?;
    }
    let mut dispatches = Vec::new();
    let mut cpu = Duration::ZERO;
    for _ in 0..runs {
        let (wall, c) = dispatch_timed(engine.as_mut(), &program, k, p, &mut resources, between)?;
        dispatches.push(wall);
        cpu += c;
    }
    let wall: Duration = dispatches.iter().sum();
    let cpu_pct = if wall.is_zero() {
        0.0
    } else {
        100.0 * cpu.as_secs_f64() / wall.as_secs_f64()
    };
    let dispatch_ms = median_ms(&mut dispatches);
    Ok(EngineTiming {
        compile_ms: median_ms(&mut compiles),
        dispatch_ms,
        threads_per_s: if dispatch_ms > 0.0 {
            p.threads as f64 / (dispatch_ms / 1e3)
        } else {
            0.0
        },
        cpu_pct,
    })
}

/// One line of `sm5jit bench`: a kernel at one thread count; `None` where
/// not measured.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Row {
    pub kernel: String,
    pub threads: usize,
    pub size: u32,
    /// Invocations in the dispatch.
    pub invocations: u64,
    /// Compile time of the engine shown first (the JIT if measured).
    pub compile_ms: Option<f64>,
    pub jit_ms: Option<f64>,
    pub interp_ms: Option<f64>,
    pub native_ms: Option<f64>,
    /// The plain-loop "limit" baseline where the kernel has one
    /// ([`Kernel::plain`]).
    pub limit_ms: Option<f64>,
    /// The JIT's [`EngineTiming::cpu_pct`].
    pub jit_cpu_pct: Option<f64>,
}

impl Row {
    /// Invocations per second of the fastest engine measured.
    pub fn threads_per_s(&self) -> Option<f64> {
        let ms = self.jit_ms.or(self.interp_ms)?;
        (ms > 0.0).then(|| self.invocations as f64 / (ms / 1e3))
    }

    /// `a / b` when both are measured.
    pub fn ratio(a: Option<f64>, b: Option<f64>) -> Option<f64> {
        match (a, b) {
            (Some(a), Some(b)) if b > 0.0 => Some(a / b),
            _ => None,
        }
    }
}

fn cell(v: Option<f64>, digits: usize) -> String {
    v.map_or_else(|| "-".to_string(), |v| format!("{v:.digits$}"))
}

/// The table header of [`format_row`].
pub fn table_header() -> String {
    format!(
        "{:<11} {:>3} {:>8} {:>10} {:>10} {:>10} {:>7} {:>10} {:>10} {:>12} {:>10} {:>10} {:>10}",
        "kernel",
        "thr",
        "size",
        "compile_ms",
        "interp_ms",
        "jit_ms",
        "jit_cpu",
        "native_ms",
        "limit_ms",
        "threads/s",
        "interp/nat",
        "jit/nat",
        "jit/interp"
    )
}

/// One table line: times, throughput and the ratios engine/native and
/// JIT/interpreter (`-` where not measured).
pub fn format_row(r: &Row) -> String {
    format!(
        "{:<11} {:>3} {:>8} {:>10} {:>10} {:>10} {:>7} {:>10} {:>10} {:>12} {:>10} {:>10} {:>10}",
        r.kernel,
        r.threads,
        r.size,
        cell(r.compile_ms, 3),
        cell(r.interp_ms, 3),
        cell(r.jit_ms, 3),
        r.jit_cpu_pct
            .map_or_else(|| "-".to_string(), |c| format!("{c:.0}%")),
        cell(r.native_ms, 3),
        cell(r.limit_ms, 3),
        r.threads_per_s()
            .map_or_else(|| "-".to_string(), |t| format!("{t:.3e}")),
        cell(Row::ratio(r.interp_ms, r.native_ms), 1),
        cell(Row::ratio(r.jit_ms, r.native_ms), 2),
        cell(Row::ratio(r.jit_ms, r.interp_ms), 4),
    )
}

/// One line of the pixel table: a pixel kernel at one worker count;
/// `None` where not measured. The interpreter shades only the first
/// `interp_pixels` pixels (whole rows), so compare pixels per second.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct PixelRow {
    pub kernel: String,
    /// Always `"pixel"` (compute rows have no `kind`).
    pub kind: &'static str,
    pub threads: usize,
    pub width: u32,
    pub height: u32,
    /// Pixels per frame.
    pub pixels: u64,
    /// Compile time of the engine shown first (the JIT if measured).
    pub compile_ms: Option<f64>,
    /// One frame on the JIT, ms.
    pub jit_ms: Option<f64>,
    /// The interpreter's region (`interp_pixels` pixels), ms.
    pub interp_ms: Option<f64>,
    pub interp_pixels: Option<u64>,
    /// One frame natively (one thread), ms.
    pub native_ms: Option<f64>,
    /// Median process CPU time of one frame (the interpreter: of its
    /// region), ms: with N workers the sum over them.
    pub jit_cpu_ms: Option<f64>,
    pub interp_cpu_ms: Option<f64>,
    pub native_cpu_ms: Option<f64>,
    pub jit_px_s: Option<f64>,
    pub interp_px_s: Option<f64>,
    pub native_px_s: Option<f64>,
}

impl PixelRow {
    /// Fills the pixels-per-second fields from the times.
    pub fn with_rates(mut self) -> PixelRow {
        let rate = |ms: Option<f64>, px: u64| {
            ms.filter(|&m| m > 0.0)
                .map(|m| pixel::per_second(px as usize, m))
        };
        self.jit_px_s = rate(self.jit_ms, self.pixels);
        self.native_px_s = rate(self.native_ms, self.pixels);
        self.interp_px_s = rate(self.interp_ms, self.interp_pixels.unwrap_or(0));
        self
    }
}

/// The header of [`format_pixel_row`].
pub fn pixel_table_header() -> String {
    format!(
        "{:<9} {:>3} {:>9} {:>10} {:>10} {:>10} {:>10} {:>10} {:>11} {:>11} {:>11} {:>10} {:>10}",
        "pixel",
        "thr",
        "size",
        "compile_ms",
        "interp_ms",
        "jit_ms",
        "jit_cpu_ms",
        "native_ms",
        "interp_px/s",
        "jit_px/s",
        "native_px/s",
        "jit/interp",
        "native/jit"
    )
}

fn rate_cell(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_string(), |t| format!("{t:.3e}"))
}

/// One pixel-table line: times (the interpreter's over its region),
/// pixels per second, and the speed-ups JIT over interpreter and native
/// over JIT (from pixels per second).
pub fn format_pixel_row(r: &PixelRow) -> String {
    format!(
        "{:<9} {:>3} {:>9} {:>10} {:>10} {:>10} {:>10} {:>10} {:>11} {:>11} {:>11} {:>10} {:>10}",
        r.kernel,
        r.threads,
        format!("{}x{}", r.width, r.height),
        cell(r.compile_ms, 3),
        cell(r.interp_ms, 3),
        cell(r.jit_ms, 3),
        cell(r.jit_cpu_ms, 3),
        cell(r.native_ms, 3),
        rate_cell(r.interp_px_s),
        rate_cell(r.jit_px_s),
        rate_cell(r.native_px_s),
        cell(Row::ratio(r.jit_px_s, r.interp_px_s), 1),
        cell(Row::ratio(r.native_px_s, r.jit_px_s), 2),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::{interp_engine, EngineOptions};

    fn interp() -> Result<Box<dyn Engine>, String> {
        interp_engine(EngineOptions {
            budget: Some(BENCH_BUDGET),
            threads: Some(1),
            ..EngineOptions::default()
        })
        .map_err(|e| e.to_string())
    }

    #[test]
    fn median_of_odd_and_even_counts() {
        let ms = Duration::from_millis;
        assert_eq!(median_ms(&mut [ms(3), ms(1), ms(2)]), 2.0);
        assert_eq!(median_ms(&mut [ms(4), ms(1), ms(2), ms(3)]), 2.5);
        assert_eq!(median_ms(&mut []), 0.0);
    }

    #[test]
    fn interpreter_histogram_is_timed_after_a_check() {
        let k = kernel("histogram").unwrap();
        let p = k.problem(200);
        let native = time_native(k, &p, 1, Between::Reset);
        let t = time_engine(k, &p, &native.outputs, &mut interp, 2, Between::Reset).unwrap();
        assert!(t.dispatch_ms > 0.0 && t.threads_per_s > 0.0, "{t:?}");
        assert!(t.cpu_pct >= 0.0, "{t:?}");
        let mut wrong = native.outputs.clone();
        wrong[0][0] += 1;
        let e = time_engine(k, &p, &wrong, &mut interp, 1, Between::Reset).unwrap_err();
        assert!(matches!(e, BenchError::Mismatch { .. }), "{e}");
    }

    #[test]
    fn resident_runs_check_and_return_the_first_runs_output() {
        // saxpy updates y in place: a second run without a reset gives
        // other words, so the reference must be the first run's.
        let k = kernel("saxpy").unwrap();
        let p = k.problem(k.test_size);
        let reset = time_native(k, &p, 1, Between::Reset);
        let resident = time_native(k, &p, 3, Between::Resident);
        assert_eq!(resident.outputs, reset.outputs);
        let twice = time_native(k, &p, 2, Between::Reset);
        assert_eq!(twice.outputs, reset.outputs);
        let t = time_engine(k, &p, &resident.outputs, &mut interp, 3, Between::Resident).unwrap();
        assert!(t.dispatch_ms > 0.0, "{t:?}");
        // Without the reset the buffers do move on from run to run.
        let mut engine = interp().unwrap();
        let prog = program(k).unwrap();
        let mut resources = p.resources.clone();
        for _ in 0..2 {
            dispatch_timed(
                engine.as_mut(),
                &prog,
                k,
                &p,
                &mut resources,
                Between::Resident,
            )
            .unwrap();
        }
        assert_ne!(p.outputs_of(&resources), reset.outputs);
    }

    #[test]
    fn the_jits_timed_dispatches_run_the_prepared_program() {
        let k = kernel("saxpy").unwrap();
        let p = k.problem(k.test_size);
        let native = time_native(k, &p, 1, Between::Reset);
        let prog = program(k).unwrap();
        let mut jit = crate::case::jit::JitEngine::new(EngineOptions {
            threads: Some(1),
            tier: sm5jit::jit::Tier::One,
            ..EngineOptions::default()
        });
        // Before a prepare the program is compiled; after one, run.
        for prepare in [false, true] {
            if prepare {
                jit.prepare(&prog).unwrap();
            }
            let (_, out) = dispatch_once(&mut jit, &prog, k, &p).unwrap();
            assert_eq!(k.check(&p, &native.outputs, &out), Ok(()));
        }
    }

    #[test]
    fn same_algorithm_and_limit_baselines_agree() {
        for k in KERNELS.iter().filter(|k| k.plain.is_some()) {
            let p = k.problem(k.test_size);
            let native = time_native(k, &p, 1, Between::Reset);
            let limit = time_plain(k, &p, &native.outputs, 1, Between::Reset).unwrap();
            assert!(limit.is_some(), "{}", k.name);
        }
    }

    #[test]
    fn the_machine_line_names_a_cpu_and_its_vectors() {
        let m = machine_line();
        assert!(m.starts_with("cpu: "), "{m}");
        #[cfg(target_arch = "x86_64")]
        assert!(m.contains("sse2"), "{m}");
    }

    #[test]
    fn rows_print_dashes_for_what_was_not_measured() {
        let r = Row {
            kernel: "saxpy".into(),
            threads: 1,
            size: 10,
            invocations: 1000,
            compile_ms: Some(0.5),
            jit_ms: None,
            interp_ms: Some(2.0),
            native_ms: Some(0.5),
            limit_ms: None,
            jit_cpu_pct: None,
        };
        let line = format_row(&r);
        assert!(line.starts_with("saxpy"), "{line}");
        assert!(line.contains("4.0"), "{line}");
        assert_eq!(line.split_whitespace().filter(|c| *c == "-").count(), 5);
        assert_eq!(r.threads_per_s(), Some(500_000.0));
        assert_eq!(
            table_header().split_whitespace().count(),
            line.split_whitespace().count()
        );
    }
}
