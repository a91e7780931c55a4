//! Small self-contained utilities the examples and tools share.
//!
//! In/out: see each module. `png` writes images without any dependency.

pub mod png;
