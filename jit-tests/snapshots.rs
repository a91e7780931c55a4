//! Snapshot tests (`insta`): the printer's listings of a representative
//! set of corpus shaders, the validator's diagnostics for a set of broken
//! programs, and the Cranelift IR the JIT generates for the benchmark
//! kernels (`tools/benches/kernels`). A change to any of them shows up as a
//! snapshot diff to review (`cargo insta review`, or `INSTA_UPDATE=always`
//! and `git diff`); see docs/testing.md. The snapshots live in
//! `jit-tests/snapshots/`.

use std::fmt::Write as _;

use sm5jit::asm::{parse_program, print_program, ListingStyle, PrintOptions};
use sm5jit::dxbc::{read_dxbc, ReadOptions};
use sm5jit::ir::Program;
use sm5jit::jit::JitShader;
use sm5jit::validate::validate;

/// Corpus shaders whose listings are kept: SM5.0 and SM5.1 compute,
/// TGSM and atomics, dynamic constant-buffer indexing, pixel shaders with
/// doubles, flow and typed UAVs, and real-world texture code.
const LISTED: &[&str] = &[
    "conformance/proton_buffers_oob_sm51",
    "conformance/proton_cb_dynamic_index",
    "conformance/vkd3d_atomic_iadd_tgsm_raw_0",
    "conformance_ps/vkd3d_bufinfo_uav_typed",
    "conformance_ps/vkd3d_ps_breakc_nz",
    "conformance_ps/vkd3d_ps_dfma",
    "realworld/bgfx_cs_assao_prepare_depths",
    "realworld/bgfx_cs_drawindirect_count",
    "realworld/bgfx_cs_fsr_rcas_32",
];

fn corpus_program(case: &str) -> Program {
    let path = crate::corpus_dir().join(case).join("shader.dxbc");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    read_dxbc(&bytes, &ReadOptions::default())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .program
}

/// The snapshot's name for a corpus case: its folder name.
fn leaf(case: &str) -> &str {
    case.rsplit('/').next().unwrap_or(case)
}

#[test]
fn printer_listings() {
    for case in LISTED {
        let p = corpus_program(case);
        let listing = print_program(&p, &PrintOptions::default());
        // The listing is only worth keeping if it is also a faithful one.
        let back = parse_program(&listing).unwrap_or_else(|e| panic!("{case}: {e}"));
        assert_eq!(back.insts.len(), p.insts.len(), "{case}");
        insta::assert_snapshot!(format!("listing_{}", leaf(case)), listing);
    }
}

#[test]
fn printer_exact_and_legacy_styles() {
    let p = corpus_program("conformance_ps/vkd3d_ps_dfma");
    let exact = PrintOptions {
        exact: true,
        ..PrintOptions::default()
    };
    let legacy = PrintOptions {
        style: ListingStyle::Legacy,
        ..PrintOptions::default()
    };
    let text = format!(
        "--- exact\n{}--- legacy\n{}",
        print_program(&p, &exact),
        print_program(&p, &legacy)
    );
    insta::assert_snapshot!("listing_vkd3d_ps_dfma_styles", text);
}

/// Broken programs, each breaking one rule; every one must fail.
const BAD: &[(&str, &str)] = &[
    ("undeclared temp", "cs_5_0\ndcl_temps 1\ndcl_thread_group 1, 1, 1\nmov r1.x, l(0)\nret\n"),
    ("undeclared uav", "cs_5_0\ndcl_thread_group 1, 1, 1\nstore_raw u0.x, l(0), l(1)\nret\n"),
    ("wrong resource kind", "cs_5_0\ndcl_uav_raw u0\ndcl_thread_group 1, 1, 1\nstore_structured u0.x, l(0), l(0), l(1)\nret\n"),
    ("no thread group", "cs_5_0\ndcl_temps 1\nmov r0.x, l(0)\nret\n"),
    ("thread group too large", "cs_5_0\ndcl_thread_group 1024, 2, 1\nret\n"),
    ("cs_4_0 thread group too large", "cs_4_0\ndcl_thread_group 1024, 1, 1\nret\n"),
    ("tgsm too large", "cs_5_0\ndcl_tgsm_raw g0, 32768\ndcl_tgsm_raw g1, 4\ndcl_thread_group 1, 1, 1\nret\n"),
    ("too many temps", "cs_5_0\ndcl_temps 4000\ndcl_indexableTemp x0[200], 4\ndcl_thread_group 1, 1, 1\nret\n"),
    ("bad structure stride", "cs_5_0\ndcl_uav_structured u0, 6\ndcl_thread_group 1, 1, 1\nret\n"),
    ("else without if", "cs_5_0\ndcl_thread_group 1, 1, 1\nelse\nret\n"),
    ("unclosed loop", "cs_5_0\ndcl_thread_group 1, 1, 1\nloop\nret\n"),
    ("break outside loop", "cs_5_0\ndcl_thread_group 1, 1, 1\nbreak\nret\n"),
    ("double op without the flag", "cs_5_0\ndcl_temps 2\ndcl_thread_group 1, 1, 1\ndadd r0.xy, r1.xyxy, r1.xyxy\nret\n"),
    ("gather4 in SM4.0", "ps_4_0\ndcl_resource_texture2d (float,float,float,float) t0\ndcl_sampler s0, mode_default\ndcl_input_ps linear v0.xy\ndcl_output o0.xyzw\ngather4 o0.xyzw, v0.xyxx, t0.xyzw, s0.x\nret\n"),
    ("constant index past cb size", "cs_5_0\ndcl_constantbuffer CB0[2], immediateIndexed\ndcl_temps 1\ndcl_thread_group 1, 1, 1\nmov r0.x, cb0[5].x\nret\n"),
    ("write to an input", "ps_5_0\ndcl_input_ps linear v0.xy\ndcl_output o0.xyzw\nmov v0.x, l(0)\nret\n"),
];

#[test]
fn validator_diagnostics() {
    let mut out = String::new();
    for (what, text) in BAD {
        let p = parse_program(text).unwrap_or_else(|e| panic!("{what}: {e}"));
        let e = validate(&p).expect_err(what);
        let _ = writeln!(out, "{what}: [{:?}] {e}", e.rule);
    }
    insta::assert_snapshot!("validator_diagnostics", out);
}

/// Cranelift IR of every benchmark kernel as the JIT generates it (after
/// Cranelift's optimisations). Host addresses (shims called by address)
/// are replaced by a placeholder so the snapshot is the same on every run;
/// everything else, value numbering included, is kept: any change in the
/// generated code shows up in review.
#[test]
fn clif_of_bench_kernels() {
    // The kernels live with the benchmark harness in the tools crate.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/benches/kernels");
    let mut kernels: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "asm"))
        .collect();
    kernels.sort();
    assert!(kernels.len() >= 7, "{kernels:?}");
    for path in kernels {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        let p = parse_program(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let (_, dump) = JitShader::compile_dump(&p).unwrap_or_else(|e| panic!("{name}: {e}"));
        insta::assert_snapshot!(format!("clif_{name}"), redact_addresses(&dump.clif));
    }
}

/// Replaces the 64-bit constants that are host addresses (at least 2^32,
/// as every mapped address of a 64-bit process is) with `<addr>`, both
/// where they are defined (`iconst.i64`) and where Cranelift's comments
/// repeat them. Constants the shader itself produces are 32-bit lane values
/// and keep their text.
fn redact_addresses(clif: &str) -> String {
    let mut addresses: Vec<&str> = clif
        .lines()
        .filter_map(|line| line.split_once("iconst.i64 "))
        .map(|(_, value)| value.split_whitespace().next().unwrap_or(""))
        .filter(|v| is_address(v))
        .collect();
    // Longest first, so no address is replaced inside a longer one.
    addresses.sort_by_key(|a| std::cmp::Reverse(a.len()));
    addresses.dedup();
    let mut out = clif.to_string();
    for a in addresses {
        out = out.replace(a, "<addr>");
    }
    out
}

fn is_address(value: &str) -> bool {
    let parsed = match value.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(&hex.replace('_', ""), 16).ok(),
        None => value.parse::<u64>().ok(),
    };
    parsed.is_some_and(|x| x >= 1 << 32)
}

/// Instructions in each natural loop of a `--dump-asm` listing
/// (Cranelift's VCode text), smallest first: for each back edge (a jump to
/// a block at or before the jumping one in layout order), the blocks that
/// reach the jump without passing the loop's head; labels, `uninit` and
/// `unwind` lines do not count, and a two-way branch (`jcc a; j b`) is one
/// line.
fn loop_sizes(asm: &str) -> Vec<(usize, String)> {
    let mut blocks: Vec<(usize, Vec<String>)> = Vec::new();
    for line in asm.lines() {
        let t = line.trim();
        if let Some(n) = t.strip_prefix("block").and_then(|r| r.strip_suffix(':')) {
            if let Ok(n) = n.parse() {
                blocks.push((n, Vec::new()));
                continue;
            }
        }
        if t.is_empty() || t.starts_with("uninit") || t.starts_with("unwind") {
            continue;
        }
        if let Some(b) = blocks.last_mut() {
            b.1.push(t.to_string());
        }
    }
    let index: std::collections::HashMap<usize, usize> =
        blocks.iter().enumerate().map(|(i, b)| (b.0, i)).collect();
    let succs: Vec<Vec<usize>> = blocks
        .iter()
        .map(|(_, lines)| {
            lines
                .iter()
                .flat_map(|l| l.split("label").skip(1))
                .filter_map(|s| {
                    let n: String = s.chars().take_while(|c| c.is_ascii_digit()).collect();
                    n.parse().ok().and_then(|n: usize| index.get(&n).copied())
                })
                .collect()
        })
        .collect();
    let mut preds = vec![Vec::new(); blocks.len()];
    for (b, ss) in succs.iter().enumerate() {
        for &s in ss {
            preds[s].push(b);
        }
    }
    let mut loops: std::collections::BTreeMap<usize, std::collections::BTreeSet<usize>> =
        Default::default();
    for (u, ss) in succs.iter().enumerate() {
        for &h in ss.iter().filter(|&&h| h <= u) {
            let body = loops.entry(h).or_default();
            body.insert(h);
            let mut work = vec![u];
            while let Some(x) = work.pop() {
                if body.insert(x) {
                    work.extend(&preds[x]);
                }
            }
        }
    }
    let mut out: Vec<(usize, String)> = loops
        .values()
        .map(|body| {
            let text: String = body
                .iter()
                .flat_map(|&b| blocks[b].1.iter().map(|l| format!("{l}\n")))
                .collect();
            (body.iter().map(|&b| blocks[b].1.len()).sum(), text)
        })
        .collect();
    out.sort();
    out
}

/// mandelbrot's loop (one iteration of 8 lanes) on tier 1: nothing that is
/// the same in every iteration stays in it (the pixel's `utof` and `mad`,
/// the cb# reads), the loop-limit test is a scalar compare (the counter is
/// uniform), the budget charge a constant. 107 instructions before the
/// loop work of 25 Nov evening, 43 after (docs/performance.md); the bound
/// leaves a little room for the register allocator.
#[test]
fn mandelbrot_loop_holds_only_the_iteration_work() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tools/benches/kernels/mandelbrot.asm");
    let text = std::fs::read_to_string(&path).unwrap();
    let p = parse_program(&text).unwrap();
    let (_, dump) = JitShader::compile_dump(&p).unwrap();
    // The iteration loop, the loop over the group's batches and the
    // loop over a run's groups (its pretested batch loop took no test and
    // went: mandelbrot has no early return and stores per lane).
    let loops = loop_sizes(&dump.asm);
    assert_eq!(loops.len(), 3, "{}", dump.asm);
    let (n, body) = &loops[0];
    assert!(*n <= 47, "{n} instructions:\n{body}");
    for hoisted in ["cvt", "popcnt", "movmsk", "pmaxud"] {
        assert!(!body.contains(hoisted), "{hoisted} in the loop:\n{body}");
    }
}
