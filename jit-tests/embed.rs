//! The embedding surface: the public Rust API from other threads, the C
//! header and example built with the machine's gcc against the library
//! this test run built, and the showcase example's image.

use std::path::{Path, PathBuf};
use std::process::Command;

use sm5jit::{Bindings, DispatchConfig, EngineKind, Shader, Slot, View};

#[allow(dead_code)]
#[path = "../examples/showcase.rs"]
mod showcase;

#[allow(dead_code)]
#[path = "../examples/rasterizer.rs"]
mod rasterizer;

/// `target/<profile>`: the test binary lives in its `deps/`.
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    let deps = exe.parent().expect("deps dir");
    deps.parent().expect("profile dir").to_path_buf()
}

/// The static library built with this test binary: cargo writes it to
/// `deps/` when the library is built for tests and copies it up to
/// `target/<profile>/` only on `cargo build`, so take the newer one.
fn static_lib() -> PathBuf {
    let dir = profile_dir();
    let candidates = [dir.join("deps/libsm5jit.a"), dir.join("libsm5jit.a")];
    let modified = |p: &PathBuf| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    candidates
        .iter()
        .filter_map(|p| Some((modified(p)?, p.clone())))
        .max()
        .map(|(_, p)| p)
        .unwrap_or_else(|| panic!("libsm5jit.a was not built in {}", dir.display()))
}

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn gcc(args: &[&str]) -> std::process::Output {
    Command::new("gcc")
        .args(args)
        .output()
        .expect("gcc must be installed to test the C interface (apt-get install gcc)")
}

#[test]
fn header_compiles_alone_with_warnings_as_errors() {
    let out = gcc(&[
        "-std=c99",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-pedantic",
        "-fsyntax-only",
        "-x",
        "c",
        repo().join("include/sm5jit.h").to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The program `examples/c/compute.c` compiles from text; the test hands
/// the C program the same program as DXBC.
const C_EXAMPLE_ASM: &str = "cs_5_0
dcl_constantbuffer CB0[1], immediateIndexed
dcl_resource_structured t0, 4
dcl_uav_raw u0
dcl_input vThreadID.x
dcl_temps 2
dcl_thread_group 64, 1, 1
uge r0.x, vThreadID.x, cb0[0].y
if_nz r0.x
  ret
endif
ld_structured r0.x, vThreadID.x, l(0), t0.xxxx
imad r0.x, r0.x, l(3), cb0[0].x
ishl r1.x, vThreadID.x, l(2)
store_raw u0.x, r1.x, r0.x
ret
";

/// Compiles `examples/c/NAME.c` with warnings as errors against the static
/// library built with this test binary; returns (its temporary directory,
/// the executable).
fn build_c_example(name: &str) -> (PathBuf, PathBuf) {
    let lib = static_lib();
    let dir = std::env::temp_dir().join(format!("sm5jit-capi-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let exe = dir.join(name);
    let source = repo().join(format!("examples/c/{name}.c"));
    let out = gcc(&[
        "-std=c99",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-pedantic",
        "-I",
        repo().join("include").to_str().unwrap(),
        source.to_str().unwrap(),
        lib.to_str().unwrap(),
        "-lpthread",
        "-ldl",
        "-lm",
        "-o",
        exe.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "gcc failed on {name}.c:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (dir, exe)
}

/// `examples/c/tiers.c`: tier 0, tier 1 and auto give identical results,
/// auto reaches tier 1 by itself, bad compile options are refused.
#[test]
fn c_tiers_example_compiles_on_every_tier() {
    let (dir, exe) = build_c_example("tiers");
    let run = Command::new(&exe).output().unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        run.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    // The expected sum from the shader's formula.
    let want: u64 = (0..4096u32)
        .map(|i| {
            (0..16u32)
                .map(|m| u64::from(i.wrapping_mul(m) ^ m))
                .sum::<u64>()
        })
        .sum();
    for (name, tier) in [("0", 0), ("1", 1), ("auto", 0)] {
        let line = format!("tier {name} {tier} {want}");
        assert!(stdout.contains(&line), "missing `{line}`:\n{stdout}");
    }
    assert!(stdout.contains("auto reached tier 1"), "{stdout}");
    assert!(
        stdout.contains("misuse bad_tier SM5JIT_ERROR_INVALID_ARGUMENT"),
        "{stdout}"
    );
    assert!(stdout.contains("all checks passed"), "{stdout}");
}

#[test]
fn c_example_builds_links_and_checks_its_results() {
    let (dir, exe) = build_c_example("compute");
    let program = sm5jit::asm::parse_program(C_EXAMPLE_ASM).unwrap();
    let dxbc = sm5jit::dxbc::write_dxbc(&program, None, None).unwrap();
    let dxbc_path = dir.join("compute.dxbc");
    std::fs::write(&dxbc_path, dxbc).unwrap();
    let run = Command::new(&exe).arg(&dxbc_path).output().unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        run.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    // Expected values from the shader's formula, out[i] = in[i] * 3 + 11.
    let value = |i: u64| (i * 7 % 1013) * 3 + 11;
    let sum: u64 = (0..1000).map(value).sum();
    for engine in ["jit", "jit-indirect", "interpreter", "dxbc"] {
        for line in [
            format!("sum {engine} {sum}"),
            format!("probe {engine} 0 {}", value(0)),
            format!("probe {engine} 999 {}", value(999)),
        ] {
            assert!(
                stdout.lines().any(|l| l == line),
                "missing {line:?} in\n{stdout}"
            );
        }
    }
    let misuse = [
        ("null_text", "NULL_POINTER"),
        ("null_out", "NULL_POINTER"),
        ("bad_engine", "INVALID_ARGUMENT"),
        ("bad_asm", "ASM"),
        ("bad_dxbc", "DECODE"),
        ("struct_size", "BAD_SIZE"),
        ("window_too_big", "BAD_SIZE"),
        ("null_view", "NULL_POINTER"),
        ("missing_binding", "RUNTIME"),
        ("overlap", "INVALID_ARGUMENT"),
        ("indirect_out_of_range", "RUNTIME"),
        ("zero_handle", "INVALID_HANDLE"),
        ("wrong_kind", "INVALID_HANDLE"),
        ("use_after_free", "INVALID_HANDLE"),
        ("double_free", "INVALID_HANDLE"),
        ("stale_after_reuse", "INVALID_HANDLE"),
        ("bindings_double_free", "INVALID_HANDLE"),
        ("bind_after_free", "INVALID_HANDLE"),
    ];
    for (name, status) in misuse {
        let line = format!("misuse {name} SM5JIT_ERROR_{status}");
        assert!(
            stdout.lines().any(|l| l == line),
            "missing {line:?} in\n{stdout}"
        );
    }
    assert!(stdout.lines().any(|l| l == "ok (0 failures)"), "{stdout}");
    // The reflection it printed, as the declarations of C_EXAMPLE_ASM say:
    // compute 5.0, 64 threads, 9 instructions; vThreadID; cb0 of one
    // vec4 (16 bytes), t0 structured (12) of stride 4, u0 raw (11).
    for line in [
        "reflect model 5 5.0 group 64 1 1 tgsm 0 instructions 9 flags 0x0",
        "reflect input SV_DispatchThreadID0 register -1 mask 0x1",
        "reflect cb slot 0 space 0 size 16 dimension 0 stride 0 flags 0x0",
        "reflect srv slot 0 space 0 size 0 dimension 12 stride 4 flags 0x0",
        "reflect uav slot 0 space 0 size 0 dimension 11 stride 0 flags 0x0",
    ] {
        assert!(
            stdout.lines().any(|l| l == line),
            "missing {line:?} in\n{stdout}"
        );
    }
}

/// Misuse through the extern functions from Rust, without a C compiler.
#[test]
fn c_abi_misuse_from_rust_returns_errors() {
    use sm5jit::capi::convert::CBufferView;
    use sm5jit::capi::*;
    use std::ffi::CStr;
    let last = || {
        unsafe { CStr::from_ptr(sm5jit_last_error()) }
            .to_string_lossy()
            .into_owned()
    };
    let mut s = 0u64;
    let src = C_EXAMPLE_ASM.as_bytes();
    unsafe {
        assert_eq!(
            sm5jit_shader_from_asm(src.as_ptr().cast(), src.len(), 0, &mut s),
            status::OK
        );
        let mut b = 0u64;
        assert_eq!(sm5jit_bindings_create(&mut b), status::OK);
        let mut mem = [0u32; 8];
        let view = CBufferView {
            struct_size: 32,
            kind: 0,
            stride: 0,
            format: 0,
            first_element: 6,
            num_elements: 4,
        };
        assert_eq!(
            sm5jit_bind_uav_buffer(b, 0, mem.as_mut_ptr().cast(), 32, &view),
            status::BAD_SIZE
        );
        assert!(
            last().contains("needs 40 bytes but size is 32"),
            "{}",
            last()
        );
        assert_eq!(
            sm5jit_get_uav_counter(b, 0, std::ptr::null_mut()),
            status::NULL_POINTER
        );
        assert_eq!(sm5jit_shader_free(s), status::OK);
        assert_eq!(sm5jit_shader_free(s), status::INVALID_HANDLE);
        assert!(last().contains("stale"), "{}", last());
        assert_eq!(
            sm5jit_dispatch(s, b, 1, 1, 1, std::ptr::null()),
            status::INVALID_HANDLE
        );
        assert_eq!(sm5jit_bindings_free(b), status::OK);
        assert_eq!(sm5jit_bindings_free(b), status::INVALID_HANDLE);
        assert_eq!(sm5jit_bindings_free(u64::MAX), status::INVALID_HANDLE);
    }
}

/// A counter UAV through the C ABI: start value in, final value out.
#[test]
fn c_abi_uav_counters_round_trip() {
    use sm5jit::capi::convert::CBufferView;
    use sm5jit::capi::*;
    let src = "cs_5_0
dcl_uav_structured u0, 4
dcl_temps 1
dcl_thread_group 8, 1, 1
imm_atomic_alloc r0.x, u0
store_structured u0.x, r0.x, l(0), r0.x
ret
";
    let mut mem = [0xFFFF_FFFFu32; 32];
    unsafe {
        let (mut s, mut b) = (0u64, 0u64);
        assert_eq!(
            sm5jit_shader_from_asm(src.as_ptr().cast(), src.len(), 0, &mut s),
            status::OK
        );
        assert_eq!(sm5jit_bindings_create(&mut b), status::OK);
        let view = CBufferView {
            struct_size: 32,
            kind: 1,
            stride: 4,
            format: 0,
            first_element: 0,
            num_elements: 32,
        };
        assert_eq!(
            sm5jit_bind_uav_buffer(b, 0, mem.as_mut_ptr().cast(), 128, &view),
            status::OK
        );
        assert_eq!(sm5jit_set_uav_counter(b, 0, 4), status::OK);
        assert_eq!(sm5jit_dispatch(s, b, 2, 1, 1, std::ptr::null()), status::OK);
        let mut counter = 0;
        assert_eq!(sm5jit_get_uav_counter(b, 0, &mut counter), status::OK);
        assert_eq!(counter, 20);
        assert_eq!(sm5jit_bindings_free(b), status::OK);
        assert_eq!(sm5jit_shader_free(s), status::OK);
    }
    for (i, &v) in mem.iter().enumerate() {
        let want = if (4..20).contains(&i) {
            i as u32
        } else {
            u32::MAX
        };
        assert_eq!(v, want, "element {i}");
    }
}

/// One compiled shader dispatched from several threads at once.
#[test]
fn one_shader_dispatches_from_many_threads() {
    let shader = Shader::from_asm(C_EXAMPLE_ASM, EngineKind::Jit).unwrap();
    std::thread::scope(|scope| {
        for k in 0..4u32 {
            let shader = &shader;
            scope.spawn(move || {
                let input: Vec<u8> = (0..256u32).flat_map(|v| (v + k).to_le_bytes()).collect();
                let cb: Vec<u8> = [k, 256, 0, 0]
                    .iter()
                    .flat_map(|v| v.to_le_bytes())
                    .collect();
                let mut out = vec![0u8; 1024];
                let mut b = Bindings::new();
                b.srv(Slot::new(0), &input, View::structured(4, 0, 256))
                    .uav(Slot::new(0), &mut out, View::raw(0, 256))
                    .cb(Slot::new(0), &cb);
                let config = DispatchConfig {
                    threads: 1,
                    ..DispatchConfig::default()
                };
                shader.dispatch_with(&mut b, [4, 1, 1], &config).unwrap();
                drop(b);
                for i in 0..256u32 {
                    let got = u32::from_le_bytes(out[4 * i as usize..][..4].try_into().unwrap());
                    assert_eq!(got, (i + k) * 3 + k, "thread {k} element {i}");
                }
            });
        }
    });
}

/// The showcase example's image: both engines agree on every pixel, and
/// pixels with a known fate have it.
#[test]
fn showcase_image_matches_the_interpreter_and_known_points() {
    let (w, h, iters) = (90u32, 72u32, 64u32);
    let jit = Shader::from_asm(showcase::SHADER, EngineKind::Jit).unwrap();
    let interp = Shader::from_asm(showcase::SHADER, EngineKind::Interpreter).unwrap();
    let a = showcase::render(&jit, w, h, iters).unwrap();
    let b = showcase::render(&interp, w, h, iters).unwrap();
    assert_eq!(a, b, "JIT and interpreter images differ");
    // The pixel whose centre is nearest c = (x, y).
    let at = |x: f32, y: f32| {
        let (x0, y0, x1, y1) = showcase::WINDOW;
        let px = ((x - x0) / (x1 - x0) * w as f32) as usize;
        let py = ((y - y0) / (y1 - y0) * h as f32) as usize;
        a[py * w as usize + px]
    };
    // Deep inside the main cardioid and the period-2 bulb: never escapes.
    assert_eq!(at(-0.2, 0.0), iters);
    assert_eq!(at(-1.0, 0.05), iters);
    // First pixel (row 0 is y = -1.2), c = (-2.183, -1.183): |c|^2 > 4 after one step.
    assert_eq!(a[0], 1);
    // Last pixel, c = (0.783, 1.183): |c|^2 = 2.01, then
    // z = c^2 + c = (-0.003, 3.037) escapes: two steps.
    assert_eq!(a[(w * h - 1) as usize], 2);
    // c = 0.5: z goes 0.5, 0.75, 1.0625, 1.6289, 3.1533 (|z|^2 > 4) -> 5.
    assert_eq!(at(0.5, 0.0), 5);
    let inside = a.iter().filter(|&&c| c == iters).count();
    assert!((500..2500).contains(&inside), "{inside} pixels inside");
    // The PNG holds exactly the coloured pixels.
    let rgb = showcase::colorize(&a, iters);
    assert_eq!(rgb.len(), (w * h * 3) as usize);
    assert_eq!(&rgb[..3], showcase::colorize(&[1], iters).as_slice());
    let file = showcase::encode_png(w, h, &rgb).unwrap();
    let mut reader = png::Decoder::new(std::io::Cursor::new(file))
        .read_info()
        .unwrap();
    let mut decoded = vec![0; reader.output_buffer_size().unwrap()];
    let frame = reader.next_frame(&mut decoded).unwrap();
    assert_eq!((frame.width, frame.height), (w, h));
    assert_eq!(frame.color_type, png::ColorType::Rgb);
    assert_eq!(&decoded[..frame.buffer_size()], rgb.as_slice());
}

/// Textures and samplers through the C ABI: a texel read with `ld` from a
/// 2D texture, and sampler descriptions checked field by field.
#[test]
fn c_abi_textures_and_samplers() {
    use sm5jit::capi::convert::{CBufferView, CSamplerDesc, CTextureView};
    use sm5jit::capi::*;
    let src = "cs_5_0
dcl_resource_texture2d (uint,uint,uint,uint) t0
dcl_uav_raw u0
dcl_input vThreadID.xy
dcl_temps 2
dcl_thread_group 4, 2, 1
mov r0.xy, vThreadID.xyxx
mov r0.zw, l(0,0,0,0)
ld r1.x, r0.xyzw, t0.xyzw
imad r0.x, vThreadID.y, l(4), vThreadID.x
ishl r0.x, r0.x, l(2)
store_raw u0.x, r0.x, r1.x
ret
";
    let texels: Vec<u32> = (0..8).map(|i| 100 + i * i).collect();
    let mut out = [0u32; 8];
    unsafe {
        let (mut s, mut b) = (0u64, 0u64);
        assert_eq!(
            sm5jit_shader_from_asm(src.as_ptr().cast(), src.len(), 0, &mut s),
            status::OK,
            "{:?}",
            std::ffi::CStr::from_ptr(sm5jit_last_error())
        );
        assert_eq!(sm5jit_bindings_create(&mut b), status::OK);
        let tex = CTextureView {
            struct_size: 48,
            dim: 2,
            format: 42, // R32_UINT
            samples: 0,
            width: 4,
            height: 2,
            depth_or_array: 1,
            mip_levels: 1,
            row_pitch: 16,
            slice_pitch: 32,
        };
        assert_eq!(
            sm5jit_bind_srv_texture(b, 0, texels.as_ptr().cast(), 32, &tex),
            status::OK
        );
        // One byte short of the texture: refused when bound.
        assert_eq!(
            sm5jit_bind_srv_texture(b, 1, texels.as_ptr().cast(), 31, &tex),
            status::BAD_SIZE
        );
        let raw = CBufferView {
            struct_size: 32,
            kind: 0,
            stride: 0,
            format: 0,
            first_element: 0,
            num_elements: 8,
        };
        assert_eq!(
            sm5jit_bind_uav_buffer(b, 0, out.as_mut_ptr().cast(), 32, &raw),
            status::OK
        );
        let mut sampler = CSamplerDesc {
            struct_size: 68,
            min_filter: 0,
            mag_filter: 1,
            mip_filter: 0,
            anisotropic: 0,
            address_u: 1,
            address_v: 3,
            address_w: 4,
            comparison: 1,
            max_anisotropy: 1,
            border_color: [0.0; 4],
            mip_lod_bias: 0.0,
            min_lod: 0.0,
            max_lod: 1000.0,
        };
        assert_eq!(sm5jit_bind_sampler(b, 0, &sampler), status::OK);
        sampler.address_u = 9;
        assert_eq!(
            sm5jit_bind_sampler(b, 1, &sampler),
            status::INVALID_ARGUMENT
        );
        assert_eq!(sm5jit_unbind(b, 3, 0), status::OK);
        assert_eq!(sm5jit_dispatch(s, b, 1, 1, 1, std::ptr::null()), status::OK);
        assert_eq!(sm5jit_bindings_free(b), status::OK);
        assert_eq!(sm5jit_shader_free(s), status::OK);
    }
    assert_eq!(out.to_vec(), texels);
}

/// `examples/c/batch.c` runs pixel quads (outputs, derivatives, discard,
/// helper lanes) and the misuse cases on both engines and checks them.
#[test]
fn c_batch_example_builds_links_and_checks_its_results() {
    let (dir, exe) = build_c_example("batch");
    let run = Command::new(&exe).output().unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        run.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(stdout, "ok jit\nok interpreter\n");
}

/// `examples/c/threads.c`: four threads run pixel quads of one textured,
/// UAV-counting shader against one bindings object at once; every batch
/// gives what it gives alone and the atomic counts every pixel once.
#[test]
fn c_threads_example_runs_batches_concurrently() {
    let (dir, exe) = build_c_example("threads");
    let run = Command::new(&exe).output().unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        run.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(stdout, "ok jit\nok interpreter\n");
}

/// The rasterizer example at a small size and mesh: both engines and any
/// worker count draw the same image and depth buffer; the depth buffer is
/// exactly the nearest front-facing triangle at each pixel centre
/// (brute force over every triangle), the background shows exactly where
/// no triangle covers a pixel, and the covered pixels are textured and lit
/// (many distinct colours, none black). The full scene has at least
/// 10,000 triangles.
#[test]
fn rasterizer_depth_tests_and_draws_the_same_image_everywhere() {
    let (w, h) = (64u32, 48u32);
    let scene = rasterizer::Scene::new(24, 12, w, h);
    let (vs, ps) = rasterizer::shaders(EngineKind::Jit).unwrap();
    let (ivs, ips) = rasterizer::shaders(EngineKind::Interpreter).unwrap();
    let img = rasterizer::render(&vs, &ps, &scene, w, h, 1).unwrap();
    for (name, other) in [
        (
            "3 workers",
            rasterizer::render(&vs, &ps, &scene, w, h, 3).unwrap(),
        ),
        (
            "interpreter",
            rasterizer::render(&ivs, &ips, &scene, w, h, 2).unwrap(),
        ),
    ] {
        assert!(img.rgba == other.rgba, "{name}: colours differ");
        assert!(img.depth == other.depth, "{name}: depths differ");
    }
    let tris = rasterizer::setup_triangles(&vs, &scene, w, h).unwrap();
    assert!(tris.len() > 200, "{} front-facing triangles", tris.len());
    let mut colours = std::collections::BTreeSet::new();
    let mut covered = 0;
    for y in 0..h {
        for x in 0..w {
            let p = [x as f32 + 0.5, y as f32 + 0.5];
            let nearest = tris
                .iter()
                .filter_map(|t| {
                    let b = t.barycentric(p);
                    rasterizer::inside(b).then(|| t.depth_at(b))
                })
                .fold(1.0f32, f32::min);
            let at = (y * w + x) as usize;
            assert_eq!(img.depth[at], nearest, "depth at {x},{y}");
            let c: [u8; 4] = img.rgba[at * 4..at * 4 + 4].try_into().unwrap();
            if nearest < 1.0 {
                covered += 1;
                assert!(c[..3].iter().any(|&v| v > 8), "black pixel at {x},{y}");
                colours.insert(c);
            } else {
                assert_eq!(c, rasterizer::BACKGROUND, "background at {x},{y}");
            }
        }
    }
    assert!(covered > 400, "{covered} covered pixels");
    assert!(colours.len() > 100, "{} distinct colours", colours.len());
    let full = rasterizer::Mesh::torus(128, 64, 1.0, 0.42);
    assert!(full.triangles.len() >= 10_000);
}
