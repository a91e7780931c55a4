//! Random ps_5_0 programs that discard before they take derivatives, run as
//! pixel batches on the interpreter and the JIT.
//!
//! In: a seed. Out: a [`PixelProgram`] (assembly text, the batch's inputs
//! and helper lanes) and, from [`compare_pixel`], `Ok` or the first
//! difference between the engines (lane fates, outputs, UAV bytes).
//! Invariant: every program validates, executes a conditional `discard`
//! (sometimes inside an `if`, sometimes as vkd3d's replicated swizzle)
//! before its first derivative, keeps computing after it, then takes
//! coarse and fine derivatives of registers that changed after the discard
//! and stores to a UAV word private to each pixel. So the discarded pixels'
//! helper behaviour (registers evolving, no memory writes) is compared on
//! every seed.

use std::fmt::Write as _;

use super::rng::Rng;
use sm5jit::interp::Interpreter;
use sm5jit::ir::Program;
use sm5jit::jit::JitShader;
use sm5jit::runtime::batch::BatchInputs;
use sm5jit::runtime::{Bindings, BufferKind, BufferView, DispatchOptions, Slot, View};

/// Pixels per row of the batch's image (quads are 2x2 pixels of it).
const WIDTH: u32 = 8;

/// A generated pixel program and the batch it runs on.
#[derive(Clone, Debug)]
pub struct PixelProgram {
    pub seed: u64,
    pub text: String,
    pub program: Program,
    /// Invocations (a multiple of 4: whole quads).
    pub count: usize,
    /// v0 (position) and v1 per invocation, 8 DWORDs each.
    pub data: Vec<u32>,
    /// Helper lanes of partial quads.
    pub helpers: Vec<bool>,
}

const FLOAT_OPS: &[&str] = &["add", "mul", "min", "max"];
const UNARY_OPS: &[&str] = &["frc", "round_ni", "round_z", "mov"];
const DERIVS: &[&str] = &[
    "deriv_rtx",
    "deriv_rty",
    "deriv_rtx_coarse",
    "deriv_rty_coarse",
    "deriv_rtx_fine",
    "deriv_rty_fine",
];
const COMPS: &[char] = &['x', 'y', 'z', 'w'];

fn reg(rng: &mut Rng) -> String {
    format!("r{}", rng.below(5))
}

fn comp(rng: &mut Rng) -> char {
    rng.pick(COMPS)
}

/// A random float statement writing one of r0..r4.
fn statement(rng: &mut Rng, out: &mut String) {
    let d = reg(rng);
    let c = comp(rng);
    let (a, ac) = (reg(rng), comp(rng));
    match rng.below(4) {
        0 => {
            let op = rng.pick(UNARY_OPS);
            let _ = writeln!(out, "{op} {d}.{c}, {a}.{ac}");
        }
        1 => {
            let (b, bc) = (reg(rng), comp(rng));
            let (e, ec) = (reg(rng), comp(rng));
            let _ = writeln!(out, "mad {d}.{c}, {a}.{ac}, {b}.{bc}, {e}.{ec}");
        }
        2 => {
            // Something of the position, so neighbours differ.
            let op = rng.pick(FLOAT_OPS);
            let v = rng.pick(&['x', 'y']);
            let _ = writeln!(out, "{op} {d}.{c}, {a}.{ac}, v0.{v}");
        }
        _ => {
            let op = rng.pick(FLOAT_OPS);
            let (b, bc) = (reg(rng), comp(rng));
            let _ = writeln!(out, "{op} {d}.{c}, {a}.{ac}, {b}.{bc}");
        }
    }
}

/// A conditional discard on a comparison of a register with the position.
fn discard(rng: &mut Rng, out: &mut String) {
    let (a, ac) = (reg(rng), comp(rng));
    let v = rng.pick(&['x', 'y']);
    let cmp = rng.pick(&["lt", "ge", "eq", "ne"]);
    let _ = writeln!(out, "{cmp} r5.x, {a}.{ac}, v0.{v}");
    let sel = if rng.chance(1, 2) { ".x" } else { ".xxxx" };
    let kind = rng.pick(&["discard_nz", "discard_z"]);
    if rng.chance(1, 3) {
        let _ = writeln!(out, "lt r5.y, v1.x, l(0.5)");
        let _ = writeln!(out, "if_nz r5.y\n{kind} r5{sel}\nendif");
    } else {
        let _ = writeln!(out, "{kind} r5{sel}");
    }
}

/// Generates the program and batch of `seed`.
pub fn generate_pixel(seed: u64) -> PixelProgram {
    let mut rng = Rng::new(seed ^ 0x5053_5F35_5F30);
    let mut t = String::from(
        "ps_5_0\ndcl_uav_raw u0\ndcl_input_ps_siv linear noperspective v0.xy, position\n\
         dcl_input_ps linear v1.xyzw\ndcl_output o0.xyzw\ndcl_output o1.xyzw\ndcl_temps 6\n\
         mov r0.xyzw, v1.xyzw\nmul r1.xyzw, v0.xyxy, v1.wzyx\nmov r2.xyzw, v0.yxyx\n\
         add r3.xyzw, v1.xyzw, v0.xxyy\nmov r4.xyzw, l(0.5, 2.0, -1.0, 3.0)\n",
    );
    for _ in 0..rng.range(1, 4) {
        statement(&mut rng, &mut t);
    }
    discard(&mut rng, &mut t);
    // Registers keep evolving after the discard, including the ones the
    // derivatives read.
    for _ in 0..rng.range(2, 5) {
        statement(&mut rng, &mut t);
    }
    let _ = writeln!(t, "mul r3.x, r3.x, v0.x\nadd r3.y, r3.y, v0.y");
    for k in 0..rng.range(2, 4) {
        let op = rng.pick(DERIVS);
        let src = if k == 0 {
            "r3.x".to_string()
        } else {
            format!("{}.{}", reg(&mut rng), comp(&mut rng))
        };
        let d = COMPS[k as usize];
        let _ = writeln!(t, "{op} r5.{d}, {src}");
    }
    if rng.chance(1, 3) {
        discard(&mut rng, &mut t);
        let op = rng.pick(DERIVS);
        let _ = writeln!(t, "{op} r5.w, r3.y");
    }
    // One UAV word per pixel of the image: ((y * WIDTH) + x) * 4.
    let _ = writeln!(
        t,
        "ftou r4.zw, v0.xxxy\nimad r4.z, r4.w, l({WIDTH}), r4.z\nishl r4.z, r4.z, l(2)\n\
         store_raw u0.x, r4.z, r5.x\nmov o0.xyzw, r5.xyzw\nmov o1.xyzw, r0.xyzw\nret"
    );
    let quads = rng.range(1, 4) as usize;
    let count = 4 * quads;
    let mut data = Vec::with_capacity(count * 8);
    let mut helpers = Vec::with_capacity(count);
    for inv in 0..count {
        let (q, lane) = ((inv / 4) as u32, (inv % 4) as u32);
        let x = 2 * (q % (WIDTH / 2)) + (lane & 1);
        let y = 2 * (q / (WIDTH / 2)) + (lane >> 1);
        data.extend([x as f32 + 0.5, y as f32 + 0.5, 0.0, 0.0].map(f32::to_bits));
        let v1 = [0u32; 4].map(|_| (rng.below(33) as f32 - 8.0) / 4.0);
        data.extend(v1.map(f32::to_bits));
        helpers.push(rng.chance(1, 6));
    }
    let program = sm5jit::asm::parse_program(&t)
        .unwrap_or_else(|e| panic!("generated pixel program does not parse: {e}\n{t}"));
    PixelProgram {
        seed,
        text: t,
        program,
        count,
        data,
        helpers,
    }
}

/// Runs `p` on both engines; `Ok` holds how many pixels were discarded,
/// `Err` names the first difference.
pub fn compare_pixel(p: &PixelProgram) -> Result<usize, String> {
    sm5jit::validate::validate(&p.program).map_err(|e| format!("invalid: {e}"))?;
    let inputs = BatchInputs::new(p.count, 2, &p.data).with_helpers(&p.helpers);
    let o = DispatchOptions::default();
    let interp = Interpreter::new(&p.program).map_err(|e| e.to_string())?;
    let jit = JitShader::compile(&p.program).map_err(|e| e.to_string())?;
    let words = (WIDTH * 8) as usize;
    let view = View::Buffer(BufferView {
        kind: BufferKind::Raw,
        first_element: 0,
        num_elements: words as u64,
    });
    let run = |jit_engine: bool| {
        let mut mem = vec![0u8; 4 * words];
        let r = {
            let mut b = Bindings::new();
            b.uav(Slot::new(0), &mut mem, view);
            if jit_engine {
                jit.run_batch(&b, &inputs, &o)
            } else {
                interp.run_batch(&b, &inputs, &o)
            }
        };
        r.map(|r| (r, mem)).map_err(|e| e.to_string())
    };
    let (ri, mi) = run(false)?;
    let (rj, mj) = run(true)?;
    if ri.lanes != rj.lanes {
        return Err(format!(
            "lanes: interpreter {:?}, JIT {:?}",
            ri.lanes, rj.lanes
        ));
    }
    for inv in 0..p.count {
        if ri.outputs(inv) != rj.outputs(inv) {
            return Err(format!(
                "pixel {inv}: interpreter {:?}, JIT {:?}",
                ri.outputs(inv),
                rj.outputs(inv)
            ));
        }
    }
    if let Some(i) = (0..mi.len()).find(|&i| mi[i] != mj[i]) {
        return Err(format!("u0 byte {i}: interpreter {}, JIT {}", mi[i], mj[i]));
    }
    Ok(ri
        .lanes
        .iter()
        .filter(|l| **l == sm5jit::runtime::batch::LaneResult::Discarded)
        .count())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_discard_before_their_first_derivative() {
        for seed in 1..=50 {
            let p = generate_pixel(seed);
            let d = p.text.find("discard").expect("a discard");
            let v = p.text.find("deriv_").expect("a derivative");
            assert!(d < v, "seed {seed}\n{}", p.text);
            sm5jit::validate::validate(&p.program)
                .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{}", p.text));
            assert_eq!(generate_pixel(seed).text, p.text, "deterministic");
        }
    }
}
