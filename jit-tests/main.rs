//! Integration tests: one binary, one module per area.

mod alu_table;
mod asm_roundtrip;
mod batch;
mod batch_threads;
mod bc7;
mod compat;
mod decode;
mod embed;
mod interp;
mod jit;
#[cfg(target_os = "linux")]
mod memsafety;
mod peer;
mod pixel_io;
mod reflect;
mod sampling;
mod snapshots;
mod tiers;
mod util;
mod validate;

/// The shared corpus beside the checkout (`../shared/corpus`).
pub fn corpus_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus")
}
