//! `sm5jit shader-test FILE...`: the command over [`crate::shader_test`].
//!
//! In: `.shader_test` paths, `--engine`, `--verbose`. Out: failures (and
//! with `--verbose`, todo outcomes), the skip reasons, and the final line
//! `N passed, N failed, N skipped` on stdout; exit 1 on any failure, 3
//! when a file cannot be read. Invariant: the counting lives in the
//! library module; this only reads files and prints.

use clap::Args;

use super::{CliError, EngineChoice, ExitCode};
use crate::shader_test::{run_text, Report};
use sm5jit::EngineKind;

#[derive(Debug, Args)]
pub struct ShaderTestArgs {
    /// `.shader_test` files.
    #[arg(required = true)]
    pub files: Vec<String>,
    /// Engine(s) to run the files on; `both` also compares them.
    #[arg(long, value_enum, default_value_t = EngineChoice::Both)]
    pub engine: EngineChoice,
    /// Also list every `todo` probe's outcome.
    #[arg(short, long)]
    pub verbose: bool,
}

/// The engines an `--engine` choice runs.
pub fn engines(choice: EngineChoice) -> Vec<EngineKind> {
    match choice {
        EngineChoice::Interp => vec![EngineKind::Interpreter],
        EngineChoice::Jit => vec![EngineKind::Jit],
        EngineChoice::Both => vec![EngineKind::Interpreter, EngineKind::Jit],
    }
}

pub fn run(a: &ShaderTestArgs) -> Result<ExitCode, CliError> {
    let engines = engines(a.engine);
    let mut report = Report::default();
    for file in &a.files {
        let text = std::fs::read_to_string(file)
            .map_err(|e| CliError::input(file.clone(), format!("cannot read: {e}")))?;
        run_text(file, &text, &engines, &mut report);
    }
    print!("{}", report.render(a.verbose));
    Ok(if report.failed > 0 {
        ExitCode::Failed
    } else {
        ExitCode::Ok
    })
}
