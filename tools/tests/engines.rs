//! The corpus conformance cases through the case runner on each engine
//! (the interpreter judged on its own, without the validator; the JIT on
//! every compute case), and the real-world shaders through `sm5jit run
//! --engine both`.

use std::path::PathBuf;

use sm5jit_tools::case::interp::InterpEngine;
use sm5jit_tools::case::jit::JitEngine;
use sm5jit_tools::case::{self, EngineOptions, Outcome};

fn case_dirs(suite: &str) -> Vec<PathBuf> {
    let root = crate::corpus_dir().join(suite);
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("case.json").is_file())
        .collect();
    dirs.sort();
    dirs
}

/// Decodes a case's shader without the validator (the interpreter is
/// judged on its own) and runs it through the case runner.
fn run_unvalidated(dir: &std::path::Path) -> Outcome {
    let case = match case::Case::load(dir) {
        Ok(c) => c,
        Err(e) => return Outcome::Fail(e.to_string()),
    };
    let bytes = std::fs::read(case.shader_path()).expect("shader.dxbc");
    let shader = match sm5jit::dxbc::read_dxbc(&bytes, &sm5jit::dxbc::ReadOptions::default()) {
        Ok(s) => s,
        Err(e) => return Outcome::Fail(format!("decode: {e}")),
    };
    case::run_program(
        &case.spec,
        &shader.program,
        &mut InterpEngine::new(EngineOptions::default()),
    )
}

/// Runs a corpus suite; returns (pass, skip) and fails on any FAIL.
fn run_suite(suite: &str) -> (usize, usize) {
    let dirs = case_dirs(suite);
    assert!(!dirs.is_empty(), "no cases in {suite}");
    let (mut pass, mut skip, mut fails) = (0, 0, Vec::new());
    for dir in &dirs {
        let outcome = run_unvalidated(dir);
        let line = format!("{outcome:?} {}", dir.display());
        match outcome {
            Outcome::Pass => pass += 1,
            Outcome::Skip(_) => skip += 1,
            Outcome::Fail(_) => fails.push(line.clone()),
        }
        eprintln!("{line}");
    }
    assert!(
        fails.is_empty(),
        "{} of {} {suite} cases failed:\n{}",
        fails.len(),
        dirs.len(),
        fails.join("\n")
    );
    (pass, skip)
}

#[test]
fn corpus_conformance_cases_pass() {
    let (pass, skip) = run_suite("conformance");
    assert!(pass >= 45, "only {pass} passed ({skip} skipped)");
}

#[test]
fn corpus_pixel_cases_pass() {
    let (pass, skip) = run_suite("conformance_ps");
    assert!(pass >= 60, "only {pass} passed ({skip} skipped)");
}

/// Runs every case of a corpus suite on the JIT; returns (pass, skip, fail
/// lines). A skip is a program the JIT does not compile yet.
fn jit_suite(suite: &str) -> (usize, usize, Vec<String>) {
    let root = crate::corpus_dir().join(suite);
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("case.json").is_file())
        .collect();
    dirs.sort();
    let mut engine = JitEngine::new(Default::default());
    let (mut pass, mut skip, mut fails) = (0, 0, Vec::new());
    for dir in &dirs {
        let case = case::Case::load(dir).expect("case.json");
        let outcome = case::run_case(&case, &mut engine);
        let line = format!("{outcome:?} {}", dir.display());
        eprintln!("{line}");
        match outcome {
            Outcome::Pass => pass += 1,
            Outcome::Skip(_) => skip += 1,
            Outcome::Fail(_) => fails.push(line),
        }
    }
    (pass, skip, fails)
}

#[test]
fn corpus_conformance_cases_on_the_jit() {
    let (pass, skip, fails) = jit_suite("conformance");
    eprintln!(
        "jit conformance: {pass} passed, {skip} skipped, {} failed",
        fails.len()
    );
    assert!(fails.is_empty(), "{}", fails.join("\n"));
    assert_eq!((pass, skip), (50, 0), "every compute case runs on the JIT");
}

/// `sm5jit run SHADER --synthetic` with `args` added.
fn run_cli(shader: &std::path::Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_sm5jit"))
        .arg("run")
        .arg(shader)
        .args(["--synthetic", "--budget", "100000000"])
        .args(args)
        .output()
        .expect("sm5jit runs")
}

/// Shaders whose output depends on the order groups finish: append
/// positions come from `imm_atomic_iadd` on a counter. Inside a group both
/// engines run waves of 8 threads in lockstep (`docs/semantics.md`), so
/// with one worker thread (groups in order) they must agree byte for byte.
const GROUP_ORDER_DEPENDENT: [&str; 1] = ["bgfx_cs_terrain_lod"];

/// Every real-world shader compiles in the JIT, and `--engine both` finds
/// identical bytes in every UAV (two shaders at a time).
#[test]
fn realworld_shaders_agree_on_both_engines() {
    let root = crate::corpus_dir().join("realworld");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("shader.dxbc").is_file())
        .collect();
    dirs.sort();
    assert_eq!(dirs.len(), 36, "real-world shaders");
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures = std::sync::Mutex::new(Vec::new());
    let work = || loop {
        let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let Some(dir) = dirs.get(k) else { return };
        if let Some(problem) = check_realworld(dir) {
            failures.lock().unwrap().push(problem);
        }
    };
    std::thread::scope(|s| {
        s.spawn(work);
        s.spawn(work);
    });
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `None` when the engines agree on `dir`'s shader, else what differs.
fn check_realworld(dir: &std::path::Path) -> Option<String> {
    let name = dir.file_name().unwrap().to_string_lossy().into_owned();
    let shader = dir.join("shader.dxbc");
    let mut args = vec!["--engine", "both"];
    if GROUP_ORDER_DEPENDENT.contains(&name.as_str()) {
        args.extend(["--threads", "1"]);
    }
    let out = run_cli(&shader, &args);
    let text = String::from_utf8_lossy(&out.stdout);
    if out.status.success() && text.contains("identical bytes in every UAV") {
        return None;
    }
    Some(format!(
        "{name}: {}{}",
        text.lines().last().unwrap_or(""),
        String::from_utf8_lossy(&out.stderr)
    ))
}
