//! Criterion benchmarks: compile time (parse or decode, validate, prepare)
//! of every kernel and every real-world corpus shader, and dispatch
//! throughput of every kernel on the interpreter and natively.
//!
//! `cargo bench --bench dispatch`; `SM5JIT_BENCH_SIZE=test` uses the
//! kernels' small test sizes (quick), otherwise their benchmark sizes.

use std::path::Path;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use sm5jit::bench::{self, Kernel, BENCH_BUDGET, KERNELS};
use sm5jit::case::{interp_engine, Engine, EngineOptions};

fn engine() -> Box<dyn Engine> {
    interp_engine(EngineOptions {
        budget: Some(BENCH_BUDGET),
        threads: Some(1),
    })
    .expect("the interpreter is always available")
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
    for k in &KERNELS {
        g.bench_function(BenchmarkId::new("kernel", k.name), |b| {
            b.iter(|| {
                let p = bench::program(k).expect("kernels assemble");
                engine().prepare(&p).expect("kernels prepare");
            })
        });
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/realworld");
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .map(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    dirs.sort();
    for dir in dirs {
        let Ok(bytes) = std::fs::read(dir.join("shader.dxbc")) else {
            continue;
        };
        let name = dir.file_name().map(|n| n.to_string_lossy().into_owned());
        g.bench_function(BenchmarkId::new("corpus", name.unwrap_or_default()), |b| {
            b.iter(|| {
                let p = sm5jit::case::decode_shader(&bytes).expect("corpus shaders decode");
                let _ = engine().prepare(&p);
            })
        });
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
        let mut e = engine();
        e.prepare(&program).expect("kernels prepare");
        g.bench_function(BenchmarkId::new("interp", k.name), |b| {
            b.iter(|| bench::dispatch_once(e.as_mut(), &program, k, &p).expect("dispatch runs"))
        });
        g.bench_function(BenchmarkId::new("native", k.name), |b| {
            b.iter(|| (k.native)(std::hint::black_box(&p)))
        });
    }
    g.finish();
}

criterion_group!(benches, compile, dispatch);
criterion_main!(benches);
