//! The crate's top-level error: one variant per pipeline stage.
//!
//! In: the per-stage errors (`dxbc::DecodeError`, `asm::AsmError`,
//! `validate::ValidationError`, `runtime::RuntimeError`). Out: one type the
//! CLI and embedders can match on. Each stage error already says where
//! (byte/dword offset, line:column, instruction index).

use thiserror::Error;

/// Any error sm5jit reports.
#[derive(Debug, Error)]
pub enum Error {
    /// A malformed DXBC container or token stream (byte / dword offset).
    #[error(transparent)]
    Decode(#[from] crate::dxbc::DecodeError),
    /// A program that cannot be written as DXBC.
    #[error(transparent)]
    Encode(#[from] crate::dxbc::EncodeError),
    /// Assembly text that does not parse (`line`, `col`).
    #[error(transparent)]
    Asm(#[from] crate::asm::AsmError),
    /// A program that breaks a shader-model rule (instruction index).
    #[error(transparent)]
    Validation(#[from] crate::validate::ValidationError),
    /// A binding, dispatch-size or execution problem (slot, group, instruction).
    #[error(transparent)]
    Runtime(#[from] crate::runtime::RuntimeError),
    /// The JIT cannot compile the program (first unsupported instruction) or the host.
    #[error(transparent)]
    Jit(#[from] crate::jit::JitError),
    /// Reading or writing a file.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}
