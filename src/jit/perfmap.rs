//! The perf map: where each compiled batch function lies in memory, for
//! `perf report` and `perf script` to name samples in generated code.
//!
//! In: a finalized function's address, its length and its tier. Out: with
//! `SM5JIT_PERF_MAP=1` in the environment, a line `ADDR SIZE NAME` (hex,
//! hex, `sm5jit_tN_K`, K counting this process's compiles) appended to
//! `/tmp/perf-PID.map`, the file perf reads for code it finds in no
//! binary; without it, nothing. Invariant: the map is written only when
//! asked for, and a failure to write it never fails a compile (the map is
//! a profiling aid; the code runs the same either way).

use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

/// Whether `SM5JIT_PERF_MAP` asks for the map (any value but `0` or empty).
fn wanted() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var("SM5JIT_PERF_MAP").is_ok_and(|v| !v.is_empty() && v != "0"))
}

/// The map line of the `k`th compile, of `size` bytes at `addr` on `tier`.
fn line(addr: usize, size: usize, tier: u8, k: u64) -> String {
    format!("{addr:x} {size:x} sm5jit_t{tier}_{k}\n")
}

/// Notes a finalized function of `size` bytes at `ptr`, compiled on
/// `tier`, in the perf map when it is wanted.
pub(super) fn note(ptr: *const u8, size: usize, tier: u8) {
    if !wanted() || size == 0 {
        return;
    }
    static COUNT: AtomicU64 = AtomicU64::new(0);
    // One writer at a time, so lines from concurrent compiles never interleave.
    static LOCK: Mutex<()> = Mutex::new(());
    let k = COUNT.fetch_add(1, Ordering::Relaxed);
    let text = line(ptr as usize, size, tier, k);
    let path = format!("/tmp/perf-{}.map", std::process::id());
    let _held = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let _ = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .and_then(|mut f| f.write_all(text.as_bytes()));
}

#[cfg(test)]
mod tests {
    use super::line;

    #[test]
    fn a_map_line_is_hex_address_hex_size_and_a_name() {
        assert_eq!(line(0x7f00_1000, 0x2a0, 1, 3), "7f001000 2a0 sm5jit_t1_3\n");
    }
}
