//! Dispatches one compute shader many times on one worker, for profiling
//! what a dispatch costs beyond its generated code (bindings, checks,
//! resource tables, the worker's setup).
//!
//! `cargo run --release --example dispatch_one FILE [GROUPS] [RUNS]`: FILE
//! is fxc-style assembly (`.asm`) or DXBC whose t0 and u0 (if declared)
//! are bound as raw buffers of 1 MiB of zeros; GROUPS (default 1) groups
//! along x; RUNS (default 100000) dispatches with the same bindings.
//! Prints the median and the smallest time of a dispatch.

use std::time::Instant;

use sm5jit::{Bindings, DispatchConfig, EngineKind, Shader, Slot, View};

/// The size of each buffer: 1 MiB unless `SM5JIT_BYTES` says otherwise.
fn buffer_bytes() -> usize {
    std::env::var("SM5JIT_BYTES")
        .ok()
        .and_then(|b| b.parse().ok())
        .unwrap_or(1 << 20)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .expect("usage: dispatch_one FILE [GROUPS] [RUNS]");
    let groups: u32 = args.next().and_then(|g| g.parse().ok()).unwrap_or(1);
    let runs: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(100_000);
    let bytes = std::fs::read(&path).expect("read");
    let shader = if path.ends_with(".asm") {
        Shader::from_asm(&String::from_utf8_lossy(&bytes), EngineKind::Jit)
    } else {
        Shader::from_dxbc(&bytes, EngineKind::Jit)
    }
    .expect("compile");
    let srv = vec![0u8; buffer_bytes()];
    let mut uav = vec![0u8; buffer_bytes()];
    let words = (buffer_bytes() / 4) as u64;
    let config = DispatchConfig {
        threads: 1,
        ..DispatchConfig::default()
    };
    let mut times: Vec<f64> = (0..runs.max(1))
        .map(|_| {
            let mut b = Bindings::new();
            b.srv(Slot::new(0), &srv, View::raw(0, words)).uav(
                Slot::new(0),
                &mut uav,
                View::raw(0, words),
            );
            let t = Instant::now();
            shader
                .dispatch_with(&mut b, [groups, 1, 1], &config)
                .expect("dispatch");
            t.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    times.sort_by(f64::total_cmp);
    println!(
        "{groups} groups, {} dispatches: median {:.3} us, min {:.3} us",
        times.len(),
        times[times.len() / 2],
        times[0]
    );
}
