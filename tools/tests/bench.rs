//! The benchmark kernels stay honest: each one, at its test size, gives on
//! the interpreter exactly (or within its stated tolerance) what its native
//! Rust baseline gives, and `sm5jit bench --json` prints well-formed JSON.

use sm5jit_tools::bench::{self, BENCH_BUDGET, KERNELS};
use sm5jit_tools::case::{interp_engine, EngineOptions};
use std::process::Command;

#[test]
fn every_kernel_on_the_interpreter_equals_native() {
    assert_eq!(KERNELS.len(), 7);
    for k in &KERNELS {
        let p = k.problem(k.test_size);
        let native = k.native_outputs(&p);
        assert!(
            native.iter().all(|o| !o.is_empty()),
            "{}: empty native output",
            k.name
        );
        let program = bench::program(k).unwrap();
        let mut engine = interp_engine(EngineOptions {
            budget: Some(BENCH_BUDGET),
            threads: Some(1),
            ..EngineOptions::default()
        })
        .unwrap();
        let (_, got) = bench::dispatch_once(engine.as_mut(), &program, k, &p).unwrap();
        k.check(&p, &native, &got)
            .unwrap_or_else(|m| panic!("{}: {m}", k.name));
        // The output is not trivially the initial contents.
        assert_ne!(
            got,
            p.outputs_of(&p.resources),
            "{}: output unchanged",
            k.name
        );
    }
}

#[test]
fn a_wrong_engine_output_is_caught_for_every_kernel() {
    for k in &KERNELS {
        let p = k.problem(k.test_size);
        let native = k.native_outputs(&p);
        let mut bad = native.clone();
        let word = &mut bad[0][1];
        *word = word.wrapping_add(0x0100_0000);
        assert!(k.check(&p, &native, &bad).is_err(), "{}", k.name);
    }
}

#[test]
fn bench_json_is_one_object_per_kernel() {
    let out = Command::new(env!("CARGO_BIN_EXE_sm5jit"))
        .args([
            "bench",
            "histogram",
            "scan",
            "--size",
            "512",
            "--runs",
            "1",
            "--json",
        ])
        .output()
        .expect("sm5jit runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["kernel"], "histogram");
    assert_eq!(rows[1]["kernel"], "scan");
    for r in &rows {
        assert_eq!(r["threads"], 1);
        // The default engine is the JIT: the interpreter's column is empty.
        assert!(r["interp_ms"].is_null(), "{r}");
        for key in ["compile_ms", "jit_ms", "native_ms"] {
            assert!(r[key].as_f64().is_some_and(|v| v >= 0.0), "{key}: {r}");
        }
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("bench: histogram"), "{stderr}");
}

#[test]
fn bench_rejects_an_unknown_kernel() {
    let out = Command::new(env!("CARGO_BIN_EXE_sm5jit"))
        .args(["bench", "nosuch"])
        .output()
        .expect("sm5jit runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown kernel `nosuch`"));
}

// Pixel kernels ------------------------------------------------------------

use sm5jit::{EngineKind, Tier};
use sm5jit_tools::bench::pixel::{self, PIXEL_KERNELS};

/// Draws the whole test-size image of `k` on `engine` with `threads` workers.
fn draw(
    k: &pixel::PixelKernel,
    p: &pixel::PixelProblem,
    engine: EngineKind,
    threads: usize,
) -> Vec<u32> {
    let shader = pixel::compile(k, engine, Tier::One).unwrap();
    let mut out = vec![0u32; p.pixels() * 4];
    pixel::draw(&shader, p, p.pixels(), threads, &mut out).unwrap();
    out
}

#[test]
fn every_pixel_kernel_matches_native_on_both_engines() {
    assert_eq!(PIXEL_KERNELS.len(), 4);
    let [w, h] = pixel::TEST_SIZE;
    for k in &PIXEL_KERNELS {
        let p = k.problem(w, h).unwrap();
        let native = (k.native)(&p);
        assert_eq!(native.len(), p.pixels() * 4, "{}", k.name);
        // Not a flat image: the checker has something to compare.
        let reds: std::collections::BTreeSet<u32> = native.iter().step_by(4).copied().collect();
        assert!(reds.len() > 8, "{}: {} distinct reds", k.name, reds.len());
        let interp = draw(k, &p, EngineKind::Interpreter, 1);
        k.check(&p, &native, &interp)
            .unwrap_or_else(|m| panic!("interpreter: {m}"));
        let jit = draw(k, &p, EngineKind::Jit, 1);
        k.check(&p, &native, &jit)
            .unwrap_or_else(|m| panic!("jit: {m}"));
        // The engines are bit-identical, and so are 1 and 2 workers.
        assert!(interp == jit, "{}: interpreter and JIT differ", k.name);
        assert!(
            draw(k, &p, EngineKind::Jit, 2) == jit,
            "{}: 2 workers differ",
            k.name
        );
    }
}

#[test]
fn a_wrong_image_is_caught_for_every_pixel_kernel() {
    let [w, h] = pixel::TEST_SIZE;
    for k in &PIXEL_KERNELS {
        let p = k.problem(w, h).unwrap();
        let native = (k.native)(&p);
        // 2% of the channels off by 0.25: more than any tolerance allows.
        let bad: Vec<u32> = native
            .iter()
            .enumerate()
            .map(|(i, &v)| {
                if i % 50 == 7 {
                    (f32::from_bits(v) + 0.25).to_bits()
                } else {
                    v
                }
            })
            .collect();
        let e = k.check(&p, &native, &bad).unwrap_err();
        assert!(e.contains("pixel ("), "{}: {e}", k.name);
        assert!(k.check(&p, &native, &native).is_ok());
    }
}

#[test]
fn pixel_bench_json_has_pixels_per_second() {
    let out = Command::new(env!("CARGO_BIN_EXE_sm5jit"))
        .args([
            "bench",
            "noise",
            "--size",
            "64",
            "--runs",
            "1",
            "--json",
            "--engine",
            "both",
            "--interp-rows",
            "4",
        ])
        .output()
        .expect("sm5jit runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let r: serde_json::Value = serde_json::from_str(text.trim()).unwrap();
    assert_eq!(r["kernel"], "noise");
    assert_eq!(r["kind"], "pixel");
    assert_eq!(
        (r["width"].as_u64(), r["height"].as_u64()),
        (Some(64), Some(36))
    );
    assert_eq!(r["pixels"], 64 * 36);
    assert_eq!(r["interp_pixels"], 64 * 4);
    for key in [
        "jit_ms",
        "interp_ms",
        "native_ms",
        "jit_cpu_ms",
        "interp_cpu_ms",
        "native_cpu_ms",
        "jit_px_s",
        "interp_px_s",
        "native_px_s",
    ] {
        assert!(r[key].as_f64().is_some_and(|v| v > 0.0), "{key}: {r}");
    }
}

/// `--peer-setup` writes what scripts/vkd3d-draw.c reads, and
/// `--peer-check` accepts the native image and rejects a wrong one.
#[test]
fn pixel_peer_files_and_check() {
    let dir = std::env::temp_dir().join(format!("sm5jit-pixel-peer-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let sm5jit = env!("CARGO_BIN_EXE_sm5jit");
    let d = dir.to_str().unwrap();
    let ok = Command::new(sm5jit)
        .args([
            "bench",
            "--peer-setup",
            d,
            "--size",
            "64",
            "lit",
            "shadow16",
        ])
        .output()
        .unwrap();
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let args = std::fs::read_to_string(dir.join("lit.args")).unwrap();
    let a: Vec<&str> = args.lines().collect();
    let after = |flag: &str| -> Vec<&str> {
        a.iter()
            .enumerate()
            .filter(|(_, x)| **x == flag)
            .map(|(i, _)| a[i + 1])
            .collect()
    };
    let size = a.iter().position(|x| *x == "--size").unwrap();
    assert_eq!(&a[size + 1..size + 3], ["64", "36"]);
    assert_eq!(after("--rt-format"), ["2"]);
    for shader in [after("--vs")[0], after("--ps")[0]] {
        let bytes = std::fs::read(shader).unwrap();
        let s = sm5jit::dxbc::read_dxbc(&bytes, &sm5jit::dxbc::ReadOptions::default()).unwrap();
        assert!(s.info.input_signature.is_some_and(|v| !v.is_empty()));
        assert!(s.info.output_signature.is_some_and(|v| !v.is_empty()));
    }
    // Two RGBA8 textures with 10 mips each, packed.
    let textures = after("--texture");
    assert_eq!(textures.len(), 2);
    for (slot, t) in textures.iter().enumerate() {
        let f: Vec<&str> = t.splitn(6, ':').collect();
        assert_eq!(
            f[..5],
            [format!("t{slot}").as_str(), "28", "512", "512", "10"]
        );
        let len = std::fs::metadata(f[5]).unwrap().len();
        let want: u64 = (0..10).map(|m| (512u64 >> m).pow(2) * 4).sum();
        assert_eq!(len, want);
    }
    // MIN_MAG_MIP_LINEAR, wrap, comparison NEVER.
    assert_eq!(after("--sampler"), ["s0:21:1:1:1:1"]);
    let cb = after("--cbv")[0].strip_prefix("b0:").unwrap();
    assert_eq!(std::fs::metadata(cb).unwrap().len(), 9 * 16);
    // The shadow map is a depth resource for the peer, with a comparison filter.
    let shadow = std::fs::read_to_string(dir.join("shadow16.args")).unwrap();
    assert!(shadow.contains("depth:t0:41:1024:1024:1:"), "{shadow}");
    assert!(shadow.contains("s0:148:3:3:3:4"), "{shadow}");

    // The check: the native image passes, a shifted one does not.
    let k = sm5jit_tools::bench::pixel_kernel("lit").unwrap();
    let p = k.problem(64, 36).unwrap();
    let native = (k.native)(&p);
    let write = |img: &[u32]| {
        let rows = pixel::quad_to_rows(64, 36, img);
        let bytes: Vec<u8> = rows.iter().flat_map(|w| w.to_le_bytes()).collect();
        std::fs::write(dir.join("lit.rt.out"), bytes).unwrap();
    };
    let check = || {
        Command::new(sm5jit)
            .args(["bench", "--peer-check", d, "--size", "64", "lit"])
            .output()
            .unwrap()
    };
    write(&native);
    let out = check();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "ok lit");
    let shifted: Vec<u32> = native
        .iter()
        .map(|&v| (f32::from_bits(v) + 0.1).to_bits())
        .collect();
    write(&shifted);
    let out = check();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("FAIL lit: pixel (0, 0)"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The graphics peer: `scripts/vkd3d-draw.c` built with `cc`, each pixel
/// kernel drawn by vkd3d on lavapipe at 64x36 from the files
/// `--peer-setup` writes, and its render target accepted by
/// `--peer-check` (the kernel's peer tolerance against the native image).
#[test]
#[cfg_attr(
    not(sm5jit_peer),
    ignore = "needs vkd3d and Vulkan development packages (docs/testing.md, the peer)"
)]
fn pixel_kernels_draw_the_same_on_lavapipe() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let tmp = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let bin = tmp.join("vkd3d-draw");
    let pkgs = ["libvkd3d-utils", "libvkd3d", "vulkan"];
    let flags = |what: &str| -> Vec<String> {
        let out = Command::new("pkg-config")
            .arg(what)
            .args(pkgs)
            .output()
            .expect("pkg-config runs");
        assert!(out.status.success(), "pkg-config {what} failed");
        String::from_utf8_lossy(&out.stdout)
            .split_whitespace()
            .map(String::from)
            .collect()
    };
    let built = Command::new("cc")
        .args(["-O2", "-Wall", "-Wno-unused-function"])
        .args(flags("--cflags"))
        .arg("-o")
        .arg(&bin)
        .arg(root.join("scripts/vkd3d-draw.c"))
        .args(flags("--libs"))
        .status()
        .expect("cc runs");
    assert!(built.success(), "scripts/vkd3d-draw.c does not build");
    let dir = tmp.join("pixel-peer");
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.to_str().unwrap();
    let sm5jit = env!("CARGO_BIN_EXE_sm5jit");
    let names: Vec<&str> = PIXEL_KERNELS.iter().map(|k| k.name).collect();
    let setup = Command::new(sm5jit)
        .args(["bench", "--peer-setup", d, "--size", "64"])
        .args(&names)
        .output()
        .unwrap();
    assert!(
        setup.status.success(),
        "{}",
        String::from_utf8_lossy(&setup.stderr)
    );
    for k in &names {
        let args = std::fs::read_to_string(dir.join(format!("{k}.args"))).unwrap();
        let out = Command::new(&bin)
            .args(args.lines())
            .args(["--iters", "1"])
            .env("LP_NUM_THREADS", "1")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{k}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("device llvmpipe"), "{k}: {text}");
        assert!(text.contains("gpu_ms_median "), "{k}: {text}");
    }
    let check = Command::new(sm5jit)
        .args(["bench", "--peer-check", d, "--size", "64"])
        .args(&names)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&check.stdout);
    assert!(check.status.success(), "{text}");
    assert_eq!(
        text.lines().filter(|l| l.starts_with("ok ")).count(),
        4,
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
