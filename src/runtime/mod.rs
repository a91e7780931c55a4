//! Bindings and dispatch (stub; being written).

/// A binding or dispatch problem, or a stopped shader.
#[derive(Debug, thiserror::Error)]
#[error("runtime error")]
pub struct RuntimeError;
