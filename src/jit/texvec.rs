//! Sampling in generated code, every lane of a batch at once, for the
//! common case of a bound 2D texture.
//!
//! In: a sample-class instruction that may take the vector path
//! ([`candidates`]: not a gather, query or feedback form; a fixed t#
//! declared `texture2d` and a fixed s#) and, at run time, its [`VecTex`]
//! descriptor, which `sample::vector_table` fills when a dispatch or
//! batch starts, from the instruction's plan: non-zero `kind` when the
//! bound view and sampler fit (R8G8B8A8_UNORM or B8G8R8A8_UNORM, or
//! R32_FLOAT for the comparison forms; wrap or clamp addressing on u and
//! v; every level read wholly inside memory with 32-bit offsets; and
//! either one level and filter whatever the LOD, or an LOD the lanes of
//! a quad share: implicit without a bias, or zero). Out: code that reads
//! the descriptor, takes each quad's levels from it or from
//! [`QUAD_MIPS`] (a call per batch that makes the quads' mip choices
//! from their gradients, as the shim would), and, when every active
//! lane's fixed-point coordinates lie within ±2^30 (texel indices within
//! ±2^22), computes taps, addressing, weights, texel reads, decode or
//! comparison, the weighted sum and the blend of two levels as vectors
//! into the io slot's result rows; otherwise it branches to the texture
//! shim (`sample.rs`), which does the same work per lane.
//!
//! Invariants: the results are the bits of `Texture::filter_direct` (the
//! same fixed-point rounding, tap order and unfused `acc + w * x` sums;
//! see `sem::sample::linear_taps` and `point_tap`, and
//! `Lower::vector_filter` for the two steps UNORM texels make void; the
//! blend `a * (1 - w) + b * w` of `Texture::sample_chosen`); every texel
//! offset is computed from indices clamped into the level (after the
//! wrap, too), for idle lanes as well, so no lane reads outside the bound
//! memory whatever its coordinates.
//!
//! Why the float mode does not matter here: the coordinates' products
//! are rounded by IEEE (DAZ only zeroes denormal inputs, and a denormal
//! coordinate gives texel index 0 and weight 0 either way), and UNORM8
//! texels, weights (multiples of 2^-16) and their products and sums are
//! never denormal. Comparisons, whose operands (R32_FLOAT texels and the
//! shader's references) may be denormal, are made on integers
//! (`vector_compare`), and their 1.0 and 0.0 sum like UNORM texels. The
//! blend of two levels multiplies such sums by multiples of 1/256, never
//! denormal either; wrapping divides integer-valued floats.

use std::collections::BTreeMap;
use std::mem::offset_of;
use std::sync::Arc;

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types, Block, BlockArg, InstBuilder, Value};

use super::context::N;
use super::lower::{fixed, mem, trusted, Lower};
use super::sample::lazy_slot;
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

/// One mip level as the vector code reads it (a
/// `Texture::direct_level` whose texels all lie within 2^31 bytes of its
/// first).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct VecLevel {
    /// The address of the level's first texel.
    pub base: u64,
    /// The level's width and height, less one (the clamp bounds).
    pub max: [i32; 2],
    /// The level's width and height as floats.
    pub size: [f32; 2],
    /// The level's width and height (the wrap moduli).
    pub dims: [i32; 2],
    /// Bytes from one row of the level to the next.
    pub pitch: i32,
    pub _pad: i32,
}

/// The levels the lanes of one pixel quad read and how they mix: a
/// `Chosen` (`Texture::sample_chosen`) in the form the code reads.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct VecMips {
    /// The first level, and the second (read only when `two` is set).
    pub level: [VecLevel; 2],
    /// 0.5 for bilinear filtering, 0 for point (`linear_taps`/`point_tap`).
    pub half: f32,
    /// 255 for bilinear filtering (the second tap's weight in 256ths), 0
    /// for point (the second tap then weighs 0).
    pub frac_mask: i32,
    /// The second level's weight (a multiple of 1/256).
    pub weight: f32,
    /// Non-zero when the second level is read and blended in.
    pub two: i32,
}

/// What the vector code of one instruction reads at run time.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VecTex {
    /// 0: the instruction calls the shim; [`KIND_UNORM8X4`] or
    /// [`KIND_R32_COMPARE`]: the vector path (each instruction's code
    /// accepts the one kind that fits its form).
    pub kind: u32,
    /// All ones when R is the DWORD's third byte and B its first
    /// (B8G8R8A8), 0 when R is the first (R8G8B8A8).
    pub swap_rb: i32,
    /// Comparison forms: which outcomes of `reference OP texel` pass, each
    /// all ones or 0, in the order [`PASS_LESS`], [`PASS_EQUAL`],
    /// [`PASS_GREATER`], [`PASS_UNORDERED`] (either operand NaN).
    pub pass: [i32; 4],
    /// Per axis (u, v): non-zero for wrap addressing, 0 for clamp.
    pub wrap: [i32; 2],
    /// Non-zero when each quad's levels follow from its LOD: the code
    /// then calls [`QUAD_MIPS`] for them; 0 when `fixed` holds the one
    /// choice every LOD makes.
    pub mipped: i32,
    pub _pad: i32,
    /// The levels of every lane when `mipped` is 0.
    pub fixed: VecMips,
    /// [`VEC_CONSTS`]: the vector code's constants, read from each
    /// instruction's own descriptor. Cranelift merges equal vector
    /// constants across a function and keeps the one copy live from its
    /// first use to its last, so a pixel shader's dozen sampling
    /// constants would stay live across all its samples (spilled, and
    /// reloaded at every use). A constant loaded from the instruction's
    /// descriptor is a different value in each instruction, live only
    /// inside it.
    pub consts: [[u32; 4]; CONSTS],
}

impl Default for VecTex {
    fn default() -> VecTex {
        VecTex {
            kind: 0,
            swap_rb: 0,
            pass: [0; 4],
            wrap: [0; 2],
            mipped: 0,
            _pad: 0,
            fixed: VecMips::default(),
            consts: VEC_CONSTS,
        }
    }
}

/// Positions in [`VecTex::consts`] ([`VEC_CONSTS`]).
const C_ZERO: usize = 0;
const C_ONE_I: usize = 1;
const C_BYTE: usize = 2;
const C_MAGNITUDE: usize = 3;
const C_INF: usize = 4;
const C_ONE_F: usize = 5;
const C_FIXED_ONE: usize = 6;
const C_LIMIT: usize = 7;
const C_INV_FIXED_ONE: usize = 8;
const C_UNORM8: usize = 9;
/// The immediate texel offsets -8..=7 from here, -8 first.
const C_OFFSETS: usize = 10;
/// The number of [`VecTex::consts`].
pub const CONSTS: usize = C_OFFSETS + 16;

/// The position of immediate texel offset `o` (-8..=7) in
/// [`VEC_CONSTS`].
/// ([`candidates`] takes only instructions whose offsets are in range,
/// as both front ends make them.)
fn offset_const(o: i8) -> usize {
    C_OFFSETS + (i32::from(o) + 8) as usize
}

/// Every descriptor's [`VecTex::consts`]: the vectors, each one 32-bit
/// pattern in four lanes (loaded whole, a constant can be an operand in
/// memory of the instruction that uses it).
pub const VEC_CONSTS: [[u32; 4]; CONSTS] = {
    let mut t = [0u32; CONSTS];
    t[C_ZERO] = 0;
    t[C_ONE_I] = 1;
    t[C_BYTE] = 0xFF;
    t[C_MAGNITUDE] = i32::MAX as u32;
    t[C_INF] = 0x7F80_0000;
    t[C_ONE_F] = 1.0f32.to_bits();
    t[C_FIXED_ONE] = 256.0f32.to_bits();
    t[C_LIMIT] = ((1u32 << 30) as f32).to_bits();
    t[C_INV_FIXED_ONE] = (1.0f32 / 256.0).to_bits();
    t[C_UNORM8] = 255.0f32.to_bits();
    let mut k = 0;
    while k < 16 {
        t[C_OFFSETS + k] = (k as i32 - 8) as u32;
        k += 1;
    }
    let mut v = [[0u32; 4]; CONSTS];
    let mut k = 0;
    while k < CONSTS {
        v[k] = [t[k]; 4];
        k += 1;
    }
    v
};

/// The symbol of `sample::quad_mips`, which writes each quad's
/// [`VecMips`] for a descriptor with [`VecTex::mipped`] set.
pub const QUAD_MIPS: &str = "sm5jit_quad_mips";

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
        if !inst.texel_offsets().iter().all(|o| (-8..=7).contains(o)) {
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

/// One axis of every lane of one vector: the addressed indices of the
/// two taps (inside the level) and their weights.
struct Axis {
    index: [Value; 2],
    weight: [Value; 2],
}

/// The descriptor's fields every quad shares, as values.
struct Statics {
    swap_rb: Value,
    /// Comparison forms: [`VecTex::pass`].
    pass: Option<[Value; 4]>,
    /// [`VecTex::wrap`] (i32 scalars).
    wrap: [Value; 2],
}

/// One quad's [`VecMips`] fields other than its levels, splat where the
/// code needs vectors.
struct QuadVals {
    half: Value,
    frac_mask: Value,
    weight: Value,
    /// [`VecMips::two`] (an i32 scalar).
    two: Value,
}

/// One [`VecLevel`] as values, splat where the code needs vectors.
struct LevelVals {
    base: Value,
    max: [Value; 2],
    size: [Value; 2],
    dims: [Value; 2],
    pitch: Value,
}

/// One quad's descriptor values and axes, as its fetch reads them.
struct QuadFetch {
    at: Value,
    quad: QuadVals,
    level: LevelVals,
    u: Axis,
    v: Axis,
}

impl Lower<'_, '_> {
    /// The vector path of the instruction at `self.at`, whose operands are
    /// already in the io slot, with descriptor `slot` and immediate texel
    /// offsets `offsets`: ends in `join` with the result rows written, or
    /// in `shim` (not sealed: the caller adds its call there).
    ///
    /// Each vector of lanes is one pixel quad (`QUAD` lanes), so its
    /// levels, filter and blend weight are scalars: the descriptor's
    /// `fixed` ones, or the ones [`QUAD_MIPS`] chose from the quad's LOD.
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
        self.tex.vec_desc = Some(desc);
        let st = self.vector_statics(desc, compare);
        let (mips, stride) = self.quad_mips(desc, io, shim);
        // Every active lane of every quad must be in range before any
        // quad fetches: a cheap test per quad first, then one loop over
        // the quads for the fetch and filter, so that their code is in
        // the function once, not N times (pixel shaders with several
        // samples run out of instruction cache long before they run out
        // of anything else).
        let zero = self.i32_const(C_ZERO);
        let mut ok: Option<Value> = None;
        for j in 0..N {
            let step = self.b.ins().imul_imm_u(stride, j as i64);
            let at = self.b.ins().iadd(mips, step);
            let quad = self.quad_vals(at);
            let level = self.level_vals(at, 0);
            let u = self.get_vec(io, super::sample::ROW_COORD, j);
            let v = self.get_vec(io, super::sample::ROW_COORD + 1, j);
            let (_, u_in) = self.fixed_point(u, &quad, &level, 0);
            let (_, v_in) = self.fixed_point(v, &quad, &level, 1);
            let exec = self.get_vec(io, super::sample::ROW_EXEC, j);
            let idle = self.b.ins().icmp(IntCC::Equal, exec, zero);
            let both = self.b.ins().band(u_in, v_in);
            let fine = self.b.ins().bor(both, idle);
            ok = Some(match ok {
                Some(o) => self.b.ins().band(o, fine),
                None => fine,
            });
        }
        let all = self.b.ins().vall_true(ok.expect("N > 0"));
        let body = self.b.create_block();
        let j = self.b.append_block_param(body, types::I64);
        let first = self.b.ins().iconst(types::I64, 0);
        self.b
            .ins()
            .brif(all, body, &[BlockArg::Value(first)], shim, &[]);
        self.b.switch_to_block(body);
        // Quad `j`'s lanes are vector 0 of the io rows from `io + 16 j`.
        let lane0 = self.b.ins().imul_imm_u(j, 16);
        let io_j = self.b.ins().iadd(io, lane0);
        let step = self.b.ins().imul(stride, j);
        let at = self.b.ins().iadd(mips, step);
        let quad = self.quad_vals(at);
        let level = self.level_vals(at, 0);
        let (u, v) = self.vector_axes(io_j, 0, &quad, &level, &st, offsets);
        let q = QuadFetch {
            at,
            quad,
            level,
            u,
            v,
        };
        let texels = self.vector_quad(io_j, 0, &q, &st, offsets, compare);
        for (c, x) in texels.into_iter().enumerate() {
            let bits = self.b.ins().bitcast(types::I32X4, mem(), x);
            self.put_vec(io_j, super::sample::ROW_OUT + c, 0, bits);
        }
        let next = self.b.ins().iadd_imm_u(j, 1);
        let more = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedLessThan, next, N as i64);
        self.b
            .ins()
            .brif(more, body, &[BlockArg::Value(next)], join, &[]);
        self.b.seal_block(body);
        self.tex.vec_desc = None;
    }

    /// Both axes of vector `j` of the coordinate rows on `level`.
    fn vector_axes(
        &mut self,
        io: Value,
        j: usize,
        quad: &QuadVals,
        level: &LevelVals,
        st: &Statics,
        offsets: [i8; 3],
    ) -> (Axis, Axis) {
        let u = self.get_vec(io, super::sample::ROW_COORD, j);
        let v = self.get_vec(io, super::sample::ROW_COORD + 1, j);
        let au = self.vector_axis(u, quad, level, st.wrap[0], 0, offsets[0]);
        let av = self.vector_axis(v, quad, level, st.wrap[1], 1, offsets[1]);
        (au, av)
    }

    /// The four channels of quad `j` (all alike for a comparison): its
    /// first level filtered, and when [`VecMips::two`] is set the second
    /// too and the two blended as `Texture::sample_chosen` blends them,
    /// `a * (1 - w) + b * w`.
    ///
    /// The second level needs no range check of its own: its size is at
    /// most the first's on each axis, so `|c * size - half|` is at most
    /// the larger of the first level's and `half`.
    fn vector_quad(
        &mut self,
        io: Value,
        j: usize,
        q: &QuadFetch,
        st: &Statics,
        offsets: [i8; 3],
        compare: bool,
    ) -> Vec<Value> {
        let first = self.vector_level(io, j, st, &q.level, &q.u, &q.v, compare);
        let second = self.b.create_block();
        let done = self.b.create_block();
        let out: Vec<Value> = first
            .iter()
            .map(|_| self.b.append_block_param(done, types::F32X4))
            .collect();
        let args: Vec<BlockArg> = first.iter().copied().map(BlockArg::Value).collect();
        self.b.ins().brif(q.quad.two, second, &[], done, &args);
        self.b.seal_block(second);
        self.b.switch_to_block(second);
        let level = self.level_vals(q.at, 1);
        let (u, v) = self.vector_axes(io, j, &q.quad, &level, st, offsets);
        let b = self.vector_level(io, j, st, &level, &u, &v, compare);
        let one = self.f32_const(C_ONE_F);
        let keep = self.b.ins().fsub(one, q.quad.weight);
        let blended: Vec<BlockArg> = first
            .iter()
            .zip(&b)
            .map(|(&x, &y)| {
                let x = self.b.ins().fmul(x, keep);
                let y = self.b.ins().fmul(y, q.quad.weight);
                BlockArg::Value(self.b.ins().fadd(x, y))
            })
            .collect();
        self.b.ins().jump(done, &blended);
        self.b.seal_block(done);
        self.b.switch_to_block(done);
        match out.as_slice() {
            [x] => vec![*x; 4],
            _ => out,
        }
    }

    /// One level's filtered channels for vector `j`: four, or the one
    /// comparison sum.
    #[allow(clippy::too_many_arguments)]
    fn vector_level(
        &mut self,
        io: Value,
        j: usize,
        st: &Statics,
        level: &LevelVals,
        u: &Axis,
        v: &Axis,
        compare: bool,
    ) -> Vec<Value> {
        if compare {
            let r = self.get_vec(io, super::sample::ROW_REF, j);
            vec![self.vector_filter_compare(st, level, u, v, r)]
        } else {
            self.vector_filter(st, level, u, v).to_vec()
        }
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
        let env = self.typed_env();
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

    /// Where the quads' [`VecMips`] are and the bytes from one to the
    /// next: the descriptor's `fixed` (stride 0) when it is not
    /// `mipped`, else the mips slot after [`QUAD_MIPS`] filled it; a
    /// zero from the call (a choice the vector path does not read)
    /// branches to `shim`.
    fn quad_mips(&mut self, desc: Value, io: Value, shim: Block) -> (Value, Value) {
        let mipped = self.b.ins().load(
            types::I32,
            trusted(),
            desc,
            offset_of!(VecTex, mipped) as i32,
        );
        let call = self.b.create_block();
        let chosen = self.b.create_block();
        let mips = self.b.append_block_param(chosen, types::I64);
        let stride = self.b.append_block_param(chosen, types::I64);
        let fixed = self
            .b
            .ins()
            .iadd_imm_u(desc, offset_of!(VecTex, fixed) as i64);
        let none = self.b.ins().iconst(types::I64, 0);
        let args = [BlockArg::Value(fixed), BlockArg::Value(none)];
        self.b.ins().brif(mipped, call, &[], chosen, &args);
        self.b.seal_block(call);
        self.b.switch_to_block(call);
        let slot = self.mips_addr();
        let ok = self.call_quad_mips(io, slot);
        let size = self
            .b
            .ins()
            .iconst(types::I64, std::mem::size_of::<VecMips>() as i64);
        let args = [BlockArg::Value(slot), BlockArg::Value(size)];
        self.b.ins().brif(ok, chosen, &args, shim, &[]);
        self.b.seal_block(chosen);
        self.b.switch_to_block(chosen);
        (mips, stride)
    }

    /// The mips slot's address: [`N`] [`VecMips`], one per quad.
    fn mips_addr(&mut self) -> Value {
        let size = (N * std::mem::size_of::<VecMips>()) as u32;
        let ss = lazy_slot(&mut self.b, &mut self.tex.mips, size, 3);
        self.b.ins().stack_addr(types::I64, ss, 0)
    }

    /// Calls [`QUAD_MIPS`] for the instruction at `self.at`: its result
    /// (non-zero when the slot at `slot` was filled).
    fn call_quad_mips(&mut self, io: Value, slot: Value) -> Value {
        let params = [types::I64, types::I32, types::I64, types::I64];
        let fr = self.import_shim(QUAD_MIPS, &params, Some(types::I32));
        let env = self.typed_env();
        let at = self.b.ins().iconst(types::I32, self.at as i64);
        let call = self.b.ins().call(fr, &[env, at, io, slot]);
        self.b.inst_results(call)[0]
    }

    fn vector_statics(&mut self, desc: Value, compare: bool) -> Statics {
        let int =
            |s: &mut Self, off: usize| s.b.ins().load(types::I32, trusted(), desc, off as i32);
        let wrap0 = offset_of!(VecTex, wrap);
        let swap = int(self, offset_of!(VecTex, swap_rb));
        Statics {
            swap_rb: self.b.ins().splat(types::I32X4, swap),
            pass: compare.then(|| {
                let pass0 = offset_of!(VecTex, pass);
                std::array::from_fn(|k| {
                    let x = int(self, pass0 + 4 * k);
                    self.b.ins().splat(types::I32X4, x)
                })
            }),
            wrap: [int(self, wrap0), int(self, wrap0 + 4)],
        }
    }

    /// A field of type `ty` (a scalar) at `off` from `at`, splat to `vty`.
    fn splat_field(&mut self, at: Value, off: usize, ty: types::Type, vty: types::Type) -> Value {
        let x = self.b.ins().load(ty, trusted(), at, off as i32);
        self.b.ins().splat(vty, x)
    }

    fn quad_vals(&mut self, at: Value) -> QuadVals {
        let (f, i) = ((types::F32, types::F32X4), (types::I32, types::I32X4));
        QuadVals {
            half: self.splat_field(at, offset_of!(VecMips, half), f.0, f.1),
            frac_mask: self.splat_field(at, offset_of!(VecMips, frac_mask), i.0, i.1),
            weight: self.splat_field(at, offset_of!(VecMips, weight), f.0, f.1),
            two: self
                .b
                .ins()
                .load(types::I32, trusted(), at, offset_of!(VecMips, two) as i32),
        }
    }

    /// Level `k` (0 or 1) of the [`VecMips`] at `at`.
    fn level_vals(&mut self, at: Value, k: usize) -> LevelVals {
        let l = offset_of!(VecMips, level) + k * std::mem::size_of::<VecLevel>();
        let (f, i) = ((types::F32, types::F32X4), (types::I32, types::I32X4));
        let pair = |s: &mut Self, off: usize, (t, v): (types::Type, types::Type)| {
            [
                s.splat_field(at, l + off, t, v),
                s.splat_field(at, l + off + 4, t, v),
            ]
        };
        LevelVals {
            base: self.b.ins().load(
                types::I64,
                trusted(),
                at,
                (l + offset_of!(VecLevel, base)) as i32,
            ),
            max: pair(self, offset_of!(VecLevel, max), i),
            size: pair(self, offset_of!(VecLevel, size), f),
            dims: pair(self, offset_of!(VecLevel, dims), i),
            pitch: self.splat_field(at, l + offset_of!(VecLevel, pitch), i.0, i.1),
        }
    }

    /// Constant `k` of the current instruction's descriptor
    /// ([`VecTex::consts`]) as an f32x4.
    fn f32_const(&mut self, k: usize) -> Value {
        self.desc_const(k, types::F32X4)
    }

    /// Constant `k` of the current instruction's descriptor as an i32x4.
    fn i32_const(&mut self, k: usize) -> Value {
        self.desc_const(k, types::I32X4)
    }

    fn desc_const(&mut self, k: usize, vty: types::Type) -> Value {
        let desc = self
            .tex
            .vec_desc
            .expect("vector constants are read inside a vector path");
        let off = offset_of!(VecTex, consts) + 16 * k;
        // Pure, so placed at its first use (an operand in memory when it
        // has one) rather than where this asked for it.
        self.b.ins().load(vty, fixed(), desc, off as i32)
    }

    /// `v` computed here, before any later load: stored to a scratch
    /// slot nobody reads. Cranelift places pure instructions at their
    /// first use and keeps loads (and stores) where they were emitted,
    /// so without this store a filter's texel loads would all run first
    /// and their scalars wait in spill slots until the arithmetic that
    /// inserts them into vectors. (A block parameter would not do: a
    /// parameter with one incoming value is replaced by that value.)
    fn pin(&mut self, v: Value) {
        let ss = lazy_slot(&mut self.b, &mut self.tex.pin, 16, 4);
        self.b.ins().stack_store(types::I64, v, ss, 0);
    }

    /// `linear_taps` (or `point_tap`, with `half` and `frac_mask` 0) of
    /// coordinate vector `c` (i32x4 bits) on axis `a` of `level`, with
    /// the address mode applied to both indices ([`Self::vector_address`]).
    /// The fixed-point value is exact on the lanes [`Self::fixed_point`]
    /// finds in range; other lanes get addressed garbage, which only idle
    /// lanes may use.
    fn vector_axis(
        &mut self,
        c: Value,
        q: &QuadVals,
        level: &LevelVals,
        wrap: Value,
        a: usize,
        offset: i8,
    ) -> Axis {
        let (s, _) = self.fixed_point(c, q, level, a);
        let r = self.b.ins().nearest(s);
        // Exact on every lane in range; the others only address garbage
        // inside the level (see above), from INT_MIN as from a saturated
        // value: `i0` stays within 2^23 + 8 of 0 either way.
        let fixed = self.cvt_in_range(r);
        let i0 = self
            .b
            .ins()
            .sshr_imm_u(fixed, i64::from(crate::sem::sample::SUBTEXEL_BITS));
        let i0 = match offset {
            0 => i0,
            o => {
                let o = self.i32_const(offset_const(o));
                self.b.ins().iadd(i0, o)
            }
        };
        let frac = self.b.ins().band(fixed, q.frac_mask);
        let frac = self.b.ins().fcvt_from_sint(types::F32X4, frac);
        let inv = self.f32_const(C_INV_FIXED_ONE);
        let w1 = self.b.ins().fmul(frac, inv);
        let onef = self.f32_const(C_ONE_F);
        let w0 = self.b.ins().fsub(onef, w1);
        Axis {
            index: self.vector_address(i0, level, wrap, a),
            weight: [w0, w1],
        }
    }

    /// Coordinate vector `c` (i32x4 bits) on axis `a` of `level` in 256ths
    /// of a texel from the filter's first tap, `(c * size - half) * 256`
    /// (f32x4), and which lanes are in range for the fixed-point value
    /// (`|x| < 2^30`, all ones).
    fn fixed_point(
        &mut self,
        c: Value,
        q: &QuadVals,
        level: &LevelVals,
        a: usize,
    ) -> (Value, Value) {
        let c = self.b.ins().bitcast(types::F32X4, mem(), c);
        let x = self.b.ins().fmul(c, level.size[a]);
        let x = self.b.ins().fsub(x, q.half);
        let scale = self.f32_const(C_FIXED_ONE);
        let s = self.b.ins().fmul(x, scale);
        let mag = self.b.ins().fabs(s);
        let limit = self.f32_const(C_LIMIT);
        (s, self.b.ins().fcmp(FloatCC::LessThan, mag, limit))
    }

    /// `sem::sample::address` of the taps `i0` and `i0 + 1` on axis `a`
    /// of `level`: wrapped when `wrap` (a scalar) is non-zero, clamped
    /// otherwise. Both results are clamped into the level at the end,
    /// which changes no wrapped index but keeps every texel read inside
    /// the level whatever the lane's coordinate.
    fn vector_address(
        &mut self,
        i0: Value,
        level: &LevelVals,
        wrap: Value,
        a: usize,
    ) -> [Value; 2] {
        let wrapped = self.b.create_block();
        let merged = self.b.create_block();
        let out = [(); 2].map(|_| self.b.append_block_param(merged, types::I32X4));
        let one = self.i32_const(C_ONE_I);
        let i1 = self.b.ins().iadd(i0, one);
        self.b.ins().brif(
            wrap,
            wrapped,
            &[],
            merged,
            &[BlockArg::Value(i0), BlockArg::Value(i1)],
        );
        self.b.seal_block(wrapped);
        self.b.switch_to_block(wrapped);
        let n = level.dims[a];
        let r0 = self.vector_modulo(i0, n, level.size[a]);
        // r0 + 1 lies in [1, n]: n wraps to 0.
        let r1 = self.b.ins().iadd(r0, one);
        let over = self.b.ins().icmp(IntCC::SignedGreaterThanOrEqual, r1, n);
        let back = self.b.ins().band(over, n);
        let r1 = self.b.ins().isub(r1, back);
        self.b
            .ins()
            .jump(merged, &[BlockArg::Value(r0), BlockArg::Value(r1)]);
        self.b.seal_block(merged);
        self.b.switch_to_block(merged);
        let zero = self.i32_const(C_ZERO);
        out.map(|i| {
            let i = self.b.ins().smax(i, zero);
            self.b.ins().smin(i, level.max[a])
        })
    }

    /// `i` modulo `n` (i32x4, `n` ≥ 1; `nf` is `n` as floats), in
    /// `[0, n)`: the quotient `floor(i / n)` in f32 is off by at most one
    /// for `|i| < 2^23` (the float quotient's error is below 0.5), which
    /// one correction each way repairs. Every index reaching here is
    /// within 2^23 + 8 (a fixed-point value, or INT_MIN for a lane out of
    /// range, shifted by 8, plus an offset of at most 8), so the quotient
    /// is far inside the i32 range.
    fn vector_modulo(&mut self, i: Value, n: Value, nf: Value) -> Value {
        let fi = self.b.ins().fcvt_from_sint(types::F32X4, i);
        let q = self.b.ins().fdiv(fi, nf);
        let q = self.b.ins().floor(q);
        let q = self.cvt_in_range(q);
        let qn = self.b.ins().imul(q, n);
        let r = self.b.ins().isub(i, qn);
        let zero = self.i32_const(C_ZERO);
        let neg = self.b.ins().icmp(IntCC::SignedLessThan, r, zero);
        let up = self.b.ins().band(neg, n);
        let r = self.b.ins().iadd(r, up);
        let over = self.b.ins().icmp(IntCC::SignedGreaterThanOrEqual, r, n);
        let down = self.b.ins().band(over, n);
        self.b.ins().isub(r, down)
    }

    /// `x` (f32x4, integral) to i32x4 where every lane that is used is
    /// inside the i32 range: on x86-64 the one conversion instruction
    /// (INT_MIN in a lane out of range or NaN) instead of the saturating
    /// conversion's seven; the saturating one on other hosts.
    fn cvt_in_range(&mut self, x: Value) -> Value {
        if cfg!(target_arch = "x86_64") {
            self.b.ins().x86_cvtt2dq(types::I32X4, x)
        } else {
            self.b.ins().fcvt_to_sint_sat(types::I32X4, x)
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
        let v = v.expect("four lanes");
        self.pin(v);
        v
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
    fn vector_filter(
        &mut self,
        st: &Statics,
        level: &LevelVals,
        au: &Axis,
        av: &Axis,
    ) -> [Value; 4] {
        let rows = av.index.map(|y| self.b.ins().imul(y, level.pitch));
        let cols = au.index.map(|x| self.b.ins().ishl_imm_u(x, 2));
        let byte = self.i32_const(C_BYTE);
        let unorm = self.f32_const(C_UNORM8);
        let mut acc: Option<[Value; 4]> = None;
        for (col, wu) in cols.into_iter().zip(au.weight) {
            for (row, wv) in rows.into_iter().zip(av.weight) {
                let off = self.b.ins().iadd(row, col);
                let t = self.vector_gather(level.base, off);
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
        let swap = self.b.ins().bitcast(types::F32X4, mem(), st.swap_rb);
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
        let magnitude = self.i32_const(C_MAGNITUDE);
        let mag = self.b.ins().band(x, magnitude);
        let flipped = self.b.ins().bxor(mag, sign);
        let key = self.b.ins().isub(flipped, sign);
        let inf = self.i32_const(C_INF);
        let nan = self.b.ins().icmp(IntCC::SignedGreaterThan, mag, inf);
        Key { key, nan }
    }

    /// `filter_direct` with a comparison, for one vector of lanes whose
    /// references are `r`: each tap's value is 1.0 where the comparison
    /// passes and 0.0 where it fails, in all four channels, so one sum
    /// serves them all. As in [`Self::vector_filter`], the zero-weight skip
    /// and the first `+0 +` are left out: every term is +0 or positive.
    fn vector_filter_compare(
        &mut self,
        st: &Statics,
        level: &LevelVals,
        au: &Axis,
        av: &Axis,
        r: Value,
    ) -> Value {
        let pass = st.pass.expect("a comparison form's parameters");
        let r = self.vector_key(r);
        let rows = av.index.map(|y| self.b.ins().imul(y, level.pitch));
        let cols = au.index.map(|x| self.b.ins().ishl_imm_u(x, 2));
        let one = self.f32_const(C_ONE_F);
        let mut acc: Option<Value> = None;
        for (col, wu) in cols.into_iter().zip(au.weight) {
            for (row, wv) in rows.into_iter().zip(av.weight) {
                let off = self.b.ins().iadd(row, col);
                let t = self.vector_gather(level.base, off);
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
    fn each_descriptor_constant_holds_its_value_in_every_lane() {
        let f = |k: usize| VEC_CONSTS[k].map(f32::from_bits);
        let i = |k: usize| VEC_CONSTS[k].map(|x| x as i32);
        assert_eq!(i(C_ZERO), [0; 4]);
        assert_eq!(i(C_ONE_I), [1; 4]);
        assert_eq!(i(C_BYTE), [0xFF; 4]);
        assert_eq!(i(C_MAGNITUDE), [i32::MAX; 4]);
        assert_eq!(f(C_INF), [f32::INFINITY; 4]);
        assert_eq!(f(C_ONE_F), [1.0; 4]);
        assert_eq!(f(C_FIXED_ONE), [256.0; 4]);
        assert_eq!(f(C_LIMIT), [1_073_741_824.0; 4]);
        assert_eq!(f(C_INV_FIXED_ONE), [0.00390625; 4]);
        assert_eq!(f(C_UNORM8), [255.0; 4]);
        for o in -8i8..=7 {
            assert_eq!(i(offset_const(o)), [i32::from(o); 4], "offset {o}");
        }
        assert_eq!(VecTex::default().consts, VEC_CONSTS);
    }

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
