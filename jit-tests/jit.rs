//! JIT integration tests: every program runs on the interpreter and on the
//! JIT over the same inputs, and every byte of every UAV (and every hidden
//! counter) must agree. Programs cover the ALU on edge values, divergent
//! control flow, out-of-bounds accesses, atomics and barriers in loops
//! (the corpus conformance cases on the JIT are a tools test:
//! `tools/tests/engines.rs`).

use crate::util::{parse, raw, structured, to_bytes, to_words, typed};
use sm5jit::interp::Interpreter;
use sm5jit::jit::{CompileOptions, JitError, JitShader, Tier};

use sm5jit::runtime::{
    Bindings, BufferKind, BufferView, DispatchOptions, Format, RuntimeError, Slot, View,
};

/// One bound resource of a differential run.
#[derive(Clone)]
pub(crate) struct Res {
    class: char,
    slot: u32,
    view: View,
    data: Vec<u8>,
    counter: Option<u32>,
}

pub(crate) fn uav(slot: u32, view: View, words: &[u32]) -> Res {
    Res {
        class: 'u',
        slot,
        view,
        data: to_bytes(words),
        counter: None,
    }
}

pub(crate) fn srv(slot: u32, view: View, words: &[u32]) -> Res {
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

/// The UAVs after a run: bytes and hidden counter.
type UavState = Vec<(Vec<u8>, Option<u32>)>;

/// Binds `res` and runs `f` over the bindings; returns the UAV contents
/// and counters afterwards.
fn with_bound(
    res: &mut [Res],
    f: impl FnOnce(&mut Bindings) -> Result<(), RuntimeError>,
) -> Result<UavState, RuntimeError> {
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

/// Runs `text` on the interpreter and on both JIT tiers (one worker and
/// two, each shader dispatched twice on fresh copies of the resources, so
/// that the second dispatch runs on the first's spare workers), asserts
/// identical UAV bytes and counters, and returns the UAV words.
pub(crate) fn diff(text: &str, groups: [u32; 3], res: &[Res]) -> Vec<Vec<u32>> {
    let program = parse(text);
    let interp = Interpreter::new(&program).expect("prepare");
    let o = DispatchOptions::default();
    let mut a = res.to_vec();
    let want = with_bound(&mut a, |b| interp.dispatch(b, groups, &o).map(|_| ()))
        .expect("interpreter run");
    for (tier, threads) in [(Tier::Zero, 1), (Tier::One, 1), (Tier::One, 2)] {
        let options = CompileOptions {
            cache: false,
            ..CompileOptions::tier(tier)
        };
        let jit = JitShader::compile_with(&program, &options)
            .unwrap_or_else(|e| panic!("compile: {e}\n{text}"));
        for run in 1..=2 {
            let mut j = res.to_vec();
            let got = with_bound(&mut j, |b| {
                jit.dispatch_threads(b, groups, &o, threads).map(|_| ())
            })
            .expect("jit run");
            for (k, (w, g)) in want.iter().zip(&got).enumerate() {
                let (ww, gw) = (to_words(&w.0), to_words(&g.0));
                if let Some(i) = (0..ww.len()).find(|&i| ww[i] != gw[i]) {
                    panic!(
                        "UAV #{k} word {i}: interpreter {:#010x}, JIT {:#010x} ({tier:?}, {threads} workers, dispatch {run})\n{text}",
                        ww[i], gw[i]
                    );
                }
                assert_eq!(w.1, g.1, "counter of UAV #{k}");
            }
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

/// Edge values: NaNs, signed zeros, denormals, infinities, INT_MIN/MAX,
/// shift amounts around 32, f16 limits, ordinary numbers.
pub(crate) const EDGE: [u32; 40] = [
    0x7FC0_0000, // NaN
    0xFFC0_0001, // negative NaN with payload
    0x0000_0000, // +0
    0x8000_0000, // -0 / INT_MIN
    0x0000_0001, // smallest denormal
    0x807F_FFFF, // largest negative denormal
    0x7F80_0000, // +inf
    0xFF80_0000, // -inf
    0x3F80_0000, // 1.0
    0xBFC0_0000, // -1.5
    0x4F00_0000, // 2^31
    0xCF00_0000, // -2^31
    0x4F80_0000, // 2^32
    0x7FFF_FFFF, // INT_MAX / NaN
    0xFFFF_FFFF, // -1 / NaN
    0x0000_0020, // 32
    0x0000_0021, // 33
    0x0000_001F, // 31
    0x0000_0010, // 16
    0x0000_0004, // 4
    0x0080_0000, // smallest normal
    0x477F_E000, // 65504.0
    0x4780_0000, // 65536.0
    0x3EFF_FFFF, // just below 0.5
    0x4020_0000, // 2.5
    0xC020_0000, // -2.5
    0x4B80_0000, // 2^24
    0x3380_0000, // 2^-24
    0x0000_FFFF, // f16 NaN bits
    0x0000_7C00, // f16 +inf bits
    0x0000_03FF, // f16 denormal bits
    0x1234_5678,
    0x8765_4321,
    0x0000_0007,
    0xFFFF_FFF9, // -7
    0x4049_0FDB, // pi
    0xC2C8_0000, // -100.0
    0x4300_0000, // 128.0
    0xC2FE_0000, // -127.0
    0x0101_0101, // msad bytes
];

fn edge_input(threads: usize) -> Vec<u32> {
    (0..threads * 4)
        .map(|i| EDGE[(i * 7 + i / EDGE.len()) % EDGE.len()])
        .collect()
}

/// Runs `body` (reading r1 = four edge values per thread from t0, writing
/// r2 and r3) on 64 threads in two groups, comparing both engines.
fn alu_case(body: &str) {
    let text = format!(
        "cs_5_0
dcl_globalFlags refactoringAllowed | enableDoublePrecisionFloatOps | enable11_1DoubleExtensions | enable11_1ShaderExtensions
dcl_resource_raw t0
dcl_uav_raw u0
dcl_input vThreadID.x
dcl_temps 4
dcl_thread_group 32, 1, 1
ishl r0.x, vThreadID.x, l(4)
ld_raw r1.xyzw, r0.x, t0.xyzw
mov r2.xyzw, l(0x11111111, 0x22222222, 0x33333333, 0x44444444)
mov r3.xyzw, l(0x55555555, 0x66666666, 0x77777777, 0x88888888)
{body}
ishl r0.x, vThreadID.x, l(5)
store_raw u0.xyzw, r0.x, r2.xyzw
iadd r0.x, r0.x, l(16)
store_raw u0.xyzw, r0.x, r3.xyzw
ret
"
    );
    let input = edge_input(64);
    diff(
        &text,
        [2, 1, 1],
        &[
            srv(0, raw(input.len() as u64), &input),
            uav(0, raw(64 * 8), &[0; 64 * 8]),
        ],
    );
}

#[test]
fn float_ops_on_edge_values() {
    for body in [
        "add r2.xyzw, r1.xyzw, r1.yzwx",
        "add_sat r2.xyzw, r1.xyzw, r1.yzwx",
        "mul r2.xyzw, r1.xyzw, r1.wxyz",
        "div r2.xyzw, r1.xyzw, r1.zwxy",
        "mad r2.xyzw, r1.xyzw, r1.yzwx, r1.zwxy",
        "mad_sat r2.xyzw, -r1.xyzw, |r1.yzwx|, -|r1.zwxy|",
        "min r2.xyzw, r1.xyzw, r1.yzwx",
        "max r2.xyzw, r1.xyzw, r1.yzwx",
        "min r2.xyzw, r1.xxxx, r1.xyzw\nmax r3.xyzw, r1.wwww, r1.xyzw",
        "dp2 r2.xyzw, r1.xyzw, r1.yzwx",
        "dp3 r2.xy, r1.xyzw, r1.wzyx",
        "dp4_sat r2.zw, r1.xyzw, r1.yzwx",
        "sqrt r2.xyzw, r1.xyzw",
        "rsq r2.xyzw, r1.xyzw",
        "rcp r2.xyzw, r1.xyzw",
        "exp r2.xyzw, r1.xyzw",
        "log r2.xyzw, r1.xyzw",
        "frc r2.xyzw, r1.xyzw",
        "round_ne r2.xyzw, r1.xyzw\nround_ni r3.xyzw, r1.xyzw",
        "round_pi r2.xyzw, r1.xyzw\nround_z r3.xyzw, r1.xyzw",
        "sincos r2.xyzw, r3.xyzw, r1.xyzw",
        "sincos null, r3.xz, r1.xyzw",
        "eq r2.xyzw, r1.xyzw, r1.yzwx\nne r3.xyzw, r1.xyzw, r1.yzwx",
        "lt r2.xyzw, r1.xyzw, r1.yzwx\nge r3.xyzw, r1.xyzw, r1.yzwx",
        "mov r2.xyzw, -r1.xyzw\nmov r3.xyzw, -|r1.yzwx|",
        "mov_sat r2.xyzw, r1.xyzw\nmov r3.xyzw, |r1.wzyx|",
        "movc r2.xyzw, r1.xyzw, r1.yzwx, r1.zwxy",
        "movc_sat r2.xyzw, r1.xyzw, r1.yzwx, r1.zwxy",
        "swapc r2.xyzw, r3.xyzw, r1.xyzw, r1.yzwx, r1.zwxy",
        "ftoi r2.xyzw, r1.xyzw\nftou r3.xyzw, r1.xyzw",
        "itof r2.xyzw, r1.xyzw\nutof r3.xyzw, r1.xyzw",
        "f32tof16 r2.xyzw, r1.xyzw\nf16tof32 r3.xyzw, r1.xyzw",
        "ftoi r2.xyzw, -r1.xyzw\nutof r3.xyzw, -r1.xyzw",
    ] {
        alu_case(body);
    }
}

#[test]
fn double_ops_on_edge_values() {
    for body in [
        "dadd r2.xyzw, r1.xyzw, r1.zwxy",
        "dadd_sat r2.xyzw, -r1.xyzw, |r1.zwxy|",
        "dmul r2.xy, r1.xyxy, r1.zwzw\ndmax r3.zw, r1.xyxy, r1.zwzw",
        "ddiv r2.xyzw, r1.xyzw, r1.zwxy\ndmin r3.xyzw, r1.zwxy, r1.xyzw",
        "dfma r2.xyzw, r1.xyzw, r1.zwxy, r1.xyzw\ndrcp r3.xyzw, r1.zwxy",
        "deq r2.xy, r1.xyzw, r1.zwxy\ndlt r3.zw, r1.xyzw, r1.zwxy",
        "dne r2.xz, r1.xyzw, r1.zwxy\ndge r3.x, r1.xyzw, r1.zwxy",
        "dtof r2.xy, r1.xyzw\ndtoi r3.zw, r1.zwxy",
        "dtou r2.x, r1.zwxy\ndtof_sat r3.yw, r1.xyzw",
        "ftod r2.xyzw, r1.xyxx\nitod r3.zw, r1.zwzz",
        "utod r2.xy, r1.wzww",
        "dmov r2.xyzw, -r1.zwxy\ndmov_sat r3.xyzw, r1.xyzw",
        "dmovc r2.xyzw, r1.xxzz, r1.xyzw, r1.zwxy",
    ] {
        alu_case(body);
    }
}

#[test]
fn integer_ops_on_edge_values() {
    for body in [
        "iadd r2.xyzw, r1.xyzw, r1.yzwx\nineg r3.xyzw, r1.xyzw",
        "iadd r2.xyzw, -r1.xyzw, |r1.yzwx|",
        "imad r2.xyzw, r1.xyzw, r1.yzwx, r1.zwxy\numad r3.xyzw, r1.xyzw, r1.yzwx, r1.zwxy",
        "imin r2.xyzw, r1.xyzw, r1.yzwx\nimax r3.xyzw, r1.xyzw, r1.yzwx",
        "umin r2.xyzw, r1.xyzw, r1.yzwx\numax r3.xyzw, r1.xyzw, r1.yzwx",
        "and r2.xyzw, r1.xyzw, r1.yzwx\nor r3.xyzw, r1.xyzw, r1.yzwx",
        "xor r2.xyzw, r1.xyzw, r1.yzwx\nnot r3.xyzw, r1.xyzw",
        "ishl r2.xyzw, r1.xyzw, r1.yzwx\nushr r3.xyzw, r1.xyzw, r1.zwxy",
        "ishr r2.xyzw, r1.xyzw, r1.yzwx\nishl r3.xyzw, r1.xyzw, l(33)",
        "ushr r2.xyzw, r1.xyzw, l(32)\nishr r3.xyzw, r1.xyzw, l(31, 0, 1, 63)",
        "ieq r2.xyzw, r1.xyzw, r1.yzwx\nine r3.xyzw, r1.xyzw, r1.xzwx",
        "ilt r2.xyzw, r1.xyzw, r1.yzwx\nige r3.xyzw, r1.xyzw, r1.yzwx",
        "ult r2.xyzw, r1.xyzw, r1.yzwx\nuge r3.xyzw, r1.xyzw, r1.yzwx",
        "imul r2.xyzw, r3.xyzw, r1.xyzw, r1.yzwx",
        "umul r2.xyzw, r3.xyzw, r1.xyzw, r1.yzwx",
        "udiv r2.xyzw, r3.xyzw, r1.xyzw, r1.yzwx",
        "udiv null, r3.xy, r1.xyzw, r1.wzyx",
        "uaddc r2.xyzw, r3.xyzw, r1.xyzw, r1.yzwx",
        "usubb r2.xyzw, r3.xyzw, r1.xyzw, r1.yzwx",
        "countbits r2.xyzw, r1.xyzw\nbfrev r3.xyzw, r1.xyzw",
        "firstbit_hi r2.xyzw, r1.xyzw\nfirstbit_lo r3.xyzw, r1.xyzw",
        "firstbit_shi r2.xyzw, r1.xyzw",
        "ubfe r2.xyzw, r1.xyzw, r1.yzwx, r1.zwxy\nibfe r3.xyzw, r1.xyzw, r1.yzwx, r1.zwxy",
        "bfi r2.xyzw, r1.xyzw, r1.yzwx, r1.zwxy, r1.wxyz",
        "msad r2.xyzw, r1.xyzw, r1.yzwx, r1.zwxy",
        // utof of values known below 2^31 takes the signed conversion:
        // shifted right by 1 to 31 (not 0), and-ed with such a value or a
        // constant without bit 31 (not 0x80000000 or 0xffffffff).
        "ushr r2.xyzw, r1.xyzw, l(1, 8, 31, 0)\nutof r3.xyzw, r2.xyzw",
        "and r2.xyzw, r1.xyzw, l(0x7fffffff, 0x80000000, 0xff, 0xffffffff)\nutof r3.xyzw, r2.xyzw",
        "ushr r2.xyzw, r1.xyzw, l(4)\nand r2.xyzw, r1.yzwx, r2.xyzw\nutof r3.xyzw, r2.xyzw",
        "ushr r2.xyzw, r1.xyzw, l(32)\nutof r3.xyzw, r2.xyzw",
        // Adds of the literal 0 are left out.
        "imad r2.xyzw, r1.xyzw, r1.yzwx, l(0, 1, 0, -1)\niadd r3.xyzw, l(0, 0, 7, 0), r1.xyzw",
    ] {
        alu_case(body);
    }
}

/// Runs a control-flow `body` on 3 groups of 24 threads with r0.x = the
/// flattened thread id and r1..r3 zero; stores r1..r3 per thread.
fn flow_case(body: &str) -> Vec<u32> {
    let text = format!(
        "cs_5_0
dcl_uav_raw u0
dcl_input vThreadIDInGroupFlattened
dcl_input vThreadID.x
dcl_temps 6
dcl_thread_group 12, 2, 1
mov r0.x, vThreadIDInGroupFlattened.x
mov r1.xyzw, l(0, 0, 0, 0)
mov r2.xyzw, l(0, 0, 0, 0)
mov r3.xyzw, l(0, 0, 0, 0)
{body}
imul null, r5.x, vThreadID.x, l(48)
store_raw u0.xyzw, r5.x, r1.xyzw
iadd r5.x, r5.x, l(16)
store_raw u0.xyzw, r5.x, r2.xyzw
iadd r5.x, r5.x, l(16)
store_raw u0.xyzw, r5.x, r3.xyzw
ret
"
    );
    // vThreadID.x runs over 3 groups × 12 = 36 values; y adds nothing to it,
    // so two threads share each slot: the later (y = 1) one wins in both
    // engines because stores run in thread order.
    diff(&text, [3, 1, 1], &[uav(0, raw(36 * 12), &[0; 36 * 12])]).remove(0)
}

#[test]
fn divergent_if_else_and_nesting() {
    let out = flow_case(
        "and r4.x, r0.x, l(1)
         if_nz r4.x
           iadd r1.x, r0.x, l(100)
           ult r4.y, r0.x, l(10)
           if_z r4.y
             mov r1.y, l(7)
           else
             mov r1.y, l(8)
           endif
         else
           iadd r1.x, r0.x, l(200)
         endif
         ieq r4.z, r0.x, l(1000)
         if_nz r4.z
           mov r1.z, l(1)
         else
           mov r1.w, l(2)
         endif",
    );
    // Thread 13 (odd, y = 1, x = 1) is in slot 1 of group 0.
    assert_eq!(&out[12..16], &[113, 7, 0, 2]);
}

#[test]
fn loops_with_divergent_break_and_continue() {
    let out = flow_case(
        "mov r4.x, l(0)
         loop
           uge r4.y, r4.x, r0.x
           breakc_nz r4.y
           iadd r4.x, r4.x, l(1)
           and r4.z, r4.x, l(1)
           continuec_nz r4.z
           iadd r1.x, r1.x, r4.x
           ieq r4.w, r4.x, l(8)
           if_nz r4.w
             mov r1.y, l(88)
             break
           endif
           iadd r1.z, r1.z, l(1)
         endloop
         mov r1.w, r4.x",
    );
    // Thread 23 (slot 11, y = 1): even steps 2+4+6+8, breaks at 8.
    assert_eq!(&out[11 * 12..11 * 12 + 4], &[20, 88, 3, 8]);
}

#[test]
fn nested_loops_and_ret_inside_a_loop() {
    flow_case(
        "mov r4.x, l(0)
         loop
           ige r4.y, r4.x, l(4)
           breakc_nz r4.y
           mov r4.z, l(0)
           loop
             uge r4.w, r4.z, r4.x
             breakc_nz r4.w
             iadd r1.x, r1.x, r4.z
             iadd r4.z, r4.z, l(1)
           endloop
           iadd r4.x, r4.x, l(1)
           ieq r4.w, r0.x, r4.x
           if_nz r4.w
             mov r2.x, l(77)
             imul null, r5.x, r0.x, l(4)
             store_raw u0.x, r5.x, r1.x
             ret
           endif
           retc_z r0.x
         endloop
         mov r2.y, l(5)",
    );
}

#[test]
fn switch_with_fallthrough_and_default() {
    let out = flow_case(
        "and r4.x, r0.x, l(7)
         switch r4.x
           case l(0)
             mov r1.x, l(10)
             break
           case l(1)
           case l(2)
             mov r1.y, l(12)
           case l(3)
             iadd r1.z, r1.z, l(3)
             break
           case l(5)
             loop
               iadd r1.w, r1.w, l(1)
               uge r4.y, r1.w, l(5)
               breakc_nz r4.y
             endloop
             break
           default
             mov r2.x, l(99)
             break
         endswitch
         mov r2.y, r4.x",
    );
    // Slot 1 runs thread 13 (13 & 7 = 5): the loop counts to 5.
    assert_eq!(&out[12..16], &[0, 0, 0, 5]);
    // Slot 2 runs thread 14 (6): default.
    assert_eq!(&out[24 + 4..24 + 6], &[99, 6]);
}

#[test]
fn runaway_loop_stops_with_budget_error() {
    let program = parse(
        "cs_5_0
dcl_uav_raw u0
dcl_temps 1
dcl_thread_group 4, 1, 1
mov r0.x, l(0)
loop
  iadd r0.x, r0.x, l(1)
endloop
ret
",
    );
    let jit = JitShader::compile(&program).expect("compile");
    let mut res = [uav(0, raw(4), &[0; 4])];
    let o = DispatchOptions { budget: 10_000 };
    let err = with_bound(&mut res, |b| {
        jit.dispatch_threads(b, [2, 1, 1], &o, 1).map(|_| ())
    })
    .unwrap_err();
    // The JIT names the `endloop` (instruction 3) whose charge ran out, and
    // the message says how to raise the budget.
    assert!(
        matches!(
            err,
            RuntimeError::BudgetExhausted {
                group: [0, 0, 0],
                inst_index: 3,
            }
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("--budget N"), "{err}");
}

#[test]
fn out_of_bounds_raw_and_structured_accesses() {
    // t0 is a 10-word window starting at word 2 of 16; u1 a structured
    // window of 5 × 12 bytes starting at element 1. Addresses run past
    // both ends, including ones that overflow 32 bits when scaled.
    let text = "cs_5_0
dcl_resource_raw t0
dcl_uav_raw u0
dcl_uav_structured u1, 12
dcl_uav_structured u3, 12
dcl_input vThreadID.x
dcl_temps 4
dcl_thread_group 16, 1, 1
imul null, r0.x, vThreadID.x, l(3)
ld_raw r1.xyzw, r0.x, t0.wzyx
ishl r2.x, vThreadID.x, l(4)
store_raw u0.xyzw, r2.x, r1.xyzw
iadd r0.y, vThreadID.x, l(-3)
imul null, r0.z, vThreadID.x, l(0x40000000)
store_structured u1.xyz, vThreadID.x, l(4), vThreadID.xxxx
store_structured u3.xyz, r0.y, l(4), vThreadID.xxxx
store_structured u1.x, r0.z, l(0), l(0xdead)
ld_structured r3.xy, vThreadID.x, l(8), u1.xyxx
iadd r2.x, r2.x, l(256)
store_raw u0.xyzw, r2.x, r3.xyzw
ret
";
    let t0: Vec<u32> = (0..16).map(|i| 0x100 + i).collect();
    let t0v = View::Buffer(BufferView {
        kind: BufferKind::Raw,
        first_element: 2,
        num_elements: 10,
    });
    let out = diff(
        text,
        [1, 1, 1],
        &[
            srv(0, t0v, &t0),
            uav(0, raw(128), &[0; 128]),
            uav(1, structured(12, 1, 5), &[7; 24]),
            uav(3, structured(12, 1, 5), &[7; 24]),
        ],
    );
    // Thread 3 reads bytes 9.. → words 2..6 of the window (wzyx order).
    assert_eq!(&out[0][12..16], &[0x107, 0x106, 0x105, 0x104]);
    // Thread 15 reads past the window: zeros.
    assert_eq!(&out[0][60..64], &[0; 4]);
    // Thread 1 reads back its own store: offset 4 of a 12-byte element
    // wrote three words running one word into the next element.
    assert_eq!(&out[0][68..72], &[1, 1, 0, 0]);
    // u3: elements 0..4 of the window come from threads 3..7; the element
    // before the window (backing words 0..2) is never written.
    assert_eq!(&out[2][0..3], &[7, 7, 7]);
    assert_eq!(&out[2][3..6], &[7, 3, 3]);
}

#[test]
fn loads_where_every_lane_reads_the_same_address() {
    // Groups of 8 lanes read one address each: word 8k of t0 (raw, 10-word
    // window) for .xyzw, so the batch at k = 1 straddles the window's end
    // and k = 2 lies past it; TGSM and structured reads the same way.
    let text = "cs_5_0
dcl_resource_raw t0
dcl_resource_structured t1, 8
dcl_uav_raw u0
dcl_input vThreadID.x
dcl_input vThreadIDInGroupFlattened
dcl_temps 4
dcl_tgsm_raw g0, 64
dcl_thread_group 24, 1, 1
ishl r0.x, vThreadIDInGroupFlattened.x, l(2)
store_raw g0.x, r0.x, vThreadID.x
sync_g_t
ushr r0.y, vThreadID.x, l(3)
imul null, r0.z, r0.y, l(32)
ld_raw r1.xyzw, r0.z, t0.xyzw
imul null, r0.w, r0.y, l(24)
ld_raw r2.xyzw, r0.w, g0.xyzw
ld_structured r3.xy, r0.y, l(0), t1.xyxx
imul null, r0.x, vThreadID.x, l(48)
store_raw u0.xyzw, r0.x, r1.xyzw
iadd r0.x, r0.x, l(16)
store_raw u0.xyzw, r0.x, r2.xyzw
iadd r0.x, r0.x, l(16)
store_raw u0.xy, r0.x, r3.xyxx
ret
";
    let t0: Vec<u32> = (0..16).map(|i| 0x100 + i).collect();
    let t0v = View::Buffer(BufferView {
        kind: BufferKind::Raw,
        first_element: 0,
        num_elements: 10,
    });
    let t1: Vec<u32> = (0..4).map(|i| 0x200 + i).collect();
    let out = diff(
        text,
        [1, 1, 1],
        &[
            srv(0, t0v, &t0),
            srv(1, structured(8, 0, 2), &t1),
            uav(0, raw(24 * 12), &[0; 24 * 12]),
        ],
    );
    let row = |t: usize| &out[0][12 * t..12 * t + 12];
    // k = 0: words 0..4 of t0, TGSM words 0..4, element 0 of t1.
    assert_eq!(
        row(3),
        &[0x100, 0x101, 0x102, 0x103, 0, 1, 2, 3, 0x200, 0x201, 0, 0]
    );
    // k = 1: words 8, 9 in the window, 10 and 11 past it; TGSM 6..10.
    assert_eq!(&row(9)[..8], &[0x108, 0x109, 0, 0, 6, 7, 8, 9]);
    assert_eq!(&row(9)[8..10], &[0x202, 0x203]);
    // k = 2: t0 words 16.. and t1 element 2 are out of bounds.
    assert_eq!(row(17)[..4], [0; 4]);
    assert_eq!(row(17)[8..10], [0; 2]);
}

/// Thread ids as indices: the flat id plus a uniform offset (consecutive
/// in each vector when a batch lies in one row), the flat id straight
/// into a g# that holds the group (no run-time test) or does not (the
/// last vectors cross its end), and `vThreadID.x << 2` as a raw address
/// into windows the ids run past, under full and partial masks.
fn thread_index_program(x: u32, y: u32) -> String {
    format!(
        "cs_5_0
dcl_constantbuffer cb0[1], immediateIndexed
dcl_resource_structured t0, 4
dcl_resource_raw t1
dcl_uav_raw u0
dcl_uav_raw u1
dcl_input vThreadGroupID.x
dcl_input vThreadIDInGroup.y
dcl_input vThreadIDInGroupFlattened
dcl_input vThreadID.x
dcl_temps 4
dcl_tgsm_structured g0, 4, 30
dcl_tgsm_structured g1, 4, 32
dcl_thread_group {x}, {y}, 1
iadd r0.x, vThreadIDInGroupFlattened.x, cb0[0].x
ld_structured r1.x, r0.x, l(0), t0.xxxx
store_structured g1.x, vThreadIDInGroupFlattened.x, l(0), r1.x
store_structured g0.x, vThreadIDInGroupFlattened.x, l(4), vThreadIDInGroupFlattened.x
sync_g_t
ult r2.x, vThreadIDInGroupFlattened.x, cb0[0].w
if_nz r2.x
  iadd r0.y, vThreadIDInGroupFlattened.x, -cb0[0].y
  store_structured g1.x, r0.y, l(0), vThreadID.x
  store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), r0.y
endif
sync_g_t
ld_structured r1.y, vThreadIDInGroupFlattened.x, l(0), g1.xxxx
ld_structured r1.z, vThreadIDInGroupFlattened.x, l(4), g0.xxxx
iadd r0.z, vThreadIDInGroupFlattened.x, cb0[0].z
ld_structured r1.w, r0.z, l(0), g1.xxxx
ishl r3.x, vThreadID.x, l(2)
ld_raw r2.y, r3.x, t1.xxxx
if_z vThreadIDInGroup.y
  uge r2.w, vThreadIDInGroupFlattened.x, cb0[0].w
  if_nz r2.w
    store_raw u1.x, r3.x, r1.x
  endif
endif
imad r3.y, vThreadGroupID.x, l(32), vThreadIDInGroupFlattened.x
imul null, r3.y, r3.y, l(20)
store_raw u0.xyzw, r3.y, r1.xyzw
iadd r3.y, r3.y, l(16)
store_raw u0.x, r3.y, r2.y
ret
"
    )
}

#[test]
fn thread_id_indices_take_the_vector_path_only_where_it_is_exact() {
    let t0: Vec<u32> = (0..40).map(|i| 0x1000 + i).collect();
    let t1: Vec<u32> = (0..48).map(|i| 0x2000 + i).collect();
    // The last row puts a window's end, a wrap and a mask edge between
    // the two vectors of one batch: lanes 0-3 in, lanes 4-7 out (t0 at
    // flat 24..31 + 2, g1 at 24..31 + 2, g1 at 0..7 - 4, the mask at flat
    // 20), where a whole-batch access must fall back to each vector.
    let params: [[u32; 4]; 6] = [
        [0, 0, 0, 32],
        [5, 3, 0xFFFF_FFFD, 20],
        [0xFFFF_FFFE, 0xFFFF_FFFD, 7, 8],
        [28, 30, 1, 0],
        [0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFF8, 13],
        [2, 4, 2, 20],
    ];
    for (x, y) in [(32, 1), (16, 2), (8, 4), (4, 8)] {
        let text = thread_index_program(x, y);
        for cbw in params {
            let out = diff(
                &text,
                [2, 1, 1],
                &[
                    cb(0, &cbw),
                    srv(0, structured(4, 0, 30), &t0),
                    srv(1, raw(44), &t1),
                    uav(0, raw(64 * 5), &[0; 64 * 5]),
                    uav(1, raw(36), &[0; 36]),
                ],
            );
            if cbw == [0, 0, 0, 32] {
                // Thread 5 of group 1: t0[5]; its own g1 word, rewritten
                // with vThreadID.x; g0 DWORD 6 (thread 6's flat id); its
                // g1 word again; t1 at vThreadID.x.
                let gid_x = 32 / y + 5 % x;
                let t = &out[0][5 * (32 + 5)..5 * (32 + 5) + 5];
                assert_eq!(t, &[0x1005, gid_x, 6, gid_x, 0x2000 + gid_x], "{x}x{y}");
                // Thread 29: g0 DWORD 30 lies past the g#.
                assert_eq!(out[0][5 * 29 + 2], 0, "{x}x{y}");
            }
        }
    }
}

/// Stores where only some lanes of a vector write: to consecutive DWORDs
/// (a g# at the flat id, a raw u# at the thread id), to one DWORD (the
/// "thread 0 writes the group's result" store, in and past the window),
/// each under masks that start, end and break inside a vector.
#[test]
fn partly_masked_stores_write_only_the_writing_lanes() {
    let text = "cs_5_0
dcl_constantbuffer CB0[1], immediateIndexed
dcl_uav_raw u0
dcl_uav_raw u1
dcl_uav_raw u2
dcl_input vThreadGroupID.x
dcl_input vThreadIDInGroupFlattened
dcl_input vThreadID.x
dcl_temps 2
dcl_tgsm_structured g0, 4, 16
dcl_thread_group 16, 1, 1
iadd r0.x, vThreadIDInGroupFlattened.x, l(100)
store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), r0.x
sync_g_t
ult r0.y, vThreadIDInGroupFlattened.x, cb0[0].x
if_nz r0.y
  iadd r0.x, vThreadID.x, l(200)
  store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), r0.x
endif
sync_g_t
ld_structured r0.x, vThreadIDInGroupFlattened.x, l(0), g0.xxxx
ishl r1.x, vThreadID.x, l(2)
store_raw u0.x, r1.x, r0.x
uge r0.y, vThreadIDInGroupFlattened.x, cb0[0].y
ult r0.z, vThreadIDInGroupFlattened.x, cb0[0].z
and r0.y, r0.y, r0.z
if_nz r0.y
  iadd r0.x, vThreadID.x, l(300)
  store_raw u1.x, r1.x, r0.x
endif
and r0.y, vThreadIDInGroupFlattened.x, cb0[0].w
if_z r0.y
  ishl r1.y, vThreadGroupID.x, l(2)
  iadd r0.x, vThreadID.x, l(400)
  store_raw u2.x, r1.y, r0.x
endif
ret
";
    // x: g0 lanes below x; y..z: u1 lanes; w: u2 from the lanes whose
    // flat id has no bit of w (0: every lane; 15: lane 0 only; 3: every
    // fourth lane; 8: lanes 0-7).
    let params: [[u32; 4]; 6] = [
        [0, 0, 0, 15],
        [16, 0, 16, 0],
        [1, 5, 6, 3],
        [2, 3, 13, 8],
        [5, 9, 10, 7],
        [12, 4, 12, 12],
    ];
    for cbw in params {
        // Three groups, u2 holds two words: group 2's DWORD lies past it.
        let out = diff(
            text,
            [3, 1, 1],
            &[
                cb(0, &cbw),
                uav(0, raw(48), &[0xEEEE; 48]),
                uav(1, raw(48), &[0xEEEE; 48]),
                uav(2, raw(2), &[0xEEEE; 2]),
            ],
        );
        let [x, y, z, w] = cbw;
        for t in 0..48u32 {
            let flat = t % 16;
            let g0 = if flat < x { t + 200 } else { flat + 100 };
            assert_eq!(out[0][t as usize], g0, "{cbw:?} thread {t}");
            let u1 = if flat >= y && flat < z {
                t + 300
            } else {
                0xEEEE
            };
            assert_eq!(out[1][t as usize], u1, "{cbw:?} thread {t}");
        }
        let last = (0..16u32).rev().find(|f| f & w == 0).unwrap();
        assert_eq!(out[2], [last + 400, 16 + last + 400], "{cbw:?}");
    }
}

/// The thread ids along x a split tests.
const ROW_IDS: [&str; 3] = [
    "vThreadIDInGroupFlattened.x",
    "vThreadIDInGroup.x",
    "vThreadID.x",
];

/// A comparison's rule on (first operand, second operand).
type Rule = fn(u32, u32) -> bool;

/// Each integer comparison with the rule it follows.
const ID_COMPARES: [(&str, Rule); 6] = [
    ("ieq", |a, b| a == b),
    ("ine", |a, b| a != b),
    ("ilt", |a, b| (a as i32) < (b as i32)),
    ("ige", |a, b| (a as i32) >= (b as i32)),
    ("ult", |a, b| a < b),
    ("uge", |a, b| a >= b),
];

/// Id `id` of flat thread `f` of group `g` in groups of 16 x 2: x = f % 16,
/// the global x 16 g + x.
fn row_id_of(id: &str, g: u32, f: u32) -> u32 {
    match id {
        "vThreadIDInGroupFlattened.x" => f,
        "vThreadIDInGroup.x" => f % 16,
        _ => 16 * g + f % 16,
    }
}

/// An `if` on a thread-id range (`src/jit/split.rs`): each integer
/// comparison of each in-group id along x with a uniform value, the id on
/// either side, `if_nz` and `if_z`, and the id tested itself, over values
/// around the batch edges (8 lanes), the group edges (16 x 2 threads) and
/// the sign bit. Every lane's body result and compare result is checked
/// against the rule, and the engines against each other.
#[test]
fn ifs_on_thread_id_ranges_run_the_body_on_exactly_the_lanes_that_take_it() {
    let (ids, ops) = (ROW_IDS, ID_COMPARES);
    let values: [[u32; 4]; 4] = [
        [0, 1, 3, 7],
        [8, 9, 15, 16],
        [17, 31, 32, 40],
        [u32::MAX, 0x8000_0000, 0x7FFF_FFFF, 24],
    ];
    let id_of = row_id_of;
    let head = |ids_decl: &str| {
        format!(
            "cs_5_0
dcl_constantbuffer CB0[1], immediateIndexed
dcl_uav_raw u0
dcl_input vThreadGroupID.x
{ids_decl}dcl_temps 3
dcl_thread_group 16, 2, 1
imad r2.x, vThreadGroupID.x, l(32), vThreadIDInGroupFlattened.x
ishl r2.x, r2.x, l(5)
mov r0.x, l(0)
"
        )
    };
    let decl = "dcl_input vThreadIDInGroupFlattened
dcl_input vThreadIDInGroup.x
dcl_input vThreadID.x
";
    for id in ids {
        for (name, rule) in ops {
            for id_left in [true, false] {
                for test in ["nz", "z"] {
                    let mut text = head(decl);
                    for (k, c) in ["x", "y", "z", "w"].iter().enumerate() {
                        let (a, b) = if id_left {
                            (id.to_string(), format!("cb0[0].{c}"))
                        } else {
                            (format!("cb0[0].{c}"), id.to_string())
                        };
                        text += &format!(
                            "{name} r1.{c}, {a}, {b}\nif_{test} r1.{c}\n  iadd r0.x, r0.x, l({})\n  mov r0.y, r1.{c}\nendif\n",
                            1 << k
                        );
                    }
                    text += "store_raw u0.xyzw, r2.x, r1.xyzw\niadd r2.x, r2.x, l(16)\n";
                    text += "store_raw u0.xy, r2.x, r0.xyxx\nret\n";
                    for cbw in values {
                        let out = diff(
                            &text,
                            [2, 1, 1],
                            &[cb(0, &cbw), uav(0, raw(512), &[0xEEEE; 512])],
                        );
                        for g in 0..2u32 {
                            for f in 0..32u32 {
                                let x = id_of(id, g, f);
                                let t = (32 * g + f) as usize * 8;
                                let mut body = 0;
                                for (k, &u) in cbw.iter().enumerate() {
                                    let holds = if id_left { rule(x, u) } else { rule(u, x) };
                                    assert_eq!(
                                        out[0][t + k],
                                        if holds { u32::MAX } else { 0 },
                                        "{name} {id} {cbw:?}"
                                    );
                                    if holds == (test == "nz") {
                                        body |= 1 << k;
                                    }
                                }
                                let what =
                                    format!("{name} {id} if_{test} {cbw:?} thread {f} of {g}");
                                assert_eq!(out[0][t + 4], body, "{what}\n{text}");
                                // The last body run read its compare result.
                                let y = if body != 0 && test == "nz" {
                                    u32::MAX
                                } else {
                                    0
                                };
                                assert_eq!(out[0][t + 5], y, "{what}");
                            }
                        }
                    }
                }
            }
        }
    }
    // The id tested itself: `if_z` runs on id 0 only, `if_nz` on the rest.
    for id in ids {
        for test in ["nz", "z"] {
            let text = head(decl)
                + &format!("if_{test} {id}\n  iadd r0.x, {id}, l(100)\nendif\nstore_raw u0.x, r2.x, r0.x\nret\n");
            let out = diff(
                &text,
                [2, 1, 1],
                &[cb(0, &[0; 4]), uav(0, raw(512), &[0xEEEE; 512])],
            );
            for g in 0..2u32 {
                for f in 0..32u32 {
                    let x = id_of(id, g, f);
                    let want = if (x != 0) == (test == "nz") {
                        x + 100
                    } else {
                        0
                    };
                    assert_eq!(
                        out[0][(32 * g + f) as usize * 8],
                        want,
                        "{id} if_{test} thread {f} of {g}"
                    );
                }
            }
        }
    }
}

/// How many `iadd`s of the vector literal 12345 tier 1 makes of `text`:
/// how many times the code holding it was lowered, times the vectors of
/// a batch.
fn literal_adds(text: &str) -> usize {
    let p = parse(text);
    let options = CompileOptions::tier(Tier::One);
    let (_, dump) = JitShader::compile_dump_with(&p, &options).expect("compile");
    // The literal is a constant-pool vector (`constK = 0x00003039...`).
    let name = dump
        .clif
        .lines()
        .find_map(|l| {
            l.trim()
                .strip_suffix(" = 0x00003039000030390000303900003039")
        })
        .expect("the literal's constant")
        .to_string();
    let uses = format!("= {name}");
    let adds = dump
        .clif
        .lines()
        .filter(|l| l.contains(" = iadd") && l.ends_with(&uses));
    adds.count()
}

/// The split of an `if` on a thread-id range happens where it may: the
/// body is lowered twice (its add of the literal appears in both copies,
/// once per vector of the batch).
#[test]
fn an_if_on_a_thread_id_range_lowers_its_body_twice() {
    let text = "cs_5_0
dcl_constantbuffer CB0[1], immediateIndexed
dcl_uav_raw u0
dcl_input vThreadIDInGroupFlattened
dcl_temps 2
dcl_thread_group 16, 1, 1
mov r0.x, l(0)
ult r0.y, vThreadIDInGroupFlattened.x, cb0[0].x
if_nz r0.y
  iadd r0.x, vThreadIDInGroupFlattened.x, l(12345)
endif
ishl r1.x, vThreadIDInGroupFlattened.x, l(2)
store_raw u0.x, r1.x, r0.x
ret
";
    let count = literal_adds;
    let split = count(text);
    // Groups of 12: batches straddle rows, so the plain `if` stays.
    let plain = count(&text.replace("16, 1, 1", "12, 1, 1"));
    assert_eq!(plain, 2);
    // Both batch loops (the pretested one, `src/jit/pretest.rs`, and the
    // ordinary one) hold the body twice.
    assert_eq!(split, 8);
}

/// An early return on a thread-id range (`src/jit/split.rs`), the bounds
/// test of most compute shaders: each integer comparison of each id along
/// x with a uniform value, the id on either side, `if_nz` and `if_z`, over
/// values around the batch edges (8 lanes), the group edges (16 x 2
/// threads) and the sign bit. The rest of the program (a loop with an
/// `if`, a store of the compare result) runs on exactly the lanes that
/// stay; the lanes that return write nothing.
#[test]
fn early_returns_on_thread_id_ranges_leave_exactly_the_lanes_that_take_them() {
    let (ids, ops) = (ROW_IDS, ID_COMPARES);
    let values = [
        0,
        1,
        7,
        8,
        9,
        16,
        17,
        31,
        32,
        40,
        u32::MAX,
        0x8000_0000,
        0x7FFF_FFFF,
    ];
    let id_of = row_id_of;
    for id in ids {
        for (name, rule) in ops {
            for id_left in [true, false] {
                for test in ["nz", "z"] {
                    let (a, b) = if id_left {
                        (id.to_string(), "cb0[0].x".to_string())
                    } else {
                        ("cb0[0].x".to_string(), id.to_string())
                    };
                    let text = format!(
                        "cs_5_0
dcl_constantbuffer CB0[1], immediateIndexed
dcl_uav_raw u0
dcl_input vThreadGroupID.x
dcl_input vThreadIDInGroupFlattened
dcl_input vThreadIDInGroup.x
dcl_input vThreadID.x
dcl_temps 3
dcl_thread_group 16, 2, 1
{name} r1.x, {a}, {b}
if_{test} r1.x
  ret
endif
imad r2.x, vThreadGroupID.x, l(32), vThreadIDInGroupFlattened.x
ishl r2.x, r2.x, l(3)
mov r0.xy, l(0, 0, 0, 0)
loop
  uge r0.z, r0.y, cb0[0].y
  breakc_nz r0.z
  and r0.w, vThreadIDInGroupFlattened.x, l(1)
  if_nz r0.w
    iadd r0.x, r0.x, l(100)
  endif
  iadd r0.x, r0.x, l(1)
  iadd r0.y, r0.y, l(1)
endloop
store_raw u0.xy, r2.x, r0.xxxx
store_raw u0.x, r2.x, r1.x
ret
"
                    );
                    for u in values {
                        let out = diff(
                            &text,
                            [2, 1, 1],
                            &[cb(0, &[u, 3, 0, 0]), uav(0, raw(256), &[0xEEEE; 256])],
                        );
                        for g in 0..2u32 {
                            for f in 0..32u32 {
                                let x = id_of(id, g, f);
                                let holds = if id_left { rule(x, u) } else { rule(u, x) };
                                let returns = holds == (test == "nz");
                                let t = (32 * g + f) as usize * 2;
                                let what =
                                    format!("{name} {id} if_{test} u={u:#x} thread {f} of {g}");
                                let want = if returns {
                                    [0xEEEE, 0xEEEE]
                                } else {
                                    let sum = 3 + 300 * (f & 1);
                                    [if holds { u32::MAX } else { 0 }, sum]
                                };
                                assert_eq!(out[0][t..t + 2], want, "{what}\n{text}");
                            }
                        }
                    }
                }
            }
        }
    }
}

/// How many memory stores tier 1 makes of `text` (side effects, which
/// Cranelift neither merges nor copies: each lowering of a store shows).
fn stores(text: &str) -> usize {
    let p = parse(text);
    let options = CompileOptions::tier(Tier::One);
    let (_, dump) = JitShader::compile_dump_with(&p, &options).expect("compile");
    dump.clif
        .lines()
        .filter(|l| l.trim_start().starts_with("store"))
        .count()
}

/// The split of an early return happens where it may: the rest of the
/// program is lowered a second time, on the full mask (more stores than
/// the plain lowering, which a `nop` beside the `ret` forces), and not in
/// a program with a barrier or with batches that straddle rows.
#[test]
fn an_early_return_on_a_thread_id_range_lowers_the_rest_twice() {
    let text = "cs_5_0
dcl_constantbuffer CB0[1], immediateIndexed
dcl_uav_raw u0
dcl_input vThreadID.x
dcl_temps 2
dcl_thread_group 16, 1, 1
uge r0.y, vThreadID.x, cb0[0].x
if_nz r0.y
  ret
endif
xor r0.x, vThreadID.x, l(12345)
ishl r1.x, vThreadID.x, l(2)
store_raw u0.x, r1.x, r0.x
ret
";
    let plain = |t: &str| t.replace("  ret\n", "  nop\n  ret\n");
    assert!(stores(text) > stores(&plain(text)));
    // Groups of 12: batches straddle rows, so the plain `if` stays.
    let straddle = text.replace("16, 1, 1", "12, 1, 1");
    assert_eq!(stores(&straddle), stores(&plain(&straddle)));
    // A barrier after it: the plain `if` (a returned lane skips it).
    let barrier = text.replace("xor r0.x", "sync_g_t\nxor r0.x");
    assert_eq!(stores(&barrier), stores(&plain(&barrier)));
}

/// A difference `id - u` inside an `if` that runs where `id >= u` (or
/// `id > u`) on every lane of a batch keeps the id's facts on that path
/// (`IdFloor`, `src/jit/split.rs`): TGSM loads and stores at it take the
/// whole-batch path with no bounds test when the g# holds every id. Each
/// form of the floor (the comparison either way round, `if_nz` and
/// `if_z`, an r# or a literal `u`, the id on either side of the add),
/// forms that must not take it (`u` rewritten in the body, a signed
/// comparison, another register), a g# that holds every id and one that
/// does not, and values of `u` around the batch and group edges: every
/// lane's load and store is checked, and the engines against each other.
#[test]
fn differences_under_a_thread_id_floor_read_and_write_the_right_words() {
    // (comparison then `if`, add, whether the body runs where id >= u,
    // whether it runs where id > u instead).
    let forms: [(&str, &str, bool); 8] = [
        (
            "uge r1.x, IDX, r3.x\nif_nz r1.x",
            "iadd r1.y, IDX, -r3.x",
            false,
        ),
        (
            "ult r1.x, IDX, r3.x\nif_z r1.x",
            "iadd r1.y, -r3.x, IDX",
            false,
        ),
        (
            "ult r1.x, r3.x, IDX\nif_nz r1.x",
            "iadd r1.y, IDX, -r3.x",
            true,
        ),
        (
            "uge r1.x, r3.x, IDX\nif_z r1.x",
            "iadd r1.y, IDX, -r3.x",
            true,
        ),
        // u rewritten before the add: the add is id - u - 1.
        (
            "uge r1.x, IDX, r3.x\nif_nz r1.x\niadd r3.x, r3.x, l(1)",
            "iadd r1.y, IDX, -r3.x",
            false,
        ),
        // Another register holding u: no floor, the same words.
        (
            "mov r3.z, r3.x\nuge r1.x, IDX, r3.x\nif_nz r1.x",
            "iadd r1.y, IDX, -r3.z",
            false,
        ),
        // Signed: `ige` takes no floor (u may be negative).
        (
            "ige r1.x, IDX, r3.x\nif_nz r1.x",
            "iadd r1.y, IDX, -r3.x",
            false,
        ),
        // A literal u.
        (
            "uge r1.x, IDX, l(5)\nif_nz r1.x",
            "iadd r1.y, IDX, l(-5)",
            false,
        ),
    ];
    let values = [
        0u32,
        1,
        3,
        5,
        7,
        8,
        9,
        15,
        16,
        17,
        31,
        32,
        0x8000_0000,
        u32::MAX,
    ];
    for id in ["vThreadIDInGroupFlattened.x", "vThreadIDInGroup.x"] {
        for size in [32u32, 24] {
            for (k, &(cond, add, strict)) in forms.iter().enumerate() {
                let text = format!(
                    "cs_5_0
dcl_constantbuffer CB0[1], immediateIndexed
dcl_uav_raw u0
dcl_input vThreadGroupID.x
dcl_input vThreadIDInGroupFlattened
dcl_input vThreadIDInGroup.x
dcl_temps 4
dcl_tgsm_structured g0, 4, {size}
dcl_tgsm_structured g1, 4, {size}
dcl_thread_group 16, 2, 1
imad r2.x, vThreadGroupID.x, l(32), vThreadIDInGroupFlattened.x
ishl r2.x, r2.x, l(3)
imad r3.y, vThreadIDInGroupFlattened.x, l(7), l(1)
store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), r3.y
store_structured g1.x, vThreadIDInGroupFlattened.x, l(0), l(0xEEEE)
sync_g_t
mov r3.x, cb0[0].x
mov r0.x, l(0xDDDD)
{cond}
  {add}
  ld_structured r0.x, r1.y, l(0), g0.xxxx
  store_structured g1.x, r1.y, l(0), vThreadIDInGroupFlattened.x
endif
sync_g_t
ld_structured r0.y, vThreadIDInGroupFlattened.x, l(0), g1.xxxx
store_raw u0.xy, r2.x, r0.xyxx
ret
"
                )
                .replace("IDX", id);
                for &u in &values {
                    let u_eff = if k == 7 { 5 } else { u };
                    let out = diff(
                        &text,
                        [2, 1, 1],
                        &[cb(0, &[u, 0, 0, 0]), uav(0, raw(128), &[0xCCCC; 128])],
                    );
                    for g in 0..2u32 {
                        // Per flat id: its load, and which thread stored to it.
                        let mut stored = [None; 32];
                        let mut loads = [0xDDDDu32; 32];
                        for f in 0..32u32 {
                            let x = if id.contains("Flattened") { f } else { f % 16 };
                            let signed = k == 6;
                            let runs = if signed {
                                (x as i32) >= (u_eff as i32)
                            } else if strict {
                                x > u_eff
                            } else {
                                x >= u_eff
                            };
                            if !runs {
                                continue;
                            }
                            let at = x.wrapping_sub(u_eff).wrapping_sub((k == 4) as u32);
                            loads[f as usize] = if at < size { 7 * at + 1 } else { 0 };
                            if at < size {
                                // Lanes store in order: the last writer wins.
                                stored[at as usize] = Some(f);
                            }
                        }
                        for f in 0..32u32 {
                            let t = (32 * g + f) as usize * 2;
                            let what = format!(
                                "{id} form {k} size {size} u {u:#x} thread {f} of {g}\n{text}"
                            );
                            assert_eq!(out[0][t], loads[f as usize], "load, {what}");
                            let want = if f < size {
                                stored[f as usize].unwrap_or(0xEEEE)
                            } else {
                                0
                            };
                            assert_eq!(out[0][t + 1], want, "store, {what}");
                        }
                    }
                }
            }
        }
    }
}

/// The floor of a split body drops the bounds tests of its TGSM accesses
/// at `id - u` where the g# holds every id, and keeps them where `u` is
/// not the compared register.
#[test]
fn a_difference_under_a_thread_id_floor_needs_no_bounds_test() {
    let text = |index: &str| {
        format!(
            "cs_5_0
dcl_constantbuffer CB0[1], immediateIndexed
dcl_uav_raw u0
dcl_input vThreadIDInGroupFlattened
dcl_temps 3
dcl_tgsm_structured g0, 4, 64
dcl_thread_group 64, 1, 1
store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), vThreadIDInGroupFlattened.x
sync_g_t
mov r0.x, cb0[0].x
mov r0.z, cb0[0].x
mov r1.x, l(0)
uge r0.y, vThreadIDInGroupFlattened.x, r0.x
if_nz r0.y
  iadd r0.w, vThreadIDInGroupFlattened.x, -{index}
  ld_structured r1.x, r0.w, l(0), g0.xxxx
endif
ishl r2.x, vThreadIDInGroupFlattened.x, l(2)
store_raw u0.x, r2.x, r1.x
ret
"
        )
    };
    let compares = |t: &str| {
        let p = parse(t);
        let options = CompileOptions::tier(Tier::One);
        let (_, dump) = JitShader::compile_dump_with(&p, &options).expect("compile");
        dump.clif.lines().filter(|l| l.contains(" = icmp")).count()
    };
    let floored = compares(&text("r0.x"));
    let plain = compares(&text("r0.z"));
    assert!(
        floored < plain,
        "{floored} compares with the floor, {plain} without"
    );
    for u in [0u32, 1, 7, 8, 9, 63, 64, 1000] {
        for t in [text("r0.x"), text("r0.z")] {
            let out = diff(
                &t,
                [1, 1, 1],
                &[cb(0, &[u, 0, 0, 0]), uav(0, raw(64), &[7; 64])],
            );
            for f in 0..64u32 {
                let want = f.saturating_sub(u);
                assert_eq!(out[0][f as usize], want, "u {u} thread {f}\n{t}");
            }
        }
    }
}

#[test]
fn constant_buffers_icb_and_indexable_temps() {
    let text = "cs_5_0
dcl_constantbuffer CB0[4], dynamicIndexed
dcl_immediateConstantBuffer { { 1, 2, 3, 4 },
                              { 5, 6, 7, 8 },
                              { 9, 10, 11, 12 } }
dcl_uav_raw u0
dcl_input vThreadID.x
dcl_temps 4
dcl_indexableTemp x0[6], 4
dcl_thread_group 8, 1, 1
mov r0.x, vThreadID.x
mov r1.xyzw, cb0[r0.x + 0].xyzw
mov r2.xyzw, icb[r0.x + 0].wzyx
mov x0[1].xyzw, l(1, 2, 3, 4)
mov x0[r0.x + 0].xy, r0.xxxx
iadd r0.y, r0.x, l(-2)
mov r3.xyzw, x0[r0.y + 0].xyzw
mov r3.w, x0[1].y
ishl r0.z, r0.x, l(6)
store_raw u0.xyzw, r0.z, r1.xyzw
iadd r0.z, r0.z, l(16)
store_raw u0.xyzw, r0.z, r2.xyzw
iadd r0.z, r0.z, l(16)
store_raw u0.xyzw, r0.z, r3.xyzw
iadd r0.z, r0.z, l(16)
store_raw u0.xyzw, r0.z, cb0[2].zwxy
ret
";
    let cbw: Vec<u32> = (0..14).map(|i| 0xC0 + i).collect();
    let out = diff(text, [1, 1, 1], &[cb(0, &cbw), uav(0, raw(128), &[0; 128])]);
    // Thread 3: cb row 3 is cut at 14 words → two words, then zeros.
    assert_eq!(&out[0][48..52], &[0xCC, 0xCD, 0, 0]);
    // Thread 2: icb row 2 reversed.
    assert_eq!(&out[0][36..40], &[12, 11, 10, 9]);
    // Thread 0: x0[-2] is out of range → 0, and x0[1].y = 2 (thread 1
    // did not write this thread's copy).
    assert_eq!(&out[0][8..12], &[0, 0, 0, 2]);
}

#[test]
fn literal_cb_reads_past_a_short_binding_read_zero() {
    // The literal reads reach DWORD 15 of cb0, which is bound with 6
    // bytes (one whole DWORD), so the JIT reads it from a zero-padded
    // copy, and the dynamic reads (through the padded window) agree with
    // the interpreter's bounds checks.
    let text = "cs_5_0
dcl_constantbuffer CB0[4], dynamicIndexed
dcl_uav_raw u0
dcl_input vThreadID.x
dcl_temps 3
dcl_thread_group 8, 1, 1
mov r0.x, cb0[0].x
mov r0.y, cb0[0].y
mov r0.z, cb0[3].w
mov r0.w, cb0[1].x
ishl r1.x, vThreadID.x, l(5)
store_raw u0.xyzw, r1.x, r0.xyzw
and r1.y, vThreadID.x, l(3)
mov r2.xyzw, cb0[r1.y + 0].xyzw
iadd r1.x, r1.x, l(16)
store_raw u0.xyzw, r1.x, r2.xyzw
ret
";
    let mut short = cb(0, &[0xC0DE, 0xBEEF]);
    short.data.truncate(6);
    let out = diff(text, [1, 1, 1], &[short, uav(0, raw(64), &[7; 64])]);
    for t in 0..8 {
        assert_eq!(&out[0][t * 8..t * 8 + 4], &[0xC0DE, 0, 0, 0], "thread {t}");
        let row0 = if t % 4 == 0 { 0xC0DE } else { 0 };
        assert_eq!(
            &out[0][t * 8 + 4..t * 8 + 8],
            &[row0, 0, 0, 0],
            "thread {t}"
        );
    }
}

#[test]
fn atomics_and_counters_in_lane_order() {
    let text = "cs_5_0
dcl_uav_raw u0
dcl_uav_structured u1, 4
dcl_uav_raw u2
dcl_uav_structured u3, 4
dcl_input vThreadID.x
dcl_input vThreadIDInGroupFlattened
dcl_temps 4
dcl_thread_group 60, 1, 1
imm_atomic_iadd r0.x, u0, l(0), vThreadID.x
atomic_umax u0, l(4), vThreadID.x
atomic_imin u0, l(8), vThreadID.x
atomic_or u0, l(12), vThreadID.x
and r1.x, vThreadID.x, l(3)
imm_atomic_cmp_exch r0.y, u0, l(16), r1.x, vThreadID.x
imm_atomic_exch r0.z, u0, l(20), vThreadID.x
imm_atomic_alloc r0.w, u1
atomic_iadd u0, l(4000), l(1)
and r1.y, vThreadIDInGroupFlattened.x, l(1)
if_nz r1.y
  imm_atomic_consume r1.z, u3
  ishl r1.w, vThreadID.x, l(2)
  iadd r1.w, r1.w, l(960)
  store_raw u2.x, r1.w, r1.z
endif
ishl r2.x, vThreadID.x, l(4)
store_raw u2.xyzw, r2.x, r0.xyzw
ret
";
    // One group of 60 threads: the values the atomics and counters return
    // follow thread order, which is fixed inside a group (lane order,
    // batch by batch) and free between groups on several workers.
    let out = diff(
        text,
        [1, 1, 1],
        &[
            uav(0, raw(8), &[0, 0, 0xFFFF_FFFF, 0, 0, 0, 0, 0]),
            Res {
                counter: Some(5),
                ..uav(1, structured(4, 0, 4), &[0; 4])
            },
            uav(2, raw(320), &[0; 320]),
            Res {
                counter: Some(100),
                ..uav(3, structured(4, 0, 4), &[0; 4])
            },
        ],
    );
    assert_eq!(out[0][0], (0..60).sum::<u32>());
    assert_eq!(out[0][1], 59);
}

const TGSM_LOOP: &str = "cs_5_0
dcl_uav_raw u0
dcl_tgsm_raw g0, 256
dcl_tgsm_structured g1, 8, 32
dcl_input vThreadIDInGroupFlattened
dcl_input vThreadID.x
dcl_temps 4
dcl_thread_group 32, 1, 1
ishl r0.x, vThreadIDInGroupFlattened.x, l(2)
store_raw g0.x, r0.x, vThreadIDInGroupFlattened.x
store_structured g1.xy, vThreadIDInGroupFlattened.x, l(0), l(0, 0, 0, 0)
mov r1.x, l(0)
mov r2.x, l(0)
loop
  uge r1.y, r1.x, l(5)
  breakc_nz r1.y
  sync_g_t
  iadd r1.z, vThreadIDInGroupFlattened.x, r1.x
  iadd r1.z, r1.z, l(1)
  and r1.z, r1.z, l(31)
  ishl r1.w, r1.z, l(2)
  ld_raw r3.x, r1.w, g0.xxxx
  iadd r2.x, r2.x, r3.x
  sync_g_t
  store_raw g0.x, r0.x, r2.x
  atomic_iadd g1, l(3, 4, 0, 0), l(1)
  iadd r1.x, r1.x, l(1)
endloop
sync_g_t
ld_structured r2.y, l(3), l(4), g1.xxxx
ishl r0.y, vThreadID.x, l(3)
store_raw u0.xy, r0.y, r2.xyxx
ret
";

#[test]
fn tgsm_and_barriers_inside_a_loop() {
    let text = TGSM_LOOP;
    diff(text, [2, 1, 1], &[uav(0, raw(128), &[0; 128])]);
}

/// A wave whose lanes have all left a barrier loop does not wait at the
/// loop's barrier: it runs on to the end before the next wave goes on
/// (docs/semantics.md, wave order), so wave 0 reads its own last store
/// (7) and wave 1, which stays one iteration longer, reads 15. The
/// per-thread trip count keeps the loop masked on both tiers.
#[test]
fn a_wave_that_left_a_barrier_loop_runs_on_without_waiting() {
    let text = "cs_5_0
dcl_uav_raw u0
dcl_input vThreadIDInGroupFlattened
dcl_temps 3
dcl_tgsm_structured g0, 4, 1
dcl_thread_group 16, 1, 1
ushr r0.x, vThreadIDInGroupFlattened.x, l(3)
iadd r0.x, r0.x, l(1)
mov r0.y, l(0)
loop
  uge r0.z, r0.y, r0.x
  breakc_nz r0.z
  iadd r0.y, r0.y, l(1)
  sync_g_t
  store_structured g0.x, l(0), l(0), vThreadIDInGroupFlattened.x
endloop
ld_structured r1.x, l(0), l(0), g0.xxxx
ishl r2.x, vThreadIDInGroupFlattened.x, l(2)
store_raw u0.x, r2.x, r1.x
ret
";
    let out = diff(text, [1, 1, 1], &[uav(0, raw(16), &[0; 16])]);
    assert_eq!(out[0][..8], [7; 8]);
    assert_eq!(out[0][8..], [15; 8]);
}

/// Barrier programs whose control is the same in every thread of the
/// group run it once per group and each stretch between barriers batch by
/// batch (`jit/group.rs`); the interpreter's bits either way.
#[test]
fn group_level_barrier_programs_give_the_interpreters_bits() {
    // A halving tree whose start comes from cb0, in a 36-thread group
    // (the last batch half empty).
    let tree = "cs_5_0
dcl_constantbuffer cb0[1], immediateIndexed
dcl_uav_raw u0
dcl_input vThreadGroupID.x
dcl_input vThreadIDInGroupFlattened
dcl_temps 3
dcl_tgsm_structured g0, 4, 64
dcl_thread_group 36, 1, 1
imad r0.x, vThreadGroupID.x, l(7), vThreadIDInGroupFlattened.x
store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), r0.x
sync_g_t
mov r0.y, cb0[0].x
loop
  ieq r0.z, r0.y, l(0)
  breakc_nz r0.z
  ult r0.z, vThreadIDInGroupFlattened.x, r0.y
  if_nz r0.z
    iadd r0.w, vThreadIDInGroupFlattened.x, r0.y
    ld_structured r1.x, vThreadIDInGroupFlattened.x, l(0), g0.xxxx
    ld_structured r1.y, r0.w, l(0), g0.xxxx
    iadd r1.x, r1.x, r1.y
    store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), r1.x
  endif
  sync_g_t
  ushr r0.y, r0.y, l(1)
endloop
ld_structured r1.x, vThreadIDInGroupFlattened.x, l(0), g0.xxxx
imad r2.x, vThreadGroupID.x, l(36), vThreadIDInGroupFlattened.x
ishl r2.x, r2.x, l(2)
store_raw u0.x, r2.x, r1.x
ret
";
    // Nested group loops (the inner trip count from the group id), a
    // per-thread accumulator set to the group's zero before the loops, a
    // loop and a divergent `if` without barriers inside the regions, and
    // two barriers per iteration.
    let nested = "cs_5_0
dcl_uav_raw u0
dcl_input vThreadGroupID.x
dcl_input vThreadIDInGroupFlattened
dcl_input vThreadID.x
dcl_temps 4
dcl_tgsm_raw g0, 128
dcl_thread_group 32, 1, 1
ishl r3.x, vThreadIDInGroupFlattened.x, l(2)
store_raw g0.x, r3.x, vThreadID.x
mov r1.x, l(0)
mov r0.x, l(0)
loop
  uge r0.y, r0.x, l(3)
  breakc_nz r0.y
  iadd r0.z, vThreadGroupID.x, l(1)
  loop
    ieq r0.w, r0.z, l(0)
    breakc_nz r0.w
    sync_g_t
    iadd r2.x, vThreadIDInGroupFlattened.x, r0.z
    and r2.x, r2.x, l(31)
    ishl r2.x, r2.x, l(2)
    ld_raw r2.y, r2.x, g0.xxxx
    mov r2.z, l(0)
    loop
      uge r2.w, r2.z, vThreadIDInGroupFlattened.x
      breakc_nz r2.w
      iadd r1.x, r1.x, r2.z
      iadd r2.z, r2.z, l(5)
    endloop
    and r2.w, vThreadIDInGroupFlattened.x, l(1)
    if_nz r2.w
      iadd r1.x, r1.x, r2.y
    else
      xor r1.x, r1.x, r2.y
    endif
    sync_g_t
    store_raw g0.x, r3.x, r1.x
    iadd r0.z, r0.z, l(-1)
  endloop
  iadd r0.x, r0.x, l(1)
endloop
ishl r3.y, vThreadID.x, l(2)
store_raw u0.x, r3.y, r1.x
ret
";
    // Scan steps: a read, a barrier, a write and a barrier per step.
    let scan = "cs_5_0
dcl_resource_raw t0
dcl_uav_raw u0
dcl_input vThreadIDInGroupFlattened
dcl_input vThreadID.x
dcl_temps 2
dcl_tgsm_structured g0, 4, 64
dcl_thread_group 64, 1, 1
ishl r0.x, vThreadID.x, l(2)
ld_raw r0.y, r0.x, t0.xxxx
store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), r0.y
sync_g_t
mov r0.z, l(1)
loop
  uge r0.w, r0.z, l(64)
  breakc_nz r0.w
  uge r0.w, vThreadIDInGroupFlattened.x, r0.z
  if_nz r0.w
    iadd r1.x, vThreadIDInGroupFlattened.x, -r0.z
    ld_structured r1.x, r1.x, l(0), g0.xxxx
    iadd r0.y, r0.y, r1.x
  endif
  sync_g_t
  store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), r0.y
  sync_g_t
  ishl r0.z, r0.z, l(1)
endloop
store_raw u0.x, r0.x, r0.y
ret
";
    // Code after a plain `break` never runs: its (unmasked) scalar must
    // not reach the loop's exit, where the group scalar feeds the store.
    let dead = "cs_5_0
dcl_uav_raw u0
dcl_input vThreadIDInGroupFlattened
dcl_temps 2
dcl_thread_group 8, 1, 1
loop
  break
  mov r1.y, l(0x807fffff)
endloop
sync_g_t
ishl r0.x, vThreadIDInGroupFlattened.x, l(2)
iadd r1.x, r1.y, l(7)
store_raw u0.x, r0.x, r1.x
ret
";
    let input: Vec<u32> = (0..192u32)
        .map(|i| i.wrapping_mul(2_654_435_761) >> 7)
        .collect();
    let cases: [(&str, [u32; 3], Vec<Res>); 5] = [
        (dead, [1, 1, 1], vec![uav(0, raw(8), &[0; 8])]),
        (
            tree,
            [3, 1, 1],
            vec![cb(0, &[32, 0, 0, 0]), uav(0, raw(108), &[0; 108])],
        ),
        (
            tree,
            [2, 1, 1],
            vec![cb(0, &[5, 0, 0, 0]), uav(0, raw(108), &[0; 108])],
        ),
        (nested, [3, 1, 1], vec![uav(0, raw(96), &[0; 96])]),
        (
            scan,
            [3, 1, 1],
            vec![srv(0, raw(192), &input), uav(0, raw(192), &[0; 192])],
        ),
    ];
    for (text, groups, res) in cases {
        assert!(
            sm5jit::jit::runs_group_level(&parse(text)),
            "runs at group level:\n{text}"
        );
        let out = diff(text, groups, &res);
        assert!(out.iter().flatten().any(|&w| w != 0), "writes something");
    }
    // The resume scheme's own shape (the accumulator of this test is
    // per-thread, set to the group's zero before the loop) now also runs
    // at group level.
    assert!(sm5jit::jit::runs_group_level(&parse(TGSM_LOOP)));
}

/// A group-level region that is one `if` on the flat thread id against a
/// group-uniform bound runs only the batches holding a thread it admits
/// (`jit/span.rs`): every relation, signed and unsigned, with bounds
/// below 0, past the group and past 2^31, in a group of 44 threads (the
/// last batch half empty); the interpreter's bits.
#[test]
fn regions_skip_the_batches_their_thread_test_leaves_out() {
    // 44 threads end in a part batch, where no `if` is split; 48, 56 and
    // 64 are 6, 7 and 8 whole batches, where a prefix or suffix span runs
    // the batches inside it on the full-mask path alone (in pairs where
    // the region pairs, which needs an even count).
    for threads in [44u32, 48, 56, 64] {
        regions_skip_batches_at(threads);
    }
}

fn regions_skip_batches_at(n: u32) {
    let text = format!(
        "cs_5_0
dcl_constantbuffer cb0[1], immediateIndexed
dcl_uav_raw u0
dcl_input vThreadGroupID.x
dcl_input vThreadIDInGroupFlattened
dcl_temps 4
dcl_tgsm_structured g0, 4, {n}
dcl_thread_group {n}, 1, 1
imad r3.x, vThreadGroupID.x, l(1000), vThreadIDInGroupFlattened.x
store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), r3.x
mov r2.x, vThreadIDInGroupFlattened.x
sync_g_t
mov r0.x, l(0)
loop
  uge r0.y, r0.x, l(4)
  breakc_nz r0.y
  imad r0.z, r0.x, l(9), cb0[0].x
  ult r1.x, vThreadIDInGroupFlattened.x, r0.z
  if_nz r1.x
    ld_structured r1.y, vThreadIDInGroupFlattened.x, l(0), g0.xxxx
    iadd r1.y, r1.y, l(1)
    store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), r1.y
  endif
  sync_g_t
  ilt r1.x, r0.z, vThreadIDInGroupFlattened.x
  if_nz r1.x
    ld_structured r1.y, vThreadIDInGroupFlattened.x, l(0), g0.xxxx
    iadd r1.y, r1.y, l(100)
    store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), r1.y
  endif
  sync_g_t
  ige r1.x, cb0[0].y, vThreadIDInGroupFlattened.x
  if_z r1.x
    ld_structured r1.y, vThreadIDInGroupFlattened.x, l(0), g0.xxxx
    iadd r1.y, r1.y, l(10000)
    store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), r1.y
  endif
  sync_g_t
  ieq r1.x, vThreadIDInGroupFlattened.x, r0.z
  if_nz r1.x
    iadd r2.x, r2.x, l(0x100000)
  endif
  sync_g_t
  ult r1.x, vThreadIDInGroupFlattened.x, cb0[0].z
  if_z r1.x
    iadd r2.x, r2.x, l(0x1000000)
  endif
  sync_g_t
  iadd r0.x, r0.x, l(1)
endloop
if_z vThreadIDInGroupFlattened.x
  store_structured g0.x, l({last}), l(0), r2.x
endif
sync_g_t
ld_structured r1.y, vThreadIDInGroupFlattened.x, l(0), g0.xxxx
imad r3.y, vThreadGroupID.x, l({n}), vThreadIDInGroupFlattened.x
ishl r3.y, r3.y, l(3)
store_raw u0.xy, r3.y, r1.y
iadd r3.y, r3.y, l(4)
store_raw u0.x, r3.y, r2.x
ret
",
        last = n - 1
    );
    let text = text.as_str();
    assert!(sm5jit::jit::runs_group_level(&parse(text)));
    let bounds: [[u32; 4]; 10] = [
        [5, 20, 30, 0],
        [0, 0, 0, 0],
        [0xFFFF_FFF0, 0xFFFF_FFFF, n, 0],
        [n - 4, 0x7FFF_FFFF, 0xFFFF_FFFF, 0],
        [0x8000_0000, n - 1, 8, 0],
        [0xFFFF_FFFE, 0x8000_0000, n - 1, 0],
        // Bounds at the last thread of a batch and the first of the next.
        [7, 15, 23, 0],
        [8, 23, 16, 0],
        // Spans that end or start on a pair boundary, and one batch short.
        [16, 31, 32, 0],
        [n - 8, n - 9, n - 16, 0],
    ];
    let words = 4 * u64::from(n);
    for b in bounds {
        let out = diff(
            text,
            [2, 1, 1],
            &[cb(0, &b), uav(0, raw(words), &vec![0; words as usize])],
        );
        assert!(
            out.iter().flatten().any(|&w| w != 0),
            "writes something at {n} threads"
        );
    }
}

/// A prefix span is peeled into two batch loops only where its region's
/// `if` is lowered as a split (`peeled_region`, `src/jit/group.rs`): in a
/// group that ends in a part batch no `if` splits, so `tid < s` keeps the
/// one loop an equality span (never peeled) has, and its generated code
/// has exactly as many blocks and stores (before that check it had a
/// second loop). In a group of whole batches the two split differently
/// (the peeled prefix's inside batches have a path of their own, with a
/// plain store where the split code blends its g# store), and the
/// counts differ, which shows the count sees the paths. Results are
/// `regions_skip_the_batches_their_thread_test_leaves_out`'s to check.
#[test]
fn spans_are_peeled_only_where_their_if_splits() {
    let text = |n: u32, cmp: &str| {
        format!(
            "cs_5_0
dcl_constantbuffer cb0[1], immediateIndexed
dcl_uav_raw u0
dcl_input vThreadIDInGroupFlattened
dcl_temps 2
dcl_tgsm_structured g0, 4, {n}
dcl_thread_group {n}, 1, 1
store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), vThreadIDInGroupFlattened.x
sync_g_t
{cmp} r1.x, vThreadIDInGroupFlattened.x, cb0[0].x
if_nz r1.x
  ld_structured r1.y, vThreadIDInGroupFlattened.x, l(0), g0.xxxx
  iadd r1.y, r1.y, l(100)
  store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), r1.y
endif
sync_g_t
ld_structured r1.y, vThreadIDInGroupFlattened.x, l(0), g0.xxxx
ishl r0.x, vThreadIDInGroupFlattened.x, l(2)
store_raw u0.x, r0.x, r1.y
ret
"
        )
    };
    let blocks = |t: &str| {
        let p = parse(t);
        assert!(sm5jit::jit::runs_group_level(&p));
        let options = CompileOptions::tier(Tier::One);
        let (_, dump) = JitShader::compile_dump_with(&p, &options).expect("compile");
        let lines = || dump.clif.lines();
        let blocks = lines()
            .filter(|l| l.starts_with("block") && l.trim_end().ends_with(':'))
            .count();
        let stores = lines().filter(|l| l.contains(" store ")).count();
        (blocks, stores)
    };
    let (prefix, equal) = (blocks(&text(44, "ult")), blocks(&text(44, "ieq")));
    assert_eq!(
        prefix, equal,
        "44 threads: {prefix:?} (blocks, stores) against {equal:?}"
    );
    let (prefix, equal) = (blocks(&text(48, "ult")), blocks(&text(48, "ieq")));
    assert_ne!(prefix, equal, "48 threads: the count sees the paths");
}

/// Short TGSM-only regions in groups of an even number of batches run
/// their batches in pairs (`pairs_region`, `src/jit/group.rs`), with an
/// odd span's first batch alone: an inclusive scan (`if (tid >= off)
/// x += s[tid - off]`, whose spans start at every batch) and a halving
/// sum (`if (tid < s)`, spans of 1 to all batches, odd and even), in
/// groups of 16 to 128 threads and one of 40 (5 batches: no pairs); every
/// thread's words are checked against the sums computed here.
#[test]
fn paired_batches_scan_and_sum_every_group_size() {
    for threads in [16u32, 40, 48, 64, 128] {
        let text = format!(
            "cs_5_0
dcl_uav_raw u0
dcl_input vThreadGroupID.x
dcl_input vThreadIDInGroupFlattened
dcl_temps 3
dcl_tgsm_structured g0, 4, {threads}
dcl_tgsm_structured g1, 4, {threads}
dcl_thread_group {threads}, 1, 1
imad r2.x, vThreadGroupID.x, l({threads}), vThreadIDInGroupFlattened.x
imad r0.y, r2.x, l(2654435761), l(12345)
ushr r0.y, r0.y, l(20)
store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), r0.y
store_structured g1.x, vThreadIDInGroupFlattened.x, l(0), r0.y
sync_g_t
mov r0.z, l(1)
loop
  uge r0.w, r0.z, l({threads})
  breakc_nz r0.w
  uge r0.w, vThreadIDInGroupFlattened.x, r0.z
  if_nz r0.w
    iadd r1.x, vThreadIDInGroupFlattened.x, -r0.z
    ld_structured r1.x, r1.x, l(0), g0.xxxx
    iadd r0.y, r0.y, r1.x
  endif
  sync_g_t
  store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), r0.y
  sync_g_t
  ishl r0.z, r0.z, l(1)
endloop
mov r0.z, l({half})
loop
  ieq r0.w, r0.z, l(0)
  breakc_nz r0.w
  ult r0.w, vThreadIDInGroupFlattened.x, r0.z
  if_nz r0.w
    iadd r1.y, vThreadIDInGroupFlattened.x, r0.z
    ld_structured r1.y, r1.y, l(0), g1.xxxx
    ld_structured r1.z, vThreadIDInGroupFlattened.x, l(0), g1.xxxx
    iadd r1.z, r1.z, r1.y
    store_structured g1.x, vThreadIDInGroupFlattened.x, l(0), r1.z
  endif
  sync_g_t
  ushr r0.z, r0.z, l(1)
endloop
ld_structured r1.w, l(0), l(0), g1.xxxx
ishl r2.x, r2.x, l(3)
store_raw u0.x, r2.x, r0.y
iadd r2.x, r2.x, l(4)
store_raw u0.x, r2.x, r1.w
ret
",
            half = threads / 2
        );
        let groups = 3u32;
        let n = (groups * threads) as usize;
        let out = diff(
            &text,
            [groups, 1, 1],
            &[uav(0, raw(2 * n as u64), &vec![0; 2 * n])],
        );
        let value = |t: u32| t.wrapping_mul(2654435761).wrapping_add(12345) >> 20;
        for g in 0..groups {
            let base = g * threads;
            let words: Vec<u32> = (0..threads).map(|i| value(base + i)).collect();
            // The halving sum over a power-of-two prefix (40: 20, 10, 5, 2,
            // 1 leave some words out, as the shader does).
            let mut s = words.clone();
            let mut h = threads / 2;
            while h > 0 {
                for i in 0..h as usize {
                    s[i] = s[i].wrapping_add(s[i + h as usize]);
                }
                h /= 2;
            }
            let mut prefix = 0u32;
            for i in 0..threads {
                prefix = prefix.wrapping_add(words[i as usize]);
                let t = ((base + i) * 2) as usize;
                assert_eq!(
                    out[0][t], prefix,
                    "scan, {threads} threads, group {g} thread {i}"
                );
                assert_eq!(
                    out[0][t + 1],
                    s[0],
                    "sum, {threads} threads, group {g} thread {i}"
                );
            }
        }
    }
}

/// Pairs happen where the rule says: a short TGSM-only region's code
/// is lowered twice in its batch loop in a group of 4 batches, once in a
/// group of 3.
#[test]
fn a_short_region_runs_its_batches_in_pairs() {
    let text = "cs_5_0
dcl_uav_raw u0
dcl_input vThreadIDInGroupFlattened
dcl_temps 2
dcl_tgsm_structured g0, 4, 32
dcl_thread_group 32, 1, 1
store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), vThreadIDInGroupFlattened.x
sync_g_t
ld_structured r0.x, vThreadIDInGroupFlattened.x, l(0), g0.xxxx
iadd r0.x, r0.x, l(12345)
sync_g_t
ishl r1.x, vThreadIDInGroupFlattened.x, l(2)
store_raw u0.x, r1.x, r0.x
ret
";
    let count = |t: &str| {
        assert!(sm5jit::jit::runs_group_level(&parse(t)));
        literal_adds(t)
    };
    assert_eq!(count(text), 4);
    assert_eq!(count(&text.replace("32, 1, 1", "24, 1, 1")), 2);
    for size in ["32, 1, 1", "24, 1, 1"] {
        let t = text.replace("32, 1, 1", size);
        let out = diff(&t, [2, 1, 1], &[uav(0, raw(32), &[0; 32])]);
        let threads = if size.starts_with("32") { 32 } else { 24 };
        for i in 0..threads {
            assert_eq!(out[0][i as usize], i + 12345, "{size} thread {i}");
        }
    }
}

/// A group loop that never ends stops on the budget at its `endloop`, as
/// the resume scheme's loops do.
#[test]
fn a_runaway_group_loop_stops_with_budget_error() {
    let program = parse(
        "cs_5_0
dcl_uav_raw u0
dcl_temps 1
dcl_tgsm_raw g0, 64
dcl_thread_group 16, 1, 1
loop
  sync_g_t
endloop
ret
",
    );
    assert!(sm5jit::jit::runs_group_level(&program));
    let options = CompileOptions {
        cache: false,
        ..CompileOptions::tier(Tier::One)
    };
    let jit = JitShader::compile_with(&program, &options).expect("compile");
    let mut res = [uav(0, raw(4), &[0; 4])];
    let o = DispatchOptions { budget: 10_000 };
    let err = with_bound(&mut res, |b| {
        jit.dispatch_threads(b, [2, 1, 1], &o, 1).map(|_| ())
    })
    .unwrap_err();
    assert!(
        matches!(
            err,
            RuntimeError::BudgetExhausted {
                group: [0, 0, 0],
                inst_index: 2,
            }
        ),
        "{err:?}"
    );
}

/// A dispatch that stopped on the budget, every worker inside the loop
/// between barriers, keeps no spare worker; the next dispatch of the same
/// shader, with budget enough, gives the interpreter's bits.
#[test]
fn a_dispatch_after_a_budget_error_gives_the_interpreters_bits() {
    let text = "cs_5_0
dcl_constantbuffer CB0[1], immediateIndexed
dcl_uav_raw u0
dcl_input vThreadIDInGroupFlattened
dcl_input vThreadGroupID.x
dcl_temps 3
dcl_tgsm_structured g0, 4, 32
dcl_thread_group 32, 1, 1
ld_structured r0.x, vThreadIDInGroupFlattened.x, l(0), g0.xxxx
mov r1.x, l(0)
loop
  uge r2.x, r1.x, cb0[0].x
  breakc_nz r2.x
  iadd r0.x, r0.x, l(1)
  store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), r0.x
  sync_g_t
  xor r2.y, vThreadIDInGroupFlattened.x, l(1)
  ld_structured r0.x, r2.y, l(0), g0.xxxx
  sync_g_t
  iadd r1.x, r1.x, l(1)
endloop
imad r2.z, vThreadGroupID.x, l(32), vThreadIDInGroupFlattened.x
ishl r2.z, r2.z, l(2)
store_raw u0.x, r2.z, r0.x
ret
";
    let program = parse(text);
    let options = CompileOptions {
        cache: false,
        ..CompileOptions::tier(Tier::One)
    };
    let jit = JitShader::compile_with(&program, &options).expect("compile");
    let interp = Interpreter::new(&program).expect("prepare");
    let groups = [8, 1, 1];
    let make = |n: u32| vec![cb(0, &[n, 0, 0, 0]), uav(0, raw(256), &[0; 256])];
    for threads in [1, 2] {
        // Thousands of iterations on a budget of a few hundred: every
        // worker stops inside the loop, between barriers.
        let mut res = make(5000);
        let err = with_bound(&mut res, |b| {
            jit.dispatch_threads(b, groups, &DispatchOptions { budget: 300 }, threads)
                .map(|_| ())
        })
        .unwrap_err();
        assert!(
            matches!(err, RuntimeError::BudgetExhausted { .. }),
            "{err:?}"
        );
        let o = DispatchOptions::default();
        let mut a = make(7);
        let want = with_bound(&mut a, |b| interp.dispatch(b, groups, &o).map(|_| ())).unwrap();
        let mut j = make(7);
        let got = with_bound(&mut j, |b| {
            jit.dispatch_threads(b, groups, &o, threads).map(|_| ())
        })
        .unwrap();
        assert_eq!(
            to_words(&got[0].0),
            to_words(&want[0].0),
            "{threads} workers"
        );
        // Seven rounds of +1 then a swap with the neighbour: 7 each.
        assert!(to_words(&want[0].0).iter().all(|&v| v == 7));
    }
}

#[test]
fn unsupported_instructions_fail_compilation_with_their_index() {
    let program = parse(
        "ps_5_0
dcl_input_ps linear v0.xy
dcl_output o0.xyzw
dcl_temps 1
mov r0.x, l(0.5)
eval_centroid r0.xy, v0.xyxx
mov o0.xyzw, r0.xyxy
ret
",
    );
    match JitShader::compile(&program) {
        Err(JitError::Unsupported { inst_index, .. }) => assert_eq!(inst_index, 1),
        other => panic!("expected Unsupported, got {other:?}"),
    }
}

/// `abort` reached by an active lane stops the dispatch with the
/// interpreter's error naming the instruction; one in a branch no lane
/// takes does nothing, and `debug_break` is a no-op.
#[test]
fn abort_and_debug_break_behave_as_in_the_interpreter() {
    let text = |cond: &str| {
        format!(
            "cs_5_0
dcl_uav_raw u0
dcl_input vThreadID.x
dcl_temps 1
dcl_thread_group 8, 1, 1
ishl r0.x, vThreadID.x, l(2)
store_raw u0.x, r0.x, l(7)
debug_break
uge r0.x, vThreadID.x, l({cond})
if_nz r0.x
  abort
endif
ret
"
        )
    };
    // Thread 5 and up abort.
    let aborting = parse(&text("5"));
    let jit = JitShader::compile(&aborting).expect("abort compiles");
    let interp = Interpreter::new(&aborting).unwrap();
    let o = DispatchOptions::default();
    let mut a = vec![uav(0, raw(8), &[0; 8])];
    let want = with_bound(&mut a, |b| interp.dispatch(b, [1, 1, 1], &o).map(|_| ()));
    let mut j = vec![uav(0, raw(8), &[0; 8])];
    let got = with_bound(&mut j, |b| {
        jit.dispatch_threads(b, [1, 1, 1], &o, 1).map(|_| ())
    });
    let (want, got) = (want.unwrap_err(), got.unwrap_err());
    assert_eq!(want, got);
    assert!(got.to_string().contains("abort"), "{got}");
    // No thread reaches the abort: both run to the end, identical bytes.
    diff(&text("100"), [1, 1, 1], &[uav(0, raw(8), &[0; 8])]);
}

/// SM5.1 ranges indexed per lane: each thread reads T0[tid & 3] (t0, t1
/// bound; 2 and 3 are outside T0[0:1]) and CB0[1 + (tid >> 2)], and
/// stores into U1[1 + (tid & 3)] (u1, u2 bound, u3 unbound, 4 outside).
#[test]
fn sm51_ranges_select_a_register_per_lane() {
    let text = "cs_5_1
dcl_constantbuffer CB0[1:2][1], dynamicIndexed, space=0
dcl_resource_raw T0[0:1], space=0
dcl_uav_raw U0[0:0], space=0
dcl_uav_raw U1[1:3], space=0
dcl_input vThreadID.x
dcl_temps 3
dcl_thread_group 8, 1, 1
and r0.x, vThreadID.x, l(3)
ld_raw r1.x, l(0), T0[r0.x + 0].xxxx
ushr r0.y, vThreadID.x, l(2)
mov r1.y, CB0[r0.y + 1][0].x
iadd r1.z, r1.x, r1.y
ishl r2.x, vThreadID.x, l(2)
store_raw U0[0].x, r2.x, r1.z
iadd r2.y, vThreadID.x, l(1)
store_raw U1[r0.x + 1].x, r2.x, r2.y
ret
";
    let out = diff(
        text,
        [1, 1, 1],
        &[
            uav(0, raw(8), &[0; 8]),
            uav(1, raw(8), &[0; 8]),
            uav(2, raw(8), &[0; 8]),
            srv(0, raw(1), &[10]),
            srv(1, raw(1), &[20]),
            cb(1, &[100, 0, 0, 0]),
            cb(2, &[200, 0, 0, 0]),
        ],
    );
    assert_eq!(out[0], [110, 120, 100, 100, 210, 220, 200, 200]);
    assert_eq!(out[1], [1, 0, 0, 0, 5, 0, 0, 0]);
    assert_eq!(out[2], [0, 2, 0, 0, 0, 6, 0, 0]);
}

#[test]
fn subroutines_with_divergent_calls_and_returns() {
    let text = "cs_5_0
dcl_uav_raw u0
dcl_input vThreadID.x
dcl_temps 5
dcl_thread_group 16, 1, 1
mov r1.xyzw, l(0, 0, 0, 0)
and r4.x, vThreadID.x, l(3)
call l1
callc_nz r4.x, l2
ishl r0.x, vThreadID.x, l(4)
store_raw u0.xyzw, r0.x, r1.xyzw
ret
label l1
iadd r1.x, r1.x, l(10)
ieq r4.y, r4.x, l(2)
retc_nz r4.y
iadd r1.y, r1.y, l(1)
call l2
ret
label l2
iadd r1.z, r1.z, l(5)
loop
  uge r4.z, r1.w, r4.x
  breakc_nz r4.z
  iadd r1.w, r1.w, l(1)
  ieq r4.w, r1.w, l(2)
  retc_nz r4.w
endloop
ret
";
    let out = diff(text, [1, 1, 1], &[uav(0, raw(64), &[0; 64])]).remove(0);
    // Thread 1: l1 (x += 10, y += 1, calls l2: z += 5, w → 1), then l2
    // again from callc (z += 5, w stays 1).
    assert_eq!(&out[4..8], &[10, 1, 10, 1]);
    // Thread 2 returns early from l1, then l2 runs its loop to w = 2.
    assert_eq!(&out[8..12], &[10, 0, 5, 2]);
}

#[test]
fn pixel_programs_compile_but_do_not_dispatch() {
    let program = parse("ps_5_0\ndcl_output o0.xyzw\nmov o0.xyzw, l(1, 2, 3, 4)\nret\n");
    let jit = JitShader::compile(&program).expect("pixel programs compile");
    let mut b = Bindings::new();
    assert!(matches!(
        jit.dispatch(&mut b, [1, 1, 1], &DispatchOptions::default()),
        Err(RuntimeError::InvalidProgram { reason, .. }) if reason.contains("ps_5_0")
    ));
}

#[test]
fn missing_binding_is_reported_like_the_interpreter() {
    let program = parse("cs_5_0\ndcl_uav_raw u3\ndcl_thread_group 1, 1, 1\nret\n");
    let jit = JitShader::compile(&program).expect("compile");
    let interp = Interpreter::new(&program).expect("prepare");
    let o = DispatchOptions::default();
    let mut b = Bindings::new();
    let a = interp.dispatch(&mut b, [1, 1, 1], &o).unwrap_err();
    let j = jit.dispatch(&mut b, [1, 1, 1], &o).unwrap_err();
    assert_eq!(a, j);
    let too_many = jit.dispatch(&mut b, [70000, 1, 1], &o).unwrap_err();
    assert!(matches!(too_many, RuntimeError::TooManyGroups { .. }));
}

#[test]
fn shaders_are_shared_across_threads_and_freed_on_drop() {
    let program = parse(
        "cs_5_0
dcl_uav_raw u0
dcl_input vThreadID.x
dcl_temps 1
dcl_thread_group 8, 1, 1
ishl r0.x, vThreadID.x, l(2)
store_raw u0.x, r0.x, vThreadID.x
ret
",
    );
    // Compiling and dropping many shaders must not accumulate code memory
    // (each drop calls free_memory); a clone used on another thread keeps
    // the code alive after the original is gone.
    for _ in 0..50 {
        drop(JitShader::compile(&program).expect("compile"));
    }
    let jit = JitShader::compile(&program).expect("compile");
    let clone = jit.clone();
    drop(jit);
    let words = std::thread::spawn(move || {
        let mut res = [uav(0, raw(16), &[0; 16])];
        let o = DispatchOptions::default();
        with_bound(&mut res, |b| clone.dispatch(b, [2, 1, 1], &o).map(|_| ())).unwrap();
        to_words(&res[0].data)
    })
    .join()
    .unwrap();
    assert_eq!(words, (0..16).collect::<Vec<u32>>());
}

/// Compiles every real-world corpus shader; reports how many compile and
/// the compile times. Asserts that the ones that compile are fast enough.
#[test]
fn realworld_shaders_compile_or_name_the_missing_instruction() {
    let root = crate::corpus_dir().join("realworld");
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("shader.dxbc").is_file())
        .collect();
    dirs.sort();
    let (mut ok, mut unsupported) = (0, 0);
    for dir in &dirs {
        let bytes = std::fs::read(dir.join("shader.dxbc")).expect("read");
        let shader = sm5jit::dxbc::read_dxbc(&bytes, &Default::default()).expect("decode");
        let n = shader.program.insts.len();
        if n > 1000 {
            // The four largest encoders take seconds in a debug build with
            // the verifier on; the release benchmark covers them.
            continue;
        }
        let t = std::time::Instant::now();
        let r = JitShader::compile(&shader.program);
        let ms = t.elapsed().as_secs_f64() * 1e3;
        match r {
            Ok(_) => {
                ok += 1;
                eprintln!("compiled {n:5} insts in {ms:8.2} ms  {}", dir.display());
            }
            Err(JitError::Unsupported { inst_index, opcode }) => {
                unsupported += 1;
                assert!(inst_index < n, "{}", dir.display());
                eprintln!("unsupported {opcode} at {inst_index}  {}", dir.display());
            }
            Err(e) => panic!("{}: {e}", dir.display()),
        }
    }
    eprintln!("realworld: {ok} compiled, {unsupported} unsupported");
    assert!(ok >= 15, "only {ok} compiled");
}

#[test]
fn typed_buffers_loads_stores_and_atomics() {
    let text = "cs_5_0
dcl_resource_buffer (float,float,float,float) t0
dcl_uav_typed_buffer (uint,uint,uint,uint) u0
dcl_uav_typed_buffer (float,float,float,float) u1
dcl_input vThreadID.x
dcl_temps 3
dcl_thread_group 16, 1, 1
imul null, r2.x, vThreadID.x, l(3)
ld r0.xyzw, r2.xxxx, t0.xyzw
store_uav_typed u1.xyzw, vThreadID.xxxx, r0.xyzw
imm_atomic_iadd r1.x, u0, l(0, 0, 0, 0), vThreadID.x
iadd r2.y, vThreadID.x, l(16)
imm_atomic_umax r1.y, u0, r2.yyyy, l(5)
iadd r2.z, vThreadID.x, l(30)
imm_atomic_cmp_exch r1.z, u0, r2.zzzz, l(0), vThreadID.x
ld_uav_typed r1.w, r2.yyyy, u0.yzwx
iadd r2.w, vThreadID.x, l(40)
store_uav_typed u0.xyzw, r2.wwww, r1.xyzw
ret
";
    // One group of 16 threads (two batches of 8): the atomics' returned
    // values and the cmp_exch at 30 + id (which meets the stores at 40 + id
    // and the umax at 16 + id) depend on the order in which threads run.
    // That order is fixed inside a group and free between groups, so two
    // groups on two workers could differ from the interpreter legitimately.
    // t0: R16G16_FLOAT, 10 texels (1.0, -2.0 pattern); reads past 10 give
    // the format's default (0, 0, 0, 1).
    let halves: Vec<u32> = (0..12).map(|i| 0xC000_3C00 + i).collect();
    let u0_init: Vec<u32> = (0..64).map(|i| i * 3).collect();
    let out = diff(
        text,
        [1, 1, 1],
        &[
            srv(0, typed(Format::R16G16Float, 1, 10), &halves),
            uav(0, typed(Format::R32Uint, 0, 48), &u0_init),
            uav(1, typed(Format::R32G32B32A32Float, 0, 16), &[0; 64]),
        ],
    );
    // Thread 5 reads texel 15 (out of bounds): default texel.
    assert_eq!(&out[1][20..24], &[0, 0, 0, 0x3F80_0000]);
    // Element 0 summed every thread id; element 47 (thread 7's store) is
    // inside the window, thread 8's (48) is not.
    assert_eq!(out[0][0], (0..16).sum::<u32>());
}

#[test]
fn out_of_range_loads_read_zero_in_every_component_the_format_has() {
    // FS §22.4.6: an out-of-range `ld` returns 0 in the components the
    // format has and the defaults (0, 0, 0, 1) only in those it lacks, so
    // RGBA8 reads (0, 0, 0, 0) and R32_FLOAT reads (0, 0, 0, 1.0). The
    // texture is read at (1, 1) in range and at (2, 0), (0, 5) and mip 1
    // out of range; the typed buffer at element 3 (past its 2).
    let text = "cs_4_0
dcl_resource_texture2d (float,float,float,float) t0
dcl_resource_buffer (float,float,float,float) t1
dcl_resource_texture2d (float,float,float,float) t2
dcl_uav_structured u0, 16
dcl_input vThreadIDInGroupFlattened
dcl_temps 2
dcl_thread_group 5, 1, 1
ult r0.x, vThreadIDInGroupFlattened.x, l(4)
if_nz r0.x
  ieq r1.xyzw, vThreadIDInGroupFlattened.xxxx, l(0, 1, 2, 3)
  movc r0.xy, r1.xxxx, l(1, 1, 0, 0), l(2, 0, 0, 0)
  movc r0.xy, r1.zzzz, l(0, 5, 0, 0), r0.xyxx
  movc r0.xy, r1.wwww, l(0, 0, 0, 0), r0.xyxx
  and r0.z, r1.w, l(1)
  mov r0.w, r0.z
  mov r0.z, l(0)
  ld r0.xyzw, r0.xyzw, t0.xyzw
else
  ld r0.xyzw, l(3, 0, 0, 0), t1.xyzw
  ld r1.xyzw, l(7, 0, 0, 0), t2.xyzw
  store_structured u0.xyzw, l(5), l(0), r1.xyzw
endif
store_structured u0.xyzw, vThreadIDInGroupFlattened.x, l(0), r0.xyzw
ret
";
    let texture = View::Texture(sm5jit::runtime::TextureView::tex2d(
        Format::R8G8B8A8Unorm,
        2,
        2,
    ));
    let r32 = View::Texture(sm5jit::runtime::TextureView::tex2d(Format::R32Float, 2, 2));
    let texels = [0x8040_20FF, 0x8040_20FF, 0x8040_20FF, 0xFF00_FF00];
    let out = diff(
        text,
        [1, 1, 1],
        &[
            srv(0, texture, &texels),
            srv(1, typed(Format::R8G8B8A8Unorm, 0, 2), &[0xFFFF_FFFF; 2]),
            srv(2, r32, &[0x3F00_0000; 4]),
            uav(0, structured(16, 0, 6), &[0xDEAD_BEEF; 24]),
        ],
    );
    let one = 1.0f32.to_bits();
    assert_eq!(&out[0][0..4], &[0, one, 0, one], "(1, 1) in range");
    for (k, what) in [
        (1, "x past the width"),
        (2, "y past the height"),
        (3, "mip 1 of 1"),
    ] {
        assert_eq!(&out[0][4 * k..4 * k + 4], &[0; 4], "{what}");
    }
    assert_eq!(
        &out[0][16..20],
        &[0; 4],
        "typed buffer element past the view"
    );
    assert_eq!(&out[0][20..24], &[0, 0, 0, one], "R32_FLOAT lacks G, B, A");
}

/// A deterministic word stream (xorshift) for synthetic inputs.
fn words(seed: u32, n: usize, f: impl Fn(u32) -> u32) -> Vec<u32> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            f(x)
        })
        .collect()
}

/// Synthetic bindings for every resource a prepared program declares:
/// floats in [0, 1) for float data, small integers otherwise.
fn synthetic_resources(p: &sm5jit::analysis::Prepared) -> Vec<Res> {
    use sm5jit::analysis::ResKind;
    use sm5jit::ir::{ResourceDim, ReturnType};
    use sm5jit::runtime::TextureView;
    let float = |x: u32| ((x >> 9) as f32 / (1 << 23) as f32).to_bits();
    let small = |x: u32| x % 17;
    let mut out = Vec::new();
    for (k, c) in p.cbs.iter().enumerate() {
        out.push(cb(c.lower, &words(7 + k as u32, 64, small)));
    }
    for (class, list) in [('t', &p.srvs), ('u', &p.uavs)] {
        for (k, d) in list.iter().enumerate() {
            let seed = 100 + k as u32 + if class == 'u' { 50 } else { 0 };
            let (view, data) = match d.kind {
                ResKind::Raw => (raw(1024), words(seed, 1024, small)),
                ResKind::Structured { stride } => (
                    structured(stride, 0, 256),
                    words(seed, 64 * stride as usize, float),
                ),
                ResKind::Typed { dim, ret } => {
                    let is_float = matches!(ret[0], ReturnType::Float | ReturnType::Unorm);
                    let fmt = if is_float {
                        Format::R32G32B32A32Float
                    } else {
                        Format::R32G32B32A32Uint
                    };
                    let f: fn(u32) -> u32 = if is_float {
                        |x| ((x >> 9) as f32 / (1 << 23) as f32).to_bits()
                    } else {
                        |x| x % 17
                    };
                    match dim {
                        ResourceDim::Buffer => (typed(fmt, 0, 256), words(seed, 1024, f)),
                        _ => (
                            View::Texture(TextureView::tex2d(fmt, 16, 16)),
                            words(seed, 1024, f),
                        ),
                    }
                }
            };
            out.push(Res {
                class,
                slot: d.lower,
                view,
                data: to_bytes(&data),
                counter: (class == 'u').then_some(3),
            });
        }
    }
    out
}

/// The real-world shaders (up to 700 instructions) compile and run on
/// synthetic inputs on both engines; every UAV byte must agree.
#[test]
fn realworld_shaders_agree_with_the_interpreter() {
    let root = crate::corpus_dir().join("realworld");
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("shader.dxbc").is_file())
        .collect();
    dirs.sort();
    let mut ran = 0;
    for dir in &dirs {
        let bytes = std::fs::read(dir.join("shader.dxbc")).expect("read");
        let shader = sm5jit::dxbc::read_dxbc(&bytes, &Default::default()).expect("decode");
        if shader.program.insts.len() > 700 {
            continue;
        }
        for tier in [Tier::Zero, Tier::One] {
            let options = CompileOptions {
                cache: false,
                ..CompileOptions::tier(tier)
            };
            let jit = JitShader::compile_with(&shader.program, &options)
                .unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
            // Data appended through an atomic counter lands in the order groups
            // finish: such a shader runs its groups on one worker, in order.
            let workers = if dir.ends_with("bgfx_cs_terrain_lod") {
                1
            } else {
                2
            };
            let interp = Interpreter::new(&shader.program).expect("prepare");
            let res = synthetic_resources(interp.prepared());
            let o = DispatchOptions::default();
            let mut a = res.clone();
            let want = with_bound(&mut a, |b| interp.dispatch(b, [2, 1, 1], &o).map(|_| ()));
            let mut j = res.clone();
            let got = with_bound(&mut j, |b| {
                jit.dispatch_threads(b, [2, 1, 1], &o, workers).map(|_| ())
            });
            match (want, got) {
                (Ok(w), Ok(g)) => {
                    for (k, (w, g)) in w.iter().zip(&g).enumerate() {
                        let (ww, gw) = (to_words(&w.0), to_words(&g.0));
                        let first = (0..ww.len()).find(|&i| ww[i] != gw[i]);
                        assert!(
                        first.is_none(),
                        "{}: UAV #{k} word {first:?}: interpreter {:#x?}, JIT {:#x?} ({tier:?})",
                        dir.display(),
                        first.map(|i| ww[i]),
                        first.map(|i| gw[i])
                    );
                        assert_eq!(w.1, g.1, "{}: counter", dir.display());
                    }
                    ran += 1;
                    eprintln!("agree ({tier:?}): {}", dir.display());
                }
                (Err(a), Err(b)) => {
                    eprintln!("both stopped: {a} / {b}  {}", dir.display());
                }
                // The JIT charges its budget per loop iteration, the
                // interpreter per instruction: near the limit one may stop
                // where the other finishes.
                (Err(RuntimeError::BudgetExhausted { .. }), Ok(_))
                | (Ok(_), Err(RuntimeError::BudgetExhausted { .. })) => {
                    eprintln!("budget differs: {}", dir.display());
                }
                (w, g) => panic!(
                    "{}: interpreter {:?} vs JIT {:?}",
                    dir.display(),
                    w.err(),
                    g.err()
                ),
            }
        }
    }
    eprintln!("realworld differential: {ran} shader-tier pairs agree");
    assert!(ran >= 20, "only {ran} ran");
}

/// A byte address built from a thread id (`ishl` by 2, plus a uniform
/// offset) before a barrier and a loop, read and stored after them: the
/// JIT knows its lanes are 4 bytes apart ("byte ids", `uniform.rs`) and
/// takes the contiguous path with no run-time shape test. Offsets that
/// wrap the 32-bit address and run past the buffers, loops of 0 to 3
/// steps and a store by some of the lanes only, against the rule and the
/// engines against each other.
const BYTE_IDS: &str = "cs_5_0
dcl_constantbuffer CB0[1], immediateIndexed
dcl_resource_raw t0
dcl_uav_raw u0
dcl_input vThreadID.x
dcl_input vThreadIDInGroupFlattened
dcl_temps 2
dcl_tgsm_raw g0, 4
dcl_thread_group 32, 1, 1
ishl r0.x, vThreadID.x, l(2)
iadd r0.x, r0.x, cb0[0].x
mov r0.z, l(0)
mov r0.w, l(0)
sync_g_t
loop
  uge r1.x, r0.w, cb0[0].y
  breakc_nz r1.x
  ld_raw r1.y, r0.x, t0.xxxx
  iadd r0.z, r0.z, r1.y
  iadd r0.x, r0.x, l(4)
  iadd r0.w, r0.w, l(1)
endloop
sync_g_t
ult r1.z, vThreadIDInGroupFlattened.x, cb0[0].z
if_nz r1.z
  store_raw u0.x, r0.x, r0.z
endif
ret
";

#[test]
fn byte_addresses_kept_across_barriers_and_loops_read_and_write_the_right_words() {
    let input: Vec<u32> = (0..72u32).map(|i| 0x100 + i * 3).collect();
    for off in [0u32, 8, 0xFFFF_FFF8, 0xFFFF_FF80, 4 * 40] {
        for steps in [0u32, 1, 3] {
            for writers in [0u32, 5, 32] {
                let out = diff(
                    BYTE_IDS,
                    [2, 1, 1],
                    &[
                        cb(0, &[off, steps, writers, 0]),
                        srv(0, raw(72), &input),
                        uav(0, raw(80), &[0xEEEE; 80]),
                    ],
                );
                let mut want = vec![0xEEEEu32; 80];
                for x in 0..64u32 {
                    let start = (4 * x).wrapping_add(off);
                    let word = |a: u32| input.get(a as usize / 4).copied().unwrap_or(0);
                    let sum = (0..steps).fold(0u32, |s, i| s.wrapping_add(word(start + 4 * i)));
                    let at = start.wrapping_add(4 * steps) as usize / 4;
                    if x % 32 < writers && at < want.len() {
                        want[at] = sum;
                    }
                }
                assert_eq!(
                    out[0], want,
                    "offset {off:#x}, {steps} steps, {writers} writers"
                );
            }
        }
    }
}

#[test]
fn byte_addresses_kept_across_a_barrier_need_no_shape_test() {
    let tests = |t: &str| {
        let options = CompileOptions::tier(Tier::One);
        let (_, dump) = JitShader::compile_dump_with(&parse(t), &options).expect("compile");
        dump.clif.matches("vall_true").count()
    };
    // The same addresses from a multiply, which the analysis does not follow.
    let multiplied = BYTE_IDS.replace(
        "ishl r0.x, vThreadID.x, l(2)",
        "imul null, r0.x, vThreadID.x, l(4)",
    );
    let (known, unknown) = (tests(BYTE_IDS), tests(&multiplied));
    assert!(known < unknown, "{known} shape tests against {unknown}");
}

/// The pretested loop (`src/jit/pretest.rs`): a program whose early
/// return and whole-batch buffer tests the group's entry decides from its
/// first and last batch. Buffers of every length around the batch and
/// group edges, bounds around them too, two-row groups (every id of a
/// row between the first batch's and the last's) and structured, raw
/// and two-component accesses: each thread's words are checked against
/// the rule (reads past a view's end give 0, writes there are dropped)
/// and the engines against each other, so a group the probe sends to
/// the pretested loop and one it sends to the ordinary loop both give
/// every batch its own result.
#[test]
fn tests_decided_for_the_whole_group_give_each_batch_its_own_result() {
    let text = "cs_5_0
dcl_constantbuffer CB0[1], immediateIndexed
dcl_resource_structured t0, 4
dcl_resource_raw t1
dcl_uav_structured u0, 4
dcl_uav_raw u1
dcl_input vThreadIDInGroup.y
dcl_input vThreadID.x
dcl_temps 2
dcl_thread_group 16, 2, 1
uge r0.x, vThreadID.x, cb0[0].x
if_nz r0.x
  ret
endif
ld_structured r0.y, vThreadID.x, l(0), t0.xxxx
ishl r1.x, vThreadID.x, l(2)
ld_raw r1.yz, r1.x, t1.xyxx
iadd r0.y, r0.y, r1.y
iadd r0.y, r0.y, r1.z
store_structured u0.x, vThreadID.x, l(0), r0.y
iadd r0.z, r0.y, vThreadIDInGroup.y
store_raw u1.x, r1.x, r0.z
ret
";
    let groups = 3u32;
    let threads = 16 * groups;
    let lens = [0u64, 7, 8, 15, 16, 17, 24, 31, 32, 33, 40, 47, 48, 49, 64];
    let word = |w: &[u32], i: u32| w.get(i as usize).copied().unwrap_or(0);
    for n in [0u32, 5, 16, 17, 32, 47, 48, 1000] {
        for (k, &len) in lens.iter().enumerate() {
            // Each buffer its own length: t0, t1 and u0 walk the list
            // from different places, u1 is one longer than the list's.
            let pick = |o: usize| lens[(k + o) % lens.len()];
            let (l0, l1, l2, l3) = (len, pick(3), pick(7), pick(11) + 1);
            let t0: Vec<u32> = (0..l0 as u32).map(|i| 1000 + i).collect();
            let t1: Vec<u32> = (0..l1 as u32).map(|i| 100_000 * (i + 1)).collect();
            let out = diff(
                text,
                [groups, 1, 1],
                &[
                    cb(0, &[n, 0, 0, 0]),
                    srv(0, structured(4, 0, l0), &t0),
                    srv(1, raw(l1), &t1),
                    uav(0, structured(4, 0, l2), &vec![0xEEEE; l2 as usize]),
                    uav(1, raw(l3), &vec![0xDDDD; l3 as usize]),
                ],
            );
            for x in 0..threads {
                let what = format!("n={n} lens {l0} {l1} {l2} {l3} thread {x}");
                let sum = word(&t0, x)
                    .wrapping_add(word(&t1, x))
                    .wrapping_add(word(&t1, x + 1));
                let stays = x < n;
                if x < l2 as u32 {
                    let want = if stays { sum } else { 0xEEEE };
                    assert_eq!(out[0][x as usize], want, "u0 {what}\n{text}");
                }
                if x < l3 as u32 {
                    // The second row's thread (y = 1) writes last.
                    let want = if stays { sum + 1 } else { 0xDDDD };
                    assert_eq!(out[1][x as usize], want, "u1 {what}\n{text}");
                }
            }
        }
    }
}

/// A group-level program's region loops decide their whole-batch tests
/// for the range of batches each one runs (`group.rs`, "Region loops
/// tested once"): the first region reads two buffers at the thread's
/// address, the second, a prefix span, writes two. Every buffer length
/// and span bound around the batch and group edges, on both tiers.
#[test]
fn region_tests_decided_for_a_range_of_batches_give_each_batch_its_own_result() {
    let text = "cs_5_0
dcl_constantbuffer CB0[1], immediateIndexed
dcl_resource_raw t0
dcl_resource_structured t1, 4
dcl_uav_structured u0, 4
dcl_uav_raw u1
dcl_input vThreadIDInGroupFlattened
dcl_input vThreadID.x
dcl_temps 2
dcl_tgsm_structured g0, 4, 32
dcl_thread_group 32, 1, 1
ishl r0.x, vThreadID.x, l(2)
ld_raw r0.yz, r0.x, t0.xyxx
ld_structured r0.w, vThreadID.x, l(0), t1.xxxx
iadd r0.y, r0.y, r0.z
iadd r0.y, r0.y, r0.w
store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), r0.y
sync_g_t
ult r1.x, vThreadIDInGroupFlattened.x, cb0[0].x
if_nz r1.x
  ld_structured r1.y, vThreadIDInGroupFlattened.x, l(0), g0.xxxx
  store_structured u0.x, vThreadID.x, l(0), r1.y
  iadd r1.z, r1.y, l(7)
  store_raw u1.x, r0.x, r1.z
endif
ret
";
    let groups = 3u32;
    let threads = 32 * groups;
    let lens = [0u64, 7, 8, 9, 31, 32, 33, 40, 63, 64, 65, 95, 96, 97];
    let word = |w: &[u32], i: u32| w.get(i as usize).copied().unwrap_or(0);
    for span in [0u32, 1, 7, 8, 9, 16, 31, 32, 100] {
        for (k, &len) in lens.iter().enumerate() {
            // Each buffer its own length, walking the list from
            // different places.
            let pick = |o: usize| lens[(k + o) % lens.len()];
            let (l0, l1, l2, l3) = (len, pick(3), pick(6), pick(9));
            let t0: Vec<u32> = (0..l0 as u32).map(|i| 1000 + i).collect();
            let t1: Vec<u32> = (0..l1 as u32).map(|i| 100_000 * (i + 1)).collect();
            let out = diff(
                text,
                [groups, 1, 1],
                &[
                    cb(0, &[span, 0, 0, 0]),
                    srv(0, raw(l0), &t0),
                    srv(1, structured(4, 0, l1), &t1),
                    uav(0, structured(4, 0, l2), &vec![0xEEEE; l2 as usize]),
                    uav(1, raw(l3), &vec![0xDDDD; l3 as usize]),
                ],
            );
            for x in 0..threads {
                let what = format!("span {span} lens {l0} {l1} {l2} {l3} thread {x}");
                let sum = word(&t0, x)
                    .wrapping_add(word(&t0, x + 1))
                    .wrapping_add(word(&t1, x));
                let writes = x % 32 < span;
                if x < l2 as u32 {
                    let want = if writes { sum } else { 0xEEEE };
                    assert_eq!(out[0][x as usize], want, "u0 {what}\n{text}");
                }
                if x < l3 as u32 {
                    let want = if writes { sum + 7 } else { 0xDDDD };
                    assert_eq!(out[1][x as usize], want, "u1 {what}\n{text}");
                }
            }
        }
    }
}

/// Values made from thread ids before the first barrier and read after
/// it are recomputed by the later regions instead of reloaded
/// (`jit/remat.rs`): an address, a mix of two ids and a value read in a
/// group loop give the interpreter's bits, in groups of whole batches,
/// with a part batch and over several rows, with the output buffer cut
/// short. A component with a second writer (`r0.w`) stays saved.
#[test]
fn thread_id_values_recomputed_after_barriers_give_the_saved_bits() {
    let template = "cs_5_0
dcl_uav_raw u0
dcl_input vThreadIDInGroupFlattened
dcl_input vThreadIDInGroup.y
dcl_input vThreadID.x
dcl_temps 2
dcl_tgsm_structured g0, 4, THREADS
dcl_thread_group X, Y, 1
ishl r0.x, vThreadID.x, l(2)
imad r0.y, vThreadIDInGroup.y, l(64), vThreadIDInGroupFlattened.x
iadd r0.zw, vThreadIDInGroupFlattened.xxxx, l(0, 0, 3, 5)
store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), r0.y
sync_g_t
mov r1.x, l(0)
loop
  uge r1.y, r1.x, l(3)
  breakc_nz r1.y
  ld_structured r1.z, vThreadIDInGroupFlattened.x, l(0), g0.xxxx
  iadd r1.z, r1.z, r0.z
  sync_g_t
  store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), r1.z
  sync_g_t
  iadd r1.x, r1.x, l(1)
endloop
iadd r0.w, r0.w, l(1)
ld_structured r1.w, vThreadIDInGroupFlattened.x, l(0), g0.xxxx
iadd r1.w, r1.w, r0.w
store_raw u0.x, r0.x, r1.w
ret
";
    for (x, y) in [(32u32, 1u32), (24, 1), (20, 1), (8, 4), (5, 3)] {
        let text = template
            .replace("THREADS", &(x * y).to_string())
            .replace("X, Y", &format!("{x}, {y}"));
        assert!(sm5jit::jit::runs_group_level(&parse(&text)), "{text}");
        let groups = 3u32;
        let width = x * groups;
        for len in [width, width - 3, width / 2] {
            let out = diff(
                &text,
                [groups, 1, 1],
                &[uav(0, raw(u64::from(len)), &vec![0xEEEE; len as usize])],
            );
            if y > 1 {
                continue;
            }
            // One row: thread x of the dispatch writes word x.
            for t in 0..len {
                let flat = t % x;
                let want = flat + 3 * (flat + 3) + flat + 6;
                assert_eq!(out[0][t as usize], want, "{x}x{y} len {len} word {t}");
            }
        }
    }
}

/// The pretested loop of a group that is one row of whole batches
/// carries its batches' lane-0 id from batch to batch instead of loading
/// it (docs/architecture.md, "The id carried through a pretested loop"):
/// every thread of every batch and group reads and writes its own words,
/// through `vThreadID.x` and `vThreadIDInGroupFlattened`, with buffers
/// long enough for the probe to send each group to the pretested loop
/// and shorter ones that send some to the ordinary loop.
#[test]
fn a_carried_id_gives_each_batch_of_a_pretested_loop_its_own_threads() {
    let text = "cs_5_0
dcl_resource_structured t0, 4
dcl_uav_structured u0, 4
dcl_uav_raw u1
dcl_input vThreadIDInGroupFlattened
dcl_input vThreadID.x
dcl_temps 2
dcl_thread_group 32, 1, 1
ld_structured r0.x, vThreadID.x, l(0), t0.xxxx
ishl r0.y, vThreadIDInGroupFlattened.x, l(16)
iadd r0.z, r0.x, r0.y
store_structured u0.x, vThreadID.x, l(0), r0.z
ishl r1.x, vThreadID.x, l(2)
iadd r1.y, r0.x, l(7)
store_raw u1.x, r1.x, r1.y
ret
";
    assert!(sm5jit::jit::runs_pretested(&parse(text)));
    let groups = 5u32;
    let threads = 32 * groups;
    let word = |w: &[u32], i: u32| w.get(i as usize).copied().unwrap_or(0);
    for len in [threads as u64, threads as u64 + 3, 100, 64, 31] {
        let t0: Vec<u32> = (0..len as u32).map(|i| 3 * i + 1).collect();
        let out = diff(
            text,
            [groups, 1, 1],
            &[
                srv(0, structured(4, 0, len), &t0),
                uav(0, structured(4, 0, len), &vec![0xEEEE; len as usize]),
                uav(1, raw(len), &vec![0xDDDD; len as usize]),
            ],
        );
        for x in 0..threads.min(len as u32) {
            let v = word(&t0, x);
            let flat = x % 32;
            assert_eq!(
                out[0][x as usize],
                v + (flat << 16),
                "u0 len {len} thread {x}"
            );
            assert_eq!(out[1][x as usize], v + 7, "u1 len {len} thread {x}");
        }
    }
}

/// The pretested loop is built where it may be: a program without
/// barriers or calls whose group is whole batches in one row each, not
/// one with a barrier or with batches that straddle rows.
#[test]
fn a_program_without_barriers_gets_a_pretested_loop() {
    let text = "cs_5_0
dcl_constantbuffer CB0[1], immediateIndexed
dcl_resource_structured t0, 4
dcl_uav_structured u0, 4
dcl_input vThreadID.x
dcl_temps 1
dcl_thread_group 64, 1, 1
uge r0.x, vThreadID.x, cb0[0].y
if_nz r0.x
  ret
endif
ld_structured r0.x, vThreadID.x, l(0), t0.xxxx
store_structured u0.x, vThreadID.x, l(0), r0.x
ret
";
    // A barrier after the store rules the pretested loop out.
    let with_barrier = text.replacen(
        "store_structured u0.x, vThreadID.x, l(0), r0.x\n",
        "store_structured u0.x, vThreadID.x, l(0), r0.x\nsync_g_t\n",
        1,
    );
    assert!(sm5jit::jit::runs_pretested(&parse(text)));
    assert!(!sm5jit::jit::runs_pretested(&parse(&with_barrier)));
    let straddle = text.replace("64, 1, 1", "12, 2, 1");
    assert!(!sm5jit::jit::runs_pretested(&parse(&straddle)));
    // Lowered twice: the pretested loop's stores come on top.
    assert!(stores(text) > stores(&with_barrier));
}

/// Group runs (`jit::runs_groups`, docs/architecture.md "Group runs"):
/// one call runs the groups of a row one after another. Each group
/// starts with the whole budget (two groups' loops together would
/// exhaust it), and a runaway loop in one group of a run names that
/// group, as the interpreter does.
#[test]
fn a_run_of_groups_gives_each_group_its_budget_and_names_the_one_that_stops() {
    let text = "cs_5_0
dcl_uav_raw u0
dcl_input vThreadGroupID.xy
dcl_input vThreadID.x
dcl_temps 2
dcl_thread_group 8, 1, 1
mov r0.x, l(0)
loop
  uge r0.y, r0.x, l(100)
  breakc_nz r0.y
  iadd r0.x, r0.x, l(1)
endloop
imad r1.x, vThreadGroupID.y, l(48), vThreadID.x
ishl r1.x, r1.x, l(2)
store_raw u0.x, r1.x, r0.x
ret
";
    let program = parse(text);
    let o = DispatchOptions { budget: 5_000 };
    let options = CompileOptions {
        cache: false,
        ..CompileOptions::tier(Tier::One)
    };
    let jit = JitShader::compile_with(&program, &options).expect("compile");
    let mut res = [uav(0, raw(96), &[0; 96])];
    let out = with_bound(&mut res, |b| {
        jit.dispatch_threads(b, [6, 2, 1], &o, 1).map(|_| ())
    })
    .expect("every group fits its budget");
    assert_eq!(to_words(&out[0].0), vec![100; 96]);

    // A loop that never ends in group (3, 1) only.
    let runaway = text.replace(
        "  breakc_nz r0.y\n",
        "  ieq r1.y, vThreadGroupID.x, l(3)\n  ieq r1.z, vThreadGroupID.y, l(1)\n  and r1.y, r1.y, r1.z\n  movc r0.y, r1.y, l(0), r0.y\n  breakc_nz r0.y\n",
    );
    let program = parse(&runaway);
    let o = DispatchOptions { budget: 20_000 };
    let interp = Interpreter::new(&program).expect("prepare");
    let mut res = [uav(0, raw(96), &[0; 96])];
    let want = with_bound(&mut res, |b| interp.dispatch(b, [6, 2, 1], &o).map(|_| ())).unwrap_err();
    assert!(
        matches!(
            want,
            RuntimeError::BudgetExhausted {
                group: [3, 1, 0],
                ..
            }
        ),
        "{want:?}"
    );
    for (tier, threads) in [(Tier::Zero, 1), (Tier::One, 1), (Tier::One, 2)] {
        let options = CompileOptions {
            cache: false,
            ..CompileOptions::tier(tier)
        };
        let jit = JitShader::compile_with(&program, &options).expect("compile");
        let mut res = [uav(0, raw(96), &[0; 96])];
        let err = with_bound(&mut res, |b| {
            jit.dispatch_threads(b, [6, 2, 1], &o, threads).map(|_| ())
        })
        .unwrap_err();
        assert!(
            matches!(
                err,
                RuntimeError::BudgetExhausted {
                    group: [3, 1, 0],
                    ..
                }
            ),
            "{tier:?} {threads}: {err:?}"
        );
    }
}

/// Whether the analysis says `text` stores all of its TGSM before reading any.
fn tgsm_written_first(text: &str) -> bool {
    sm5jit::analysis::prepare(&parse(text))
        .expect("prepare")
        .tgsm_written_first
}

#[test]
fn groups_that_store_all_their_tgsm_first_skip_the_clear_and_keep_the_bits() {
    // Each thread stores one word, then reads the word of the thread 16
    // places further round, written in this group: with the clear
    // skipped, every word read is this group's.
    let text = "cs_5_0
dcl_uav_raw u0
dcl_input vThreadIDInGroupFlattened
dcl_input vThreadID.x
dcl_temps 2
dcl_tgsm_structured g0, 8, 24
dcl_thread_group 24, 1, 1
imul null, r0.x, vThreadID.x, l(7)
store_structured g0.xy, vThreadIDInGroupFlattened.x, l(0), r0.xxxx
sync_g_t
iadd r0.y, vThreadIDInGroupFlattened.x, l(16)
udiv null, r0.y, r0.y, l(24)
ld_structured r1.x, r0.y, l(4), g0.xxxx
ishl r0.z, vThreadID.x, l(2)
store_raw u0.x, r0.z, r1.x
ret
";
    assert!(tgsm_written_first(text));
    let out = diff(text, [5, 1, 1], &[uav(0, raw(120), &[0xEEEE; 120])]);
    for t in 0..120u32 {
        let (group, flat) = (t / 24, t % 24);
        let from = group * 24 + (flat + 16) % 24;
        assert_eq!(out[0][t as usize], from * 7, "thread {t}");
    }
}

#[test]
fn groups_that_may_read_a_word_they_did_not_store_still_start_at_zero() {
    // Group k stores words 2k..2k+16 of 48 and reads the even words:
    // without the clear, group k would see group k-1's words 2k-2 and
    // 2k-1 where the interpreter reads 0.
    let text = "cs_5_0
dcl_uav_raw u0
dcl_input vThreadGroupID.x
dcl_input vThreadIDInGroupFlattened
dcl_input vThreadID.x
dcl_temps 2
dcl_tgsm_structured g0, 4, 48
dcl_thread_group 16, 1, 1
ishl r0.x, vThreadGroupID.x, l(1)
iadd r0.x, r0.x, vThreadIDInGroupFlattened.x
iadd r0.y, vThreadID.x, l(1)
store_structured g0.x, r0.x, l(0), r0.y
sync_g_t
ishl r0.z, vThreadIDInGroupFlattened.x, l(1)
ld_structured r1.x, r0.z, l(0), g0.xxxx
ishl r0.w, vThreadID.x, l(2)
store_raw u0.x, r0.w, r1.x
ret
";
    assert!(!tgsm_written_first(text));
    let out = diff(text, [6, 1, 1], &[uav(0, raw(96), &[0xEEEE; 96])]);
    for t in 0..96u32 {
        let (group, flat) = (t / 16, t % 16);
        // Word 2*flat was stored by thread 2*flat - 2*group of this group.
        let word = 2 * flat;
        let want = match word.checked_sub(2 * group) {
            Some(s) if s < 16 => group * 16 + s + 1,
            _ => 0,
        };
        assert_eq!(out[0][t as usize], want, "thread {t}");
    }
}

/// g# accesses under a partial mask (`jit/memory.rs`): a load of
/// `g[tid - s]` under `tid >= s - d` (its first lanes idle and wrapped
/// below g# when `d` is 0, read as the vector ending at lane 3; with a
/// positive `d` active lanes wrap too and must read 0), and a halving tree's
/// `g[tid] += g[tid + s]` under `tid < s` (stored read back and
/// blended), from a second g# so that idle lanes read the first's words,
/// in groups of whole batches and with a part batch, give the
/// interpreter's bits; the words are checked against the algorithm too.
#[test]
fn partly_active_tgsm_loads_and_stores_give_the_interpreters_bits() {
    let template = "cs_5_0
dcl_uav_raw u0
dcl_input vThreadIDInGroupFlattened
dcl_input vThreadGroupID.x
dcl_temps 3
dcl_tgsm_structured g0, 4, 8
dcl_tgsm_structured g1, 4, THREADS
dcl_thread_group THREADS, 1, 1
imad r0.x, vThreadIDInGroupFlattened.x, l(7), l(1)
store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), l(0xdead)
store_structured g1.x, vThreadIDInGroupFlattened.x, l(0), r0.x
sync_g_t
mov r0.y, l(0)
mov r0.z, l(1)
loop
  uge r1.x, r0.z, l(10)
  breakc_nz r1.x
  iadd r1.y, r0.z, l(-DROP)
  uge r1.x, vThreadIDInGroupFlattened.x, r1.y
  if_nz r1.x
    iadd r1.z, vThreadIDInGroupFlattened.x, -r0.z
    ld_structured r1.w, r1.z, l(0), g1.xxxx
    iadd r0.y, r0.y, r1.w
  endif
  iadd r0.z, r0.z, l(1)
endloop
sync_g_t
mov r0.z, l(HALF)
loop
  ieq r1.x, r0.z, l(0)
  breakc_nz r1.x
  ult r1.x, vThreadIDInGroupFlattened.x, r0.z
  if_nz r1.x
    iadd r1.y, vThreadIDInGroupFlattened.x, r0.z
    ld_structured r1.z, vThreadIDInGroupFlattened.x, l(0), g1.xxxx
    ld_structured r1.w, r1.y, l(0), g1.xxxx
    iadd r1.z, r1.z, r1.w
    store_structured g1.x, vThreadIDInGroupFlattened.x, l(0), r1.z
  endif
  sync_g_t
  ushr r0.z, r0.z, l(1)
endloop
ld_structured r2.x, vThreadIDInGroupFlattened.x, l(0), g1.xxxx
imad r2.y, vThreadGroupID.x, l(THREADS), vThreadIDInGroupFlattened.x
ishl r2.y, r2.y, l(3)
mov r2.z, r0.y
store_raw u0.xy, r2.y, r2.zxzz
ret
";
    for threads in [32u32, 24, 20, 13] {
        for drop in [0u32, 2] {
            let half = threads.next_power_of_two() / 2;
            let text = template
                .replace("THREADS", &threads.to_string())
                .replace("HALF", &half.to_string())
                .replace("DROP", &drop.to_string());
            let groups = 2u32;
            let words = (2 * threads * groups) as usize;
            let out = diff(
                &text,
                [groups, 1, 1],
                &[uav(0, raw(words as u64), &vec![0; words])],
            );
            let init = |t: u32| 7 * t + 1;
            // The halving tree over g1 (its reads past the end give 0).
            let mut g: Vec<u32> = (0..threads).map(init).collect();
            let mut s = half;
            while s > 0 {
                let before = g.clone();
                for t in 0..s.min(threads) {
                    let far = before.get((t + s) as usize).copied().unwrap_or(0);
                    g[t as usize] = before[t as usize].wrapping_add(far);
                }
                s >>= 1;
            }
            for grp in 0..groups {
                for t in 0..threads {
                    let sum: u32 = (1..10u32)
                        .filter(|&s| s >= drop && t + drop >= s)
                        .map(|s| t.checked_sub(s).map_or(0, init))
                        .sum();
                    let at = (2 * (grp * threads + t)) as usize;
                    let what = format!("{threads} threads, drop {drop}, thread {t}");
                    assert_eq!(out[0][at], sum, "{what}: sum");
                    assert_eq!(out[0][at + 1], g[t as usize], "{what}: tree");
                }
            }
        }
    }
}

/// g# reads and writes at `tid + s`, with `s` the same in every thread and
/// changing from step to step (a region loop's uniform): the region loops'
/// pretested copies decide the bounds test for a range of batches from
/// its first and last batch even where `tid + s` wraps around 2^32 in
/// between (`pretest.rs`, `Circ`). Starts and steps that wrap before,
/// inside and after the group's lanes give the interpreter's bits and the
/// algorithm's words.
#[test]
fn tgsm_at_a_uniform_offset_that_wraps_gives_the_interpreters_bits() {
    let text = "cs_5_0
dcl_constantbuffer CB0[1], immediateIndexed
dcl_uav_raw u0
dcl_input vThreadIDInGroupFlattened
dcl_input vThreadGroupID.x
dcl_temps 3
dcl_tgsm_structured g0, 4, 64
dcl_thread_group 64, 1, 1
imad r0.x, vThreadIDInGroupFlattened.x, l(3), l(5)
store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), r0.x
sync_g_t
mov r0.y, cb0[0].x
mov r0.z, l(0)
mov r0.w, l(0)
loop
  uge r1.x, r0.w, l(4)
  breakc_nz r1.x
  iadd r1.y, vThreadIDInGroupFlattened.x, r0.y
  ld_structured r1.z, r1.y, l(0), g0.xxxx
  iadd r1.w, vThreadIDInGroupFlattened.x, l(1)
  imul null, r1.w, r1.w, r1.z
  xor r1.w, r1.w, l(85)
  iadd r0.z, r0.z, r1.w
  iadd r0.z, r0.z, r1.z
  sync_g_t
  iadd r1.y, vThreadIDInGroupFlattened.x, r0.y
  ishl r1.z, r0.z, l(1)
  ushr r1.w, r0.z, l(31)
  or r1.z, r1.z, r1.w
  xor r1.z, r1.z, l(4660)
  iadd r1.z, r1.z, l(3)
  store_structured g0.x, r1.y, l(0), r1.z
  sync_g_t
  iadd r0.y, r0.y, cb0[0].y
  iadd r0.w, r0.w, l(1)
endloop
imad r2.x, vThreadGroupID.x, l(64), vThreadIDInGroupFlattened.x
ishl r2.x, r2.x, l(2)
store_raw u0.x, r2.x, r0.z
ret
";
    assert!(sm5jit::jit::runs_region_pretested(&parse(text)));
    let starts = [
        (0u32, 1u32),
        (1, 8),
        (60, 1),
        (0xFFFF_FFF0, 4),
        (0xFFFF_FFC1, 0x20),
        (0xFFFF_FFFF, 1),
        (0x8000_0000, 0x8000_0000),
        (7, 0xFFFF_FFFF),
        (0xFFFF_FFF9, 0xFFFF_FFF8),
    ];
    for (s0, ds) in starts {
        let groups = 2u32;
        let words = (64 * groups) as usize;
        let out = diff(
            text,
            [groups, 1, 1],
            &[
                uav(0, raw(words as u64), &vec![0; words]),
                cb(0, &[s0, ds, 0, 0]),
            ],
        );
        // The algorithm: every thread reads, then every thread writes (a
        // read or a write past g#'s 64 words reads 0 or is dropped). The
        // regions are longer than a paired one (`group.rs`, `PAIR_MAX`).
        let mut g: Vec<u32> = (0..64).map(|t| 3 * t + 5).collect();
        let mut sums = [0u32; 64];
        let mut s = s0;
        for _ in 0..4 {
            let at = |t: u32| t.wrapping_add(s) as usize;
            for t in 0..64 {
                let v = g.get(at(t)).copied().unwrap_or(0);
                let mixed = (t + 1).wrapping_mul(v) ^ 85;
                let sum = &mut sums[t as usize];
                *sum = sum.wrapping_add(mixed).wrapping_add(v);
            }
            for t in 0..64 {
                if let Some(w) = g.get_mut(at(t)) {
                    *w = (sums[t as usize].rotate_left(1) ^ 4660).wrapping_add(3);
                }
            }
            s = s.wrapping_add(ds);
        }
        for grp in 0..groups as usize {
            assert_eq!(
                out[0][64 * grp..64 * grp + 64],
                sums[..],
                "start {s0:#x}, step {ds:#x}"
            );
        }
    }
}

/// Raw and structured stores whose address is the same in every lane (a
/// group id times a constant; `memory.rs`, `uniform_store`): the last
/// writing lane's value lands, as the interpreter's thread order leaves
/// it, under masks that keep no lane, some and all, and an address
/// outside the buffer, or one that wraps, writes nothing.
#[test]
fn stores_at_one_address_per_group_keep_the_last_writing_lane() {
    let text = "cs_5_0
dcl_constantbuffer CB0[1], immediateIndexed
dcl_uav_raw u0
dcl_uav_structured u1, 8
dcl_input vThreadIDInGroupFlattened
dcl_input vThreadGroupID.x
dcl_temps 1
dcl_thread_group 24, 1, 1
imad r0.x, vThreadIDInGroupFlattened.x, l(3), l(1)
ult r0.y, vThreadIDInGroupFlattened.x, cb0[0].x
if_nz r0.y
  imul null, r0.z, vThreadGroupID.x, cb0[0].y
  store_raw u0.x, r0.z, r0.x
  iadd r0.w, vThreadGroupID.x, cb0[0].z
  store_structured u1.x, r0.w, l(4), r0.x
endif
ret
";
    let groups = 4u32;
    for keep in [0u32, 1, 5, 24, 100] {
        for (step, shift) in [(4u32, 0u32), (8, 3), (0x4000_0004, 0xFFFF_FFFE)] {
            let out = diff(
                text,
                [groups, 1, 1],
                &[
                    uav(0, raw(16), &[0; 16]),
                    uav(1, structured(8, 0, 6), &[0; 12]),
                    cb(0, &[keep, step, shift, 0]),
                ],
            );
            let (mut want_raw, mut want_s) = (vec![0u32; 16], vec![0u32; 12]);
            for g in 0..groups {
                for t in (0..24).filter(|&t| t < keep) {
                    let v = 3 * t + 1;
                    let d = (g.wrapping_mul(step) >> 2) as usize;
                    if d < 16 {
                        want_raw[d] = v;
                    }
                    let i = g.wrapping_add(shift) as usize;
                    if i < 6 {
                        want_s[2 * i + 1] = v;
                    }
                }
            }
            let what = format!("keep {keep}, step {step:#x}, shift {shift:#x}");
            assert_eq!(out[0], want_raw, "{what}: raw");
            assert_eq!(out[1], want_s, "{what}: structured");
        }
    }
}

/// Per-thread values carried across a barrier live in the batch context
/// when they fit (eight components, `BatchContext::inline_save`) and in
/// the batch's save area when not: both give the interpreter's bits, over
/// two dispatches (the second finds the first's words in both places),
/// and only the second needs a save area.
#[test]
fn values_carried_across_a_barrier_keep_their_bits_inline_and_out_of_line() {
    let input: Vec<u32> = (0..128u32)
        .map(|i| i.wrapping_mul(2_654_435_761) ^ 0x5a5a_0f0f)
        .collect();
    for carried in [1usize, 5, 7, 9, 12, 16] {
        // r1..r4 hold `carried` components made from a loaded word, all
        // read after the barrier; r0 holds the address, the word, the sum
        // and a neighbour's word.
        let mut text = String::from(
            "cs_5_0
dcl_resource_raw t0
dcl_uav_raw u0
dcl_input vThreadIDInGroupFlattened
dcl_input vThreadID.x
dcl_temps 5
dcl_tgsm_structured g0, 4, 64
dcl_thread_group 64, 1, 1
ishl r0.x, vThreadID.x, l(2)
ld_raw r0.y, r0.x, t0.xxxx
",
        );
        let reg = |k: usize| format!("r{}.{}", 1 + k / 4, ['x', 'y', 'z', 'w'][k % 4]);
        for k in 0..carried {
            text += &format!("imad {}, r0.y, l({}), l({})\n", reg(k), 2 * k + 3, k * 977);
        }
        text += "store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), r0.y
sync_g_t
iadd r0.w, vThreadIDInGroupFlattened.x, l(1)
and r0.w, r0.w, l(63)
ld_structured r0.w, r0.w, l(0), g0.xxxx
mov r0.z, r0.w
";
        for k in 0..carried {
            text += &format!(
                "xor r0.z, r0.z, {}\niadd r0.z, r0.z, l({})\n",
                reg(k),
                k + 1
            );
        }
        text += "store_raw u0.x, r0.x, r0.z\nret\n";
        let program = parse(&text);
        assert!(sm5jit::jit::runs_group_level(&program), "{text}");
        let res = vec![srv(0, raw(128), &input), uav(0, raw(128), &[0; 128])];
        let out = diff(&text, [2, 1, 1], &res);
        assert!(out.iter().flatten().any(|&w| w != 0), "writes something");
        let jit = JitShader::compile_with(&program, &CompileOptions::tier(Tier::One))
            .unwrap_or_else(|e| panic!("compile: {e}\n{text}"));
        let slots = jit.save_area_slots();
        if carried <= 7 {
            assert_eq!(slots, 0, "{carried} components kept in the context");
        } else {
            assert!(slots >= 2 * carried, "{carried} components: {slots} slots");
        }
    }
}

/// A halving tree (`tid < s`) over a g# of `size` words, as reduce runs
/// it, with `s` from `start` down to 1, every thread writing its final
/// word; or with `scan` the doubling steps of a scan (`tid >= s`, `s`
/// from 1 while below `size`) through a second g#. Both loops' trip
/// counts are known when compiling.
fn counted_tree(size: u32, start: u32, scan: bool) -> String {
    let head = format!(
        "cs_5_0
dcl_resource_raw t0
dcl_uav_raw u0
dcl_input vThreadIDInGroupFlattened
dcl_input vThreadID.x
dcl_temps 2
dcl_tgsm_structured g0, 4, {size}
dcl_tgsm_structured g1, 4, {size}
dcl_thread_group {size}, 1, 1
ishl r0.x, vThreadID.x, l(2)
ld_raw r0.x, r0.x, t0.xxxx
store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), r0.x
sync_g_t
"
    );
    let steps = if scan {
        format!(
            "mov r0.y, l(1)
loop
  uge r0.z, r0.y, l({size})
  breakc_nz r0.z
  uge r0.z, vThreadIDInGroupFlattened.x, r0.y
  if_nz r0.z
    iadd r0.w, vThreadIDInGroupFlattened.x, -r0.y
    ld_structured r1.x, vThreadIDInGroupFlattened.x, l(0), g0.xxxx
    ld_structured r1.y, r0.w, l(0), g0.xxxx
    iadd r1.x, r1.x, r1.y
    store_structured g1.x, vThreadIDInGroupFlattened.x, l(0), r1.x
  endif
  sync_g_t
  uge r0.z, vThreadIDInGroupFlattened.x, r0.y
  if_nz r0.z
    ld_structured r1.x, vThreadIDInGroupFlattened.x, l(0), g1.xxxx
    store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), r1.x
  endif
  sync_g_t
  ishl r0.y, r0.y, l(1)
endloop
"
        )
    } else {
        format!(
            "mov r0.y, l({start})
loop
  ieq r0.z, r0.y, l(0)
  breakc_nz r0.z
  ult r0.z, vThreadIDInGroupFlattened.x, r0.y
  if_nz r0.z
    iadd r0.w, vThreadIDInGroupFlattened.x, r0.y
    ld_structured r1.x, vThreadIDInGroupFlattened.x, l(0), g0.xxxx
    ld_structured r1.y, r0.w, l(0), g0.xxxx
    iadd r1.x, r1.x, r1.y
    store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), r1.x
  endif
  sync_g_t
  ushr r0.y, r0.y, l(1)
endloop
"
        )
    };
    head + &steps
        + "ld_structured r1.x, vThreadIDInGroupFlattened.x, l(0), g0.xxxx
ishl r0.x, vThreadID.x, l(2)
store_raw u0.x, r0.x, r1.x
ret
"
}

/// Group loops whose trip count is known when compiling run as copies of
/// their body (`jit/unroll.rs`), and the part batch of each step's span
/// leaves out its lanes that hold no thread of the span (whole vectors,
/// and loads narrowed to a vector's first one or two lanes): every word of
/// every group is the interpreter's, for groups of whole and part batches,
/// prefix and suffix spans whose part batch starts, ends or lies within
/// either vector, and a loop that leaves before its first iteration.
#[test]
fn counted_group_loops_give_the_interpreters_bits() {
    let input: Vec<u32> = (0..512u32)
        .map(|i| i.wrapping_mul(2_246_822_519) ^ 0x3c3c_9669)
        .collect();
    let cases = [
        (64, 32, false),
        (64, 0, false),
        (40, 20, false),
        (24, 12, false),
        (56, 29, false),
        (64, 0, true),
        (40, 0, true),
        (24, 0, true),
        (20, 0, true),
    ];
    for (size, start, scan) in cases {
        let text = counted_tree(size, start, scan);
        let program = parse(&text);
        assert!(sm5jit::jit::runs_group_level(&program), "{text}");
        let words = 4 * size;
        let res = vec![
            srv(0, raw(512), &input),
            uav(0, raw(words as u64), &vec![0; words as usize]),
        ];
        let out = diff(&text, [4, 1, 1], &res);
        assert!(out.iter().flatten().any(|&w| w != 0), "writes something");
    }
}

/// A span region's `if` in a group of two batches, its bound a literal:
/// the batch the bound falls inside runs its live lanes alone (the rest
/// idle, the `if`'s full-mask path) and its g# stores write only those
/// lanes' words: whole vectors, a prefix of one or two words, a blend;
/// a uniform u# store writes the last live lane's value. Every thread
/// then reads every word back.
#[test]
fn part_batches_of_a_span_write_only_their_live_lanes() {
    let input: Vec<u32> = (0..16u32).map(|i| 0x0101_0101 * (i + 1)).collect();
    let mut conditions: Vec<String> = Vec::new();
    for k in [1, 2, 3, 4, 5, 9, 10, 12] {
        conditions.push(format!(
            "ult r0.z, vThreadIDInGroupFlattened.x, l({k})\nif_nz r0.z"
        ));
    }
    for k in [3, 6, 13, 14, 15] {
        conditions.push(format!(
            "uge r0.z, vThreadIDInGroupFlattened.x, l({k})\nif_nz r0.z"
        ));
    }
    for k in [0, 3, 9] {
        conditions.push(format!(
            "ieq r0.z, vThreadIDInGroupFlattened.x, l({k})\nif_nz r0.z"
        ));
    }
    conditions.push("if_z vThreadIDInGroupFlattened.x".into());
    for cond in &conditions {
        let text = format!(
            "cs_5_0
dcl_globalFlags refactoringAllowed
dcl_resource_raw t0
dcl_uav_raw u0
dcl_input vThreadIDInGroupFlattened
dcl_input vThreadID.x
dcl_temps 2
dcl_tgsm_structured g0, 4, 16
dcl_thread_group 16, 1, 1
ishl r0.x, vThreadID.x, l(2)
ld_raw r0.x, r0.x, t0.xxxx
store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), r0.x
sync_g_t
{cond}
  iadd r1.x, vThreadIDInGroupFlattened.x, l(1)
  and r1.x, r1.x, l(15)
  ld_structured r1.x, r1.x, l(0), g0.xxxx
  iadd r1.x, r1.x, vThreadIDInGroupFlattened.x
  store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), r1.x
  store_raw u0.x, l(80), r1.x
endif
sync_g_t
ld_structured r1.x, vThreadIDInGroupFlattened.x, l(0), g0.xxxx
ishl r0.y, vThreadID.x, l(2)
store_raw u0.x, r0.y, r1.x
ret
"
        );
        assert!(sm5jit::jit::runs_group_level(&parse(&text)), "{text}");
        let res = vec![srv(0, raw(16), &input), uav(0, raw(24), &[0; 24])];
        let out = diff(&text, [1, 1, 1], &res);
        assert_ne!(out[0][20], 0, "the uniform store ran\n{text}");
    }
}

/// The smallest budget at which `program` runs one group on `tier`.
fn least_budget(program: &sm5jit::ir::Program, tier: Tier, words: usize) -> u64 {
    let options = CompileOptions {
        cache: false,
        ..CompileOptions::tier(tier)
    };
    let jit = JitShader::compile_with(program, &options).expect("compile");
    let input = vec![7u32; words];
    let runs = |budget: u64| {
        let mut res = [
            srv(0, raw(words as u64), &input),
            uav(0, raw(words as u64), &vec![0; words]),
        ];
        let o = DispatchOptions { budget };
        with_bound(&mut res, |b| {
            jit.dispatch_threads(b, [1, 1, 1], &o, 1).map(|_| ())
        })
        .is_ok()
    };
    let (mut lo, mut hi) = (0u64, 1u64 << 24);
    assert!(runs(hi), "{tier:?} runs with a large budget");
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if runs(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi
}

/// An unrolled loop is charged once, on entry, for all its iterations,
/// what the loop charges at its `endloop` (docs/semantics.md): its
/// length (`endloop`'s index less `loop`'s) times 8 lanes per batch of
/// the group per iteration. The least budget that runs one group is
/// exactly that; one less stops it.
#[test]
fn counted_group_loops_use_the_budget_of_their_iterations() {
    // (size, start, scan, iterations, loop length)
    for (size, start, scan, iterations, len) in [(64, 32, false, 6, 13), (40, 0, true, 6, 19)] {
        let text = counted_tree(size, start, scan);
        let program = parse(&text);
        let insts = &program.insts;
        let at = |op| insts.iter().position(|i| i.opcode == op).unwrap();
        use sm5jit::ir::Opcode;
        assert_eq!(at(Opcode::EndLoop) - at(Opcode::Loop), len as usize);
        let batches = u64::from(size).div_ceil(8);
        let want = iterations * len * 8 * batches;
        let one = least_budget(&program, Tier::One, size as usize);
        assert_eq!(one, want, "size {size}, scan {scan}");
    }
}
