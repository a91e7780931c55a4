//! Forms that compilers other than fxc write, and the semantic fixes the
//! vkd3d conformance tests asked for, on both engines.
//!
//! - vkd3d-shader's tpf writer (what Wine's d3dcompiler produces): scalar
//!   conditions and selectors as a replicated swizzle (`if_nz r1.xxxx`) and
//!   the buffer dimension in bits 11–15 of raw and structured
//!   declarations. Every blob of `../shared/shader-tests/` (compiled by
//!   vkd3d-compiler 1.17) decodes, validates and round-trips exactly; a
//!   hand-written program with each form runs on both engines to values
//!   worked out here, and round-trips through the exact printer and the
//!   assembler to the same tokens.
//! - `msad` whose accumulator overflows wraps modulo 2^32.

use crate::util::{parse, raw, structured, to_bytes, to_words};
use sm5jit::asm::{parse_program, print_program, PrintOptions};
use sm5jit::dxbc::{encode_program, read_dxbc, ReadOptions};
use sm5jit::interp::Interpreter;
use sm5jit::ir::{Components, Decl, Opcode, Program, Selection};
use sm5jit::jit::JitShader;
use sm5jit::runtime::{Bindings, DispatchOptions, Slot, View};
use sm5jit::validate::validate;
use std::path::Path;

fn exact() -> PrintOptions {
    PrintOptions {
        exact: true,
        ..Default::default()
    }
}

/// The DXBC blobs of every `[... shader dxbc-tpf-hex]` section of the
/// converted vkd3d tests, with their file names.
fn vkd3d_blobs() -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/shader-tests");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "shader_test"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        let mut words: Option<Vec<u32>> = None;
        let mut flush = |words: &mut Option<Vec<u32>>| {
            if let Some(w) = words.take().filter(|w| !w.is_empty()) {
                out.push((name.clone(), to_bytes(&w)));
            }
        };
        for line in text.lines() {
            if line.starts_with('[') {
                flush(&mut words);
                words = line.contains("dxbc-tpf-hex").then(Vec::new);
            } else if let Some(w) = words.as_mut() {
                let body = line.split('%').next().unwrap_or("");
                w.extend(body.split_whitespace().map(|h| {
                    u32::from_str_radix(h, 16).unwrap_or_else(|e| panic!("{name}: {h}: {e}"))
                }));
            }
        }
        flush(&mut words);
    }
    out
}

fn shader_tokens(bytes: &[u8]) -> Vec<u32> {
    let shader = read_dxbc(bytes, &ReadOptions::default()).unwrap();
    let chunk = shader
        .container
        .chunks
        .iter()
        .find(|c| &c.tag == b"SHEX" || &c.tag == b"SHDR")
        .unwrap();
    let words = to_words(&chunk.data);
    words[..words[1] as usize].to_vec()
}

/// Both vkd3d forms occur in the converted suite, and every blob decodes,
/// validates and round-trips: decode → exact text → parse is the identity,
/// and re-encoding gives the original tokens.
#[test]
fn every_vkd3d_blob_validates_and_round_trips_exactly() {
    let blobs = vkd3d_blobs();
    assert!(blobs.len() >= 400, "only {} blobs found", blobs.len());
    let (mut replicated, mut dim_bits) = (0, 0);
    for (name, bytes) in &blobs {
        let shader =
            read_dxbc(bytes, &ReadOptions::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let p = shader.program;
        validate(&p).unwrap_or_else(|e| panic!("{name}: {e}"));
        let text = print_program(&p, &exact());
        let back = parse_program(&text).unwrap_or_else(|e| panic!("{name}: {e}\n{text}"));
        assert!(
            back == p,
            "{name}: exact print/parse changed the program\n{text}"
        );
        assert_eq!(
            encode_program(&back).unwrap(),
            shader_tokens(bytes),
            "{name}: tokens"
        );
        replicated += p
            .insts
            .iter()
            .filter(|i| {
                use Opcode::*;
                matches!(
                    i.opcode,
                    If | Breakc | Continuec | Retc | Callc | Discard | Switch
                )
            })
            .filter(|i| {
                matches!(
                    i.operands.first().map(|o| o.comps),
                    Some(Components::Four(Selection::Swizzle(_)))
                )
            })
            .count();
        dim_bits += p
            .decls
            .iter()
            .filter(|d| {
                matches!(
                    d,
                    Decl::UavRaw {
                        buffer_dim: true,
                        ..
                    } | Decl::ResourceRaw {
                        buffer_dim: true,
                        ..
                    }
                )
            })
            .count();
    }
    assert!(replicated > 0 && dim_bits > 0, "{replicated} {dim_bits}");
}

/// One compute program with every vkd3d form: replicated-swizzle conditions
/// of `if_nz`/`if_z`, `switch`, `breakc_nz`, `continuec_z`, `callc_nz`,
/// `retc_nz`, and the four raw/structured declarations with the buffer
/// dimension bits.
const VKD3D_FORMS: &str = "cs_5_0
dcl_globalFlags refactoringAllowed
dcl_resource_raw_buffer t0
dcl_resource_structured_buffer t1, 4
dcl_uav_raw_buffer u0
dcl_uav_structured_buffer u1, 4
dcl_input vThreadID.x
dcl_temps 3
dcl_thread_group 8, 1, 1
mov r0.x, vThreadID.x
ld_raw r0.y, l(0), t0.xxxx
ld_structured r0.z, vThreadID.x, l(0), t1.xxxx
and r1.x, r0.x, l(1)
mov r2.xyzw, l(0, 0, 0, 0)
if_nz r1.xxxx
  iadd r2.x, r0.y, r0.z
endif
if_z r1.xxxx
  mov r2.x, r0.z
endif
switch r0.xxxx
  case l(0)
  mov r2.y, l(10)
  break
  case l(1)
  mov r2.y, l(11)
  break
  default
  mov r2.y, l(12)
  break
endswitch
mov r1.w, l(0)
loop
  uge r1.z, r1.w, r0.x
  breakc_nz r1.zzzz
  iadd r1.w, r1.w, l(1)
  and r1.y, r1.w, l(1)
  continuec_z r1.yyyy
  iadd r2.z, r2.z, r1.w
endloop
callc_nz r1.xxxx, l1
ishl r1.y, r0.x, l(4)
store_raw u0.xyzw, r1.y, r2.xyzw
ieq r1.y, r0.x, l(7)
retc_nz r1.yyyy
store_structured u1.x, r0.x, l(0), l(1)
ret
label l1
iadd r2.w, r2.w, l(1000)
ret
";

/// Runs a one-group compute program on the interpreter and on the JIT
/// (one and two workers) with `srvs` and zeroed UAVs of `uav_words` words;
/// asserts the engines agree and returns the UAV words.
fn on_both(text: &str, srvs: &[(View, Vec<u32>)], uavs: &[(View, usize)]) -> Vec<Vec<u32>> {
    let program = parse(text);
    validate(&program).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let interp = Interpreter::new(&program).expect("prepare");
    let jit = JitShader::compile(&program).unwrap_or_else(|e| panic!("compile: {e}"));
    let o = DispatchOptions::default();
    let srv_bytes: Vec<Vec<u8>> = srvs.iter().map(|(_, w)| to_bytes(w)).collect();
    let run = |engine: usize| -> Vec<Vec<u32>> {
        let mut mem: Vec<Vec<u8>> = uavs.iter().map(|(_, n)| vec![0; 4 * n]).collect();
        {
            let mut b = Bindings::new();
            for (k, (view, _)) in srvs.iter().enumerate() {
                b.srv(Slot::new(k as u32), &srv_bytes[k], *view);
            }
            for (k, m) in mem.iter_mut().enumerate() {
                b.uav(Slot::new(k as u32), m, uavs[k].0);
            }
            match engine {
                0 => interp.dispatch(&mut b, [1, 1, 1], &o),
                n => jit.dispatch_threads(&mut b, [1, 1, 1], &o, n),
            }
            .unwrap_or_else(|e| panic!("engine {engine}: {e}"));
        }
        mem.iter().map(|m| to_words(m)).collect()
    };
    let want = run(0);
    for workers in [1, 2] {
        assert_eq!(run(workers), want, "JIT ({workers} workers) vs interpreter");
    }
    want
}

#[test]
fn vkd3d_forms_run_on_both_engines() {
    let srvs = [
        (raw(1), vec![100]),
        (structured(4, 0, 8), (0..8).map(|t| 3 * t).collect()),
    ];
    let out = on_both(
        VKD3D_FORMS,
        &srvs,
        &[(raw(32), 32), (structured(4, 0, 8), 8)],
    );
    for t in 0..8u32 {
        let odd = t & 1 == 1;
        let x = if odd { 100 + 3 * t } else { 3 * t };
        let y = [10, 11].get(t as usize).copied().unwrap_or(12);
        // The loop adds the odd i in 1..=t.
        let z: u32 = (1..=t).filter(|i| i & 1 == 1).sum();
        let w = if odd { 1000 } else { 0 };
        let at = 4 * t as usize;
        assert_eq!(out[0][at..at + 4], [x, y, z, w], "thread {t}");
        assert_eq!(out[1][t as usize], u32::from(t != 7), "thread {t}: retc");
    }
}

/// Every vkd3d form survives text → tokens → exact text → tokens, and the
/// tokens carry the forms (swizzle mode 1 with four equal selectors; the
/// dimension field 1 on the declarations).
#[test]
fn vkd3d_forms_round_trip_through_exact_text() {
    let p = parse(VKD3D_FORMS);
    let tokens = encode_program(&p).unwrap();
    let text = print_program(&p, &exact());
    for form in [
        "dcl_resource_raw_buffer t0",
        "dcl_resource_structured_buffer t1, 4",
        "dcl_uav_raw_buffer u0",
        "dcl_uav_structured_buffer u1, 4",
        "if_nz r1.xxxx",
        "if_z r1.xxxx",
        "switch r0.xxxx",
        "breakc_nz r1.zzzz",
        "continuec_z r1.yyyy",
        "callc_nz r1.xxxx, l1",
        "retc_nz r1.yyyy",
    ] {
        assert!(text.contains(form), "{form} missing from\n{text}");
    }
    let back = parse(&text);
    assert!(back == p, "exact text changed the program\n{text}");
    assert_eq!(encode_program(&back).unwrap(), tokens);
    // The declarations' dimension field (token bits 11..15) is 1, buffer.
    let decl_ops = [0xA1, 0xA2, 0x9D, 0x9E];
    let dims: Vec<u32> = tokens[2..]
        .iter()
        .filter(|t| decl_ops.contains(&(*t & 0x7FF)))
        .map(|t| (t >> 11) & 0x1F)
        .collect();
    assert_eq!(dims, vec![1; 4]);
    // `if_nz r1.xxxx`: the operand token's selection mode is 1 (swizzle).
    let if_at = tokens
        .iter()
        .position(|t| t & 0x7FF == 0x1F)
        .expect("an if token");
    assert_eq!((tokens[if_at + 1] >> 2) & 3, 1);
    assert_eq!((tokens[if_at + 1] >> 4) & 0xFF, 0);
}

/// A dimension other than buffer on a raw declaration is refused with the
/// reason, and a mixed swizzle as a condition still is.
#[test]
fn ambiguous_forms_are_still_refused() {
    let p = parse("cs_5_0\ndcl_uav_raw u0\ndcl_thread_group 1, 1, 1\nret\n");
    let mut tokens = encode_program(&p).unwrap();
    let at = tokens.iter().position(|t| t & 0x7FF == 0x9D).unwrap();
    tokens[at] |= 3 << 11; // texture2d
    let e = sm5jit::dxbc::decode_program(&tokens).unwrap_err();
    assert!(e.to_string().contains("resource dimension 3"), "{e}");
    let p = parse(
        "cs_5_0\ndcl_temps 1\ndcl_thread_group 1, 1, 1\nmov r0.x, l(1)\nif_nz r0.xxxy\nendif\nret\n",
    );
    let e = validate(&p).unwrap_err();
    assert!(e.to_string().contains("single component"), "{e}");
}

/// `msad` whose accumulator overflows wraps modulo 2^32 (as hardware does;
/// vkd3d-proton checks it), on both engines.
#[test]
fn msad_accumulator_wraps() {
    let out = on_both(
        "cs_5_0
dcl_globalFlags refactoringAllowed | enable11_1ShaderExtensions
dcl_uav_raw u0
dcl_temps 1
dcl_thread_group 1, 1, 1
msad r0.x, l(0xffffffff), l(0), l(0xfffffff5)
msad r0.y, l(0x01020304), l(0x04030201), l(0xfffffffa)
msad r0.z, l(0x00ff0000), l(0), l(0xffffff01)
msad r0.w, l(0x10203040), l(0x10203040), l(0xffffffff)
store_raw u0.xyzw, l(0), r0.xyzw
ret
",
        &[],
        &[(raw(4), 4)],
    );
    // 4 × 255 added to 2^32 − 11; 3+1+1+3 to 2^32 − 6; 255 (one non-zero
    // reference byte) to 2^32 − 255; nothing to 2^32 − 1.
    let wrap = |acc: u64, add: u64| ((acc + add) % (1 << 32)) as u32;
    assert_eq!(
        out[0],
        vec![
            wrap(0xffff_fff5, 1020),
            wrap(0xffff_fffa, 8),
            wrap(0xffff_ff01, 255),
            0xffff_ffff
        ]
    );
    assert_eq!(out[0][..3], [1009, 2, 0]);
}

/// The program of [`VKD3D_FORMS`] as the declarations print it, fxc-style
/// listing included (the non-exact printer also shows the forms).
#[test]
fn the_plain_listing_shows_the_forms_too() {
    let p: Program = parse(VKD3D_FORMS);
    let text = print_program(&p, &PrintOptions::default());
    assert!(text.contains("dcl_uav_raw_buffer u0"), "{text}");
    assert!(text.contains("if_nz r1.xxxx"), "{text}");
}
