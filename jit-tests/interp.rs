//! Interpreter integration tests: the corpus conformance cases through the
//! case runner, and hand-written programs for every instruction family,
//! the out-of-bounds rules, barriers, calls, switches, the budget and the
//! binding errors.

use std::path::PathBuf;

use sm5jit::case::spec::ResourceKindSpec;
use sm5jit::case::{self, Engine, EngineError, Outcome, Resource, SlotClass};
use sm5jit::interp::Interpreter;
use sm5jit::ir::Program;
use sm5jit::runtime::{
    Bindings, BufferKind, BufferView, DispatchOptions, Format, RuntimeError, Slot, TextureView,
    View,
};

// ---------------------------------------------------------------------------
// The interpreter as a case-runner engine
// ---------------------------------------------------------------------------

struct InterpEngine;

fn engine_error(e: RuntimeError) -> EngineError {
    match e {
        RuntimeError::Unsupported { .. } => EngineError::Unsupported(e.to_string()),
        other => EngineError::Failed(other.to_string()),
    }
}

fn view_of(r: &Resource) -> Result<View, EngineError> {
    let format = || {
        r.format
            .as_deref()
            .and_then(Format::from_dxgi_name)
            .ok_or_else(|| EngineError::Unsupported(format!("format {:?}", r.format)))
    };
    let buffer = |kind| {
        View::Buffer(BufferView {
            kind,
            first_element: u64::from(r.first_element),
            num_elements: u64::from(r.num_elements),
        })
    };
    Ok(match r.kind {
        ResourceKindSpec::Raw => buffer(BufferKind::Raw),
        ResourceKindSpec::Structured => buffer(BufferKind::Structured { stride: r.stride }),
        ResourceKindSpec::Typed => buffer(BufferKind::Typed(format()?)),
        ResourceKindSpec::Texture2d => {
            View::Texture(TextureView::tex2d(format()?, r.width, r.height))
        }
        ResourceKindSpec::Constant => buffer(BufferKind::Raw),
    })
}

/// Binds the case resources, runs `f`, and copies the counters back.
fn with_bindings<T>(
    resources: &mut [Resource],
    f: impl FnOnce(&mut Bindings) -> Result<T, RuntimeError>,
) -> Result<T, EngineError> {
    let uav_slots: Vec<(usize, Slot)> = resources
        .iter()
        .enumerate()
        .filter(|(_, r)| r.slot.class == SlotClass::Uav)
        .map(|(i, r)| {
            (
                i,
                Slot {
                    space: r.slot.space,
                    index: r.slot.index,
                },
            )
        })
        .collect();
    let mut counters = Vec::new();
    let result = {
        let mut b = Bindings::new();
        for r in resources.iter_mut() {
            let slot = Slot {
                space: r.slot.space,
                index: r.slot.index,
            };
            let view = view_of(r)?;
            match (r.slot.class, r.kind) {
                (SlotClass::ConstantBuffer, _) | (_, ResourceKindSpec::Constant) => {
                    b.cb(slot, &r.data);
                }
                (SlotClass::Uav, _) => match r.counter {
                    Some(c) => {
                        b.uav_with_counter(slot, &mut r.data, view, c);
                    }
                    None => {
                        b.uav(slot, &mut r.data, view);
                    }
                },
                (SlotClass::Srv, _) => {
                    b.srv(slot, &r.data, view);
                }
                (SlotClass::Output, _) => {}
            }
        }
        let out = f(&mut b).map_err(engine_error)?;
        for (i, slot) in uav_slots {
            if let Some(c) = b.counter(slot) {
                counters.push((i, c));
            }
        }
        out
    };
    for (i, c) in counters {
        resources[i].counter = Some(c);
    }
    Ok(result)
}

impl Engine for InterpEngine {
    fn name(&self) -> &'static str {
        "interp"
    }

    fn prepare(&mut self, program: &Program) -> Result<(), EngineError> {
        Interpreter::new(program).map(|_| ()).map_err(engine_error)
    }

    fn dispatch(
        &mut self,
        program: &Program,
        resources: &mut [Resource],
        groups: [u32; 3],
    ) -> Result<(), EngineError> {
        let interp = Interpreter::new(program).map_err(engine_error)?;
        with_bindings(resources, |b| {
            interp.dispatch(b, groups, &DispatchOptions::default())
        })
        .map(|_| ())
    }

    fn invoke(
        &mut self,
        program: &Program,
        resources: &mut [Resource],
    ) -> Result<Vec<(u32, [u32; 4])>, EngineError> {
        let interp = Interpreter::new(program).map_err(engine_error)?;
        with_bindings(resources, |b| {
            interp.run_invocation(b, &[], &DispatchOptions::default())
        })
        .map(|inv| inv.outputs)
    }
}

fn case_dirs(suite: &str) -> Vec<PathBuf> {
    let root = crate::corpus_dir().join(suite);
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("case.json").is_file())
        .collect();
    dirs.sort();
    dirs
}

/// Decodes a case's shader without the validator (the interpreter is
/// judged on its own) and runs it through the case runner.
fn run_unvalidated(dir: &std::path::Path) -> Outcome {
    let case = match case::Case::load(dir) {
        Ok(c) => c,
        Err(e) => return Outcome::Fail(e.to_string()),
    };
    let bytes = std::fs::read(case.shader_path()).expect("shader.dxbc");
    let shader = match sm5jit::dxbc::read_dxbc(&bytes, &sm5jit::dxbc::ReadOptions::default()) {
        Ok(s) => s,
        Err(e) => return Outcome::Fail(format!("decode: {e}")),
    };
    case::run_program(&case.spec, &shader.program, &mut InterpEngine)
}

/// Runs a corpus suite; returns (pass, skip) and fails on any FAIL.
fn run_suite(suite: &str) -> (usize, usize) {
    let dirs = case_dirs(suite);
    assert!(!dirs.is_empty(), "no cases in {suite}");
    let (mut pass, mut skip, mut fails) = (0, 0, Vec::new());
    for dir in &dirs {
        let outcome = run_unvalidated(dir);
        let line = format!("{outcome:?} {}", dir.display());
        match outcome {
            Outcome::Pass => pass += 1,
            Outcome::Skip(_) => skip += 1,
            Outcome::Fail(_) => fails.push(line.clone()),
        }
        eprintln!("{line}");
    }
    assert!(
        fails.is_empty(),
        "{} of {} {suite} cases failed:\n{}",
        fails.len(),
        dirs.len(),
        fails.join("\n")
    );
    (pass, skip)
}

#[test]
fn corpus_conformance_cases_pass() {
    let (pass, skip) = run_suite("conformance");
    assert!(pass >= 45, "only {pass} passed ({skip} skipped)");
}

#[test]
fn corpus_pixel_cases_pass() {
    let (pass, skip) = run_suite("conformance_ps");
    assert!(pass >= 60, "only {pass} passed ({skip} skipped)");
}

// ---------------------------------------------------------------------------
// Hand-written programs
// ---------------------------------------------------------------------------

fn parse(text: &str) -> Program {
    sm5jit::asm::parse_program(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn to_words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn f(x: f32) -> u32 {
    x.to_bits()
}

const TRUE: u32 = 0xFFFF_FFFF;

fn raw(words: u64) -> View {
    View::Buffer(BufferView {
        kind: BufferKind::Raw,
        first_element: 0,
        num_elements: words,
    })
}

fn structured(stride: u32, first: u64, n: u64) -> View {
    View::Buffer(BufferView {
        kind: BufferKind::Structured { stride },
        first_element: first,
        num_elements: n,
    })
}

fn typed(format: Format, first: u64, n: u64) -> View {
    View::Buffer(BufferView {
        kind: BufferKind::Typed(format),
        first_element: first,
        num_elements: n,
    })
}

/// Runs `body` in a one-thread cs_5_0 program whose u0 is a raw buffer of
/// 64 zeroed words; returns the words.
fn run1(body: &str) -> Vec<u32> {
    let text =
        format!("cs_5_0\ndcl_uav_raw u0\ndcl_temps 8\ndcl_thread_group 1, 1, 1\n{body}\nret\n");
    let interp = Interpreter::new(&parse(&text)).unwrap();
    let mut mem = vec![0u8; 256];
    let mut b = Bindings::new();
    b.uav(Slot::new(0), &mut mem, raw(64));
    interp
        .dispatch(&mut b, [1, 1, 1], &DispatchOptions::default())
        .unwrap();
    drop(b);
    to_words(&mem)
}

/// Runs a full program over one raw u0 of `n` words with initial contents.
fn run_u0(text: &str, init: &[u32], n: usize, groups: [u32; 3]) -> Vec<u32> {
    let interp = Interpreter::new(&parse(text)).unwrap();
    let mut words = init.to_vec();
    words.resize(n, 0);
    let mut mem = to_bytes(&words);
    let mut b = Bindings::new();
    b.uav(Slot::new(0), &mut mem, raw(n as u64));
    interp
        .dispatch(&mut b, groups, &DispatchOptions::default())
        .unwrap();
    drop(b);
    to_words(&mem)
}

#[test]
fn float_arithmetic() {
    let out = run1(
        "mov r0.xyzw, l(1.500000, -2.000000, 0.250000, 3.000000)
         add r1.x, r0.x, r0.y
         mul r1.y, r0.x, r0.w
         div r1.z, r0.w, r0.z
         mad r1.w, r0.x, r0.y, r0.w
         store_raw u0.xyzw, l(0), r1.xyzw
         dp2 r2.x, r0.xyxx, r0.xyxx
         dp3 r2.y, r0.xyzx, l(1.000000, 1.000000, 1.000000, 0.000000)
         dp4 r2.z, r0.xyzw, l(1.000000, 1.000000, 1.000000, 1.000000)
         min r2.w, r0.x, l(0x7fc00000)
         store_raw u0.xyzw, l(16), r2.xyzw
         max r3.x, -r0.y, r0.x
         sqrt r3.y, l(16.000000)
         rsq r3.z, l(4.000000)
         rcp r3.w, l(-4.000000)
         store_raw u0.xyzw, l(32), r3.xyzw
         exp r4.x, l(3.000000)
         log r4.y, l(8.000000)
         frc r4.z, l(-1.250000)
         round_ne r4.w, l(2.500000)
         store_raw u0.xyzw, l(48), r4.xyzw
         round_ni r5.x, l(-1.500000)
         round_pi r5.y, l(-1.500000)
         round_z r5.z, l(-1.500000)
         sincos r5.w, null, l(0.000000)
         store_raw u0.xyzw, l(64), r5.xyzw
         sincos null, r6.x, l(0.000000)
         store_raw u0.x, l(80), r6.x",
    );
    assert_eq!(&out[0..4], &[f(-0.5), f(4.5), f(12.0), f(0.0)]);
    assert_eq!(&out[4..8], &[f(6.25), f(-0.25), f(2.75), f(1.5)]);
    assert_eq!(&out[8..12], &[f(2.0), f(4.0), f(0.5), f(-0.25)]);
    assert_eq!(&out[12..16], &[f(8.0), f(3.0), f(0.75), f(2.0)]);
    assert_eq!(&out[16..20], &[f(-2.0), f(-1.0), f(-1.0), f(0.0)]);
    assert_eq!(out[20], f(1.0));
}

#[test]
fn float_modifiers_saturate_and_denormals() {
    let out = run1(
        "mov r0.xyzw, l(1.500000, -2.000000, 0.250000, 3.000000)
         mov r1.x, -|r0.y|
         add r1.y, |r0.y|, -r0.x
         mov_sat r1.z, l(2.000000)
         mov_sat r1.w, l(0x7fc00000)
         store_raw u0.xyzw, l(0), r1.xyzw
         add_sat r2.x, l(-3.000000), l(1.000000)
         mul_sat r2.y, l(0.500000), l(1.000000)
         add r2.z, l(0x00000001), l(0.000000)
         mov r2.w, l(0x00000001)
         store_raw u0.xyzw, l(16), r2.xyzw
         mov r3.x, -l(0x00000001)
         store_raw u0.x, l(32), r3.x",
    );
    assert_eq!(&out[0..4], &[f(-2.0), f(0.5), f(1.0), 0]);
    // A denormal is flushed by arithmetic but kept by mov.
    assert_eq!(&out[4..8], &[0, f(0.5), 0, 1]);
    assert_eq!(out[8], 0x8000_0001);
}

#[test]
fn float_comparisons() {
    let out = run1(
        "lt r0.x, l(0x7fc00000), l(1.000000)
         ne r0.y, l(0x7fc00000), l(0x7fc00000)
         eq r0.z, l(0.000000), l(-0.000000)
         ge r0.w, l(1.000000), l(1.000000)
         store_raw u0.xyzw, l(0), r0.xyzw",
    );
    assert_eq!(&out[0..4], &[0, TRUE, TRUE, TRUE]);
}

#[test]
fn integer_arithmetic() {
    let out = run1(
        "iadd r0.x, l(-1), l(2)
         imul r0.y, r0.z, l(-2), l(3)
         umul r1.x, r1.y, l(0xffffffff), l(2)
         ineg r0.w, l(5)
         store_raw u0.xyzw, l(0), r0.xyzw
         store_raw u0.xy, l(16), r1.xyxx
         udiv r2.x, r2.y, l(7), l(2)
         udiv r2.z, r2.w, l(7), l(0)
         store_raw u0.xyzw, l(32), r2.xyzw
         uaddc r3.x, r3.y, l(0xffffffff), l(2)
         usubb r3.z, r3.w, l(1), l(2)
         store_raw u0.xyzw, l(48), r3.xyzw
         ishl r4.x, l(1), l(33)
         ishr r4.y, l(0x80000000), l(4)
         ushr r4.z, l(0x80000000), l(4)
         imad r4.w, l(-2), l(3), l(10)
         store_raw u0.xyzw, l(64), r4.xyzw
         imax r5.x, l(-1), l(1)
         umax r5.y, l(-1), l(1)
         imin r5.z, l(-1), l(1)
         umin r5.w, l(-1), l(1)
         store_raw u0.xyzw, l(80), r5.xyzw
         and r6.x, l(0xff00ff00), l(0x0ff00ff0)
         or r6.y, l(0xff00ff00), l(0x0ff00ff0)
         xor r6.z, l(0xff00ff00), l(0x0ff00ff0)
         not r6.w, l(0xff00ff00)
         store_raw u0.xyzw, l(96), r6.xyzw
         msad r7.x, l(0x01020300), l(0x03020100), l(10)
         umad r7.y, l(0x10000), l(0x10000), l(5)
         mov r7.z, l(5)
         iadd r7.w, -r7.z, l(2)
         store_raw u0.xyzw, l(112), r7.xyzw",
    );
    assert_eq!(&out[0..4], &[1, 0xFFFF_FFFF, 0xFFFF_FFFA, (-5i32) as u32]);
    assert_eq!(&out[4..6], &[1, 0xFFFF_FFFE]);
    assert_eq!(&out[8..12], &[3, 1, u32::MAX, u32::MAX]);
    assert_eq!(&out[12..16], &[1, 1, u32::MAX, 1]);
    assert_eq!(&out[16..20], &[2, 0xF800_0000, 0x0800_0000, 4]);
    assert_eq!(&out[20..24], &[1, u32::MAX, u32::MAX, 1]);
    assert_eq!(
        &out[24..28],
        &[0x0f000f00, 0xfff0fff0, 0xf0f0f0f0, 0x00ff00ff]
    );
    assert_eq!(&out[28..32], &[14, 5, 5, (-3i32) as u32]);
}

#[test]
fn integer_comparisons() {
    let out = run1(
        "ieq r0.x, l(1), l(1)
         ine r0.y, l(1), l(1)
         ilt r0.z, l(-1), l(0)
         ige r0.w, l(-1), l(0)
         store_raw u0.xyzw, l(0), r0.xyzw
         ult r1.x, l(-1), l(0)
         uge r1.y, l(-1), l(0)
         store_raw u0.xy, l(16), r1.xyxx",
    );
    assert_eq!(&out[0..6], &[TRUE, 0, TRUE, 0, 0, TRUE]);
}

#[test]
fn bit_operations() {
    let out = run1(
        "countbits r0.x, l(0xf0f0)
         firstbit_hi r0.y, l(0x10000000)
         firstbit_lo r0.z, l(8)
         firstbit_shi r0.w, l(0xfffffff0)
         store_raw u0.xyzw, l(0), r0.xyzw
         firstbit_hi r1.x, l(0)
         firstbit_lo r1.y, l(0)
         firstbit_shi r1.z, l(-1)
         bfrev r1.w, l(0x12345678)
         store_raw u0.xyzw, l(16), r1.xyzw
         ubfe r2.x, l(4), l(4), l(0xabcd)
         ibfe r2.y, l(4), l(4), l(0xabcd)
         bfi r2.z, l(8), l(8), l(0xff), l(0x12345678)
         ubfe r2.w, l(0), l(4), l(0xabcd)
         store_raw u0.xyzw, l(32), r2.xyzw",
    );
    assert_eq!(&out[0..4], &[8, 3, 3, 28]);
    assert_eq!(&out[4..8], &[u32::MAX, u32::MAX, u32::MAX, 0x1e6a2c48]);
    assert_eq!(&out[8..12], &[0xC, 0xFFFF_FFFC, 0x1234_FF78, 0]);
}

#[test]
fn conversions() {
    let out = run1(
        "ftoi r0.x, l(-2.700000)
         ftoi r0.y, l(0x7fc00000)
         ftoi r0.z, l(3000000000.000000)
         ftou r0.w, l(-0.700000)
         store_raw u0.xyzw, l(0), r0.xyzw
         ftou r1.x, l(5000000000.000000)
         itof r1.y, l(-3)
         utof r1.z, l(0xffffffff)
         f32tof16 r1.w, l(1.000000)
         store_raw u0.xyzw, l(16), r1.xyzw
         f16tof32 r2.x, l(0xffff3c00)
         f32tof16 r2.y, l(1000000.000000)
         ftoi r2.z, -l(2.500000)
         store_raw u0.xyz, l(32), r2.xyzx",
    );
    assert_eq!(&out[0..4], &[(-2i32) as u32, 0, 0x7FFF_FFFF, 0]);
    assert_eq!(&out[4..8], &[u32::MAX, f(-3.0), f(4294967296.0), 0x3C00]);
    assert_eq!(&out[8..11], &[f(1.0), 0x7BFF, (-2i32) as u32]);
}

#[test]
fn moves_and_selects_read_all_sources_first() {
    let out = run1(
        "mov r0.xyzw, l(1, 2, 3, 4)
         mov r0.xy, r0.yxzw
         store_raw u0.xyzw, l(0), r0.xyzw
         movc r1.xyzw, l(0x80000000, 0, 1, 0), l(10, 10, 10, 10), l(20, 20, 20, 20)
         store_raw u0.xyzw, l(16), r1.xyzw
         mov r4.xyzw, l(0xffffffff, 0, 0, 1)
         mov r2.xyzw, l(1, 1, 1, 1)
         mov r3.xyzw, l(2, 2, 2, 2)
         swapc r2.xyzw, r3.xyzw, r4.xyzw, r2.xyzw, r3.xyzw
         store_raw u0.xyzw, l(32), r2.xyzw
         store_raw u0.xyzw, l(48), r3.xyzw",
    );
    assert_eq!(&out[0..4], &[2, 1, 3, 4]);
    assert_eq!(&out[4..8], &[10, 20, 10, 20]);
    assert_eq!(&out[8..12], &[2, 1, 1, 2]);
    assert_eq!(&out[12..16], &[1, 2, 2, 1]);
}

fn dwords(x: f64) -> [u32; 2] {
    let b = x.to_bits();
    [b as u32, (b >> 32) as u32]
}

#[test]
fn doubles() {
    let out = run1(
        "dmov r0.xyzw, d(1.500000, -2.000000)
         dadd r1.xy, r0.xyxy, r0.zwzw
         dmul r1.zw, r0.xyxy, r0.zwzw
         store_raw u0.xyzw, l(0), r1.xyzw
         deq r2.x, r0.xyxy, r0.xyxy
         dlt r2.yz, r0.zwxy, r0.xyzw
         dtof r2.w, r0.zwzw
         store_raw u0.xyzw, l(16), r2.xyzw
         ftod r3.zw, l(0.500000, 0, 0, 0)
         dtoi r3.x, r0.zwzw
         dtou r3.y, r0.xyxy
         store_raw u0.xyzw, l(32), r3.xyzw
         itod r4.xy, l(-3, 0, 0, 0)
         dmov r4.zw, -r0.xyxy
         store_raw u0.xyzw, l(48), r4.xyzw
         dmovc r5.xyzw, l(0, 1, 0, 0), r0.xyzw, r0.zwxy
         store_raw u0.xyzw, l(64), r5.xyzw
         dmax r6.xy, r0.xyxy, r0.zwzw
         dmin r6.zw, r0.xyxy, r0.zwzw
         store_raw u0.xyzw, l(80), r6.xyzw",
    );
    let d = |a: f64, b: f64| [dwords(a)[0], dwords(a)[1], dwords(b)[0], dwords(b)[1]];
    assert_eq!(&out[0..4], &d(-0.5, -3.0));
    assert_eq!(&out[4..8], &[TRUE, TRUE, 0, f(-2.0)]);
    assert_eq!(
        &out[8..12],
        &[(-2i32) as u32, 1, dwords(0.5)[0], dwords(0.5)[1]]
    );
    assert_eq!(&out[12..16], &d(-3.0, -1.5));
    // Condition .x = 0 picks src2's first double, .y = 1 picks src1's second.
    assert_eq!(&out[16..20], &d(-2.0, -2.0));
    assert_eq!(&out[20..24], &d(1.5, -2.0));
}
