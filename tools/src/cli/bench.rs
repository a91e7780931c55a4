//! `sm5jit bench`: the benchmark kernels timed on the chosen engines and
//! natively, and the files the lavapipe comparison needs.
//!
//! In: kernel names (none = all), engine, thread count, size, runs. Out: a
//! table (or one JSON object per kernel and thread count) on stdout,
//! progress on stderr (a bar on a terminal, else one line per kernel); with `--peer-setup DIR` the kernels' DXBC, inputs
//! and `vkd3d-run` arguments; with `--peer-check DIR` the verdict on the
//! outputs another implementation wrote there. Invariant: no time is
//! printed for an engine whose output failed the kernel's checker; that is
//! exit code 1.

use std::path::{Path, PathBuf};

use clap::Args;

use super::error::{CliError, ExitCode};
use super::run::make_engines;
use super::{front, EngineChoice, DEFAULT_ENGINE};
use crate::bench::pixel::{self, PixelKernel, PixelProblem, PIXEL_KERNELS};
use crate::bench::{self, Kernel, PixelRow, Problem, Row, BENCH_BUDGET, KERNELS};
use crate::case::spec::ResourceKindSpec;
use crate::case::{Engine, EngineOptions, SlotClass};
use crate::progress::Progress;
use sm5jit::EngineKind;

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Kernels to run: compute (saxpy mandelbrot reduce scan matmul histogram nbody) and
    /// pixel (lit blur9 shadow16 noise); none = all.
    pub kernels: Vec<String>,
    /// Engine(s) to time; `both` fills the interp and jit columns.
    #[arg(long, value_enum, default_value_t = DEFAULT_ENGINE)]
    pub engine: EngineChoice,
    /// JIT tier: 0, 1 or auto (dispatches are timed once auto's tier 1 is in).
    #[arg(long, value_enum, default_value_t = super::TierArg::Auto)]
    pub tier: super::TierArg,
    /// Worker threads for the engine (the native baseline is single-threaded).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Problem size (elements, pixels per side, matrix side or bodies; pixel kernels: the
    /// render target's width, 16:9); default: each kernel's own (pixel kernels 1920x1080).
    #[arg(long)]
    pub size: Option<u32>,
    /// Pixel kernels: the interpreter shades only this many leading rows of the target
    /// (it is slow; its column is pixels per second over that region).
    #[arg(long, default_value_t = 16)]
    pub interp_rows: u32,
    /// Timed runs per measurement (the median is shown).
    #[arg(long, default_value_t = 5)]
    pub runs: usize,
    /// One JSON object per kernel and thread count instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Compute kernels: time back-to-back runs on the buffers as the run
    /// before left them, instead of setting the UAVs back to their initial
    /// contents before each (the native baselines likewise; the first
    /// run's output is still checked)
    #[arg(long)]
    pub resident: bool,
    /// Write each kernel's DXBC, inputs and vkd3d-run arguments to DIR and stop.
    #[arg(long, value_name = "DIR", conflicts_with = "peer_check")]
    pub peer_setup: Option<PathBuf>,
    /// Check the outputs another implementation wrote to DIR (KERNEL.uN.out).
    #[arg(long, value_name = "DIR")]
    pub peer_check: Option<PathBuf>,
    #[command(flatten)]
    pub code: super::codedump::CodeDumpArgs,
}

impl BenchArgs {
    /// What the UAVs are between timed runs (`--resident`).
    fn between(&self) -> bench::Between {
        if self.resident {
            bench::Between::Resident
        } else {
            bench::Between::Reset
        }
    }
}

/// The compute and pixel kernels named (none: all of both).
type Selection = (Vec<&'static Kernel>, Vec<&'static PixelKernel>);

fn selected(names: &[String]) -> Result<Selection, CliError> {
    if names.is_empty() {
        return Ok((KERNELS.iter().collect(), PIXEL_KERNELS.iter().collect()));
    }
    let (mut compute, mut pixel) = (Vec::new(), Vec::new());
    for n in names {
        if let Some(k) = bench::kernel(n) {
            compute.push(k);
        } else if let Some(k) = bench::pixel_kernel(n) {
            pixel.push(k);
        } else {
            let all: Vec<&str> = KERNELS
                .iter()
                .map(|k| k.name)
                .chain(PIXEL_KERNELS.iter().map(|k| k.name))
                .collect();
            return Err(CliError::usage(format!(
                "unknown kernel `{n}`; known: {}",
                all.join(" ")
            )));
        }
    }
    Ok((compute, pixel))
}

/// A pixel kernel's problem at `--size` (default 1920x1080).
fn pixel_problem(k: &PixelKernel, size: Option<u32>) -> Result<PixelProblem, CliError> {
    let [w, h] = size.map_or(pixel::BENCH_SIZE, pixel::size_for);
    k.problem(w, h).map_err(CliError::runtime)
}

fn problem(k: &Kernel, size: Option<u32>) -> Problem {
    k.problem(size.unwrap_or(k.bench_size))
}

/// Runs `sm5jit bench`.
pub fn bench(a: &BenchArgs) -> Result<ExitCode, CliError> {
    let (kernels, pixels) = selected(&a.kernels)?;
    if let Some(dir) = &a.peer_setup {
        peer_setup(&kernels, a.size, dir)?;
        return pixel_peer_setup(&pixels, a.size, dir);
    }
    if let Some(dir) = &a.peer_check {
        let code = peer_check(&kernels, a.size, dir)?;
        let pixel_code = pixel_peer_check(&pixels, a.size, dir)?;
        return Ok(if code == ExitCode::Ok {
            pixel_code
        } else {
            code
        });
    }
    if a.threads == 0 {
        return Err(CliError::usage("--threads must be at least 1"));
    }
    let engines = match a.engine {
        EngineChoice::Both => vec![EngineChoice::Interp, EngineChoice::Jit],
        one => vec![one],
    };
    // The machine first: timings mean nothing without it (stderr with
    // --json, so every stdout line stays one JSON object).
    let today = date_utc();
    let mode = if a.resident {
        "; resident buffers (no UAV reset between timed runs)"
    } else {
        ""
    };
    if a.json {
        eprintln!("# {}; {today}{mode}", bench::machine_line());
    } else {
        println!("# {}; {today}{mode}", bench::machine_line());
        if !kernels.is_empty() {
            println!("{}", bench::table_header());
        }
    }
    let steps = (kernels.len() + pixels.len()) * (1 + engines.len());
    let bar = Progress::new(steps as u64, "steps");
    let mut failed = false;
    for &k in &kernels {
        let row = measure(k, a, &engines, &bar);
        match row {
            Ok(row) if a.json => {
                bar.suspend(|| println!("{}", serde_json::to_string(&row).unwrap_or_default()))
            }
            Ok(row) => bar.suspend(|| println!("{}", bench::format_row(&row))),
            Err(e) => {
                bar.println(format!("bench: {e}"));
                failed = true;
            }
        }
    }
    if !pixels.is_empty() && !a.json {
        let [w, h] = a.size.map_or(pixel::BENCH_SIZE, pixel::size_for);
        bar.suspend(|| {
            if !kernels.is_empty() {
                println!();
            }
            println!(
                "# pixel kernels: full-screen draw {w}x{h} in batches of {} quads; interp over the first {} rows; native one thread",
                pixel::BATCH_QUADS,
                a.interp_rows.clamp(2, h) & !1
            );
            println!("{}", bench::pixel_table_header());
        });
    }
    for k in pixels {
        match measure_pixel(k, a, &engines, &bar) {
            Ok(row) if a.json => {
                bar.suspend(|| println!("{}", serde_json::to_string(&row).unwrap_or_default()))
            }
            Ok(row) => bar.suspend(|| println!("{}", bench::format_pixel_row(&row))),
            Err(e) => {
                bar.println(format!("bench: {e}"));
                failed = true;
            }
        }
    }
    bar.finish();
    Ok(if failed {
        ExitCode::Failed
    } else {
        ExitCode::Ok
    })
}

/// Measures kernel `k` on the native baseline and each engine; one step
/// of `bar` each.
fn measure(
    k: &Kernel,
    a: &BenchArgs,
    engines: &[EngineChoice],
    bar: &Progress,
) -> Result<Row, CliError> {
    if a.code.any() {
        let program = front::parse(k.name, k.asm)?;
        super::codedump::dump(k.name, &program, &a.code, a.tier.into())?;
    }
    let p = problem(k, a.size);
    bar.log(format!(
        "bench: {} (size {}, {} invocations)",
        k.name, p.size, p.threads
    ));
    bar.set_message(format!("{}: native", k.name));
    let between = a.between();
    let native = bench::time_native(k, &p, a.runs, between);
    let limit = bench::time_plain(k, &p, &native.outputs, a.runs, between)
        .map_err(|e| CliError::runtime(e.to_string()))?;
    bar.inc(1);
    let mut row = Row {
        kernel: k.name.to_string(),
        threads: a.threads,
        size: p.size,
        invocations: p.threads,
        native_ms: Some(native.ms),
        limit_ms: limit,
        ..Row::default()
    };
    for &choice in engines {
        if choice == EngineChoice::Interp && a.threads > 1 {
            bar.println(format!(
                "bench: {}: the interpreter runs one thread; not measured at {} threads",
                k.name, a.threads
            ));
            bar.inc(1);
            continue;
        }
        let opts = EngineOptions {
            budget: Some(BENCH_BUDGET),
            threads: Some(a.threads),
            tier: a.tier.into(),
        };
        let mut make = || -> Result<Box<dyn Engine>, String> {
            make_engines(choice, opts)
                .map_err(|e| e.message)?
                .pop()
                .ok_or_else(|| "no engine".to_string())
        };
        bar.set_message(format!("{}: {choice:?}", k.name));
        let t = bench::time_engine(k, &p, &native.outputs, &mut make, a.runs, between)
            .map_err(|e| CliError::runtime(e.to_string()))?;
        bar.inc(1);
        match choice {
            EngineChoice::Jit => {
                row.jit_ms = Some(t.dispatch_ms);
                row.jit_cpu_pct = Some(t.cpu_pct);
                row.compile_ms = Some(t.compile_ms);
            }
            _ => {
                row.interp_ms = Some(t.dispatch_ms);
                row.compile_ms = row.compile_ms.or(Some(t.compile_ms));
            }
        }
    }
    Ok(row)
}

/// Measures pixel kernel `k` natively and on each engine; one step of
/// `bar` each.
fn measure_pixel(
    k: &PixelKernel,
    a: &BenchArgs,
    engines: &[EngineChoice],
    bar: &Progress,
) -> Result<PixelRow, CliError> {
    if a.code.any() {
        let program = front::parse(k.name, k.ps)?;
        super::codedump::dump(k.name, &program, &a.code, a.tier.into())?;
    }
    let p = pixel_problem(k, a.size)?;
    bar.log(format!(
        "bench: {} ({}x{}, {} pixels)",
        k.name,
        p.width,
        p.height,
        p.pixels()
    ));
    bar.set_message(format!("{}: native", k.name));
    let (native_ms, native_cpu_ms, native) = pixel::time_pixel_native(k, &p, a.runs);
    bar.inc(1);
    let mut row = PixelRow {
        kernel: k.name.to_string(),
        kind: "pixel",
        threads: a.threads,
        width: p.width,
        height: p.height,
        pixels: p.pixels() as u64,
        native_ms: Some(native_ms),
        native_cpu_ms: Some(native_cpu_ms),
        ..PixelRow::default()
    };
    for &choice in engines {
        let (engine, pixels) = match choice {
            EngineChoice::Jit => (EngineKind::Jit, p.pixels()),
            _ if a.threads > 1 => {
                bar.println(format!(
                    "bench: {}: the interpreter is measured on one thread only",
                    k.name
                ));
                bar.inc(1);
                continue;
            }
            _ => {
                let rows = a.interp_rows.clamp(2, p.height) & !1;
                (EngineKind::Interpreter, rows as usize * p.width as usize)
            }
        };
        bar.set_message(format!("{}: {choice:?}", k.name));
        let how = pixel::EngineRun {
            engine,
            tier: a.tier.into(),
            threads: a.threads,
            pixels,
            runs: a.runs,
        };
        let t = pixel::time_pixel_engine(k, &p, &native, &how).map_err(CliError::runtime)?;
        bar.inc(1);
        if engine == EngineKind::Jit {
            row.jit_ms = Some(t.frame_ms);
            row.jit_cpu_ms = Some(t.cpu_ms);
            row.compile_ms = Some(t.compile_ms);
        } else {
            row.interp_ms = Some(t.frame_ms);
            row.interp_cpu_ms = Some(t.cpu_ms);
            row.interp_pixels = Some(t.pixels as u64);
            row.compile_ms = row.compile_ms.or(Some(t.compile_ms));
        }
    }
    Ok(row.with_rates())
}

/// Writes each pixel kernel's shaders, textures, constants and
/// `scripts/vkd3d-draw` arguments to `dir` (see [`pixel::peer_files`]).
fn pixel_peer_setup(
    kernels: &[&PixelKernel],
    size: Option<u32>,
    dir: &Path,
) -> Result<ExitCode, CliError> {
    std::fs::create_dir_all(dir)
        .map_err(|e| CliError::input(dir.display().to_string(), e.to_string()))?;
    for k in kernels {
        let p = pixel_problem(k, size)?;
        for (name, bytes) in pixel::peer_files(k, &p, dir).map_err(CliError::runtime)? {
            write(&dir.join(name), &bytes)?;
        }
        eprintln!("bench: {}: wrote {}.args for vkd3d-draw", k.name, k.name);
    }
    Ok(ExitCode::Ok)
}

/// Compares `DIR/K.rt.out` (the peer's render target) with the native
/// image under the kernel's peer tolerance; `ok KERNEL` or `FAIL ...`.
fn pixel_peer_check(
    kernels: &[&PixelKernel],
    size: Option<u32>,
    dir: &Path,
) -> Result<ExitCode, CliError> {
    let mut code = ExitCode::Ok;
    for k in kernels {
        let p = pixel_problem(k, size)?;
        let native = (k.native)(&p);
        let file = dir.join(format!("{}.rt.out", k.name));
        let bytes = std::fs::read(&file)
            .map_err(|e| CliError::input(file.display().to_string(), e.to_string()))?;
        match pixel::peer_check(k, &p, &native, &bytes) {
            Ok(()) => println!("ok {}", k.name),
            Err(m) => {
                println!("FAIL {m}");
                code = ExitCode::Failed;
            }
        }
    }
    Ok(code)
}

/// Today's date (UTC) as `YYYY-MM-DD`, from the system clock.
fn date_utc() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let days = (secs / 86_400) as i64;
    // The proleptic Gregorian date of a day count since 1970-01-01.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    std::fs::write(path, bytes)
        .map_err(|e| CliError::input(path.display().to_string(), e.to_string()))
}

fn slot_name(class: SlotClass, index: u32) -> String {
    match class {
        SlotClass::Uav => format!("u{index}"),
        SlotClass::Srv => format!("t{index}"),
        SlotClass::ConstantBuffer => format!("b{index}"),
        SlotClass::Output => format!("o{index}"),
    }
}

/// Writes `DIR/K.dxbc`, `DIR/K.<slot>.bin` and `DIR/K.args` (one
/// `vkd3d-run` argument per line; the outputs go to `DIR/K.uN.out`).
fn peer_setup(kernels: &[&Kernel], size: Option<u32>, dir: &Path) -> Result<ExitCode, CliError> {
    std::fs::create_dir_all(dir)
        .map_err(|e| CliError::input(dir.display().to_string(), e.to_string()))?;
    for k in kernels {
        let p = problem(k, size);
        let program = front::parse(k.name, k.asm)?;
        front::validate(k.name, &program)?;
        write(
            &dir.join(format!("{}.dxbc", k.name)),
            &front::encode(k.name, &program)?,
        )?;
        let g = p.groups;
        let mut args = vec![
            "--groups".to_string(),
            g[0].to_string(),
            g[1].to_string(),
            g[2].to_string(),
        ];
        for r in &p.resources {
            let name = slot_name(r.slot.class, r.slot.index);
            if r.kind == ResourceKindSpec::Constant {
                let words = bench::kernels::words_of(&r.data);
                let list: Vec<String> = words.iter().map(|w| format!("0x{w:x}")).collect();
                args.extend(["--const".to_string(), format!("{name}:{}", list.join(","))]);
                continue;
            }
            let file = dir.join(format!("{}.{name}.bin", k.name));
            write(&file, &r.data)?;
            let flag = if r.slot.class == SlotClass::Uav {
                "--uav"
            } else {
                "--srv"
            };
            args.extend([flag.to_string(), format!("{name}:{}", file.display())]);
        }
        for o in &p.outputs {
            let file = dir.join(format!("{}.u{}.out", k.name, o.index));
            args.extend([
                "--out".to_string(),
                format!("u{}:{}", o.index, file.display()),
            ]);
        }
        let mut text = args.join("\n");
        text.push('\n');
        write(&dir.join(format!("{}.args", k.name)), text.as_bytes())?;
        eprintln!(
            "bench: {}: wrote {}.dxbc and {}.args",
            k.name, k.name, k.name
        );
    }
    Ok(ExitCode::Ok)
}

/// Compares `DIR/K.uN.out` with the native output under the kernel's peer
/// tolerance; prints `ok KERNEL` or the first difference.
fn peer_check(kernels: &[&Kernel], size: Option<u32>, dir: &Path) -> Result<ExitCode, CliError> {
    let mut code = ExitCode::Ok;
    for k in kernels {
        let p = problem(k, size);
        let native = k.native_outputs(&p);
        let mut got = Vec::new();
        for o in &p.outputs {
            let file = dir.join(format!("{}.u{}.out", k.name, o.index));
            let bytes = std::fs::read(&file)
                .map_err(|e| CliError::input(file.display().to_string(), e.to_string()))?;
            got.push(bench::kernels::words_of(&bytes));
        }
        match k.check_with(k.peer_tolerance, &p, &native, &got) {
            Ok(()) => println!("ok {}", k.name),
            Err(m) => {
                println!("FAIL {m}");
                code = ExitCode::Failed;
            }
        }
    }
    Ok(code)
}
