//! Interpreter integration tests: hand-written programs for every
//! instruction family,
//! the out-of-bounds rules, barriers, calls, switches, the budget and the
//! binding errors.

use crate::util::{parse, raw, structured, to_bytes, to_words, typed};
use std::path::PathBuf;

use sm5jit::interp::Interpreter;
use sm5jit::runtime::{
    Bindings, BufferKind, BufferView, DispatchOptions, Format, RuntimeError, Slot, TextureView,
    View,
};

// ---------------------------------------------------------------------------
// Hand-written programs
// ---------------------------------------------------------------------------

fn f(x: f32) -> u32 {
    x.to_bits()
}

const TRUE: u32 = 0xFFFF_FFFF;

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

#[test]
fn loops_with_break_and_continue() {
    let out = run1(
        "mov r0.x, l(0)
         mov r1.x, l(0)
         loop
           uge r2.x, r0.x, l(10)
           breakc_nz r2.x
           iadd r0.x, r0.x, l(1)
           and r2.y, r0.x, l(1)
           continuec_nz r2.y
           iadd r1.x, r1.x, r0.x
         endloop
         mov r0.y, r1.x
         store_raw u0.xy, l(0), r0.xyxx",
    );
    assert_eq!(&out[0..2], &[10, 30]);
}

#[test]
fn nested_if_else() {
    let out = run1(
        "mov r0.x, l(5)
         ilt r1.x, r0.x, l(3)
         if_nz r1.x
           mov r2.x, l(1)
         else
           ilt r1.y, r0.x, l(10)
           if_z r1.y
             mov r2.x, l(2)
           else
             mov r2.x, l(3)
           endif
         endif
         if_z r0.x
           mov r2.y, l(9)
         endif
         store_raw u0.xy, l(0), r2.xyxx",
    );
    assert_eq!(&out[0..2], &[3, 0]);
}

#[test]
fn switch_falls_through_like_c_and_continue_skips_the_switch() {
    let out = run1(
        "mov r0.x, l(0)
         loop
           uge r1.x, r0.x, l(5)
           breakc_nz r1.x
           mov r2.x, l(0)
           switch r0.x
             case l(0)
               iadd r2.x, r2.x, l(1)
             case l(1)
             case l(2)
               iadd r2.x, r2.x, l(10)
               break
             case l(3)
               iadd r0.x, r0.x, l(1)
               continue
             default
               mov r2.x, l(7)
               break
           endswitch
           ishl r3.x, r0.x, l(2)
           store_raw u0.x, r3.x, r2.x
           iadd r0.x, r0.x, l(1)
         endloop",
    );
    assert_eq!(&out[0..5], &[11, 10, 10, 0, 7]);
}

#[test]
fn calls_returns_and_the_32_frame_limit() {
    let text = "cs_5_0
        dcl_uav_raw u0
        dcl_temps 2
        dcl_thread_group 1, 1, 1
        mov r0.xy, l(0, 0, 0, 0)
        call l0
        mov r1.x, l(1)
        callc_z r1.x, l1
        callc_nz r1.x, l1
        store_raw u0.xy, l(0), r0.xyxx
        retc_nz r1.x
        store_raw u0.x, l(8), l(99)
        ret
        label l0
        iadd r0.x, r0.x, l(1)
        call l0
        ret
        label l1
        iadd r0.y, r0.y, l(1)
        retc_nz r1.x
        iadd r0.y, r0.y, l(100)
        ret";
    let out = run_u0(text, &[], 4, [1, 1, 1]);
    assert_eq!(&out[0..3], &[32, 1, 0]);
}

const BARRIER_LOOP: &str = "cs_5_0
    dcl_uav_raw u0
    dcl_input vThreadIDInGroupFlattened
    dcl_temps 4
    dcl_tgsm_raw g0, 16
    dcl_thread_group 4, 1, 1
    mov r0.x, l(0)
    mov r3.x, l(0)
    ishl r1.y, vThreadIDInGroupFlattened.x, l(2)
    loop
      uge r1.x, r0.x, l(3)
      breakc_nz r1.x
      imad r1.z, r0.x, l(10), vThreadIDInGroupFlattened.x
      store_raw g0.x, r1.y, r1.z
      sync_g_t
      iadd r1.w, vThreadIDInGroupFlattened.x, l(1)
      and r1.w, r1.w, l(3)
      ishl r1.w, r1.w, l(2)
      ld_raw r2.x, r1.w, g0.xxxx
      iadd r3.x, r3.x, r2.x
      sync_g_t
      iadd r0.x, r0.x, l(1)
    endloop
    store_raw u0.x, r1.y, r3.x
    ret";

#[test]
fn barriers_inside_loops_order_tgsm_traffic() {
    let out = run_u0(BARRIER_LOOP, &[], 8, [2, 1, 1]);
    // Thread t reads its neighbour's value iter*10 + (t+1)%4 for 3 iterations;
    // both groups write the same words and start from zeroed TGSM.
    assert_eq!(&out[0..4], &[33, 36, 39, 30]);
}

#[test]
fn threads_that_returned_count_as_arrived() {
    let text = "cs_5_0
        dcl_uav_raw u0
        dcl_input vThreadIDInGroupFlattened
        dcl_temps 1
        dcl_thread_group 3, 1, 1
        if_z vThreadIDInGroupFlattened.x
          store_raw u0.x, l(0), l(7)
          ret
        endif
        sync_uglobal_g_t
        ishl r0.x, vThreadIDInGroupFlattened.x, l(2)
        store_raw u0.x, r0.x, l(9)
        sync_ugroup_t
        sync_g
        sync_uglobal
        ret";
    assert_eq!(run_u0(text, &[], 3, [1, 1, 1]), vec![7, 9, 9]);
}

#[test]
fn thread_and_group_ids() {
    let text = "cs_5_0
        dcl_uav_raw u0
        dcl_input vThreadID.xy
        dcl_input vThreadGroupID.x
        dcl_input vThreadIDInGroup.xy
        dcl_input vThreadIDInGroupFlattened
        dcl_temps 2
        dcl_thread_group 2, 2, 1
        imad r0.x, vThreadID.y, l(4), vThreadID.x
        ishl r0.x, r0.x, l(4)
        mov r1.x, vThreadID.x
        mov r1.y, vThreadGroupID.x
        mov r1.z, vThreadIDInGroup.y
        mov r1.w, vThreadIDInGroupFlattened.x
        store_raw u0.xyzw, r0.x, r1.xyzw
        ret";
    let out = run_u0(text, &[], 32, [2, 1, 1]);
    for y in 0..2u32 {
        for x in 0..4u32 {
            let at = ((y * 4 + x) * 4) as usize;
            assert_eq!(
                &out[at..at + 4],
                &[x, x / 2, y, y * 2 + x % 2],
                "thread ({x}, {y})"
            );
        }
    }
}

/// Binds the memories and runs; panics on a runtime error.
fn run_program<'a>(text: &str, bind: impl FnOnce(&mut Bindings<'a>)) {
    let interp = Interpreter::new(&parse(text)).unwrap();
    let mut b = Bindings::new();
    bind(&mut b);
    interp
        .dispatch(&mut b, [1, 1, 1], &DispatchOptions::default())
        .unwrap();
}

const FILL: u32 = 0xAAAA_AAAA;

#[test]
fn raw_buffer_window_bounds() {
    let text = "cs_5_0
        dcl_uav_raw u0
        dcl_uav_raw u1
        dcl_temps 2
        dcl_thread_group 1, 1, 1
        store_raw u0.xyzw, l(8), l(1, 2, 3, 4)
        ld_raw r0.xyzw, l(4), u0.xyzw
        ld_raw r1.xy, l(6), u0.zxxx
        store_raw u1.xyzw, l(0), r0.xyzw
        store_raw u1.xy, l(16), r1.xyxx
        store_raw u0.x, l(0xfffffffc), l(5)
        ret";
    let mut m0 = to_bytes(&[FILL; 8]);
    let mut m1 = vec![0u8; 32];
    run_program(text, |b| {
        b.uav(
            Slot::new(0),
            &mut m0,
            View::Buffer(BufferView {
                kind: BufferKind::Raw,
                first_element: 2,
                num_elements: 4,
            }),
        );
        b.uav(Slot::new(1), &mut m1, raw(8));
    });
    // Window = words 2..6: relative words 2, 3 written, 4, 5 dropped.
    assert_eq!(
        to_words(&m0),
        vec![FILL, FILL, FILL, FILL, 1, 2, FILL, FILL]
    );
    // Relative words 1..4: the last is out of the window and reads 0; the
    // misaligned offset 6 is treated as 4.
    assert_eq!(to_words(&m1)[0..6], [FILL, 1, 2, 0, 2, FILL]);
}

#[test]
fn structured_buffer_bounds_are_flat_and_64_bit() {
    let text = "cs_5_0
        dcl_uav_structured u0, 8
        dcl_resource_structured t0, 8
        dcl_uav_raw u1
        dcl_temps 2
        dcl_thread_group 1, 1, 1
        store_structured u0.xy, l(1), l(4), l(5, 6, 0, 0)
        store_structured u0.x, l(2), l(0), l(9)
        store_structured u0.x, l(0x40000000), l(0), l(9)
        ld_structured r0.xyzw, l(1), l(0), u0.xyzw
        ld_structured r1.xyzw, l(0), l(4), t0.xyzw
        store_raw u1.xyzw, l(0), r0.xyzw
        store_raw u1.xyzw, l(16), r1.xyzw
        ret";
    let mut m0 = to_bytes(&[FILL; 8]);
    let t0 = to_bytes(&[1, 2, 3, 4, 5, 6]);
    let mut m1 = vec![0u8; 32];
    run_program(text, |b| {
        b.uav(Slot::new(0), &mut m0, structured(8, 1, 2));
        b.srv(Slot::new(0), &t0, structured(8, 0, 2));
        b.uav(Slot::new(1), &mut m1, raw(8));
    });
    assert_eq!(
        to_words(&m0),
        vec![FILL, FILL, FILL, FILL, FILL, 5, FILL, FILL]
    );
    assert_eq!(to_words(&m1), vec![FILL, 5, 0, 0, 2, 3, 4, 0]);
}

#[test]
fn typed_buffers_convert_and_drop_out_of_range() {
    let text = "cs_5_0
        dcl_uav_typed_buffer (uint,uint,uint,uint) u0
        dcl_uav_typed_buffer (float,float,float,float) u1
        dcl_uav_raw u2
        dcl_temps 2
        dcl_thread_group 1, 1, 1
        store_uav_typed u0.xyzw, l(1, 0, 0, 0), l(7, 7, 7, 7)
        store_uav_typed u0.xyzw, l(2, 0, 0, 0), l(9, 9, 9, 9)
        ld_uav_typed r0.xyzw, l(5, 0, 0, 0), u0.xyzw
        ld_uav_typed r1.xyzw, l(1, 0, 0, 0), u0.xxxx
        store_raw u2.xyzw, l(0), r0.xyzw
        store_raw u2.xyzw, l(16), r1.xyzw
        store_uav_typed u1.xyzw, l(0, 0, 0, 0), l(0.500000, -1.000000, 0x7fc00000, 2.000000)
        ld_uav_typed r0.xyzw, l(0, 0, 0, 0), u1.xyzw
        store_raw u2.xyzw, l(32), r0.xyzw
        ret";
    let mut m0 = to_bytes(&[FILL; 4]);
    let mut m1 = vec![0u8; 4];
    let mut m2 = vec![0u8; 48];
    run_program(text, |b| {
        b.uav(Slot::new(0), &mut m0, typed(Format::R32Uint, 1, 2));
        b.uav(Slot::new(1), &mut m1, typed(Format::R8G8B8A8Unorm, 0, 1));
        b.uav(Slot::new(2), &mut m2, raw(12));
    });
    assert_eq!(to_words(&m0), vec![FILL, FILL, 7, FILL]);
    assert_eq!(m1, vec![128, 0, 0, 255]);
    let out = to_words(&m2);
    assert_eq!(&out[0..4], &[0, 0, 0, 1]);
    assert_eq!(&out[4..8], &[7, 7, 7, 7]);
    assert_eq!(&out[8..12], &[f(128.0 / 255.0), 0, 0, f(1.0)]);
}

#[test]
fn tgsm_bounds_are_per_declaration() {
    let text = "cs_5_0
        dcl_uav_raw u0
        dcl_temps 3
        dcl_tgsm_raw g0, 8
        dcl_tgsm_structured g1, 8, 2
        dcl_thread_group 1, 1, 1
        store_raw g0.xyzw, l(4), l(1, 2, 3, 4)
        ld_raw r0.xyzw, l(0), g0.xyzw
        store_structured g1.xy, l(1), l(0), l(5, 6, 0, 0)
        store_structured g1.x, l(2), l(0), l(8)
        ld_structured r1.xyzw, l(1), l(0), g1.xyzw
        ld_raw r2.x, l(8), g0.xxxx
        store_raw u0.xyzw, l(0), r0.xyzw
        store_raw u0.xyzw, l(16), r1.xyzw
        store_raw u0.x, l(32), r2.x
        ret";
    let out = run_u0(text, &[FILL; 9], 9, [1, 1, 1]);
    assert_eq!(out, vec![0, 1, 0, 0, 5, 6, 0, 0, 0]);
}

#[test]
fn constant_buffers_icb_and_indexable_temps_read_zero_out_of_bounds() {
    let text = "cs_5_0
        dcl_immediateConstantBuffer { { 1, 2, 3, 4},
                                      { 5, 6, 7, 8} }
        dcl_constantbuffer cb0[2], dynamicIndexed
        dcl_uav_raw u0
        dcl_temps 4
        dcl_indexableTemp x0[4], 4
        dcl_thread_group 1, 1, 1
        mov r0.x, l(1)
        mov r1.xyzw, cb0[r0.x + 0].xyzw
        mov r2.xyzw, cb0[r0.x + 1].xyzw
        store_raw u0.xyzw, l(0), r1.xyzw
        store_raw u0.xyzw, l(16), r2.xyzw
        mov r1.xyzw, icb[r0.x + 0].wzyx
        mov r2.xyzw, icb[r0.x + 1].xyzw
        store_raw u0.xyzw, l(32), r1.xyzw
        store_raw u0.xyzw, l(48), r2.xyzw
        mov x0[3].xyzw, l(1, 2, 3, 4)
        mov x0[r0.x + 3].xyzw, l(9, 9, 9, 9)
        mov r1.xyzw, x0[r0.x + 2].xyzw
        mov r2.xyzw, x0[r0.x + 3].xyzw
        mov r3.x, l(-1)
        mov r3.yzw, cb0[r3.x + 0].xxyz
        store_raw u0.xyzw, l(64), r1.xyzw
        store_raw u0.xyzw, l(80), r2.xyzw
        store_raw u0.xyzw, l(96), r3.xyzw
        ret";
    let cb = to_bytes(&[10, 11, 12, 13, 14, 15, 16, 17]);
    let mut mem = vec![0xFFu8; 112];
    run_program(text, |b| {
        b.cb(Slot::new(0), &cb);
        b.uav(Slot::new(0), &mut mem, raw(28));
    });
    let out = to_words(&mem);
    assert_eq!(&out[0..8], &[14, 15, 16, 17, 0, 0, 0, 0]);
    assert_eq!(&out[8..16], &[8, 7, 6, 5, 0, 0, 0, 0]);
    assert_eq!(&out[16..24], &[1, 2, 3, 4, 0, 0, 0, 0]);
    assert_eq!(&out[24..28], &[u32::MAX, 0, 0, 0]);
}

#[test]
fn raw_atomics_and_immediate_atomics() {
    let text = "cs_5_0
        dcl_uav_raw u0
        dcl_uav_raw u1
        dcl_temps 2
        dcl_thread_group 1, 1, 1
        atomic_iadd u0, l(0), l(5)
        atomic_and u0, l(4), l(0x3c)
        atomic_or u0, l(8), l(0x0f)
        atomic_xor u0, l(12), l(0xff)
        atomic_imax u0, l(16), l(-1)
        atomic_umax u0, l(20), l(-1)
        atomic_imin u0, l(24), l(-1)
        atomic_umin u0, l(28), l(3)
        imm_atomic_iadd r0.x, u0, l(0), l(1)
        imm_atomic_exch r0.y, u0, l(4), l(77)
        imm_atomic_cmp_exch r0.z, u0, l(8), l(0xff), l(1)
        imm_atomic_cmp_exch r0.w, u0, l(8), l(0xff), l(2)
        atomic_cmp_store u0, l(12), l(0x0f), l(3)
        atomic_iadd u0, l(400), l(1)
        imm_atomic_iadd r1.x, u0, l(400), l(1)
        imm_atomic_or r1.y, u0, l(16), l(0x100)
        imm_atomic_xor r1.z, u0, l(16), l(0x100)
        imm_atomic_and r1.w, u0, l(16), l(0x3)
        store_raw u1.xyzw, l(0), r0.xyzw
        store_raw u1.xyzw, l(16), r1.xyzw
        imm_atomic_imax r0.x, u0, l(24), l(-5)
        imm_atomic_imin r0.y, u0, l(24), l(-7)
        imm_atomic_umax r0.z, u0, l(28), l(10)
        imm_atomic_umin r0.w, u0, l(28), l(4)
        store_raw u1.xyzw, l(32), r0.xyzw
        ret";
    let mut m0 = to_bytes(&[10, 0xF0, 0xF0, 0xF0, 5, 5, 5, 5]);
    let mut m1 = vec![0xFFu8; 48];
    run_program(text, |b| {
        b.uav(Slot::new(0), &mut m0, raw(8));
        b.uav(Slot::new(1), &mut m1, raw(12));
    });
    assert_eq!(
        to_words(&m0),
        vec![16, 77, 1, 3, 1, u32::MAX, (-7i32) as u32, 4]
    );
    let out = to_words(&m1);
    assert_eq!(&out[0..4], &[15, 0x30, 0xFF, 1]);
    assert_eq!(&out[4..8], &[0, 5, 0x105, 5]);
    assert_eq!(&out[8..12], &[u32::MAX, u32::MAX, 3, 10]);
}

#[test]
fn structured_typed_and_tgsm_atomics() {
    let text = "cs_5_0
        dcl_uav_structured u0, 8
        dcl_uav_typed_buffer (uint,uint,uint,uint) u1
        dcl_uav_raw u2
        dcl_temps 2
        dcl_tgsm_structured g0, 4, 4
        dcl_thread_group 1, 1, 1
        atomic_iadd u0, l(1, 4, 0, 0), l(3)
        atomic_iadd u0, l(2, 0, 0, 0), l(3)
        imm_atomic_umax r0.x, u1, l(2, 0, 0, 0), l(9)
        imm_atomic_umax r0.w, u1, l(3, 0, 0, 0), l(9)
        atomic_iadd g0, l(2, 0, 0, 0), l(5)
        ld_structured r0.y, l(2), l(0), g0.xxxx
        imm_atomic_iadd r0.z, g0, l(9, 0, 0, 0), l(1)
        store_raw u2.xyzw, l(0), r0.xyzw
        ret";
    let mut m0 = to_bytes(&[1, 1, 1, 1, 1, 1]);
    let mut m1 = to_bytes(&[4, 4, 4]);
    let mut m2 = vec![0xFFu8; 16];
    run_program(text, |b| {
        b.uav(Slot::new(0), &mut m0, structured(8, 0, 2));
        b.uav(Slot::new(1), &mut m1, typed(Format::R32Uint, 0, 3));
        b.uav(Slot::new(2), &mut m2, raw(4));
    });
    assert_eq!(to_words(&m0), vec![1, 1, 1, 4, 1, 1]);
    assert_eq!(to_words(&m1), vec![4, 4, 9]);
    assert_eq!(to_words(&m2), vec![4, 5, 0, 0]);
}

#[test]
fn hidden_counters_alloc_and_consume() {
    let text = "cs_5_0
        dcl_uav_structured u0, 4
        dcl_uav_structured u1, 4
        dcl_uav_raw u2
        dcl_temps 1
        dcl_thread_group 2, 1, 1
        dcl_input vThreadIDInGroupFlattened
        imm_atomic_alloc r0.x, u0
        imm_atomic_consume r0.y, u1
        ishl r0.z, vThreadIDInGroupFlattened.x, l(3)
        store_raw u2.xy, r0.z, r0.xyxx
        ret";
    let interp = Interpreter::new(&parse(text)).unwrap();
    let (mut m0, mut m1, mut m2) = (vec![0u8; 16], vec![0u8; 16], vec![0u8; 16]);
    let mut b = Bindings::new();
    b.uav_with_counter(Slot::new(0), &mut m0, structured(4, 0, 4), 5);
    b.uav_with_counter(Slot::new(1), &mut m1, structured(4, 0, 4), 0);
    b.uav(Slot::new(2), &mut m2, raw(4));
    interp
        .dispatch(&mut b, [1, 1, 1], &DispatchOptions::default())
        .unwrap();
    assert_eq!(b.counter(Slot::new(0)), Some(7));
    assert_eq!(b.counter(Slot::new(1)), Some(u32::MAX - 1));
    drop(b);
    assert_eq!(to_words(&m2), vec![5, u32::MAX, 6, u32::MAX - 1]);
}

#[test]
fn texture_ld_resinfo_bufinfo_and_sampleinfo() {
    let text = "cs_5_0
        dcl_resource_texture2d (uint,uint,uint,uint) t0
        dcl_resource_raw t1
        dcl_resource_structured t2, 16
        dcl_resource_buffer (uint,uint,uint,uint) t3
        dcl_uav_raw u0
        dcl_temps 4
        dcl_thread_group 1, 1, 1
        ld r0.xyzw, l(1, 1, 0, 0), t0.xyzw
        ld r1.xyzw, l(1, 0, 0, 1), t0.xxxx
        ld r2.xyzw, l(4, 0, 0, 0), t0.xyzw
        resinfo_uint r3.xyzw, l(1), t0.xyzw
        store_raw u0.xyzw, l(0), r0.xyzw
        store_raw u0.xyzw, l(16), r1.xyzw
        store_raw u0.xyzw, l(32), r2.xyzw
        store_raw u0.xyzw, l(48), r3.xyzw
        resinfo r0.xyzw, l(0), t0.xyzw
        resinfo_rcpFloat r1.xyzw, l(0), t0.xyzw
        resinfo_uint r2.xyzw, l(5), t0.wzyx
        store_raw u0.xyzw, l(64), r0.xyzw
        store_raw u0.xyzw, l(80), r1.xyzw
        store_raw u0.xyzw, l(96), r2.xyzw
        bufinfo r0.x, t1
        bufinfo r0.y, t2
        bufinfo r0.z, t3
        sampleinfo r0.w, t0.x
        store_raw u0.xyzw, l(112), r0.xyzw
        ret";
    let tex = TextureView {
        mip_levels: 2,
        ..TextureView::tex2d(Format::R32Uint, 4, 2)
    };
    let texels: Vec<u32> = (0..10).collect();
    let t0 = to_bytes(&texels);
    let t1 = vec![0u8; 12];
    let t2 = vec![0u8; 64];
    let t3 = vec![0u8; 12];
    let mut mem = vec![0u8; 128];
    run_program(text, |b| {
        b.srv(Slot::new(0), &t0, View::Texture(tex));
        b.srv(Slot::new(1), &t1, raw(3));
        b.srv(Slot::new(2), &t2, structured(16, 1, 3));
        b.srv(Slot::new(3), &t3, typed(Format::R32Uint, 0, 3));
        b.uav(Slot::new(0), &mut mem, raw(32));
    });
    let out = to_words(&mem);
    assert_eq!(&out[0..4], &[5, 0, 0, 1]);
    assert_eq!(&out[4..8], &[9, 9, 9, 9]);
    assert_eq!(&out[8..12], &[0, 0, 0, 1]);
    assert_eq!(&out[12..16], &[2, 1, 0, 2]);
    assert_eq!(&out[16..20], &[f(4.0), f(2.0), 0, f(2.0)]);
    assert_eq!(&out[20..24], &[f(0.25), f(0.5), 0, f(2.0)]);
    assert_eq!(&out[24..28], &[2, 0, 0, 0]);
    assert_eq!(&out[28..32], &[12, 3, 3, f(1.0)]);
}

#[test]
fn typed_texture_uav_with_array_slices() {
    let text = "cs_5_0
        dcl_uav_typed_texture2darray (uint,uint,uint,uint) u0
        dcl_temps 1
        dcl_thread_group 1, 1, 1
        store_uav_typed u0.xyzw, l(1, 0, 1, 0), l(0x1ff, 2, 3, 4)
        store_uav_typed u0.xyzw, l(0, 0, 2, 0), l(9, 9, 9, 9)
        ld_uav_typed r0.xyzw, l(1, 0, 1, 0), u0.xyzw
        store_uav_typed u0.xyzw, l(0, 0, 0, 0), r0.yxzw
        ret";
    let view = TextureView {
        dim: sm5jit::runtime::TextureDim::Tex2DArray,
        format: Format::R8G8Uint,
        width: 2,
        height: 1,
        depth_or_array: 2,
        mip_levels: 1,
        row_pitch: 4,
        slice_pitch: 4,
    };
    let mut mem = vec![0u8; 8];
    run_program(text, |b| {
        b.uav(Slot::new(0), &mut mem, View::Texture(view));
    });
    assert_eq!(mem, vec![2, 255, 0, 0, 0, 0, 255, 2]);
}

#[test]
fn sm51_resource_ranges_resolve_space_and_dynamic_index() {
    let text = "cs_5_1
        dcl_uav_raw U0[2:5], space=1
        dcl_temps 1
        dcl_thread_group 1, 1, 1
        mov r0.x, l(1)
        store_raw U0[r0.x + 2].x, l(0), l(42)
        store_raw U0[4].x, l(0), l(43)
        store_raw U0[r0.x + 8].x, l(0), l(44)
        ret";
    let interp = Interpreter::new(&parse(text)).unwrap();
    let mut mems = [[0u8; 4]; 4];
    let mut outside = [0u8; 4];
    let mut space0 = [0u8; 4];
    let mut b = Bindings::new();
    for (i, m) in mems.iter_mut().enumerate() {
        b.uav(
            Slot {
                space: 1,
                index: 2 + i as u32,
            },
            m,
            raw(1),
        );
    }
    b.uav(Slot { space: 1, index: 9 }, &mut outside, raw(1));
    b.uav(Slot { space: 0, index: 3 }, &mut space0, raw(1));
    interp
        .dispatch(&mut b, [1, 1, 1], &DispatchOptions::default())
        .unwrap();
    drop(b);
    let words: Vec<u32> = mems.iter().map(|m| u32::from_le_bytes(*m)).collect();
    assert_eq!(words, vec![0, 42, 43, 0]);
    // Register 9 is outside the range U0[2:5]; space 0 is another space.
    assert_eq!((outside, space0), ([0; 4], [0; 4]));
}

#[test]
fn pixel_invocation_outputs_and_discard() {
    let text = "ps_5_0
        dcl_input_ps linear v0.xy
        dcl_output o0.xyzw
        dcl_output o1.x
        add o0.xyzw, v0.xyxy, l(1.000000, 1.000000, 1.000000, 1.000000)
        mov o1.x, l(5)
        discard_nz v0.z
        mov o1.x, l(6)
        ret";
    let interp = Interpreter::new(&parse(text)).unwrap();
    let mut b = Bindings::new();
    let o = DispatchOptions::default();
    let inv = interp
        .run_invocation(&mut b, &[(0, [f(1.0), f(2.0), 0, 0])], &o)
        .unwrap();
    assert!(!inv.discarded);
    assert_eq!(
        inv.outputs,
        vec![(0, [f(2.0), f(3.0), f(2.0), f(3.0)]), (1, [6, 0, 0, 0])]
    );
    let inv = interp
        .run_invocation(&mut b, &[(0, [0, 0, 1, 0])], &o)
        .unwrap();
    assert!(inv.discarded);
    // A discarded pixel keeps running as a helper (semantics.md §9a): its
    // registers, o# included, go on to the end; no caller uses them.
    assert_eq!(inv.outputs[1], (1, [6, 0, 0, 0]));
}

#[test]
fn sampling_with_an_unbound_sampler_uses_the_default_state() {
    // The D3D11 default sampler is trilinear + clamp: the centre of a 2x1
    // texture (1, 3) blends both texels equally.
    let text = "cs_5_0
        dcl_sampler s0, mode_default
        dcl_resource_texture2d (float,float,float,float) t0
        dcl_uav_raw u0
        dcl_temps 1
        dcl_thread_group 1, 1, 1
        sample_l r0.xyzw, l(0.5, 0.5, 0, 0), t0.xyzw, s0, l(0)
        store_raw u0.xyzw, l(0), r0.xyzw
        ret";
    let interp = Interpreter::new(&parse(text)).unwrap();
    let t0: Vec<u8> = [1.0f32, 3.0].iter().flat_map(|x| x.to_le_bytes()).collect();
    let mut out = vec![0u8; 16];
    let mut b = Bindings::new();
    b.srv(
        Slot::new(0),
        &t0,
        View::Texture(TextureView::tex2d(Format::R32Float, 2, 1)),
    );
    b.uav(Slot::new(0), &mut out, raw(4));
    interp
        .dispatch(&mut b, [1, 1, 1], &DispatchOptions::default())
        .unwrap();
    drop(b);
    assert_eq!(to_words(&out), vec![f(2.0), 0, 0, f(1.0)]);
}

#[test]
fn infinite_loop_stops_with_a_budget_error() {
    let text = "cs_5_0\ndcl_temps 1\ndcl_thread_group 1, 1, 1\nloop\niadd r0.x, r0.x, l(1)\nendloop\nret\n";
    let interp = Interpreter::new(&parse(text)).unwrap();
    let start = std::time::Instant::now();
    let err = interp
        .dispatch(&mut Bindings::new(), [1, 1, 1], &DispatchOptions::default())
        .unwrap_err();
    let took = start.elapsed();
    assert!(
        matches!(
            err,
            RuntimeError::BudgetExhausted {
                group: [0, 0, 0],
                inst_index: 1 | 2
            }
        ),
        "{err:?}"
    );
    eprintln!(
        "default budget of {} instructions used up in {took:?}",
        sm5jit::runtime::DEFAULT_BUDGET
    );
    // Generous on purpose: the point is that the runaway loop stops at all
    // (about half a second alone); the suite runs tests side by side on
    // two cores, and speed is measured by the benchmarks, not here.
    assert!(took < std::time::Duration::from_secs(30), "took {took:?}");
}

#[test]
fn budget_counts_per_group_and_names_the_group() {
    let text = "cs_5_0\ndcl_temps 1\ndcl_input vThreadGroupID.x\ndcl_thread_group 1, 1, 1
        if_nz vThreadGroupID.x
          loop
          endloop
        endif
        ret";
    let interp = Interpreter::new(&parse(text)).unwrap();
    let o = DispatchOptions { budget: 100 };
    let err = interp
        .dispatch(&mut Bindings::new(), [3, 1, 1], &o)
        .unwrap_err();
    assert!(
        matches!(
            err,
            RuntimeError::BudgetExhausted {
                group: [1, 0, 0],
                ..
            }
        ),
        "{err:?}"
    );
    let stats = interp
        .dispatch(&mut Bindings::new(), [1, 1, 1], &o)
        .unwrap();
    assert_eq!((stats.groups, stats.instructions), (1, 2));
}

const BINDING_PROGRAM: &str = "cs_5_0
    dcl_constantbuffer cb0[1], immediateIndexed
    dcl_resource_raw t0
    dcl_uav_structured u0, 4
    dcl_temps 1
    dcl_thread_group 1, 1, 1
    store_structured u0.x, l(0), l(0), cb0[0].x
    ret";

/// Dispatches BINDING_PROGRAM with the given u0 view and memory size;
/// t0 and cb0 are bound unless `skip_t0`.
fn bind_and_run(
    u0: View,
    u0_bytes: usize,
    skip_t0: bool,
    groups: [u32; 3],
) -> Result<Vec<u32>, RuntimeError> {
    let interp = Interpreter::new(&parse(BINDING_PROGRAM)).unwrap();
    let cb = to_bytes(&[77, 0, 0, 0]);
    let t0 = vec![0u8; 16];
    let mut m0 = vec![0u8; u0_bytes];
    let mut b = Bindings::new();
    b.cb(Slot::new(0), &cb);
    if !skip_t0 {
        b.srv(Slot::new(0), &t0, raw(4));
    }
    b.uav(Slot::new(0), &mut m0, u0);
    interp.dispatch(&mut b, groups, &DispatchOptions::default())?;
    drop(b);
    Ok(to_words(&m0))
}

#[test]
fn correct_bindings_run() {
    assert_eq!(
        bind_and_run(structured(4, 0, 2), 8, false, [1, 1, 1]).unwrap(),
        vec![77, 0]
    );
}

#[test]
fn zero_sized_dispatch_does_nothing() {
    assert_eq!(
        bind_and_run(structured(4, 0, 2), 8, false, [4, 0, 1]).unwrap(),
        vec![0, 0]
    );
}

#[test]
fn missing_binding_is_an_error() {
    let err = bind_and_run(structured(4, 0, 2), 8, true, [1, 1, 1]).unwrap_err();
    assert_eq!(
        err,
        RuntimeError::MissingBinding {
            kind: sm5jit::runtime::BindingKind::Srv,
            slot: Slot::new(0)
        }
    );
}

#[test]
fn kind_and_stride_mismatches_are_errors() {
    let err = bind_and_run(raw(2), 8, false, [1, 1, 1]).unwrap_err();
    assert!(
        matches!(
            err,
            RuntimeError::BindingKindMismatch {
                slot: Slot { space: 0, index: 0 },
                ..
            }
        ),
        "{err:?}"
    );
    let err = bind_and_run(structured(8, 0, 1), 8, false, [1, 1, 1]).unwrap_err();
    assert!(
        err.to_string().contains("stride 4") && err.to_string().contains("stride 8"),
        "{err}"
    );
    let err = bind_and_run(typed(Format::R32Uint, 0, 2), 8, false, [1, 1, 1]).unwrap_err();
    assert!(
        matches!(err, RuntimeError::BindingKindMismatch { .. }),
        "{err:?}"
    );
}

#[test]
fn view_larger_than_memory_is_an_error() {
    let err = bind_and_run(structured(4, 1, 2), 8, false, [1, 1, 1]).unwrap_err();
    assert!(
        matches!(
            err,
            RuntimeError::ViewOutOfRange {
                needed: 12,
                available: 8,
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn dispatch_size_limits() {
    let err = bind_and_run(structured(4, 0, 2), 8, false, [65536, 1, 1]).unwrap_err();
    assert!(
        matches!(
            err,
            RuntimeError::TooManyGroups {
                groups: [65536, 1, 1],
                ..
            }
        ),
        "{err:?}"
    );
    let text = "cs_4_0\ndcl_uav_raw u0\ndcl_temps 1\ndcl_thread_group 1, 1, 1\nret\n";
    let interp = Interpreter::new(&parse(text)).unwrap();
    let mut m = vec![0u8; 4];
    let mut b = Bindings::new();
    b.uav(Slot::new(0), &mut m, raw(1));
    let err = interp
        .dispatch(&mut b, [1, 1, 2], &DispatchOptions::default())
        .unwrap_err();
    assert!(matches!(err, RuntimeError::TooManyGroups { .. }), "{err:?}");
    assert!(interp
        .dispatch(&mut b, [65535, 1, 1], &DispatchOptions::default())
        .is_ok());
}

#[test]
fn dispatch_indirect_reads_aligned_in_range_arguments() {
    let text = "cs_5_0
        dcl_uav_raw u0
        dcl_input vThreadGroupID.x
        dcl_temps 1
        dcl_thread_group 1, 1, 1
        atomic_iadd u0, l(0), l(1)
        ret";
    let interp = Interpreter::new(&parse(text)).unwrap();
    let args = to_bytes(&[9, 3, 2, 1]);
    let mut m = vec![0u8; 4];
    let o = DispatchOptions::default();
    let mut b = Bindings::new();
    b.uav(Slot::new(0), &mut m, raw(1));
    let stats = interp.dispatch_indirect(&mut b, &args, 4, &o).unwrap();
    assert_eq!(stats.groups, 6);
    for bad in [2u64, 8, u64::MAX - 3] {
        let err = interp
            .dispatch_indirect(&mut b, &args, bad, &o)
            .unwrap_err();
        assert!(
            matches!(err, RuntimeError::BadIndirectArgs { offset, len: 16 } if offset == bad),
            "{err:?}"
        );
    }
    drop(b);
    assert_eq!(to_words(&m), vec![6]);
}

#[test]
fn non_compute_programs_cannot_be_dispatched() {
    let interp = Interpreter::new(&parse(
        "ps_5_0\ndcl_output o0.xyzw\nmov o0.xyzw, l(0, 0, 0, 0)\nret\n",
    ))
    .unwrap();
    let err = interp
        .dispatch(&mut Bindings::new(), [1, 1, 1], &DispatchOptions::default())
        .unwrap_err();
    assert!(
        matches!(err, RuntimeError::InvalidProgram { .. }),
        "{err:?}"
    );
    let cs = Interpreter::new(&parse("cs_5_0\ndcl_thread_group 1, 1, 1\nret\n")).unwrap();
    let err = cs
        .run_invocation(&mut Bindings::new(), &[], &DispatchOptions::default())
        .unwrap_err();
    assert!(
        matches!(err, RuntimeError::InvalidProgram { .. }),
        "{err:?}"
    );
}

#[test]
fn unbalanced_control_flow_is_rejected_at_prepare() {
    for (text, at) in [
        ("cs_5_0\ndcl_thread_group 1, 1, 1\nif_nz l(1)\nret\n", 0),
        ("cs_5_0\ndcl_thread_group 1, 1, 1\nendloop\nret\n", 0),
        ("cs_5_0\ndcl_thread_group 1, 1, 1\nret\nbreak\n", 1),
        ("cs_5_0\ndcl_thread_group 1, 1, 1\nloop\nelse\nendloop\n", 1),
    ] {
        let err = Interpreter::new(&parse(text)).unwrap_err();
        assert!(
            matches!(err, RuntimeError::InvalidProgram { inst_index: Some(i), .. } if i == at),
            "{text}: {err:?}"
        );
    }
}

#[test]
fn feedback_loads_multisample_loads_and_sample_positions() {
    let text = "cs_5_0
        dcl_resource_raw t0
        dcl_resource_texture2dms(0) (uint,uint,uint,uint) t1
        dcl_uav_raw u0
        dcl_temps 4
        dcl_thread_group 1, 1, 1
        ld_raw_s r0.xy, r1.x, l(4), t0.xyxx
        check_access_fully_mapped r1.y, r1.x
        ld2dms r2.xyzw, l(1, 0, 0, 0), t1.xyzw, l(0)
        ld2dms r3.xyzw, l(1, 0, 0, 0), t1.xyzw, l(1)
        store_raw u0.xyzw, l(0), r0.xyxy
        store_raw u0.xy, l(16), r1.xyxx
        store_raw u0.xyzw, l(32), r2.xyzw
        store_raw u0.xyzw, l(48), r3.xyzw
        samplepos r0.xyzw, t1.xyzw, l(0)
        store_raw u0.xyzw, l(64), r0.xyzw
        ret";
    let t0 = to_bytes(&[10, 11, 12]);
    let t1 = to_bytes(&[20, 21]);
    let mut mem = vec![0xFFu8; 80];
    run_program(text, |b| {
        b.srv(Slot::new(0), &t0, raw(3));
        b.srv(
            Slot::new(1),
            &t1,
            View::Texture(TextureView::tex2d(Format::R32Uint, 2, 1)),
        );
        b.uav(Slot::new(0), &mut mem, raw(20));
    });
    let out = to_words(&mem);
    assert_eq!(&out[0..4], &[11, 12, 11, 12]);
    assert_eq!(&out[4..6], &[u32::MAX, u32::MAX]);
    assert_eq!(&out[8..12], &[21, 0, 0, 1]);
    assert_eq!(&out[12..16], &[0, 0, 0, 1]);
    assert_eq!(&out[16..20], &[0, 0, 0, 0]);
}

/// A zeroed binding of the kind a declaration asks for.
fn zeroed_view(kind: sm5jit::analysis::ResKind) -> (View, usize) {
    use sm5jit::analysis::ResKind;
    use sm5jit::ir::ResourceDim;
    use sm5jit::runtime::TextureDim;
    let tex = |dim, layers| {
        let t = TextureView {
            dim,
            depth_or_array: layers,
            ..TextureView::tex2d(Format::R32G32B32A32Float, 8, 8)
        };
        (View::Texture(t), t.size_bytes() as usize)
    };
    match kind {
        ResKind::Raw => (raw(256), 1024),
        ResKind::Structured { stride } => (structured(stride, 0, 64), 64 * stride as usize),
        ResKind::Typed { dim, .. } => match dim {
            ResourceDim::Buffer => (typed(Format::R32G32B32A32Float, 0, 64), 1024),
            ResourceDim::Texture1D => tex(TextureDim::Tex1D, 1),
            ResourceDim::Texture1DArray => tex(TextureDim::Tex1DArray, 2),
            ResourceDim::Texture3D => tex(TextureDim::Tex3D, 2),
            ResourceDim::Texture2DArray
            | ResourceDim::TextureCube
            | ResourceDim::TextureCubeArray => tex(TextureDim::Tex2DArray, 6),
            _ => tex(TextureDim::Tex2D, 1),
        },
    }
}

#[test]
fn realworld_shaders_run_a_group_on_zeroed_resources_or_say_why_not() {
    let root = crate::corpus_dir().join("realworld");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    dirs.sort();
    let (mut ran, mut unsupported, mut stopped) = (0, 0, 0);
    for dir in dirs {
        let bytes = std::fs::read(dir.join("shader.dxbc")).unwrap();
        let program = sm5jit::dxbc::read_dxbc(&bytes, &sm5jit::dxbc::ReadOptions::default())
            .unwrap()
            .program;
        let interp =
            Interpreter::new(&program).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        let p = interp.prepared();
        let srvs: Vec<_> = p.srvs.iter().map(|d| (d, zeroed_view(d.kind))).collect();
        let uavs: Vec<_> = p.uavs.iter().map(|d| (d, zeroed_view(d.kind))).collect();
        let srv_mem: Vec<Vec<u8>> = srvs.iter().map(|(_, (_, n))| vec![0u8; *n]).collect();
        let mut uav_mem: Vec<Vec<u8>> = uavs.iter().map(|(_, (_, n))| vec![0u8; *n]).collect();
        let cb = vec![0u8; 4096 * 16];
        let mut b = Bindings::new();
        for c in &p.cbs {
            b.cb(
                Slot {
                    space: c.space,
                    index: c.lower,
                },
                &cb,
            );
        }
        for ((d, (view, _)), mem) in srvs.iter().zip(&srv_mem) {
            b.srv(
                Slot {
                    space: d.space,
                    index: d.lower,
                },
                mem,
                *view,
            );
        }
        for ((d, (view, _)), mem) in uavs.iter().zip(uav_mem.iter_mut()) {
            b.uav_with_counter(
                Slot {
                    space: d.space,
                    index: d.lower,
                },
                mem,
                *view,
                0,
            );
        }
        let o = DispatchOptions { budget: 1 << 22 };
        match interp.dispatch(&mut b, [1, 1, 1], &o) {
            Ok(stats) => {
                assert!(stats.instructions > 0, "{}", dir.display());
                ran += 1;
            }
            Err(RuntimeError::Unsupported { what, .. }) => {
                assert!(what.contains("needs sampling"), "{}: {what}", dir.display());
                unsupported += 1;
            }
            Err(RuntimeError::BudgetExhausted { .. }) => stopped += 1,
            Err(e) => panic!("{}: {e}", dir.display()),
        }
    }
    eprintln!("realworld: {ran} ran, {unsupported} need sampling, {stopped} stopped by the budget");
    assert!(ran >= 10, "only {ran} ran");
}

#[test]
fn unbound_registers_of_a_range_read_zero_and_drop_writes() {
    let text = "cs_5_1
        dcl_uav_raw U0[0:3], space=0
        dcl_temps 2
        dcl_thread_group 1, 1, 1
        mov r0.x, l(2)
        store_raw U0[r0.x + 0].x, l(0), l(5)
        ld_raw r1.x, l(0), U0[r0.x + 0].xxxx
        imm_atomic_iadd r1.y, U0[r0.x + 0], l(0), l(1)
        bufinfo r1.z, U0[r0.x + 0]
        resinfo_uint r1.w, l(0), U0[r0.x + 0].xxxx
        imm_atomic_alloc r0.y, U0[r0.x + 0]
        iadd r1.w, r1.w, r0.y
        store_raw U0[0].xyzw, l(0), r1.xyzw
        ret";
    let interp = Interpreter::new(&parse(text)).unwrap();
    let mut m0 = vec![0xFFu8; 16];
    let mut b = Bindings::new();
    b.uav(Slot::new(0), &mut m0, raw(4));
    interp
        .dispatch(&mut b, [1, 1, 1], &DispatchOptions::default())
        .unwrap();
    drop(b);
    assert_eq!(to_words(&m0), vec![0, 0, 0, 0]);
}

#[test]
fn remaining_double_ops_nop_debug_break_and_feedback_loads() {
    let out = run1(
        "nop
         debug_break
         dmov r0.xyzw, d(3.000000, -2.000000)
         ddiv r1.xy, r0.xyxy, r0.zwzw
         dfma r1.zw, r0.xyxy, r0.zwzw, r0.xyxy
         store_raw u0.xyzw, l(0), r1.xyzw
         drcp r2.xy, r0.zwzw
         utod r2.zw, l(7, 0, 0, 0)
         store_raw u0.xyzw, l(16), r2.xyzw
         dge r3.x, r0.xyxy, r0.zwzw
         dne r3.y, r0.xyxy, r0.xyxy
         dne r3.z, r0.xyxy, r0.zwzw
         store_raw u0.xyz, l(32), r3.xyzx
         store_raw u0.x, l(48), l(0x12345678)
         ld_raw_s r4.x, r5.x, l(48), u0.xxxx
         check_access_fully_mapped r5.y, r5.x
         store_raw u0.xyz, l(52), r4.xyxx
         store_raw u0.x, l(60), r5.y",
    );
    let d = |a: f64, b: f64| [dwords(a)[0], dwords(a)[1], dwords(b)[0], dwords(b)[1]];
    assert_eq!(&out[0..4], &d(-1.5, -3.0));
    assert_eq!(&out[4..8], &d(-0.5, 7.0));
    assert_eq!(&out[8..11], &[TRUE, 0, TRUE]);
    assert_eq!(&out[12..15], &[0x12345678, 0x12345678, 0]);
    assert_eq!(out[15], TRUE, "a resident access reports fully mapped");
}

#[test]
fn abort_stops_the_dispatch_with_an_error() {
    let text = "cs_5_0\ndcl_uav_raw u0\ndcl_thread_group 1, 1, 1\nstore_raw u0.x, l(0), l(1)\nabort\nret\n";
    let interp = Interpreter::new(&parse(text)).unwrap();
    let mut mem = vec![0u8; 16];
    let mut b = Bindings::new();
    b.uav(Slot::new(0), &mut mem, raw(4));
    let err = interp
        .dispatch(&mut b, [1, 1, 1], &DispatchOptions::default())
        .expect_err("abort must stop the shader");
    assert!(err.to_string().contains("abort"), "{err}");
}
