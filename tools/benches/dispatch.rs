//! Criterion benchmarks: compile time (parse or decode, validate, prepare;
//! for the JIT also Cranelift) of every kernel and every real-world corpus
//! shader on both engines, and dispatch throughput of every kernel on the
//! interpreter (one thread), the JIT on one and two worker threads, and
//! natively (one thread).
//!
//! `cargo bench --bench dispatch`; `SM5JIT_BENCH_SIZE=test` uses the
//! kernels' small test sizes (quick), otherwise their benchmark sizes.
//! Benchmark ids: `compile/{jit,interp}/KERNEL`,
//! `compile/{jit,interp}-corpus/SHADER`,
//! `dispatch/{interp,jit-1t,jit-2t,native}/KERNEL`.

use std::path::Path;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use sm5jit_tools::bench::{self, Kernel, BENCH_BUDGET, KERNELS};
use sm5jit_tools::case::jit::JitEngine;
use sm5jit_tools::case::{interp_engine, Engine, EngineOptions};

/// The engines measured: the interpreter, or the JIT on `threads` workers.
#[derive(Clone, Copy)]
enum Which {
    Interp,
    Jit(usize),
}

fn engine(which: Which) -> Box<dyn Engine> {
    let opts = |threads| EngineOptions {
        budget: Some(BENCH_BUDGET),
        threads: Some(threads),
        ..EngineOptions::default()
    };
    match which {
        Which::Interp => interp_engine(opts(1)).expect("the interpreter is always available"),
        Which::Jit(threads) => Box::new(JitEngine::new(opts(threads))),
    }
}

fn size(k: &Kernel) -> u32 {
    match std::env::var("SM5JIT_BENCH_SIZE").as_deref() {
        Ok("test") => k.test_size,
        _ => k.bench_size,
    }
}

fn compile(c: &mut Criterion) {
    let mut g = c.benchmark_group("compile");
    g.sample_size(20).warm_up_time(Duration::from_millis(300));
    g.measurement_time(Duration::from_secs(1));
    let engines = [("jit", Which::Jit(1)), ("interp", Which::Interp)];
    for k in &KERNELS {
        for (id, which) in engines {
            g.bench_function(BenchmarkId::new(id, k.name), |b| {
                b.iter(|| {
                    let p = bench::program(k).expect("kernels assemble");
                    engine(which).prepare(&p).expect("kernels prepare");
                })
            });
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/realworld");
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .map(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    dirs.sort();
    for dir in dirs {
        let Ok(bytes) = std::fs::read(dir.join("shader.dxbc")) else {
            continue;
        };
        let name = dir.file_name().map(|n| n.to_string_lossy().into_owned());
        let name = name.unwrap_or_default();
        for (id, which) in [
            ("jit-corpus", Which::Jit(1)),
            ("interp-corpus", Which::Interp),
        ] {
            g.bench_function(BenchmarkId::new(id, &name), |b| {
                b.iter(|| {
                    let p =
                        sm5jit_tools::case::decode_shader(&bytes).expect("corpus shaders decode");
                    engine(which).prepare(&p).expect("corpus shaders compile");
                })
            });
        }
    }
    g.finish();
}

fn dispatch(c: &mut Criterion) {
    let mut g = c.benchmark_group("dispatch");
    g.sample_size(10).warm_up_time(Duration::from_millis(300));
    g.measurement_time(Duration::from_secs(2));
    for k in &KERNELS {
        let p = k.problem(size(k));
        let program = bench::program(k).expect("kernels assemble");
        g.throughput(Throughput::Elements(p.threads));
        for (id, which) in [
            ("interp", Which::Interp),
            ("jit-1t", Which::Jit(1)),
            ("jit-2t", Which::Jit(2)),
        ] {
            let mut e = engine(which);
            e.prepare(&program).expect("kernels prepare");
            // Only the dispatch is timed: `dispatch_once` copies the
            // resources in and the outputs out around its own clock.
            g.bench_function(BenchmarkId::new(id, k.name), |b| {
                b.iter_custom(|iters| {
                    (0..iters)
                        .map(|_| {
                            bench::dispatch_once(e.as_mut(), &program, k, &p)
                                .expect("dispatch runs")
                                .0
                        })
                        .sum()
                })
            });
        }
        // Its inputs decoded and outputs set up outside the timing, as
        // the engines' bindings are.
        let (inputs, initial) = (p.inputs(), p.outputs_of(&p.resources));
        g.bench_function(BenchmarkId::new("native", k.name), |b| {
            b.iter_batched_ref(
                || initial.clone(),
                |out| (k.native)(std::hint::black_box(&inputs), out),
                criterion::BatchSize::LargeInput,
            )
        });
    }
    g.finish();
}

criterion_group!(benches, compile, dispatch);
criterion_main!(benches);
