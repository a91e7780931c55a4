//! Batches of one shader on several threads at once, against one shared
//! `Bindings` (`Shader::run_batch(&Bindings)`, `Shader::batch_runner`):
//! on both engines, the results of every batch run concurrently equal the
//! ones run one after another on one thread, and the two engines agree;
//! a pixel shader writing a UAV follows the documented rules (disjoint
//! stores all land, atomics and the hidden counter count every pixel
//! exactly once, helper lanes write nothing); a JIT shader that tiers up
//! while threads run batches through it gives the same results; a warm
//! runner's batches allocate nothing on the JIT.

use sm5jit::runtime::{Format, TextureDim, TextureView};
use sm5jit::{
    AddressMode, BatchInputs, BatchResult, Bindings, CompileOptions, EngineKind, Filter,
    SamplerDesc, Shader, Slot, Tier, View,
};

use crate::util::{raw, to_words};

/// A textured pixel shader: trilinear sample of t0 with the LOD from the
/// quad, times a second (point-sampled, wrapped) texture t1, plus a
/// derivative, so the lanes of a quad depend on each other.
const TEXTURED: &str = "ps_5_0
dcl_sampler s0, mode_default
dcl_sampler s1, mode_default
dcl_resource_texture2d (float,float,float,float) t0
dcl_resource_texture2d (float,float,float,float) t1
dcl_input_ps linear v0.xy
dcl_output o0.xyzw
dcl_output o1.xyzw
dcl_temps 2
sample r0.xyzw, v0.xyxx, t0.xyzw, s0
mul r1.xy, v0.xyxx, l(3.0, 3.0, 0, 0)
sample r1.xyzw, r1.xyxx, t1.xyzw, s1
mul o0.xyzw, r0.xyzw, r1.xyzw
deriv_rtx_fine o1.x, v0.x
deriv_rty_coarse o1.y, v0.y
mov o1.zw, r0.zzzw
ret
";

/// A 16x16 RGBA8 texture with its five mips, each level its own colours.
fn mipped_texture() -> (Vec<u8>, TextureView) {
    let view = TextureView::packed(TextureDim::Tex2D, Format::R8G8B8A8Unorm, [16, 16, 1], 5);
    let mut data = Vec::new();
    for level in 0..5u32 {
        let m = view.mip(level).unwrap();
        for y in 0..m.height {
            for x in 0..m.width {
                data.extend([
                    (x * 37 + level * 50) as u8,
                    (y * 53 + level * 20) as u8,
                    ((x ^ y) * 16) as u8,
                    255,
                ]);
            }
        }
    }
    assert_eq!(data.len() as u64, view.size_bytes());
    (data, view)
}

/// An 8x8 R32G32B32A32_FLOAT texture.
fn float_texture() -> (Vec<u8>, TextureView) {
    let view = TextureView::tex2d(Format::R32G32B32A32Float, 8, 8);
    let data = (0..64u32)
        .flat_map(|i| [i as f32 / 64.0, 1.0 - i as f32 / 64.0, 0.5, 1.0])
        .flat_map(f32::to_le_bytes)
        .collect();
    (data, view)
}

/// Batch `k`: 24 quads at a scale that changes with `k` (so the quads
/// sample different mips), every fifth lane a helper.
fn batch(k: usize) -> (Vec<u32>, Vec<bool>) {
    let scale = 1.0 / (4.0 + 9.0 * (k % 7) as f32);
    let mut data = Vec::new();
    let mut helpers = Vec::new();
    for q in 0..24usize {
        for lane in 0..4usize {
            let x = (q * 2 + lane % 2) as f32 + 0.5 + k as f32;
            let y = (lane / 2) as f32 + 0.5 + (k * 3) as f32;
            data.extend([(x * scale).to_bits(), (y * scale).to_bits(), 0, 0]);
            helpers.push((q * 4 + lane + k) % 5 == 0);
        }
    }
    (data, helpers)
}

const BATCHES: usize = 40;
const THREADS: usize = 4;

/// Runs every batch through `run`, first one after another, then with
/// `THREADS` threads each taking every `THREADS`-th batch; returns both.
fn serial_and_threaded(
    run: &(dyn Fn(&BatchInputs) -> BatchResult + Sync),
) -> (Vec<BatchResult>, Vec<BatchResult>) {
    let inputs: Vec<(Vec<u32>, Vec<bool>)> = (0..BATCHES).map(batch).collect();
    let one = |k: usize| {
        let (d, h) = &inputs[k];
        run(&BatchInputs::new(h.len(), 1, d).with_helpers(h))
    };
    let serial: Vec<BatchResult> = (0..BATCHES).map(one).collect();
    let mut threaded: Vec<Option<BatchResult>> = vec![None; BATCHES];
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..THREADS)
            .map(|t| {
                s.spawn(move || {
                    (t..BATCHES)
                        .step_by(THREADS)
                        .map(|k| (k, one(k)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for h in handles {
            for (k, r) in h.join().expect("batch thread") {
                threaded[k] = Some(r);
            }
        }
    });
    (serial, threaded.into_iter().map(Option::unwrap).collect())
}

#[test]
fn textured_batches_on_many_threads_equal_one_thread_on_both_engines() {
    let (t0, v0) = mipped_texture();
    let (t1, v1) = float_texture();
    let mut b = Bindings::new();
    b.srv(Slot::new(0), &t0, View::Texture(v0))
        .srv(Slot::new(1), &t1, View::Texture(v1))
        .sampler(
            Slot::new(0),
            SamplerDesc::new(Filter::LINEAR, AddressMode::Clamp),
        )
        .sampler(
            Slot::new(1),
            SamplerDesc::new(Filter::POINT, AddressMode::Wrap),
        );
    let mut per_engine = Vec::new();
    for engine in [EngineKind::Jit, EngineKind::Interpreter] {
        let ps = Shader::from_asm(TEXTURED, engine).unwrap();
        // Through `run_batch(&Bindings)` (bindings checked per batch)...
        let (serial, threaded) = serial_and_threaded(&|i| ps.run_batch(&b, i).unwrap());
        assert_eq!(serial, threaded, "{engine}: run_batch on {THREADS} threads");
        // ...and through one runner shared by every thread.
        let runner = ps.batch_runner(&b).unwrap();
        let (_, shared) = serial_and_threaded(&|i| runner.run(i).unwrap());
        assert_eq!(
            serial, shared,
            "{engine}: one BatchRunner on {THREADS} threads"
        );
        per_engine.push(serial);
    }
    assert_eq!(per_engine[0], per_engine[1], "JIT and interpreter");
    // The batches really sample: not every pixel has one colour, helpers
    // report nothing.
    let r = &per_engine[0][3];
    let colours: std::collections::BTreeSet<_> =
        (0..r.count()).filter_map(|i| r.output(i, 0)).collect();
    assert!(colours.len() > 10, "{} distinct colours", colours.len());
    assert!(r.lanes.contains(&sm5jit::LaneResult::Helper));
}

/// Each pixel (non-helper lane) stores its id at u0[id], adds 1 to u1[0]
/// with an atomic, and takes a slot from u2's hidden counter, returning it
/// in o0.x; helpers and discarded lanes do none of that.
const UAV_WRITER: &str = "ps_5_0
dcl_uav_raw u0
dcl_uav_raw u1
dcl_uav_structured u2, 4
dcl_input_ps constant v0.x
dcl_output o0.xyzw
dcl_temps 1
ishl r0.x, v0.x, l(2)
store_raw u0.x, r0.x, v0.x
atomic_iadd u1, l(0), l(1)
imm_atomic_alloc r0.y, u2
store_structured u2.x, r0.y, l(0), v0.x
mov o0.x, r0.y
mov o0.yzw, l(0, 0, 0, 0)
ret
";

#[test]
fn a_uav_writing_pixel_shader_on_many_threads_follows_the_rules() {
    const QUADS_PER_BATCH: usize = 8;
    const BATCHES: usize = 32;
    let pixels = BATCHES * QUADS_PER_BATCH * 4;
    // Pixel ids 1..=pixels; every seventh lane a helper.
    let ids: Vec<u32> = (1..=pixels as u32).collect();
    let helper = |id: u32| id % 7 == 0;
    let real = ids.iter().filter(|&&i| !helper(i)).count();
    for engine in [EngineKind::Jit, EngineKind::Interpreter] {
        let ps = Shader::from_asm(UAV_WRITER, engine).unwrap();
        let mut stores = vec![0u8; 4 * (pixels + 1)];
        let mut count = vec![0u8; 4];
        let mut slots = vec![0u8; 4 * pixels];
        let mut b = Bindings::new();
        b.uav(Slot::new(0), &mut stores, raw(pixels as u64 + 1))
            .uav(Slot::new(1), &mut count, raw(1))
            .uav_with_counter(
                Slot::new(2),
                &mut slots,
                View::structured(4, 0, pixels as u64),
                0,
            );
        let runner = ps.batch_runner(&b).unwrap();
        let per = QUADS_PER_BATCH * 4;
        let returned: Vec<u32> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..THREADS)
                .map(|t| {
                    let (runner, ids) = (&runner, &ids);
                    s.spawn(move || {
                        let mut out = BatchResult::new(Vec::new(), 0);
                        let mut got = Vec::new();
                        for k in (t..BATCHES).step_by(THREADS) {
                            let mine = &ids[k * per..(k + 1) * per];
                            let data: Vec<u32> = mine.iter().flat_map(|&i| [i, 0, 0, 0]).collect();
                            let helpers: Vec<bool> = mine.iter().map(|&i| helper(i)).collect();
                            let inputs = BatchInputs::new(per, 1, &data).with_helpers(&helpers);
                            runner.run_into(&inputs, &mut out).unwrap();
                            got.extend((0..per).filter_map(|i| out.output(i, 0)).map(|v| v[0]));
                        }
                        got
                    })
                })
                .collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().expect("batch thread"))
                .collect()
        });
        let counter = b.counter(Slot::new(2));
        drop(runner);
        drop(b);
        // Disjoint stores: every real pixel's id at its own index, helpers' 0.
        let stores = to_words(&stores);
        for &id in &ids {
            let want = if helper(id) { 0 } else { id };
            assert_eq!(stores[id as usize], want, "{engine}: u0[{id}]");
        }
        // The atomic and the counter saw every real pixel exactly once.
        assert_eq!(to_words(&count), [real as u32], "{engine}: atomic count");
        assert_eq!(counter, Some(real as u32), "{engine}: hidden counter");
        let mut taken = returned.clone();
        taken.sort_unstable();
        assert_eq!(
            taken,
            (0..real as u32).collect::<Vec<_>>(),
            "{engine}: slots"
        );
        // Each slot holds the id of the pixel that took it.
        let slots = to_words(&slots);
        let mut in_slots: Vec<u32> = slots[..real].to_vec();
        in_slots.sort_unstable();
        let mut want: Vec<u32> = ids.iter().copied().filter(|&i| !helper(i)).collect();
        want.sort_unstable();
        assert_eq!(in_slots, want, "{engine}: slot contents");
    }
}

#[test]
fn a_tier_up_while_threads_run_batches_changes_no_result() {
    let (t0, v0) = mipped_texture();
    let (t1, v1) = float_texture();
    let mut b = Bindings::new();
    b.srv(Slot::new(0), &t0, View::Texture(v0))
        .srv(Slot::new(1), &t1, View::Texture(v1));
    let one = Shader::from_asm_with(
        TEXTURED,
        EngineKind::Jit,
        &CompileOptions {
            cache: false,
            ..CompileOptions::tier(Tier::One)
        },
    )
    .unwrap();
    let auto = Shader::from_asm_with(
        TEXTURED,
        EngineKind::Jit,
        &CompileOptions {
            tier: Tier::Auto,
            tier_up_after: 8,
            cache: false,
        },
    )
    .unwrap();
    assert_eq!(auto.tier(), Some(0));
    let want = serial_and_threaded(&|i| one.run_batch(&b, i).unwrap()).0;
    let runner = auto.batch_runner(&b).unwrap();
    for _ in 0..3 {
        let (serial, threaded) = serial_and_threaded(&|i| runner.run(i).unwrap());
        assert_eq!(serial, want);
        assert_eq!(threaded, want);
    }
    // The threshold was passed long ago; wait for the background compile.
    let start = std::time::Instant::now();
    while auto.tier() != Some(1) && start.elapsed().as_secs() < 60 {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert_eq!(auto.tier(), Some(1));
    assert_eq!(serial_and_threaded(&|i| runner.run(i).unwrap()).1, want);
}

#[test]
fn a_warm_batch_runner_allocates_nothing_per_batch_on_the_jit() {
    // ALU, derivatives, a constant buffer and a UAV atomic: no texture
    // instruction (those call into `runtime::sampling`).
    let ps = Shader::from_asm_with(
        "ps_5_0
         dcl_constantbuffer CB0[1], immediateIndexed
         dcl_uav_raw u1
         dcl_input_ps linear v0.xy
         dcl_output o0.xyzw
         dcl_temps 1
         mad r0.xy, v0.xyxx, cb0[0].xyxx, cb0[0].zwzz
         deriv_rtx_fine r0.z, r0.x
         mul o0.xyz, r0.xyzx, r0.yzxy
         atomic_iadd u1, l(0), l(1)
         mov o0.w, l(1.0)
         ret",
        EngineKind::Jit,
        &CompileOptions::tier(Tier::One),
    )
    .unwrap();
    let cb: Vec<u8> = [2.0f32, 3.0, 0.5, -1.0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let mut count = [0u8; 4];
    let mut b = Bindings::new();
    b.cb(Slot::new(0), &cb)
        .uav(Slot::new(1), &mut count, raw(1));
    let runner = ps.batch_runner(&b).unwrap();
    let (data, helpers) = batch(2);
    let inputs = BatchInputs::new(helpers.len(), 1, &data).with_helpers(&helpers);
    let mut out = BatchResult::new(Vec::new(), 0);
    runner.run_into(&inputs, &mut out).unwrap();
    let first = out.clone();
    let (r, allocations) =
        crate::alloc_count::count(|| (0..5).try_for_each(|_| runner.run_into(&inputs, &mut out)));
    r.unwrap();
    assert_eq!(allocations, 0, "allocations in 5 warm batches");
    // The counter does count: one vector, one allocation.
    let (_, one) = crate::alloc_count::count(|| std::hint::black_box(vec![1u8; 16]));
    assert_eq!(one, 1);
    // And a cold batch (fresh runner, fresh result) allocates.
    let (_, cold) = crate::alloc_count::count(|| {
        let r = ps.batch_runner(&b).unwrap();
        r.run(&inputs).unwrap()
    });
    assert!(cold > 0);
    assert_eq!(out, first);
    drop(runner);
    drop(b);
    let real = helpers.iter().filter(|&&h| !h).count() as u32;
    // Seven batches: the first, five warm ones and the cold one.
    assert_eq!(u32::from_le_bytes(count), 7 * real);
}
