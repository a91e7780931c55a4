//! The `sm5jit` binary end to end: disasm, asm, validate, info, run and
//! case on corpus files and on broken input, checking exit codes and the
//! shape of messages (`FILE: byte N: error: ...`, `FILE:LINE:COL: error:`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::corpus_dir;

fn sm5jit(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sm5jit"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("the sm5jit binary runs")
}

fn sm5jit_stdin(args: &[&str], input: &[u8]) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_sm5jit"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the sm5jit binary runs");
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(input)
        .expect("stdin accepts the input");
    child.wait_with_output().expect("sm5jit finishes")
}

fn code(o: &Output) -> i32 {
    o.status.code().expect("sm5jit exited normally")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn case_shader(id: &str) -> PathBuf {
    corpus_dir()
        .join("conformance")
        .join(id)
        .join("shader.dxbc")
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sm5jit-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

#[test]
fn usage_errors_exit_2() {
    let o = sm5jit(&["frobnicate"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    let o = sm5jit(&[
        "run",
        s(&case_shader("wine_store_imm_int")),
        "--uav",
        "u0=raw:nope:4",
    ]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("unknown data `nope`"), "{}", stderr(&o));
    let o = sm5jit(&["run", "--groups", "1,2"]);
    assert_eq!(code(&o), 2);
    let o = sm5jit(&["--help"]);
    assert_eq!(code(&o), 0);
    assert!(stdout(&o).contains("disasm"));
}

#[test]
fn missing_file_exits_3_with_its_name() {
    let o = sm5jit(&["disasm", "/nonexistent/shader.dxbc"]);
    assert_eq!(code(&o), 3);
    assert!(
        stderr(&o).starts_with("/nonexistent/shader.dxbc: error: "),
        "{}",
        stderr(&o)
    );
}

#[test]
fn truncated_container_names_the_byte() {
    let bytes = std::fs::read(case_shader("wine_tgsm_raw")).unwrap();
    let dir = scratch("trunc");
    let path = dir.join("cut.dxbc");
    std::fs::write(&path, &bytes[..100]).unwrap();
    let o = sm5jit(&["validate", s(&path)]);
    assert_eq!(code(&o), 3);
    let err = stderr(&o);
    assert!(err.starts_with(&format!("{}: byte ", s(&path))), "{err}");
    assert!(err.contains(": error: "), "{err}");
}

#[test]
fn wrong_checksum_is_rejected_unless_ignored() {
    let mut bytes = std::fs::read(case_shader("wine_tgsm_raw")).unwrap();
    bytes[4] ^= 0xff;
    let dir = scratch("checksum");
    let path = dir.join("bad.dxbc");
    std::fs::write(&path, &bytes).unwrap();
    let o = sm5jit(&["info", s(&path)]);
    assert_eq!(code(&o), 3);
    assert!(stderr(&o).contains("checksum"), "{}", stderr(&o));
    let o = sm5jit(&["info", "--ignore-checksum", s(&path)]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stdout(&o).contains("model: cs_5_0"), "{}", stdout(&o));
}

#[test]
fn validate_reports_each_file() {
    let a = case_shader("wine_tgsm_raw");
    let b = case_shader("vkd3d_raw_copy_loops");
    let o = sm5jit(&["validate", s(&a), s(&b)]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(
        stdout(&o).lines().filter(|l| l.ends_with(": ok")).count(),
        2
    );
}

#[test]
fn info_lists_chunks_and_counts() {
    let o = sm5jit(&["info", s(&case_shader("wine_tgsm_raw"))]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("model: cs_5_0"), "{out}");
    assert!(out.contains("instructions: 12"), "{out}");
    assert!(out.contains("SHEX"), "{out}");
}

#[test]
fn disasm_prints_the_fxc_dialect() {
    let o = sm5jit(&["disasm", s(&case_shader("vkd3d_raw_copy_loops"))]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with("cs_5_0"), "{out}");
    assert!(out.contains("dcl_thread_group 1, 1, 1"), "{out}");
    assert!(out.contains("ld_raw"), "{out}");
}

#[test]
fn disasm_reads_stdin_and_detects_dxbc_by_magic() {
    let bytes = std::fs::read(case_shader("wine_tgsm_raw")).unwrap();
    let o = sm5jit_stdin(&["disasm", "-"], &bytes);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stdout(&o).starts_with("cs_5_0"), "{}", stdout(&o));
}

#[test]
fn exact_listing_reassembles_to_the_same_program() {
    let dir = scratch("roundtrip");
    let listing = dir.join("a.asm");
    let rebuilt = dir.join("b.dxbc");
    let src = case_shader("vkd3d_raw_copy_loops");
    let o = sm5jit(&["disasm", "--exact", s(&src), "-o", s(&listing)]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = sm5jit(&["asm", s(&listing), "-o", s(&rebuilt)]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    // The output has a valid checksum: reading it without --ignore-checksum works.
    let o = sm5jit(&["validate", s(&rebuilt)]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let first = sm5jit(&["disasm", "--exact", s(&src)]);
    let second = sm5jit(&["disasm", "--exact", s(&rebuilt)]);
    assert_eq!(stdout(&first), stdout(&second));
}

#[test]
fn bad_assembly_names_line_and_column() {
    let dir = scratch("badasm");
    let path = dir.join("bad.asm");
    std::fs::write(
        &path,
        "cs_5_0\ndcl_temps 1\ndcl_thread_group 1, 1, 1\nfrobnicate r0.x, r0.x\nret\n",
    )
    .unwrap();
    let o = sm5jit(&["asm", s(&path), "-o", s(&dir.join("out.dxbc"))]);
    assert_eq!(code(&o), 3);
    let err = stderr(&o);
    assert!(err.starts_with(&format!("{}:4:", s(&path))), "{err}");
    assert!(err.contains("error:"), "{err}");
    assert!(!dir.join("out.dxbc").exists());
}

#[test]
fn invalid_program_names_the_instruction() {
    let dir = scratch("invalid");
    let path = dir.join("undeclared.asm");
    std::fs::write(
        &path,
        "cs_5_0\ndcl_temps 1\ndcl_thread_group 1, 1, 1\nmov r5.x, l(1)\nret\n",
    )
    .unwrap();
    let o = sm5jit(&["validate", s(&path)]);
    assert_eq!(code(&o), 3);
    let err = stderr(&o);
    assert!(
        err.starts_with(&format!("{}: instruction 0 (mov): error: ", s(&path))),
        "{err}"
    );
}

fn raw_copy_args<'a>(shader: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut v = vec![
        "run",
        shader,
        "--srv",
        "t0=raw:u32:0xdeadbabe",
        "--srv",
        "t4=raw:iota:6",
        "--uav",
        "u0=raw:zeros:4",
        "--uav",
        "u2=raw:zeros:24",
        "--cb",
        "cb0=u32:1,6",
    ];
    v.extend_from_slice(extra);
    v
}

#[test]
fn run_prints_uavs_and_timing() {
    let shader = case_shader("vkd3d_raw_copy_loops");
    let o = sm5jit(&raw_copy_args(s(&shader), &[]));
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("dispatch"), "{out}");
    assert!(out.contains("u0: 4 bytes\n  0000: deadbabe\n"), "{out}");
    assert!(
        out.contains(
            "u2: 24 bytes\n  0000: 00000000 00000001 00000002 00000003 00000004 00000005\n"
        ),
        "{out}"
    );
}

#[test]
fn run_json_and_dump_to_file() {
    let shader = case_shader("vkd3d_raw_copy_loops");
    let o = sm5jit(&raw_copy_args(s(&shader), &["--format", "json"]));
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("valid JSON");
    assert_eq!(doc["uavs"][1]["slot"], "u2");
    assert_eq!(
        doc["uavs"][1]["words"],
        serde_json::json!([0, 1, 2, 3, 4, 5])
    );
    assert!(doc["engines"][0]["dispatch_ms"].is_number());

    let dir = scratch("dump");
    let file = dir.join("u2.bin");
    let dump = format!("u2={}", s(&file));
    let o = sm5jit(&raw_copy_args(s(&shader), &["--dump", &dump]));
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let bytes = std::fs::read(&file).unwrap();
    let want: Vec<u8> = (0u32..6).flat_map(u32::to_le_bytes).collect();
    assert_eq!(bytes, want);
}

#[test]
fn run_takes_corpus_pixel_shaders() {
    let ps = corpus_dir().join("conformance_ps/vkd3d_ps_not/shader.dxbc");
    let o = sm5jit(&[
        "run",
        s(&ps),
        "--synthetic",
        "--engine",
        "both",
        "--pixels",
        "4x2",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stdout(&o).contains("identical outputs"), "{}", stdout(&o));
}

#[test]
fn showcase_runs_without_arguments() {
    let o = sm5jit(&[]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("Mandelbrot"), "{out}");
    // The main cardioid is inside the set; far corners escape at once.
    let art: Vec<&str> = out.lines().filter(|l| l.len() == 72).collect();
    assert_eq!(art.len(), 28, "{out}");
    assert!(art[14].contains("@@@@"), "{out}");
    assert!(art[0].starts_with(' '), "{out}");
    assert!(out.contains("dispatch"), "{out}");
}

#[test]
fn case_command_prints_one_line_per_case_and_the_summary() {
    let a = corpus_dir().join("conformance/wine_store_imm_int");
    let b = corpus_dir().join("conformance/vkd3d_raw_copy_loops");
    let o = sm5jit(&["case", s(&a), s(&b)]);
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert_eq!(lines[0], "PASS vkd3d_raw_copy_loops", "{out}");
    assert_eq!(lines[1], "PASS wine_store_imm_int", "{out}");
    assert_eq!(lines[2], "2 passed, 0 failed, 0 skipped");
    assert_eq!(code(&o), 0);
}

#[test]
fn failing_case_exits_1_with_the_first_difference() {
    let src = corpus_dir().join("conformance/wine_store_imm_int");
    let dir = scratch("failcase");
    let case = dir.join("wrong");
    std::fs::create_dir_all(&case).unwrap();
    std::fs::copy(src.join("shader.dxbc"), case.join("shader.dxbc")).unwrap();
    let json = std::fs::read_to_string(src.join("case.json")).unwrap();
    let mut doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    doc["id"] = "wrong_value".into();
    doc["expected"][0]["values"] = serde_json::json!([43]);
    std::fs::write(case.join("case.json"), doc.to_string()).unwrap();
    let o = sm5jit(&["case", s(&dir)]);
    assert_eq!(code(&o), 1, "{}", stdout(&o));
    let out = stdout(&o);
    assert!(
        out.contains("FAIL wrong_value: slot u0 word 0: expected 0x0000002b, got 0x0000002a"),
        "{out}"
    );
    assert_eq!(out.lines().last(), Some("0 passed, 1 failed, 0 skipped"));
}

#[test]
fn runaway_shader_is_stopped_by_the_budget() {
    let dir = scratch("budget");
    let path = dir.join("forever.asm");
    std::fs::write(
        &path,
        "cs_5_0\ndcl_temps 1\ndcl_thread_group 1, 1, 1\nloop\n  iadd r0.x, r0.x, l(1)\nendloop\nret\n",
    )
    .unwrap();
    let o = sm5jit(&["run", s(&path), "--budget", "1000"]);
    assert_eq!(code(&o), 4, "{}", stderr(&o));
    assert!(stderr(&o).contains("budget"), "{}", stderr(&o));
}

#[test]
fn missing_binding_is_a_runtime_error() {
    let o = sm5jit(&["run", s(&case_shader("vkd3d_raw_copy_loops"))]);
    assert_eq!(code(&o), 4, "{}", stderr(&o));
    assert!(stderr(&o).contains("nothing is bound"), "{}", stderr(&o));
}

#[test]
fn sampling_shader_runs_until_a_missing_binding() {
    let path = corpus_dir().join("realworld/bgfx_cs_assao_apply/shader.dxbc");
    let o = sm5jit(&["run", s(&path)]);
    assert_eq!(code(&o), 4, "{}", stderr(&o));
    assert!(stderr(&o).contains("nothing is bound"), "{}", stderr(&o));
}

#[test]
fn both_engines_pass_a_case_and_agree_on_run() {
    let o = sm5jit(&[
        "case",
        "--engine",
        "both",
        s(&corpus_dir().join("conformance/wine_tgsm_raw")),
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stdout(&o).ends_with("1 passed, 0 failed, 0 skipped\n"),
        "{}",
        stdout(&o)
    );
    let shader = case_shader("vkd3d_raw_copy_loops");
    let o = sm5jit(&raw_copy_args(s(&shader), &["--engine", "both"]));
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("jit: compile"), "{out}");
    assert!(
        out.contains("interp and jit: identical bytes in every UAV"),
        "{out}"
    );
}

#[test]
fn showcase_json_has_every_pixel() {
    let o = sm5jit(&["run", "--format", "json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("valid JSON");
    let iterations = doc["iterations"].as_array().expect("iterations array");
    assert_eq!(iterations.len(), 72 * 28);
    // c = 0 (inside the set) is near column 50 of the middle rows; c = -2.2 - 1.2i escapes at once.
    assert_eq!(iterations[0], 1);
    assert_eq!(iterations[14 * 72 + 50], 200);
}

#[test]
fn dump_checks_the_slot_and_can_write_stdout() {
    let shader = case_shader("vkd3d_raw_copy_loops");
    let o = sm5jit(&raw_copy_args(s(&shader), &["--dump", "u9"]));
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("--dump u9"), "{}", stderr(&o));
    let o = sm5jit(&raw_copy_args(s(&shader), &["--dump", "u0=-"]));
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(o.stdout, 0xdead_babeu32.to_le_bytes());
}

#[test]
fn every_realworld_shader_validates_and_disassembles() {
    let root = corpus_dir().join("realworld");
    let mut files: Vec<String> = std::fs::read_dir(&root)
        .expect("realworld folder")
        .filter_map(|e| e.ok())
        .map(|e| e.path().join("shader.dxbc"))
        .filter(|p| p.is_file())
        .map(|p| s(&p).to_string())
        .collect();
    files.sort();
    assert!(files.len() >= 36, "{} shaders", files.len());
    let mut args = vec!["validate"];
    args.extend(files.iter().map(String::as_str));
    let o = sm5jit(&args);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(stdout(&o).lines().count(), files.len());
    for f in files.iter().step_by(7) {
        let o = sm5jit(&["disasm", f]);
        assert_eq!(code(&o), 0, "{f}: {}", stderr(&o));
        assert!(stdout(&o).starts_with("cs_"), "{f}");
    }
}

fn realworld_shader(name: &str) -> PathBuf {
    corpus_dir()
        .join("realworld")
        .join(name)
        .join("shader.dxbc")
}

/// `run --synthetic --engine both` binds every declared resource on
/// real-world shaders and both engines write the same bytes; an explicit
/// `--cb` replaces the synthetic cb0 (it keeps update_instances' loop short).
#[test]
fn run_synthetic_both_engines_agree_on_realworld_shaders() {
    for (name, extra) in [
        ("bgfx_cs_init_instances", &[][..]),
        ("bgfx_cs_update_instances", &["--cb", "cb0=u32:0,1,0,0"][..]),
        ("directxtex_BC7Encode_TryMode456CS", &[][..]),
    ] {
        let shader = realworld_shader(name);
        let mut args = vec!["run", s(&shader), "--synthetic", "--engine", "both"];
        args.extend_from_slice(extra);
        let o = sm5jit(&args);
        assert_eq!(code(&o), 0, "{name}: {}", stderr(&o));
        let out = stdout(&o);
        assert!(out.contains("groups 2,1,1"), "{name}: {out}");
        assert!(
            out.contains("interp and jit: identical bytes in every UAV"),
            "{name}: {out}"
        );
    }
}

/// Synthetic inputs are reproducible, and `--groups` overrides the default.
#[test]
fn run_synthetic_is_deterministic_and_samples_textures() {
    let shader = realworld_shader("bgfx_cs_assao_apply");
    let args = ["run", s(&shader), "--synthetic", "--groups", "1,1,1"];
    let a = sm5jit(&args);
    assert_eq!(code(&a), 0, "{}", stderr(&a));
    let out = stdout(&a);
    assert!(out.contains("groups 1,1,1"), "{out}");
    assert!(out.contains("u0: "), "{out}");
    let strip = |t: String| -> String {
        t.lines()
            .filter(|l| !l.contains("compile"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let b = sm5jit(&args);
    assert_eq!(strip(stdout(&a)), strip(stdout(&b)));
    let o = sm5jit(&["run", "--synthetic"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
}

#[test]
fn code_dumps_of_run_and_bench() {
    // run: both dumps on stderr, under headers naming the shader, and the
    // shader still runs.
    let shader = case_shader("wine_tgsm_raw");
    let o = sm5jit(&[
        "run",
        s(&shader),
        "--synthetic",
        "--dump-clif",
        "--dump-asm",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let err = stderr(&o);
    let clif = err.find("; sm5jit --dump-clif: ").expect(&err);
    let asm = err.find("; sm5jit --dump-asm: ").expect(&err);
    assert!(clif < asm);
    assert!(err[clif..asm].contains("\nfunction "), "{err}");
    assert!(err[asm..].contains("ret"), "{err}");
    assert!(stdout(&o).contains("u0"), "{}", stdout(&o));
    // bench: appended to a file per option, one section per kernel.
    let dir = scratch("code_dumps");
    let file = dir.join("k.s");
    let arg = format!("--dump-asm={}", s(&file));
    let o = sm5jit(&[
        "bench",
        "saxpy",
        "histogram",
        "--size",
        "1024",
        "--runs",
        "1",
        &arg,
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let text = std::fs::read_to_string(&file).expect("the dump file exists");
    assert_eq!(text.matches("; sm5jit --dump-asm: ").count(), 2, "{text}");
    assert!(text.contains("; sm5jit --dump-asm: histogram\n"), "{text}");
    // An unwritable destination is an input error naming it.
    let o = sm5jit(&[
        "run",
        s(&shader),
        "--synthetic",
        "--dump-clif=/nonexistent-dir/x",
    ]);
    assert_eq!(code(&o), 3, "{}", stderr(&o));
    assert!(stderr(&o).contains("/nonexistent-dir/x"), "{}", stderr(&o));
}

/// `bench --resident` times runs without resetting the UAVs, says so in
/// its header, and still checks every kernel's first output.
#[test]
fn bench_resident_says_so_and_checks_the_output() {
    let o = sm5jit(&[
        "bench",
        "saxpy",
        "scan",
        "--size",
        "1024",
        "--runs",
        "3",
        "--resident",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    let header = out.lines().next().unwrap_or_default();
    assert!(header.contains("resident buffers"), "{out}");
    assert!(out.lines().any(|l| l.starts_with("saxpy")), "{out}");
    assert!(out.lines().any(|l| l.starts_with("scan")), "{out}");
    let o = sm5jit(&["bench", "saxpy", "--size", "1024", "--runs", "1"]);
    assert!(!stdout(&o).contains("resident"), "{}", stdout(&o));
}

/// The `run` example of docs/cli.md is what the command prints (times
/// aside): the command is taken from the `console` block and run.
#[test]
fn the_run_example_in_the_docs_matches_real_output() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let doc = std::fs::read_to_string(root.join("docs/cli.md")).unwrap();
    let block = doc
        .split("```console\n$ sm5jit run ")
        .nth(1)
        .and_then(|b| b.split("\n```").next())
        .expect("docs/cli.md has a `console` block of `sm5jit run`");
    let joined = block.replace("\\\n", " ");
    let mut lines = joined.lines();
    let args: Vec<&str> = std::iter::once("run")
        .chain(lines.next().unwrap().split_whitespace())
        .collect();
    // The example's paths are relative to the repository root.
    let o = Command::new(env!("CARGO_BIN_EXE_sm5jit"))
        .args(&args)
        .current_dir(&root)
        .env("NO_COLOR", "1")
        .output()
        .expect("the sm5jit binary runs");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    // Numbers followed by ` ms` are timings.
    let untimed = |l: &str| -> String {
        let words: Vec<&str> = l.split(' ').collect();
        (0..words.len())
            .map(|i| {
                if words.get(i + 1).is_some_and(|n| n.starts_with("ms")) {
                    "T"
                } else {
                    words[i]
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let want: Vec<String> = lines.map(untimed).collect();
    let got: Vec<String> = stdout(&o).lines().map(untimed).collect();
    assert_eq!(got, want);
}

/// `run` refuses what D3D cannot do and warns about what is probably a
/// mistake: a counter on a raw UAV is a usage error, a binding at a slot
/// the shader never declares is a warning, a misspelt format is a usage
/// error that lists the DXGI names, and `--threads 0` means one worker per
/// core (the default), not zero.
#[test]
fn run_refuses_and_warns_like_d3d() {
    let shader = case_shader("vkd3d_raw_copy_loops");
    let base = [
        "run",
        s(&shader),
        "--srv",
        "t0=raw:u32:0xdeadbabe",
        "--srv",
        "t4=raw:iota:6",
        "--uav",
        "u0=raw:zeros:4",
        "--uav",
        "u2=raw:zeros:24",
        "--cb",
        "cb0=u32:1,6",
    ];
    let with = |extra: &[&str]| {
        let mut v = base.to_vec();
        v.extend_from_slice(extra);
        sm5jit(&v)
    };
    let o = with(&["--counter", "u0=3"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("only on structured UAVs"),
        "{}",
        stderr(&o)
    );

    let o = with(&["--uav", "u5=raw:zeros:4"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("warning: u5 is bound but the shader declares no u5"),
        "{}",
        stderr(&o)
    );
    assert!(!stderr(&o).contains("u0 is bound"), "{}", stderr(&o));

    let o = with(&["--uav", "u7=typed:R32_FLOT:zeros:4"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("unknown format `R32_FLOT`"),
        "{}",
        stderr(&o)
    );
    assert!(stderr(&o).contains("R32_FLOAT"), "{}", stderr(&o));

    let o = with(&["--threads", "0"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stdout(&o).contains("0000: deadbabe"), "{}", stdout(&o));
}
