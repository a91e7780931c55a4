//! The first run of a one-group compute shader, end to end: decode the
//! DXBC container, validate, compile, bind and dispatch one thread group.
//!
//! `cargo run --release -p sm5jit-tools --example first_run [RUNS] [0|1|auto]` takes every
//! compute case of the conformance corpus
//! (`../shared/corpus/conformance/*/`), builds its resources from
//! `case.json` once (the caller's data, not timed), then `RUNS` times
//! (default 21) times decode + validate + compile (fresh, uncached, on the
//! given tier, default auto) + one dispatch of one group on the calling
//! thread; prints each shader's median and then the median over the
//! corpus. Shaders the JIT does not compile are listed as skipped.

use std::path::Path;
use std::time::{Duration, Instant};

use sm5jit::jit::Tier;
use sm5jit_tools::case::jit::JitEngine;
use sm5jit_tools::case::{build_resources, decode_shader, Case, Engine, EngineOptions};

/// One first run: decode, validate and compile on a new engine, dispatch.
fn first_run(
    bytes: &[u8],
    resources: &mut [sm5jit_tools::case::Resource],
    tier: Tier,
) -> Result<Duration, String> {
    let t = Instant::now();
    let program = decode_shader(bytes)?;
    let mut engine = JitEngine::new(EngineOptions {
        threads: Some(1),
        tier,
        ..EngineOptions::default()
    });
    engine.prepare(&program).map_err(|e| e.to_string())?;
    engine
        .dispatch(&program, resources, [1, 1, 1])
        .map_err(|e| e.to_string())?;
    Ok(t.elapsed())
}

fn median(mut v: Vec<Duration>) -> f64 {
    v.sort();
    v[v.len() / 2].as_secs_f64() * 1e3
}

fn main() {
    let mut args = std::env::args().skip(1);
    let runs: usize = args
        .next()
        .and_then(|a| a.parse().ok())
        .unwrap_or(21)
        .max(1);
    let tier = args
        .next()
        .and_then(|a| Tier::parse(&a))
        .unwrap_or(Tier::Auto);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/conformance");
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    dirs.sort();
    let mut medians = Vec::new();
    for dir in dirs {
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let Ok(case) = Case::load(&dir) else {
            continue;
        };
        if !case.spec.runs.is_empty() {
            continue; // a pixel case
        }
        let Ok(bytes) = std::fs::read(case.shader_path()) else {
            continue;
        };
        let Ok(resources) = build_resources(&case.spec.resources) else {
            println!("{name:50} skipped: resources");
            continue;
        };
        let mut times = Vec::new();
        let mut skipped = None;
        for _ in 0..runs {
            let mut r = resources.clone();
            match first_run(&bytes, &mut r, tier) {
                Ok(d) => times.push(d),
                Err(e) => {
                    skipped = Some(e);
                    break;
                }
            }
        }
        if let Some(e) = skipped {
            println!("{name:50} skipped: {e}");
            continue;
        }
        let ms = median(times);
        println!("{name:50} {ms:8.3} ms");
        medians.push(ms);
    }
    medians.sort_by(f64::total_cmp);
    if !medians.is_empty() {
        println!(
            "first run (decode + validate + compile + one-group dispatch), tier {tier:?}: median over {} shaders {:.3} ms",
            medians.len(),
            medians[medians.len() / 2]
        );
    }
}
