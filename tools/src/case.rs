//! Conformance cases in the corpus format (`case.json` beside `shader.dxbc`).
//!
//! In: case directories (or folders searched recursively for `case.json`)
//! and an [`Engine`] that runs programs. Out: one [`CaseReport`] per case —
//! `PASS`, `FAIL` with the first differing word, or `SKIP` with a stated
//! reason — and a [`Summary`]. Invariant: a case is skipped only when the
//! shader needs something no engine implements ([`unsupported_reason`]) or
//! the engine says so with [`EngineError::Unsupported`]; a skip never counts as
//! a pass, and every other problem (unreadable case, decode error, runtime
//! error, wrong value) is a failure.
//!
//! The corpus format is described in `../shared/corpus/README.md`; the serde
//! model is in [`spec`], memory set-up in [`resource`], value comparison in
//! [`compare`]. The CLI only prints what this module returns.

pub mod compare;
pub mod interp;
pub mod jit;
pub mod resource;
pub mod spec;
pub mod synthetic;

use std::fmt;
use std::path::{Path, PathBuf};

use thiserror::Error;

pub use compare::{check_slot, Mismatch};
pub use resource::{Resource, SlotClass, SlotRef};
use sm5jit::ir::Program;
pub use spec::{CaseSpec, ElementKind, ExpectSpec};
pub use synthetic::synthetic_resources;

/// A case that cannot be loaded or is inconsistent.
#[derive(Debug, Error)]
pub enum CaseError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: line {line}, column {column}: {message}")]
    Json {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("bad case: {0}")]
    Spec(String),
}

impl CaseError {
    pub(crate) fn spec(msg: impl Into<String>) -> CaseError {
        CaseError::Spec(msg.into())
    }

    fn io(path: &Path, source: std::io::Error) -> CaseError {
        CaseError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// Why an engine could not run a program.
#[derive(Debug, Error)]
pub enum EngineError {
    /// The program needs a feature the engine does not implement; the case
    /// is skipped with this reason (e.g. `needs sampling (sample_l)`).
    #[error("{0}")]
    Unsupported(String),
    /// A binding, budget or other runtime failure; the case fails.
    #[error("{0}")]
    Failed(String),
}

/// Settings shared by every engine.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EngineOptions {
    /// Instruction budget per invocation; `None` = the runtime's default.
    pub budget: Option<u64>,
    /// Worker threads; `None` = all cores.
    pub threads: Option<usize>,
    /// JIT tier (`--tier`); the interpreter ignores it.
    pub tier: sm5jit::jit::Tier,
}

/// Something that runs programs over case resources: the interpreter, the
/// JIT, or a test double.
pub trait Engine {
    /// Short name for messages (`interp`, `jit`).
    fn name(&self) -> &'static str;

    /// Prepares (compiles) `program` before its first dispatch; engines
    /// that need no preparation keep the default. Timed separately by the
    /// CLI as the compile time.
    fn prepare(&mut self, program: &Program) -> Result<(), EngineError> {
        let _ = program;
        Ok(())
    }

    /// Runs one compute dispatch; UAV memory and counters in `resources`
    /// are updated in place.
    fn dispatch(
        &mut self,
        program: &Program,
        resources: &mut [Resource],
        groups: [u32; 3],
    ) -> Result<(), EngineError>;

    /// [`Engine::dispatch`] of the program last given to
    /// [`Engine::prepare`] (or dispatched), which `program` must be:
    /// engines that keep compiled code may run it without comparing the
    /// programs, which for a small dispatch took a third of its time
    /// (benchmarks time this call).
    fn dispatch_prepared(
        &mut self,
        program: &Program,
        resources: &mut [Resource],
        groups: [u32; 3],
    ) -> Result<(), EngineError> {
        self.dispatch(program, resources, groups)
    }

    /// Runs one pixel-shader invocation with no inputs; returns the output
    /// registers it wrote as `(register, [x, y, z, w])`.
    fn invoke(
        &mut self,
        program: &Program,
        resources: &mut [Resource],
    ) -> Result<Vec<(u32, [u32; 4])>, EngineError>;

    /// Whether the engine runs its final code for the prepared program: a
    /// JIT on `--tier auto` is not settled until its tier-1 code is in.
    /// Benchmarks warm up until it is.
    fn settled(&self) -> bool {
        true
    }
}

/// A loaded case: its directory and its parsed `case.json`.
#[derive(Clone, Debug)]
pub struct Case {
    pub dir: PathBuf,
    pub spec: CaseSpec,
}

impl Case {
    /// Reads `DIR/case.json`.
    pub fn load(dir: &Path) -> Result<Case, CaseError> {
        let path = dir.join("case.json");
        let text = std::fs::read_to_string(&path).map_err(|e| CaseError::io(&path, e))?;
        let spec = serde_json::from_str(&text).map_err(|e| CaseError::Json {
            path: path.clone(),
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        })?;
        Ok(Case {
            dir: dir.to_path_buf(),
            spec,
        })
    }

    /// `DIR/shader.dxbc`.
    pub fn shader_path(&self) -> PathBuf {
        self.dir.join("shader.dxbc")
    }
}

/// The result of one case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Pass,
    /// What went wrong first.
    Fail(String),
    /// The stated reason (`needs sampling (sample_l)`).
    Skip(String),
}

/// One printed line: the case id and its outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaseReport {
    pub id: String,
    pub outcome: Outcome,
}

impl fmt::Display for CaseReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.outcome {
            Outcome::Pass => write!(f, "PASS {}", self.id),
            Outcome::Fail(why) => write!(f, "FAIL {}: {why}", self.id),
            Outcome::Skip(why) => write!(f, "SKIP {}: {why}", self.id),
        }
    }
}

/// Counts over a run of cases; prints as `N passed, N failed, N skipped`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub passed: usize,
    pub failed: usize,
    pub skipped: usize,
}

impl Summary {
    /// Counts one outcome.
    pub fn add(&mut self, outcome: &Outcome) {
        match outcome {
            Outcome::Pass => self.passed += 1,
            Outcome::Fail(_) => self.failed += 1,
            Outcome::Skip(_) => self.skipped += 1,
        }
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} passed, {} failed, {} skipped",
            self.passed, self.failed, self.skipped
        )
    }
}

/// Case directories under `paths`: a path holding `case.json` is a case;
/// any other directory is searched recursively. Sorted, without repeats.
pub fn find_cases(paths: &[PathBuf]) -> Result<Vec<PathBuf>, CaseError> {
    let mut found = Vec::new();
    for p in paths {
        if p.is_file() && p.file_name().is_some_and(|n| n == "case.json") {
            found.push(p.parent().unwrap_or(Path::new(".")).to_path_buf());
            continue;
        }
        let meta = std::fs::metadata(p).map_err(|e| CaseError::io(p, e))?;
        if !meta.is_dir() {
            return Err(CaseError::spec(format!(
                "{}: neither a case directory nor a folder of cases",
                p.display()
            )));
        }
        walk(p, &mut found)?;
    }
    found.sort();
    found.dedup();
    Ok(found)
}

fn walk(dir: &Path, found: &mut Vec<PathBuf>) -> Result<(), CaseError> {
    if dir.join("case.json").is_file() {
        found.push(dir.to_path_buf());
        return Ok(());
    }
    let entries = std::fs::read_dir(dir).map_err(|e| CaseError::io(dir, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| CaseError::io(dir, e))?;
        let ty = entry.file_type().map_err(|e| CaseError::io(dir, e))?;
        if ty.is_dir() {
            walk(&entry.path(), found)?;
        }
    }
    Ok(())
}

/// The reference interpreter as an [`Engine`].
pub fn interp_engine(opts: EngineOptions) -> Result<Box<dyn Engine>, EngineError> {
    Ok(Box::new(interp::InterpEngine::new(opts)))
}

/// Why no engine can run `program` yet, if so. Every sampling, gather and
/// LOD instruction runs in the reference interpreter, so nothing is refused
/// up front any more; an engine that lacks an instruction says so with
/// [`EngineError::Unsupported`] and the case is skipped with its reason.
pub fn unsupported_reason(_program: &Program) -> Option<String> {
    None
}

/// Decodes and validates a case's `shader.dxbc` (the corpus checksums are
/// valid, so they are checked).
pub fn decode_shader(bytes: &[u8]) -> Result<Program, String> {
    let shader = sm5jit::dxbc::read_dxbc(bytes, &sm5jit::dxbc::ReadOptions::default())
        .map_err(|e| format!("decode error: {e}"))?;
    sm5jit::validate::validate(&shader.program).map_err(|e| format!("validation error: {e}"))?;
    Ok(shader.program)
}

/// Loads and runs the case in `dir`; load problems are failures.
pub fn run_case_dir(dir: &Path, engine: &mut dyn Engine) -> CaseReport {
    let fallback_id = dir.file_name().map_or_else(
        || dir.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    match Case::load(dir) {
        Ok(case) => CaseReport {
            id: case.spec.id.clone(),
            outcome: run_case(&case, engine),
        },
        Err(e) => CaseReport {
            id: fallback_id,
            outcome: Outcome::Fail(e.to_string()),
        },
    }
}

/// Runs one loaded case on `engine`.
pub fn run_case(case: &Case, engine: &mut dyn Engine) -> Outcome {
    let path = case.shader_path();
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) => return Outcome::Fail(format!("{}: {e}", path.display())),
    };
    let program = match decode_shader(&bytes) {
        Ok(p) => p,
        Err(e) => return Outcome::Fail(format!("{}: {e}", path.display())),
    };
    if let Some(reason) = unsupported_reason(&program) {
        return Outcome::Skip(reason);
    }
    if let Err(e) = engine.prepare(&program) {
        return match engine_stop(engine, e, "compile") {
            Stop::Skip(why) => Outcome::Skip(why),
            Stop::Fail(why) => Outcome::Fail(why),
        };
    }
    run_program(&case.spec, &program, engine)
}

/// Runs a case's dispatches (compute) or runs (pixel) with a decoded program.
pub fn run_program(spec: &CaseSpec, program: &Program, engine: &mut dyn Engine) -> Outcome {
    if let Some(reason) = unsupported_reason(program) {
        return Outcome::Skip(reason);
    }
    let result = if spec.runs.is_empty() {
        run_compute(spec, program, engine)
    } else {
        run_pixel(spec, program, engine)
    };
    match result {
        Ok(()) => Outcome::Pass,
        Err(Stop::Skip(why)) => Outcome::Skip(why),
        Err(Stop::Fail(why)) => Outcome::Fail(why),
    }
}

/// How a case run stops early.
enum Stop {
    Skip(String),
    Fail(String),
}

impl From<CaseError> for Stop {
    fn from(e: CaseError) -> Stop {
        Stop::Fail(e.to_string())
    }
}

fn engine_stop(engine: &dyn Engine, e: EngineError, context: &str) -> Stop {
    match e {
        EngineError::Unsupported(why) => Stop::Skip(why),
        EngineError::Failed(why) => {
            Stop::Fail(format!("{context}: {} error: {why}", engine.name()))
        }
    }
}

pub fn build_resources(specs: &[spec::ResourceSpec]) -> Result<Vec<Resource>, CaseError> {
    specs.iter().map(Resource::from_spec).collect()
}

fn find(resources: &mut [Resource], slot: SlotRef) -> Option<&mut Resource> {
    resources.iter_mut().find(|r| r.slot == slot)
}

fn run_compute(spec: &CaseSpec, program: &Program, engine: &mut dyn Engine) -> Result<(), Stop> {
    let mut resources = build_resources(&spec.resources)?;
    for (n, dispatch) in spec.dispatches.iter().enumerate() {
        for (name, words) in &dispatch.constants {
            let slot = SlotRef::parse(name, 0)
                .ok_or_else(|| CaseError::spec(format!("bad slot name `{name}` in constants")))?;
            let res = find(&mut resources, slot).ok_or_else(|| {
                CaseError::spec(format!("dispatch {n}: constants for unbound {name}"))
            })?;
            res.replace_words(name, words)?;
        }
        engine
            .dispatch(program, &mut resources, dispatch.groups)
            .map_err(|e| engine_stop(engine, e, &format!("dispatch {n}")))?;
        check_all(&dispatch.expected_after, &mut resources, &[])
            .map_err(|m| Stop::Fail(format!("after dispatch {n}: {m}")))?;
    }
    check_all(&spec.expected, &mut resources, &[]).map_err(Stop::Fail)
}

fn run_pixel(spec: &CaseSpec, program: &Program, engine: &mut dyn Engine) -> Result<(), Stop> {
    for (n, run) in spec.runs.iter().enumerate() {
        let mut resources =
            build_resources(&run.resources).map_err(|e| Stop::Fail(format!("run {n}: {e}")))?;
        let outputs = engine
            .invoke(program, &mut resources)
            .map_err(|e| engine_stop(engine, e, &format!("run {n}")))?;
        check_all(&run.expected, &mut resources, &outputs)
            .map_err(|m| Stop::Fail(format!("run {n}: {m}")))?;
    }
    Ok(())
}

/// Checks every expectation; the message names the first difference.
fn check_all(
    expected: &[ExpectSpec],
    resources: &mut [Resource],
    outputs: &[(u32, [u32; 4])],
) -> Result<(), String> {
    for exp in expected {
        let slot = SlotRef::parse(&exp.slot, exp.space)
            .ok_or_else(|| format!("bad case: bad slot name `{}`", exp.slot))?;
        if slot.class == SlotClass::Output {
            let Some((_, value)) = outputs.iter().find(|(r, _)| *r == slot.index) else {
                return Err(format!(
                    "slot {}: the shader wrote no o{}",
                    exp.slot, slot.index
                ));
            };
            let bytes: Vec<u8> = value.iter().flat_map(|w| w.to_le_bytes()).collect();
            check_slot(exp, &bytes, None).map_err(|m| m.to_string())?;
            continue;
        }
        let res = find(resources, slot)
            .ok_or_else(|| format!("bad case: expectation for unbound slot {}", exp.slot))?;
        check_slot(exp, &res.data, res.counter).map_err(|m| m.to_string())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use sm5jit::ir::Opcode;
    use sm5jit::ir::{Instruction, ProgramKind, Version};

    /// A fake engine: each dispatch adds the group count to word 0 of u0
    /// and decrements u0's counter; each invocation writes fixed o0.
    struct Fake {
        o0: [u32; 4],
        unsupported: bool,
    }

    impl Engine for Fake {
        fn name(&self) -> &'static str {
            "fake"
        }
        fn dispatch(
            &mut self,
            _: &Program,
            res: &mut [Resource],
            g: [u32; 3],
        ) -> Result<(), EngineError> {
            if self.unsupported {
                return Err(EngineError::Unsupported("needs texture ops (ld)".into()));
            }
            let cb = res
                .iter()
                .find(|r| r.slot.class == SlotClass::ConstantBuffer)
                .map_or(0, |r| r.data[0]);
            let u0 = res
                .iter_mut()
                .find(|r| r.slot.class == SlotClass::Uav)
                .ok_or_else(|| EngineError::Failed("no u0".into()))?;
            u0.data[0] = u0.data[0].wrapping_add((g[0] * g[1] * g[2]) as u8 + cb);
            u0.counter = u0.counter.map(|c| c.saturating_sub(1));
            Ok(())
        }
        fn invoke(
            &mut self,
            _: &Program,
            _: &mut [Resource],
        ) -> Result<Vec<(u32, [u32; 4])>, EngineError> {
            Ok(vec![(0, self.o0)])
        }
    }

    fn program(opcodes: &[Opcode]) -> Program {
        Program {
            version: Version {
                kind: ProgramKind::Compute,
                major: 5,
                minor: 0,
            },
            decls: Vec::new(),
            insts: opcodes
                .iter()
                .map(|o| Instruction::new(*o, Vec::new()))
                .collect(),
        }
    }

    fn spec(json: &str) -> CaseSpec {
        serde_json::from_str(json).unwrap()
    }

    const COMPUTE: &str = r#"{"id":"c","resources":[
        {"slot":"u0","kind":"raw","buffer_bytes":8,"initial":{"fill_u32":0},"counter":3},
        {"slot":"cb0","kind":"constant","buffer_bytes":4,"initial":{"u32":[0]}}],
      "dispatches":[{"groups":[2,1,1],"expected_after":[
          {"slot":"u0","element":"u32","values":[2],"counter":2}]},
        {"groups":[1,1,1],"constants":{"cb0":[10]}}],
      "expected":[{"slot":"u0","element":"u32","values":[13, 0],"counter":1}]}"#;

    #[test]
    fn compute_case_passes_with_constants_and_checks_between() {
        let mut e = Fake {
            o0: [0; 4],
            unsupported: false,
        };
        let out = run_program(&spec(COMPUTE), &program(&[Opcode::Ret]), &mut e);
        assert_eq!(out, Outcome::Pass);
    }

    #[test]
    fn compute_case_names_the_first_difference() {
        let s = spec(&COMPUTE.replace("[13, 0]", "[14, 0]"));
        let mut e = Fake {
            o0: [0; 4],
            unsupported: false,
        };
        let out = run_program(&s, &program(&[Opcode::Ret]), &mut e);
        assert_eq!(
            out,
            Outcome::Fail("slot u0 word 0: expected 0x0000000e, got 0x0000000d".into())
        );
        let s = spec(&COMPUTE.replace("\"counter\":2", "\"counter\":5"));
        let out = run_program(&s, &program(&[Opcode::Ret]), &mut e);
        assert_eq!(
            out,
            Outcome::Fail("after dispatch 0: slot u0 counter: expected 5, got 2".into())
        );
    }

    #[test]
    fn sampling_shaders_are_not_skipped_up_front() {
        for op in [Opcode::SampleL, Opcode::Gather4, Opcode::Lod] {
            assert_eq!(unsupported_reason(&program(&[op])), None);
        }
    }

    #[test]
    fn engine_unsupported_is_a_skip_and_failure_is_a_fail() {
        let mut e = Fake {
            o0: [0; 4],
            unsupported: true,
        };
        let out = run_program(&spec(COMPUTE), &program(&[Opcode::Ret]), &mut e);
        assert_eq!(out, Outcome::Skip("needs texture ops (ld)".into()));
        let s = spec(&COMPUTE.replace("\"u0\",\"kind\"", "\"t0\",\"kind\""));
        let mut e = Fake {
            o0: [0; 4],
            unsupported: false,
        };
        match run_program(&s, &program(&[Opcode::Ret]), &mut e) {
            Outcome::Fail(m) => assert!(m.contains("dispatch 0: fake error: no u0"), "{m}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn pixel_runs_compare_o0() {
        let s = spec(
            r#"{"id":"p","runs":[
              {"resources":[{"slot":"cb0","kind":"constant","buffer_bytes":16,"initial":{"u32":[1]}}],
               "expected":[{"slot":"o0","element":"u32","values":[1,2,3,4]}]},
              {"resources":[],"expected":[{"slot":"o0","element":"u32","values":[1,2,3,5]}]}]}"#,
        );
        let mut e = Fake {
            o0: [1, 2, 3, 4],
            unsupported: false,
        };
        let out = run_program(&s, &program(&[Opcode::Ret]), &mut e);
        assert_eq!(
            out,
            Outcome::Fail("run 1: slot o0 word 3: expected 0x00000005, got 0x00000004".into())
        );
    }

    #[test]
    fn summary_line_format() {
        let mut s = Summary::default();
        for o in [
            Outcome::Pass,
            Outcome::Pass,
            Outcome::Skip("x".into()),
            Outcome::Fail("y".into()),
        ] {
            s.add(&o);
        }
        assert_eq!(s.to_string(), "2 passed, 1 failed, 1 skipped");
        let r = CaseReport {
            id: "a".into(),
            outcome: Outcome::Skip("needs sampling (sample_l)".into()),
        };
        assert_eq!(r.to_string(), "SKIP a: needs sampling (sample_l)");
    }

    #[test]
    fn every_corpus_case_json_parses() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
        let dirs = find_cases(&[root.join("conformance"), root.join("conformance_ps")]).unwrap();
        assert_eq!(dirs.len(), 130);
        for d in dirs {
            let case = Case::load(&d).unwrap();
            for r in case
                .spec
                .resources
                .iter()
                .chain(case.spec.runs.iter().flat_map(|r| &r.resources))
            {
                Resource::from_spec(r).unwrap_or_else(|e| panic!("{}: {e}", d.display()));
            }
        }
    }

    #[test]
    fn missing_case_is_a_failure() {
        let mut e = Fake {
            o0: [0; 4],
            unsupported: false,
        };
        let r = run_case_dir(Path::new("/nonexistent/case_x"), &mut e);
        assert_eq!(r.id, "case_x");
        assert!(matches!(r.outcome, Outcome::Fail(_)));
    }
}
