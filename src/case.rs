//! Conformance cases in the corpus format (stub; being written).
