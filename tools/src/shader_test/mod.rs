//! `sm5jit shader-test`: runs vkd3d's `.shader_test` files (shaders as
//! `dxbc-tpf-hex` blocks) through the library's public API.
//!
//! In: file paths and the engines to use. Out: a [`Report`]: every probe's
//! verdict per engine (passed, failed, `todo` failing as marked, skipped
//! with the missing feature named), engine disagreements, and the final
//! line `N passed, N failed, N skipped`. Invariant: this is a tool on top
//! of the public API (`Shader`, `Bindings`, invocation batches); the
//! pipeline around the shaders (input assembly, rasterization, output
//! merger) is ours, in [`draw`] and [`raster`]; a `todo` probe that fails
//! is never a failure and never a pass, a skip is never a pass.

pub mod draw;
pub mod exec;
pub mod probe;
pub mod raster;
pub mod resource;
pub mod script;
pub mod shaders;
pub mod values;

use std::collections::BTreeMap;
use std::fmt::Write as _;

use exec::Verdict;
use sm5jit::EngineKind;

/// Totals over files and engines (one count per probe per engine).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    pub passed: u64,
    pub failed: u64,
    pub skipped: u64,
    /// `todo` probes that failed (reported, not failures).
    pub todo_failed: u64,
    /// `todo` probes that passed (counted in `passed` too).
    pub todo_passed: u64,
    /// Skip reasons and how many probes each skipped.
    pub skip_reasons: BTreeMap<String, u64>,
    /// One line per failure, `FILE:LINE: [engine] ...`.
    pub failures: Vec<String>,
    /// One line per todo outcome.
    pub todos: Vec<String>,
}

impl Report {
    /// Adds another report's counts and lines to this one.
    pub fn merge(&mut self, o: Report) {
        self.passed += o.passed;
        self.failed += o.failed;
        self.skipped += o.skipped;
        self.todo_failed += o.todo_failed;
        self.todo_passed += o.todo_passed;
        for (why, n) in o.skip_reasons {
            *self.skip_reasons.entry(why).or_default() += n;
        }
        self.failures.extend(o.failures);
        self.todos.extend(o.todos);
    }

    /// The final line.
    pub fn summary(&self) -> String {
        format!(
            "{} passed, {} failed, {} skipped",
            self.passed, self.failed, self.skipped
        )
    }

    /// Everything to print: failures, todos (when `verbose`), skip
    /// reasons, todo totals, then the summary line.
    pub fn render(&self, verbose: bool) -> String {
        let mut s = String::new();
        for f in &self.failures {
            let _ = writeln!(s, "{f}");
        }
        if verbose {
            for t in &self.todos {
                let _ = writeln!(s, "{t}");
            }
        }
        if !self.skip_reasons.is_empty() {
            let _ = writeln!(s, "skipped:");
            for (why, n) in &self.skip_reasons {
                let _ = writeln!(s, "  {n} x {why}");
            }
        }
        if self.todo_failed + self.todo_passed > 0 {
            let _ = writeln!(
                s,
                "todo: {} failing as marked, {} passing (counted as passed)",
                self.todo_failed, self.todo_passed
            );
        }
        let _ = writeln!(s, "{}", self.summary());
        s
    }
}

fn engine_name(e: EngineKind) -> &'static str {
    match e {
        EngineKind::Interpreter => "interp",
        EngineKind::Jit => "jit",
    }
}

/// Runs one file's text (named `name` in messages) on each engine and adds
/// the outcome to `report`. With two engines, probes whose bytes differ
/// between them are failures too.
pub fn run_text(name: &str, text: &str, engines: &[EngineKind], report: &mut Report) {
    let script = script::parse(text);
    let runs: Vec<(EngineKind, exec::Run)> = engines
        .iter()
        .map(|&e| (e, exec::run(&script, e)))
        .collect();
    for (engine, run) in &runs {
        let tag = engine_name(*engine);
        for r in &run.records {
            let at = format!("{name}:{}: [{tag}] {}", r.line, r.text);
            match (&r.verdict, r.todo) {
                (Verdict::Pass, todo) => {
                    report.passed += 1;
                    if todo {
                        report.todo_passed += 1;
                        report.todos.push(format!("{at}: todo, but passes"));
                    }
                }
                (Verdict::Fail(why), true) => {
                    report.todo_failed += 1;
                    report.todos.push(format!("{at}: todo: {why}"));
                }
                (Verdict::Fail(why), false) => {
                    report.failed += 1;
                    report.failures.push(format!("{at}: FAIL: {why}"));
                }
                (Verdict::Skip(why), _) => {
                    report.skipped += 1;
                    *report.skip_reasons.entry(why.clone()).or_default() += 1;
                }
            }
        }
    }
    if let [(ea, a), (eb, b), ..] = runs.as_slice() {
        for (ra, rb) in a.records.iter().zip(&b.records) {
            if ra.line == rb.line && ra.read != rb.read {
                report.failed += 1;
                report.failures.push(format!(
                    "{name}:{}: {}: FAIL: {} and {} read different bytes",
                    ra.line,
                    ra.text,
                    engine_name(*ea),
                    engine_name(*eb)
                ));
            }
        }
    }
}
