//! Interpreter integration tests: the corpus conformance cases through the
//! case runner, and hand-written programs for every instruction family,
//! the out-of-bounds rules, barriers, calls, switches, the budget and the
//! binding errors.

use std::path::PathBuf;

use sm5jit::case::spec::ResourceKindSpec;
use sm5jit::case::{self, Engine, EngineError, Outcome, Resource, SlotClass};
use sm5jit::interp::Interpreter;
use sm5jit::ir::Program;
use sm5jit::runtime::{
    Bindings, BufferKind, BufferView, DispatchOptions, Format, RuntimeError, Slot, TextureView,
    View,
};

// ---------------------------------------------------------------------------
// The interpreter as a case-runner engine
// ---------------------------------------------------------------------------

struct InterpEngine;

fn engine_error(e: RuntimeError) -> EngineError {
    match e {
        RuntimeError::Unsupported { .. } => EngineError::Unsupported(e.to_string()),
        other => EngineError::Failed(other.to_string()),
    }
}

fn view_of(r: &Resource) -> Result<View, EngineError> {
    let format = || {
        r.format
            .as_deref()
            .and_then(Format::from_dxgi_name)
            .ok_or_else(|| EngineError::Unsupported(format!("format {:?}", r.format)))
    };
    let buffer = |kind| {
        View::Buffer(BufferView {
            kind,
            first_element: u64::from(r.first_element),
            num_elements: u64::from(r.num_elements),
        })
    };
    Ok(match r.kind {
        ResourceKindSpec::Raw => buffer(BufferKind::Raw),
        ResourceKindSpec::Structured => buffer(BufferKind::Structured { stride: r.stride }),
        ResourceKindSpec::Typed => buffer(BufferKind::Typed(format()?)),
        ResourceKindSpec::Texture2d => {
            View::Texture(TextureView::tex2d(format()?, r.width, r.height))
        }
        ResourceKindSpec::Constant => buffer(BufferKind::Raw),
    })
}

/// Binds the case resources, runs `f`, and copies the counters back.
fn with_bindings<T>(
    resources: &mut [Resource],
    f: impl FnOnce(&mut Bindings) -> Result<T, RuntimeError>,
) -> Result<T, EngineError> {
    let uav_slots: Vec<(usize, Slot)> = resources
        .iter()
        .enumerate()
        .filter(|(_, r)| r.slot.class == SlotClass::Uav)
        .map(|(i, r)| {
            (
                i,
                Slot {
                    space: r.slot.space,
                    index: r.slot.index,
                },
            )
        })
        .collect();
    let mut counters = Vec::new();
    let result = {
        let mut b = Bindings::new();
        for r in resources.iter_mut() {
            let slot = Slot {
                space: r.slot.space,
                index: r.slot.index,
            };
            let view = view_of(r)?;
            match (r.slot.class, r.kind) {
                (SlotClass::ConstantBuffer, _) | (_, ResourceKindSpec::Constant) => {
                    b.cb(slot, &r.data);
                }
                (SlotClass::Uav, _) => match r.counter {
                    Some(c) => {
                        b.uav_with_counter(slot, &mut r.data, view, c);
                    }
                    None => {
                        b.uav(slot, &mut r.data, view);
                    }
                },
                (SlotClass::Srv, _) => {
                    b.srv(slot, &r.data, view);
                }
                (SlotClass::Output, _) => {}
            }
        }
        let out = f(&mut b).map_err(engine_error)?;
        for (i, slot) in uav_slots {
            if let Some(c) = b.counter(slot) {
                counters.push((i, c));
            }
        }
        out
    };
    for (i, c) in counters {
        resources[i].counter = Some(c);
    }
    Ok(result)
}

impl Engine for InterpEngine {
    fn name(&self) -> &'static str {
        "interp"
    }

    fn prepare(&mut self, program: &Program) -> Result<(), EngineError> {
        Interpreter::new(program).map(|_| ()).map_err(engine_error)
    }

    fn dispatch(
        &mut self,
        program: &Program,
        resources: &mut [Resource],
        groups: [u32; 3],
    ) -> Result<(), EngineError> {
        let interp = Interpreter::new(program).map_err(engine_error)?;
        with_bindings(resources, |b| {
            interp.dispatch(b, groups, &DispatchOptions::default())
        })
        .map(|_| ())
    }

    fn invoke(
        &mut self,
        program: &Program,
        resources: &mut [Resource],
    ) -> Result<Vec<(u32, [u32; 4])>, EngineError> {
        let interp = Interpreter::new(program).map_err(engine_error)?;
        with_bindings(resources, |b| {
            interp.run_invocation(b, &[], &DispatchOptions::default())
        })
        .map(|inv| inv.outputs)
    }
}

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
    case::run_program(&case.spec, &shader.program, &mut InterpEngine)
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
