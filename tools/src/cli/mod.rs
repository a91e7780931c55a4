//! The `sm5jit` command line: a thin layer over the library.
//!
//! In: the process arguments. Out: output files or stdout, messages on
//! stderr, and an exit code from [`ExitCode`] (0 ok, 1 a case failed or the
//! engines disagreed, 2 usage, 3 bad input, 4 runtime error). Invariant: the
//! commands only parse options, call the library and print; the pipeline
//! itself (decode, parse, validate, run, compare) lives in the library
//! modules, reached through [`front`] and [`crate::case`].

pub mod bench;
pub mod binding;
pub mod codedump;
pub mod error;
pub mod front;
pub mod fuzz;
pub mod run;
pub mod shader_test;
pub mod stage;

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

pub use error::{CliError, ExitCode};

/// Which engine runs shaders.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum EngineChoice {
    /// The reference interpreter.
    Interp,
    /// The Cranelift JIT.
    Jit,
    /// Both, comparing their results.
    Both,
}

/// The engine used when `--engine` is not given.
pub const DEFAULT_ENGINE: EngineChoice = EngineChoice::Jit;

/// Runs Direct3D 11 Shader Model 4/5 shaders (DXBC or assembly) on the CPU.
#[derive(Debug, Parser)]
#[command(name = "sm5jit", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print a shader as SM4/SM5 assembly in fxc's dialect.
    Disasm(DisasmArgs),
    /// Assemble SM4/SM5 assembly into a DXBC container with a valid checksum.
    Asm(AsmArgs),
    /// Check shaders against the rules of their shader model.
    Validate(ValidateArgs),
    /// Show what a shader contains: model, declarations, instruction counts.
    Info(InfoArgs),
    /// Run a compute shader on buffers, or a vertex/pixel shader over vertices or a pixel grid (no SHADER: the showcase).
    Run(run::RunArgs),
    /// Run conformance cases (case.json + shader.dxbc) and compare the results.
    Case(CaseArgs),
    /// Time the benchmark kernels on an engine and natively (and prepare the lavapipe comparison).
    Bench(bench::BenchArgs),
    /// Differential fuzzing: random valid programs on two engines.
    Fuzz(fuzz::FuzzArgs),
    /// Run vkd3d `.shader_test` files (shaders as dxbc-tpf-hex blocks).
    ShaderTest(shader_test::ShaderTestArgs),
}

#[derive(Debug, Args)]
pub struct DisasmArgs {
    /// Shader file (.dxbc/.cso, or .asm); `-` reads stdin.
    pub file: String,
    /// Output file; `-` or absent writes stdout.
    #[arg(short, long)]
    pub output: Option<String>,
    /// Decode even if the container's checksum is wrong.
    #[arg(long)]
    pub ignore_checksum: bool,
    /// Lossless listing: re-assembles to the same tokens.
    #[arg(long)]
    pub exact: bool,
    /// Which fxc's spelling to follow: `modern` (d3dcompiler_47) or `legacy` (older fxc).
    #[arg(long, value_enum, default_value_t = ListingStyleArg::Modern)]
    pub style: ListingStyleArg,
}

/// `--style` of `disasm`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ListingStyleArg {
    /// d3dcompiler_47 (Windows 10 SDK): shortest float digits, `CB0[n]`.
    Modern,
    /// Older fxc: 17 significant float digits, `cb0[n]`.
    Legacy,
}

#[derive(Debug, Args)]
pub struct AsmArgs {
    /// Assembly file; `-` reads stdin.
    pub file: String,
    /// Output DXBC file; `-` writes stdout.
    #[arg(short, long)]
    pub output: String,
}

#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// Shader files (.dxbc or .asm).
    #[arg(required = true)]
    pub files: Vec<String>,
    /// Decode even if a container's checksum is wrong.
    #[arg(long)]
    pub ignore_checksum: bool,
}

#[derive(Debug, Args)]
pub struct InfoArgs {
    /// Shader file (.dxbc or .asm); `-` reads stdin.
    pub file: String,
    /// Decode even if the container's checksum is wrong.
    #[arg(long)]
    pub ignore_checksum: bool,
    /// `text`, or `json`: the reflection (`Shader::reflect`) as one object.
    #[arg(long, value_enum, default_value_t = run::OutputFormat::Text)]
    pub format: run::OutputFormat,
}

#[derive(Debug, Args)]
pub struct CaseArgs {
    /// Case directories, or folders searched recursively for case.json.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Engine to run the cases on.
    #[arg(long, value_enum, default_value_t = DEFAULT_ENGINE)]
    pub engine: EngineChoice,
    /// Also print each case's directory and time.
    #[arg(short, long)]
    pub verbose: bool,
}

/// Parses the arguments, runs the command and returns the exit code.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() {
                ExitCode::Usage
            } else {
                ExitCode::Ok
            };
            let _ = e.print();
            return code as i32;
        }
    };
    match execute(cli) {
        Ok(code) => code as i32,
        Err(e) => {
            e.report();
            e.code as i32
        }
    }
}

/// Runs a parsed command line.
pub fn execute(cli: Cli) -> Result<ExitCode, CliError> {
    match cli.command {
        None => run::run(&run::RunArgs::default()),
        Some(Command::Disasm(a)) => disasm(&a),
        Some(Command::Asm(a)) => assemble(&a),
        Some(Command::Validate(a)) => validate(&a),
        Some(Command::Info(a)) => info(&a),
        Some(Command::Run(a)) => run::run(&a),
        Some(Command::Case(a)) => run::cases(&a),
        Some(Command::Bench(a)) => bench::bench(&a),
        Some(Command::Fuzz(a)) => fuzz::run(&a),
        Some(Command::ShaderTest(a)) => shader_test::run(&a),
    }
}

fn disasm(a: &DisasmArgs) -> Result<ExitCode, CliError> {
    let loaded = front::load(&a.file, a.ignore_checksum)?;
    let style = match a.style {
        ListingStyleArg::Modern => sm5jit::asm::ListingStyle::Modern,
        ListingStyleArg::Legacy => sm5jit::asm::ListingStyle::Legacy,
    };
    let text = front::print(&loaded.program, a.exact, style)?;
    front::write_output(a.output.as_deref().unwrap_or("-"), text.as_bytes())?;
    Ok(ExitCode::Ok)
}

fn assemble(a: &AsmArgs) -> Result<ExitCode, CliError> {
    let name = front::display_name(&a.file);
    let loaded = front::load(&a.file, false)?;
    front::validate(&name, &loaded.program)?;
    let bytes = front::encode(&name, &loaded.program)?;
    front::write_output(&a.output, &bytes)?;
    Ok(ExitCode::Ok)
}

fn validate(a: &ValidateArgs) -> Result<ExitCode, CliError> {
    let mut worst: Option<CliError> = None;
    for file in &a.files {
        let name = front::display_name(file);
        let result =
            front::load(file, a.ignore_checksum).and_then(|l| front::validate(&name, &l.program));
        match result {
            Ok(_) => println!("{name}: ok"),
            Err(e) => {
                e.report();
                worst.get_or_insert(e);
            }
        }
    }
    match worst {
        None => Ok(ExitCode::Ok),
        Some(e) => Ok(e.code),
    }
}

fn info(a: &InfoArgs) -> Result<ExitCode, CliError> {
    let name = front::display_name(&a.file);
    let loaded = front::load(&a.file, a.ignore_checksum)?;
    let reflection = front::validate(&name, &loaded.program)
        .map(|info| sm5jit::reflect::reflect(&loaded.program, &info, loaded.chunks.as_ref()));
    match a.format {
        run::OutputFormat::Text => {
            print!("{}", run::describe(&name, &loaded));
            match &reflection {
                Ok(r) => print!("reflection:\n{}", indent(&r.describe())),
                Err(e) => println!("reflection: none, the program is not valid: {e}"),
            }
        }
        run::OutputFormat::Json => {
            let r = reflection?;
            let v = serde_json::json!({ "file": name, "reflection": r });
            println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
        }
    }
    Ok(ExitCode::Ok)
}

/// Every line of `text` indented by two spaces.
fn indent(text: &str) -> String {
    text.lines().map(|l| format!("  {l}\n")).collect()
}
