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
use sm5jit::dxbc::{read_dxbc, write_dxbc, ChunkInfo, DecodeError, ReadOptions, Shader};
use sm5jit::ir::Program;
use sm5jit::validate::ProgramInfo;

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
    /// The container's reflection chunks (DXBC input only).
    pub chunks: Option<ChunkInfo>,
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
    let mut chunks = None;
    let program = match format {
        SourceFormat::Dxbc => {
            let shader = decode(&name, &bytes, ignore_checksum)?;
            chunks = Some(shader.info);
            shader.program
        }
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
        chunks,
    })
}

/// Decodes a DXBC container; errors are `NAME: byte N: ...` (token errors
/// also give the dword inside the shader chunk and the opcode).
pub fn decode(name: &str, bytes: &[u8], ignore_checksum: bool) -> Result<Shader, CliError> {
    let opts = ReadOptions { ignore_checksum };
    read_dxbc(bytes, &opts).map_err(|e| decode_error(name, bytes, &e))
}

fn decode_error(name: &str, bytes: &[u8], e: &DecodeError) -> CliError {
    match e {
        DecodeError::Container { offset, what } => {
            CliError::input(format!("{name}: byte {offset}"), what.clone())
        }
        DecodeError::Token {
            offset,
            opcode,
            what,
        } => {
            let op = opcode.map_or(String::new(), |o| format!(" ({})", o.mnemonic()));
            let loc = match shader_chunk_start(bytes) {
                Some(start) => format!(
                    "{name}: byte {} (token {offset}{op})",
                    start.saturating_add(offset.saturating_mul(4))
                ),
                None => format!("{name}: token {offset}{op}"),
            };
            CliError::input(loc, what.clone())
        }
        DecodeError::Checksum { .. } => CliError::input(
            name,
            format!("{e} (use --ignore-checksum to read it anyway)"),
        ),
        other => CliError::input(name, other.to_string()),
    }
}

/// File offset of the SHEX/SHDR chunk's data, read from the chunk table
/// with bounds checks (for messages only).
fn shader_chunk_start(bytes: &[u8]) -> Option<usize> {
    let word = |at: usize| -> Option<u32> {
        let b = bytes.get(at..at.checked_add(4)?)?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let count = word(28)? as usize;
    (0..count.min(bytes.len() / 4)).find_map(|i| {
        let off = word(32 + 4 * i)? as usize;
        let tag = bytes.get(off..off.checked_add(4)?)?;
        (tag == b"SHEX" || tag == b"SHDR").then_some(off + 8)
    })
}

/// Parses assembly text; errors are `NAME:LINE:COL: ...`.
pub fn parse(name: &str, text: &str) -> Result<Program, CliError> {
    sm5jit::asm::parse_program(text)
        .map_err(|e| CliError::input(format!("{name}:{}:{}", e.line, e.col), e.message))
}

/// Validates a program; errors are `NAME: instruction N (opcode): ...`.
pub fn validate(name: &str, program: &Program) -> Result<ProgramInfo, CliError> {
    sm5jit::validate::validate(program).map_err(|e| {
        let op = e.mnemonic().unwrap_or("?");
        let loc = match (e.inst_index, e.decl_index) {
            (Some(i), _) => format!("{name}: instruction {i} ({op})"),
            (None, Some(d)) => format!("{name}: declaration {d} ({op})"),
            (None, None) => name.to_string(),
        };
        CliError::input(loc, e.message)
    })
}

/// The fxc-style listing (`exact` = lossless, re-assembles to the same tokens).
pub fn print(
    program: &Program,
    exact: bool,
    style: sm5jit::asm::ListingStyle,
) -> Result<String, CliError> {
    let opts = sm5jit::asm::PrintOptions { exact, style };
    Ok(sm5jit::asm::print_program(program, &opts))
}

/// Encodes a DXBC container with a correct checksum.
pub fn encode(name: &str, program: &Program) -> Result<Vec<u8>, CliError> {
    write_dxbc(program, None, None).map_err(|e| CliError::input(name, e.to_string()))
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
    fn decode_errors_name_the_byte() {
        let e = decode("x.dxbc", b"DXBC", false).unwrap_err();
        assert_eq!(e.code as i32, 3);
        assert!(
            e.location.as_deref().unwrap().starts_with("x.dxbc: byte "),
            "{e}"
        );
    }

    #[test]
    fn missing_file_is_bad_input_with_the_name() {
        let e = read_input("/nonexistent/x.dxbc").unwrap_err();
        assert_eq!(e.code as i32, 3);
        assert_eq!(e.location.as_deref(), Some("/nonexistent/x.dxbc"));
    }
}
