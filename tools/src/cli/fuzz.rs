//! `sm5jit fuzz`: the differential fuzz loop from the command line.
//!
//! In: [`FuzzArgs`]. Out: a progress bar on stderr when it is a terminal, a
//! summary on stdout, reduced reproducers under `--save`, and exit code 1
//! if any program made the engines disagree. Invariant: the command only
//! parses options and prints; the loop is [`crate::fuzz::run::fuzz`].

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use super::{CliError, ExitCode};
use crate::fuzz::run::{fuzz, make_engine, summary, FuzzOptions};

#[derive(Debug, Args)]
pub struct FuzzArgs {
    /// Run for this many seconds.
    #[arg(long, default_value_t = 10)]
    pub seconds: u64,
    /// Stop after this many programs (whichever comes first).
    #[arg(long)]
    pub programs: Option<u64>,
    /// First seed; program k uses seed + k.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Worker threads.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Print per-opcode generation counts.
    #[arg(long)]
    pub coverage: bool,
    /// Save a reduced reproducer of each mismatch under this directory.
    #[arg(long)]
    pub save: Option<PathBuf>,
    /// The engines to compare, the first against each other (interp,
    /// interp2, jit, jit0, jit1); default: by --tier.
    #[arg(long)]
    pub engines: Option<String>,
    /// JIT tier the default engines use: 0 (interp,jit0), 1 (interp,jit1) or
    /// auto (three ways: interp,jit0,jit1).
    #[arg(long, value_enum, default_value_t = super::TierArg::Auto)]
    pub tier: super::TierArg,
}

/// Runs `sm5jit fuzz`.
pub fn run(a: &FuzzArgs) -> Result<ExitCode, CliError> {
    let default = match a.tier {
        super::TierArg::Zero => "interp,jit0",
        super::TierArg::One => "interp,jit1",
        super::TierArg::Auto => "interp,jit0,jit1",
    };
    let names: Vec<&str> = a
        .engines
        .as_deref()
        .unwrap_or(default)
        .split(',')
        .map(str::trim)
        .collect();
    if names.len() < 2 {
        return Err(CliError::usage(
            "--engines needs at least two names, e.g. interp,jit",
        ));
    }
    for name in &names {
        make_engine(name).map_err(CliError::usage)?;
    }
    let opts = FuzzOptions {
        seed: a.seed,
        duration: Some(Duration::from_secs(a.seconds)),
        programs: a.programs,
        threads: a.threads.max(1),
        engines: names.iter().map(|n| n.to_string()).collect(),
        save: a.save.clone(),
        progress: true,
        ..FuzzOptions::default()
    };
    let report = fuzz(&opts);
    print!("{}", summary(&report, a.coverage));
    Ok(if report.failures.is_empty() {
        ExitCode::Ok
    } else {
        ExitCode::Failed
    })
}
