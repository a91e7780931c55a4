//! Program validation (stub; being written).

/// A program that breaks a rule of its shader model.
#[derive(Debug, thiserror::Error)]
#[error("validation error")]
pub struct ValidationError;
