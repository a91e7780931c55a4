//! Reading shaders and writing outputs for the CLI.
//!
//! In: a path (or `-` for stdin/stdout) and the bytes behind it. Out: a
//! decoded or parsed [`Program`] with its source format, or a [`CliError`]
//! that names the file and the place in it. Invariant: the format comes from
//! the file extension when it is a known one, otherwise from the `DXBC`
//! magic; every call into the decoder, parser, printer, encoder and
//! validator goes through this module, so the commands never depend on the
//! stages' error types directly.

use std::io::{Read, Write};
use std::path::Path;

use super::error::CliError;
use crate::ir::Program;

/// The two input formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceFormat {
    /// A DXBC container (`.dxbc`, `.cso`, `.fxo`, `.bin`, or the magic).
    Dxbc,
    /// SM4/SM5 assembly text in fxc's dialect (`.asm`, `.s`, `.txt`).
    Asm,
}

/// A shader read from disk or stdin.
#[derive(Clone, Debug)]
pub struct Loaded {
    pub format: SourceFormat,
    pub program: Program,
    /// The input bytes (for `info`).
    pub bytes: Vec<u8>,
}

/// The name used in messages for `path` (`<stdin>` for `-`).
pub fn display_name(path: &str) -> String {
    if path == "-" {
        "<stdin>".to_string()
    } else {
        path.to_string()
    }
}

/// Reads a file, or stdin for `-`.
pub fn read_input(path: &str) -> Result<Vec<u8>, CliError> {
    let mut bytes = Vec::new();
    let result = if path == "-" {
        std::io::stdin().read_to_end(&mut bytes).map(|_| ())
    } else {
        std::fs::read(path).map(|b| bytes = b)
    };
    result.map_err(|e| CliError::input(display_name(path), e.to_string()))?;
    Ok(bytes)
}

/// Writes a file, or stdout for `-`.
pub fn write_output(path: &str, bytes: &[u8]) -> Result<(), CliError> {
    let result = if path == "-" {
        let mut out = std::io::stdout().lock();
        out.write_all(bytes).and_then(|()| out.flush())
    } else {
        std::fs::write(path, bytes)
    };
    result.map_err(|e| CliError::input(display_name(path), e.to_string()))
}

/// The format of `bytes` read from `path`: the extension decides when it
/// is a known one, otherwise the `DXBC` magic.
pub fn detect_format(path: &str, bytes: &[u8]) -> SourceFormat {
    let ext = Path::new(path)
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("dxbc" | "cso" | "fxo" | "bin" | "o") => SourceFormat::Dxbc,
        Some("asm" | "s" | "txt" | "sm5" | "sm4") => SourceFormat::Asm,
        _ if bytes.starts_with(b"DXBC") => SourceFormat::Dxbc,
        _ => SourceFormat::Asm,
    }
}

/// Reads and decodes/parses the shader at `path` (no validation).
pub fn load(path: &str, ignore_checksum: bool) -> Result<Loaded, CliError> {
    let bytes = read_input(path)?;
    let name = display_name(path);
    let format = detect_format(path, &bytes);
    let program = match format {
        SourceFormat::Dxbc => decode(&name, &bytes, ignore_checksum)?,
        SourceFormat::Asm => {
            let text = std::str::from_utf8(&bytes).map_err(|e| {
                CliError::input(
                    format!("{name}: byte {}", e.valid_up_to()),
                    "not a DXBC container (no `DXBC` magic) and not UTF-8 assembly text",
                )
            })?;
            parse(&name, text)?
        }
    };
    Ok(Loaded {
        format,
        program,
        bytes,
    })
}

/// Decodes a DXBC container; errors are `NAME: ...` with the decoder's
/// byte/dword offset in the message.
pub fn decode(name: &str, bytes: &[u8], ignore_checksum: bool) -> Result<Program, CliError> {
    let _ = (bytes, ignore_checksum);
    Err(CliError::input(
        name,
        "the DXBC decoder is not available in this build",
    ))
}

/// Parses assembly text; errors are `NAME:LINE:COL: ...`.
pub fn parse(name: &str, text: &str) -> Result<Program, CliError> {
    let _ = text;
    Err(CliError::input(
        name,
        "the assembler is not available in this build",
    ))
}

/// Validates a program; errors are `NAME: instruction N (opcode): ...`.
pub fn validate(name: &str, program: &Program) -> Result<(), CliError> {
    let _ = program;
    Err(CliError::input(
        name,
        "the validator is not available in this build",
    ))
}

/// The fxc-style listing (`exact` = lossless, re-assembles to the same tokens).
pub fn print(program: &Program, exact: bool) -> Result<String, CliError> {
    let _ = (program, exact);
    Err(CliError::runtime(
        "the printer is not available in this build",
    ))
}

/// Encodes a DXBC container with a correct checksum.
pub fn encode(name: &str, program: &Program) -> Result<Vec<u8>, CliError> {
    let _ = program;
    Err(CliError::input(
        name,
        "the DXBC encoder is not available in this build",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_from_extension_then_magic() {
        assert_eq!(detect_format("a.asm", b"DXBC"), SourceFormat::Asm);
        assert_eq!(detect_format("a.CSO", b"cs_5_0"), SourceFormat::Dxbc);
        assert_eq!(detect_format("-", b"DXBC\0\0"), SourceFormat::Dxbc);
        assert_eq!(detect_format("-", b"cs_5_0\n"), SourceFormat::Asm);
        assert_eq!(detect_format("shader", b"DXBCxx"), SourceFormat::Dxbc);
    }

    #[test]
    fn missing_file_is_bad_input_with_the_name() {
        let e = read_input("/nonexistent/x.dxbc").unwrap_err();
        assert_eq!(e.code as i32, 3);
        assert_eq!(e.location.as_deref(), Some("/nonexistent/x.dxbc"));
    }
}
