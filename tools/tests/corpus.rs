//! The conformance corpus through `sm5jit_tools::case` on the interpreter: every
//! case of `conformance/` and `conformance_ps/` must pass; a case may only be
//! skipped because its shader needs sampling or gather, and the skips are
//! listed in the output. Every `conformance_ps/` case also runs on the JIT
//! (its batch path): no failure, no skip, and the same output and UAV
//! bytes as the interpreter.

use sm5jit_tools::case::jit::JitEngine;
use sm5jit_tools::case::{self, Engine, EngineOptions, Outcome};

use crate::corpus_dir;

/// Runs every case under `folder`; returns the failures and the skips.
fn run_folder(folder: &str, expected_cases: usize) -> (Vec<String>, Vec<String>) {
    let dirs = case::find_cases(&[corpus_dir().join(folder)]).expect("corpus folder is readable");
    assert_eq!(dirs.len(), expected_cases, "cases in {folder}");
    let mut engine = case::interp_engine(EngineOptions {
        budget: Some(10_000_000),
        threads: None,
        ..EngineOptions::default()
    })
    .expect("the interpreter engine exists");
    let mut failures = Vec::new();
    let mut skips = Vec::new();
    for dir in &dirs {
        let report = case::run_case_dir(dir, engine.as_mut());
        match &report.outcome {
            Outcome::Pass => {}
            Outcome::Fail(_) => failures.push(report.to_string()),
            Outcome::Skip(_) => skips.push(report.to_string()),
        }
    }
    (failures, skips)
}

fn check(folder: &str, expected_cases: usize) {
    let (failures, skips) = run_folder(folder, expected_cases);
    for s in &skips {
        eprintln!("{s}");
    }
    let bad_skips: Vec<&String> = skips
        .iter()
        .filter(|s| !(s.contains(": needs sampling (") || s.contains(": needs gather (")))
        .collect();
    assert!(
        bad_skips.is_empty(),
        "skips without a sampling/gather reason:\n{bad_skips:#?}"
    );
    assert!(
        failures.is_empty(),
        "{} of {expected_cases} cases failed in {folder}:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn compute_conformance_cases_pass() {
    check("conformance", 50);
}

#[test]
fn pixel_conformance_cases_pass() {
    check("conformance_ps", 80);
}

#[test]
fn pixel_conformance_cases_pass_on_the_jit_without_skips() {
    let dirs = case::find_cases(&[corpus_dir().join("conformance_ps")]).expect("corpus");
    assert_eq!(dirs.len(), 80);
    let mut engine = JitEngine::new(EngineOptions::default());
    let mut bad = Vec::new();
    for dir in &dirs {
        let report = case::run_case_dir(dir, &mut engine);
        if report.outcome != Outcome::Pass {
            bad.push(report.to_string());
        }
    }
    assert!(bad.is_empty(), "not passed on the JIT:\n{}", bad.join("\n"));
}

#[test]
fn pixel_conformance_cases_give_identical_bytes_on_both_engines() {
    let dirs = case::find_cases(&[corpus_dir().join("conformance_ps")]).expect("corpus");
    let mut interp = case::interp_engine(EngineOptions::default()).expect("interpreter");
    let mut jit = JitEngine::new(EngineOptions::default());
    let mut runs = 0;
    for dir in &dirs {
        let c = case::Case::load(dir).expect("case.json");
        let bytes = std::fs::read(c.shader_path()).expect("shader.dxbc");
        let program = case::decode_shader(&bytes).expect("decodes");
        for (n, run) in c.spec.runs.iter().enumerate() {
            let res = case::build_resources(&run.resources).expect("resources");
            let (mut a, mut b) = (res.clone(), res);
            let oa = interp.invoke(&program, &mut a).expect("interpreter");
            let ob = jit.invoke(&program, &mut b).expect("jit");
            let at = format!("{} run {n}", dir.display());
            assert!(!oa.is_empty(), "{at}: no outputs");
            assert_eq!(oa, ob, "{at}: outputs");
            for (x, y) in a.iter().zip(&b) {
                assert_eq!(x.data, y.data, "{at}: bytes of {:?}", x.slot);
                assert_eq!(x.counter, y.counter, "{at}: counter of {:?}", x.slot);
            }
            runs += 1;
        }
    }
    assert!(runs >= 80, "only {runs} runs");
}
