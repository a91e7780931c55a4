//! Compiles one shader many times on one tier, for profiling the compiler.
//!
//! `cargo run --release --example compile_one FILE [TIER] [RUNS]`: FILE is
//! fxc-style assembly (`.asm`) or DXBC; TIER `0` (default) or `1`; RUNS
//! (default 200) compiles with the cache off. Prints the median time.

use std::time::Instant;

use sm5jit::jit::{CompileOptions, JitShader, Tier};

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: compile_one FILE [TIER] [RUNS]");
    let tier = args
        .next()
        .and_then(|t| Tier::parse(&t))
        .unwrap_or(Tier::Zero);
    let runs: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(200);
    let bytes = std::fs::read(&path).expect("read");
    let program = if path.ends_with(".asm") {
        sm5jit::asm::parse_program(&String::from_utf8_lossy(&bytes)).expect("parse")
    } else {
        sm5jit::dxbc::read_dxbc(&bytes, &sm5jit::dxbc::ReadOptions::default())
            .expect("decode")
            .program
    };
    let options = CompileOptions {
        cache: false,
        ..CompileOptions::tier(tier)
    };
    let mut times: Vec<f64> = (0..runs.max(1))
        .map(|_| {
            let t = Instant::now();
            let s = JitShader::compile_with(&program, &options).expect("compile");
            let d = t.elapsed().as_secs_f64() * 1e3;
            drop(s);
            d
        })
        .collect();
    times.sort_by(f64::total_cmp);
    println!(
        "{} instructions, median {:.3} ms, min {:.3} ms",
        program.insts.len(),
        times[times.len() / 2],
        times[0]
    );
}
