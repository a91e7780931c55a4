//! Texture instructions in generated code: sample, sample_l/_b/_d/_c/_c_lz,
//! lod, gather4 (all forms), their `_s` feedback forms, `ld`/`ld2dms` on
//! textures, the feedback loads, sampleinfo and samplepos.
//!
//! In: one such instruction. Out: generated code that gathers every
//! operand of the whole batch into an `io` stack slot with vector stores
//! (rows of [`W`] lanes: the execution mask, sampler indices, coordinates,
//! offsets, reference, LOD or gradients, LOD clamp), makes one call of
//! [`texture_shim`] for the batch, and reads the results back as vectors.
//! The shim runs the instruction's [`TexPlan`] when it has one (built by
//! [`plans`] when the dispatch or batch starts: texture, sampler,
//! dimension resolved once, and the entry monomorphised for the
//! binding's format, filter and address mode, which loops over the
//! active lanes and takes a pixel quad's gradient LOD once), else the
//! general path per active lane; both are the function the interpreter
//! runs ([`crate::runtime::sampling`]), with the texture of the
//! resource-table entry and the sampler bound in the dispatch's
//! [`TypedEnv`].
//! Invariants: the shim reads texels only through the runtime's checked
//! fetches over the slot's bound slice; in pixel batches the implicit-LOD
//! ops take the gradients of their quad's four coordinate rows (every
//! lane's row is written, masked or not); an implicit-LOD op (`sample`,
//! `sample_b`, `sample_c`, `lod`) in a compute program never reaches code
//! generation (the validator refuses the program).

use cranelift_codegen::ir::{types, AbiParam, InstBuilder, StackSlotData, StackSlotKind, Value};
use cranelift_module::{Linkage, Module};

use super::context::{N, OFF_TYPED, W};
use super::lower::{trusted, Lower, Ty, V};
use super::texvec::{
    pass_masks, VecLevel, VecMips, VecTable, VecTex, KIND_R32_COMPARE, KIND_UNORM8X4,
};
use super::typed::{TypedEnv, TypedView};
use super::JitError;
use crate::ir::{
    Instruction, LodSource, Opcode, OperandType, ProgramKind, ResourceDim, SampleForm,
};
use crate::runtime::batch::QUAD;
use crate::runtime::sampling::sample_count;
use crate::runtime::sampling::{self as shared, quad_gradients, SampleArgs, FULLY_MAPPED};
use crate::runtime::sampling::{SpecName, SpecUser};
use crate::runtime::texture::{BlockCache, Chosen, Dyn, SampleDim, Spec, Texture};
use crate::runtime::Format;
use crate::runtime::{SamplerDesc, TextureData, View};
use crate::sem::sample::gather_offset;
use crate::sem::sampler::{AddressMode, FilterMode};

/// The shim's symbol.
pub const SHIM: &str = "sm5jit_texture";

// Rows of the io slot (each `W` DWORDs).
pub(super) const ROW_EXEC: usize = 0;
const ROW_S0: usize = 1;
const ROW_S1: usize = 2;
pub(super) const ROW_COORD: usize = 3;
const ROW_OFFSET: usize = 7;
pub(super) const ROW_REF: usize = 10;
const ROW_LOD: usize = 11;
const ROW_DDY: usize = 15;
const ROW_MIN_LOD: usize = 19;
pub(super) const ROW_OUT: usize = 20;
/// Rows in the io slot.
pub const ROWS: usize = 24;
/// The io slot as the shim sees it: a fixed size, so that the row
/// accessors' indices are checked when the shim is compiled, not per read.
type Io = [u32; ROWS * W];
/// The table entry that stands for `rasterizer` (the render target).
const RASTERIZER: u32 = u32::MAX;

/// Per-function state of the texture lowering.
#[derive(Default)]
pub struct TexState {
    /// The io slot, created at the first texture instruction.
    io: Option<cranelift_codegen::ir::StackSlot>,
    /// The vector path's per-quad mips slot (`texvec`), created at the
    /// first instruction that may need it.
    pub(super) mips: Option<cranelift_codegen::ir::StackSlot>,
    /// The vector path's scratch vector (`texvec`'s pins), created at the
    /// first texel gather.
    pub(super) pin: Option<cranelift_codegen::ir::StackSlot>,
    /// Range header → the entry the current instruction's index selected.
    pub(super) dyn_entries: Vec<(usize, Value)>,
    /// The address of the current instruction's vector descriptor while
    /// `texvec` lowers its vector path.
    pub(super) vec_desc: Option<Value>,
}

/// The stack slot `slot` holds, created (`size` bytes, aligned to
/// `2^align_shift`) the first time a function asks for it.
pub(super) fn lazy_slot(
    b: &mut cranelift_frontend::FunctionBuilder,
    slot: &mut Option<cranelift_codegen::ir::StackSlot>,
    size: u32,
    align_shift: u8,
) -> cranelift_codegen::ir::StackSlot {
    *slot.get_or_insert_with(|| {
        let data = StackSlotData::new(StackSlotKind::ExplicitSlot, size, align_shift);
        b.create_sized_stack_slot(data)
    })
}

impl Lower<'_, '_> {
    /// The io slot's address.
    fn io_addr(&mut self) -> Value {
        let ss = lazy_slot(&mut self.b, &mut self.tex.io, (ROWS * W * 4) as u32, 4);
        self.b.ins().stack_addr(types::I64, ss, 0)
    }

    fn put_row(&mut self, io: Value, row: usize, v: V) {
        for (j, x) in v.iter().enumerate() {
            self.put_vec(io, row, j, *x);
        }
    }

    fn get_row(&mut self, io: Value, row: usize) -> V {
        std::array::from_fn(|j| self.get_vec(io, row, j))
    }

    /// Vector `j` (lanes `4j..4j + 4`) of io row `row`.
    pub(super) fn get_vec(&mut self, io: Value, row: usize, j: usize) -> Value {
        let off = ((row * W + 4 * j) * 4) as i32;
        self.b.ins().load(types::I32X4, trusted(), io, off)
    }

    /// Stores `x` as vector `j` of io row `row`.
    pub(super) fn put_vec(&mut self, io: Value, row: usize, j: usize, x: Value) {
        let off = ((row * W + 4 * j) * 4) as i32;
        self.b.ins().store(trusted(), x, io, off);
    }

    /// Stores components `0..n` of operand `k` (swizzled, modified) from `row` on.
    fn put_src(
        &mut self,
        io: Value,
        inst: &Instruction,
        k: usize,
        row: usize,
        n: usize,
        ty: Ty,
    ) -> Result<(), JitError> {
        let op = self.operand(inst, k)?;
        for c in 0..n {
            let v = self.src(op, c, ty)?;
            self.put_row(io, row + c, v);
        }
        Ok(())
    }

    /// Stores index `k` of operand `op` (a literal or per-lane) in `row`.
    fn put_index(
        &mut self,
        io: Value,
        op: &crate::ir::Operand,
        k: usize,
        row: usize,
    ) -> Result<(), JitError> {
        let v = match op.indices.get(k) {
            Some(i) => match self.index_value(i)? {
                Ok(v) => v,
                Err(imm) => self.splat_v(imm as u32),
            },
            None => self.splat_v(0),
        };
        self.put_row(io, row, v);
        Ok(())
    }

    /// Calls the shim for instruction `self.at` on resource-table `entry`.
    fn call_texture_shim(&mut self, io: Value, entry: Value) {
        let fr = self.import_shim(
            SHIM,
            &[types::I64, types::I32, types::I32, types::I64],
            None,
        );
        let env = self.typed_env();
        let at = self.b.ins().iconst(types::I32, self.at as i64);
        self.b.ins().call(fr, &[env, entry, at, io]);
    }

    /// A reference, in the function being built, to the imported shim
    /// `name` with parameters `params` and result `ret` (every symbol is
    /// declared with one signature: `jit/mod.rs` registers it).
    pub(super) fn import_shim(
        &mut self,
        name: &str,
        params: &[types::Type],
        ret: Option<types::Type>,
    ) -> cranelift_codegen::ir::FuncRef {
        let mut sig = self.module.make_signature();
        sig.params.extend(params.iter().map(|&t| AbiParam::new(t)));
        sig.returns.extend(ret.map(AbiParam::new));
        let f = self
            .module
            .declare_function(name, Linkage::Import, &sig)
            .expect("each shim is declared with one signature");
        self.module.declare_func_in_func(f, self.b.func)
    }

    /// The batch's typed environment pointer (`TypedEnv`, null when the
    /// shader binds no typed views), loaded from the context.
    pub(super) fn typed_env(&mut self) -> Value {
        self.b
            .ins()
            .load(types::I64, trusted(), self.ctx, OFF_TYPED)
    }

    /// The shim's four result rows, swizzled by `swz` and written to
    /// operand 0 (saturated when the instruction says so).
    fn write_results(
        &mut self,
        inst: &Instruction,
        io: Value,
        swz: [u8; 4],
        sat: bool,
    ) -> Result<(), JitError> {
        let rows: [V; 4] = std::array::from_fn(|c| self.get_row(io, ROW_OUT + c));
        let dst = self.operand(inst, 0)?;
        let mask = dst.write_mask();
        let mut out: [Option<V>; 4] = [None; 4];
        for c in 0..4 {
            if mask & (1 << c) == 0 {
                continue;
            }
            let v = rows[usize::from(swz[c] & 3)];
            out[c] = Some(if sat {
                self.map1(v, |s, x| s.sat(x))
            } else {
                v
            });
        }
        self.write(dst, &out)
    }

    /// The current execution mask in the exec row.
    fn put_exec(&mut self, io: Value) {
        let exec = self.use_vars(self.exec);
        self.put_row(io, ROW_EXEC, exec);
    }

    /// The sample class: sample*, gather4*, lod and their `_s` forms.
    pub fn sample(&mut self, inst: &Instruction) -> Result<(), JitError> {
        let (base, clamped) = inst.opcode.feedback_base().unwrap_or((inst.opcode, false));
        let fb = usize::from(base != inst.opcode);
        let f = base
            .sample_form()
            .ok_or_else(|| self.unsupported(inst.opcode))?;
        let k = |x: usize| x + fb;
        if matches!(f.lod, LodSource::Implicit { .. })
            && self.p.version().kind == ProgramKind::Compute
        {
            // The validator refuses these programs before lowering.
            return Err(JitError::Runtime(shared::no_derivatives(
                self.at,
                inst.opcode,
            )));
        }
        let res = self.operand(inst, k(f.res))?;
        let entry = self.entry_value(res)?;
        let io = self.io_addr();
        self.put_exec(io);
        let samp = self.operand(inst, k(f.samp))?;
        self.put_index(io, samp, 0, ROW_S0)?;
        self.put_index(io, samp, 1, ROW_S1)?;
        self.put_src(io, inst, k(1), ROW_COORD, 4, Ty::Float)?;
        if let Some(o) = f.offset {
            self.put_src(io, inst, k(o), ROW_OFFSET, 3, Ty::Int)?;
        }
        if let Some(r) = f.reference {
            self.put_src(io, inst, k(r), ROW_REF, 1, Ty::Float)?;
        }
        match f.lod {
            LodSource::Explicit(x) | LodSource::Implicit { bias: Some(x) } => {
                self.put_src(io, inst, k(x), ROW_LOD, 1, Ty::Float)?;
            }
            LodSource::Gradients(x, y) => {
                self.put_src(io, inst, k(x), ROW_LOD, 4, Ty::Float)?;
                self.put_src(io, inst, k(y), ROW_DDY, 4, Ty::Float)?;
            }
            _ => {}
        }
        if clamped {
            let last = inst.operands.len().saturating_sub(1);
            self.put_src(io, inst, last, ROW_MIN_LOD, 1, Ty::Float)?;
        }
        match self.vector_slot() {
            Some(slot) => {
                let shim = self.b.create_block();
                let join = self.b.create_block();
                self.vector_sample(
                    io,
                    slot,
                    inst.texel_offsets(),
                    f.reference.is_some(),
                    shim,
                    join,
                );
                self.b.seal_block(shim);
                self.b.switch_to_block(shim);
                self.call_texture_shim(io, entry);
                self.b.ins().jump(join, &[]);
                self.b.seal_block(join);
                self.b.switch_to_block(join);
            }
            None => self.call_texture_shim(io, entry),
        }
        self.write_results(inst, io, res.swizzle(), inst.saturate())?;
        if fb == 1 {
            self.write_status(inst)?;
        }
        Ok(())
    }

    /// The vector-path descriptor of the instruction at `self.at`, when it
    /// is a candidate (`texvec::candidates`) and the code is tier 1's
    /// (tier 0 keeps every texture instruction a call).
    fn vector_slot(&self) -> Option<usize> {
        if self.slots.is_some() || super::opt_off("vectex") {
            return None;
        }
        self.plan.vec_samples.binary_search(&(self.at as u32)).ok()
    }

    /// Writes [`FULLY_MAPPED`] to a feedback form's status operand (1).
    fn write_status(&mut self, inst: &Instruction) -> Result<(), JitError> {
        let v = self.splat_v(FULLY_MAPPED);
        let status = self.operand(inst, 1)?;
        self.write(status, &[Some(v); 4])
    }

    /// Whether a t# operand is declared as a texture (not a buffer).
    pub fn is_texture(&self, op: &crate::ir::Operand) -> bool {
        op.ty == OperandType::Resource
            && op.imm_index(0).is_some_and(|id| {
                self.p.srvs.iter().any(|d| {
                    d.id == id
                        && matches!(
                            d.kind,
                            crate::analysis::ResKind::Typed { dim, .. }
                                if dim != ResourceDim::Buffer
                        )
                })
            })
    }

    /// ld / ld2dms (and their `_s` forms) on a texture t#.
    pub fn texture_load(&mut self, inst: &Instruction) -> Result<(), JitError> {
        let fb = usize::from(matches!(inst.opcode, Opcode::LdS | Opcode::LdMsS));
        let res = self.operand(inst, 2 + fb)?;
        let entry = self.entry_value(res)?;
        let io = self.io_addr();
        self.put_exec(io);
        self.put_src(io, inst, 1 + fb, ROW_COORD, 4, Ty::Int)?;
        if matches!(inst.opcode, Opcode::LdMs | Opcode::LdMsS) {
            self.put_src(io, inst, 3 + fb, ROW_LOD, 1, Ty::Int)?;
        }
        self.call_texture_shim(io, entry);
        self.write_results(inst, io, res.swizzle(), inst.saturate())?;
        if fb == 1 {
            self.write_status(inst)?;
        }
        Ok(())
    }

    /// ld2dms, ld_s, ld2dms_s: a texture load when the t# is a texture;
    /// otherwise the feedback forms load from a buffer and ld2dms is not lowered.
    pub fn ms_or_status_load(&mut self, inst: &Instruction) -> Result<(), JitError> {
        let fb = usize::from(inst.opcode != Opcode::LdMs);
        let res = self.operand(inst, 2 + fb)?;
        if self.is_texture(res) {
            return self.texture_load(inst);
        }
        if inst.opcode == Opcode::LdMs {
            return Err(self.unsupported(inst.opcode));
        }
        self.feedback_load(inst)
    }

    /// A feedback load: the base load (the table's `Form::Feedback`), then
    /// the status. ld2dms_s on a buffer reads like ld_uav_typed (the
    /// sample index has no meaning there).
    pub fn feedback_load(&mut self, inst: &Instruction) -> Result<(), JitError> {
        let mut base = inst.clone();
        base.operands.remove(1);
        match inst.opcode.feedback_base() {
            Some((Opcode::LdMs, _)) | None => base.opcode = Opcode::LdUavTyped,
            Some((op, _)) => base.opcode = op,
        }
        base.visit(self.at, self)?;
        self.write_status(inst)
    }

    /// sampleinfo[_uint] d, t#/rasterizer: the shim reads the sample
    /// count of the bound view or of the batch's render target.
    pub fn sampleinfo(&mut self, inst: &Instruction) -> Result<(), JitError> {
        let res = self.operand(inst, 1)?;
        let io = self.io_addr();
        let entry = self.entry_or_rasterizer(res)?;
        self.put_exec(io);
        self.call_texture_shim(io, entry);
        self.write_results(inst, io, res.swizzle(), false)
    }

    /// samplepos d, t#/rasterizer, index: the shim looks each active
    /// lane's index up in the standard pattern of the sample count.
    pub fn samplepos(&mut self, inst: &Instruction) -> Result<(), JitError> {
        let res = self.operand(inst, 1)?;
        let io = self.io_addr();
        let entry = self.entry_or_rasterizer(res)?;
        self.put_src(io, inst, 2, ROW_COORD, 1, Ty::Int)?;
        self.put_exec(io);
        self.call_texture_shim(io, entry);
        self.write_results(inst, io, res.swizzle(), false)
    }

    /// The table entry of a t# operand, or [`RASTERIZER`] for `rasterizer`.
    fn entry_or_rasterizer(&mut self, res: &crate::ir::Operand) -> Result<Value, JitError> {
        if res.ty == OperandType::Rasterizer {
            return Ok(self
                .b
                .ins()
                .iconst(types::I32, i64::from(RASTERIZER as i32)));
        }
        self.entry_value(res)
    }

    /// The resource-table entry of a t# operand, as an i32 value.
    fn entry_value(&mut self, res: &crate::ir::Operand) -> Result<Value, JitError> {
        let e = self.table_entry(res)?;
        Ok(self.entry_of(e))
    }

    /// Table entry `e`, or the entry an SM5.1 index selects for it.
    pub fn entry_of(&mut self, e: usize) -> Value {
        match self.range_entry(e) {
            Some(v) => v,
            None => self.b.ins().iconst(types::I32, e as i64),
        }
    }
}

/// The whole batch's texture instruction `inst` on table entry `entry`.
///
/// # Safety
/// `env` is the dispatch's live [`TypedEnv`] (or null); `io` points to the
/// generated code's `ROWS * W` DWORD slot.
pub unsafe extern "C" fn texture_shim(env: *const TypedEnv, entry: u32, inst: u32, io: *mut u32) {
    // Float work in Rust runs in the default float mode (`fpmode`).
    let _mode = super::fpmode::DefaultMode::enter();
    // SAFETY: the caller passes its io slot of ROWS * W DWORDs.
    let io = unsafe { &mut *io.cast::<Io>() };
    io[ROW_OUT * W..].fill(0);
    // SAFETY: the runner passes its live `TypedEnv` (or null).
    let Some(env) = (unsafe { env.as_ref() }) else {
        return;
    };
    let Some(shader) = env.shader.as_ref() else {
        return;
    };
    let p = shader.prepared();
    let at = inst;
    let Some(inst) = p.program.insts.get(inst as usize) else {
        return;
    };
    let slot = env.slots.get(entry as usize).copied().flatten();
    let samples = || match entry {
        RASTERIZER => env.raster_samples.max(1),
        _ => sample_count(slot.map(|s| s.view)),
    };
    match inst.opcode {
        Opcode::SamplePos => {
            let count = samples();
            for l in 0..W {
                if io[ROW_EXEC * W + l] == 0 {
                    continue;
                }
                let pos = crate::sem::sample::sample_position(count, io[ROW_COORD * W + l]);
                for (c, v) in pos.iter().enumerate() {
                    io[(ROW_OUT + c) * W + l] = *v;
                }
            }
        }
        Opcode::SampleInfo => {
            let count = samples();
            let w = if inst.return_type_bits() & 1 != 0 {
                count
            } else {
                (count as f32).to_bits()
            };
            io[ROW_OUT * W..(ROW_OUT + 1) * W].fill(w);
        }
        _ if env.run_plan(at, entry, io) => {}
        Opcode::Ld | Opcode::LdS | Opcode::LdMs | Opcode::LdMsS => load_lanes(slot, inst, io),
        _ => sample_lanes(env, p, slot, inst, io),
    }
}

/// The texture of a table slot, if a texture is bound there.
fn texture_of(slot: &Option<TypedView>) -> Option<(TextureData<'_>, Option<ResourceDim>)> {
    match slot {
        Some(TypedView {
            view: View::Texture(tv),
            data,
            len,
            declared,
            ..
        }) => {
            // SAFETY: `data`/`len` describe the slot's bound slice, alive
            // for the dispatch.
            let bytes = unsafe { std::slice::from_raw_parts(*data, *len) };
            Some((
                TextureData {
                    view: *tv,
                    data: bytes,
                },
                *declared,
            ))
        }
        _ => None,
    }
}

#[inline(always)]
fn row(io: &Io, r: usize, lane: usize) -> u32 {
    io[r * W + lane]
}

#[inline(always)]
fn rows4(io: &Io, r: usize, lane: usize) -> [u32; 4] {
    // Four plain reads: `std::array::from_fn` here was left as a call
    // per component in the LOD path (docs/performance.md).
    [
        row(io, r, lane),
        row(io, r + 1, lane),
        row(io, r + 2, lane),
        row(io, r + 3, lane),
    ]
}

#[inline(always)]
fn put_out(io: &mut Io, lane: usize, v: [u32; 4]) {
    for (c, x) in v.iter().enumerate() {
        io[(ROW_OUT + c) * W + lane] = *x;
    }
}

fn active_lanes(io: &Io) -> impl Iterator<Item = usize> + '_ {
    (0..W).filter(move |&l| row(io, ROW_EXEC, l) != 0)
}

fn load_lanes(slot: Option<TypedView>, inst: &Instruction, io: &mut Io) {
    let Some((tex, declared)) = texture_of(&slot) else {
        return;
    };
    let dim = shared::sample_dim(declared, &tex.view);
    let ms = matches!(inst.opcode, Opcode::LdMs | Opcode::LdMsS);
    let lanes: Vec<usize> = active_lanes(io).collect();
    for l in lanes {
        let sample = ms.then(|| row(io, ROW_LOD, l));
        let v = shared::load(
            &tex,
            dim,
            rows4(io, ROW_COORD, l),
            inst.texel_offsets(),
            sample,
        );
        put_out(io, l, v);
    }
}

fn sample_lanes(
    env: &TypedEnv,
    p: &crate::analysis::Prepared,
    slot: Option<TypedView>,
    inst: &Instruction,
    io: &mut Io,
) {
    let (base, clamped) = inst.opcode.feedback_base().unwrap_or((inst.opcode, false));
    let fb = usize::from(base != inst.opcode);
    let Some(f) = base.sample_form() else {
        return;
    };
    let Some((tex, declared)) = texture_of(&slot) else {
        return;
    };
    let Some(samp) = inst.operands.get(f.samp + fb) else {
        return;
    };
    let dim = shared::sample_dim(declared, &tex.view);
    let sm51 = p.version().is_sm51();
    let n_idx = samp.indices.len();
    let lanes: Vec<usize> = active_lanes(io).collect();
    for l in lanes {
        let at = |k: usize, r: usize| (n_idx > k).then(|| u64::from(row(io, r, l)));
        let s = shared::sampler_slot(&p.program.decls, sm51, at(0, ROW_S0), at(1, ROW_S1))
            .and_then(|s| env.samplers.get(&s).copied())
            .unwrap_or_default();
        let quad = (env.quads && matches!(f.lod, LodSource::Implicit { .. })).then(|| {
            // Every lane of the quad, running or not: its register as it stands.
            quad_coord_gradients(io, l - l % QUAD)
        });
        let component = samp.swizzle()[0] as usize & 3;
        let args = lane_args(&f, clamped, component, inst.texel_offsets(), quad, io, l);
        put_out(io, l, shared::sample(&f, &tex, dim, &s, &args));
    }
}

/// One texture instruction's batch entry for one dispatch or batch: what
/// is the same for every lane (texture, sampler, dimension, form),
/// resolved once when the bindings are known, and the entry
/// monomorphised for its format, filter and address mode
/// ([`shared::with_spec`]).
#[derive(Clone, Debug)]
pub struct TexPlan {
    /// The instruction's index.
    at: u32,
    /// The resource-table entry the plan was made for (the shim falls
    /// back to the general path on any other).
    entry: u32,
    tex: Texture<'static>,
    dim: SampleDim,
    sampler: SamplerDesc,
    form: Option<SampleForm>,
    /// The `_s` forms' LOD clamp is the last operand.
    clamped: bool,
    offsets: [i8; 3],
    /// The gather channel (the sampler operand's first swizzle).
    component: usize,
    /// The mip choice of every lane when the texture and sampler make it
    /// whatever the LOD and the op neither gathers nor queries
    /// ([`shared::lod_free_choice`]): the lanes then skip the quad
    /// gradients and the LOD ([`shared::sample_lod_free`]).
    lod_free: Option<Chosen>,
    multisample: bool,
    run: RowsFn,
    /// The entry chosen, for coverage reports.
    pub spec: SpecName,
}

/// A plan's entry: the plan, whether lanes are pixel quads, the io rows.
type RowsFn = fn(&TexPlan, bool, &mut Io);

impl TypedEnv {
    /// Runs instruction `at`'s plan on table entry `entry`; false when
    /// it has none (the caller takes the general path).
    fn run_plan(&self, at: u32, entry: u32, io: &mut Io) -> bool {
        let Ok(k) = self.plans.binary_search_by_key(&at, |p| p.at) else {
            return false;
        };
        let plan = &self.plans[k];
        if plan.entry != entry {
            return false;
        }
        (plan.run)(plan, self.quads, io);
        true
    }
}

/// The plans of `shader`'s texture instructions over `env`'s bindings
/// (`env.slots` and `env.samplers` set): one per sampling,
/// gather, `lod` and texture `ld` instruction whose t# and s# are fixed
/// registers bound to a texture; the others run the general path.
pub fn plans(shader: &super::JitShader, env: &TypedEnv) -> Vec<TexPlan> {
    let p = shader.prepared();
    let jp = &shader.inner.plan;
    let sm51 = p.version().is_sm51();
    let mut out = Vec::new();
    for (at, inst) in p.program.insts.iter().enumerate() {
        let op = inst.opcode;
        let (base, clamped) = op.feedback_base().unwrap_or((op, false));
        let fb = usize::from(base != op);
        let form = base.sample_form();
        let load = matches!(base, Opcode::Ld | Opcode::LdMs) || op == Opcode::LdMsS;
        if form.is_none() && !load {
            continue;
        }
        let res_at = form.map_or(2 + fb, |f| f.res + fb);
        let Some(res) = inst.operands.get(res_at) else {
            continue;
        };
        let Some(reg) = res.imm_index(0).filter(|_| res.ty == OperandType::Resource) else {
            continue;
        };
        let Some(&(entry, _)) = jp.srvs.get(&reg) else {
            continue;
        };
        if jp.ranges.contains_key(&entry) {
            continue;
        }
        let slot = env.slots.get(entry).copied().flatten();
        let Some((data, declared)) = texture_of(&slot) else {
            continue;
        };
        // SAFETY: the bytes are the bound slice, alive for the dispatch;
        // the plan lives in the dispatch's `TypedEnv` only.
        let data: TextureData<'static> = unsafe { std::mem::transmute(data) };
        let dim = shared::sample_dim(declared, &data.view);
        let (sampler, component) = match form {
            Some(f) => {
                let Some(samp) = inst.operands.get(f.samp + fb) else {
                    continue;
                };
                let imm = |k: usize| samp.imm_index(k).map(u64::from);
                if (0..samp.indices.len()).any(|k| imm(k).is_none()) {
                    continue;
                }
                let s = shared::sampler_slot(&p.program.decls, sm51, imm(0), imm(1))
                    .and_then(|s| env.samplers.get(&s).copied())
                    .unwrap_or_default();
                (s, samp.swizzle()[0] as usize & 3)
            }
            None => (SamplerDesc::default(), 0),
        };
        let pick = PickRows { load };
        let (run, spec) = shared::with_spec(data.view.format, &sampler, dim, pick);
        let tex = Texture::new(&data);
        let lod_free = form.and_then(|f| shared::lod_free_choice(&f, &tex, &sampler));
        out.push(TexPlan {
            at: at as u32,
            entry: entry as u32,
            tex,
            lod_free,
            dim,
            sampler,
            form,
            clamped,
            offsets: inst.texel_offsets(),
            component,
            multisample: matches!(op, Opcode::LdMs | Opcode::LdMsS),
            run,
            spec,
        });
    }
    out
}

impl TexPlan {
    /// The descriptor of the vector path (`texvec.rs`) for this plan, or
    /// the empty one when the bound texture or sampler does not fit it:
    /// a non-gather, non-query op without a LOD clamp on a 2D view, in
    /// R8G8B8A8_UNORM or B8G8R8A8_UNORM (non-comparison forms) or
    /// R32_FLOAT (comparison forms), through a sampler that wraps or
    /// clamps on u and v, with either
    /// - one choice of level and filter whatever the LOD (`fixed`), or
    /// - an LOD that is the same for every lane of a quad (implicit
    ///   without a bias, or zero): `mipped`, each quad's choice made by
    ///   [`quad_mips`] when the batch runs.
    ///
    /// Every level read must be wholly inside memory with offsets below
    /// 2^31 ([`vec_level`]).
    fn vector_desc(&self) -> Option<VecTex> {
        let f = self.form?;
        if f.gather || f.query || self.clamped || self.dim != SampleDim::D2 {
            return None;
        }
        let [u, v, _] = self.sampler.address();
        let wrap = |m: AddressMode| match m {
            AddressMode::Clamp => Some(0),
            AddressMode::Wrap => Some(1),
            _ => None,
        };
        let wrap = [wrap(u)?, wrap(v)?];
        let format = self.tex.view.format;
        let (kind, swap_rb, pass) = match (f.reference.is_some(), format) {
            (false, Format::R8G8B8A8Unorm) => (KIND_UNORM8X4, 0, [0; 4]),
            (false, Format::B8G8R8A8Unorm) => (KIND_UNORM8X4, -1, [0; 4]),
            (true, Format::R32Float) => (KIND_R32_COMPARE, 0, pass_masks(self.sampler.comparison)),
            _ => return None,
        };
        let (mipped, fixed) = match self.lod_free {
            Some(chosen) => (0, vec_mips(&self.tex, &chosen)?),
            None if quad_uniform(&f) => {
                // Idle quads read level 0: it must be readable.
                vec_level(&self.tex, 0)?;
                (1, VecMips::default())
            }
            None => return None,
        };
        Some(VecTex {
            kind,
            swap_rb,
            pass,
            wrap,
            mipped,
            fixed,
            ..VecTex::default()
        })
    }

    /// Each quad's [`VecMips`] for the lanes of `io` (pixel quads when
    /// `quads`), made as [`sample_rows`] makes them: the quad's gradient
    /// LOD from its four coordinate rows, then [`shared::quad_choice`].
    /// A quad with no active lane reads level 0 (its results are not
    /// used). None when a choice is one the vector code does not read: a
    /// level outside [`vec_level`], or an implicit LOD outside pixel
    /// quads.
    fn quad_mips(&self, quads: bool, io: &Io) -> Option<[VecMips; N]> {
        let f = self.form?;
        let implicit = matches!(f.lod, LodSource::Implicit { .. });
        if !quad_uniform(&f) || (implicit && !quads) {
            return None;
        }
        // Each quad's choice. Neighbouring quads of a smooth surface repeat
        // their gradients, and the choice is a function of the gradients
        // alone (of nothing at all for a zero LOD): the last one made is
        // kept. Plain locals, not an `Option` of a tuple, so that nothing
        // is stored in parts and read back whole.
        let mut chosen = [None::<Chosen>; N];
        let mut memo_grads: Gradients = ([0; 4], [0; 4]);
        let mut memo: Option<Chosen> = None;
        for (q, slot) in chosen.iter_mut().enumerate() {
            let first = q * QUAD;
            if (first..first + QUAD).all(|l| row(io, ROW_EXEC, l) == 0) {
                *slot = Some(self.tex.choose::<Dyn>(&self.sampler, 0.0));
                continue;
            }
            let grads = if implicit {
                quad_coord_gradients(io, first)
            } else {
                ([0; 4], [0; 4])
            };
            if let Some(c) = memo.filter(|_| grads == memo_grads) {
                *slot = Some(c);
                continue;
            }
            let lod = implicit
                .then(|| shared::gradient_lod(&self.tex, self.dim, [0.0; 4], grads.0, grads.1));
            let c = shared::quad_choice::<Dyn>(&f, &self.tex, &self.sampler, lod, false).chosen?;
            (memo_grads, memo) = (grads, Some(c));
            *slot = Some(c);
        }
        // Each choice's levels; a quad with its predecessor's choice takes
        // its levels too.
        let first = chosen[0]?;
        let mut out = [vec_mips(&self.tex, &first)?; N];
        for q in 1..N {
            out[q] = if chosen[q] == chosen[q - 1] {
                out[q - 1]
            } else {
                vec_mips(&self.tex, &chosen[q]?)?
            };
        }
        Some(out)
    }
}

/// The coarse gradients of the coordinate rows of the quad whose first
/// lane is `first` ([`quad_gradients`] of its four lanes' rows).
#[inline(always)]
fn quad_coord_gradients(io: &Io, first: usize) -> Gradients {
    let lane = |k: usize| rows4(io, ROW_COORD, first + k);
    quad_gradients([lane(0), lane(1), lane(2), lane(3)])
}

/// Whether op form `f` has the same LOD in every lane of a pixel quad
/// (what [`TexPlan::quad_mips`] chooses from): implicit without a bias,
/// or zero.
fn quad_uniform(f: &SampleForm) -> bool {
    matches!(f.lod, LodSource::Implicit { bias: None } | LodSource::Zero)
}

/// Level `level` of `tex` for the vector code: a direct level (every
/// texel inside memory) whose texels all lie below 2^31 bytes from its
/// first and whose pitch fits an i32.
fn vec_level(tex: &Texture, level: u32) -> Option<VecLevel> {
    let m = tex.direct_level(level)?;
    let end = u64::from(m.height - 1)
        .checked_mul(m.row_pitch)?
        .checked_add(u64::from(m.width) * 4)?;
    let pitch = i32::try_from(m.row_pitch).ok()?;
    let dims = [i32::try_from(m.width).ok()?, i32::try_from(m.height).ok()?];
    if end > i32::MAX as u64 {
        return None;
    }
    Some(VecLevel {
        base: tex.data.as_ptr() as u64 + m.offset,
        max: dims.map(|d| d - 1),
        size: [m.width as f32, m.height as f32],
        dims,
        pitch,
        _pad: 0,
    })
}

/// A mip choice as the vector code reads it: the levels
/// `Texture::sample_chosen` filters (the second only when it blends it
/// in) and the filter's half-texel shift and fraction mask.
fn vec_mips(tex: &Texture, chosen: &Chosen) -> Option<VecMips> {
    let (l0, l1, weight, mode) = chosen.parts();
    let two = !(weight == 0.0 || l1 == l0);
    let first = vec_level(tex, l0)?;
    let second = if two { vec_level(tex, l1)? } else { first };
    let (half, frac_mask) = match mode {
        FilterMode::Linear => (0.5, 255),
        FilterMode::Point => (0.0, 0),
    };
    Some(VecMips {
        level: [first, second],
        half,
        frac_mask,
        weight,
        two: i32::from(two),
    })
}

/// Writes each quad's [`VecMips`] for the vector path of the sample
/// instruction at `inst` ([`TexPlan::quad_mips`]): 1 when it did, 0 when
/// the instruction must take the shim instead.
///
/// # Safety
/// `env` is the dispatch's live [`TypedEnv`] (or null); `io` points to the
/// generated code's `ROWS * W` DWORD slot and `out` to its mips slot of
/// [`N`] [`VecMips`].
pub unsafe extern "C" fn quad_mips(
    env: *const TypedEnv,
    inst: u32,
    io: *const u32,
    out: *mut VecMips,
) -> u32 {
    // Float work in Rust runs in the default float mode (`fpmode`).
    let _mode = super::fpmode::DefaultMode::enter();
    // SAFETY: the caller passes its live `TypedEnv` (or null).
    let Some(env) = (unsafe { env.as_ref() }) else {
        return 0;
    };
    // SAFETY: the caller passes its io slot of ROWS * W DWORDs.
    let io = unsafe { &*io.cast::<Io>() };
    let Ok(k) = env.plans.binary_search_by_key(&inst, |p| p.at) else {
        return 0;
    };
    match env.plans[k].quad_mips(env.quads, io) {
        Some(mips) => {
            // SAFETY: the caller's mips slot holds N VecMips.
            unsafe { out.cast::<[VecMips; N]>().write_unaligned(mips) };
            1
        }
        None => 0,
    }
}

/// The vector-path descriptors of `shader`'s candidates
/// (`texvec::candidates`) over the dispatch's `plans`: each candidate's
/// plan's [`TexPlan::vector_desc`], the empty descriptor (the shim) when it
/// has no plan or does not fit.
pub fn vector_table(shader: &super::JitShader, plans: &[TexPlan]) -> VecTable {
    let descs = shader
        .inner
        .plan
        .vec_samples
        .iter()
        .map(|&at| {
            plans
                .binary_search_by_key(&at, |p| p.at)
                .ok()
                .and_then(|k| plans[k].vector_desc())
                .unwrap_or_default()
        })
        .collect();
    VecTable::new(descs)
}

/// Picks the rows entry of a spec: texture loads or the sample class.
struct PickRows {
    load: bool,
}

impl SpecUser for PickRows {
    type Out = RowsFn;
    fn run<S: Spec>(self) -> RowsFn {
        if self.load {
            load_rows::<S>
        } else {
            sample_rows::<S>
        }
    }
}

/// `ld`/`ld2dms` of every active lane through the code of `S`.
fn load_rows<S: Spec>(p: &TexPlan, _quads: bool, io: &mut Io) {
    let mut cache = BlockCache::default();
    for l in 0..W {
        if row(io, ROW_EXEC, l) == 0 {
            continue;
        }
        let sample = p.multisample.then(|| row(io, ROW_LOD, l));
        let v = shared::load_with::<S>(
            &p.tex,
            p.dim,
            rows4(io, ROW_COORD, l),
            p.offsets,
            sample,
            &mut cache,
        );
        put_out(io, l, v);
    }
}

/// Every active lane of a sample-class op through the code of `S`: the
/// operands read as the general path reads them, what a quad's lanes
/// share ([`shared::quad_choice`]: the gradient LOD, except for cubes
/// where it depends on the face, and the mip choice when the whole LOD
/// is the quad's) computed once per quad, and the gradient LOD reused
/// while the quads' gradients repeat (it is a function of them alone).
fn sample_rows<S: Spec>(p: &TexPlan, quads: bool, io: &mut Io) {
    let Some(f) = p.form else {
        return;
    };
    if let Some(chosen) = p.lod_free {
        return lod_free_rows::<S>(p, &f, &chosen, io);
    }
    let implicit = matches!(f.lod, LodSource::Implicit { .. });
    let quad_grads = quads && implicit;
    let cube = matches!(p.dim, SampleDim::Cube | SampleDim::CubeArray);
    let mut cache = BlockCache::default();
    // The last quad's gradients and their LOD.
    let mut last: Option<(Gradients, f32)> = None;
    for q in (0..W).step_by(QUAD) {
        if (q..q + QUAD).all(|l| row(io, ROW_EXEC, l) == 0) {
            continue;
        }
        let quad = quad_grads.then(|| {
            // Every lane of the quad, running or not: its register as it stands.
            quad_coord_gradients(io, q)
        });
        let quad_lod = match (quad, last) {
            (Some(g), Some((h, lod))) if !cube && g == h => Some(lod),
            (Some((dx, dy)), _) if !cube => {
                let lod = shared::gradient_lod(&p.tex, p.dim, [0.0; 4], dx, dy);
                last = Some(((dx, dy), lod));
                Some(lod)
            }
            _ => None,
        };
        let uniform = !quad_grads || quad_lod.is_some();
        let shared = match uniform {
            true => shared::quad_choice::<S>(&f, &p.tex, &p.sampler, quad_lod, p.clamped),
            false => shared::QuadShared::default(),
        };
        for l in q..q + QUAD {
            if row(io, ROW_EXEC, l) == 0 {
                continue;
            }
            let args = lane_args(&f, p.clamped, p.component, p.offsets, quad, io, l);
            let v =
                shared::sample_with::<S>(&f, &p.tex, p.dim, &p.sampler, &args, shared, &mut cache);
            put_out(io, l, v);
        }
    }
}

/// Every active lane of a sample-class op whose mip choice is `chosen`
/// whatever the LOD ([`TexPlan::lod_free`]): the coordinates, the
/// immediate offsets and the reference (for the `_c` forms) are all a
/// lane reads.
fn lod_free_rows<S: Spec>(p: &TexPlan, f: &SampleForm, chosen: &Chosen, io: &mut Io) {
    let mut cache = BlockCache::default();
    let offset = p.offsets.map(i32::from);
    for l in 0..W {
        if row(io, ROW_EXEC, l) == 0 {
            continue;
        }
        let coord = rows4(io, ROW_COORD, l);
        let reference = f.reference.map_or(0, |_| row(io, ROW_REF, l));
        let v = shared::sample_lod_free::<S>(
            f, &p.tex, p.dim, &p.sampler, chosen, coord, offset, reference, &mut cache,
        );
        put_out(io, l, v);
    }
}

/// A quad's (ddx, ddy) of the coordinates (f32 bits).
type Gradients = ([u32; 4], [u32; 4]);

/// Lane `l`'s operands of base op `f` from the io rows (only the rows
/// the generated code wrote for the op are read).
#[inline(always)]
fn lane_args(
    f: &SampleForm,
    clamped: bool,
    component: usize,
    offsets: [i8; 3],
    quad: Option<([u32; 4], [u32; 4])>,
    io: &Io,
    l: usize,
) -> SampleArgs {
    let offset = match f.offset {
        Some(_) => {
            let o = rows4(io, ROW_OFFSET, l);
            [o[0], o[1], o[2]].map(gather_offset)
        }
        None => offsets.map(i32::from),
    };
    let (lod, ddy) = match f.lod {
        LodSource::Explicit(_) | LodSource::Implicit { bias: Some(_) } => {
            ([row(io, ROW_LOD, l), 0, 0, 0], [0; 4])
        }
        LodSource::Gradients(..) => (rows4(io, ROW_LOD, l), rows4(io, ROW_DDY, l)),
        _ => ([0; 4], [0; 4]),
    };
    SampleArgs {
        coord: rows4(io, ROW_COORD, l),
        offset,
        reference: f.reference.map_or(0, |_| row(io, ROW_REF, l)),
        lod,
        ddy,
        min_lod: clamped.then(|| f32::from_bits(row(io, ROW_MIN_LOD, l))),
        component,
        quad,
    }
}

/// The value `N` is kept in sync with the io rows' vector count.
const _: () = assert!(N * 4 == W);
