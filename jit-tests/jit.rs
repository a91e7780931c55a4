//! JIT integration tests: every program runs on the interpreter and on the
//! JIT over the same inputs, and every byte of every UAV (and every hidden
//! counter) must agree. Programs cover the ALU on edge values, divergent
//! control flow, out-of-bounds accesses, atomics and barriers in loops;
//! the corpus conformance cases run on the JIT where they compile.

use sm5jit::interp::Interpreter;
use sm5jit::ir::Program;
use sm5jit::jit::{JitError, JitShader};

#[allow(unused)]
fn _e(_: JitError) {}
use sm5jit::runtime::{
    Bindings, BufferKind, BufferView, DispatchOptions, RuntimeError, Slot, View,
};

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

/// One bound resource of a differential run.
#[derive(Clone)]
struct Res {
    class: char,
    slot: u32,
    view: View,
    data: Vec<u8>,
    counter: Option<u32>,
}

fn uav(slot: u32, view: View, words: &[u32]) -> Res {
    Res {
        class: 'u',
        slot,
        view,
        data: to_bytes(words),
        counter: None,
    }
}

fn srv(slot: u32, view: View, words: &[u32]) -> Res {
    Res {
        class: 't',
        slot,
        view,
        data: to_bytes(words),
        counter: None,
    }
}

fn cb(slot: u32, words: &[u32]) -> Res {
    Res {
        class: 'c',
        slot,
        view: raw(words.len() as u64),
        data: to_bytes(words),
        counter: None,
    }
}

/// Binds `res` and runs `f` over the bindings; returns the UAV contents
/// and counters afterwards.
fn with_bound(
    res: &mut [Res],
    f: impl FnOnce(&mut Bindings) -> Result<(), RuntimeError>,
) -> Result<Vec<(Vec<u8>, Option<u32>)>, RuntimeError> {
    let mut counters = Vec::new();
    let slots: Vec<(u32, char)> = res.iter().map(|r| (r.slot, r.class)).collect();
    {
        let mut b = Bindings::new();
        for r in res.iter_mut() {
            let slot = Slot::new(r.slot);
            match (r.class, r.counter) {
                ('u', Some(c)) => {
                    b.uav_with_counter(slot, &mut r.data, r.view, c);
                }
                ('u', None) => {
                    b.uav(slot, &mut r.data, r.view);
                }
                ('t', _) => {
                    b.srv(slot, &r.data, r.view);
                }
                _ => {
                    b.cb(slot, &r.data);
                }
            }
        }
        f(&mut b)?;
        for (slot, class) in slots {
            counters.push(b.counter(Slot::new(slot)).filter(|_| class == 'u'));
        }
    }
    Ok(res
        .iter()
        .zip(counters)
        .filter(|(r, _)| r.class == 'u')
        .map(|(r, c)| (r.data.clone(), c))
        .collect())
}

/// Runs `text` on the interpreter and on the JIT (one worker and two),
/// asserts identical UAV bytes and counters, and returns the UAV words.
fn diff(text: &str, groups: [u32; 3], res: &[Res]) -> Vec<Vec<u32>> {
    let program = parse(text);
    let interp = Interpreter::new(&program).expect("prepare");
    let jit = JitShader::compile(&program).unwrap_or_else(|e| panic!("compile: {e}\n{text}"));
    let o = DispatchOptions::default();
    let mut a = res.to_vec();
    let want = with_bound(&mut a, |b| interp.dispatch(b, groups, &o).map(|_| ()))
        .expect("interpreter run");
    for threads in [1, 2] {
        let mut j = res.to_vec();
        let got = with_bound(&mut j, |b| {
            jit.dispatch_threads(b, groups, &o, threads).map(|_| ())
        })
        .expect("jit run");
        for (k, (w, g)) in want.iter().zip(&got).enumerate() {
            let (ww, gw) = (to_words(&w.0), to_words(&g.0));
            if let Some(i) = (0..ww.len()).find(|&i| ww[i] != gw[i]) {
                panic!(
                    "UAV #{k} word {i}: interpreter {:#010x}, JIT {:#010x} ({threads} workers)\n{text}",
                    ww[i], gw[i]
                );
            }
            assert_eq!(w.1, g.1, "counter of UAV #{k}");
        }
    }
    want.iter().map(|w| to_words(&w.0)).collect()
}

#[test]
fn smoke_iadd_per_thread() {
    let text = "cs_5_0
dcl_globalFlags refactoringAllowed
dcl_uav_raw u0
dcl_input vThreadID.x
dcl_temps 1
dcl_thread_group 12, 1, 1
ishl r0.x, vThreadID.x, l(2)
iadd r0.y, vThreadID.x, l(100)
store_raw u0.x, r0.x, r0.y
ret
";
    let out = diff(text, [2, 1, 1], &[uav(0, raw(32), &[0; 32])]);
    assert_eq!(out[0][..24], (100..124).collect::<Vec<u32>>()[..]);
    assert_eq!(out[0][24..], [0; 8]);
}
