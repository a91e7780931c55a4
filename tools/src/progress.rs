//! Progress of long commands (`fuzz`, `case`, `bench`, `shader-test`).
//!
//! In: a length and a unit. Out: an `indicatif` bar on stderr when stderr
//! is a terminal; nothing while running otherwise (the commands print their
//! summary lines themselves, so a log file gets no per-second lines).
//! Invariant: [`Progress::println`] always reaches stderr, above the bar on
//! a terminal.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A progress bar that exists only on a terminal.
pub struct Progress {
    bar: Option<ProgressBar>,
}

impl Progress {
    /// A bar of `len` steps counted in `unit` (e.g. "cases") when stderr is
    /// a terminal, else a silent one.
    pub fn new(len: u64, unit: &str) -> Progress {
        if !std::io::stderr().is_terminal() {
            return Progress::hidden();
        }
        let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
        let template =
            format!("{{spinner}} [{{elapsed_precise}}] {{bar:40}} {{pos}}/{{len}} {unit} {{msg}}");
        if let Ok(style) = ProgressStyle::with_template(&template) {
            bar.set_style(style);
        }
        bar.enable_steady_tick(Duration::from_millis(200));
        Progress { bar: Some(bar) }
    }

    /// A bar that draws nothing.
    pub fn hidden() -> Progress {
        Progress { bar: None }
    }

    /// Whether a bar is drawn.
    pub fn visible(&self) -> bool {
        self.bar.is_some()
    }

    /// Advances by `n` steps.
    pub fn inc(&self, n: u64) {
        if let Some(b) = &self.bar {
            b.inc(n);
        }
    }

    /// Sets the position to `pos` steps.
    pub fn set_position(&self, pos: u64) {
        if let Some(b) = &self.bar {
            b.set_position(pos);
        }
    }

    /// Shows `msg` after the counter.
    pub fn set_message(&self, msg: impl Into<String>) {
        if let Some(b) = &self.bar {
            b.set_message(msg.into());
        }
    }

    /// Prints `line` on stderr (above the bar when there is one).
    pub fn println(&self, line: impl AsRef<str>) {
        match &self.bar {
            Some(b) => b.suspend(|| eprintln!("{}", line.as_ref())),
            None => eprintln!("{}", line.as_ref()),
        }
    }

    /// Runs `f` (printing to stdout, say) with the bar hidden meanwhile.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        match &self.bar {
            Some(b) => b.suspend(f),
            None => f(),
        }
    }

    /// Prints `line` on stderr only when no bar is drawn: the plain
    /// per-item line of a log, which a terminal shows as the bar instead.
    pub fn log(&self, line: impl AsRef<str>) {
        if self.bar.is_none() {
            eprintln!("{}", line.as_ref());
        }
    }

    /// Removes the bar; later output starts on a clean line.
    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}
