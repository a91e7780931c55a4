//! Sampling in generated code, every lane of a batch at once, for the
//! common case of a bound 2D texture.
//!
//! In: a sample-class instruction that may take the vector path
//! ([`candidates`]: not a gather, query or feedback form; a fixed t#
//! declared `texture2d` and a fixed s#) and, at run time, its [`VecTex`]
//! descriptor, which `sample::vector_table` fills when a dispatch or
//! batch starts, from the instruction's plan: non-zero `kind` when the
//! bound view and sampler fit (one level read whatever the LOD, point or
//! bilinear filtering, clamp addressing on both axes, R8G8B8A8_UNORM or
//! B8G8R8A8_UNORM, or R32_FLOAT for the comparison forms, the level wholly
//! inside memory with 32-bit offsets). Out: code that reads the
//! descriptor and, when it fits and every active lane's fixed-point
//! coordinates lie within ±2^30 (texel indices within ±2^22), computes
//! taps, weights, texel reads, decode or comparison and the weighted sum
//! as vectors into the io slot's result rows; otherwise it branches to
//! the texture shim (`sample.rs`), which does the same work per lane.
//!
//! Invariants: the results are the bits of `Texture::filter_direct` (the
//! same fixed-point rounding, tap order and unfused `acc + w * x` sums;
//! see `sem::sample::linear_taps` and `point_tap`, and
//! `Lower::vector_filter` for the two steps UNORM texels make void); every texel offset is computed from indices clamped
//! into the level, for idle lanes too, so no lane reads outside the bound
//! memory whatever its coordinates.
//!
//! Why the float mode does not matter here: the coordinates' products
//! are rounded by IEEE (DAZ only zeroes denormal inputs, and a denormal
//! coordinate gives texel index 0 and weight 0 either way), and UNORM8
//! texels, weights (multiples of 2^-16) and their products and sums are
//! never denormal. Comparisons, whose operands (R32_FLOAT texels and the
//! shader's references) may be denormal, are made on integers
//! (`vector_compare`), and their 1.0 and 0.0 sum like UNORM texels.

use std::collections::BTreeMap;
use std::mem::offset_of;
use std::sync::Arc;

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types, Block, InstBuilder, Value};

use super::context::{N, OFF_TYPED};
use super::lower::{mem, trusted, Lower};
use super::typed::TypedEnv;
use crate::analysis::{Prepared, ResKind};
use crate::ir::{OperandType, ResourceDim};
use crate::sem::sampler::ComparisonFunc;

/// [`VecTex::kind`] of a non-comparison form: four UNORM8 channels in a
/// DWORD (R8G8B8A8 or B8G8R8A8, see [`VecTex::swap_rb`]).
pub const KIND_UNORM8X4: u32 = 1;

/// [`VecTex::kind`] of a comparison form (`sample_c`, `sample_c_lz`): one
/// R32_FLOAT texel per DWORD, compared with the reference as
/// [`VecTex::pass`] says.
pub const KIND_R32_COMPARE: u32 = 2;

/// What the vector code of one instruction reads at run time.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct VecTex {
    /// 0: the instruction calls the shim; [`KIND_UNORM8X4`] or
    /// [`KIND_R32_COMPARE`]: the vector path (each instruction's code
    /// accepts the one kind that fits its form).
    pub kind: u32,
    /// The level's width and height, less one (the clamp bounds).
    pub max: [i32; 2],
    /// The level's width and height as floats.
    pub size: [f32; 2],
    /// 0.5 for bilinear filtering, 0 for point (`linear_taps`/`point_tap`).
    pub half: f32,
    /// 255 for bilinear filtering (the second tap's weight in 256ths), 0
    /// for point (the second tap then weighs 0 and is skipped).
    pub frac_mask: i32,
    /// Bytes from one row of the level to the next.
    pub pitch: i32,
    /// All ones when R is the DWORD's third byte and B its first
    /// (B8G8R8A8), 0 when R is the first (R8G8B8A8).
    pub swap_rb: i32,
    /// Comparison forms: which outcomes of `reference OP texel` pass, each
    /// all ones or 0, in the order [`PASS_LESS`], [`PASS_EQUAL`],
    /// [`PASS_GREATER`], [`PASS_UNORDERED`] (either operand NaN).
    pub pass: [i32; 4],
    /// The address of the level's first texel.
    pub base: u64,
}

/// Positions in [`VecTex::pass`].
pub const PASS_LESS: usize = 0;
pub const PASS_EQUAL: usize = 1;
pub const PASS_GREATER: usize = 2;
pub const PASS_UNORDERED: usize = 3;

/// [`VecTex::pass`] for comparison `func`: the outcomes for which
/// `ComparisonFunc::test` is true.
pub fn pass_masks(func: ComparisonFunc) -> [i32; 4] {
    // One operand pair per outcome: less, equal, greater, unordered.
    let probes = [(0.0, 1.0), (1.0, 1.0), (1.0, 0.0), (f32::NAN, 0.0)];
    probes.map(|(r, t)| -i32::from(func.test(r, t)))
}

/// The descriptors of one dispatch or batch runner, by candidate
/// ordinal (the position of the instruction in [`candidates`]); generated
/// code reads `ptr` and `len`, the `Arc` keeps them alive and shared by
/// every clone of the environment.
#[repr(C)]
#[derive(Clone, Debug, Default)]
pub struct VecTable {
    ptr: u64,
    len: u64,
    owner: Option<Arc<[VecTex]>>,
}

impl VecTable {
    pub fn new(descs: Vec<VecTex>) -> VecTable {
        let owner: Arc<[VecTex]> = descs.into();
        VecTable {
            ptr: owner.as_ptr() as u64,
            len: owner.len() as u64,
            owner: Some(owner),
        }
    }

    /// The descriptors, by candidate ordinal.
    pub fn descs(&self) -> &[VecTex] {
        self.owner.as_deref().unwrap_or(&[])
    }
}

const OFF_TABLE_PTR: i32 = (offset_of!(TypedEnv, vectors) + offset_of!(VecTable, ptr)) as i32;
const OFF_TABLE_LEN: i32 = (offset_of!(TypedEnv, vectors) + offset_of!(VecTable, len)) as i32;

/// The instructions of `p` that may take the vector path, in order; an
/// instruction's descriptor is at its position in this list. `srvs` and
/// `ranges` are the plan's (`plan.rs`): the t# must have one fixed table
/// entry.
pub fn candidates(
    p: &Prepared,
    srvs: &BTreeMap<u32, (usize, Option<u32>)>,
    ranges: &BTreeMap<usize, super::plan::RangeDecl>,
) -> Vec<u32> {
    let texture2d = |reg: u32| {
        p.srvs.iter().any(|d| {
            d.id == reg
                && matches!(
                    d.kind,
                    ResKind::Typed {
                        dim: ResourceDim::Texture2D,
                        ..
                    }
                )
        })
    };
    let mut out = Vec::new();
    for (at, inst) in p.program.insts.iter().enumerate() {
        if inst.opcode.feedback_base().is_some() {
            continue;
        }
        let Some(f) = inst.opcode.sample_form() else {
            continue;
        };
        if f.gather || f.query || f.offset.is_some() {
            continue;
        }
        let (Some(res), Some(samp)) = (inst.operands.get(f.res), inst.operands.get(f.samp)) else {
            continue;
        };
        let Some(reg) = res.imm_index(0).filter(|_| res.ty == OperandType::Resource) else {
            continue;
        };
        let fixed_entry = srvs.get(&reg).is_some_and(|(e, _)| !ranges.contains_key(e));
        let fixed_sampler = (0..samp.indices.len()).all(|k| samp.imm_index(k).is_some());
        if fixed_entry && fixed_sampler && texture2d(reg) {
            out.push(at as u32);
        }
    }
    out
}

/// One axis of every lane of one vector: the clamped indices of the two
/// taps, their weights, and whether the lane's coordinate was in range.
struct Axis {
    index: [Value; 2],
    weight: [Value; 2],
    in_range: Value,
}

/// The descriptor's fields as values, splat where the code needs vectors.
struct Params {
    max: [Value; 2],
    size: [Value; 2],
    half: Value,
    frac_mask: Value,
    pitch: Value,
    swap_rb: Value,
    /// Comparison forms: [`VecTex::pass`].
    pass: Option<[Value; 4]>,
    base: Value,
}

impl Lower<'_, '_> {
    /// The vector path of the instruction at `self.at`, whose operands are
    /// already in the io slot, with descriptor `slot` and immediate texel
    /// offsets `offsets`: ends in `join` with the result rows written, or
    /// in `shim` (not sealed: the caller adds its call there).
    pub(super) fn vector_sample(
        &mut self,
        io: Value,
        slot: usize,
        offsets: [i8; 3],
        compare: bool,
        shim: Block,
        join: Block,
    ) {
        let kind = if compare {
            KIND_R32_COMPARE
        } else {
            KIND_UNORM8X4
        };
        let desc = self.vector_desc(slot, kind, shim);
        let prm = self.vector_params(desc, compare);
        let fetch = self.b.create_block();
        let zero = self.i32_splat(0);
        let mut axes = Vec::with_capacity(N);
        let mut ok: Option<Value> = None;
        // One vector at a time, loads and stores beside their use: fewer
        // values live at once, fewer spills.
        for j in 0..N {
            let u = self.get_vec(io, super::sample::ROW_COORD, j);
            let v = self.get_vec(io, super::sample::ROW_COORD + 1, j);
            let au = self.vector_axis(u, &prm, 0, offsets[0]);
            let av = self.vector_axis(v, &prm, 1, offsets[1]);
            let exec = self.get_vec(io, super::sample::ROW_EXEC, j);
            let idle = self.b.ins().icmp(IntCC::Equal, exec, zero);
            let both = self.b.ins().band(au.in_range, av.in_range);
            let fine = self.b.ins().bor(both, idle);
            ok = Some(match ok {
                Some(o) => self.b.ins().band(o, fine),
                None => fine,
            });
            axes.push((au, av));
        }
        let all = self.b.ins().vall_true(ok.expect("N > 0"));
        self.b.ins().brif(all, fetch, &[], shim, &[]);
        self.b.seal_block(fetch);
        self.b.switch_to_block(fetch);
        for (j, (au, av)) in axes.iter().enumerate() {
            let texels = if compare {
                let r = self.get_vec(io, super::sample::ROW_REF, j);
                [self.vector_filter_compare(&prm, au, av, r); 4]
            } else {
                self.vector_filter(&prm, au, av)
            };
            for (c, x) in texels.into_iter().enumerate() {
                let bits = self.b.ins().bitcast(types::I32X4, mem(), x);
                self.put_vec(io, super::sample::ROW_OUT + c, j, bits);
            }
        }
        self.b.ins().jump(join, &[]);
    }

    /// Goes on in a new block when `cond` is non-zero, else branches to
    /// `otherwise`.
    fn go_on_if(&mut self, cond: Value, otherwise: Block) {
        let next = self.b.create_block();
        self.b.ins().brif(cond, next, &[], otherwise, &[]);
        self.b.seal_block(next);
        self.b.switch_to_block(next);
    }

    /// The address of descriptor `slot`, in a block reached only when the
    /// environment has one and its kind is `want`; every other case
    /// branches to `shim`.
    fn vector_desc(&mut self, slot: usize, want: u32, shim: Block) -> Value {
        let env = self
            .b
            .ins()
            .load(types::I64, trusted(), self.ctx, OFF_TYPED);
        self.go_on_if(env, shim);
        let len = self.b.ins().load(types::I64, trusted(), env, OFF_TABLE_LEN);
        let inside = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedGreaterThan, len, slot as i64);
        self.go_on_if(inside, shim);
        let table = self.b.ins().load(types::I64, trusted(), env, OFF_TABLE_PTR);
        let desc = self
            .b
            .ins()
            .iadd_imm_u(table, (slot * std::mem::size_of::<VecTex>()) as i64);
        let kind = self
            .b
            .ins()
            .load(types::I32, trusted(), desc, offset_of!(VecTex, kind) as i32);
        let fits = self.b.ins().icmp_imm_u(IntCC::Equal, kind, i64::from(want));
        self.go_on_if(fits, shim);
        desc
    }

    fn vector_params(&mut self, desc: Value, compare: bool) -> Params {
        let load = |s: &mut Self, ty, off: usize| s.b.ins().load(ty, trusted(), desc, off as i32);
        let splat = |s: &mut Self, ty, off: usize| {
            let x = load(
                s,
                if ty == types::F32X4 {
                    types::F32
                } else {
                    types::I32
                },
                off,
            );
            s.b.ins().splat(ty, x)
        };
        let max0 = offset_of!(VecTex, max);
        let size0 = offset_of!(VecTex, size);
        Params {
            max: [
                splat(self, types::I32X4, max0),
                splat(self, types::I32X4, max0 + 4),
            ],
            size: [
                splat(self, types::F32X4, size0),
                splat(self, types::F32X4, size0 + 4),
            ],
            half: splat(self, types::F32X4, offset_of!(VecTex, half)),
            frac_mask: splat(self, types::I32X4, offset_of!(VecTex, frac_mask)),
            pitch: splat(self, types::I32X4, offset_of!(VecTex, pitch)),
            swap_rb: splat(self, types::I32X4, offset_of!(VecTex, swap_rb)),
            pass: compare.then(|| {
                let pass0 = offset_of!(VecTex, pass);
                std::array::from_fn(|k| splat(self, types::I32X4, pass0 + 4 * k))
            }),
            base: load(self, types::I64, offset_of!(VecTex, base)),
        }
    }

    fn f32_splat(&mut self, x: f32) -> Value {
        let s = self.b.ins().f32const(x);
        self.b.ins().splat(types::F32X4, s)
    }

    fn i32_splat(&mut self, x: i32) -> Value {
        let s = self.b.ins().iconst(types::I32, i64::from(x));
        self.b.ins().splat(types::I32X4, s)
    }

    /// `linear_taps` (or `point_tap`, with `half` and `frac_mask` 0) of
    /// coordinate vector `c` (i32x4 bits) on axis `a`, with the clamp
    /// address mode applied to both indices. The fixed-point value is
    /// exact when `|c * size - half| * 256 < 2^30` (`in_range`); other
    /// lanes get clamped garbage, which only idle lanes may use.
    fn vector_axis(&mut self, c: Value, prm: &Params, a: usize, offset: i8) -> Axis {
        let c = self.b.ins().bitcast(types::F32X4, mem(), c);
        let x = self.b.ins().fmul(c, prm.size[a]);
        let x = self.b.ins().fsub(x, prm.half);
        let scale = self.f32_splat(256.0);
        let s = self.b.ins().fmul(x, scale);
        let mag = self.b.ins().fabs(s);
        let limit = self.f32_splat((1u32 << 30) as f32);
        let in_range = self.b.ins().fcmp(FloatCC::LessThan, mag, limit);
        let r = self.b.ins().nearest(s);
        let fixed = self.b.ins().fcvt_to_sint_sat(types::I32X4, r);
        let i0 = self
            .b
            .ins()
            .sshr_imm_u(fixed, i64::from(crate::sem::sample::SUBTEXEL_BITS));
        let i0 = match offset {
            0 => i0,
            o => {
                let o = self.i32_splat(i32::from(o));
                self.b.ins().iadd(i0, o)
            }
        };
        let one = self.i32_splat(1);
        let i1 = self.b.ins().iadd(i0, one);
        let frac = self.b.ins().band(fixed, prm.frac_mask);
        let frac = self.b.ins().fcvt_from_sint(types::F32X4, frac);
        let inv = self.f32_splat(1.0 / 256.0);
        let w1 = self.b.ins().fmul(frac, inv);
        let onef = self.f32_splat(1.0);
        let w0 = self.b.ins().fsub(onef, w1);
        let zero = self.i32_splat(0);
        let index = [i0, i1].map(|i| {
            let i = self.b.ins().smax(i, zero);
            self.b.ins().smin(i, prm.max[a])
        });
        Axis {
            index,
            weight: [w0, w1],
            in_range,
        }
    }

    /// The DWORD texel at byte offset `off` (i32x4, non-negative, inside
    /// the level) from `base`, per lane.
    fn vector_gather(&mut self, base: Value, off: Value) -> Value {
        let mut v = None;
        for lane in 0..4u8 {
            let o = self.b.ins().extractlane(off, lane);
            let o = self.b.ins().uextend(types::I64, o);
            let addr = self.b.ins().iadd(base, o);
            let t = self.b.ins().load(types::I32, trusted(), addr, 0);
            v = Some(match v {
                None => self.b.ins().scalar_to_vector(types::I32X4, t),
                Some(v) => self.b.ins().insertlane(v, t, lane),
            });
        }
        v.expect("four lanes")
    }

    /// `filter_direct` of one vector of lanes: the taps in its order
    /// ((u0, v0), (u0, v1), (u1, v0), (u1, v1)), each weight the product of
    /// its axes' weights, `acc + w * x` per channel from `acc = +0`.
    ///
    /// Two steps of `filter_direct` are left out because they cannot
    /// change a bit for UNORM texels: its skip of a zero weight (every
    /// term `w * x` is +0 or positive, so `acc` is never -0, NaN or
    /// infinite, and adding +0 leaves it as it is) and the first sum
    /// `+0 + w * x` (equal to `w * x`, never -0). The channels are summed
    /// in the DWORD's byte order and R and B exchanged at the end when
    /// the format is B8G8R8A8: each channel's sum reads only that
    /// channel's bytes.
    fn vector_filter(&mut self, prm: &Params, au: &Axis, av: &Axis) -> [Value; 4] {
        let rows = av.index.map(|y| self.b.ins().imul(y, prm.pitch));
        let cols = au.index.map(|x| self.b.ins().ishl_imm_u(x, 2));
        let byte = self.i32_splat(0xFF);
        let unorm = self.f32_splat(255.0);
        let mut acc: Option<[Value; 4]> = None;
        for (col, wu) in cols.into_iter().zip(au.weight) {
            for (row, wv) in rows.into_iter().zip(av.weight) {
                let off = self.b.ins().iadd(row, col);
                let t = self.vector_gather(prm.base, off);
                let w = self.b.ins().fmul(wu, wv);
                let terms: [Value; 4] = std::array::from_fn(|c| {
                    let ch = match c {
                        0 => t,
                        _ => self.b.ins().ushr_imm_u(t, 8 * c as i64),
                    };
                    let ch = match c {
                        3 => ch,
                        _ => self.b.ins().band(ch, byte),
                    };
                    let ch = self.b.ins().fcvt_from_sint(types::F32X4, ch);
                    let x = self.b.ins().fdiv(ch, unorm);
                    self.b.ins().fmul(w, x)
                });
                acc = Some(match acc {
                    None => terms,
                    Some(a) => std::array::from_fn(|c| self.b.ins().fadd(a[c], terms[c])),
                });
            }
        }
        let [r, g, b, a] = acc.expect("four taps");
        let swap = self.b.ins().bitcast(types::F32X4, mem(), prm.swap_rb);
        let red = self.b.ins().bitselect(swap, b, r);
        let blue = self.b.ins().bitselect(swap, r, b);
        [red, g, blue, a]
    }

    /// `reference OP texel` per lane of `r` (the reference's bits) and `t`
    /// (an R32_FLOAT texel's bits) as all ones or 0, with
    /// `ComparisonFunc::test`'s IEEE answer: computed on integers, so that
    /// the float mode of generated code (DAZ) cannot make a denormal
    /// operand compare as zero. Each operand maps to an integer whose
    /// signed order is the float order (`key`; -0 and +0 both map to 0),
    /// NaN operands make the outcome unordered.
    fn vector_compare(&mut self, pass: &[Value; 4], r: &Key, t: Value) -> Value {
        let t = self.vector_key(t);
        let lt = self.b.ins().icmp(IntCC::SignedLessThan, r.key, t.key);
        let eq = self.b.ins().icmp(IntCC::Equal, r.key, t.key);
        let gt = self.b.ins().icmp(IntCC::SignedGreaterThan, r.key, t.key);
        let lt = self.b.ins().band(lt, pass[PASS_LESS]);
        let eq = self.b.ins().band(eq, pass[PASS_EQUAL]);
        let gt = self.b.ins().band(gt, pass[PASS_GREATER]);
        let ordered = self.b.ins().bor(lt, eq);
        let ordered = self.b.ins().bor(ordered, gt);
        let nan = self.b.ins().bor(r.nan, t.nan);
        let ordered = self.b.ins().band_not(ordered, nan);
        let unordered = self.b.ins().band(nan, pass[PASS_UNORDERED]);
        self.b.ins().bor(ordered, unordered)
    }

    /// [`Key`] of the float bits `x` (i32x4).
    fn vector_key(&mut self, x: Value) -> Key {
        let sign = self.b.ins().sshr_imm_u(x, 31);
        let magnitude = self.i32_splat(i32::MAX);
        let mag = self.b.ins().band(x, magnitude);
        let flipped = self.b.ins().bxor(mag, sign);
        let key = self.b.ins().isub(flipped, sign);
        let inf = self.i32_splat(0x7F80_0000);
        let nan = self.b.ins().icmp(IntCC::SignedGreaterThan, mag, inf);
        Key { key, nan }
    }

    /// `filter_direct` with a comparison, for one vector of lanes whose
    /// references are `r`: each tap's value is 1.0 where the comparison
    /// passes and 0.0 where it fails, in all four channels, so one sum
    /// serves them all. As in [`Self::vector_filter`], the zero-weight skip
    /// and the first `+0 +` are left out: every term is +0 or positive.
    fn vector_filter_compare(&mut self, prm: &Params, au: &Axis, av: &Axis, r: Value) -> Value {
        let pass = prm.pass.expect("a comparison form's parameters");
        let r = self.vector_key(r);
        let rows = av.index.map(|y| self.b.ins().imul(y, prm.pitch));
        let cols = au.index.map(|x| self.b.ins().ishl_imm_u(x, 2));
        let one = self.f32_splat(1.0);
        let mut acc: Option<Value> = None;
        for (col, wu) in cols.into_iter().zip(au.weight) {
            for (row, wv) in rows.into_iter().zip(av.weight) {
                let off = self.b.ins().iadd(row, col);
                let t = self.vector_gather(prm.base, off);
                let passed = self.vector_compare(&pass, &r, t);
                let passed = self.b.ins().bitcast(types::F32X4, mem(), passed);
                let x = self.b.ins().band(passed, one);
                let w = self.b.ins().fmul(wu, wv);
                let term = self.b.ins().fmul(w, x);
                acc = Some(match acc {
                    None => term,
                    Some(a) => self.b.ins().fadd(a, term),
                });
            }
        }
        acc.expect("four taps")
    }
}

/// A float vector as a signed-comparable integer vector, and which lanes
/// are NaN (all ones).
struct Key {
    key: Value,
    nan: Value,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pass_masks_follow_the_comparison_functions() {
        let all = -1;
        let cases = [
            (ComparisonFunc::Never, [0, 0, 0, 0]),
            (ComparisonFunc::Less, [all, 0, 0, 0]),
            (ComparisonFunc::Equal, [0, all, 0, 0]),
            (ComparisonFunc::LessEqual, [all, all, 0, 0]),
            (ComparisonFunc::Greater, [0, 0, all, 0]),
            (ComparisonFunc::NotEqual, [all, 0, all, all]),
            (ComparisonFunc::GreaterEqual, [0, all, all, 0]),
            (ComparisonFunc::Always, [all, all, all, all]),
        ];
        for (func, want) in cases {
            assert_eq!(pass_masks(func), want, "{func:?}");
        }
    }
}
