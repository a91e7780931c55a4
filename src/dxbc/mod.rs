//! DXBC container and SM4/SM5 token stream (stub; being written).

/// A malformed container or token stream.
#[derive(Debug, thiserror::Error)]
#[error("decode error")]
pub struct DecodeError;
