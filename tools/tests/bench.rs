//! The benchmark kernels stay honest: each one, at its test size, gives on
//! the interpreter exactly (or within its stated tolerance) what its native
//! Rust baseline gives, and `sm5jit bench --json` prints well-formed JSON.

use sm5jit_tools::bench::{self, BENCH_BUDGET, KERNELS};
use sm5jit_tools::case::{interp_engine, EngineOptions};
use std::process::Command;

#[test]
fn every_kernel_on_the_interpreter_equals_native() {
    assert_eq!(KERNELS.len(), 7);
    for k in &KERNELS {
        let p = k.problem(k.test_size);
        let native = (k.native)(&p);
        assert!(
            native.iter().all(|o| !o.is_empty()),
            "{}: empty native output",
            k.name
        );
        let program = bench::program(k).unwrap();
        let mut engine = interp_engine(EngineOptions {
            budget: Some(BENCH_BUDGET),
            threads: Some(1),
            ..EngineOptions::default()
        })
        .unwrap();
        let (_, got) = bench::dispatch_once(engine.as_mut(), &program, k, &p).unwrap();
        k.check(&p, &native, &got)
            .unwrap_or_else(|m| panic!("{}: {m}", k.name));
        // The output is not trivially the initial contents.
        assert_ne!(
            got,
            p.outputs_of(&p.resources),
            "{}: output unchanged",
            k.name
        );
    }
}

#[test]
fn a_wrong_engine_output_is_caught_for_every_kernel() {
    for k in &KERNELS {
        let p = k.problem(k.test_size);
        let native = (k.native)(&p);
        let mut bad = native.clone();
        let word = &mut bad[0][1];
        *word = word.wrapping_add(0x0100_0000);
        assert!(k.check(&p, &native, &bad).is_err(), "{}", k.name);
    }
}

#[test]
fn bench_json_is_one_object_per_kernel() {
    let out = Command::new(env!("CARGO_BIN_EXE_sm5jit"))
        .args([
            "bench",
            "histogram",
            "scan",
            "--size",
            "512",
            "--runs",
            "1",
            "--json",
        ])
        .output()
        .expect("sm5jit runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["kernel"], "histogram");
    assert_eq!(rows[1]["kernel"], "scan");
    for r in &rows {
        assert_eq!(r["threads"], 1);
        // The default engine is the JIT: the interpreter's column is empty.
        assert!(r["interp_ms"].is_null(), "{r}");
        for key in ["compile_ms", "jit_ms", "native_ms"] {
            assert!(r[key].as_f64().is_some_and(|v| v >= 0.0), "{key}: {r}");
        }
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("bench: histogram"), "{stderr}");
}

#[test]
fn bench_rejects_an_unknown_kernel() {
    let out = Command::new(env!("CARGO_BIN_EXE_sm5jit"))
        .args(["bench", "nosuch"])
        .output()
        .expect("sm5jit runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown kernel `nosuch`"));
}
