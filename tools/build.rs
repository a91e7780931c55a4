//! Build script: decides whether the graphics peer test
//! (`tests/bench.rs`, `pixel_kernels_draw_the_same_on_lavapipe`) runs.
//!
//! In: `pkg-config` (vkd3d and Vulkan development packages present?) and
//! `SM5JIT_REQUIRE_PEER`. Out: the cfg `sm5jit_peer`, as the core crate's
//! build script sets it for `jit-tests/peer.rs`. Without it the test is
//! compiled as ignored, never counted as passed.

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
