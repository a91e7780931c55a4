//! Compiling and dropping shaders does not leak: 10,000 compile-and-drop
//! cycles of a ~200-instruction shader keep the resident set flat.
//!
//! The resident set (`VmRSS` in `/proc/self/status`) is read after a
//! warm-up of 1,000 cycles (allocator arenas, Cranelift's caches and the
//! worker threads' stacks reach their steady size) and again after the
//! remaining 9,000. The bound is 8 MiB: every compiled shader maps at
//! least one 4 KiB page of machine code and keeps its prepared program
//! (several KiB), so leaking one shader per cycle would add over 36 MiB,
//! and any leak of more than ~930 bytes per cycle fails; what remains
//! below the bound is allocator slack, which does not grow with cycles.
//!
//! This is a test binary of its own (`[[test]] rss` in Cargo.toml): the
//! resident set belongs to the whole process, and tests running beside it
//! in the shared `jit-tests` binary moved it by 15 MiB on a loaded machine.
#![cfg(target_os = "linux")]

use std::sync::atomic::{AtomicUsize, Ordering};

fn parse(text: &str) -> Program {
    sm5jit::asm::parse_program(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}
use sm5jit::ir::Program;
use sm5jit::jit::{CompileOptions, JitShader, Tier};

/// A compute shader of about 200 instructions: straight-line integer ALU
/// chains between a structured load and a raw store (the cheapest kind of
/// program to compile, so 10,000 cycles fit in the suite's time).
fn shader_text() -> String {
    let mut s = String::from(
        "cs_5_0
dcl_resource_structured t0, 4
dcl_uav_raw u0
dcl_input vThreadID.x
dcl_temps 4
dcl_thread_group 64, 1, 1
ld_structured r0.x, vThreadID.x, l(0), t0.xxxx
mov r1.xyzw, r0.xxxx
",
    );
    for k in 0..48 {
        let (a, b) = (1 + k % 3, 1 + (k + 1) % 3);
        let c = ["x", "y", "z", "w"][k % 4];
        s += &format!("iadd r{a}.{c}, r{a}.{c}, r{b}.{c}\n");
        s += &format!("xor r{b}.{c}, r{b}.{c}, l({k})\n");
        s += &format!("ishl r{a}.{c}, r{a}.{c}, l(1)\n");
        s += &format!("umin r{b}.{c}, r{b}.{c}, r{a}.{c}\n");
    }
    s += "ishl r0.y, vThreadID.x, l(4)
store_raw u0.xyzw, r0.y, r1.xyzw
ret
";
    s
}

fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS in /proc/self/status")
}

/// Compiles and drops `program` `cycles` times over `workers` threads.
fn cycles(program: &Program, cycles: usize, workers: usize) {
    let left = AtomicUsize::new(cycles);
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                while left
                    .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
                    .is_ok()
                {
                    // Tier 1, uncached: every cycle compiles and frees code.
                    let options = CompileOptions {
                        cache: false,
                        ..CompileOptions::tier(Tier::One)
                    };
                    let shader =
                        JitShader::compile_with(program, &options).expect("the shader compiles");
                    drop(shader);
                }
            });
        }
    });
    assert_eq!(left.load(Ordering::Relaxed), 0);
}

#[test]
fn ten_thousand_compile_and_drop_cycles_keep_rss_flat() {
    let text = shader_text();
    let program = parse(&text);
    let n = program.insts.len();
    assert!((190..=240).contains(&n), "{n} instructions");
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get().min(4));
    let start = std::time::Instant::now();
    cycles(&program, 1_000, workers);
    let warm = rss_kib();
    cycles(&program, 9_000, workers);
    let end = rss_kib();
    let growth = end.saturating_sub(warm);
    eprintln!(
        "rss: {warm} KiB after 1,000 cycles, {end} KiB after 10,000 ({growth} KiB growth, {:.1} s, {workers} workers)",
        start.elapsed().as_secs_f64()
    );
    assert!(
        growth < 8 * 1024,
        "resident memory grew by {growth} KiB over 9,000 compile-and-drop cycles"
    );
}
