//! Build script: decides whether the peer tests (`jit-tests/peer.rs`) run.
//!
//! In: `pkg-config` (vkd3d and Vulkan development packages present?) and
//! `SM5JIT_REQUIRE_PEER`. Out: the cfg `sm5jit_peer`, set when the peer can
//! be built or is required. Without it the peer tests are compiled as
//! ignored, so `cargo test` lists them as `ignored` (with the reason), never
//! as passed. Invariant: the library itself never depends on the cfg.

use std::process::Command;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(sm5jit_peer)");
    println!("cargo::rerun-if-env-changed=SM5JIT_REQUIRE_PEER");
    println!("cargo::rerun-if-env-changed=PKG_CONFIG_PATH");
    println!("cargo::rerun-if-env-changed=PKG_CONFIG_LIBDIR");
    println!("cargo::rerun-if-changed=build.rs");
    let required = std::env::var_os("SM5JIT_REQUIRE_PEER").is_some();
    let present = Command::new("pkg-config")
        .args(["--exists", "libvkd3d-utils", "vulkan"])
        .status()
        .is_ok_and(|s| s.success());
    if required || present {
        println!("cargo::rustc-cfg=sm5jit_peer");
    }
}
