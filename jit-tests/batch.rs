//! Vertex and pixel invocation batches (`runtime::batch`) on both engines:
//! every batch runs on the interpreter and on the JIT, the two results
//! (outputs, lane fates, UAV bytes) must be identical, and the values are
//! checked against hand-worked numbers: a vs_5_0 transform, coarse and
//! fine derivatives on known quads, derivatives in divergent flow,
//! discard, partial quads with helper lanes, implicit-LOD sampling from
//! the quad's coordinate gradients, and the typed errors.

use crate::util::{parse, raw, to_bytes, to_words};
use sm5jit::interp::Interpreter;
use sm5jit::jit::{CompileOptions, JitError, JitShader, Tier};
use sm5jit::runtime::batch::{BatchError, BatchInputs, BatchResult, LaneResult};
use sm5jit::runtime::{Bindings, DispatchOptions, Format, RuntimeError, Slot, TextureView, View};

fn f(x: f32) -> u32 {
    x.to_bits()
}

fn fv(v: [f32; 4]) -> [u32; 4] {
    v.map(f32::to_bits)
}

/// Memory bound to a batch: constant buffers and raw UAVs by slot.
#[derive(Clone, Default)]
struct Mem {
    cbs: Vec<(u32, Vec<u8>)>,
    uavs: Vec<(u32, Vec<u8>)>,
    texs: Vec<(u32, Vec<u8>, TextureView)>,
}

impl Mem {
    fn cb(mut self, slot: u32, words: &[u32]) -> Mem {
        self.cbs.push((slot, to_bytes(words)));
        self
    }

    fn tex(mut self, slot: u32, texels: &[f32], view: TextureView) -> Mem {
        let words: Vec<u32> = texels.iter().map(|x| x.to_bits()).collect();
        self.texs.push((slot, to_bytes(&words), view));
        self
    }

    fn uav(mut self, slot: u32, words: usize) -> Mem {
        self.uavs.push((slot, vec![0; 4 * words]));
        self
    }

    fn run(
        &mut self,
        f: impl FnOnce(&mut Bindings) -> Result<BatchResult, RuntimeError>,
    ) -> Result<BatchResult, RuntimeError> {
        let mut b = Bindings::new();
        for (s, d) in &self.cbs {
            b.cb(Slot::new(*s), d);
        }
        for (s, d) in self.uavs.iter_mut() {
            let n = d.len() as u64 / 4;
            b.uav(Slot::new(*s), d, raw(n));
        }
        for (s, d, view) in &self.texs {
            b.srv(Slot::new(*s), d, View::Texture(*view));
        }
        f(&mut b)
    }

    fn uav_words(&self, k: usize) -> Vec<u32> {
        to_words(&self.uavs[k].1)
    }
}

/// Runs `text` over `inputs` on the interpreter and on both JIT tiers;
/// asserts identical results and memory; returns the result and the
/// memory afterwards.
fn both(text: &str, inputs: &BatchInputs, mem: &Mem) -> (BatchResult, Mem) {
    let program = parse(text);
    let o = DispatchOptions::default();
    let interp = Interpreter::new(&program).expect("prepare");
    let mut mi = mem.clone();
    let ri = mi
        .run(|b| interp.run_batch(b, inputs, &o))
        .unwrap_or_else(|e| panic!("interpreter: {e}\n{text}"));
    for tier in [Tier::Zero, Tier::One] {
        let jit = JitShader::compile_with(&program, &CompileOptions::tier(tier))
            .unwrap_or_else(|e| panic!("compile {tier:?}: {e}\n{text}"));
        let mut mj = mem.clone();
        let rj = mj
            .run(|b| jit.run_batch(b, inputs, &o))
            .unwrap_or_else(|e| panic!("jit {tier:?}: {e}\n{text}"));
        assert_eq!(ri.lanes, rj.lanes, "lane results, {tier:?}\n{text}");
        for inv in 0..ri.count() {
            assert_eq!(
                ri.outputs(inv),
                rj.outputs(inv),
                "invocation {inv}, {tier:?}\n{text}"
            );
        }
        for k in 0..mi.uavs.len() {
            assert_eq!(
                mi.uav_words(k),
                mj.uav_words(k),
                "u{k} bytes, {tier:?}\n{text}"
            );
        }
    }
    (ri, mi)
}

/// Input data for `count` invocations of one register from `f(inv)`.
fn one_reg(count: usize, f: impl Fn(usize) -> [u32; 4]) -> Vec<u32> {
    (0..count).flat_map(f).collect()
}

#[test]
fn vertex_transform_by_a_matrix() {
    let text = "vs_5_0
dcl_constantbuffer cb0[4], immediateIndexed
dcl_input v0.xyzw
dcl_input v1.xyzw
dcl_output_siv o0.xyzw, position
dcl_output o1.xyzw
dp4 o0.x, v0.xyzw, cb0[0].xyzw
dp4 o0.y, v0.xyzw, cb0[1].xyzw
dp4 o0.z, v0.xyzw, cb0[2].xyzw
dp4 o0.w, v0.xyzw, cb0[3].xyzw
mov o1.xyzw, v1.xyzw
ret
";
    // Rows: x' = 2x + 1, y' = y - 1, z' = z, w' = w.
    let m = [
        2.0, 0.0, 0.0, 1.0, //
        0.0, 1.0, 0.0, -1.0, //
        0.0, 0.0, 1.0, 0.0, //
        0.0, 0.0, 0.0, 1.0,
    ];
    let mem = Mem::default().cb(0, &m.map(f32::to_bits));
    // 11 vertices: more than one JIT batch of 8, the last one partial.
    let n = 11;
    let data: Vec<u32> = (0..n)
        .flat_map(|i| {
            let i = i as f32;
            let mut v = fv([i, 2.0 * i, 0.5, 1.0]).to_vec();
            v.extend(fv([i / 10.0, 1.0, 0.0, 1.0]));
            v
        })
        .collect();
    let (r, _) = both(text, &BatchInputs::new(n, 2, &data), &mem);
    assert_eq!(r.registers, vec![0, 1]);
    for i in 0..n {
        let x = i as f32;
        assert_eq!(
            r.output(i, 0),
            Some(fv([2.0 * x + 1.0, 2.0 * x - 1.0, 0.5, 1.0])),
            "vertex {i}"
        );
        assert_eq!(r.output(i, 1), Some(fv([x / 10.0, 1.0, 0.0, 1.0])));
        assert_eq!(r.lanes[i], LaneResult::Written);
    }
}

/// Full batches take the runner's four-lane copies (`jit::transpose`),
/// a batch with a discarded pixel and a partial last batch the lane-by-lane
/// ones: registers the caller gives past the program's, registers the
/// program skips and outputs declared out of order land where each
/// invocation's own copy would put them.
#[test]
fn full_partial_and_discarding_batches_copy_every_register_component() {
    let text = "ps_5_0
dcl_input_ps linear v0.xyzw
dcl_input_ps linear v2.xyzw
dcl_output o2.xyzw
dcl_output o0.xyzw
dcl_temps 1
mov o2.xyzw, v0.wzyx
iadd o0.xyzw, v2.xyzw, l(1, 2, 3, 4)
ieq r0.x, v2.x, l(1320)
discard_nz r0.x
ret
";
    // Four registers per pixel (v1 and v3 unused); pixel 13's v2.x is
    // 1320, so it discards; 28 pixels: three full batches and one of 4.
    let n = 28;
    let value = |inv: usize, r: usize, c: usize| (inv * 100 + r * 10 + c) as u32;
    let data: Vec<u32> = (0..n)
        .flat_map(|inv| (0..16).map(move |k| value(inv, k / 4, k % 4)))
        .collect();
    let (res, _) = both(text, &BatchInputs::new(n, 4, &data), &Mem::default());
    assert_eq!(res.registers, vec![2, 0]);
    for inv in 0..n {
        if inv == 13 {
            assert_eq!(res.lanes[inv], LaneResult::Discarded);
            assert_eq!(res.output(inv, 0), None);
            continue;
        }
        assert_eq!(res.lanes[inv], LaneResult::Written, "pixel {inv}");
        let v0: [u32; 4] = std::array::from_fn(|c| value(inv, 0, 3 - c));
        let v2: [u32; 4] = std::array::from_fn(|c| value(inv, 2, c) + c as u32 + 1);
        assert_eq!(res.output(inv, 2), Some(v0), "pixel {inv}");
        assert_eq!(res.output(inv, 0), Some(v2), "pixel {inv}");
    }
}

const DERIVS: &str = "ps_5_0
dcl_input_ps linear v0.xy
dcl_output o0.xyzw
dcl_output o1.xyzw
deriv_rtx_coarse o0.x, v0.x
deriv_rty_coarse o0.y, v0.x
deriv_rtx_fine o0.z, v0.x
deriv_rty_fine o0.w, v0.x
deriv_rtx o1.x, v0.y
deriv_rty o1.y, -v0.y
deriv_rtx_fine_sat o1.z, v0.y
mov o1.w, l(0)
ret
";

#[test]
fn coarse_and_fine_derivatives_on_known_quads() {
    // Quad q: v0.x = (1, 3, 10, 20) * (q + 1); v0.y = (0, 0.25, 5, 5).
    let quads = 3;
    let data = one_reg(4 * quads, |i| {
        let s = (i / 4 + 1) as f32;
        let x = [1.0, 3.0, 10.0, 20.0][i % 4] * s;
        let y = [0.0, 0.25, 5.0, 5.0][i % 4];
        fv([x, y, 0.0, 0.0])
    });
    let (r, _) = both(
        DERIVS,
        &BatchInputs::new(4 * quads, 1, &data),
        &Mem::default(),
    );
    for q in 0..quads {
        let s = (q + 1) as f32;
        // coarse x: TR - TL = 2s; coarse y: BL - TL = 9s (every lane).
        // fine x: rows (2s, 2s, 10s, 10s); fine y: columns (9s, 17s, 9s, 17s).
        let want0 = [
            [2.0 * s, 9.0 * s, 2.0 * s, 9.0 * s],
            [2.0 * s, 9.0 * s, 2.0 * s, 17.0 * s],
            [2.0 * s, 9.0 * s, 10.0 * s, 9.0 * s],
            [2.0 * s, 9.0 * s, 10.0 * s, 17.0 * s],
        ];
        // v0.y: coarse x 0.25, coarse y of -v0.y is -5, fine x saturated:
        // top row 0.25, bottom row 0.
        let want1 = [
            [0.25, -5.0, 0.25, 0.0],
            [0.25, -5.0, 0.25, 0.0],
            [0.25, -5.0, 0.0, 0.0],
            [0.25, -5.0, 0.0, 0.0],
        ];
        for k in 0..4 {
            assert_eq!(
                r.output(4 * q + k, 0),
                Some(fv(want0[k])),
                "quad {q} lane {k}"
            );
            assert_eq!(
                r.output(4 * q + k, 1),
                Some(fv(want1[k])),
                "quad {q} lane {k}"
            );
        }
    }
}

#[test]
fn derivatives_in_divergent_flow_read_the_neighbours_registers() {
    // Lanes 0 and 1 take the branch and double r0.x; lanes 2 and 3 keep
    // theirs, which the fine y derivative reads.
    let text = "ps_5_0
dcl_input_ps linear v0.xy
dcl_output o0.xyzw
dcl_temps 2
mov r0.x, v0.x
mov o0.xyzw, l(0, 0, 0, 0)
ne r1.x, v0.y, l(0.0)
if_nz r1.x
  mul r0.x, r0.x, l(2.0)
  deriv_rty_fine o0.x, r0.x
  deriv_rtx_fine o0.y, r0.x
else
  deriv_rty_fine o0.z, r0.x
endif
deriv_rtx_coarse o0.w, r0.x
ret
";
    let data = one_reg(4, |i| {
        let x = [1.0, 3.0, 10.0, 20.0][i];
        let y = [1.0, 1.0, 0.0, 0.0][i];
        fv([x, y, 0.0, 0.0])
    });
    let (r, _) = both(text, &BatchInputs::new(4, 1, &data), &Mem::default());
    // r0.x = (2, 6, 10, 20) after the branch.
    assert_eq!(r.output(0, 0), Some(fv([8.0, 4.0, 0.0, 4.0])));
    assert_eq!(r.output(1, 0), Some(fv([14.0, 4.0, 0.0, 4.0])));
    assert_eq!(r.output(2, 0), Some(fv([0.0, 0.0, 8.0, 4.0])));
    assert_eq!(r.output(3, 0), Some(fv([0.0, 0.0, 14.0, 4.0])));
}

#[test]
fn a_write_dead_after_its_branch_still_reaches_the_neighbours_derivative() {
    // r0.x is overwritten after the `if`, so for a compute program the
    // write inside it could skip the blend; here lanes outside the branch
    // are read by their neighbours' derivative as they stand, so the
    // lanes that skip the branch must keep v0.x.
    let text = "ps_5_0
dcl_input_ps linear v0.xy
dcl_output o0.xyzw
dcl_temps 2
mov r0.x, v0.x
mov o0.xyzw, l(0, 0, 0, 0)
lt r1.x, v0.x, l(5.0)
if_nz r1.x
  mov r0.x, l(100.0)
  deriv_rtx_fine o0.x, r0.x
endif
mov r0.x, l(1.0)
mov o0.y, r0.x
ret
";
    let data = one_reg(8, |i| fv([[1.0, 7.0, 9.0, 3.0][i % 4], 0.0, 0.0, 0.0]));
    let (r, _) = both(text, &BatchInputs::new(8, 1, &data), &Mem::default());
    // Lane 0 runs the branch, lane 1 does not: 7 - 100. Lane 3 runs it,
    // lane 2 does not: 100 - 9.
    for q in 0..2 {
        assert_eq!(r.output(4 * q, 0), Some(fv([-93.0, 1.0, 0.0, 0.0])));
        assert_eq!(r.output(4 * q + 1, 0), Some(fv([0.0, 1.0, 0.0, 0.0])));
        assert_eq!(r.output(4 * q + 3, 0), Some(fv([91.0, 1.0, 0.0, 0.0])));
    }
}

#[test]
fn uniform_loops_in_pixel_and_vertex_batches_with_padding_lanes() {
    // A loop counted by a constant buffer value (uniform: tier 1 keeps the
    // counter as a scalar and writes without blends) over batches whose
    // last JIT call is part padding.
    let ps = "ps_5_0
dcl_constantbuffer CB0[1], immediateIndexed
dcl_input_ps linear v0.xy
dcl_output o0.xyzw
dcl_temps 2
mov r0.xy, v0.xyxx
mov r1.x, l(0)
loop
  uge r1.y, r1.x, cb0[0].x
  breakc_nz r1.y
  mad r0.x, r0.x, l(1.5), r0.y
  iadd r1.x, r1.x, l(1)
endloop
mov o0.xy, r0.xyxx
utof o0.z, r1.x
mov o0.w, l(1.0)
ret
";
    let mem = Mem::default().cb(0, &[5, 0, 0, 0]);
    let data = one_reg(12, |i| fv([i as f32, 0.25, 0.0, 0.0]));
    let (r, _) = both(ps, &BatchInputs::new(12, 1, &data), &mem);
    for i in 0..12 {
        let mut x = i as f32;
        for _ in 0..5 {
            x = x * 1.5 + 0.25;
        }
        assert_eq!(r.output(i, 0), Some(fv([x, 0.25, 5.0, 1.0])), "pixel {i}");
    }
    let vs = ps
        .replace("ps_5_0", "vs_5_0")
        .replace("dcl_input_ps linear", "dcl_input");
    let (r, _) = both(&vs, &BatchInputs::new(11, 1, &data[..44]), &mem);
    assert_eq!(r.output(10, 0), {
        let mut x = 10.0f32;
        for _ in 0..5 {
            x = x * 1.5 + 0.25;
        }
        Some(fv([x, 0.25, 5.0, 1.0]))
    });
}

#[test]
fn derivatives_in_loops_with_different_trip_counts_agree() {
    // Lane k of each quad loops v0.z times; the sum of fine derivatives
    // depends on which lanes are still in the loop at each iteration.
    let text = "ps_5_0
dcl_input_ps linear v0.xyz
dcl_output o0.xyzw
dcl_temps 4
mov r0.xyzw, l(0, 0, 0, 0)
mov r1.x, v0.x
loop
  uge r2.x, r0.y, v0.z
  breakc_nz r2.x
  add r1.x, r1.x, v0.y
  deriv_rtx_fine r3.x, r1.x
  deriv_rty_coarse r3.y, r1.x
  add r0.x, r0.x, r3.x
  add r0.z, r0.z, r3.y
  iadd r0.y, r0.y, l(1)
endloop
mov o0.xyzw, r0.xyzw
ret
";
    let data = one_reg(8, |i| {
        let trips = [3u32, 1, 0, 2, 2, 2, 2, 2][i];
        [f(i as f32), f((i * i) as f32), trips, 0]
    });
    let (r, _) = both(text, &BatchInputs::new(8, 1, &data), &Mem::default());
    // Quad 1 runs in lock step (2 trips each): r1.x = i + t*i^2.
    // fine x, top row after trip t: (5 + 25t) - (4 + 16t) = 1 + 9t → 10 + 19 = 29.
    assert_eq!(r.output(4, 0).map(|v| v[0]), Some(f(29.0)));
    assert_eq!(r.output(4, 0).map(|v| v[1]), Some(2));
    // Quad 0, lane 0: trips 3. Trip 1: lanes 0,1,3 active: r1 = (0, 2, 2, 12);
    // fine x = 2 - 0 = 2. Trip 2: lanes 0,3: r1 = (0, 2, 2, 21) → 2.
    // Trip 3: lane 0: → 2. Sum 6.
    assert_eq!(r.output(0, 0).map(|v| v[0]), Some(f(6.0)));
}

#[test]
fn discard_kills_the_pixel_and_its_later_writes() {
    // Pixels with v0.x < 0.5 are discarded after their first store.
    let text = "ps_5_0
dcl_uav_raw u0
dcl_uav_raw u1
dcl_input_ps linear v0.xy
dcl_output o0.xyzw
dcl_temps 2
ftou r0.x, v0.y
ishl r0.y, r0.x, l(2)
store_raw u0.x, r0.y, l(7)
lt r1.x, v0.x, l(0.5)
discard_nz r1.x
store_raw u1.x, r0.y, l(9)
mov o0.xyzw, v0.xyxx
ret
";
    let xs = [1.0, 0.0, 0.75, 0.25, 0.0, 0.0, 0.0, 0.0];
    let data = one_reg(8, |i| fv([xs[i], i as f32, 0.0, 0.0]));
    let mem = Mem::default().uav(0, 8).uav(1, 8);
    let (r, mem) = both(text, &BatchInputs::new(8, 1, &data), &mem);
    let kept = [true, false, true, false, false, false, false, false];
    for i in 0..8 {
        if kept[i] {
            assert_eq!(r.lanes[i], LaneResult::Written);
            assert_eq!(r.output(i, 0), Some(fv([xs[i], i as f32, xs[i], xs[i]])));
        } else {
            assert_eq!(r.lanes[i], LaneResult::Discarded, "lane {i}");
            assert_eq!(r.outputs(i), None);
        }
    }
    assert_eq!(mem.uav_words(0), vec![7; 8], "stores before the discard");
    assert_eq!(
        mem.uav_words(1),
        kept.map(|k| if k { 9 } else { 0 }).to_vec(),
        "stores after it"
    );
}

#[test]
fn discard_inside_a_subroutine_and_a_loop_stays_discarded() {
    let text = "ps_5_0
dcl_input_ps linear v0.x
dcl_output o0.xyzw
dcl_temps 1
mov r0.x, l(0)
loop
  iadd r0.x, r0.x, l(1)
  call l1
  uge r0.y, r0.x, l(3)
  breakc_nz r0.y
endloop
mov o0.xyzw, r0.xxxx
ret
label l1
ftou r0.z, v0.x
ieq r0.w, r0.x, r0.z
discard_nz r0.w
ret
";
    // Lane k is discarded in iteration k (k = 1, 2); lanes 0 and 3 never.
    let data = one_reg(4, |i| fv([[0.0, 1.0, 2.0, 7.0][i], 0.0, 0.0, 0.0]));
    let (r, _) = both(text, &BatchInputs::new(4, 1, &data), &Mem::default());
    assert_eq!(
        r.lanes,
        vec![
            LaneResult::Written,
            LaneResult::Discarded,
            LaneResult::Discarded,
            LaneResult::Written
        ]
    );
    assert_eq!(r.output(0, 0), Some([3; 4]));
    assert_eq!(r.output(3, 0), Some([3; 4]));
}

/// Two pixels of a 2x2 quad discard (vkd3d's `discard_nz r1.xxxx` form),
/// then every pixel squares its position and takes the derivatives: the
/// discarded pixels keep running as helpers, so the survivors' derivatives
/// see their neighbours' current squares (frozen registers would give
/// 0 − 10.5² instead). Discarded pixels write nothing after the discard
/// and their atomics do not count.
#[test]
fn discarded_pixels_keep_running_as_helpers_for_derivatives() {
    let text = "ps_5_0
dcl_uav_raw u0
dcl_input_ps_siv linear noperspective v0.xy, position
dcl_output o0.xyzw
dcl_output o1.xyzw
dcl_temps 3
ftou r0.xy, v0.xyxx
iadd r0.z, r0.x, r0.y
and r1.x, r0.z, l(1)
discard_nz r1.xxxx
mul r2.xy, v0.xyxx, v0.xyxx
deriv_rtx_fine o0.x, r2.x
deriv_rty_fine o0.y, r2.y
deriv_rtx_coarse o0.z, r2.x
deriv_rty_coarse o0.w, r2.y
deriv_rtx_fine o1.x, v0.x
deriv_rty_fine o1.y, v0.y
and r1.y, r0.x, l(1)
and r1.z, r0.y, l(1)
ishl r1.z, r1.z, l(1)
iadd r1.y, r1.y, r1.z
ishl r1.y, r1.y, l(2)
store_raw u0.x, r1.y, l(1)
atomic_iadd u0, l(64), l(1)
mov o1.zw, l(0, 0, 0, 0)
ret
";
    // Pixel centres of the quad at (10, 20): top-left, top-right,
    // bottom-left, bottom-right. x + y is odd for top-right and
    // bottom-left: they discard.
    let pos = [(10.5f32, 20.5f32), (11.5, 20.5), (10.5, 21.5), (11.5, 21.5)];
    let data = one_reg(4, |i| fv([pos[i].0, pos[i].1, 0.0, 0.0]));
    let mem = Mem::default().uav(0, 17);
    let (r, mem) = both(text, &BatchInputs::new(4, 1, &data), &mem);
    assert_eq!(
        r.lanes,
        vec![
            LaneResult::Written,
            LaneResult::Discarded,
            LaneResult::Discarded,
            LaneResult::Written
        ]
    );
    let sq = |v: f32| v * v;
    // Fine x on the top row: x(TR)² − x(TL)²; on the bottom row:
    // x(BR)² − x(BL)²; coarse x uses the top row everywhere. Fine y in the
    // left column: y(BL)² − y(TL)²; right column: y(BR)² − y(TR)²; coarse
    // y uses the left column.
    let dx_top = sq(pos[1].0) - sq(pos[0].0);
    let dx_bottom = sq(pos[3].0) - sq(pos[2].0);
    let dy_left = sq(pos[2].1) - sq(pos[0].1);
    let dy_right = sq(pos[3].1) - sq(pos[1].1);
    assert_eq!((dx_top, dy_left), (22.0, 42.0));
    assert_eq!(r.output(0, 0), Some(fv([dx_top, dy_left, dx_top, dy_left])));
    assert_eq!(
        r.output(3, 0),
        Some(fv([dx_bottom, dy_right, dx_top, dy_left]))
    );
    // Derivatives of the position itself: one pixel per pixel.
    assert_eq!(r.output(0, 1), Some(fv([1.0, 1.0, 0.0, 0.0])));
    assert_eq!(r.output(3, 1), Some(fv([1.0, 1.0, 0.0, 0.0])));
    // Word k is quad lane k's store: only the survivors stored, and only
    // their two atomics counted.
    let words = mem.uav_words(0);
    assert_eq!(words[..4], [1, 0, 0, 1]);
    assert_eq!(words[16], 2, "atomics counted");
}

#[test]
fn partial_quads_compute_helpers_but_report_and_write_nothing_for_them() {
    let text = "ps_5_0
dcl_uav_raw u0
dcl_input_ps linear v0.xy
dcl_output o0.xyzw
dcl_temps 2
ftou r0.x, v0.y
ishl r0.y, r0.x, l(2)
store_raw u0.x, r0.y, l(5)
imm_atomic_iadd r1.x, u0, l(32), l(1)
deriv_rtx_fine o0.x, v0.x
deriv_rty_fine o0.y, v0.x
mov o0.z, r1.x
mov o0.w, l(0)
ret
";
    // Quad 0: only the top-left and bottom-right pixels are covered.
    let data = one_reg(8, |i| {
        fv([[1.0, 3.0, 10.0, 20.0][i % 4], i as f32, 0.0, 0.0])
    });
    let helpers = [false, true, true, false, false, false, false, false];
    let inputs = BatchInputs::new(8, 1, &data).with_helpers(&helpers);
    let mem = Mem::default().uav(0, 9);
    let (r, mem) = both(text, &inputs, &mem);
    assert_eq!(r.lanes[1], LaneResult::Helper);
    assert_eq!(r.lanes[2], LaneResult::Helper);
    assert_eq!(r.outputs(1), None);
    // The covered pixels' derivatives read the helpers' values.
    assert_eq!(r.output(0, 0).map(|v| [v[0], v[1]]), Some([f(2.0), f(9.0)]));
    assert_eq!(
        r.output(3, 0).map(|v| [v[0], v[1]]),
        Some([f(10.0), f(17.0)])
    );
    let u = mem.uav_words(0);
    assert_eq!(&u[..8], &[5, 0, 0, 5, 5, 5, 5, 5], "helpers store nothing");
    assert_eq!(u[8], 6, "six real pixels added to the counter word");
    // The atomics' old values are distinct and below 6 for real pixels.
    let mut olds: Vec<u32> = [0, 3, 4, 5, 6, 7]
        .iter()
        .map(|&i| r.output(i, 0).unwrap()[2])
        .collect();
    olds.sort();
    assert_eq!(olds, vec![0, 1, 2, 3, 4, 5]);
}

#[test]
fn implicit_lod_comes_from_the_quads_coarse_coordinate_gradients() {
    // The default sampler (trilinear) over a 4x4 R32_FLOAT texture whose
    // mips are constant: mip 0 = 1, mip 1 = 2, mip 2 = 4, so a sample
    // shows its mip blend. o0 = (sample, sample_b +0.5, lod.x, lod.y).
    let text = "ps_5_0
dcl_sampler s0, mode_default
dcl_resource_texture2d (float,float,float,float) t0
dcl_input_ps linear v0.xy
dcl_output o0.xyzw
dcl_temps 1
sample r0.x, v0.xyxx, t0.xyzw, s0
sample_b r0.y, v0.xyxx, t0.yxzw, s0, l(0.5)
lod r0.zw, v0.xyxx, t0.zwxy, s0
mov o0.xyzw, r0.xyzw
ret
";
    let mut texels = vec![1.0f32; 16];
    texels.extend([2.0f32; 4]);
    texels.push(4.0);
    let view = TextureView {
        mip_levels: 3,
        ..TextureView::tex2d(Format::R32Float, 4, 4)
    };
    let mem = Mem::default().tex(0, &texels, view);
    // Coordinates of the quads' lanes (top-left, top-right, bottom-left,
    // bottom-right). The LOD is log2 of the larger of |ddx| and |ddy| in
    // mip-0 texels, ddx = top-right − top-left, ddy = bottom-left −
    // top-left; the bottom-right lane takes no part (coarse), so it is
    // set far away.
    let quads: [[[f32; 2]; 4]; 3] = [
        // ddx = (0.5, 0) → 2 texels, ddy = (0, 0.25) → 1 texel: LOD 1.
        [[0.125, 0.125], [0.625, 0.125], [0.125, 0.375], [9.0, 9.0]],
        // ddx = ddy = 1/16 of the texture → 0.25 texels: LOD −2.
        [[0.5, 0.5], [0.5625, 0.5], [0.5, 0.5625], [-7.0, 3.0]],
        // ddx = (8, 0) → 32 texels: LOD 5.
        [[0.0, 0.0], [8.0, 0.0], [0.0, 0.0], [100.0, 100.0]],
    ];
    let data = one_reg(12, |i| {
        let c = quads[i / 4][i % 4];
        fv([c[0], c[1], 0.0, 0.0])
    });
    // The first quad's top-left pixel is a helper: it still supplies the
    // coordinate the others' gradients are taken from.
    let mut helpers = [false; 12];
    helpers[0] = true;
    let inputs = BatchInputs::new(12, 1, &data).with_helpers(&helpers);
    let (r, _) = both(text, &inputs, &mem);
    assert_eq!(r.lanes[0], LaneResult::Helper);
    // LOD 1: mip 1; +0.5 bias: half-way between mips 1 and 2 (3.0);
    // lod = (LOD clamped to the mips, LOD).
    let expect = [
        [2.0, 3.0, 1.0, 1.0],
        // LOD −2 magnifies mip 0 (so does −1.5); lod.x clamps to 0.
        [1.0, 1.0, 0.0, -2.0],
        // LOD 5 (5.5) is past the last mip: mip 2; lod.x clamps to 2.
        [4.0, 4.0, 2.0, 5.0],
    ];
    for inv in 1..12 {
        assert_eq!(
            r.output(inv, 0),
            Some(fv(expect[inv / 4])),
            "invocation {inv}"
        );
    }
}

#[test]
fn bad_batches_are_typed_errors_on_both_engines() {
    let program = parse(DERIVS);
    let interp = Interpreter::new(&program).expect("prepare");
    let jit = JitShader::compile(&program).expect("compile");
    let o = DispatchOptions::default();
    let data = [0u32; 32];
    let cases: Vec<(BatchInputs, BatchError)> = vec![
        (
            BatchInputs::new(6, 1, &data[..24]),
            BatchError::NotQuads { count: 6 },
        ),
        (
            BatchInputs::new(4, 0, &[]),
            BatchError::TooFewRegisters {
                declared: 1,
                given: 0,
            },
        ),
        (
            BatchInputs::new(4, 1, &data[..15]),
            BatchError::InputLength {
                count: 4,
                registers: 1,
                expected: 16,
                got: 15,
            },
        ),
        (
            BatchInputs::new(4, 1, &data[..16]).with_helpers(&[true; 8]),
            BatchError::HelperLength { count: 4, got: 8 },
        ),
    ];
    for (inputs, want) in cases {
        let b = Bindings::new();
        let e = interp.run_batch(&b, &inputs, &o).unwrap_err();
        assert_eq!(e, RuntimeError::Batch(want.clone()));
        let e = jit.run_batch(&b, &inputs, &o).unwrap_err();
        assert_eq!(e, RuntimeError::Batch(want));
    }
    // A compute program is not a batch program.
    let cs = parse("cs_5_0\ndcl_thread_group 1, 1, 1\nret\n");
    let inputs = BatchInputs::new(4, 0, &[]);
    let b = Bindings::new();
    let ci = Interpreter::new(&cs).unwrap();
    let cj = JitShader::compile(&cs).unwrap();
    for e in [
        ci.run_batch(&b, &inputs, &o).unwrap_err(),
        cj.run_batch(&b, &inputs, &o).unwrap_err(),
    ] {
        assert!(
            matches!(&e, RuntimeError::Batch(BatchError::NotVertexOrPixel(v)) if v.starts_with("cs_5_0")),
            "{e}"
        );
    }
    // Helpers in a vertex batch.
    let vs = parse("vs_5_0\ndcl_output o0.xyzw\nmov o0.xyzw, l(1, 2, 3, 4)\nret\n");
    let vj = JitShader::compile(&vs).unwrap();
    let e = vj
        .run_batch(&b, &BatchInputs::new(1, 0, &[]).with_helpers(&[true]), &o)
        .unwrap_err();
    assert_eq!(e, RuntimeError::Batch(BatchError::HelpersInVertexBatch));
    // A geometry program does not compile on the JIT.
    let gs = parse("gs_4_0\nret\n");
    assert!(
        matches!(JitShader::compile(&gs), Err(JitError::NotCompute(v)) if v.starts_with("gs_4_0"))
    );
}

#[test]
fn missing_bindings_and_runaway_loops_are_errors() {
    let text = "ps_5_0
dcl_uav_raw u0
dcl_output o0.xyzw
loop
  store_raw u0.x, l(0), l(1)
endloop
ret
";
    let program = parse(text);
    let interp = Interpreter::new(&program).unwrap();
    let jit = JitShader::compile(&program).unwrap();
    let o = DispatchOptions { budget: 10_000 };
    let inputs = BatchInputs::new(4, 0, &[]);
    let b = Bindings::new();
    for e in [
        interp.run_batch(&b, &inputs, &o).unwrap_err(),
        jit.run_batch(&b, &inputs, &o).unwrap_err(),
    ] {
        assert!(matches!(e, RuntimeError::MissingBinding { .. }), "{e}");
    }
    let mut mem = Mem::default().uav(0, 1);
    for e in [
        mem.run(|b| interp.run_batch(b, &inputs, &o)).unwrap_err(),
        mem.run(|b| jit.run_batch(b, &inputs, &o)).unwrap_err(),
    ] {
        assert!(matches!(e, RuntimeError::BudgetExhausted { .. }), "{e}");
    }
}
