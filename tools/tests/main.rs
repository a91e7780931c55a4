//! Integration tests of the tools: one binary, one module per area.

mod bench;
mod cli;
mod cli_stage;
mod corpus;
mod engines;
mod fault;
mod fuzz;
mod mutant;
mod shader_tests;
mod threads;

/// The shared corpus beside the checkout (`../shared/corpus` from the
/// repository root, which is this crate's parent).
pub fn corpus_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus")
}
