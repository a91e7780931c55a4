//! Worker-thread counts: the JIT's results must not depend on how many
//! workers run the groups. Every conformance case runs at several thread
//! counts; the atomic cases (where groups really race on the same words)
//! must pass at each of them.

use sm5jit_tools::case::jit::JitEngine;
use sm5jit_tools::case::{self, EngineOptions, Outcome};

/// The conformance case directories, sorted, with whether each uses an
/// atomic instruction (read from the opcode list in its `case.json`).
fn conformance_cases() -> Vec<(std::path::PathBuf, bool)> {
    let root = crate::corpus_dir().join("conformance");
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("case.json").is_file())
        .map(|p| {
            let text = std::fs::read_to_string(p.join("case.json")).expect("case.json");
            let atomic = text.contains("atomic_");
            (p, atomic)
        })
        .collect();
    dirs.sort();
    dirs
}

#[test]
fn conformance_cases_pass_at_every_thread_count() {
    let cases = conformance_cases();
    let atomic = cases.iter().filter(|c| c.1).count();
    assert!(atomic >= 10, "only {atomic} atomic cases found");
    for threads in [1, 2, 3, 8] {
        let mut engine = JitEngine::new(EngineOptions {
            budget: None,
            threads: Some(threads),
            ..EngineOptions::default()
        });
        let (mut pass, mut atomic_pass) = (0, 0);
        let mut fails = Vec::new();
        for (dir, is_atomic) in &cases {
            let case = case::Case::load(dir).expect("case.json");
            match case::run_case(&case, &mut engine) {
                Outcome::Pass => {
                    pass += 1;
                    atomic_pass += usize::from(*is_atomic);
                }
                Outcome::Skip(why) => assert!(
                    !is_atomic,
                    "{}: atomic case skipped at {threads} threads: {why}",
                    dir.display()
                ),
                Outcome::Fail(why) => fails.push(format!("{}: {why}", dir.display())),
            }
        }
        assert!(fails.is_empty(), "{threads} workers:\n{}", fails.join("\n"));
        assert_eq!(atomic_pass, atomic, "{threads} workers");
        assert!(pass >= 40, "{threads} workers: only {pass} passed");
    }
}
