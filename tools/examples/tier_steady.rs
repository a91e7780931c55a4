//! Steady-state dispatch speed of every benchmark kernel on `--tier 1`
//! and on `--tier auto` once its tier-1 code is in, robust to a shared,
//! loaded machine.
//!
//! `cargo run --release -p sm5jit-tools --example tier_steady [RUNS]`: for
//! each kernel (bench size, one worker), alternately on tier 1 and on auto
//! (each engine warmed up until `settled`, the auto one's tier-1 code
//! compiled in the background), `RUNS` rounds (default 31) of one dispatch
//! each; prints the minimum and the median per tier and auto/tier-1 of
//! each. The minimum is the number to compare on a loaded machine:
//! preemption only ever adds time.

use std::time::Duration;

use sm5jit::jit::Tier;
use sm5jit_tools::bench::kernels::KERNELS;
use sm5jit_tools::bench::{dispatch_once, program, BENCH_BUDGET};
use sm5jit_tools::case::jit::JitEngine;
use sm5jit_tools::case::{Engine, EngineOptions};

fn engine(tier: Tier, prog: &sm5jit::ir::Program) -> JitEngine {
    let mut e = JitEngine::new(EngineOptions {
        budget: Some(BENCH_BUDGET),
        threads: Some(1),
        tier,
    });
    e.prepare(prog).expect("compile");
    e
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let runs: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(31)
        .max(1);
    println!("kernel      tier1 min  auto min  ratio   tier1 med  auto med  ratio");
    for k in KERNELS.iter() {
        let prog = program(k).expect("kernel program");
        let p = k.problem(k.bench_size);
        let mut e = [engine(Tier::One, &prog), engine(Tier::Auto, &prog)];
        for x in e.iter_mut() {
            let start = std::time::Instant::now();
            dispatch_once(x, &prog, k, &p).expect("dispatch");
            while !x.settled() && start.elapsed() < Duration::from_secs(20) {
                dispatch_once(x, &prog, k, &p).expect("dispatch");
            }
            assert!(x.settled(), "{}: tier 1 not in after 20 s", k.name);
        }
        let mut t: [Vec<Duration>; 2] = [Vec::new(), Vec::new()];
        for _ in 0..runs {
            for (x, v) in e.iter_mut().zip(t.iter_mut()) {
                v.push(dispatch_once(x, &prog, k, &p).expect("dispatch").0);
            }
        }
        for v in t.iter_mut() {
            v.sort();
        }
        let min = [ms(t[0][0]), ms(t[1][0])];
        let med = [ms(t[0][runs / 2]), ms(t[1][runs / 2])];
        println!(
            "{:10} {:9.3} {:9.3} {:6.3}   {:9.3} {:9.3} {:6.3}",
            k.name,
            min[0],
            min[1],
            min[1] / min[0],
            med[0],
            med[1],
            med[1] / med[0]
        );
    }
}
