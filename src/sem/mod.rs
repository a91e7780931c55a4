//! Scalar semantics of every instruction (stub; being written).
