//! `sm5jit run` on vertex and pixel shaders written in assembly (both
//! sample a texture bound on the command line): JSON outputs against
//! values worked out here from the shader's formulas, `--engine both`
//! identical, and `--image`'s PNG decoded (by the `png` crate) and probed
//! pixel by pixel. Also `info` printing the reflection.

use std::path::PathBuf;
use std::process::{Command, Output};

fn sm5jit(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sm5jit"))
        .args(args)
        .output()
        .expect("the sm5jit binary runs")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sm5jit-stage-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn ok(o: &Output) -> String {
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    out
}

/// o0 = v0 * cb0.x + cb0.y; o1 = (id * 0.5, texel id of t0), sampled at
/// the texel's centre with an explicit LOD.
const VS: &str = "vs_5_0
dcl_constantbuffer CB0[1], immediateIndexed
dcl_sampler s0, mode_default
dcl_resource_texture2d (float,float,float,float) t0
dcl_input v0.xyzw
dcl_input_sgv v1.x, vertex_id
dcl_output_siv o0.xyzw, position
dcl_output o1.xy
dcl_temps 1
mad o0.xyzw, v0.xyzw, cb0[0].xxxx, cb0[0].yyyy
utof r0.x, v1.x
mul o1.x, r0.x, l(0.5)
add r0.x, r0.x, l(0.5)
mul r0.x, r0.x, l(0.25)
mov r0.y, l(0.5)
sample_l r0.x, r0.xyxx, t0.xyzw, s0, l(0.0)
mov o1.y, r0.x
ret
";

/// Samples t0 at v1 (implicit LOD), writes the coarse derivatives of v1
/// scaled to 0.5, and discards where u > 0.9 and v > 0.8.
const PS: &str = "ps_5_0
dcl_sampler s0, mode_default
dcl_resource_texture2d (float,float,float,float) t0
dcl_input_ps_siv linear noperspective v0.xy, position
dcl_input_ps linear v1.xy
dcl_output o0.xyzw
dcl_temps 2
lt r1.xy, l(0.9, 0.8, 0.0, 0.0), v1.xyxx
and r1.x, r1.x, r1.y
discard_nz r1.x
sample r0.xyzw, v1.xyxx, t0.xyzw, s0
deriv_rtx_coarse r1.x, v1.x
deriv_rty_coarse r1.y, v1.y
mul o0.z, r1.x, l(4.0)
mul o0.w, r1.y, l(2.0)
mov o0.xy, r0.xyxx
ret
";

fn write(dir: &std::path::Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

fn f32_list(v: &[f32]) -> String {
    v.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

fn bits_of(v: &serde_json::Value) -> Vec<u32> {
    v["u32"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap() as u32)
        .collect()
}

#[test]
fn run_a_vertex_shader_over_synthetic_vertices() {
    let dir = scratch("vs");
    let vs = write(&dir, "vs.asm", VS);
    let tex = format!(
        "t0=texture2d:R32_FLOAT:4x1:f32:{}",
        f32_list(&[10.0, 20.0, 30.0, 40.0])
    );
    let args = [
        "run",
        &vs,
        "--vertices",
        "4",
        "--synthetic",
        "--cb",
        "cb0=f32:2,1",
        "--srv",
        &tex,
        "--engine",
        "both",
        "--format",
        "json",
    ];
    let out = ok(&sm5jit(&args));
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["identical"], true);
    let engines: Vec<&str> = v["engines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["engine"].as_str().unwrap())
        .collect();
    assert_eq!(engines, ["interpreter", "jit"]);
    let inv = v["invocations"].as_array().unwrap();
    assert_eq!(inv.len(), 4);
    for (i, x) in inv.iter().enumerate() {
        // Synthetic vertex i of 4: v0 = (t, 1 - t, 0.5, 1), t = i / 4; v1.x = i.
        let t = i as f32 / 4.0;
        let pos = [t * 2.0 + 1.0, (1.0 - t) * 2.0 + 1.0, 2.0, 3.0];
        let outs = x["outputs"].as_array().unwrap();
        assert_eq!(outs[0]["semantic"], "SV_Position");
        assert_eq!(bits_of(&outs[0]), pos.map(f32::to_bits));
        let o1 = bits_of(&outs[1]);
        assert_eq!(f32::from_bits(o1[0]), i as f32 * 0.5);
        assert_eq!(f32::from_bits(o1[1]), 10.0 * (i + 1) as f32, "texel {i}");
    }
    // The text form names each vertex and says the engines agree.
    let text = ok(&sm5jit(&args[..args.len() - 2]));
    assert!(
        text.contains("vertex 3: o0 SV_Position0 = (2.5, 1.5, 2, 3)"),
        "{text}"
    );
    assert!(
        text.contains("identical outputs and discard state"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// (width, height, RGBA rows) of an 8-bit RGBA PNG, read by the `png` crate.
fn decode_png(bytes: &[u8]) -> (u32, u32, Vec<u8>) {
    let mut reader = png::Decoder::new(std::io::Cursor::new(bytes))
        .read_info()
        .expect("a PNG header");
    let mut buf = vec![0; reader.output_buffer_size().expect("a sane size")];
    let frame = reader.next_frame(&mut buf).expect("one frame");
    assert_eq!(frame.color_type, png::ColorType::Rgba);
    assert_eq!(frame.bit_depth, png::BitDepth::Eight);
    buf.truncate(frame.buffer_size());
    (frame.width, frame.height, buf)
}

#[test]
fn run_a_pixel_shader_over_a_grid_and_write_its_image() {
    let dir = scratch("ps");
    let ps = write(&dir, "ps.asm", PS);
    let (w, h) = (8u32, 4u32);
    // Texel (x, y) = (x / 7, y / 3, 0, 1).
    let texel = |x: u32, y: u32| [x as f32 / 7.0, y as f32 / 3.0, 0.0, 1.0];
    let texels: Vec<f32> = (0..h)
        .flat_map(|y| (0..w).flat_map(move |x| texel(x, y)))
        .collect();
    let tex = format!(
        "t0=texture2d:R32G32B32A32_FLOAT:8x4:f32:{}",
        f32_list(&texels)
    );
    let png = dir.join("o0.png");
    let args = [
        "run",
        &ps,
        "--pixels",
        "8x4",
        "--synthetic",
        "--srv",
        &tex,
        "--engine",
        "both",
        "--image",
        png.to_str().unwrap(),
        "--format",
        "json",
    ];
    let v: serde_json::Value = serde_json::from_str(&ok(&sm5jit(&args))).expect("json");
    assert_eq!(v["identical"], true);
    let inv = v["invocations"].as_array().unwrap();
    assert_eq!(inv.len(), 32);
    // Synthetic v1 = (u, v) = ((x + 0.5) / 8, (y + 0.5) / 4): the sample
    // hits texel (x, y)'s centre; ddx(u) * 4 = ddy(v) * 2 = 0.5.
    for x in inv {
        let (px, py) = (
            x["x"].as_u64().unwrap() as u32,
            x["y"].as_u64().unwrap() as u32,
        );
        if (px, py) == (7, 3) {
            assert_eq!(x["lane"], "discarded");
            continue;
        }
        assert_eq!(x["lane"], "written");
        let t = texel(px, py);
        let o0 = bits_of(&x["outputs"][0])
            .into_iter()
            .map(f32::from_bits)
            .collect::<Vec<_>>();
        assert_eq!(o0, [t[0], t[1], 0.5, 0.5], "pixel ({px},{py})");
    }
    let (iw, ih, img) = decode_png(&std::fs::read(&png).expect("the image is written"));
    assert_eq!((iw, ih), (w, h));
    let byte = |f: f32| (f.clamp(0.0, 1.0) * 255.0).round() as u8;
    for y in 0..h {
        for x in 0..w {
            let at = ((y * w + x) * 4) as usize;
            let got = &img[at..at + 4];
            let want = if (x, y) == (7, 3) {
                [0, 0, 0, 0]
            } else {
                let t = texel(x, y);
                [byte(t[0]), byte(t[1]), 128, 128]
            };
            assert_eq!(got, want, "pixel ({x},{y})");
        }
    }
    // Probes worked out by hand: x / 7 * 255 and y / 3 * 255, rounded.
    assert_eq!(&img[(8 + 3) * 4..(8 + 3) * 4 + 2], &[109, 85]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn run_stage_options_are_checked() {
    let dir = scratch("opts");
    let ps = write(&dir, "ps.asm", PS);
    let vs = write(&dir, "vs.asm", VS);
    let cs = write(&dir, "cs.asm", "cs_5_0\ndcl_thread_group 1, 1, 1\nret\n");
    for (args, what) in [
        (vec!["run", &ps, "--pixels", "7x4"], "even"),
        (
            vec!["run", &ps, "--vertices", "3"],
            "--vertices is for vertex shaders",
        ),
        (vec!["run", &vs, "--image", "x.png"], "pixel shaders"),
        (
            vec!["run", &cs, "--pixels", "8x8"],
            "vertex and pixel shaders",
        ),
        (
            vec!["run", &ps, "--input", "v1=f32:1,2,3,4,5"],
            "at most four",
        ),
    ] {
        let o = sm5jit(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(what), "{args:?}: {err}");
    }
    // An unbound texture is a runtime error naming the slot.
    let o = sm5jit(&["run", &ps, "--input", "v1=f32:0.5,0.5"]);
    assert_eq!(
        o.status.code(),
        Some(4),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn info_prints_the_reflection_as_text_and_json() {
    let dir = scratch("info");
    let ps = write(&dir, "ps.asm", PS);
    let text = ok(&sm5jit(&["info", &ps]));
    assert!(text.contains("reflection:"), "{text}");
    assert!(text.contains("SV_Position0"), "{text}");
    assert!(text.contains("s0 space 0 default with [t0]"), "{text}");
    assert!(text.contains("flags: discards, derivatives"), "{text}");
    let v: serde_json::Value =
        serde_json::from_str(&ok(&sm5jit(&["info", &ps, "--format", "json"]))).unwrap();
    let r = &v["reflection"];
    assert_eq!(r["inputs"][1]["register"], 1);
    assert_eq!(r["inputs"][1]["mask"], 3);
    assert_eq!(r["inputs"][1]["interpolation"], "linear");
    assert_eq!(r["srvs"][0]["dimension"], "texture2d");
    assert_eq!(r["flags"]["discards"], true);
    // A corpus shader: names come from the container.
    let corpus = crate::corpus_dir().join("conformance_ps/vkd3d_ps_not/shader.dxbc");
    let v: serde_json::Value = serde_json::from_str(&ok(&sm5jit(&[
        "info",
        corpus.to_str().unwrap(),
        "--format",
        "json",
    ])))
    .unwrap();
    assert_eq!(v["reflection"]["from_container"], true);
    assert_eq!(v["reflection"]["outputs"][0]["semantic"], "SV_Target");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A shader that reads `SV_SampleIndex` on a 4-sample target runs the
/// grid once per sample: each invocation sees its sample index, its own
/// coverage bit and `SV_Position` at the sample's standard position
/// (D3D11's 4-sample pattern, in 1/16 pixel: (-2,-6), (6,-2), (-6,2), (2,6)).
#[test]
fn run_shades_per_sample_when_the_shader_reads_the_sample_index() {
    let dir = scratch("persample");
    let ps = write(
        &dir,
        "ps.asm",
        "ps_5_0
dcl_input_ps_siv linear noperspective sample v0.xy, position
dcl_input_ps_sgv constant v1.x, sampleIndex
dcl_input vCoverage
dcl_output o0.xyzw
utof o0.x, v1.x
mov o0.y, vCoverage
mov o0.zw, v0.xxxy
ret
",
    );
    let args = [
        "run",
        &ps,
        "--pixels",
        "2x2",
        "--samples",
        "4",
        "--synthetic",
        "--engine",
        "both",
        "--format",
        "json",
    ];
    let v: serde_json::Value = serde_json::from_str(&ok(&sm5jit(&args))).expect("json");
    assert_eq!(v["identical"], true);
    let inv = v["invocations"].as_array().unwrap();
    assert_eq!(inv.len(), 16);
    let pattern = [(-2.0f32, -6.0f32), (6.0, -2.0), (-6.0, 2.0), (2.0, 6.0)];
    for x in inv {
        let s = x["sample"].as_u64().unwrap() as usize;
        let (px, py) = (
            x["x"].as_u64().unwrap() as f32,
            x["y"].as_u64().unwrap() as f32,
        );
        let o0 = bits_of(&x["outputs"][0]);
        assert_eq!(f32::from_bits(o0[0]), s as f32);
        assert_eq!(o0[1], 1 << s);
        assert_eq!(f32::from_bits(o0[2]), px + 0.5 + pattern[s].0 / 16.0);
        assert_eq!(f32::from_bits(o0[3]), py + 0.5 + pattern[s].1 / 16.0);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
