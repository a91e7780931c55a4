//! Every ALU opcode of the instruction table (float, int, compare, convert,
//! move, double classes), over all pairs of edge values, on the interpreter
//! and the JIT: the UAV bytes must be identical.
//!
//! The instruction text is built from the table row (mnemonic, destination
//! count, source count, double form), so an ALU opcode added to the table
//! is covered here without editing this file.

use crate::jit::{diff, srv, uav, EDGE};
use crate::util::raw;
use sm5jit::ir::{OpClass, Opcode};

/// Threads per group and groups: every ordered pair of edge values once
/// per component lane, four pairs a thread.
const GROUP: u32 = 32;
const PAIRS: usize = EDGE.len() * EDGE.len();
const GROUPS: u32 = PAIRS.div_ceil(4 * GROUP as usize) as u32;

/// The four sources of pair `p`: `a` and `b` run over all pairs, the third
/// and fourth (mad, bfi, movc, ...) are spread over the edge values too.
fn sources(p: usize) -> [u32; 4] {
    let n = EDGE.len();
    let p = p % PAIRS;
    [
        EDGE[p / n],
        EDGE[p % n],
        EDGE[(p * 7 + 3) % n],
        EDGE[(p * 13 + 5) % n],
    ]
}

/// t0: per thread four vec4s (sources 0..3), component `c` of thread `k`
/// holding pair `4k + c`.
fn input(threads: usize) -> Vec<u32> {
    let mut out = Vec::with_capacity(threads * 16);
    for k in 0..threads {
        let pairs: Vec<[u32; 4]> = (0..4).map(|c| sources(4 * k + c)).collect();
        for s in 0..4 {
            out.extend(pairs.iter().map(|v| v[s]));
        }
    }
    out
}

/// `op` with destinations r5 (and r6) and sources r1..r4, from its table row.
fn instruction(op: Opcode, sat: bool) -> String {
    let roles = op.roles().expect("ALU opcodes have modelled roles");
    let dsts = op.dst_count();
    // A double op writing 32-bit results takes one or two components.
    let mask = match op.double_form() {
        Some((false, _)) => ".xy",
        _ => ".xyzw",
    };
    let mut operands: Vec<String> = (0..dsts).map(|d| format!("r{}{mask}", 5 + d)).collect();
    operands.extend((0..roles.len() - dsts).map(|s| format!("r{}.xyzw", 1 + s)));
    let suffix = if sat { "_sat" } else { "" };
    format!("{}{suffix} {}", op.mnemonic(), operands.join(", "))
}

fn program(inst: &str) -> String {
    format!(
        "cs_5_0
dcl_globalFlags refactoringAllowed | enableDoublePrecisionFloatOps | enable11_1DoubleExtensions | enable11_1ShaderExtensions
dcl_resource_raw t0
dcl_uav_raw u0
dcl_input vThreadID.x
dcl_temps 7
dcl_thread_group {GROUP}, 1, 1
ishl r0.x, vThreadID.x, l(6)
ld_raw r1.xyzw, r0.x, t0.xyzw
iadd r0.y, r0.x, l(16)
ld_raw r2.xyzw, r0.y, t0.xyzw
iadd r0.y, r0.x, l(32)
ld_raw r3.xyzw, r0.y, t0.xyzw
iadd r0.y, r0.x, l(48)
ld_raw r4.xyzw, r0.y, t0.xyzw
mov r5.xyzw, l(0x11111111, 0x22222222, 0x33333333, 0x44444444)
mov r6.xyzw, l(0x55555555, 0x66666666, 0x77777777, 0x88888888)
{inst}
ishl r0.x, vThreadID.x, l(5)
store_raw u0.xyzw, r0.x, r5.xyzw
iadd r0.x, r0.x, l(16)
store_raw u0.xyzw, r0.x, r6.xyzw
ret
"
    )
}

fn is_alu(op: Opcode) -> bool {
    use OpClass::*;
    matches!(op.class(), Float | Int | Compare | Convert | Move | Double)
}

#[test]
fn every_alu_opcode_of_the_table_agrees_on_all_edge_pairs() {
    let threads = (GROUPS * GROUP) as usize;
    let data = input(threads);
    let mut ran = 0;
    for op in Opcode::select(is_alu) {
        // `_sat` is the float results' modifier: run float-class ops both ways.
        let sats: &[bool] = if op.class() == OpClass::Float {
            &[false, true]
        } else {
            &[false]
        };
        for &sat in sats {
            let text = program(&instruction(op, sat));
            let out = diff(
                &text,
                [GROUPS, 1, 1],
                &[
                    srv(0, raw(data.len() as u64), &data),
                    uav(0, raw(threads as u64 * 8), &vec![0; threads * 8]),
                ],
            );
            // The op wrote something: not every destination word is still the fill.
            let fill = [0x1111_1111, 0x2222_2222, 0x3333_3333, 0x4444_4444];
            assert!(
                out[0].chunks(8).any(|w| w[..4] != fill),
                "{} left r5 untouched",
                op.mnemonic()
            );
            ran += 1;
        }
    }
    // 20 float (x2 for _sat), 29 int, 10 compare, 6 convert, 3 move, 19 double.
    assert_eq!(ran, 20 * 2 + 29 + 10 + 6 + 3 + 19);
}

/// Pseudo-random source words: arbitrary bit patterns, ordinary floats
/// and tiny ones (products that land in the denormal range).
fn random_input(threads: usize) -> Vec<u32> {
    let mut x: u32 = 0x9E37_79B9;
    (0..threads * 16)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            match i % 3 {
                0 => x,
                1 => (x & 0x807F_FFFF) | ((x % 60 + 100) << 23),
                _ => (x & 0x807F_FFFF) | ((x % 40 + 10) << 23),
            }
        })
        .collect()
}

#[test]
fn vector_lowered_float_ops_agree_on_random_values() {
    // The ops the JIT computes as multi-step vector code (rsq, exp and log
    // through f64, mad and dp* with one finish) against the interpreter,
    // beyond the edge values.
    let groups = 64u32;
    let threads = (groups * GROUP) as usize;
    let data = random_input(threads);
    for op in [
        Opcode::Rsq,
        Opcode::Exp,
        Opcode::Log,
        Opcode::Mad,
        Opcode::Dp2,
        Opcode::Dp3,
        Opcode::Dp4,
        Opcode::Sqrt,
    ] {
        for sat in [false, true] {
            let text = program(&instruction(op, sat));
            let out = diff(
                &text,
                [groups, 1, 1],
                &[
                    srv(0, raw(data.len() as u64), &data),
                    uav(0, raw(threads as u64 * 8), &vec![0; threads * 8]),
                ],
            );
            assert!(out[0].chunks(8).any(|w| w[0] != 0x1111_1111));
        }
    }
}

/// Inputs of `exp` and `log`: their special cases and the boundaries of
/// the vector code's steps (rounding ties of `round_ne`, the ends of the
/// exponent range, the √2 split of the mantissa, 1.0), each with its
/// neighbours one ulp away, then pseudo-random values spread over exp's
/// range and over every positive exponent.
fn exp_log_input() -> Vec<u32> {
    let mut v: Vec<u32> = vec![
        0x0000_0000,
        0x8000_0000,
        0x0000_0001,
        0x007F_FFFF,
        0x8000_0001,
        0x807F_FFFF,
        0x7F80_0000,
        0xFF80_0000,
        0x7FC0_0000,
        0xFFC0_0001,
        0x7F80_0001,
        0x7F7F_FFFF,
        0xFF7F_FFFF,
        0x0080_0000,
        0x8080_0000,
        127.99f32.to_bits(),
        (-150f32).to_bits(),
        1e30f32.to_bits(),
        (-1e30f32).to_bits(),
        1e-30f32.to_bits(),
        1e-38f32.to_bits(),
        1e-7f32.to_bits(),
        (-1e-7f32).to_bits(),
    ];
    // Integers and half-integers over exp's range and beyond.
    for k in -300..=300 {
        v.push((k as f32 * 0.5).to_bits());
    }
    // The √2 boundary of the mantissa at a few exponents.
    for exp in [
        0x3F00_0000u32,
        0x3F80_0000,
        0x4000_0000,
        0x0080_0000,
        0x7F00_0000,
    ] {
        v.push(exp | 0x0035_04F3);
    }
    // Neighbours one ulp away of everything so far (same sign).
    let base = v.clone();
    for b in base {
        v.push(b.wrapping_add(1));
        v.push(b.wrapping_sub(1));
    }
    let mut x: u32 = 0x2545_F491;
    for i in 0..8192 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        v.push(match i % 3 {
            0 => (x as f32 / 4_294_967_296.0 * 280.0 - 140.0).to_bits(),
            1 => x & 0x7FFF_FFFF,
            _ => x,
        });
    }
    v
}

#[test]
fn exp_and_log_agree_on_edge_and_random_values() {
    // `exp` and `log` are vector code on tier 1 (`jit/elementary.rs`)
    // and `sem` calls on tier 0: both against the interpreter.
    let values = exp_log_input();
    let threads = values.len().div_ceil(4).next_multiple_of(GROUP as usize);
    let mut data = vec![0u32; threads * 16];
    for (i, &b) in values.iter().enumerate() {
        data[(i / 4) * 16 + i % 4] = b;
    }
    for op in [Opcode::Exp, Opcode::Log] {
        for sat in [false, true] {
            let text = program(&instruction(op, sat));
            let out = diff(
                &text,
                [threads as u32 / GROUP, 1, 1],
                &[
                    srv(0, raw(data.len() as u64), &data),
                    uav(0, raw(threads as u64 * 8), &vec![0; threads * 8]),
                ],
            );
            assert!(out[0].chunks(8).any(|w| w[0] != 0x1111_1111));
        }
    }
}

/// Every f32 bit pattern through tier 1's `exp` and `log` against
/// `sem::float::exp2`/`log2`, the interpreter's functions (2^22 inputs a
/// dispatch). Minutes of CPU: run it with `--ignored`.
#[test]
#[ignore]
fn exp_and_log_agree_on_every_f32() {
    use sm5jit::jit::{CompileOptions, JitShader, Tier};
    use sm5jit::runtime::{Bindings, DispatchOptions, Slot};
    use sm5jit::sem::float;
    const CHUNK: u32 = 1 << 22;
    let text = "cs_5_0
dcl_globalFlags refactoringAllowed
dcl_constantbuffer CB0[1], immediateIndexed
dcl_uav_raw u0
dcl_input vThreadID.x
dcl_temps 2
dcl_thread_group 256, 1, 1
iadd r0.x, vThreadID.x, cb0[0].x
exp r1.x, r0.x
log r1.y, r0.x
ishl r0.y, vThreadID.x, l(3)
store_raw u0.xy, r0.y, r1.xyxx
ret
";
    let program = crate::util::parse(text);
    let options = CompileOptions {
        cache: false,
        ..CompileOptions::tier(Tier::One)
    };
    let jit = JitShader::compile_with(&program, &options).expect("compile");
    let mut out = vec![0u8; CHUNK as usize * 8];
    let mut mismatches = 0u64;
    for chunk in 0..(1u64 << 32) / CHUNK as u64 {
        let base = chunk as u32 * CHUNK;
        let cb = crate::util::to_bytes(&[base, 0, 0, 0]);
        {
            let mut b = Bindings::new();
            b.cb(Slot::new(0), &cb);
            b.uav(Slot::new(0), &mut out, raw(CHUNK as u64 * 2));
            jit.dispatch_threads(&mut b, [CHUNK / 256, 1, 1], &DispatchOptions::default(), 1)
                .expect("dispatch");
        }
        let words = crate::util::to_words(&out);
        for i in 0..CHUNK {
            let x = f32::from_bits(base + i);
            let want = [float::exp2(x).to_bits(), float::log2(x).to_bits()];
            let got = [words[2 * i as usize], words[2 * i as usize + 1]];
            if got != want {
                mismatches += 1;
                if mismatches <= 10 {
                    eprintln!("{:#010x}: JIT {got:08x?}, sem {want:08x?}", base + i);
                }
            }
        }
    }
    assert_eq!(mismatches, 0);
}
