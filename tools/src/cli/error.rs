//! CLI errors and exit codes.
//!
//! In: failures from any stage, already turned into a located message
//! (`FILE:LINE:COL: ...`, `FILE: byte N: ...`). Out: the text printed on
//! stderr and the process exit code. Invariant: every failure maps to exactly
//! one documented exit code (`docs/cli.md`).

use std::fmt;
use std::io::IsTerminal;

/// Process exit codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(i32)]
pub enum ExitCode {
    /// Everything worked.
    Ok = 0,
    /// A case failed, or the engines disagreed.
    Failed = 1,
    /// Bad command line.
    Usage = 2,
    /// Bad input: I/O, decode, assembly, validation.
    BadInput = 3,
    /// Runtime error: binding, budget, engine not available.
    Runtime = 4,
}

/// A failure the CLI reports and exits on.
#[derive(Debug)]
pub struct CliError {
    pub code: ExitCode,
    /// Where, when known: `FILE`, `FILE:LINE:COL`, `FILE: byte N`.
    pub location: Option<String>,
    pub message: String,
}

impl CliError {
    pub fn usage(message: impl Into<String>) -> CliError {
        CliError {
            code: ExitCode::Usage,
            location: None,
            message: message.into(),
        }
    }

    pub fn input(location: impl Into<String>, message: impl Into<String>) -> CliError {
        CliError {
            code: ExitCode::BadInput,
            location: Some(location.into()),
            message: message.into(),
        }
    }

    pub fn runtime(message: impl Into<String>) -> CliError {
        CliError {
            code: ExitCode::Runtime,
            location: None,
            message: message.into(),
        }
    }

    pub fn failed(message: impl Into<String>) -> CliError {
        CliError {
            code: ExitCode::Failed,
            location: None,
            message: message.into(),
        }
    }

    /// Prefixes a location (`FILE: ...`) when none is set yet.
    pub fn at(mut self, location: impl Into<String>) -> CliError {
        if self.location.is_none() {
            self.location = Some(location.into());
        }
        self
    }

    /// Prints `LOCATION: error: MESSAGE` on stderr, `error:` in red only
    /// when stderr is a terminal and `NO_COLOR` is unset.
    pub fn report(&self) {
        let colour = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
        let label = if colour {
            "\x1b[1;31merror:\x1b[0m"
        } else {
            "error:"
        };
        match &self.location {
            Some(loc) => eprintln!("{loc}: {label} {}", self.message),
            None => eprintln!("sm5jit: {label} {}", self.message),
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.location {
            Some(loc) => write!(f, "{loc}: error: {}", self.message),
            None => write!(f, "error: {}", self.message),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_has_location_first() {
        let e = CliError::input("a.asm:3:7", "unknown opcode `fma`");
        assert_eq!(e.to_string(), "a.asm:3:7: error: unknown opcode `fma`");
        assert_eq!(e.code as i32, 3);
        let e = CliError::runtime("x").at("f.dxbc");
        assert_eq!(e.to_string(), "f.dxbc: error: x");
        assert_eq!(e.code as i32, 4);
        assert_eq!(
            CliError::usage("u").at("a").at("b").location.as_deref(),
            Some("a")
        );
    }
}
