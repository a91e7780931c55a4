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
    #[error(transparent)]
    Decode(#[from] crate::dxbc::DecodeError),
    #[error(transparent)]
    Encode(#[from] crate::dxbc::EncodeError),
    #[error(transparent)]
    Asm(#[from] crate::asm::AsmError),
    #[error(transparent)]
    Validation(#[from] crate::validate::ValidationError),
    #[error(transparent)]
    Runtime(#[from] crate::runtime::RuntimeError),
    #[error(transparent)]
    Jit(#[from] crate::jit::JitError),
    #[error("{0}")]
    Io(#[from] std::io::Error),
}
