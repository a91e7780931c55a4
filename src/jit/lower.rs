//! Lowering a prepared program to one Cranelift function per shader:
//! registers, operands and the ALU.
//!
//! In: a [`Prepared`] program and its [`Plan`] (where each resource, g# and
//! x# lives). Out: the body of the batch loop of the group function
//! `extern "C" fn(*mut BatchContext, u32) -> u32` (`mod.rs`, `build`):
//! each iteration runs [`W`] threads of one group in SoA form, from the
//! context `Lower::ctx`. Invariants:
//! - every register component is `N` `Variable`s of type `i32x4`, one lane
//!   per thread; floats are bitcast to `f32x4` only around float ops;
//! - the current execution mask (`exec`, all-ones lanes = active) guards
//!   every memory side effect, and every register write whose old value
//!   an inactive lane may still read, so inactive lanes never change
//!   state they can see;
//! - every scalar rule is either emitted here exactly as [`crate::sem`]
//!   computes it (denormal inputs flushed — by MXCSR.DAZ, `fpmode` —, op,
//!   output flushed and NaN canonicalised where the result can be seen,
//!   `observed.rs`) or taken from `sem` through a [`Shim`] call per lane;
//! - a register write blends with the old value unless no idle lane can
//!   read it again (`liveness.rs`).
//!
//! Control flow lives in `flow.rs`, memory in `memory.rs`, v#/o#,
//! discard and derivatives in `stage.rs`; all extend
//! [`Lower`].

use std::collections::{BTreeMap, HashMap, HashSet};

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types, Block, BlockArg, FuncRef, InstBuilder, MemFlagsData, Value};
use cranelift_frontend::{FunctionBuilder, Variable};
use cranelift_jit::JITModule;
use cranelift_module::{FuncId, Module};

use super::context::{
    N, OFF_FLAT, OFF_GROUP_BASE, OFF_GROUP_ID, OFF_LANES, OFF_LIVE, OFF_TID, OFF_ZERO, W,
};
use super::flow::Frame;
use super::libcalls::Shim;
use super::plan::Plan;
use super::JitError;
use crate::analysis::Prepared;
use crate::ir::{
    AtomicInst, CompareInst, Components, ConvertInst, CustomDataInst, DeclInst, DoubleInst,
    FloatInst, FlowInst, GraphicsInst, Index, InstVisitor, Instruction, IntInst, MemoryInst,
    MiscInst, Modifier, MoveInst, Opcode, Operand, OperandType, ProgramKind, SampleInst, SyncInst,
};
use crate::limits::MAX_GROUPS_PER_DIM;

/// How many vector steps [`Lower::scalar_lane0`] follows back.
const LANE0_DEPTH: u32 = 4;

/// One register component of a whole batch: `N` vectors of `i32x4`.
pub type V = [Value; N];

const SIGN: u32 = 0x8000_0000;
const EXP_MASK: u32 = 0x7F80_0000;
const CANONICAL_NAN: u32 = crate::sem::float::CANONICAL_NAN;
const ONE: u32 = 0x3F80_0000;

/// The binary float ops with one hardware instruction ([`Lower::fbin`]).
#[derive(Clone, Copy)]
enum FBin {
    Add,
    Sub,
    Mul,
    Div,
}

/// How a source modifier applies (as in the interpreter).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    Float,
    Int,
    /// Sign-bit neg/abs on the high DWORD of each double (`.y`, `.w`).
    Double,
}

/// The translator state for one function.
pub struct Lower<'a, 'f> {
    pub b: FunctionBuilder<'f>,
    pub module: &'a mut JITModule,
    /// typed_load, typed_store, typed_resinfo, typed_addr.
    pub typed_fns: [FuncId; 4],
    /// `double::double_op`.
    pub double_fn: FuncId,
    /// `lanes::preserving_call`.
    pub preserve_fn: FuncId,
    /// Imported functions already declared in this function (`import`).
    pub imported: HashMap<FuncId, FuncRef>,
    /// The signature of the four-lane shim entries (`Shim::lanes4`).
    pub shim_sig: Option<cranelift_codegen::ir::SigRef>,
    pub p: &'a Prepared,
    pub plan: &'a Plan,
    /// The context of the batch being run (`*mut BatchContext`): its
    /// lanes, resume id, x# and save areas.
    pub ctx: Value,
    /// The group's first context (the function's argument): the
    /// group-wide fields (group id and base, loop budget, `stopped_at`,
    /// `waiting`), and the tables every context points to.
    pub group: Value,
    /// Where a batch goes when it ends or stops at a barrier: the next
    /// batch of the group (`mod.rs`, `build`).
    pub next: Block,
    /// r# registers: `[register][component][vector]`.
    pub regs: Vec<[[Variable; N]; 4]>,
    /// The execution mask.
    pub exec: [Variable; N],
    /// Open if/loop/switch constructs, innermost last.
    pub stack: Vec<Frame>,
    /// Every vector variable, in declaration order (saved at barriers).
    pub all_vars: Vec<Variable>,
    /// Resume blocks, one per barrier, with the variables each restores.
    pub resumes: Vec<(Block, usize)>,
    /// Block returning `STATUS_BUDGET`.
    pub budget_exit: Block,
    /// Index of the instruction being lowered (for errors).
    pub at: usize,
    /// Instructions in each loop body, by the index of its `loop`.
    pub loop_len: BTreeMap<usize, u64>,
    /// Subroutine calls being inlined right now.
    pub call_depth: usize,
    /// Instructions added by inlining so far.
    pub inlined: usize,
    /// Texture and SM5.1 range lowering state (`sample.rs`, `ranges.rs`).
    pub tex: super::sample::TexState,
    /// v#, o# and the discard mask of vertex/pixel programs (`stage.rs`).
    pub stage: super::stage::StageVars,
    /// Per r# component: only ever holds flushed values (`flushed.rs`).
    pub flushed_regs: Vec<[bool; 4]>,
    /// Values whose every lane is unchanged by `flush` (results of
    /// `finish`, min/max, reads of always-flushed registers, constants):
    /// `flush` returns them as they are.
    pub known_flushed: HashSet<Value>,
    /// What [`Lower::known`] found of each value it looked at, and how
    /// deep it looked (`unroll.rs`).
    pub known_values: HashMap<Value, (Option<u64>, u32)>,
    /// Tier 0 (`tier0.rs`): every variable lives in a 16-byte slot of the
    /// batch's save area at this address (variable `k` at `16 * k`) and is
    /// loaded and stored where it is used and defined, instead of being an
    /// SSA variable. `None`: tier 1, SSA variables.
    pub slots: Option<Value>,
    /// Tier 0: per variable, the block and value of its last load or
    /// store there (`tier0.rs`).
    pub slot_cache: Vec<Option<(Block, Value)>>,
    /// Tier 0: splatted constants and bitcasts already built in a block
    /// (`tier0.rs`; tier 1 leaves this to Cranelift's e-graph).
    pub value_cache: HashMap<(u32, u32), (Block, Value)>,
    /// Float arithmetic runs with MXCSR DAZ (`fpmode::hw_flush`): the
    /// hardware reads denormal operands as signed zeros, so no input flush
    /// is emitted for add/mul/div/sqrt/round/compare.
    pub hw_flush: bool,
    /// Which results are observed (`observed.rs`).
    pub observed: super::observed::Observed,
    /// The instruction being lowered writes only unobserved components:
    /// its float results are left as the hardware rounded them (a
    /// denormal or a NaN of any payload), since every later reader treats
    /// them as `finish` would have made them.
    pub unobserved: bool,
    /// Loop results finished where they are read (`late.rs`).
    pub late: super::late::Late,
    /// `exec` is known, when compiling, to hold every lane of the batch
    /// (top level of a compute program whose group is a whole number of
    /// batches, before any construct that may drop lanes): register
    /// writes need no blend with the old value.
    pub full_exec: bool,
    /// `full_exec` at the program's entry (group mode restores it at
    /// every region's start, where `exec` is the batch's `live` mask).
    pub entry_full: bool,
    /// Per open construct (`flow.rs`): `full_exec` and `lane_exits` when
    /// it opened, and where its lanes outside `exec` continue.
    pub full_stack: Vec<super::flow::Open>,
    /// Live temp components (compute programs; `liveness.rs`): a write
    /// needs no blend when the component is dead wherever the lanes
    /// outside `exec` continue.
    pub live: Option<super::liveness::Liveness>,
    /// Instructions lowered so far that may drop lanes (ret, break,
    /// continue and their conditional forms).
    pub lane_exits: u64,
    /// Values whose every lane is all ones or zero (comparison results):
    /// a condition on them needs no compare (`flow.rs`).
    pub mask_values: HashSet<Value>,
    /// Values whose four lanes in every live vector are `v0, v0 + 1,
    /// v0 + 2, v0 + 3` (thread ids along x): the contiguous memory path
    /// needs no run-time shape test for them (`memory.rs`).
    pub consecutive: HashSet<Value>,
    /// Values whose four lanes in every live vector are `a0, a0 + 4,
    /// a0 + 8, a0 + 12` (a value of `consecutive` shifted left by 2: the
    /// byte addresses of consecutive DWORDs): a raw access through them
    /// needs no run-time shape test, only lane 0's no-wrap test
    /// (`memory.rs`).
    pub consecutive4: HashSet<Value>,
    /// Thread-id values with a bound known when compiling: every lane,
    /// padding lanes (0) included, is below it (`vThreadIDInGroup.x`:
    /// the group's width; `vThreadIDInGroupFlattened`: its thread count;
    /// `vThreadID.x`: the width times the most groups a dispatch has; an
    /// id shifted left by 2: four times the id's). The lanes are ids (or
    /// ids times 4) as true integers: consecutive without a wrap.
    pub lane_bound: HashMap<Value, u32>,
    /// The batch's lane-0 id loads ([`Lower::preload_ids`]) by context
    /// and offset: the `i64` load and its `i32`.
    pub id_loads: HashMap<(Value, i32), (Value, Value)>,
    /// `i32x4` values whose every lane has bit 31 clear (a logical right
    /// shift by a literal of 1 to 31, an `and` with such a value or
    /// constant): `utof` converts them as signed integers, one
    /// instruction instead of x86's unsigned sequence, with the same
    /// result (`convert`).
    pub nonneg: HashSet<Value>,
    /// `i32x4` constants made by `vsplat`, with their lane value.
    pub splats: HashMap<Value, u32>,
    /// Uniform r# components (`uniform.rs`; tier 1 of compute programs).
    pub uniform: Option<super::uniform::Uniform>,
    /// Per r# component, its scalar shadow (`shadow.rs`; empty without
    /// `uniform`).
    pub shadows: Vec<[Variable; 4]>,
    /// `i32x4` values loaded from the context (thread ids): the base and
    /// offset of each, so lane 0 is one scalar load ([`Lower::lane0`]).
    pub ctx_loads: HashMap<Value, (Value, i32)>,
    /// While a group region is lowered (`group.rs`): its first
    /// instruction and, per r# component (`4 * r + c`), whether it is
    /// group-uniform there, held in its shadow (`split.rs` reads it).
    pub region_uniform: Option<(usize, Vec<bool>)>,
    /// While the full-mask path of a split `if` is lowered (`split.rs`):
    /// the thread id every lane holds at least a uniform value of.
    pub id_floor: Option<super::split::IdFloor>,
    /// While the batches of a group region's span that lie inside it
    /// whole are lowered (`group.rs`, `span.rs`): the region's `if`,
    /// whose body then runs on every lane of the batch, so a split of it
    /// (`split.rs`) lowers its full-mask path alone.
    pub span_full: Option<usize>,
    /// While a batch of a group region's span is lowered whose lanes are
    /// known when compiling to hold no thread of the span (`group.rs`, a
    /// span's part batch): bit `l` for such a lane `l`. Its mask starts
    /// the region with those lanes clear (a vector of idle lanes only is
    /// the zero constant, so its loads and stores are left out,
    /// `memory.rs`), and a vector whose live lanes are its first one or
    /// two reads only their words ([`Lower::live_prefix`]).
    pub idle_lanes: u8,
    /// While a structured load with a consecutive index is lowered: the
    /// index's base (`shadow.rs`), so its shape needs no run-time test.
    pub consec_base: Option<Value>,
    /// While a raw access whose address holds byte ids is lowered: the
    /// address's base (`shadow.rs`), so its shape needs no run-time test.
    pub bytes_base: Option<Value>,
    /// Where the function runs groups in runs along x (`mod.rs`, "group
    /// runs"): the group's id and first thread id per dimension as values
    /// of the run's loop, instead of loads from the group context (which
    /// the code could hoist out of that loop).
    pub group_ids: Option<([Value; 3], [Value; 3])>,
    /// Where the function runs groups in runs: the resource table pointer
    /// read once per group (an opaque value of the run's loop, so what
    /// the pretested loop hoists from it stays in the run's loop, live
    /// across one group's batches only).
    pub run_res: Option<Value>,
    /// While the pretested batch loop is lowered (`pretest.rs`): its
    /// context and the tests its probe decides for the whole group.
    pub pretest: Option<super::pretest::Pretest>,
    /// Group-level code (`group.rs`): where a batch keeps the components
    /// its regions carry across barriers.
    pub save_map: Option<super::group::SaveMap>,
    /// Tier 0: the out-of-line ALU calls (`tier0.rs`, `tier0_alu.rs`).
    pub t0: super::tier0::AluCalls,
}

/// Whether `blendv` (a per-lane select on each lane's top bit: one
/// `blendvps` instead of `bitselect`'s and, and-not, or) can merge masked
/// register writes: x86-64 with SSE4.1, which is when `cranelift_native`
/// gives the ISA the instruction.
fn lane_blend() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("sse4.1")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

pub fn mem() -> MemFlagsData {
    MemFlagsData::new()
}

/// Flags of a bitcast that changes the lane count (the verifier wants the
/// byte order named).
pub fn little() -> MemFlagsData {
    mem().with_endianness(cranelift_codegen::ir::Endianness::Little)
}

/// Flags for accesses that cannot trap: every address generated code uses
/// is either checked in bounds or points into the context. No alignment
/// is claimed (caller memory may be unaligned).
pub fn trusted() -> MemFlagsData {
    MemFlagsData::new().with_notrap()
}

/// Flags for loads of memory that does not change while the batch
/// function runs (the resource table, cb# and ICB contents, the
/// context's thread ids, group id and pointers): like [`trusted`], and
/// Cranelift may hoist them out of loops.
pub fn fixed() -> MemFlagsData {
    if super::opt_off("hoist") {
        return trusted();
    }
    trusted().with_readonly().with_can_move()
}

impl<'a, 'f> Lower<'a, 'f> {
    /// An `i64` zero that Cranelift cannot see through: the group
    /// context's `zero` words (never written), loaded without
    /// `readonly`. A value plus it is a copy that no pass folds back into
    /// the value, so a loop can be given copies of its own of values
    /// another loop uses too (`group.rs`, the pretested copy): the
    /// register allocator then places the two loops' live ranges apart.
    pub(super) fn fence(&mut self) -> Value {
        self.b
            .ins()
            .load(types::I64, trusted(), self.group, OFF_ZERO)
    }

    // -----------------------------------------------------------------
    // Small builders
    // -----------------------------------------------------------------

    pub fn unsupported(&self, opcode: Opcode) -> JitError {
        JitError::Unsupported {
            inst_index: self.at,
            opcode: opcode.mnemonic().to_string(),
        }
    }

    pub fn unsupported_operand(&self, what: impl Into<String>) -> JitError {
        JitError::Unsupported {
            inst_index: self.at,
            opcode: what.into(),
        }
    }

    /// A new vector variable, zero-initialised where it is declared.
    pub fn new_var(&mut self) -> Variable {
        let v = self.b.declare_var(types::I32X4);
        // Tier 0 gives variable `k` the slot `k`.
        debug_assert!(self.slots.is_none() || v.as_u32() as usize == self.all_vars.len());
        self.all_vars.push(v);
        let z = self.vsplat(0);
        self.def_var(v, z);
        v
    }

    pub fn new_vars(&mut self) -> [Variable; N] {
        std::array::from_fn(|_| self.new_var())
    }

    /// Declares the r# vector variables and, with the uniform analysis,
    /// their shadows; every one starts at zero, as every register does.
    pub fn declare_registers(&mut self) {
        for _ in 0..self.p.temps {
            let reg: [[Variable; N]; 4] = std::array::from_fn(|_| self.new_vars());
            self.regs.push(reg);
        }
        if self.uniform.is_some() {
            let zero = self.b.ins().iconst(types::I32, 0);
            for _ in 0..self.p.temps {
                let sh: [Variable; 4] = std::array::from_fn(|_| {
                    let v = self.b.declare_var(types::I32);
                    self.b.def_var(v, zero);
                    v
                });
                self.shadows.push(sh);
            }
        }
    }

    /// The start of a batch in a batch loop (not group mode): declares
    /// the execution mask and the registers, sets the mask to the batch's
    /// live lanes (in a compute program whose group is a whole number of
    /// batches, every lane: the constant, so no mask is read) and reads
    /// the stage inputs.
    pub fn batch_start(&mut self) {
        self.exec = self.new_vars();
        self.declare_registers();
        let live: V = if self.entry_full && self.p.version().kind == ProgramKind::Compute {
            self.splat_v(u32::MAX)
        } else {
            let ctx = self.ctx;
            std::array::from_fn(|j| {
                self.b
                    .ins()
                    .load(types::I32X4, trusted(), ctx, OFF_LIVE + 16 * j as i32)
            })
        };
        self.def_vars(self.exec, live);
        self.stage_init();
    }

    /// The end of a batch in a tier-1 batch loop: no value flows into the
    /// next batch, every variable restarts as zero there (as in the first
    /// batch), so the loop carries nothing through the SSA variables.
    pub fn batch_end(&mut self) {
        let zero = self.vsplat(0);
        for v in self.all_vars.clone() {
            self.b.def_var(v, zero);
        }
        let zero = self.b.ins().iconst(types::I32, 0);
        for sh in self.shadows.clone() {
            for v in sh {
                self.b.def_var(v, zero);
            }
        }
    }

    /// Forgets what the lowering of one batch loop learnt, to lower the
    /// program again as a second loop at batch context `ctx` ending its
    /// batches at `next` (`pretest.rs`): values of the first loop do not
    /// reach the second, so no fact about them may be used there.
    pub fn restart(&mut self, ctx: Value, next: Block) {
        (self.ctx, self.next) = (ctx, next);
        self.pretest = None;
        self.regs.clear();
        self.shadows.clear();
        self.stack.clear();
        self.full_stack.clear();
        self.at = 0;
        self.call_depth = 0;
        self.inlined = 0;
        self.known_flushed.clear();
        self.mask_values.clear();
        self.consecutive.clear();
        self.consecutive4.clear();
        self.lane_bound.clear();
        self.nonneg.clear();
        self.splats.clear();
        self.ctx_loads.clear();
        self.unobserved = false;
        self.full_exec = self.entry_full;
        self.lane_exits = 0;
        self.region_uniform = None;
        self.id_floor = None;
        self.consec_base = None;
        self.bytes_base = None;
    }

    /// vThreadGroupID's component `d` (`i32`): the run's value where the
    /// function runs groups in runs (`group_ids`), else the group
    /// context's.
    pub fn group_id(&mut self, d: usize) -> Value {
        match self.group_ids {
            Some((id, _)) => id[d],
            None => {
                let off = OFF_GROUP_ID + 4 * d as i32;
                self.b.ins().load(types::I32, fixed(), self.group, off)
            }
        }
    }

    /// The group's first thread id in dimension `d` (`i32`), as
    /// [`Lower::group_id`].
    pub fn group_base(&mut self, d: usize) -> Value {
        match self.group_ids {
            Some((_, base)) => base[d],
            None => {
                let off = OFF_GROUP_BASE + 4 * d as i32;
                self.b.ins().load(types::I32, fixed(), self.group, off)
            }
        }
    }

    pub fn use_vars(&mut self, vars: [Variable; N]) -> V {
        vars.map(|v| self.use_var(v))
    }

    pub fn def_vars(&mut self, vars: [Variable; N], vals: V) {
        for j in 0..N {
            self.def_var(vars[j], vals[j]);
        }
    }

    /// The value of one vector variable here: an SSA use on tier 1, a
    /// load from its slot on tier 0.
    pub fn use_var(&mut self, v: Variable) -> Value {
        match self.slots {
            Some(base) => self.load_slot(base, v),
            None => self.b.use_var(v),
        }
    }

    /// Defines one vector variable here (see [`Lower::use_var`]).
    pub fn def_var(&mut self, v: Variable, x: Value) {
        match self.slots {
            Some(base) => self.store_slot(base, v, x),
            None => self.b.def_var(v, x),
        }
    }

    /// An `i32x4` with every lane `x`.
    pub fn vsplat(&mut self, x: u32) -> Value {
        if let Some(v) = self.reuse(super::tier0::SPLAT, x) {
            return v;
        }
        let s = self.b.ins().iconst(types::I32, i64::from(x as i32));
        let v = self.b.ins().splat(types::I32X4, s);
        self.keep(super::tier0::SPLAT, x, v);
        if super::flushed::is_flushed_bits(x) {
            self.known_flushed.insert(v);
        }
        self.splats.insert(v, x);
        v
    }

    /// An `i32x4` mask constant: lane `k` all ones where bit `k` of
    /// `bits` is set, else zero.
    pub fn lanes_const(&mut self, bits: u8) -> Value {
        let bytes: Vec<u8> = (0..4)
            .flat_map(|k| match bits >> k & 1 {
                1 => u32::MAX.to_le_bytes(),
                _ => 0u32.to_le_bytes(),
            })
            .collect();
        let c = self.b.func.dfg.constants.insert(bytes.into());
        self.b.ins().vconst(types::I32X4, c)
    }

    pub fn splat_v(&mut self, x: u32) -> V {
        let v = self.vsplat(x);
        [v; N]
    }

    pub fn map1(&mut self, a: V, f: impl Fn(&mut Self, Value) -> Value) -> V {
        let mut out = a;
        for j in 0..N {
            out[j] = f(self, a[j]);
        }
        out
    }

    pub fn map2(&mut self, a: V, b: V, f: impl Fn(&mut Self, Value, Value) -> Value) -> V {
        let mut out = a;
        for j in 0..N {
            out[j] = f(self, a[j], b[j]);
        }
        out
    }

    pub fn map3(
        &mut self,
        a: V,
        b: V,
        c: V,
        f: impl Fn(&mut Self, Value, Value, Value) -> Value,
    ) -> V {
        let mut out = a;
        for j in 0..N {
            out[j] = f(self, a[j], b[j], c[j]);
        }
        out
    }

    /// `a & b`; a vector known to be all ones (the full entry mask of a
    /// group region, `group.rs`) leaves the other unchanged.
    pub fn and_v(&mut self, a: V, b: V) -> V {
        self.map2(a, b, |s, x, y| match (s.splats.get(&x), s.splats.get(&y)) {
            (Some(&u32::MAX), _) | (_, Some(&0)) => y,
            (_, Some(&u32::MAX)) | (Some(&0), _) => x,
            _ => s.b.ins().band(x, y),
        })
    }

    pub fn or_v(&mut self, a: V, b: V) -> V {
        self.map2(a, b, |s, x, y| s.b.ins().bor(x, y))
    }

    pub fn andnot_v(&mut self, a: V, b: V) -> V {
        self.map2(a, b, |s, x, y| s.b.ins().band_not(x, y))
    }

    /// Whether vector `j` of the mask is the zero constant, or all its
    /// lanes are idle ([`Lower::idle_lanes`]): no lane of it runs the code
    /// being lowered.
    pub fn vector_idle(&mut self, j: usize) -> bool {
        if self.idle_in_vector(j) == 0xF {
            return true;
        }
        let exec = self.use_vars(self.exec)[j];
        self.splats.get(&exec) == Some(&0)
    }

    /// The idle lanes of vector `j` ([`Lower::idle_lanes`]), as 4 bits.
    pub fn idle_in_vector(&self, j: usize) -> u8 {
        (self.idle_lanes >> (4 * j)) & 0xF
    }

    /// Where only the first one or two lanes of vector `j` can run (the
    /// others idle, [`Lower::idle_lanes`]): how many. A load then reads
    /// only their words: a wider one would also span words that earlier
    /// narrower or offset stores wrote, which the store buffer cannot
    /// forward (a halving tree's last steps read `g[tid + 2]` and
    /// `g[tid + 1]` right after the step before wrote `g[0 .. 4]`).
    pub fn live_prefix(&self, j: usize) -> Option<u8> {
        match self.idle_in_vector(j) {
            0b1110 => Some(1),
            0b1100 => Some(2),
            _ => None,
        }
    }

    /// An `i8` that is non-zero when any lane of `m` is set.
    pub fn any(&mut self, m: V) -> Value {
        let mut acc = m[0];
        for v in &m[1..] {
            acc = self.b.ins().bor(acc, *v);
        }
        self.b.ins().vany_true(acc)
    }

    pub(super) fn f(&mut self, v: Value) -> Value {
        let key = v.as_u32();
        if let Some(x) = self.reuse(super::tier0::AS_FLOAT, key) {
            return x;
        }
        let x = self.b.ins().bitcast(types::F32X4, mem(), v);
        self.keep(super::tier0::AS_FLOAT, key, x);
        x
    }

    fn i(&mut self, v: Value) -> Value {
        let key = v.as_u32();
        if let Some(x) = self.reuse(super::tier0::AS_INT, key) {
            return x;
        }
        let x = self.b.ins().bitcast(types::I32X4, mem(), v);
        self.keep(super::tier0::AS_INT, key, x);
        x
    }

    // -----------------------------------------------------------------
    // Float rules (sem::float), one i32x4 at a time
    // -----------------------------------------------------------------

    /// `sem::float::flush`: a denormal becomes a zero of the same sign.
    pub fn flush(&mut self, v: Value) -> Value {
        if self.known_flushed.contains(&v) {
            return v;
        }
        let em = self.vsplat(EXP_MASK);
        let e = self.b.ins().band(v, em);
        let zero = self.vsplat(0);
        let is_small = self.b.ins().icmp(IntCC::Equal, e, zero);
        let sm = self.vsplat(SIGN);
        let signed_zero = self.b.ins().band(v, sm);
        self.b.ins().bitselect(is_small, signed_zero, v)
    }

    /// The input flush of a hardware float op: nothing under DAZ (which
    /// reads a denormal operand as a zero of its sign), else `flush`.
    pub fn flush_in(&mut self, v: Value) -> Value {
        if self.hw_flush {
            return v;
        }
        self.flush(v)
    }

    /// `sem::float::finish` of a hardware float op's result: NaN →
    /// canonical NaN, denormal → signed zero. When the instruction writes
    /// only unobserved components, or is deferred (`unobserved`), the
    /// result is left as it is: its readers flush it (DAZ or `flush_in`)
    /// and do not depend on a NaN's payload (`observed.rs`), or finish it
    /// as they read it (`late.rs`); `flushed.rs` does not count such a
    /// result as flushed.
    pub fn finish(&mut self, v: Value) -> Value {
        if self.unobserved {
            return v;
        }
        self.finish_always(v)
    }

    /// `finish` whether or not the result is observed. Under DAZ the
    /// flush is a multiply by 1.0: it reads a denormal as a zero of its
    /// sign and gives every other number back exactly (a NaN's result is
    /// replaced by the canonical NaN anyway); one instruction for four.
    pub(super) fn finish_always(&mut self, v: Value) -> Value {
        let fv = self.f(v);
        let fl = if self.hw_flush {
            self.flush_by_one(v)
        } else {
            self.flush(v)
        };
        let nan = self.b.ins().fcmp(FloatCC::Unordered, fv, fv);
        let canon = self.vsplat(CANONICAL_NAN);
        let r = self.b.ins().bitselect(nan, canon, fl);
        self.known_flushed.insert(r);
        r
    }

    /// `finish` of the results `vals` of one instruction, all at once.
    /// Under DAZ each is flushed as `finish_always` flushes it; their NaN
    /// lanes are then found with one unordered compare per two vectors
    /// (true where either holds a NaN) and one test of them all, and only
    /// when some lane is NaN does a cold block canonicalise them: the same
    /// bits as `finish` on each, with a compare per two vectors and a
    /// branch that is never taken on NaN-free data instead of a compare
    /// and a blend per vector. One value, tier 0, the explicit flush and
    /// `SM5JIT_NO_OPT=nanbranch` finish each value as `finish` does.
    pub(super) fn finish_all(&mut self, vals: &mut [Value]) {
        if self.unobserved {
            return;
        }
        if vals.len() < 2 || !self.hw_flush || self.slots.is_some() || super::opt_off("nanbranch") {
            for v in vals.iter_mut() {
                *v = self.finish_always(*v);
            }
            return;
        }
        let flushed: Vec<Value> = vals.iter().map(|&v| self.flush_by_one(v)).collect();
        let mut any_nan = None;
        for pair in flushed.chunks(2) {
            let (a, b) = (self.f(pair[0]), self.f(pair[pair.len() - 1]));
            let m = self.b.ins().fcmp(FloatCC::Unordered, a, b);
            any_nan = Some(match any_nan {
                None => m,
                Some(acc) => self.b.ins().bor(acc, m),
            });
        }
        let Some(any_nan) = any_nan else { return };
        let bits = self.b.ins().vhigh_bits(types::I32, any_nan);
        let fix = self.b.create_block();
        let join = self.b.create_block();
        for _ in &flushed {
            self.b.append_block_param(join, types::I32X4);
        }
        self.b.set_cold_block(fix);
        let args: Vec<BlockArg> = flushed.iter().map(|&v| BlockArg::Value(v)).collect();
        self.b.ins().brif(bits, fix, &[], join, &args);
        self.b.switch_to_block(fix);
        self.b.seal_block(fix);
        let canon = self.vsplat(CANONICAL_NAN);
        let fixed: Vec<BlockArg> = flushed
            .iter()
            .map(|&v| {
                let fv = self.f(v);
                let nan = self.b.ins().fcmp(FloatCC::Unordered, fv, fv);
                BlockArg::Value(self.b.ins().bitselect(nan, canon, v))
            })
            .collect();
        self.b.ins().jump(join, &fixed);
        self.b.switch_to_block(join);
        self.b.seal_block(join);
        for (v, &p) in vals.iter_mut().zip(self.b.func.dfg.block_params(join)) {
            *v = p;
        }
        for &v in vals.iter() {
            self.known_flushed.insert(v);
        }
    }

    /// The output flush of `finish_always` under DAZ: a multiply by 1.0,
    /// or nothing for a value already flushed.
    fn flush_by_one(&mut self, v: Value) -> Value {
        if self.known_flushed.contains(&v) {
            return v;
        }
        let fv = self.f(v);
        let one = self.b.ins().f32const(1.0);
        let one = self.b.ins().splat(types::F32X4, one);
        let m = self.b.ins().fmul(fv, one);
        self.i(m)
    }

    /// A binary float op on flushed inputs with a finished output
    /// (`sem::float::add`/`mul`/`div`).
    fn fbin(&mut self, a: Value, b: Value, op: FBin) -> Value {
        let r = self.fbin_inner(a, b, op);
        self.finish(r)
    }

    /// [`Lower::fbin`] without the output `finish`: for a step whose only
    /// reader is the next step of the same instruction (the product of a
    /// `mad`, the partial sums of a `dp*`). That step flushes its inputs
    /// (DAZ or `flush_in`), and a NaN stays a NaN through it until the
    /// instruction's last step finishes it, so the result is the same.
    fn fbin_inner(&mut self, a: Value, b: Value, op: FBin) -> Value {
        let a = self.flush_in(a);
        let b = self.flush_in(b);
        let (fa, fb) = (self.f(a), self.f(b));
        let r = match op {
            FBin::Add => self.b.ins().fadd(fa, fb),
            FBin::Sub => self.b.ins().fsub(fa, fb),
            FBin::Mul => self.b.ins().fmul(fa, fb),
            FBin::Div => self.b.ins().fdiv(fa, fb),
        };
        self.i(r)
    }

    /// `sem::float::rsq` on four lanes, as it computes it: the input
    /// flushed, `1 / sqrt(x)` in f64 (two lanes at a time), rounded once to
    /// f32 and finished. ±0 gives ±INF and a negative input NaN through the
    /// f64 arithmetic itself, as in `sem`.
    fn rsq(&mut self, x: Value) -> Value {
        let x = self.flush(x);
        let one = self.b.ins().f64const(1.0);
        let one = self.b.ins().splat(types::F64X2, one);
        let halves = self.f64_halves(x, false).map(|d| {
            let root = self.b.ins().sqrt(d);
            self.b.ins().fdiv(one, root)
        });
        let r = self.f32_join(halves);
        self.finish_always(r)
    }

    /// `shuffle` of two `i8x16` values: byte `k` of the result is byte
    /// `pick(k)` of `a` followed by `b` (0..32).
    pub(super) fn byte_shuffle(&mut self, a: Value, b: Value, pick: impl Fn(u8) -> u8) -> Value {
        let mask: Vec<u8> = (0..16).map(pick).collect();
        let imm = self
            .b
            .func
            .dfg
            .immediates
            .push(cranelift_codegen::ir::ConstantData::from(mask));
        self.b.ins().shuffle(a, b, imm)
    }

    pub fn fadd(&mut self, a: Value, b: Value) -> Value {
        self.fbin(a, b, FBin::Add)
    }

    /// Semantics: D3D min/max (`sem::float::min`/`max`): inputs flushed, a
    /// NaN operand loses, −0 < +0. `is_min` picks which.
    pub fn fminmax(&mut self, a: Value, b: Value, is_min: bool) -> Value {
        let a = self.flush(a);
        let b = self.flush(b);
        let (fa, fb) = (self.f(a), self.f(b));
        let a_nan = self.b.ins().fcmp(FloatCC::Unordered, fa, fa);
        let b_nan = self.b.ins().fcmp(FloatCC::Unordered, fb, fb);
        // "first" wins when less(first, second) for min, less(second, first) for max.
        let (lo, hi, flo, fhi) = if is_min {
            (a, b, fa, fb)
        } else {
            (b, a, fb, fa)
        };
        let lt = self.b.ins().fcmp(FloatCC::LessThan, flo, fhi);
        let negz = self.vsplat(SIGN);
        let zero = self.vsplat(0);
        let lo_negz = self.b.ins().icmp(IntCC::Equal, lo, negz);
        let hi_posz = self.b.ins().icmp(IntCC::Equal, hi, zero);
        let zero_order = self.b.ins().band(lo_negz, hi_posz);
        let less = self.b.ins().bor(lt, zero_order);
        // min: a wins when b is NaN or less(a, b); max: when b is NaN or
        // less(b, a). `less` above is exactly that test for each.
        let pick_a = self.b.ins().bor(b_nan, less);
        let r = self.b.ins().bitselect(pick_a, a, b);
        let fin_b = self.finish(b);
        let r = self.b.ins().bitselect(a_nan, fin_b, r);
        self.known_flushed.insert(r);
        r
    }

    /// `_sat`: `min(1, max(0, x))` with the D3D rules.
    pub fn sat(&mut self, v: Value) -> Value {
        let zero = self.vsplat(0);
        let one = self.vsplat(ONE);
        let m = self.fminmax(zero, v, false);
        self.fminmax(one, m, true)
    }

    /// `round_*` and `sqrt`: a unary float op on a flushed input
    /// (`sem::float::round_ne`/`round_ni`/`round_pi`/`round_z`/`sqrt`).
    fn funary(&mut self, v: Value, op: Opcode) -> Value {
        let x = self.flush_in(v);
        let fx = self.f(x);
        let r = match op {
            Opcode::RoundNe => self.b.ins().nearest(fx),
            Opcode::RoundNi => self.b.ins().floor(fx),
            Opcode::RoundPi => self.b.ins().ceil(fx),
            Opcode::RoundZ => self.b.ins().trunc(fx),
            _ => self.b.ins().sqrt(fx),
        };
        let r = self.i(r);
        self.finish(r)
    }

    /// Semantics: `sem::float::frc`: x − floor(x), a result ≥ 1 becomes the
    /// largest float below 1.
    fn frc(&mut self, v: Value) -> Value {
        let x = self.flush_in(v);
        let fx = self.f(x);
        let fl = self.b.ins().floor(fx);
        let d = self.b.ins().fsub(fx, fl);
        let d = self.i(d);
        let r = self.finish(d);
        let fr = self.f(r);
        let one = self.vsplat(ONE);
        let fone = self.f(one);
        let big = self.b.ins().fcmp(FloatCC::GreaterThanOrEqual, fr, fone);
        let below = self.vsplat(0x3F7F_FFFF);
        self.b.ins().bitselect(big, below, r)
    }

    /// `sem::float::eq`/`ne`/`lt`/`ge`: flushed inputs, a 0/!0 mask.
    fn fcompare(&mut self, a: Value, b: Value, cc: FloatCC) -> Value {
        let a = self.flush_in(a);
        let b = self.flush_in(b);
        let (fa, fb) = (self.f(a), self.f(b));
        let r = self.b.ins().fcmp(cc, fa, fb);
        self.mask_values.insert(r);
        r
    }

    // -----------------------------------------------------------------
    // Operands
    // -----------------------------------------------------------------

    pub fn operand<'i>(&self, inst: &'i Instruction, k: usize) -> Result<&'i Operand, JitError> {
        inst.operands.get(k).ok_or(JitError::Unsupported {
            inst_index: self.at,
            opcode: format!("{} without operand {k}", inst.opcode.mnemonic()),
        })
    }

    /// The value of one index (immediate or relative), as lanes of u32.
    /// Returns `Ok(Err(imm))` for a plain immediate.
    pub fn index_value(&mut self, idx: &Index) -> Result<Result<V, u64>, JitError> {
        Ok(match idx {
            Index::Imm32(v) => Err(u64::from(*v)),
            Index::Imm64(v) => Err(*v),
            Index::Relative(op) => Ok(self.scalar_src(op)?),
            Index::Imm32PlusRelative(v, op) => {
                let r = self.scalar_src(op)?;
                let add = self.vsplat(*v);
                Ok(self.map1(r, |s, x| s.b.ins().iadd(x, add)))
            }
            Index::Imm64PlusRelative(..) => {
                return Err(self.unsupported_operand("64-bit relative index"))
            }
        })
    }

    /// The first swizzled component of `op`, no modifier (relative
    /// indices, conditions, switch selectors).
    pub fn scalar_src(&mut self, op: &Operand) -> Result<V, JitError> {
        let comp = match op.comps {
            Components::One | Components::Zero => 0,
            _ => op.swizzle()[0],
        };
        self.fetch(op, comp)
    }

    /// Source component for destination component `c`, swizzled and modified.
    pub fn src(&mut self, op: &Operand, c: usize, ty: Ty) -> Result<V, JitError> {
        let comp = match op.comps {
            Components::One | Components::Zero => 0,
            _ => op.swizzle()[c] & 3,
        };
        let v = self.fetch_direct(op, comp, true)?;
        let ty = match ty {
            Ty::Double if c % 2 == 1 => Ty::Float,
            Ty::Double => return Ok(v),
            t => t,
        };
        let v = self.modify(v, op.modifier, ty);
        // Float modifiers only touch the sign bit, which keeps a value flushed.
        if ty == Ty::Float
            && super::flushed::operand_flushed(op, usize::from(comp), &self.flushed_regs)
        {
            self.known_flushed.extend(v);
        }
        Ok(v)
    }

    fn modify(&mut self, v: V, m: Modifier, ty: Ty) -> V {
        match (m, ty) {
            (Modifier::None, _) | (_, Ty::Double) => v,
            (Modifier::Neg, Ty::Float) => {
                let s = self.vsplat(SIGN);
                self.map1(v, |b, x| b.b.ins().bxor(x, s))
            }
            (Modifier::Abs, Ty::Float) => {
                let s = self.vsplat(SIGN);
                self.map1(v, |b, x| b.b.ins().band_not(x, s))
            }
            (Modifier::AbsNeg, Ty::Float) => {
                let s = self.vsplat(SIGN);
                self.map1(v, |b, x| b.b.ins().bor(x, s))
            }
            (Modifier::Neg, Ty::Int) => self.map1(v, |b, x| b.b.ins().ineg(x)),
            (Modifier::Abs, Ty::Int) => self.map1(v, |b, x| b.b.ins().iabs(x)),
            (Modifier::AbsNeg, Ty::Int) => self.map1(v, |b, x| {
                let a = b.b.ins().iabs(x);
                b.b.ins().ineg(a)
            }),
        }
    }

    /// Loads `W` lanes of a per-lane `u32` array in the context.
    fn ctx_lanes(&mut self, off: i32) -> V {
        let ctx = self.ctx;
        std::array::from_fn(|j| {
            let at = off + 16 * j as i32;
            let v = self.b.ins().load(types::I32X4, fixed(), ctx, at);
            self.ctx_loads.insert(v, (ctx, at));
            v
        })
    }

    /// [`Lower::lane0`] zero-extended to `i64` (a zero-extending load).
    pub fn lane0_u64(&mut self, v: Value) -> Value {
        match self.ctx_loads.get(&v) {
            Some(&(base, at)) => self.ctx_word_u64(base, at),
            None => {
                let x = self.b.ins().extractlane(v, 0);
                self.b.ins().uextend(types::I64, x)
            }
        }
    }

    /// Lane 0 of `v` (`i32`): a scalar load where `v` is lanes of the
    /// context (one instruction instead of a vector load and an extract),
    /// else the extract.
    pub fn lane0(&mut self, v: Value) -> Value {
        match self.ctx_loads.get(&v) {
            Some(&(base, at)) => self.ctx_word(base, at),
            None => self.b.ins().extractlane(v, 0),
        }
    }

    /// The `u32` at `at` in the context `base`, as an `i32`: the batch's
    /// load of it where [`Lower::preload_ids`] made one, else a load here.
    pub fn ctx_word(&mut self, base: Value, at: i32) -> Value {
        match self.id_loads.get(&(base, at)) {
            Some(&(_, x)) => x,
            None => self.b.ins().load(types::I32, fixed(), base, at),
        }
    }

    /// [`Lower::ctx_word`] zero-extended to `i64`.
    pub fn ctx_word_u64(&mut self, base: Value, at: i32) -> Value {
        match self.id_loads.get(&(base, at)) {
            Some(&(x, _)) => x,
            None => self.b.ins().uload32(fixed(), base, at),
        }
    }

    /// At the head of a batch of a region (`group.rs`, context `cptr`):
    /// lane 0 of each vector of the flattened and x thread ids, loaded
    /// once as `i64` for every lane-0 address of the batch
    /// ([`Lower::ctx_word`]). Cranelift merges only plain loads, not the
    /// zero-extending ones an address needs, so reduce's steps loaded
    /// `vThreadIDInGroupFlattened` three times a batch. In a group of
    /// one row the two ids are the same numbers (padding lanes hold 0 in
    /// both), so they share a load. The head dominates the whole batch;
    /// a load nothing reads is removed (`prune.rs`). The loads are the
    /// batch's own until [`Lower::forget_ids`].
    pub fn preload_ids(&mut self, cptr: Value) {
        if super::opt_off("ids") {
            return;
        }
        let g = self.p.group_size;
        // The pretested loop of a region carries its batches' lane-0
        // flattened id (`pretest.rs`): each vector's is that plus its
        // first lane, with no load.
        let carried = self
            .pretest
            .as_ref()
            .filter(|p| p.ctx == cptr && g[1] == 1 && g[2] == 1)
            .and_then(|p| p.fid);
        if let Some(fid) = carried {
            for j in 0..N {
                let at = 16 * j as i32;
                let wide = self.b.ins().iadd_imm_s(fid, 4 * j as i64);
                let ids = (wide, self.b.ins().ireduce(types::I32, wide));
                self.id_loads.insert((cptr, OFF_FLAT + at), ids);
                self.id_loads.insert((cptr, OFF_TID + at), ids);
            }
            return;
        }
        for j in 0..N {
            let at = 16 * j as i32;
            let load = |lw: &mut Self, off: i32| {
                let wide = lw.b.ins().uload32(fixed(), cptr, off + at);
                (wide, lw.b.ins().ireduce(types::I32, wide))
            };
            let flat = load(self, OFF_FLAT);
            let x = if g[1] == 1 && g[2] == 1 {
                flat
            } else {
                load(self, OFF_TID)
            };
            self.id_loads.insert((cptr, OFF_FLAT + at), flat);
            self.id_loads.insert((cptr, OFF_TID + at), x);
        }
    }

    /// Ends the batch of [`Lower::preload_ids`]: its loads dominate only
    /// that batch's code.
    pub fn forget_ids(&mut self) {
        self.id_loads.clear();
    }

    /// [`Lower::lane0_u64`] of an address built from thread ids: the same
    /// scalar steps on lane 0 where [`Lower::scalar_lane0`] can follow
    /// them (a byte address whose vector nothing else needs then costs
    /// no vector code), else the extract. Where no step can wrap
    /// ([`Lower::wide_lane0`]) the steps are on `i64`, so Cranelift folds
    /// constant offsets and scales into the access's address.
    pub fn address_lane0_u64(&mut self, v: Value) -> Value {
        if let Some((x, _)) = self.wide_lane0(v, LANE0_DEPTH) {
            return x;
        }
        match self.scalar_lane0(v, LANE0_DEPTH) {
            Some(x) => self.b.ins().uextend(types::I64, x),
            None => self.lane0_u64(v),
        }
    }

    /// Lane 0 of the raw byte address `v` as a DWORD index (`i64`), given
    /// `a0`, lane 0 of `v` ([`Lower::address_lane0_u64`]): where `v` is
    /// `a << 2` with no step wrapping ([`Lower::wide_lane0`]), lane 0 of
    /// `a` itself, since `(a << 2) >> 2 = a` when `a << 2` stays below
    /// 2^32 (Cranelift masks the shifted `i64` instead, an `and` with a
    /// constant from memory); else `a0 >> 2`.
    pub fn dword_lane0_u64(&mut self, v: Value, a0: Value) -> Value {
        use cranelift_codegen::ir::{InstructionData, Opcode as Clif};
        if let Some(InstructionData::Binary {
            opcode: Clif::Ishl,
            args: [a, by],
        }) = self.i32x4_def(v)
        {
            if self.known(by).is_some_and(|k| k & 31 == 2) {
                if let Some((x, most)) = self.wide_lane0(a, LANE0_DEPTH - 1) {
                    if most << 2 <= u64::from(u32::MAX) {
                        return x;
                    }
                }
            }
        }
        self.b.ins().ushr_imm_s(a0, 2)
    }

    /// Lane 0 of the `i32x4` `v` zero-extended to `i64`, computed on
    /// `i64`, with the greatest value it can have, where every step is
    /// known not to wrap in 32 bits: lanes of the context with a bound
    /// ([`Lower::lane_bound`]), a splat of a constant, a sum whose
    /// greatest values add up below 2^32 (or which is a bounded id
    /// itself: `vThreadID.x`, the group's base plus the id), a left
    /// shift by a constant that keeps the greatest value below 2^32. The
    /// 32-bit steps then give the same number, so the bits are those of
    /// [`Lower::scalar_lane0`] zero-extended. `None` otherwise.
    pub(super) fn wide_lane0(&mut self, v: Value, depth: u32) -> Option<(Value, u64)> {
        use cranelift_codegen::ir::{InstructionData, Opcode as Clif};
        const TOP: u64 = u32::MAX as u64;
        if super::opt_off("wide") || depth == 0 {
            return None;
        }
        let bound = self.lane_bound.get(&v).map(|&b| u64::from(b.max(1)) - 1);
        if self.ctx_loads.contains_key(&v) {
            return Some((self.lane0_u64(v), bound?));
        }
        match self.i32x4_def(v)? {
            InstructionData::Unary {
                opcode: Clif::Splat,
                arg,
            } => {
                let k = self.known(arg)?;
                Some((self.b.ins().iconst(types::I64, k as i64), k))
            }
            InstructionData::Binary {
                opcode: Clif::Iadd,
                args: [a, b],
            } => {
                let (x, mx) = self.wide_lane0(a, depth - 1)?;
                let (y, my) = match self.wide_lane0(b, depth - 1) {
                    Some(y) => y,
                    // The group's base plus a bounded id: bounded itself.
                    None if bound.is_some() => {
                        let s = self.splat_scalar(b)?;
                        (self.b.ins().uextend(types::I64, s), 0)
                    }
                    None => return None,
                };
                let most = bound.map_or(mx + my, |b| b.min(mx + my));
                (mx + my <= TOP || bound.is_some()).then(|| (self.b.ins().iadd(x, y), most))
            }
            InstructionData::Binary {
                opcode: Clif::Ishl,
                args: [a, by],
            } => {
                let k = self.known(by)? & 31;
                let (x, mx) = self.wide_lane0(a, depth - 1)?;
                let most = mx << k;
                (most <= TOP).then(|| (self.b.ins().ishl_imm_s(x, k as i64), most))
            }
            _ => None,
        }
    }

    /// The `i32` scalar `v` is a splat of, if it is one.
    fn splat_scalar(&self, v: Value) -> Option<Value> {
        use cranelift_codegen::ir::{InstructionData, Opcode as Clif};
        match self.i32x4_def(v)? {
            InstructionData::Unary {
                opcode: Clif::Splat,
                arg,
            } if self.b.func.dfg.value_type(arg) == types::I32 => Some(arg),
            _ => None,
        }
    }

    /// The instruction that makes the `i32x4` `v` (its first result),
    /// if `v` is one's result.
    fn i32x4_def(&self, v: Value) -> Option<cranelift_codegen::ir::InstructionData> {
        let dfg = &self.b.func.dfg;
        if dfg.value_type(v) != types::I32X4 {
            return None;
        }
        match dfg.value_def(v) {
            cranelift_codegen::ir::ValueDef::Result(inst, 0) => Some(dfg.insts[inst]),
            _ => None,
        }
    }

    /// Lane 0 of the `i32x4` `v` computed on scalars, where `v` is lanes
    /// of the context, a splat, or a sum, difference or left shift (by a
    /// scalar amount) of such values at most `depth` steps deep: a thread
    /// id plus the group's base, shifted to a byte address. Each step is
    /// the lane-wise operation on lane 0 alone (wrapping adds; a vector
    /// shift takes its amount modulo 32 as the scalar one does), so the
    /// bits are those of the extract. `None` where `v` is anything else.
    pub(super) fn scalar_lane0(&mut self, v: Value, depth: u32) -> Option<Value> {
        use cranelift_codegen::ir::{InstructionData, Opcode as Clif};
        if self.ctx_loads.contains_key(&v) {
            return Some(self.lane0(v));
        }
        if depth == 0 {
            return None;
        }
        if let Some(x) = self.splat_scalar(v) {
            return Some(x);
        }
        match self.i32x4_def(v)? {
            InstructionData::Binary {
                opcode: op @ (Clif::Iadd | Clif::Isub | Clif::Ishl),
                args: [a, b],
            } => {
                let x = self.scalar_lane0(a, depth - 1)?;
                if op == Clif::Ishl {
                    // The amount is a scalar already.
                    return Some(self.b.ins().ishl(x, b));
                }
                let y = self.scalar_lane0(b, depth - 1)?;
                Some(match op {
                    Clif::Iadd => self.b.ins().iadd(x, y),
                    _ => self.b.ins().isub(x, y),
                })
            }
            _ => None,
        }
    }

    /// Component `comp` (0..4) of the register `op` names, before modifiers.
    pub fn fetch(&mut self, op: &Operand, comp: u8) -> Result<V, JitError> {
        self.fetch_direct(op, comp, false)
    }

    /// [`Lower::fetch`]; `direct`: `op` is a source operand of the
    /// instruction itself (not an index inside one), so a float operand
    /// may read a late component unfinished (`late.rs`).
    fn fetch_direct(&mut self, op: &Operand, comp: u8, direct: bool) -> Result<V, JitError> {
        let comp = usize::from(comp & 3);
        match op.ty {
            OperandType::Temp => {
                let r = op
                    .imm_index(0)
                    .ok_or_else(|| self.unsupported_operand("relative r# index"))?;
                let Some(reg) = self.regs.get(r as usize) else {
                    return Ok(self.splat_v(0));
                };
                let v = self.use_vars(reg[comp]);
                if self.late.finish_on_read(self.at, r, comp, direct) {
                    return Ok(v.map(|x| self.finish_always(x)));
                }
                Ok(v)
            }
            OperandType::Imm32 => {
                let v = match op.imm.as_slice() {
                    [v] => *v,
                    [a, b, c, d] => [*a, *b, *c, *d][comp],
                    _ => 0,
                };
                Ok(self.splat_v(v))
            }
            // d(...): the 32-bit halves as components, lo then hi per double
            // (a one-double immediate fills .xy and .zw), as the interpreter reads it.
            OperandType::Imm64 => {
                let v = match op.imm.as_slice() {
                    [lo, hi] => [*lo, *hi, *lo, *hi][comp],
                    [a, b, c, d] => [*a, *b, *c, *d][comp],
                    _ => 0,
                };
                Ok(self.splat_v(v))
            }
            OperandType::ThreadIdInGroup | OperandType::ThreadId => {
                if comp == 3 {
                    return Ok(self.splat_v(0));
                }
                let mut v = self.ctx_lanes(OFF_TID + (comp * 4 * W) as i32);
                if comp == 0 && self.p.group_size[0] % 4 == 0 {
                    // The in-group ids under vThreadID's sum keep their own
                    // bound, so lane-0 addresses widen through the sum
                    // (`Lower::wide_lane0`).
                    let bound = self.p.group_size[0];
                    self.lane_bound.extend(v.iter().map(|&x| (x, bound)));
                }
                if op.ty == OperandType::ThreadId {
                    // vThreadID = the group's base + vThreadIDInGroup.
                    let s = self.group_base(comp);
                    let base = self.b.ins().splat(types::I32X4, s);
                    v = self.map1(v, |b, x| b.b.ins().iadd(x, base));
                }
                // Consecutive in each vector when rows are whole vectors
                // (batches start at multiples of W).
                if comp == 0 && self.p.group_size[0] % 4 == 0 {
                    self.consecutive.extend(v);
                    // vThreadID.x is below the widest dispatch's ids
                    // (`check_groups` refuses more groups).
                    let widest = self.p.group_size[0].checked_mul(MAX_GROUPS_PER_DIM);
                    if let (OperandType::ThreadId, Some(bound)) = (op.ty, widest) {
                        self.lane_bound.extend(v.iter().map(|&x| (x, bound)));
                    }
                }
                Ok(v)
            }
            OperandType::ThreadIdInGroupFlattened => {
                let v = self.ctx_lanes(OFF_FLAT);
                let g = self.p.group_size;
                let total = g[0] * g[1] * g[2];
                if total % 4 == 0 {
                    self.consecutive.extend(v);
                    self.lane_bound.extend(v.iter().map(|&x| (x, total)));
                }
                Ok(v)
            }
            OperandType::ThreadGroupId => {
                let s = self.group_id(comp);
                let v = self.b.ins().splat(types::I32X4, s);
                Ok([v; N])
            }
            OperandType::ImmConstantBuffer => self.icb_fetch(op, comp),
            OperandType::ConstantBuffer => self.cb_fetch(op, comp),
            OperandType::IndexableTemp => self.x_fetch(op, comp),
            OperandType::Input => self.io_fetch(op, comp, true),
            OperandType::Output => self.io_fetch(op, comp, false),
            ty if crate::runtime::batch::special_component(ty).is_some() => self.special_fetch(op),
            _ => Err(self.unsupported_operand(format!("{} operand", op.ty.prefix()))),
        }
    }

    /// Writes the components of `vals` present in `op`'s mask under `exec`.
    pub fn write(&mut self, op: &Operand, vals: &[Option<V>; 4]) -> Result<(), JitError> {
        let mask = op.write_mask();
        match op.ty {
            OperandType::Null => Ok(()),
            OperandType::Temp => {
                let r = op
                    .imm_index(0)
                    .ok_or_else(|| self.unsupported_operand("relative r# index"))?;
                let Some(reg) = self.regs.get(r as usize).copied() else {
                    return Ok(());
                };
                let exec = self.use_vars(self.exec);
                for c in 0..4 {
                    if mask & (1 << c) == 0 {
                        continue;
                    }
                    let Some(v) = vals[c] else { continue };
                    if self.full_exec || self.idle_lanes_never_read(r, c) {
                        self.def_vars(reg[c], v);
                        continue;
                    }
                    let old = self.use_vars(reg[c]);
                    let new = self.map3(exec, v, old, |s, m, n, o| s.blend(m, n, o));
                    self.def_vars(reg[c], new);
                }
                Ok(())
            }
            OperandType::IndexableTemp => self.x_write(op, vals),
            OperandType::Output => self.output_write(op, vals),
            ty if crate::runtime::batch::special_component(ty).is_some() => {
                self.special_write(op, vals)
            }
            _ => Err(self.unsupported_operand(format!("{} destination", op.ty.prefix()))),
        }
    }

    /// `m ? new : old` per lane, `m` a mask (every lane all ones or
    /// zero). An increment of the old value by a constant, `old + k`
    /// (a loop counter), needs no blend: `old + (m & k)`, and for `k = 1`
    /// `old - m`.
    fn blend(&mut self, m: Value, new: Value, old: Value) -> Value {
        use cranelift_codegen::ir::{InstructionData, Opcode as Op, ValueDef};
        let dfg = &self.b.func.dfg;
        if let ValueDef::Result(inst, 0) = dfg.value_def(new) {
            if let InstructionData::Binary {
                opcode: Op::Iadd,
                args: [x, y],
            } = dfg.insts[inst]
            {
                let k = if x == old { y } else { x };
                if (x == old || y == old) && dfg.value_type(new) == types::I32X4 {
                    match self.splats.get(&k) {
                        Some(1) => return self.b.ins().isub(old, m),
                        Some(_) => {
                            let step = self.b.ins().band(m, k);
                            return self.b.ins().iadd(old, step);
                        }
                        None => {}
                    }
                }
            }
        }
        if lane_blend() {
            // Each lane of `m` is all ones or zero: its top bit decides.
            return self.b.ins().blendv(m, new, old);
        }
        self.b.ins().bitselect(m, new, old)
    }

    /// Whether no lane outside `exec` can read `r#.c` again: at each open
    /// construct the component is dead where its idle lanes continue
    /// (`liveness.rs`); switches and inlined calls always keep it.
    pub fn idle_lanes_never_read(&self, r: u32, c: usize) -> bool {
        let Some(live) = &self.live else {
            return false;
        };
        self.full_stack.iter().all(|o| {
            o.resume
                .as_ref()
                .is_some_and(|pts| pts.iter().all(|&k| !live.live_at(k, r, c)))
        })
    }

    /// The union of the write masks of the non-null destinations `dsts`.
    fn dst_mask(&self, inst: &Instruction, dsts: usize) -> u8 {
        inst.operands
            .iter()
            .take(dsts)
            .filter(|o| o.ty != OperandType::Null)
            .fold(0, |m, o| m | o.write_mask())
    }

    // -----------------------------------------------------------------
    // ALU families
    // -----------------------------------------------------------------

    /// mov, movc, swapc.
    fn moves(&mut self, op: MoveInst, inst: &Instruction) -> Result<(), JitError> {
        match op {
            MoveInst::Mov => self.cw(inst, Ty::Float, inst.saturate(), |_, [a]| a),
            MoveInst::Movc => self.cw(inst, Ty::Float, inst.saturate(), |s, [c, a, b]| {
                s.select_nz(c, a, b)
            }),
            MoveInst::Swapc => self.swapc(inst),
        }
    }

    /// Lowers one float-class instruction.
    fn alu(&mut self, op: FloatInst, inst: &Instruction) -> Result<(), JitError> {
        use FloatInst::*;
        match op {
            // `a + -b` is `a - b` (IEEE 754 defines subtraction so) up to
            // the sign of a NaN result, which `finish` makes canonical or
            // nothing observes: one op instead of a sign flip and an add.
            Add => match negated_last(inst) {
                Some(sub) => self.cw_finished(&sub, |s, [a, b]| s.fbin_inner(a, b, FBin::Sub)),
                None => self.cw_finished(inst, |s, [a, b]| s.fbin_inner(a, b, FBin::Add)),
            },
            Mul => self.cw_finished(inst, |s, [a, b]| s.fbin_inner(a, b, FBin::Mul)),
            Div => self.cw_finished(inst, |s, [a, b]| s.fbin_inner(a, b, FBin::Div)),
            Mad => match negated_last(inst) {
                Some(sub) => self.cw_finished(&sub, |s, [a, b, c]| {
                    let m = s.fbin_inner(a, b, FBin::Mul);
                    s.fbin_inner(m, c, FBin::Sub)
                }),
                None => self.cw_finished(inst, |s, [a, b, c]| {
                    let m = s.fbin_inner(a, b, FBin::Mul);
                    s.fbin_inner(m, c, FBin::Add)
                }),
            },
            Min => self.cw(inst, Ty::Float, inst.saturate(), |s, [a, b]| {
                s.fminmax(a, b, true)
            }),
            Max => self.cw(inst, Ty::Float, inst.saturate(), |s, [a, b]| {
                s.fminmax(a, b, false)
            }),
            Sqrt | RoundNe | RoundNi | RoundPi | RoundZ => {
                let op = inst.opcode;
                self.cw(inst, Ty::Float, inst.saturate(), move |s, [a]| {
                    s.funary(a, op)
                })
            }
            Rcp => self.cw_finished(inst, |s, [a]| {
                let one = s.vsplat(ONE);
                s.fbin_inner(one, a, FBin::Div)
            }),
            Frc => self.cw(inst, Ty::Float, inst.saturate(), |s, [a]| s.frc(a)),
            Exp | Log if super::opt_off("vecexp") => {
                let shim = if op == Exp { Shim::Exp } else { Shim::Log };
                self.lanes1(inst, Ty::Float, inst.saturate(), shim)
            }
            Exp => self.cw(inst, Ty::Float, inst.saturate(), |s, [a]| s.exp2(a)),
            Log => self.cw(inst, Ty::Float, inst.saturate(), |s, [a]| s.log2(a)),
            Rsq => self.cw(inst, Ty::Float, inst.saturate(), |s, [a]| s.rsq(a)),
            Dp2 | Dp3 | Dp4 => self.dot(inst),
            SinCos => self.sincos(inst),
        }
    }

    /// Lowers one comparison (float: `sem::float::{eq, ne, lt, ge}`, ordered,
    /// so NaN compares false except `ne`; integer: `sem::int`).
    fn compare(&mut self, op: CompareInst, inst: &Instruction) -> Result<(), JitError> {
        use CompareInst::*;
        match op {
            Eq => self.cw(inst, Ty::Float, false, |s, [a, b]| {
                s.fcompare(a, b, FloatCC::Equal)
            }),
            Ne => self.cw(inst, Ty::Float, false, |s, [a, b]| {
                s.fcompare(a, b, FloatCC::NotEqual)
            }),
            Lt => self.cw(inst, Ty::Float, false, |s, [a, b]| {
                s.fcompare(a, b, FloatCC::LessThan)
            }),
            Ge => self.cw(inst, Ty::Float, false, |s, [a, b]| {
                s.fcompare(a, b, FloatCC::GreaterThanOrEqual)
            }),
            IEq => self.icmp(inst, IntCC::Equal),
            INe => self.icmp(inst, IntCC::NotEqual),
            ILt => self.icmp(inst, IntCC::SignedLessThan),
            IGe => self.icmp(inst, IntCC::SignedGreaterThanOrEqual),
            ULt => self.icmp(inst, IntCC::UnsignedLessThan),
            UGe => self.icmp(inst, IntCC::UnsignedGreaterThanOrEqual),
        }
    }

    /// Lowers one int-class instruction.
    fn alu_int(&mut self, op: IntInst, inst: &Instruction) -> Result<(), JitError> {
        use IntInst::*;
        let i = Ty::Int;
        match op {
            IAdd => {
                // `x - u` under a split's floor keeps the id's facts.
                let floored = self.floored_difference(inst, self.at);
                self.cw(inst, i, false, |s, [a, b]| {
                    let r = s.add_int(a, b);
                    if let Some(bound) = floored {
                        s.consecutive.insert(r);
                        s.lane_bound.insert(r, bound);
                    }
                    r
                })
            }
            INeg => self.cw(inst, i, false, |s, [a]| s.b.ins().ineg(a)),
            IMad | UMad => self.cw(inst, i, false, |s, [a, b, c]| {
                let m = s.b.ins().imul(a, b);
                s.add_int(m, c)
            }),
            IMax => self.cw(inst, i, false, |s, [a, b]| s.b.ins().smax(a, b)),
            IMin => self.cw(inst, i, false, |s, [a, b]| s.b.ins().smin(a, b)),
            UMax => self.cw(inst, i, false, |s, [a, b]| s.b.ins().umax(a, b)),
            UMin => self.cw(inst, i, false, |s, [a, b]| s.b.ins().umin(a, b)),
            And => self.cw(inst, i, false, |s, [a, b]| {
                let r = s.b.ins().band(a, b);
                if s.is_nonneg(a) || s.is_nonneg(b) {
                    s.nonneg.insert(r);
                }
                r
            }),
            Or => self.cw(inst, i, false, |s, [a, b]| s.b.ins().bor(a, b)),
            Xor => self.cw(inst, i, false, |s, [a, b]| s.b.ins().bxor(a, b)),
            Not => self.cw(inst, i, false, |s, [a]| s.b.ins().bnot(a)),
            IShl | UShr | IShr => self.shift(inst),
            UAddc | USubb => self.carry(inst),
            IMul => self.lanes_pair(inst, Shim::IMul),
            UMul => self.lanes_pair(inst, Shim::UMul),
            UDiv => self.lanes_pair(inst, Shim::UDiv),
            Msad => self.lanes_n(inst, i, false, Shim::Msad),
            CountBits => self.lanes1(inst, i, false, Shim::CountBits),
            FirstBitHi => self.lanes1(inst, i, false, Shim::FirstBitHi),
            FirstBitLo => self.lanes1(inst, i, false, Shim::FirstBitLo),
            FirstBitShi => self.lanes1(inst, i, false, Shim::FirstBitShi),
            BfRev => self.lanes1(inst, i, false, Shim::BfRev),
            UBfe => self.lanes_n(inst, i, false, Shim::UBfe),
            IBfe => self.lanes_n(inst, i, false, Shim::IBfe),
            Bfi => self.lanes_n(inst, i, false, Shim::Bfi),
        }
    }

    /// Lowers one conversion.
    fn convert(&mut self, op: ConvertInst, inst: &Instruction) -> Result<(), JitError> {
        use ConvertInst::*;
        let sat = inst.saturate();
        match op {
            // Semantics: fcvt_to_*_sat truncates, saturates and maps NaN to
            // 0, exactly `sem::convert::ftoi`/`ftou`; a denormal truncates to
            // 0 with or without the flush.
            Ftoi => self.cw(inst, Ty::Float, false, |s, [a]| {
                let f = s.f(a);
                s.b.ins().fcvt_to_sint_sat(types::I32X4, f)
            }),
            Ftou => self.cw(inst, Ty::Float, false, |s, [a]| {
                let f = s.f(a);
                s.b.ins().fcvt_to_uint_sat(types::I32X4, f)
            }),
            Itof => self.cw(inst, Ty::Int, sat, |s, [a]| {
                let f = s.b.ins().fcvt_from_sint(types::F32X4, a);
                s.i(f)
            }),
            // Below 2^31 the signed conversion rounds the same value.
            Utof => self.cw(inst, Ty::Int, sat, |s, [a]| {
                let f = if s.is_nonneg(a) {
                    s.b.ins().fcvt_from_sint(types::F32X4, a)
                } else {
                    s.b.ins().fcvt_from_uint(types::F32X4, a)
                };
                s.i(f)
            }),
            F32tof16 => self.lanes1(inst, Ty::Float, false, Shim::F32ToF16),
            F16tof32 => self.lanes1(inst, Ty::Int, sat, Shim::F16ToF32),
        }
    }

    /// `a + b` on `i32x4`, or the other operand when one is the literal 0
    /// (`imad r, a, b, l(0)` and swizzled literals with zero lanes are
    /// common, and Cranelift keeps the add).
    fn add_int(&mut self, a: Value, b: Value) -> Value {
        match (self.splats.get(&a), self.splats.get(&b)) {
            (_, Some(0)) => a,
            (Some(0), _) => b,
            _ => self.b.ins().iadd(a, b),
        }
    }

    /// Whether every lane of `i32x4` value `v` is known to have bit 31
    /// clear ([`Lower::nonneg`], or a constant that has).
    fn is_nonneg(&self, v: Value) -> bool {
        self.nonneg.contains(&v) || self.splats.get(&v).is_some_and(|&x| x >> 31 == 0)
    }

    /// `c != 0 ? a : b` per lane.
    fn select_nz(&mut self, c: Value, a: Value, b: Value) -> Value {
        let zero = self.vsplat(0);
        let z = self.b.ins().icmp(IntCC::Equal, c, zero);
        self.b.ins().bitselect(z, b, a)
    }

    /// Component-wise op with one destination (operand 0) and `K` sources
    /// read as `ty`; `sat` clamps the results (float `_sat`).
    fn cw<const K: usize>(
        &mut self,
        inst: &Instruction,
        ty: Ty,
        sat: bool,
        f: impl Fn(&mut Self, [Value; K]) -> Value,
    ) -> Result<(), JitError> {
        let out = self.cw_values(inst, ty, sat, f)?;
        let dst = self.operand(inst, 0)?;
        self.write(dst, &out)
    }

    /// [`Lower::cw`] of a float instruction whose last step is `finish`:
    /// `f` gives the unfinished result, and every vector of every
    /// component the instruction writes is finished together
    /// ([`Lower::finish_all`]). With `_sat` each is finished and then
    /// saturated, as `cw` does.
    fn cw_finished<const K: usize>(
        &mut self,
        inst: &Instruction,
        f: impl Fn(&mut Self, [Value; K]) -> Value,
    ) -> Result<(), JitError> {
        if inst.saturate() {
            return self.cw(inst, Ty::Float, true, |s, args| {
                let r = f(s, args);
                s.finish(r)
            });
        }
        let mut out = self.cw_values(inst, Ty::Float, false, f)?;
        self.finish_each(&mut out);
        let dst = self.operand(inst, 0)?;
        self.write(dst, &out)
    }

    /// [`Lower::finish_all`] of every vector in `out`, in place.
    fn finish_each(&mut self, out: &mut [Option<V>]) {
        let mut flat: Vec<Value> = out.iter().flatten().flatten().copied().collect();
        self.finish_all(&mut flat);
        for (slot, v) in out.iter_mut().flatten().flatten().zip(flat) {
            *slot = v;
        }
    }

    /// The per-component results of [`Lower::cw`], before they are written.
    fn cw_values<const K: usize>(
        &mut self,
        inst: &Instruction,
        ty: Ty,
        sat: bool,
        f: impl Fn(&mut Self, [Value; K]) -> Value,
    ) -> Result<[Option<V>; 4], JitError> {
        let mask = self.dst_mask(inst, 1);
        let mut out: [Option<V>; 4] = [None; 4];
        for (c, slot) in out.iter_mut().enumerate() {
            if mask & (1 << c) == 0 {
                continue;
            }
            let mut srcs = [[self.ctx; N]; K];
            for (k, s) in srcs.iter_mut().enumerate() {
                let op = self.operand(inst, 1 + k)?;
                *s = self.src(op, c, ty)?;
            }
            let mut r = srcs[0];
            for j in 0..N {
                let args: [Value; K] = std::array::from_fn(|k| srcs[k][j]);
                r[j] = f(self, args);
                if sat {
                    r[j] = self.sat(r[j]);
                }
            }
            *slot = Some(r);
        }
        Ok(out)
    }

    /// `sem::int::ieq`/`ine`/`ilt`/`ige`/`ult`/`uge`: a 0/!0 mask.
    fn icmp(&mut self, inst: &Instruction, cc: IntCC) -> Result<(), JitError> {
        self.cw(inst, Ty::Int, false, move |s, [a, b]| {
            let r = s.b.ins().icmp(cc, a, b);
            s.mask_values.insert(r);
            r
        })
    }

    fn swapc(&mut self, inst: &Instruction) -> Result<(), JitError> {
        let sat = inst.saturate();
        self.pair_cw(inst, |s, c| {
            let cond = s.src(s.operand(inst, 2)?, c, Ty::Float)?;
            let a = s.src(s.operand(inst, 3)?, c, Ty::Float)?;
            let b = s.src(s.operand(inst, 4)?, c, Ty::Float)?;
            let mut x = s.map3(cond, b, a, |s, c, b, a| s.select_nz(c, b, a));
            let mut y = s.map3(cond, a, b, |s, c, a, b| s.select_nz(c, a, b));
            if sat {
                x = s.map1(x, |s, v| s.sat(v));
                y = s.map1(y, |s, v| s.sat(v));
            }
            Ok((x, y))
        })
    }

    /// The two-destination families (swapc, sincos, uaddc/usubb,
    /// imul/umul/udiv): `f` gives both results of component `c`, for each
    /// component either destination writes; each destination then takes
    /// the components of its own mask.
    fn pair_cw(
        &mut self,
        inst: &Instruction,
        mut f: impl FnMut(&mut Self, usize) -> Result<(V, V), JitError>,
    ) -> Result<(), JitError> {
        let mask = self.dst_mask(inst, 2);
        let mut d0: [Option<V>; 4] = [None; 4];
        let mut d1: [Option<V>; 4] = [None; 4];
        for c in (0..4).filter(|c| mask & (1 << c) != 0) {
            let (x, y) = f(self, c)?;
            d0[c] = Some(x);
            d1[c] = Some(y);
        }
        let o0 = self.operand(inst, 0)?;
        self.write(o0, &d0)?;
        let o1 = self.operand(inst, 1)?;
        self.write(o1, &d1)
    }

    /// dp2/dp3/dp4 (`sem::float::dp2`/`dp3`/`dp4`): unfused, left to right,
    /// one result to every component.
    fn dot(&mut self, inst: &Instruction) -> Result<(), JitError> {
        let n = match inst.opcode {
            Opcode::Dp2 => 2,
            Opcode::Dp3 => 3,
            _ => 4,
        };
        let a_op = self.operand(inst, 1)?;
        let b_op = self.operand(inst, 2)?;
        let mut acc: Option<V> = None;
        for c in 0..n {
            let a = self.src(a_op, c, Ty::Float)?;
            let b = self.src(b_op, c, Ty::Float)?;
            // Only the last sum is finished (`fbin_inner`).
            let p = self.map2(a, b, |s, x, y| s.fbin_inner(x, y, FBin::Mul));
            acc = Some(match acc {
                None => p,
                Some(sum) => self.map2(p, sum, |s, x, y| s.fbin_inner(x, y, FBin::Add)),
            });
        }
        // Only the last sum is finished, all its vectors at once.
        let sum = acc.unwrap_or_else(|| self.splat_v(0));
        let mut out = [Some(sum)];
        self.finish_each(&mut out);
        let mut r = out[0].unwrap_or(sum);
        if inst.saturate() {
            r = self.map1(r, |s, v| s.sat(v));
        }
        let dst = self.operand(inst, 0)?;
        self.write(dst, &[Some(r); 4])
    }

    fn sincos(&mut self, inst: &Instruction) -> Result<(), JitError> {
        let sat = inst.saturate();
        self.pair_cw(inst, |s, c| {
            let a = s.src(s.operand(inst, 2)?, c, Ty::Float)?;
            let mut sin = s.call_lanes(Shim::Sin, &[a]).0;
            let mut cos = s.call_lanes(Shim::Cos, &[a]).0;
            if sat {
                sin = s.map1(sin, |b, v| b.sat(v));
                cos = s.map1(cos, |b, v| b.sat(v));
            }
            Ok((sin, cos))
        })
    }

    /// ishl/ushr/ishr. Semantics: the amount is taken mod 32
    /// (`sem::int::ishl`). A literal amount shifts whole vectors; a
    /// per-thread amount shifts lane by lane (CLIF's scalar shifts take the
    /// amount mod 32 too).
    fn shift(&mut self, inst: &Instruction) -> Result<(), JitError> {
        let op = inst.opcode;
        let amount_op = self.operand(inst, 2)?;
        let literal = amount_op.ty == OperandType::Imm32;
        let mask = self.dst_mask(inst, 1);
        let mut out: [Option<V>; 4] = [None; 4];
        for (c, slot) in out.iter_mut().enumerate() {
            if mask & (1 << c) == 0 {
                continue;
            }
            let a = self.src(self.operand(inst, 1)?, c, Ty::Int)?;
            let r = if literal && amount_op.modifier == Modifier::None {
                let comp = match amount_op.comps {
                    Components::Four(_) => amount_op.swizzle()[c] as usize & 3,
                    _ => 0,
                };
                let amt = amount_op
                    .imm
                    .get(comp)
                    .or(amount_op.imm.first())
                    .copied()
                    .unwrap_or(0);
                let s = self.b.ins().iconst(types::I32, i64::from(amt & 31));
                let r = self.map1(a, |b, x| shift_op(b, op, x, s));
                if op == Opcode::UShr && amt & 31 != 0 {
                    self.nonneg.extend(r);
                }
                if op == Opcode::IShl
                    && amt & 31 == 2
                    && a.iter().all(|v| self.consecutive.contains(v))
                {
                    self.consecutive4.extend(r);
                    // Ids times 4 keep a bound while it fits.
                    let bounds: Option<Vec<u32>> =
                        a.iter().map(|v| self.lane_bound.get(v).copied()).collect();
                    if let Some(b) = bounds.and_then(|b| b.into_iter().max()?.checked_mul(4)) {
                        self.lane_bound.extend(r.iter().map(|&x| (x, b)));
                    }
                }
                r
            } else {
                let amt = self.src(amount_op, c, Ty::Int)?;
                let mut r = a;
                for j in 0..N {
                    let mut v = a[j];
                    for l in 0..4u8 {
                        let x = self.b.ins().extractlane(a[j], l);
                        let s = self.b.ins().extractlane(amt[j], l);
                        let y = shift_op(self, op, x, s);
                        v = self.b.ins().insertlane(v, y, l);
                    }
                    r[j] = v;
                }
                r
            };
            *slot = Some(r);
        }
        let dst = self.operand(inst, 0)?;
        self.write(dst, &out)
    }

    /// uaddc/usubb (`sem::int::uaddc`/`usubb`): the sum or difference and a
    /// 0/1 carry or borrow.
    fn carry(&mut self, inst: &Instruction) -> Result<(), JitError> {
        let add = inst.opcode == Opcode::UAddc;
        self.pair_cw(inst, |s, c| {
            let a = s.src(s.operand(inst, 2)?, c, Ty::Int)?;
            let b = s.src(s.operand(inst, 3)?, c, Ty::Int)?;
            let one = s.vsplat(1);
            let (mut sum, mut k) = (a, a);
            for j in 0..N {
                let m = if add {
                    sum[j] = s.b.ins().iadd(a[j], b[j]);
                    s.b.ins().icmp(IntCC::UnsignedLessThan, sum[j], a[j])
                } else {
                    sum[j] = s.b.ins().isub(a[j], b[j]);
                    s.b.ins().icmp(IntCC::UnsignedLessThan, a[j], b[j])
                };
                k[j] = s.b.ins().band(m, one);
            }
            Ok((sum, k))
        })
    }

    // -----------------------------------------------------------------
    // Calls out of the generated code
    // -----------------------------------------------------------------

    /// `id` declared in the function being built, once.
    pub fn import(&mut self, id: FuncId) -> FuncRef {
        if let Some(&r) = self.imported.get(&id) {
            return r;
        }
        let r = self.module.declare_func_in_func(id, self.b.func);
        self.imported.insert(id, r);
        r
    }

    /// The signature `(ctx: i64) -> ()` of the four-lane shim entries,
    /// called with the System V convention: the call is on every path, so
    /// only the vectors live across it are spilled.
    fn shim_sig(&mut self) -> cranelift_codegen::ir::SigRef {
        if let Some(s) = self.shim_sig {
            return s;
        }
        let mut sig = self.module.make_signature();
        sig.params
            .push(cranelift_codegen::ir::AbiParam::new(types::I64));
        let s = self.b.import_signature(sig);
        self.shim_sig = Some(s);
        s
    }

    /// Calls `target(ctx, a, b, c)` through `lanes::preserving_call`, which
    /// keeps every register (see there).
    pub fn preserving_call(
        &mut self,
        target: unsafe extern "C" fn(*mut super::context::BatchContext, u64, u64, u32),
        a: Value,
        b: Value,
        c: Value,
    ) {
        let f = self.import(self.preserve_fn);
        let t = self.b.ins().iconst(types::I64, target as usize as i64);
        let ctx = self.ctx;
        self.b.ins().call(f, &[ctx, a, b, c, t]);
    }

    /// Runs `shim` on every lane, four lanes a call (`Shim::lanes4`);
    /// returns its results (the second is the high half of a pair, or the
    /// first again).
    pub fn call_lanes(&mut self, shim: Shim, args: &[V]) -> (V, V) {
        use super::libcalls::{ARG_ROW, RESULT_ROWS};
        let row = |r: usize| OFF_LANES + 16 * r as i32;
        let entry = shim.lanes4() as usize as i64;
        let zero = self.vsplat(0);
        let mut r0 = [zero; N];
        let mut r1 = [zero; N];
        for j in 0..N {
            for (k, a) in args.iter().enumerate() {
                self.b
                    .ins()
                    .store(trusted(), a[j], self.ctx, row(ARG_ROW + k));
            }
            let sig = self.shim_sig();
            let f = self.b.ins().iconst(types::I64, entry);
            let ctx = self.ctx;
            self.b.ins().call_indirect(sig, f, &[ctx]);
            r0[j] = self
                .b
                .ins()
                .load(types::I32X4, trusted(), self.ctx, row(RESULT_ROWS[0]));
            if shim.returns_pair() {
                r1[j] = self
                    .b
                    .ins()
                    .load(types::I32X4, trusted(), self.ctx, row(RESULT_ROWS[1]));
            }
        }
        if !shim.returns_pair() {
            r1 = r0;
        }
        (r0, r1)
    }

    /// A one-source op computed by `shim` per lane.
    fn lanes1(
        &mut self,
        inst: &Instruction,
        ty: Ty,
        sat: bool,
        shim: Shim,
    ) -> Result<(), JitError> {
        self.lanes_n(inst, ty, sat, shim)
    }

    /// An op with `shim.arity()` sources and one destination, per lane.
    fn lanes_n(
        &mut self,
        inst: &Instruction,
        ty: Ty,
        sat: bool,
        shim: Shim,
    ) -> Result<(), JitError> {
        let mask = self.dst_mask(inst, 1);
        let mut out: [Option<V>; 4] = [None; 4];
        for (c, slot) in out.iter_mut().enumerate() {
            if mask & (1 << c) == 0 {
                continue;
            }
            let mut args = Vec::new();
            for k in 0..shim.arity() {
                let op = self.operand(inst, 1 + k)?;
                args.push(self.src(op, c, ty)?);
            }
            let mut r = self.call_lanes(shim, &args).0;
            if sat {
                r = self.map1(r, |s, v| s.sat(v));
            }
            *slot = Some(r);
        }
        let dst = self.operand(inst, 0)?;
        self.write(dst, &out)
    }

    /// imul/umul/udiv: two destinations from a pair-returning shim.
    fn lanes_pair(&mut self, inst: &Instruction, shim: Shim) -> Result<(), JitError> {
        self.pair_cw(inst, |s, c| {
            let a = s.src(s.operand(inst, 2)?, c, Ty::Int)?;
            let b = s.src(s.operand(inst, 3)?, c, Ty::Int)?;
            Ok(s.call_lanes(shim, &[a, b]))
        })
    }

    /// Dispatches one instruction to its family.
    pub fn inst(&mut self, i: usize, inst: &Instruction) -> Result<(), JitError> {
        self.at = i;
        if !self.plan.ranges.is_empty() {
            return self.with_ranges(i, inst);
        }
        self.inst_family(i, inst)
    }

    /// Lowers one instruction through the visitor (its class's method).
    pub fn inst_family(&mut self, i: usize, inst: &Instruction) -> Result<(), JitError> {
        if self.t0_alu(inst)? {
            return Ok(());
        }
        inst.visit(i, self)
    }

    /// Lowers ALU instruction `i` with [`Lower::unobserved`] set for it
    /// (`observed.rs`): its float results may stay unfinished when nothing
    /// can see their bits.
    fn observing(
        &mut self,
        i: usize,
        inst: &Instruction,
        f: impl FnOnce(&mut Self) -> Result<(), JitError>,
    ) -> Result<(), JitError> {
        self.unobserved = self.observed.writes_unobserved(i, inst) || self.late.deferred(i);
        let r = f(self);
        self.unobserved = false;
        r
    }
}

/// The JIT's side of the instruction visitor: each method matches its
/// class's enum exhaustively (here or in the class's module), so an
/// instruction added to the table that the JIT does not lower is a compile
/// error; what the JIT does not lower it says in its own arm
/// ([`JitError::Unsupported`], and the caller runs the interpreter).
impl InstVisitor for Lower<'_, '_> {
    type Out = Result<(), JitError>;

    fn float(&mut self, op: FloatInst, inst: &Instruction, i: usize) -> Self::Out {
        self.observing(i, inst, |s| s.alu(op, inst))
    }
    fn int(&mut self, op: IntInst, inst: &Instruction, i: usize) -> Self::Out {
        self.observing(i, inst, |s| s.alu_int(op, inst))?;
        self.shadow_writes(i, inst);
        Ok(())
    }
    fn compare(&mut self, op: CompareInst, inst: &Instruction, i: usize) -> Self::Out {
        self.observing(i, inst, |s| Lower::compare(s, op, inst))?;
        self.shadow_writes(i, inst);
        Ok(())
    }
    fn convert(&mut self, op: ConvertInst, inst: &Instruction, i: usize) -> Self::Out {
        self.observing(i, inst, |s| Lower::convert(s, op, inst))
    }
    fn moves(&mut self, op: MoveInst, inst: &Instruction, i: usize) -> Self::Out {
        self.observing(i, inst, |s| Lower::moves(s, op, inst))?;
        self.shadow_writes(i, inst);
        Ok(())
    }
    fn double(&mut self, op: DoubleInst, inst: &Instruction, _: usize) -> Self::Out {
        Lower::double(self, op, inst)
    }
    fn flow(&mut self, op: FlowInst, inst: &Instruction, i: usize) -> Self::Out {
        Lower::flow(self, op, i, inst)
    }
    fn memory(&mut self, op: MemoryInst, inst: &Instruction, _: usize) -> Self::Out {
        Lower::memory(self, op, inst)
    }
    fn sample(&mut self, op: SampleInst, inst: &Instruction, _: usize) -> Self::Out {
        use SampleInst::*;
        match op {
            Sample | SampleC | SampleCLz | SampleL | SampleD | SampleB | Lod | Gather4
            | Gather4C | Gather4Po | Gather4PoC | Gather4S | Gather4CS | Gather4PoS
            | Gather4PoCS | SampleLS | SampleCLzS | SampleClS | SampleBClS | SampleDClS
            | SampleCClS => Lower::sample(self, inst),
        }
    }
    fn atomic(&mut self, op: AtomicInst, inst: &Instruction, _: usize) -> Self::Out {
        Lower::atomic(self, op, inst)
    }
    fn sync(&mut self, op: SyncInst, inst: &Instruction, _: usize) -> Self::Out {
        match op {
            SyncInst::Sync => self.op_sync(inst),
        }
    }
    fn graphics(&mut self, op: GraphicsInst, inst: &Instruction, _: usize) -> Self::Out {
        self.stage_inst(op, inst)
    }
    fn misc(&mut self, op: MiscInst, inst: &Instruction, i: usize) -> Self::Out {
        use MiscInst::*;
        match op {
            Nop | DebugBreak => Ok(()),
            Abort => {
                self.abort(i);
                Ok(())
            }
            // Not lowered: the interpreter runs these programs.
            CheckAccessFullyMapped | Reserved107 | Reserved112 | Reserved209 | Reserved218 => {
                Err(self.unsupported(inst.opcode))
            }
        }
    }
    /// Declarations were read before lowering; nothing to emit.
    fn decl(&mut self, _: DeclInst, _: &Instruction, _: usize) -> Self::Out {
        Ok(())
    }
    fn custom_data(&mut self, _: CustomDataInst, _: &Instruction, _: usize) -> Self::Out {
        Ok(())
    }
}

impl Lower<'_, '_> {
    /// `abort`: when any lane is active, the batch returns
    /// `STATUS_ABORT + i` and the runner reports the interpreter's error.
    fn abort(&mut self, i: usize) {
        let exec = self.use_vars(self.exec);
        let any = self.any(exec);
        let (stop, go) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(any, stop, &[], go, &[]);
        self.b.seal_block(stop);
        self.b.seal_block(go);
        self.b.switch_to_block(stop);
        let code = super::context::STATUS_ABORT.saturating_add(i as u32);
        let st = self.b.ins().iconst(types::I32, i64::from(code));
        self.b.ins().return_(&[st]);
        self.b.switch_to_block(go);
    }
}

/// `inst` (add or mad) with its last source's `-` modifier removed, when it
/// has exactly that modifier: the caller subtracts instead of adding.
fn negated_last(inst: &Instruction) -> Option<Instruction> {
    let last = inst.operands.len().checked_sub(1)?;
    if last == 0 || inst.operands[last].modifier != Modifier::Neg {
        return None;
    }
    let mut sub = inst.clone();
    sub.operands[last].modifier = Modifier::None;
    Some(sub)
}

pub(super) fn shift_op(s: &mut Lower, op: Opcode, x: Value, amt: Value) -> Value {
    match op {
        Opcode::IShl => s.b.ins().ishl(x, amt),
        Opcode::UShr => s.b.ins().ushr(x, amt),
        _ => s.b.ins().sshr(x, amt),
    }
}
