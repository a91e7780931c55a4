//! SM4/SM5 assembly text: printer and parser (stub; being written).

/// Malformed assembly text.
#[derive(Debug, thiserror::Error)]
#[error("asm error")]
pub struct AsmError;
