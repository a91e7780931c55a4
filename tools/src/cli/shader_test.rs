//! `sm5jit shader-test PATH...`: the command over [`crate::shader_test`].
//!
//! In: `.shader_test` files and directories (searched recursively for
//! `*.shader_test`, in path order), `--engine`, `--verbose`. Out: failures (and
//! with `--verbose`, todo outcomes), the skip reasons, and the final line
//! `N passed, N failed, N skipped` on stdout; exit 1 on any failure, 3
//! when a file or directory cannot be read or a directory holds no
//! `.shader_test` file. Invariant: the counting lives in the
//! library module; this only reads files and prints.

use std::path::{Path, PathBuf};

use clap::Args;

use super::{CliError, EngineChoice, ExitCode};
use crate::shader_test::{run_text, Report};
use sm5jit::EngineKind;

#[derive(Debug, Args)]
pub struct ShaderTestArgs {
    /// `.shader_test` files, or directories to search (recursively) for them.
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
    let mut files = Vec::new();
    for path in &a.files {
        files.extend(test_files(Path::new(path))?);
    }
    for file in &files {
        let name = file.display().to_string();
        let text = std::fs::read_to_string(file)
            .map_err(|e| CliError::input(name.clone(), format!("cannot read: {e}")))?;
        run_text(&name, &text, &engines, &mut report);
    }
    print!("{}", report.render(a.verbose));
    Ok(if report.failed > 0 {
        ExitCode::Failed
    } else {
        ExitCode::Ok
    })
}

/// The files a path names: itself when it is not a directory (whatever
/// its name), else every `*.shader_test` file under it, in path order
/// (links to directories inside it are not followed). A directory
/// without one is an error, so a mistyped path cannot pass.
fn test_files(path: &Path) -> Result<Vec<PathBuf>, CliError> {
    if !path.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut found = Vec::new();
    walk(path, &mut found)?;
    found.sort();
    if found.is_empty() {
        return Err(CliError::input(
            path.display().to_string(),
            "no .shader_test file in this directory".to_string(),
        ));
    }
    Ok(found)
}

fn walk(dir: &Path, found: &mut Vec<PathBuf>) -> Result<(), CliError> {
    let fail =
        |e: std::io::Error| CliError::input(dir.display().to_string(), format!("cannot read: {e}"));
    for entry in std::fs::read_dir(dir).map_err(fail)? {
        let entry = entry.map_err(fail)?;
        let path = entry.path();
        // Links to directories are not followed (no loops), like `case`.
        if entry.file_type().map_err(fail)?.is_dir() {
            walk(&path, found)?;
        } else if path.is_file() && path.extension().is_some_and(|x| x == "shader_test") {
            found.push(path);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_gives_its_shader_tests_recursively_in_order() {
        let dir = std::env::temp_dir().join(format!("sm5jit-st-{}", std::process::id()));
        let sub = dir.join("sub");
        std::fs::create_dir_all(&sub).unwrap();
        for f in [
            dir.join("b.shader_test"),
            dir.join("a.shader_test"),
            dir.join("notes.txt"),
            sub.join("c.shader_test"),
        ] {
            std::fs::write(f, "").unwrap();
        }
        let got = test_files(&dir).unwrap();
        let names: Vec<_> = got
            .iter()
            .map(|p| p.strip_prefix(&dir).unwrap().to_path_buf())
            .collect();
        assert_eq!(
            names,
            ["a.shader_test", "b.shader_test", "sub/c.shader_test"].map(PathBuf::from)
        );
        // A file is taken as it is named; an empty directory is an error.
        assert_eq!(
            test_files(&dir.join("notes.txt")).unwrap(),
            [dir.join("notes.txt")]
        );
        let empty = dir.join("empty");
        std::fs::create_dir_all(&empty).unwrap();
        let e = test_files(&empty).unwrap_err();
        assert!(format!("{e}").contains("no .shader_test file"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
