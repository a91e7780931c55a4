//! DXBC written by sm5jit runs on another implementation: vkd3d (D3D12 on
//! Vulkan) over Mesa's lavapipe, through `../shared/peers/vkd3d-run`.
//!
//! vkd3d rejects a container whose checksum is wrong, so a run that produces
//! the expected results proves that our assembler and container writer make
//! blobs other implementations accept.
//!
//! The peer needs Debian's vkd3d and Mesa packages (`.ci/run` installs them
//! and sets `SM5JIT_REQUIRE_PEER=1`, so CI always runs these checks). On a
//! machine without them (`build.rs` finds no `libvkd3d-utils` through
//! pkg-config) the tests are compiled as ignored, so `cargo test` reports
//! them as `ignored`, never as passed. Once they run, a peer that cannot be
//! built is a failure.

use sm5jit::asm::{parse_program, print_program, PrintOptions};
use sm5jit::dxbc::{read_dxbc, write_dxbc, ReadOptions};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

fn peers_dir() -> PathBuf {
    crate::corpus_dir().join("../peers")
}

/// Builds `vkd3d-run` once into the target directory; a test that runs
/// without it fails, saying what to install.
fn peer() -> &'static Path {
    static BIN: OnceLock<Option<PathBuf>> = OnceLock::new();
    BIN.get_or_init(|| {
        let bin = Path::new(env!("CARGO_TARGET_TMPDIR")).join("vkd3d-run");
        let built = bin.exists()
            || Command::new("make")
                .arg("-s")
                .arg("-C")
                .arg(peers_dir())
                .arg(format!("BIN={}", bin.display()))
                .status()
                .map(|s| s.success())
                .unwrap_or(false);
        built.then_some(bin)
    })
    .as_deref()
    .unwrap_or_else(|| {
        panic!(
            "the peer test runs but vkd3d-run could not be built; install \
             libvkd3d-dev libvkd3d-utils1 libvkd3d-headers libvkd3d-shader1 \
             mesa-vulkan-drivers libvulkan-dev pkg-config make"
        )
    })
}

/// Runs `dxbc` on the peer and returns the dwords of UAV `u0` after the first dispatch.
fn run_on_peer(bin: &Path, dxbc: &[u8], name: &str, args: &[&str]) -> Vec<u32> {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("peer-runs");
    std::fs::create_dir_all(&dir).unwrap();
    let shader = dir.join(format!("{name}.dxbc"));
    let out = dir.join(format!("{name}.u0"));
    std::fs::write(&shader, dxbc).unwrap();
    let _ = std::fs::remove_file(&out);
    let result = Command::new(bin)
        .arg(&shader)
        .args(args)
        .args(["--iters", "0", "--out"])
        .arg(format!("u0:{}", out.display()))
        .output()
        .expect("vkd3d-run starts");
    assert!(
        result.status.success(),
        "vkd3d-run failed on {name}: {}",
        String::from_utf8_lossy(&result.stderr)
    );
    let bytes = std::fs::read(&out).unwrap();
    bytes
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

/// Our own assembly text, assembled by sm5jit: the peer must accept the
/// checksum and run it.
#[test]
#[cfg_attr(
    not(sm5jit_peer),
    ignore = "needs vkd3d and Vulkan development packages (docs/testing.md, the peer)"
)]
fn hand_written_assembly_runs_on_vkd3d() {
    let bin = peer();
    let text = "cs_5_0
dcl_globalFlags refactoringAllowed
dcl_uav_raw u0
dcl_input vThreadID.x
dcl_temps 1
dcl_thread_group 64, 1, 1
ishl r0.x, vThreadID.x, l(2)
imad r0.y, vThreadID.x, l(3), l(7)
store_raw u0.x, r0.x, r0.y
ret
";
    let program = parse_program(text).expect("our assembly parses");
    let dxbc = write_dxbc(&program, None, None).expect("encodes");
    let u0 = run_on_peer(
        bin,
        &dxbc,
        "hand_written",
        &["--groups", "4", "1", "1", "--uav", "u0:1024"],
    );
    let expected: Vec<u32> = (0..256u32).map(|i| 3 * i + 7).collect();
    assert_eq!(u0, expected);
}

/// fxc shaders taken apart and put back together by sm5jit (print → parse →
/// write) run on the peer exactly like the originals.
#[test]
#[cfg_attr(
    not(sm5jit_peer),
    ignore = "needs vkd3d and Vulkan development packages (docs/testing.md, the peer)"
)]
fn reassembled_fxc_shaders_run_on_vkd3d_like_the_originals() {
    let bin = peer();
    type Check = fn(&[u32]) -> bool;
    let cases: [(&str, &[&str], Check); 2] = [
        (
            "tgsm_raw",
            &["--groups", "64", "1", "1", "--uav", "u0:256"],
            |u| u.iter().enumerate().all(|(i, &v)| v == 33 * i as u32),
        ),
        (
            "clear_buffer",
            &[
                "--groups",
                "4",
                "1",
                "1",
                "--uav",
                "u0:1024",
                "--const",
                "b0:0xabcd",
            ],
            |u| u.iter().all(|&v| v == 0xabcd),
        ),
    ];
    for (name, args, check) in cases {
        let original =
            std::fs::read(peers_dir().join("shaders").join(format!("{name}.dxbc"))).unwrap();
        let program = read_dxbc(&original, &ReadOptions::default())
            .unwrap()
            .program;
        let text = print_program(
            &program,
            &PrintOptions {
                exact: true,
                ..Default::default()
            },
        );
        let rebuilt = write_dxbc(&parse_program(&text).unwrap(), None, None).unwrap();
        let ours = run_on_peer(bin, &rebuilt, &format!("{name}_rebuilt"), args);
        let theirs = run_on_peer(bin, &original, name, args);
        assert!(check(&ours), "{name}: unexpected results {:?}", &ours[..8]);
        assert_eq!(ours, theirs, "{name}: rebuilt and original disagree");
    }
}
