//! The conformance corpus through `sm5jit::case` on the interpreter: every
//! case of `conformance/` and `conformance_ps/` must pass; a case may only be
//! skipped because its shader needs sampling or gather, and the skips are
//! listed in the output.

use sm5jit::case::{self, EngineOptions, Outcome};

use crate::corpus_dir;

/// Runs every case under `folder`; returns the failures and the skips.
fn run_folder(folder: &str, expected_cases: usize) -> (Vec<String>, Vec<String>) {
    let dirs = case::find_cases(&[corpus_dir().join(folder)]).expect("corpus folder is readable");
    assert_eq!(dirs.len(), expected_cases, "cases in {folder}");
    let mut engine = case::interp_engine(EngineOptions {
        budget: Some(10_000_000),
        threads: None,
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
