//! `--dump-clif`, `--dump-asm` and `--dump-code` of `run` and `bench`: the
//! JIT's code for a shader as text, or its machine code's bytes.
//!
//! In: the shader's name and program, and the three options. Out: the
//! batch function in Cranelift IR and/or its x86-64 machine code, each
//! under a header line naming the shader, on stderr or appended to a
//! file; and/or the machine code's bytes written to a file (for
//! `objdump -b binary` and a per-instruction profile, docs/performance.md).
//! Invariant: dumping compiles the shader once more on its own, so what
//! runs and what is timed never depend on these options.

use std::io::Write;

use clap::Args;

use super::error::CliError;
use sm5jit::ir::Program;
use sm5jit::jit::JitShader;

#[derive(Clone, Debug, Default, Args)]
pub struct CodeDumpArgs {
    /// Print the JIT's Cranelift IR (after Cranelift's optimisations) to stderr, or append it to FILE.
    #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = "")]
    pub dump_clif: Option<String>,
    /// Print the JIT's x86-64 machine code to stderr, or append it to FILE.
    #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = "")]
    pub dump_asm: Option<String>,
    /// Write the JIT's machine code (raw bytes, before relocation) to FILE.
    #[arg(long, value_name = "FILE")]
    pub dump_code: Option<String>,
}

impl CodeDumpArgs {
    /// Whether either dump was asked for.
    pub fn any(&self) -> bool {
        self.dump_clif.is_some() || self.dump_asm.is_some() || self.dump_code.is_some()
    }
}

/// Compiles `program` for the dumps `a` asks for and writes them: the
/// tier-0 code on `--tier 0`, else the tier-1 code (what auto settles on).
pub fn dump(
    name: &str,
    program: &Program,
    a: &CodeDumpArgs,
    tier: sm5jit::jit::Tier,
) -> Result<(), CliError> {
    if !a.any() {
        return Ok(());
    }
    let tier = match tier {
        sm5jit::jit::Tier::Zero => tier,
        _ => sm5jit::jit::Tier::One,
    };
    let options = sm5jit::jit::CompileOptions::tier(tier);
    let (_, code) = JitShader::compile_dump_with(program, &options)
        .map_err(|e| CliError::runtime(format!("{name}: jit: {e}")))?;
    if let Some(dest) = &a.dump_clif {
        emit(
            dest,
            &format!("; sm5jit --dump-clif: {name}\n{}", code.clif),
        )?;
    }
    if let Some(dest) = &a.dump_asm {
        emit(dest, &format!("; sm5jit --dump-asm: {name}\n{}", code.asm))?;
    }
    if let Some(dest) = &a.dump_code {
        std::fs::write(dest, &code.code)
            .map_err(|e| CliError::input(dest.to_string(), e.to_string()))?;
    }
    Ok(())
}

/// Writes `text` to stderr (`dest` empty) or appends it to the file `dest`.
fn emit(dest: &str, text: &str) -> Result<(), CliError> {
    let io = |e: std::io::Error| CliError::input(dest.to_string(), e.to_string());
    if dest.is_empty() {
        std::io::stderr().write_all(text.as_bytes()).map_err(io)
    } else {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(dest)
            .and_then(|mut f| f.write_all(text.as_bytes()))
            .map_err(io)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_dumps_go_to_one_file_under_headers() {
        let dir = std::env::temp_dir().join(format!("sm5jit-codedump-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("dump.txt");
        let _ = std::fs::remove_file(&path);
        let p = sm5jit::asm::parse_program(
            "cs_5_0
dcl_uav_raw u0
dcl_thread_group 4, 1, 1
store_raw u0.x, l(0), l(7)
ret
",
        )
        .expect("parse");
        let file = path.to_string_lossy().into_owned();
        let code = dir.join("code.bin");
        let a = CodeDumpArgs {
            dump_clif: Some(file.clone()),
            dump_asm: Some(file),
            dump_code: Some(code.to_string_lossy().into_owned()),
        };
        dump("k.asm", &p, &a, sm5jit::jit::Tier::Auto).expect("dump");
        let text = std::fs::read_to_string(&path).expect("read");
        let clif = text
            .find("; sm5jit --dump-clif: k.asm\nfunction ")
            .expect(&text);
        let asm = text.find("; sm5jit --dump-asm: k.asm\n").expect(&text);
        assert!(clif < asm);
        // The bytes start with the frame's `push %rbp` (0x55).
        let bytes = std::fs::read(&code).expect("read code");
        assert_eq!(bytes.first(), Some(&0x55), "{bytes:02x?}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_unwritable_file_is_an_error_naming_it() {
        let p =
            sm5jit::asm::parse_program("cs_5_0\ndcl_thread_group 1, 1, 1\nret\n").expect("parse");
        let a = CodeDumpArgs {
            dump_clif: Some("/nonexistent-dir/x.clif".into()),
            dump_asm: None,
            dump_code: None,
        };
        let e = dump("k", &p, &a, sm5jit::jit::Tier::Auto).unwrap_err();
        assert_eq!(e.location.as_deref(), Some("/nonexistent-dir/x.clif"));
        assert!(!e.message.is_empty());
    }
}
