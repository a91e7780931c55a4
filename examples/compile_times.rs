//! Compile times of the corpus shaders on both JIT tiers.
//!
//! `cargo run --release --example compile_times [RUNS]` compiles every
//! compute shader under `../shared/corpus/{conformance,realworld}` that the
//! JIT accepts `RUNS` times (default 21) on tier 0 and on tier 1 (cache
//! off, so every compile is real), prints each one's median compile time
//! per tier (validate + prepare + Cranelift + finalize) and instruction
//! count, then per tier the median over the shaders of at most 200
//! instructions and the time of the largest one. Shaders the JIT rejects
//! are listed as skipped with the reason. Last, the same for the
//! 931-instruction pixel shader `examples/shaders/ps_900.asm` (texture
//! sampling in loops). The summary gives wall-clock medians and, in
//! brackets, the medians of the compiling thread's CPU time
//! (`CLOCK_THREAD_CPUTIME_ID`), which preemption on a loaded machine does
//! not inflate.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use sm5jit::jit::{CompileOptions, JitShader, Tier};

/// This thread's CPU time.
fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Median compile time of `program` on `tier`, in ms: wall clock and
/// this thread's CPU time.
fn time(program: &sm5jit::ir::Program, tier: Tier, runs: usize) -> (f64, f64) {
    let options = CompileOptions {
        cache: false,
        ..CompileOptions::tier(tier)
    };
    let (wall, cpu): (Vec<Duration>, Vec<Duration>) = (0..runs)
        .map(|_| {
            let c = thread_cpu();
            let t = Instant::now();
            let s = JitShader::compile_with(program, &options).expect("compiled once already");
            let d = (t.elapsed(), thread_cpu() - c);
            drop(s);
            d
        })
        .unzip();
    (median(wall), median(cpu))
}

fn shader_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    let mut out = Vec::new();
    for set in ["conformance", "realworld"] {
        let Ok(dir) = std::fs::read_dir(root.join(set)) else {
            continue;
        };
        let mut files: Vec<PathBuf> = dir
            .filter_map(|e| e.ok())
            .map(|e| e.path().join("shader.dxbc"))
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        out.extend(files);
    }
    out
}

fn median(mut v: Vec<Duration>) -> f64 {
    v.sort();
    v[v.len() / 2].as_secs_f64() * 1e3
}

/// A validated program from DXBC bytes, or why not.
fn decode(bytes: &[u8]) -> Result<sm5jit::Program, String> {
    let shader = sm5jit::dxbc::read_dxbc(bytes, &sm5jit::dxbc::ReadOptions::default())
        .map_err(|e| format!("decode error: {e}"))?;
    sm5jit::validate::validate(&shader.program).map_err(|e| format!("validation error: {e}"))?;
    Ok(shader.program)
}

fn main() {
    let runs: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(21)
        .max(1);
    let mut small = Vec::new();
    let mut small_cpu = Vec::new();
    // (instructions, per tier (wall ms, cpu ms), name)
    type Largest = (usize, [(f64, f64); 2], String);
    let mut largest: Option<Largest> = None;
    for file in shader_files() {
        let name = file
            .parent()
            .and_then(|p| p.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let Ok(bytes) = std::fs::read(&file) else {
            continue;
        };
        let program = match decode(&bytes) {
            Ok(p) => p,
            Err(e) => {
                println!("{name:60} skipped: {e}");
                continue;
            }
        };
        if let Err(e) = JitShader::compile_with(&program, &CompileOptions::tier(Tier::One)) {
            println!("{name:60} skipped: {e}");
            continue;
        }
        let insts = program.insts.len();
        let both = [
            time(&program, Tier::Zero, runs),
            time(&program, Tier::One, runs),
        ];
        let ms = both.map(|t| t.0);
        println!(
            "{name:60} {insts:5} instructions  tier 0 {:9.3} ms  tier 1 {:9.3} ms",
            ms[0], ms[1]
        );
        if insts <= 200 {
            small.push(ms);
            small_cpu.push(both.map(|t| t.1));
        }
        if largest.as_ref().is_none_or(|l| insts > l.0) {
            largest = Some((insts, both, name));
        }
    }
    let ps_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/shaders/ps_900.asm");
    let ps = std::fs::read_to_string(&ps_path)
        .ok()
        .and_then(|t| sm5jit::asm::parse_program(&t).ok());
    let ps_ms = ps.as_ref().map(|p| {
        (
            p.insts.len(),
            [time(p, Tier::Zero, runs), time(p, Tier::One, runs)],
        )
    });
    let med = |v: &[[f64; 2]], k: usize| {
        let mut v: Vec<f64> = v.iter().map(|m| m[k]).collect();
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
    };
    for (tier, k) in [("tier 0", 0), ("tier 1", 1)] {
        if !small.is_empty() {
            println!(
                "{tier}: median over {} shaders of <= 200 instructions: {:.3} ms [cpu {:.3} ms]",
                small.len(),
                med(&small, k),
                med(&small_cpu, k)
            );
        }
        if let Some((insts, ms, name)) = &largest {
            println!(
                "{tier}: largest: {name} ({insts} instructions): {:.3} ms [cpu {:.3} ms]",
                ms[k].0, ms[k].1
            );
        }
        if let Some((insts, ms)) = &ps_ms {
            println!(
                "{tier}: examples/shaders/ps_900.asm ({insts} instructions): {:.3} ms [cpu {:.3} ms]",
                ms[k].0, ms[k].1
            );
        }
    }
}
