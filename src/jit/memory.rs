//! Memory access: constant buffers, the ICB, x#, raw and structured
//! t#/u#/g# loads and stores, atomics and the UAV counters.
//!
//! In: a memory or atomic instruction (or a cb/icb/x# operand). Out:
//! per-lane address arithmetic in 64 bits and an inline bounds check before
//! every access. Invariants (memory safety lives here):
//! - every address is `window base + 4 * dword` with `dword < window
//!   DWORDs` checked in the generated code; a failed check (or an inactive
//!   lane) redirects a load to the context's `zero` DWORD and a store or an
//!   atomic to its `sink` DWORD, so no access leaves the memory bound to it;
//! - the out-of-bounds results are the interpreter's (`sem::memory`): loads
//!   read 0 per component, stores are dropped, atomics change nothing and
//!   return 0;
//! - stores and atomics run lane by lane in lane order (then component
//!   order), the order in which the interpreter runs the same threads.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    types, AtomicRmwOp, Block, BlockArg, InstBuilder, InstructionData, MemFlagsData,
    Opcode as ClifOpcode, Value,
};

use super::context::{
    N, OFF_IO, OFF_LANES, OFF_RES, OFF_SINK, OFF_TGSM, OFF_TYPED, OFF_UAV_LANES, OFF_XREGS,
    OFF_ZERO, RES_BASE, RES_BUFINFO, RES_COUNTER, RES_DWORDS, RES_SIZE, W,
};
use super::lanes;
use super::lower::{fixed, little, trusted, Lower, Ty, V};
use super::uniform::Spread;
use super::JitError;
use crate::ir::{AtomicInst, Instruction, MemoryInst, Opcode, Operand, OperandType, ProgramKind};
use crate::runtime::BindingKind;
use crate::sem::atomic::AtomicOp;

/// An x# access: first element, element count, element index (per lane,
/// or a literal).
type XPlace = (u32, u32, Result<V, u64>);

/// A DWORD window: base pointer (i64) and size in DWORDs (i64).
#[derive(Clone, Copy)]
struct Window {
    base: Value,
    dwords: Value,
    /// The size in DWORDs when it is known when compiling (g#).
    size: Option<u64>,
    writable: bool,
    stride: Option<u32>,
    /// Memory only this group's batches touch, one after another on one
    /// worker (g#): a store may read a vector back and rewrite the
    /// words of its idle lanes unchanged, which nothing can observe.
    private: bool,
}

impl Lower<'_, '_> {
    /// Lane `l` of `v`.
    pub(super) fn lane(&mut self, v: V, l: usize) -> Value {
        self.b.ins().extractlane(v[l / 4], (l % 4) as u8)
    }

    /// Builds a batch value from `W` scalar lanes.
    pub(super) fn lanes_to_v(&mut self, lanes: &[Value]) -> V {
        let zero = self.vsplat(0);
        let mut out = [zero; N];
        for (l, x) in lanes.iter().enumerate() {
            out[l / 4] = self.b.ins().insertlane(out[l / 4], *x, (l % 4) as u8);
        }
        out
    }

    fn ptr_at(&mut self, off: i32) -> Value {
        self.b.ins().iadd_imm_s(self.ctx, i64::from(off))
    }

    /// Loads DWORD `d` (i64) of a window, or 0 when `d` is out of bounds.
    pub(super) fn load_dword(&mut self, base: Value, dwords: Value, d: Value) -> Value {
        self.load_dword_as(base, dwords, d, trusted())
    }

    /// [`Self::load_dword`] of memory no store changes while the shader
    /// runs (cb#, the ICB): the load may be hoisted out of loops.
    pub(super) fn load_fixed_dword(&mut self, base: Value, dwords: Value, d: Value) -> Value {
        self.load_dword_as(base, dwords, d, fixed())
    }

    fn load_dword_as(
        &mut self,
        base: Value,
        dwords: Value,
        d: Value,
        flags: MemFlagsData,
    ) -> Value {
        let inb = self.b.ins().icmp(IntCC::UnsignedLessThan, d, dwords);
        let off = self.dword_bytes(d);
        let addr = self.b.ins().iadd(base, off);
        let zero = self.ptr_at(OFF_ZERO);
        let p = self.b.ins().select(inb, addr, zero);
        self.b.ins().load(types::I32, flags, p, 0)
    }

    /// The address of DWORD `d` when it is in bounds and `ok` (i8) holds,
    /// else the sink; returns the pointer and the in-bounds flag.
    fn store_ptr(&mut self, base: Value, dwords: Value, d: Value, ok: Value) -> (Value, Value) {
        let inb = self.b.ins().icmp(IntCC::UnsignedLessThan, d, dwords);
        let both = self.b.ins().band(inb, ok);
        let off = self.dword_bytes(d);
        let addr = self.b.ins().iadd(base, off);
        let sink = self.ptr_at(OFF_SINK);
        (self.b.ins().select(both, addr, sink), inb)
    }

    /// An i8 that is non-zero when lane `l` is active.
    pub(super) fn lane_active(&mut self, l: usize) -> Value {
        let exec = self.use_vars(self.exec);
        let m = self.lane(exec, l);
        self.b.ins().icmp_imm_s(IntCC::NotEqual, m, 0)
    }

    /// An i8 that is non-zero when lane `l` is active and its memory
    /// writes count (`uav_lanes`: not a helper lane of a pixel quad).
    fn lane_writes(&mut self, l: usize) -> Value {
        let act = self.lane_active(l);
        if self.p.version().kind == ProgramKind::Compute {
            return act;
        }
        let off = OFF_UAV_LANES + 4 * l as i32;
        let w = self.b.ins().load(types::I32, trusted(), self.ctx, off);
        let w = self.b.ins().icmp_imm_s(IntCC::NotEqual, w, 0);
        self.b.ins().band(act, w)
    }

    /// Field `field` of resource-table entry `idx`. The ordinary batch
    /// loop reads the table pointer from the batch's context, so Cranelift
    /// keeps the loads in the loop: hoisted, the descriptors of a program
    /// with several buffers stayed live across the loop and spilled
    /// (matmul, docs/performance.md). The pretested loop (`pretest.rs`),
    /// whose body has no slow paths, reads it from the group's first
    /// context (every context holds the same pointer), so its loads and
    /// the descriptor fields behind it leave the loop.
    pub(super) fn desc_field(&mut self, idx: usize, field: i32, ty: types::Type) -> Value {
        let res = match self.run_res {
            Some(res) if self.pretesting() => res,
            _ => {
                let at = if self.pretesting() {
                    self.group
                } else {
                    self.ctx
                };
                self.b.ins().load(types::I64, fixed(), at, OFF_RES)
            }
        };
        if let Some(e) = self.range_entry(idx) {
            // An SM5.1 range: the entry the index selected.
            let e = self.b.ins().uextend(types::I64, e);
            let off = self.b.ins().imul_imm_s(e, RES_SIZE);
            let p = self.b.ins().iadd(res, off);
            return self.b.ins().load(ty, fixed(), p, field);
        }
        let off = idx as i64 * RES_SIZE + i64::from(field);
        self.b.ins().load(ty, fixed(), res, off as i32)
    }

    fn desc_window(&mut self, idx: usize, writable: bool, stride: Option<u32>) -> Window {
        let base = self.desc_field(idx, RES_BASE, types::I64);
        let dwords = self.desc_field(idx, RES_DWORDS, types::I64);
        Window {
            base,
            dwords,
            size: None,
            writable,
            stride,
            private: false,
        }
    }

    /// The window of a t#, u# or g# operand.
    fn window(&mut self, op: &Operand) -> Result<Window, JitError> {
        let reg = op
            .imm_index(0)
            .ok_or_else(|| self.unsupported_operand("dynamically indexed resource"))?;
        let typed = |k| self.plan.typed.contains(&(k, reg));
        match op.ty {
            OperandType::Resource | OperandType::Uav => {
                let (kind, list) = if op.ty == OperandType::Uav {
                    (BindingKind::Uav, &self.plan.uavs)
                } else {
                    (BindingKind::Srv, &self.plan.srvs)
                };
                if typed(kind) {
                    return Err(self.unsupported_operand("typed buffer or texture access"));
                }
                let Some(&(idx, stride)) = list.get(&reg) else {
                    return Err(self.unsupported_operand("undeclared resource"));
                };
                Ok(self.desc_window(idx, op.ty == OperandType::Uav, stride))
            }
            OperandType::Tgsm => {
                let Some(place) = self.plan.tgsm.get(&reg).copied() else {
                    return Err(self.unsupported_operand("undeclared g#"));
                };
                // From the group's context (every context holds the same
                // g# base): invariant in the batch loops, so hoisted out of
                // them. The resource table is read per batch (`desc_window`):
                // hoisting its descriptors too kept more values live across
                // the loop than there are registers, and saxpy's spills cost
                // more than the loads did (docs/performance.md).
                let t = self.b.ins().load(types::I64, fixed(), self.group, OFF_TGSM);
                let base = self.b.ins().iadd_imm_s(t, i64::from(place.first) * 4);
                let dwords = self.b.ins().iconst(types::I64, i64::from(place.dwords));
                Ok(Window {
                    base,
                    dwords,
                    size: Some(u64::from(place.dwords)),
                    writable: true,
                    stride: place.stride,
                    private: true,
                })
            }
            _ => Err(self.unsupported_operand(format!("{} memory operand", op.ty.prefix()))),
        }
    }

    /// The first DWORD lane `l` addresses: `addr >> 2` (raw) or
    /// `(index * stride + offset) >> 2` (structured), in 64 bits
    /// (`sem::memory::raw_dword` / `structured_dword`).
    fn lane_dword(&mut self, a: V, off: Option<V>, stride: Option<u32>, l: usize) -> Value {
        let x = self.lane(a, l);
        let o = match (stride, off) {
            (Some(_), Some(o)) => Some(self.lane(o, l)),
            _ => None,
        };
        self.dword_at(x, o, stride)
    }

    /// The DWORD (i64) that address `x` (and structured byte offset `o`,
    /// both `i32`) names: a raw byte address over 4; a structured index
    /// times the stride plus the offset, over 4.
    fn dword_at(&mut self, x: Value, o: Option<Value>, stride: Option<u32>) -> Value {
        let x = self.b.ins().uextend(types::I64, x);
        let flat = match (stride, o) {
            (Some(s), Some(o)) => {
                let o = self.b.ins().uextend(types::I64, o);
                let m = self.b.ins().imul_imm_s(x, i64::from(s));
                self.b.ins().iadd(m, o)
            }
            _ => x,
        };
        self.b.ins().ushr_imm_s(flat, 2)
    }

    /// The address operands of a raw or structured access: the byte
    /// address or struct index, and the structured byte offset.
    fn address(
        &mut self,
        inst: &Instruction,
        first: usize,
        stride: Option<u32>,
    ) -> Result<(V, Option<V>), JitError> {
        let a = self.src(self.operand(inst, first)?, 0, Ty::Int)?;
        let off = match stride {
            Some(_) => Some(self.src(self.operand(inst, first + 1)?, 0, Ty::Int)?),
            None => None,
        };
        Ok((a, off))
    }

    /// Lowers one memory-class instruction (the texture-related ones in
    /// `jit::sample`).
    pub fn memory(&mut self, op: MemoryInst, inst: &Instruction) -> Result<(), JitError> {
        use MemoryInst as M;
        match op {
            M::LdRaw => self.ld_buffer(inst, false),
            M::LdStructured => self.ld_buffer(inst, true),
            M::StoreRaw => self.store_buffer(inst, false),
            M::StoreStructured => self.store_buffer(inst, true),
            M::BufInfo => self.bufinfo(inst),
            M::Ld if self.is_texture(self.operand(inst, 2)?) => self.texture_load(inst),
            M::Ld | M::LdUavTyped => self.ld_typed(inst),
            M::StoreUavTyped => self.store_typed(inst),
            M::ResInfo => self.resinfo(inst),
            M::LdMs | M::LdS | M::LdMsS => self.ms_or_status_load(inst),
            M::LdRawS | M::LdStructuredS | M::LdUavTypedS => self.feedback_load(inst),
            M::SampleInfo => self.sampleinfo(inst),
            M::SamplePos => self.samplepos(inst),
        }
    }

    fn ld_buffer(&mut self, inst: &Instruction, structured: bool) -> Result<(), JitError> {
        let mem = self.operand(inst, if structured { 3 } else { 2 })?;
        let w = self.window(mem)?;
        if structured != w.stride.is_some() {
            return Err(self.unsupported_operand("raw/structured access mismatch"));
        }
        let swz = mem.swizzle();
        let mask = self.operand(inst, 0)?.write_mask();
        let comps: Vec<usize> = (0..4).filter(|c| mask & (1 << c) != 0).collect();
        let ks: Vec<u8> = comps.iter().map(|&c| swz[c] & 3).collect();
        let mut out: [Option<V>; 4] = [None; 4];
        if ks.is_empty() {
            return Ok(());
        }
        // A uniform address (`uniform.rs`): every lane reads the same
        // DWORDs, each one bounds-checked scalar load broadcast.
        if let Some((a, off)) = self.uniform_address(self.at, inst, 1, structured) {
            let x = self.b.ins().uextend(types::I64, a);
            let flat = match (w.stride, off) {
                (Some(s), Some(o)) => {
                    let o = self.b.ins().uextend(types::I64, o);
                    let m = self.b.ins().imul_imm_s(x, i64::from(s));
                    self.b.ins().iadd(m, o)
                }
                _ => x,
            };
            let d0 = self.b.ins().ushr_imm_s(flat, 2);
            for (&c, &k) in comps.iter().zip(&ks) {
                let d = self.b.ins().iadd_imm_s(d0, i64::from(k));
                let v = self.load_dword(w.base, w.dwords, d);
                let v = self.b.ins().splat(types::I32X4, v);
                out[c] = Some([v; N]);
            }
            let dst = self.operand(inst, 0)?;
            return self.write(dst, &out);
        }
        let (a, off) = self.address(inst, 1, w.stride)?;
        // A consecutive index or byte ids (`uniform.rs`): the shape is known.
        self.index_bases(inst, w.stride);
        let vecs = match self.batch_load(w, a, off, &ks) {
            Some(vecs) => vecs,
            None => {
                let zero = self.vsplat(0);
                let mut vecs = vec![[zero; N]; ks.len()];
                for j in 0..N {
                    let got = self.load_vector(w, a, off, j, &ks);
                    for (v, g) in vecs.iter_mut().zip(got) {
                        v[j] = g;
                    }
                }
                vecs
            }
        };
        (self.consec_base, self.bytes_base) = (None, None);
        for (c, v) in comps.into_iter().zip(vecs) {
            out[c] = Some(v);
        }
        let dst = self.operand(inst, 0)?;
        self.write(dst, &out)
    }

    /// The bases that make an access's shape known when compiling
    /// (`uniform.rs`): a consecutive index of a structured access of
    /// stride 4, byte ids as a raw address.
    fn index_bases(&mut self, inst: &Instruction, stride: Option<u32>) {
        self.consec_base = match stride {
            Some(4) => self.spread_address(self.at, inst, 1, Spread::Ids),
            _ => None,
        };
        self.bytes_base = match stride {
            None => self.spread_address(self.at, inst, 1, Spread::ByteIds),
            _ => None,
        };
    }

    /// Vector `j` (lanes `4j..4j+4`) of a raw or structured load of the
    /// DWORDs `first + k` for each `k` in `ks`: one `i32x4` per `k`.
    /// When the four lanes address consecutive DWORDs and every DWORD is
    /// in bounds, each `k` is one vector load; when they all address the
    /// same in-bounds DWORDs (a row of a TGSM tile, a per-group constant),
    /// each `k` is one scalar load broadcast to the lanes; otherwise the
    /// lanes load one by one.
    fn load_vector(&mut self, w: Window, a: V, off: Option<V>, j: usize, ks: &[u8]) -> Vec<Value> {
        // No lane of it runs (`Lower::idle_vectors`): nothing is read,
        // and the values are never seen.
        if self.vector_idle(j) {
            return vec![self.vsplat(0); ks.len()];
        }
        // Tier 0 (`tier0.rs`) compiles for speed: the out-of-line lanes only.
        if self.slots.is_some() && self.out_of_line(w) {
            return self.lane_loads(w, a, off, j, ks);
        }
        let kmax = i64::from(ks.iter().copied().max().unwrap_or(0));
        let live = self.live_prefix(j);
        if let Some(d0) = self.static_consecutive(w, a, off, j, kmax) {
            let p = self.dword_ptr(w.base, d0);
            return self.vector_loads_live(p, ks, live);
        }
        let consecutive = self.same_shape(a, off, w, j, Shape::Consecutive);
        if consecutive.is_none() && (!fast_path_enabled() || w.stride.is_none()) {
            return self.lane_loads(w, a, off, j, ks);
        }
        let merge = self.b.create_block();
        let params: Vec<Value> = ks
            .iter()
            .map(|_| self.b.append_block_param(merge, types::I32X4))
            .collect();
        // Consecutive: DWORDs d0 .. d0 + kmax + 3 in bounds.
        if let Some((consec, d0)) = consecutive {
            let vector = move |s: &mut Self, p: Value| s.vector_loads_live(p, ks, live);
            let rest = self.fast_case(w, consec, d0, Some(kmax + 3), merge, vector);
            self.b.switch_to_block(rest);
            // The first lanes idle and wrapped below g# (`g[tid - s]`
            // under `tid >= s`): the vector that ends at lane 3's DWORDs.
            if let Some((tail, t0)) = self.tail_shape(a, off, w, j) {
                let rest = self.fast_case(w, tail, t0, Some(kmax + 3), merge, vector);
                self.b.switch_to_block(rest);
            }
        }
        // Uniform: DWORDs d0 .. d0 + kmax in bounds.
        if let Some((same, u0)) = self.same_shape(a, off, w, j, Shape::Uniform) {
            let broadcast = |s: &mut Self, p: Value| -> Vec<Value> {
                ks.iter()
                    .map(|&k| {
                        let x = s.b.ins().load(types::I32, trusted(), p, 4 * i32::from(k));
                        s.b.ins().splat(types::I32X4, x)
                    })
                    .collect()
            };
            let slow = self.fast_case(w, same, u0, Some(kmax), merge, broadcast);
            self.b.switch_to_block(slow);
        }
        // No lane active (a span's first batch whose four lanes all wrapped
        // below g#): nothing is read, and the values are never seen.
        let exec = self.use_vars(self.exec)[j];
        let any = self.b.ins().vany_true(exec);
        let (lanes, idle) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(any, lanes, &[], idle, &[]);
        self.b.seal_block(lanes);
        self.b.seal_block(idle);
        self.b.switch_to_block(idle);
        let zero = self.vsplat(0);
        let zeros: Vec<BlockArg> = ks.iter().map(|_| BlockArg::Value(zero)).collect();
        self.b.ins().jump(merge, &zeros);
        self.b.switch_to_block(lanes);
        let vals = self.lane_loads(w, a, off, j, ks);
        let args: Vec<BlockArg> = vals.into_iter().map(BlockArg::Value).collect();
        self.b.ins().jump(merge, &args);
        self.b.seal_block(merge);
        self.b.switch_to_block(merge);
        params
    }

    /// The vector loads of `vectors` consecutive vectors of lanes from
    /// `p` (lane 0's first DWORD), each `k` of `ks` `k` DWORDs on: vector
    /// `j`'s lanes read DWORDs `4j + k ..`. Returns them vector-major, `k`
    /// minor.
    fn vector_loads(&mut self, p: Value, vectors: usize, ks: &[u8]) -> Vec<Value> {
        let mut out = Vec::with_capacity(vectors * ks.len());
        for j in 0..vectors {
            for &k in ks {
                let at = 16 * j as i32 + 4 * i32::from(k);
                out.push(self.b.ins().load(types::I32X4, trusted(), p, at));
            }
        }
        out
    }

    /// One vector of lanes from `p` (lane 0's first DWORD) as
    /// [`Self::vector_loads`], or, where only its first `live` lanes run
    /// ([`Lower::live_prefix`]), their DWORDs alone with the other lanes
    /// zero: their values are never seen.
    fn vector_loads_live(&mut self, p: Value, ks: &[u8], live: Option<u8>) -> Vec<Value> {
        let Some(live) = live else {
            return self.vector_loads(p, 1, ks);
        };
        ks.iter()
            .map(|&k| {
                let at = 4 * i32::from(k);
                match live {
                    1 => {
                        let x = self.b.ins().load(types::I32, trusted(), p, at);
                        self.b.ins().scalar_to_vector(types::I32X4, x)
                    }
                    _ => {
                        let x = self.b.ins().load(types::I64, trusted(), p, at);
                        let v = self.b.ins().scalar_to_vector(types::I64X2, x);
                        self.b.ins().bitcast(types::I32X4, little(), v)
                    }
                }
            })
            .collect()
    }

    /// Emits `if shape && d0 + last < dwords { jump merge(access(&base[d0])) }`
    /// (`access` loads the merge block's arguments, or stores and returns
    /// none; no bounds test when `last` is `None`: the caller knows the
    /// DWORDs are in the window) and returns the (sealed, not yet filled)
    /// block for the other case.
    fn fast_case(
        &mut self,
        w: Window,
        shape: Value,
        d0: Value,
        last: Option<i64>,
        merge: Block,
        access: impl Fn(&mut Self, Value) -> Vec<Value>,
    ) -> Block {
        let ok = self.fast_test(w, shape, d0, last);
        self.fast_branch(w, ok, d0, merge, access)
    }

    /// [`Self::fast_case`] for a whole batch's access: its test is decided
    /// for the whole group where the pretested loop can (`pretest.rs`).
    fn batch_case(
        &mut self,
        w: Window,
        shape: Value,
        d0: Value,
        last: Option<i64>,
        merge: Block,
        access: impl Fn(&mut Self, Value) -> Vec<Value>,
    ) -> Block {
        let ok = self.fast_test(w, shape, d0, last);
        let ok = self.pretested(ok);
        self.fast_branch(w, ok, d0, merge, access)
    }

    /// The flag `shape && d0 + last < dwords` ([`Self::fast_case`]).
    fn fast_test(&mut self, w: Window, shape: Value, d0: Value, last: Option<i64>) -> Value {
        match last {
            Some(last) => {
                let end = self.b.ins().iadd_imm_s(d0, last);
                let inb = self.b.ins().icmp(IntCC::UnsignedLessThan, end, w.dwords);
                self.both(shape, inb)
            }
            None => shape,
        }
    }

    /// The branch of [`Self::fast_case`] on `ok`.
    fn fast_branch(
        &mut self,
        w: Window,
        ok: Value,
        d0: Value,
        merge: Block,
        access: impl Fn(&mut Self, Value) -> Vec<Value>,
    ) -> Block {
        let (fast, other) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(ok, fast, &[], other, &[]);
        self.b.seal_block(fast);
        self.b.seal_block(other);
        self.b.switch_to_block(fast);
        let p = self.dword_ptr(w.base, d0);
        let args: Vec<BlockArg> = access(self, p).into_iter().map(BlockArg::Value).collect();
        self.b.ins().jump(merge, &args);
        other
    }

    /// The per-lane path of [`Self::load_vector`]: every lane's DWORD is
    /// bounds-checked on its own (out of bounds reads the `zero` DWORD).
    fn lane_loads(&mut self, w: Window, a: V, off: Option<V>, j: usize, ks: &[u8]) -> Vec<Value> {
        if self.out_of_line(w) {
            return self.lane_call(w, a, off, j, ks, None);
        }
        let mut out = vec![self.vsplat(0); ks.len()];
        for i in 0..4 {
            let base = self.lane_dword(a, off, w.stride, 4 * j + i);
            for (o, &k) in out.iter_mut().zip(ks) {
                let d = self.b.ins().iadd_imm_s(base, i64::from(k));
                let x = self.load_dword(w.base, w.dwords, d);
                *o = self.b.ins().insertlane(*o, x, i as u8);
            }
        }
        out
    }

    /// Whether the four lanes of vector `j` address memory as `shape`
    /// says: an i8 flag and lane 0's exact DWORD `d0` (i64), or `None` when
    /// the access shape never is (structured strides other than 4).
    /// Consecutive: the lanes address `d0, d0 + 1, d0 + 2, d0 + 3`. Raw:
    /// `addr >> 2` of each lane is `d0 + lane` (no wrap: it is below
    /// 2^30). Stride 4: the indices are `i0 + lane` with `i0 <= 0xFFFFFFFC`
    /// (so none wraps) and every lane has lane 0's offset, which makes lane
    /// `l`'s DWORD `i0 + l + (offset >> 2)`. Uniform: the same tests with
    /// every lane addressing `d0`.
    fn same_shape(
        &mut self,
        a: V,
        off: Option<V>,
        w: Window,
        j: usize,
        shape: Shape,
    ) -> Option<(Value, Value)> {
        if !fast_path_enabled() {
            return None;
        }
        let stride = w.stride;
        if let Some(known) = self.known_shape(a, off, w, j, shape) {
            return Some(known);
        }
        let step = match shape {
            Shape::Consecutive => self.lane_steps(),
            Shape::Uniform => {
                let c = self.zero_const();
                self.b.ins().vconst(types::I32X4, c)
            }
        };
        match (stride, off) {
            // Uniform structured access, any stride: every lane has lane 0's
            // index and offset, so lane 0's DWORD (as `lane_dword`).
            (Some(s), Some(off)) if shape == Shape::Uniform => {
                let i0 = self.lane0(a[j]);
                let is = self.b.ins().splat(types::I32X4, i0);
                let eq = self.b.ins().icmp(IntCC::Equal, a[j], is);
                let (o0, both) = self.offset_lane(off[j], 0, eq);
                let all = self.b.ins().vall_true(both);
                let i0 = self.b.ins().uextend(types::I64, i0);
                let o0 = self.b.ins().uextend(types::I64, o0);
                let m = self.b.ins().imul_imm_s(i0, i64::from(s));
                let flat = self.b.ins().iadd(m, o0);
                Some((all, self.b.ins().ushr_imm_s(flat, 2)))
            }
            (None, _) => {
                let q = self.b.ins().ushr_imm_s(a[j], 2);
                let q0 = self.b.ins().extractlane(q, 0);
                let s = self.b.ins().splat(types::I32X4, q0);
                let want = self.b.ins().iadd(s, step);
                let eq = self.b.ins().icmp(IntCC::Equal, q, want);
                let consec = self.b.ins().vall_true(eq);
                let d0 = self.b.ins().uextend(types::I64, q0);
                Some((consec, d0))
            }
            (Some(4), Some(off)) => {
                let i0 = self.lane0(a[j]);
                let s = self.b.ins().splat(types::I32X4, i0);
                let want = self.b.ins().iadd(s, step);
                let eq = self.b.ins().icmp(IntCC::Equal, a[j], want);
                let (o0, both) = self.offset_lane(off[j], 0, eq);
                let all = self.b.ins().vall_true(both);
                let i0 = self.b.ins().uextend(types::I64, i0);
                let nowrap = self.no_wrap(w, i0, 0xFFFF_FFFC);
                let consec = self.both(all, nowrap);
                let o0 = self.b.ins().uextend(types::I64, o0);
                let o0 = self.b.ins().ushr_imm_s(o0, 2);
                Some((consec, self.b.ins().iadd(i0, o0)))
            }
            _ => None,
        }
    }

    /// Lane `l` of the structured offsets `off` and `flag` and-ed with
    /// the test that every lane's offset equals it; a splat known when
    /// compiling (a literal offset) needs neither the extract nor the
    /// test.
    fn offset_lane(&mut self, off: Value, l: u8, flag: Value) -> (Value, Value) {
        if let Some(&x) = self.splats.get(&off) {
            return (self.b.ins().iconst(types::I32, i64::from(x as i32)), flag);
        }
        let o = self.b.ins().extractlane(off, l);
        let os = self.b.ins().splat(types::I32X4, o);
        let same = self.b.ins().icmp(IntCC::Equal, off, os);
        (o, self.b.ins().band(flag, same))
    }

    /// The tail shape of vector `j` of a structured g# access with
    /// stride 4: the indices are `i3 - 3 + lane` modulo 2^32 (lane 3's
    /// `i3`), every lane has lane 3's offset, and no active lane's index
    /// wrapped (each is at most `i3`). Returns the i8 flag and `d3 - 3`
    /// (i64; `d3` lane 3's DWORD), where the vector load that puts each
    /// active lane's DWORD in its lane starts: up to three DWORDs before
    /// g#, in the words every TGSM area keeps there
    /// (`context::TGSM_LEAD`); only idle lanes read those, and their
    /// results are never seen. The caller tests `d3 + k < dwords`.
    fn tail_shape(&mut self, a: V, off: Option<V>, w: Window, j: usize) -> Option<(Value, Value)> {
        let off = off?;
        if !w.private || w.stride != Some(4) || super::opt_off("tail") {
            return None;
        }
        let i3 = self.b.ins().extractlane(a[j], 3);
        let first = self.b.ins().iadd_imm_s(i3, -3);
        let s = self.b.ins().splat(types::I32X4, first);
        let step = self.lane_steps();
        let want = self.b.ins().iadd(s, step);
        let eq = self.b.ins().icmp(IntCC::Equal, a[j], want);
        let (o3, shape) = self.offset_lane(off[j], 3, eq);
        let top = self.b.ins().splat(types::I32X4, i3);
        let below = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, a[j], top);
        let exec = self.use_vars(self.exec)[j];
        let idle = self.b.ins().bnot(exec);
        let kept = self.b.ins().bor(below, idle);
        let all = self.b.ins().band(shape, kept);
        let ok = self.b.ins().vall_true(all);
        let i3 = self.b.ins().uextend(types::I64, i3);
        let o3 = self.b.ins().uextend(types::I64, o3);
        let o3 = self.b.ins().ushr_imm_s(o3, 2);
        let d3 = self.b.ins().iadd(i3, o3);
        Some((ok, self.b.ins().iadd_imm_s(d3, -3)))
    }

    /// Lane `4 * j`'s byte address and its DWORD index (both `u64`) when
    /// vector `j` of raw address `a` is known to hold byte addresses 4
    /// apart: a value shifted from thread ids (`Lower::consecutive4`) or
    /// byte ids (`bytes_base`).
    fn byte_ids_at(&mut self, a: V, j: usize) -> Option<(Value, Value)> {
        if self.consecutive4.contains(&a[j]) {
            let a0 = self.address_lane0_u64(a[j]);
            return Some((a0, self.dword_lane0_u64(a[j], a0)));
        }
        let a0 = self.byte_ids_lane0(self.bytes_base?, j);
        let a0 = self.b.ins().uextend(types::I64, a0);
        Some((a0, self.b.ins().ushr_imm_s(a0, 2)))
    }

    /// [`Self::same_shape`] decided when compiling: a structured access
    /// whose offset is a literal and whose index is a known consecutive
    /// thread id (only the no-wrap test remains), or whose index is a
    /// literal too (uniform).
    fn known_shape(
        &mut self,
        a: V,
        off: Option<V>,
        w: Window,
        j: usize,
        shape: Shape,
    ) -> Option<(Value, Value)> {
        let stride = w.stride;
        // A raw address four bytes apart per lane: lane 0's DWORD, when
        // the last lane's address does not wrap.
        if stride.is_none() && shape == Shape::Consecutive {
            if let Some((a0, d0)) = self.byte_ids_at(a, j) {
                let nowrap = self.no_wrap_of(w, &a[j..=j], a0, 0xFFFF_FFF0);
                return Some((nowrap, d0));
            }
        }
        let (Some(s), Some(off)) = (stride, off) else {
            return None;
        };
        let o0 = u64::from(*self.splats.get(&off[j])?);
        match shape {
            Shape::Consecutive if s == 4 && self.consec_base.is_some() => {
                let base = self.consec_base?;
                let i0 = self.consecutive_lane0_u64(base, j);
                let nowrap = self.no_wrap_of(w, &a[j..=j], i0, 0xFFFF_FFFC);
                Some((nowrap, self.b.ins().iadd_imm_s(i0, (o0 >> 2) as i64)))
            }
            Shape::Consecutive if s == 4 && self.consecutive.contains(&a[j]) => {
                let i0 = self.lane0_u64(a[j]);
                let nowrap = self.no_wrap_of(w, &a[j..=j], i0, 0xFFFF_FFFC);
                Some((nowrap, self.b.ins().iadd_imm_s(i0, (o0 >> 2) as i64)))
            }
            Shape::Uniform => {
                let i0 = u64::from(*self.splats.get(&a[j])?);
                let d0 = (i0 * u64::from(s) + o0) >> 2;
                let yes = self.b.ins().iconst(types::I8, 1);
                Some((yes, self.b.ins().iconst(types::I64, d0 as i64)))
            }
            _ => None,
        }
    }

    /// Vector `j`'s first DWORD (i64) when compiling shows that its lanes
    /// address consecutive DWORDs of the window, all inside it, whatever
    /// the batch: a structured access of stride 4 to a g# at an index the
    /// lanes hold as a thread id (`Lower::lane_bound`: every lane below
    /// `B`, lanes past the group 0) with a literal offset `o`, where DWORD
    /// `B - 1 + o / 4 + last` still lies in the g#. A vector of lanes past
    /// the group reads DWORDs `o / 4 ..` (inside too; its lanes are never
    /// active).
    fn static_consecutive(
        &mut self,
        w: Window,
        a: V,
        off: Option<V>,
        j: usize,
        last: i64,
    ) -> Option<Value> {
        let size = w.size?;
        if !fast_path_enabled() || w.stride != Some(4) || !self.consecutive.contains(&a[j]) {
            return None;
        }
        let bound = u64::from(*self.lane_bound.get(&a[j])?);
        let o = u64::from(*self.splats.get(&off?[j])?) >> 2;
        if bound < 4 || bound - 1 + o + last as u64 >= size {
            return None;
        }
        // Lane 0 from the index's base where the uniform analysis knows
        // it and the vector is not the context's ids (a scalar add, no
        // extract from the vector).
        let i0 = match self.consec_base {
            Some(base) if !self.ctx_loads.contains_key(&a[j]) => {
                self.consecutive_lane0_u64(base, j)
            }
            _ => self.lane0_u64(a[j]),
        };
        Some(self.b.ins().iadd_imm_s(i0, o as i64))
    }

    /// Whether every batch lies in one row of the group: a compute
    /// program whose group width is a multiple of the batch (`W`), so the
    /// x ids of a batch's lanes are `x0, x0 + 1, .., x0 + W - 1` and the
    /// consecutive values of each vector (`Lower::consecutive`, the
    /// consecutive r# components of `uniform.rs`) continue from one vector
    /// to the next.
    pub(super) fn batch_in_row(&self) -> bool {
        N > 1
            && self.p.version().kind == ProgramKind::Compute
            && self.p.group_size[0] as usize % W == 0
    }

    /// The whole batch's access as one shape, decided when compiling: in
    /// a batch that lies in one row ([`Self::batch_in_row`]), an index
    /// known to be consecutive (a thread id, a consecutive r# component,
    /// a thread id shifted left by 2 for a raw access) makes lane `l`
    /// address DWORD `d0 + l`, so vector `j` the four DWORDs from
    /// `d0 + 4j`. Returns `d0` (i64) and what is left to test for DWORDs
    /// `d0 .. d0 + W - 1 + last`: `None` when they lie in the window by
    /// construction ([`Self::static_consecutive`]), else the i8 flag "no
    /// lane's index wraps" (the bounds test is the caller's).
    fn batch_shape(
        &mut self,
        w: Window,
        a: V,
        off: Option<V>,
        last: i64,
    ) -> Option<(Value, Option<Value>)> {
        if !fast_path_enabled() || !self.batch_in_row() {
            return None;
        }
        let thread_ids = a.iter().all(|v| self.consecutive.contains(v));
        if thread_ids {
            if let Some(d0) = self.static_consecutive(w, a, off, 0, last) {
                return Some((d0, None));
            }
        }
        let span = (W - 1) as u32;
        let shifted_ids = a.iter().all(|v| self.consecutive4.contains(v));
        if w.stride.is_none() && (shifted_ids || self.bytes_base.is_some()) {
            let (a0, d0) = self.byte_ids_at(a, 0)?;
            let nowrap = self.no_wrap_of(w, &a, a0, 0xFFFF_FFFC - 4 * span);
            return Some((d0, Some(nowrap)));
        }
        if w.stride != Some(4) {
            return None;
        }
        // The same literal offset in every lane.
        let o_bytes = *self.splats.get(&off?[0])?;
        if off?.iter().any(|v| self.splats.get(v) != Some(&o_bytes)) {
            return None;
        }
        let o = u64::from(o_bytes) >> 2;
        let i0 = match self.consec_base {
            Some(base) => self.consecutive_lane0(base, 0),
            None if thread_ids => self.lane0(a[0]),
            None => return None,
        };
        let i0 = self.b.ins().uextend(types::I64, i0);
        let nowrap = self.no_wrap_of(w, &a, i0, 0xFFFF_FFFF - span);
        Some((self.b.ins().iadd_imm_s(i0, o as i64), Some(nowrap)))
    }

    /// A raw or structured load of the DWORDs `first + k` (each `k` of
    /// `ks`) done for the whole batch at once where [`Self::batch_shape`]
    /// applies: one vector load per vector and `k` behind one test (or
    /// none), the per-vector path ([`Self::load_vector`]) otherwise.
    /// Returns, per `k`, the batch's values.
    fn batch_load(&mut self, w: Window, a: V, off: Option<V>, ks: &[u8]) -> Option<Vec<V>> {
        if (self.slots.is_some() && self.out_of_line(w)) || self.any_vector_idle() {
            return None;
        }
        let kmax = i64::from(ks.iter().copied().max().unwrap_or(0));
        let (d0, nowrap) = self.batch_shape(w, a, off, kmax)?;
        let load_all = |s: &mut Self, p: Value| s.vector_loads(p, N, ks);
        let flat = match nowrap {
            None => {
                let p = self.dword_ptr(w.base, d0);
                load_all(self, p)
            }
            Some(nowrap) => {
                let merge = self.b.create_block();
                let params: Vec<Value> = (0..N * ks.len())
                    .map(|_| self.b.append_block_param(merge, types::I32X4))
                    .collect();
                let last = Some((W - 1) as i64 + kmax);
                let slow = self.batch_case(w, nowrap, d0, last, merge, load_all);
                self.b.switch_to_block(slow);
                let mut args = Vec::with_capacity(params.len());
                for j in 0..N {
                    let got = self.load_vector(w, a, off, j, ks);
                    args.extend(got.into_iter().map(BlockArg::Value));
                }
                self.b.ins().jump(merge, &args);
                self.b.seal_block(merge);
                self.b.switch_to_block(merge);
                params
            }
        };
        let zero = self.vsplat(0);
        let mut vecs = vec![[zero; N]; ks.len()];
        for (i, x) in flat.into_iter().enumerate() {
            vecs[i % ks.len()][i / ks.len()] = x;
        }
        Some(vecs)
    }

    /// A one-component store of `value` done for the whole batch at once
    /// where [`Self::batch_shape`] applies and every lane writes: one
    /// vector store per vector behind one test (no test where both the
    /// bounds and the mask are known), the per-vector path
    /// ([`Self::store_vector`]) otherwise. Returns whether it lowered the
    /// store.
    fn batch_store(&mut self, w: Window, a: V, off: Option<V>, value: V) -> bool {
        if (self.slots.is_some() && self.out_of_line(w)) || self.any_vector_idle() {
            return false;
        }
        let Some((d0, nowrap)) = self.batch_shape(w, a, off, 0) else {
            return false;
        };
        let store_all = |s: &mut Self, p: Value| -> Vec<Value> {
            for (j, &v) in value.iter().enumerate() {
                s.b.ins().store(trusted(), v, p, 16 * j as i32);
            }
            Vec::new()
        };
        let every = self.every_lane_writes();
        if every && nowrap.is_none() {
            let p = self.dword_ptr(w.base, d0);
            store_all(self, p);
            return true;
        }
        let mut ok = match nowrap {
            Some(f) => f,
            None => self.b.ins().iconst(types::I8, 1),
        };
        if !every {
            let mut lanes = self.write_lanes(0);
            for j in 1..N {
                let more = self.write_lanes(j);
                lanes = self.b.ins().band(lanes, more);
            }
            let all = self.b.ins().vall_true(lanes);
            ok = self.both(ok, all);
        }
        let merge = self.b.create_block();
        let last = nowrap.map(|_| (W - 1) as i64);
        let slow = self.batch_case(w, ok, d0, last, merge, store_all);
        self.b.switch_to_block(slow);
        for j in 0..N {
            self.store_vector(w, a, off, j, &[value]);
        }
        self.b.ins().jump(merge, &[]);
        self.b.seal_block(merge);
        self.b.switch_to_block(merge);
        true
    }

    /// The i8 flag `x <= limit` (unsigned) for a 32-bit index or
    /// address `x` zero-extended to i64: with `limit = 2^32 - 1 - span`,
    /// `x + span` does not wrap. In a g# it is the constant 1: every
    /// caller also tests that the DWORDs up to at least `x + span` (or
    /// `(x >> 2) + span` for a raw address) lie below the window's size,
    /// in 64 bits, and a g# is far smaller than 2^30 DWORDs, so that test
    /// fails wherever this one would ([`Self::fast_case`] drops it).
    fn no_wrap(&mut self, w: Window, x: Value, limit: u32) -> Value {
        if w.size.is_some() {
            return self.b.ins().iconst(types::I8, 1);
        }
        self.b
            .ins()
            .icmp_imm_s(IntCC::UnsignedLessThanOrEqual, x, i64::from(limit))
    }

    /// [`Self::no_wrap`] for lane 0 `x` of the index vectors `index`,
    /// known to hold where every lane of them is below a bound known when
    /// compiling of at most 2^31 (`Lower::lane_bound`): such lanes are
    /// ids as true integers, so no lane's address wraps whatever span and
    /// components the caller adds to `x` (at most `W` lanes of 4 DWORDs).
    fn no_wrap_of(&mut self, w: Window, index: &[Value], x: Value, limit: u32) -> Value {
        let bounded = |v: &Value| self.lane_bound.get(v).is_some_and(|&b| b <= 1 << 31);
        if !index.is_empty() && index.iter().all(bounded) {
            return self.b.ins().iconst(types::I8, 1);
        }
        self.no_wrap(w, x, limit)
    }

    /// `x & y` for two i8 flags, either of which may be known to hold.
    fn both(&mut self, x: Value, y: Value) -> Value {
        match (self.known_true(x), self.known_true(y)) {
            (true, _) => y,
            (_, true) => x,
            _ => self.b.ins().band(x, y),
        }
    }

    /// Whether `v` is the constant 1 (an i8 flag known to hold).
    fn known_true(&self, v: Value) -> bool {
        let dfg = &self.b.func.dfg;
        let Some(inst) = dfg.value_def(v).inst() else {
            return false;
        };
        matches!(dfg.insts[inst], InstructionData::UnaryImm { opcode: ClifOpcode::Iconst, imm } if imm.bits() == 1)
    }

    /// Whether some vector of the mask is the zero constant
    /// ([`Lower::vector_idle`]) or has only its first lanes live
    /// ([`Lower::live_prefix`]): the whole-batch paths, which access
    /// every word of every vector, then give way to the per-vector ones.
    fn any_vector_idle(&mut self) -> bool {
        (0..N).any(|j| self.vector_idle(j) || self.live_prefix(j).is_some())
    }

    /// `4 * d` for a DWORD index `d` (i64): the byte address `d` was
    /// made from where that address is a multiple of 4 (Cranelift turns
    /// the shifts down and up into an `and` it cannot drop).
    fn dword_bytes(&mut self, d: Value) -> Value {
        match self.aligned_bytes(d) {
            Some(a) => a,
            None => self.b.ins().ishl_imm_s(d, 2),
        }
    }

    /// `a` where `d` is `a >> 2` (logical) and `a` a multiple of 4.
    fn aligned_bytes(&mut self, d: Value) -> Option<Value> {
        let dfg = &self.b.func.dfg;
        let inst = dfg.value_def(d).inst()?;
        let data = dfg.insts[inst];
        match data {
            InstructionData::Binary {
                opcode: ClifOpcode::Ushr,
                args: [a, k],
            } if self.known(k) == Some(2) && self.multiple_of_4(a, 4) => Some(a),
            _ => None,
        }
    }

    /// Whether the integer `v` is a multiple of 4 by its definition: a
    /// left shift by 2 to 31, an `and` with such a constant, a constant,
    /// a zero extension or a sum of such values (at most `depth` deep).
    fn multiple_of_4(&mut self, v: Value, depth: u32) -> bool {
        if let Some(k) = self.known(v) {
            return k & 3 == 0;
        }
        let dfg = &self.b.func.dfg;
        let Some(inst) = dfg.value_def(v).inst() else {
            return false;
        };
        if depth == 0 {
            return false;
        }
        let bits = u64::from(dfg.value_type(v).bits());
        let data = dfg.insts[inst];
        match data {
            InstructionData::Unary {
                opcode: ClifOpcode::Uextend,
                arg,
            } => self.multiple_of_4(arg, depth - 1),
            InstructionData::Binary {
                opcode: ClifOpcode::Ishl,
                args: [_, k],
            } => self.known(k).is_some_and(|k| (2..bits).contains(&k)),
            InstructionData::Binary {
                opcode: ClifOpcode::Band,
                args: [x, y],
            } => self.multiple_of_4(x, depth - 1) || self.multiple_of_4(y, depth - 1),
            InstructionData::Binary {
                opcode: ClifOpcode::Iadd | ClifOpcode::Isub,
                args: [x, y],
            } => self.multiple_of_4(x, depth - 1) && self.multiple_of_4(y, depth - 1),
            _ => false,
        }
    }

    /// `base + 4 * d` for a DWORD index `d` (i64).
    fn dword_ptr(&mut self, base: Value, d: Value) -> Value {
        let off = self.dword_bytes(d);
        self.b.ins().iadd(base, off)
    }

    fn zero_const(&mut self) -> cranelift_codegen::ir::Constant {
        self.b.func.dfg.constants.insert(vec![0u8; 16].into())
    }

    /// The `i32x4` constant `[0, 1, 2, 3]`.
    fn lane_steps(&mut self) -> Value {
        let bytes: Vec<u8> = (0u32..4).flat_map(|x| x.to_le_bytes()).collect();
        let c = self.b.func.dfg.constants.insert(bytes.into());
        self.b.ins().vconst(types::I32X4, c)
    }

    fn store_buffer(&mut self, inst: &Instruction, structured: bool) -> Result<(), JitError> {
        let mem = self.operand(inst, 0)?;
        let w = self.window(mem)?;
        if structured != w.stride.is_some() {
            return Err(self.unsupported_operand("raw/structured access mismatch"));
        }
        if !w.writable {
            return Ok(());
        }
        let (a, off) = self.address(inst, 1, w.stride)?;
        // A consecutive index or byte ids (`uniform.rs`): the shape is known.
        self.index_bases(inst, w.stride);
        let n = mem.write_mask().count_ones() as usize;
        let vop = self.operand(inst, if structured { 3 } else { 2 })?;
        let mut vals = Vec::with_capacity(4);
        for k in 0..n {
            vals.push(self.src(vop, k, Ty::Int)?);
        }
        let whole = matches!(vals[..], [v] if self.batch_store(w, a, off, v));
        if !whole {
            for j in 0..N {
                self.store_vector(w, a, off, j, &vals);
            }
        }
        (self.consec_base, self.bytes_base) = (None, None);
        Ok(())
    }

    /// Vector `j` of a raw or structured store of `vals` (one per
    /// component, to DWORDs `first + k`). A one-component store whose four
    /// lanes are all active and address consecutive in-bounds DWORDs is one
    /// vector store; anything else runs lane by lane in lane order, each
    /// DWORD bounds-checked and inactive lanes' DWORDs untouched (t#/u#
    /// memory is never read back and rewritten: other threads may own
    /// those words; g# is, below).
    fn store_vector(&mut self, w: Window, a: V, off: Option<V>, j: usize, vals: &[V]) {
        if self.vector_idle(j) {
            return;
        }
        let tier0 = self.slots.is_some() && self.out_of_line(w);
        if let ([one], false) = (vals, tier0) {
            if let Some(u0) = self.splat_dword(w, a, off, j) {
                self.uniform_store(w, (a, off, j), one, u0);
                return;
            }
        }
        let known = match vals {
            [_] if !tier0 => self.static_consecutive(w, a, off, j, 0),
            _ => None,
        };
        let fast = match (vals, known) {
            (_, Some(d0)) => Some((self.b.ins().iconst(types::I8, 1), d0)),
            // Tier 0 (`tier0.rs`) compiles for speed: the out-of-line lanes only.
            _ if tier0 => None,
            ([_], None) => self.same_shape(a, off, w, j, Shape::Consecutive),
            _ => None,
        };
        let Some((consec, d0)) = fast else {
            self.lane_stores(w, a, off, j, vals);
            return;
        };
        let value = vals[0][j];
        // Which lanes write, where the mask is a constant: a part batch's
        // full-mask path (`split.rs`) writes its live lanes alone.
        let lanes = self.known_write_lanes(j);
        let every = self.every_lane_writes() || lanes == Some(0xF);
        let prefix = lanes.and_then(prefix_lanes);
        if every && known.is_some() {
            let p = self.dword_ptr(w.base, d0);
            self.b.ins().store(trusted(), value, p, 0);
            return;
        }
        // The first one or two lanes: their words alone, as a narrow
        // store (no read-back, so u# memory too, which other threads share).
        if let (Some(k), Some(_)) = (prefix, known) {
            let p = self.dword_ptr(w.base, d0);
            self.store_prefix(value, k, p);
            return;
        }
        // Private memory (g#) whose four DWORDs are consecutive and in
        // the window is read back, the writing lanes' words replaced
        // (`bitselect`) and written whole: the idle lanes' words get the
        // bits just read, so the memory ends as lane-by-lane stores leave
        // it, with no branch per lane (a halving tree's last steps, where
        // a batch is partly active).
        let blend = w.private && !every && prefix.is_none() && !super::opt_off("blend");
        let writes = blend.then(|| self.write_lanes(j));
        let put = move |s: &mut Self, p: Value| -> Vec<Value> {
            let new = match (writes, prefix) {
                (_, Some(k)) => {
                    s.store_prefix(value, k, p);
                    return Vec::new();
                }
                (Some(writes), None) => {
                    let old = s.b.ins().load(types::I32X4, trusted(), p, 0);
                    s.b.ins().bitselect(writes, value, old)
                }
                (None, None) => value,
            };
            s.b.ins().store(trusted(), new, p, 0);
            Vec::new()
        };
        if blend && known.is_some() {
            let p = self.dword_ptr(w.base, d0);
            put(self, p);
            return;
        }
        // Otherwise every lane must be active and allowed to write (not a
        // pixel quad's helper lane).
        let ok = if every || blend || prefix.is_some() {
            consec
        } else {
            let writes = self.write_lanes(j);
            let all = self.b.ins().vall_true(writes);
            self.both(consec, all)
        };
        let merge = self.b.create_block();
        let last = if known.is_some() { None } else { Some(3) };
        let slow = self.fast_case(w, ok, d0, last, merge, put);
        self.b.switch_to_block(slow);
        let writes = self.write_lanes(j);
        let bits = self.b.ins().vhigh_bits(types::I32, writes);
        if !every && !blend {
            // Consecutive and in the window, but not every lane writes:
            // each writing lane's DWORD on its own, inline.
            let some = move |s: &mut Self, p: Value| -> Vec<Value> {
                s.writing_lanes(bits, value, p);
                Vec::new()
            };
            if known.is_some() {
                let p = self.dword_ptr(w.base, d0);
                some(self, p);
                self.b.ins().jump(merge, &[]);
                self.b.seal_block(merge);
                self.b.switch_to_block(merge);
                return;
            }
            let rest = self.fast_case(w, consec, d0, last, merge, some);
            self.b.switch_to_block(rest);
        }
        // Every lane at one in-bounds DWORD (`if (tid == 0) out[gid] =`):
        // the last writing lane's value, as lane order leaves it.
        if let Some((same, u0)) = self.same_shape(a, off, w, j, Shape::Uniform) {
            let idle = self.idle_in_vector(j);
            let last_lane = move |s: &mut Self, p: Value| -> Vec<Value> {
                s.last_writing_lane(bits, value, p, idle);
                Vec::new()
            };
            let rest = self.fast_case(w, same, u0, Some(0), merge, last_lane);
            self.b.switch_to_block(rest);
        }
        self.lane_stores(w, a, off, j, vals);
        self.b.ins().jump(merge, &[]);
        self.b.seal_block(merge);
        self.b.switch_to_block(merge);
    }

    /// Vector `j`'s one DWORD (i64) when its lanes' addresses are splats
    /// of scalars (a group-uniform address, `out[gid] = ...`): the same
    /// DWORD in every lane, as the per-lane path computes it
    /// ([`Self::dword_at`]). `None` for any other address.
    fn splat_dword(&mut self, w: Window, a: V, off: Option<V>, j: usize) -> Option<Value> {
        if !fast_path_enabled() {
            return None;
        }
        let x = self.same_scalar(a[j])?;
        let o = match (w.stride, off) {
            (None, None) => None,
            (Some(_), Some(off)) => Some(match self.splats.get(&off[j]) {
                Some(&o) => self.b.ins().iconst(types::I32, i64::from(o)),
                None => self.same_scalar(off[j])?,
            }),
            _ => return None,
        };
        Some(self.dword_at(x, o, w.stride))
    }

    /// The one value of every lane of `v` as a scalar, where its code
    /// shows the lanes equal ([`lanes_equal`]): lane 0 on scalars where
    /// [`Lower::address_lane0_u64`]'s steps reach it, else the extract.
    fn same_scalar(&mut self, v: Value) -> Option<Value> {
        if !lanes_equal(&self.b.func.dfg, v, SAME_DEPTH) {
            return None;
        }
        Some(match self.scalar_lane0(v, SAME_DEPTH) {
            Some(x) => x,
            None => self.b.ins().extractlane(v, 0),
        })
    }

    /// A one-component store of `value` whose lanes all address DWORD
    /// `u0` ([`Self::splat_dword`]): in the window, the last writing
    /// lane's value, as lane order leaves it (nothing when no lane
    /// writes), with no shape test; outside it, the per-lane path.
    fn uniform_store(
        &mut self,
        w: Window,
        (a, off, j): (V, Option<V>, usize),
        vals: &V,
        u0: Value,
    ) {
        let value = vals[j];
        let known = self.known_write_lanes(j);
        if known == Some(0) {
            return;
        }
        let writes = self.write_lanes(j);
        let bits = self.b.ins().vhigh_bits(types::I32, writes);
        let merge = self.b.create_block();
        let yes = self.b.ins().iconst(types::I8, 1);
        let idle = self.idle_in_vector(j);
        let last_lane = move |s: &mut Self, p: Value| -> Vec<Value> {
            match known {
                Some(lanes) => s.known_last_lane(lanes, value, p),
                None => s.last_writing_lane(bits, value, p, idle),
            }
            Vec::new()
        };
        let rest = self.fast_case(w, yes, u0, Some(0), merge, last_lane);
        self.b.switch_to_block(rest);
        self.lane_stores(w, a, off, j, std::slice::from_ref(vals));
        self.b.ins().jump(merge, &[]);
        self.b.seal_block(merge);
        self.b.switch_to_block(merge);
    }

    /// Stores lane `i` of `value` to DWORD `i` from `p` for each lane `i`
    /// whose bit is set in `bits` (a write mask's `vhigh_bits`), one
    /// branch per lane.
    fn writing_lanes(&mut self, bits: Value, value: Value, p: Value) {
        for i in 0..4u8 {
            let on = self.b.ins().band_imm_s(bits, 1 << i);
            let (yes, next) = (self.b.create_block(), self.b.create_block());
            self.b.ins().brif(on, yes, &[], next, &[]);
            self.b.seal_block(yes);
            self.b.seal_block(next);
            self.b.switch_to_block(yes);
            let x = self.b.ins().extractlane(value, i);
            self.b.ins().store(trusted(), x, p, 4 * i32::from(i));
            self.b.ins().jump(next, &[]);
            self.b.switch_to_block(next);
        }
    }

    /// Stores to `p` the lane of `value` that writes last where the
    /// writing lanes are known (`lanes`, 4 bits, not 0): the highest.
    fn known_last_lane(&mut self, lanes: u8, value: Value, p: Value) {
        let last = 7 - lanes.leading_zeros() as u8;
        let x = match self.scalar_lane0(value, 1) {
            // A splat's lanes are its scalar.
            Some(x) if last == 0 || lanes_equal(&self.b.func.dfg, value, 1) => x,
            _ => self.b.ins().extractlane(value, last),
        };
        self.b.ins().store(trusted(), x, p, 0);
    }

    /// Stores to `p` the lane of `value` with the highest bit set in
    /// `bits` (a write mask's `vhigh_bits`), when any is: what four stores
    /// to one DWORD in lane order leave there. The lanes set in `idle`
    /// (4 bits, [`Lower::idle_in_vector`]) never write and are not looked at.
    fn last_writing_lane(&mut self, bits: Value, value: Value, p: Value, idle: u8) {
        let (some, done) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(bits, some, &[], done, &[]);
        self.b.seal_block(some);
        self.b.seal_block(done);
        self.b.switch_to_block(some);
        // Lane 0 of a splat is its scalar, with no extract.
        let mut x = match self.scalar_lane0(value, 1) {
            Some(x) => x,
            None => self.b.ins().extractlane(value, 0),
        };
        // An idle lane never writes (`Lower::idle_lanes`).
        for i in (1..4u8).filter(|i| idle & 1 << i == 0) {
            let on = self.b.ins().band_imm_s(bits, 1 << i);
            let xi = self.b.ins().extractlane(value, i);
            x = self.b.ins().select(on, xi, x);
        }
        self.b.ins().store(trusted(), x, p, 0);
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(done);
    }

    /// Whether every lane of the batch is active and may write here, as
    /// known when compiling: a compute program (no helper lanes) whose
    /// group is a whole number of batches (no padding lanes; `entry_full`)
    /// at a point where `exec` is still the entry's full mask.
    fn every_lane_writes(&self) -> bool {
        self.full_exec && self.entry_full && self.p.version().kind == ProgramKind::Compute
    }

    /// The lanes of vector `j` that write (4 bits), where that is known
    /// when compiling: a compute batch's mask that is a constant (every
    /// lane, none, or a part batch's live lanes, `group.rs`).
    fn known_write_lanes(&mut self, j: usize) -> Option<u8> {
        if self.p.version().kind != ProgramKind::Compute {
            return None;
        }
        let exec = self.use_vars(self.exec)[j];
        match self.splats.get(&exec) {
            Some(&u32::MAX) => return Some(0xF),
            Some(0) => return Some(0),
            Some(_) => return None,
            None => {}
        }
        let dfg = &self.b.func.dfg;
        let inst = dfg.value_def(exec).inst()?;
        let constant_handle = match dfg.insts[inst] {
            InstructionData::UnaryConst {
                opcode: ClifOpcode::Vconst,
                constant_handle,
            } => constant_handle,
            // A splat made before the region (`Lower::vsplat` reuses it).
            InstructionData::Unary {
                opcode: ClifOpcode::Splat,
                arg,
            } => {
                return match self.known(arg)? as u32 {
                    u32::MAX => Some(0xF),
                    0 => Some(0),
                    _ => None,
                }
            }
            _ => return None,
        };
        let bytes = dfg.constants.get(constant_handle).as_slice();
        let mut bits = 0u8;
        for (k, lane) in bytes.chunks_exact(4).enumerate() {
            match lane {
                [0xFF, 0xFF, 0xFF, 0xFF] => bits |= 1 << k,
                [0, 0, 0, 0] => {}
                _ => return None,
            }
        }
        Some(bits)
    }

    /// Stores the first `k` (1 or 2) lanes of `value` at `p`.
    fn store_prefix(&mut self, value: Value, k: u8, p: Value) {
        let word = match k {
            1 => self.b.ins().extractlane(value, 0),
            _ => {
                let pair = self.b.ins().bitcast(types::I64X2, little(), value);
                self.b.ins().extractlane(pair, 0)
            }
        };
        self.b.ins().store(trusted(), word, p, 0);
    }

    /// Vector `j` of the lanes whose stores count: active (`exec`) and
    /// not a pixel quad's helper lane (`uav_lanes`).
    fn write_lanes(&mut self, j: usize) -> Value {
        let exec = self.use_vars(self.exec);
        // Every lane of a compute batch writes (`BatchContext::uav_lanes`).
        if self.p.version().kind == ProgramKind::Compute {
            return exec[j];
        }
        let off_w = OFF_UAV_LANES + 16 * j as i32;
        let writes = self.b.ins().load(types::I32X4, trusted(), self.ctx, off_w);
        self.b.ins().band(exec[j], writes)
    }

    /// The per-lane path of [`Self::store_vector`].
    fn lane_stores(&mut self, w: Window, a: V, off: Option<V>, j: usize, vals: &[V]) {
        if self.out_of_line(w) {
            let ks: Vec<u8> = (0..vals.len() as u8).collect();
            self.lane_call(w, a, off, j, &ks, Some(vals));
            return;
        }
        for i in 0..4 {
            let l = 4 * j + i;
            let base = self.lane_dword(a, off, w.stride, l);
            let active = self.lane_writes(l);
            for (k, v) in vals.iter().enumerate() {
                let d = self.b.ins().iadd_imm_s(base, k as i64);
                let (p, _) = self.store_ptr(w.base, w.dwords, d, active);
                let x = self.lane(*v, l);
                self.b.ins().store(trusted(), x, p, 0);
            }
        }
    }

    /// Whether the per-lane path of an access to `w` is the call to
    /// `lanes::lane_access` (the inline sequence stays for strides the
    /// spec cannot carry and with `SM5JIT_INLINE_LANES=1`).
    fn out_of_line(&self, w: Window) -> bool {
        w.stride.is_none_or(|s| s <= 0xFFF) && !inline_lanes()
    }

    /// The per-lane path of vector `j` as one call: the addresses (and
    /// offsets, write mask and values for a store) go to the context's
    /// lane rows, `lanes::lane_access` does the access, and a load's
    /// values come back from the rows, one `i32x4` per `k` of `ks`.
    fn lane_call(
        &mut self,
        w: Window,
        a: V,
        off: Option<V>,
        j: usize,
        ks: &[u8],
        store: Option<&[V]>,
    ) -> Vec<Value> {
        let row = |r: usize| OFF_LANES + 16 * r as i32;
        self.b
            .ins()
            .store(trusted(), a[j], self.ctx, row(lanes::ROW_ADDR));
        if let Some(off) = off {
            self.b
                .ins()
                .store(trusted(), off[j], self.ctx, row(lanes::ROW_OFFSET));
        }
        if let Some(vals) = store {
            let mask = self.write_lanes(j);
            self.b
                .ins()
                .store(trusted(), mask, self.ctx, row(lanes::ROW_MASK));
            for (i, v) in vals.iter().enumerate() {
                self.b
                    .ins()
                    .store(trusted(), v[j], self.ctx, row(lanes::ROW_VALUES + i));
            }
        }
        let mut ks4 = [0u8; 4];
        ks4[..ks.len()].copy_from_slice(ks);
        let spec = lanes::LaneSpec {
            store: store.is_some(),
            stride: w.stride.unwrap_or(0),
            ks: ks4,
            count: ks.len() as u8,
        };
        let spec = self.b.ins().iconst(types::I32, i64::from(spec.encode()));
        self.preserving_call(lanes::lane_access, w.base, w.dwords, spec);
        if store.is_some() {
            return Vec::new();
        }
        (0..ks.len())
            .map(|i| {
                self.b.ins().load(
                    types::I32X4,
                    trusted(),
                    self.ctx,
                    row(lanes::ROW_VALUES + i),
                )
            })
            .collect()
    }

    fn bufinfo(&mut self, inst: &Instruction) -> Result<(), JitError> {
        let op = self.operand(inst, 1)?;
        let reg = op
            .imm_index(0)
            .ok_or_else(|| self.unsupported_operand("dynamically indexed resource"))?;
        let entry = match op.ty {
            OperandType::Uav => self.plan.uavs.get(&reg),
            OperandType::Resource => self.plan.srvs.get(&reg),
            _ => None,
        };
        let Some(&(idx, _)) = entry else {
            return Err(self.unsupported_operand("bufinfo on an undeclared resource"));
        };
        let n = self.desc_field(idx, RES_BUFINFO, types::I32);
        let v = self.b.ins().splat(types::I32X4, n);
        let dst = self.operand(inst, 0)?;
        self.write(dst, &[Some([v; N]); 4])
    }

    // -----------------------------------------------------------------
    // Typed buffers and textures (through `typed.rs`)
    // -----------------------------------------------------------------

    /// The resource-table index of a t#/u# operand.
    pub(super) fn table_entry(&self, op: &Operand) -> Result<usize, JitError> {
        let reg = op
            .imm_index(0)
            .ok_or_else(|| self.unsupported_operand("dynamically indexed resource"))?;
        let entry = match op.ty {
            OperandType::Uav => self.plan.uavs.get(&reg),
            OperandType::Resource => self.plan.srvs.get(&reg),
            _ => None,
        };
        entry
            .map(|e| e.0)
            .ok_or_else(|| self.unsupported_operand("undeclared resource"))
    }

    /// Calls typed shim `k` for lane `l` with `io[0..8]` = `inputs` lanes;
    /// returns `io[4..8]` afterwards.
    fn typed_call(
        &mut self,
        k: usize,
        entry: usize,
        flag: Value,
        inputs: &[V],
        l: usize,
    ) -> [Value; 4] {
        for (i, v) in inputs.iter().enumerate() {
            let x = self.lane(*v, l);
            self.b
                .ins()
                .store(trusted(), x, self.ctx, OFF_IO + 4 * i as i32);
        }
        let f = self.import(self.typed_fns[k]);
        let env = self
            .b
            .ins()
            .load(types::I64, trusted(), self.ctx, OFF_TYPED);
        let e = self.entry_of(entry);
        let io = self.ptr_at(OFF_IO);
        self.b.ins().call(f, &[env, e, flag, io]);
        std::array::from_fn(|c| {
            self.b
                .ins()
                .load(types::I32, trusted(), self.ctx, OFF_IO + 16 + 4 * c as i32)
        })
    }

    /// Per-lane texels of a typed call, swizzled by `swz` into `mask`.
    fn typed_results(&mut self, texels: &[[Value; 4]], swz: [u8; 4], mask: u8) -> [Option<V>; 4] {
        let mut out: [Option<V>; 4] = [None; 4];
        for c in 0..4 {
            if mask & (1 << c) == 0 {
                continue;
            }
            let lanes: Vec<Value> = texels.iter().map(|t| t[usize::from(swz[c] & 3)]).collect();
            out[c] = Some(self.lanes_to_v(&lanes));
        }
        out
    }

    /// Whether a t#/u# operand names a typed declaration.
    fn is_typed(&self, op: &Operand) -> bool {
        let kind = match op.ty {
            OperandType::Uav => BindingKind::Uav,
            _ => BindingKind::Srv,
        };
        op.imm_index(0)
            .is_some_and(|r| self.plan.typed.contains(&(kind, r)))
    }

    /// The address of lane `l`'s typed atomic (the runtime locates the
    /// 32-bit texel; another size or out of bounds gives 0), redirected to
    /// the sink when out of bounds or inactive; and the in-bounds flag.
    fn typed_atomic_ptr(
        &mut self,
        entry: usize,
        coords: &[V],
        l: usize,
        act: Value,
    ) -> (Value, Value) {
        let zero = self.b.ins().iconst(types::I32, 0);
        self.typed_call(3, entry, zero, coords, l);
        let addr = self
            .b
            .ins()
            .load(types::I64, trusted(), self.ctx, OFF_IO + 16);
        let inb = self.b.ins().icmp_imm_s(IntCC::NotEqual, addr, 0);
        let ok = self.b.ins().band(inb, act);
        let sink = self.ptr_at(OFF_SINK);
        (self.b.ins().select(ok, addr, sink), inb)
    }

    /// ld / ld_uav_typed: the runtime decodes the texel (out of bounds:
    /// the format's default texel, as in the interpreter).
    fn ld_typed(&mut self, inst: &Instruction) -> Result<(), JitError> {
        let res = self.operand(inst, 2)?;
        let entry = self.table_entry(res)?;
        let cop = self.operand(inst, 1)?;
        let mip_flag = i64::from(inst.opcode == Opcode::Ld);
        let dst = self.operand(inst, 0)?;
        let shim = super::typed::typed_load;
        if self.t0_typed(shim, entry, Some(mip_flag as u32), &[cop], Some((dst, res)))? {
            return Ok(());
        }
        let coords: Vec<V> = (0..4)
            .map(|c| self.src(cop, c, Ty::Int))
            .collect::<Result<_, _>>()?;
        let flag = self.b.ins().iconst(types::I32, mip_flag);
        let texels: Vec<[Value; 4]> = (0..W)
            .map(|l| self.typed_call(0, entry, flag, &coords, l))
            .collect();
        let mask = self.operand(inst, 0)?.write_mask();
        let out = self.typed_results(&texels, res.swizzle(), mask);
        let dst = self.operand(inst, 0)?;
        self.write(dst, &out)
    }

    /// store_uav_typed: one runtime call per lane, in lane order; inactive
    /// lanes pass `active = 0` and store nothing.
    fn store_typed(&mut self, inst: &Instruction) -> Result<(), JitError> {
        let res = self.operand(inst, 0)?;
        let entry = self.table_entry(res)?;
        let cop = self.operand(inst, 1)?;
        let vop = self.operand(inst, 2)?;
        if self.t0_typed(super::typed::typed_store, entry, None, &[cop, vop], None)? {
            return Ok(());
        }
        let mut inputs = Vec::with_capacity(8);
        for c in 0..4 {
            inputs.push(self.src(cop, c, Ty::Int)?);
        }
        for c in 0..4 {
            inputs.push(self.src(vop, c, Ty::Int)?);
        }
        for l in 0..W {
            let act = self.lane_writes(l);
            let flag = self.b.ins().uextend(types::I32, act);
            self.typed_call(1, entry, flag, &inputs, l);
        }
        Ok(())
    }

    /// resinfo: the runtime reads the view's size at the lane's mip.
    fn resinfo(&mut self, inst: &Instruction) -> Result<(), JitError> {
        let res = self.operand(inst, 2)?;
        let entry = self.table_entry(res)?;
        let ret = inst.return_type_bits();
        let (mop, dst) = (self.operand(inst, 1)?, self.operand(inst, 0)?);
        let shim = super::typed::typed_resinfo;
        if self.t0_typed(shim, entry, Some(ret), &[mop], Some((dst, res)))? {
            return Ok(());
        }
        let mip = self.src(mop, 0, Ty::Int)?;
        let flag = self.b.ins().iconst(types::I32, i64::from(ret));
        let texels: Vec<[Value; 4]> = (0..W)
            .map(|l| self.typed_call(2, entry, flag, &[mip], l))
            .collect();
        let mask = self.operand(inst, 0)?.write_mask();
        let out = self.typed_results(&texels, res.swizzle(), mask);
        let dst = self.operand(inst, 0)?;
        self.write(dst, &out)
    }

    // -----------------------------------------------------------------
    // cb, icb, x#
    // -----------------------------------------------------------------

    /// Per-lane DWORD indices `row * 4 + comp` (i64) of a relative row.
    fn rows_to_dwords(&mut self, rows: V, comp: usize, scale: i64) -> Vec<Value> {
        (0..W)
            .map(|l| {
                let r = self.lane(rows, l);
                let r = self.b.ins().uextend(types::I64, r);
                let r = self.b.ins().imul_imm_s(r, scale);
                self.b.ins().iadd_imm_s(r, comp as i64)
            })
            .collect()
    }

    /// Loads one DWORD per lane (or one for all lanes) from a window.
    fn gather(&mut self, base: Value, dwords: Value, row: Result<V, u64>, comp: usize) -> V {
        match row {
            Err(r) => {
                let d = r.checked_mul(4).and_then(|x| x.checked_add(comp as u64));
                match d.and_then(|d| i64::try_from(d).ok()) {
                    Some(d) => {
                        let dv = self.b.ins().iconst(types::I64, d);
                        let x = self.load_fixed_dword(base, dwords, dv);
                        let v = self.b.ins().splat(types::I32X4, x);
                        [v; N]
                    }
                    None => self.splat_v(0),
                }
            }
            Ok(rows) => {
                let ds = self.rows_to_dwords(rows, comp, 4);
                let lanes: Vec<Value> = ds
                    .into_iter()
                    .map(|d| self.load_fixed_dword(base, dwords, d))
                    .collect();
                self.lanes_to_v(&lanes)
            }
        }
    }

    pub fn cb_fetch(&mut self, op: &Operand, comp: usize) -> Result<V, JitError> {
        if self.p.version().is_sm51() {
            return self.cb_range_fetch(op, comp);
        }
        let reg = op
            .imm_index(0)
            .ok_or_else(|| self.unsupported_operand("dynamically indexed cb"))?;
        let Some(&idx) = self.plan.cbs.get(&reg) else {
            return Ok(self.splat_v(0));
        };
        let row = match op.indices.get(1) {
            Some(i) => self.index_value(i)?,
            None => Err(0),
        };
        if let Err(r) = row {
            let x = self.cb_literal(idx, r, comp);
            return Ok([self.b.ins().splat(types::I32X4, x); N]);
        }
        let w = self.desc_window(idx, false, None);
        Ok(self.gather(w.base, w.dwords, row, comp))
    }

    /// DWORD `row * 4 + comp` of the cb at table entry `idx`: one load
    /// without a bounds check below the cb's floor (`Plan::cb_floor`:
    /// every binding provides those DWORDs, padded with zeros where it is
    /// shorter), else the checked load; 0 where the DWORD index overflows.
    fn cb_literal(&mut self, idx: usize, row: u64, comp: usize) -> Value {
        let d = row.checked_mul(4).and_then(|x| x.checked_add(comp as u64));
        let Some(d) = d.and_then(|d| i64::try_from(d).ok()) else {
            return self.b.ins().iconst(types::I32, 0);
        };
        let floor = self.plan.cb_floor.get(&idx).copied().unwrap_or(0);
        if d < i64::from(floor) {
            let base = self.desc_field(idx, RES_BASE, types::I64);
            // d < MAX_CB_FLOOR, so the offset fits an i32.
            return self.b.ins().load(types::I32, fixed(), base, (d * 4) as i32);
        }
        let w = self.desc_window(idx, false, None);
        let dv = self.b.ins().iconst(types::I64, d);
        self.load_fixed_dword(w.base, w.dwords, dv)
    }

    /// `cb#[row]` at a literal row, component `comp`, as one scalar (the
    /// lane value of [`Self::cb_fetch`]); 0 where that reads 0.
    pub(super) fn cb_scalar(&mut self, op: &Operand, comp: usize) -> Value {
        let zero = |s: &mut Self| s.b.ins().iconst(types::I32, 0);
        let (Some(reg), Some(row)) = (op.imm_index(0), op.imm_index(1)) else {
            return zero(self);
        };
        let Some(&idx) = self.plan.cbs.get(&reg) else {
            return zero(self);
        };
        self.cb_literal(idx, u64::from(row), comp)
    }

    pub fn icb_fetch(&mut self, op: &Operand, comp: usize) -> Result<V, JitError> {
        let row = match op.indices.first() {
            Some(i) => self.index_value(i)?,
            None => Err(0),
        };
        let icb = &self.p.icb;
        if let Err(r) = row {
            // A literal row is a constant.
            let v = usize::try_from(r)
                .ok()
                .and_then(|r| r.checked_mul(4))
                .and_then(|d| icb.get(d + comp))
                .copied()
                .unwrap_or(0);
            return Ok(self.splat_v(v));
        }
        // The ICB lives in the compiled shader's `Prepared`, which outlives
        // the code; its address is a constant.
        let base = self.b.ins().iconst(types::I64, icb.as_ptr() as i64);
        let dwords = self.b.ins().iconst(types::I64, icb.len() as i64);
        Ok(self.gather(base, dwords, row, comp))
    }

    /// x# register `op`: (first element, element count, element index).
    fn x_place(&mut self, op: &Operand) -> Result<Option<XPlace>, JitError> {
        let reg = op
            .imm_index(0)
            .ok_or_else(|| self.unsupported_operand("relative x# register"))?;
        let Some(&(first, len)) = self.plan.xregs.get(&reg) else {
            return Ok(None);
        };
        let e = match op.indices.get(1) {
            Some(i) => self.index_value(i)?,
            None => Err(0),
        };
        Ok(Some((first, len, e)))
    }

    /// Byte offset of (element, component) in the batch's x# block.
    fn x_offset(first: u32, e: u64, comp: usize) -> i64 {
        ((i64::from(first) + e as i64) * 4 + comp as i64) * (W as i64) * 4
    }

    pub fn x_fetch(&mut self, op: &Operand, comp: usize) -> Result<V, JitError> {
        let Some((first, len, e)) = self.x_place(op)? else {
            return Ok(self.splat_v(0));
        };
        let xb = self
            .b
            .ins()
            .load(types::I64, trusted(), self.ctx, OFF_XREGS);
        match e {
            Err(e) if e >= u64::from(len) => Ok(self.splat_v(0)),
            Err(e) => {
                let off = Self::x_offset(first, e, comp);
                Ok(std::array::from_fn(|j| {
                    self.b
                        .ins()
                        .load(types::I32X4, trusted(), xb, (off + 16 * j as i64) as i32)
                }))
            }
            Ok(es) => {
                let lanes: Vec<Value> = (0..W)
                    .map(|l| {
                        let (p, inb) = self.x_lane_ptr(xb, first, len, es, comp, l);
                        let zero = self.ptr_at(OFF_ZERO);
                        let p = self.b.ins().select(inb, p, zero);
                        self.b.ins().load(types::I32, trusted(), p, 0)
                    })
                    .collect();
                Ok(self.lanes_to_v(&lanes))
            }
        }
    }

    /// Address of lane `l`'s (element, comp) for a per-lane element index,
    /// and whether the element is in range.
    fn x_lane_ptr(
        &mut self,
        xb: Value,
        first: u32,
        len: u32,
        es: V,
        comp: usize,
        l: usize,
    ) -> (Value, Value) {
        let e = self.lane(es, l);
        let e = self.b.ins().uextend(types::I64, e);
        let inb = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedLessThan, e, i64::from(len));
        let idx = self.b.ins().iadd_imm_s(e, i64::from(first));
        let idx = self.b.ins().imul_imm_s(idx, 4 * W as i64 * 4);
        let off = (comp * W + l) as i64 * 4;
        let idx = self.b.ins().iadd_imm_s(idx, off);
        (self.b.ins().iadd(xb, idx), inb)
    }

    pub fn x_write(&mut self, op: &Operand, vals: &[Option<V>; 4]) -> Result<(), JitError> {
        let Some((first, len, e)) = self.x_place(op)? else {
            return Ok(());
        };
        let mask = op.write_mask();
        let xb = self
            .b
            .ins()
            .load(types::I64, trusted(), self.ctx, OFF_XREGS);
        let exec = self.use_vars(self.exec);
        for (c, val) in vals.iter().enumerate() {
            let Some(v) = val.filter(|_| mask & (1 << c) != 0) else {
                continue;
            };
            match e {
                Err(e) if e >= u64::from(len) => {}
                Err(e) => {
                    let off = Self::x_offset(first, e, c);
                    for j in 0..N {
                        let o = (off + 16 * j as i64) as i32;
                        let old = self.b.ins().load(types::I32X4, trusted(), xb, o);
                        let new = self.b.ins().bitselect(exec[j], v[j], old);
                        self.b.ins().store(trusted(), new, xb, o);
                    }
                }
                Ok(es) => {
                    for l in 0..W {
                        let (p, inb) = self.x_lane_ptr(xb, first, len, es, c, l);
                        let act = self.lane_active(l);
                        let ok = self.b.ins().band(inb, act);
                        let sink = self.ptr_at(OFF_SINK);
                        let p = self.b.ins().select(ok, p, sink);
                        let x = self.lane(v, l);
                        self.b.ins().store(trusted(), x, p, 0);
                    }
                }
            }
        }
        Ok(())
    }

    // -----------------------------------------------------------------
    // Atomics and counters
    // -----------------------------------------------------------------

    pub fn atomic(&mut self, op: AtomicInst, inst: &Instruction) -> Result<(), JitError> {
        use AtomicInst::*;
        match op {
            ImmAtomicAlloc => self.counter(inst, 1),
            ImmAtomicConsume => self.counter(inst, -1),
            AtomicAnd | AtomicOr | AtomicXor | AtomicCmpStore | AtomicIAdd | AtomicIMax
            | AtomicIMin | AtomicUMax | AtomicUMin | ImmAtomicIAdd | ImmAtomicAnd | ImmAtomicOr
            | ImmAtomicXor | ImmAtomicExch | ImmAtomicCmpExch | ImmAtomicIMax | ImmAtomicIMin
            | ImmAtomicUMax | ImmAtomicUMin => match op.opcode().atomic() {
                // The table gives every memory atomic its operation (Form::Atomic).
                Some(kind) => self.rmw(inst, kind.op, kind.returns_old),
                None => Err(self.unsupported(inst.opcode)),
            },
        }
    }

    /// Semantics: `sem::atomic::counter_alloc` returns the old counter,
    /// `counter_consume` the new one; no counter → 0 and nothing changes.
    fn counter(&mut self, inst: &Instruction, delta: i64) -> Result<(), JitError> {
        if self.t0_atomic(inst, None, delta > 0, true)? {
            return Ok(());
        }
        let op = self.operand(inst, 1)?;
        let reg = op
            .imm_index(0)
            .ok_or_else(|| self.unsupported_operand("dynamically indexed resource"))?;
        let Some(&(idx, _)) = self
            .plan
            .uavs
            .get(&reg)
            .filter(|_| op.ty == OperandType::Uav)
        else {
            return Err(self.unsupported_operand("counter on an undeclared u#"));
        };
        let counter = self.desc_field(idx, RES_COUNTER, types::I64);
        let has = self.b.ins().icmp_imm_s(IntCC::NotEqual, counter, 0);
        let d = self.b.ins().iconst(types::I32, delta);
        let zero = self.b.ins().iconst(types::I32, 0);
        let mut lanes = Vec::with_capacity(W);
        for l in 0..W {
            let act = self.lane_writes(l);
            let ok = self.b.ins().band(act, has);
            let sink = self.ptr_at(OFF_SINK);
            let p = self.b.ins().select(ok, counter, sink);
            let old = self
                .b
                .ins()
                .atomic_rmw(types::I32, trusted(), AtomicRmwOp::Add, p, d);
            let r = if delta > 0 {
                old
            } else {
                self.b.ins().iadd(old, d)
            };
            // A lane that does not write (helper, inactive) gets 0.
            lanes.push(self.b.ins().select(ok, r, zero));
        }
        let v = self.lanes_to_v(&lanes);
        let dst = self.operand(inst, 0)?;
        self.write(dst, &[Some(v); 4])
    }

    /// atomic_* / imm_atomic_*: one real atomic per active lane, in lane
    /// order, computing `sem::atomic::combine` (the native RMW where one
    /// exists, a compare-exchange for cmp_store/cmp_exch).
    fn rmw(
        &mut self,
        inst: &Instruction,
        aop: AtomicOp,
        returns_old: bool,
    ) -> Result<(), JitError> {
        if self.t0_atomic(inst, Some(aop), false, returns_old)? {
            return Ok(());
        }
        let m = usize::from(returns_old);
        let mem = self.operand(inst, m)?;
        let typed_entry = match mem.ty {
            OperandType::Uav if self.is_typed(mem) => Some(self.table_entry(mem)?),
            _ => None,
        };
        let w = match typed_entry {
            Some(_) => None,
            None => Some(self.window(mem)?),
        };
        if w.is_some_and(|w| !w.writable) {
            return Err(self.unsupported_operand("atomic on a t# register"));
        }
        let addr_op = self.operand(inst, m + 1)?;
        let coords: Vec<V> = (0..4)
            .map(|c| self.src(addr_op, c, Ty::Int))
            .collect::<Result<_, _>>()?;
        let (a0, a1) = (coords[0], coords[1]);
        let (cmp, v) = if aop == AtomicOp::CmpExch {
            let c = self.src(self.operand(inst, m + 2)?, 0, Ty::Int)?;
            (Some(c), self.src(self.operand(inst, m + 3)?, 0, Ty::Int)?)
        } else {
            (None, self.src(self.operand(inst, m + 2)?, 0, Ty::Int)?)
        };
        let zero = self.b.ins().iconst(types::I32, 0);
        let mut lanes = Vec::with_capacity(W);
        for l in 0..W {
            let act = self.lane_writes(l);
            let (p, inb) = match (w, typed_entry) {
                (Some(w), _) => {
                    let x = self.lane(a0, l);
                    let x = self.b.ins().uextend(types::I64, x);
                    let flat = match w.stride {
                        Some(s) => {
                            let o = self.lane(a1, l);
                            let o = self.b.ins().uextend(types::I64, o);
                            let mm = self.b.ins().imul_imm_s(x, i64::from(s));
                            self.b.ins().iadd(mm, o)
                        }
                        None => x,
                    };
                    let d = self.b.ins().ushr_imm_s(flat, 2);
                    self.store_ptr(w.base, w.dwords, d, act)
                }
                (None, Some(entry)) => self.typed_atomic_ptr(entry, &coords, l, act),
                (None, None) => return Err(self.unsupported_operand("atomic target")),
            };
            let val = self.lane(v, l);
            let old = match (aop, cmp) {
                (AtomicOp::CmpExch, Some(c)) => {
                    let c = self.lane(c, l);
                    self.b.ins().atomic_cas(trusted(), p, c, val)
                }
                _ => {
                    let op = rmw_op(aop);
                    self.b.ins().atomic_rmw(types::I32, trusted(), op, p, val)
                }
            };
            // A lane that does not write (helper, inactive) gets 0.
            let ok = self.b.ins().band(inb, act);
            lanes.push(self.b.ins().select(ok, old, zero));
        }
        if returns_old {
            let r = self.lanes_to_v(&lanes);
            let dst = self.operand(inst, 0)?;
            self.write(dst, &[Some(r); 4])?;
        }
        Ok(())
    }
}

/// How the four lanes of a vector address memory, for the fast paths.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// DWORDs `d0, d0 + 1, d0 + 2, d0 + 3`.
    Consecutive,
    /// DWORD `d0` in every lane.
    Uniform,
}

/// Whether the contiguous fast path is compiled in: on unless the
/// environment sets `SM5JIT_NO_FAST_PATH=1` (for measuring its effect).
fn fast_path_enabled() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var("SM5JIT_NO_FAST_PATH").map_or(true, |v| v != "1"))
}

/// Whether `SM5JIT_INLINE_LANES=1` asks for the inline per-lane path (to
/// measure the out-of-line one).
fn inline_lanes() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var("SM5JIT_INLINE_LANES").is_ok_and(|v| v == "1"))
}

fn rmw_op(op: AtomicOp) -> AtomicRmwOp {
    match op {
        AtomicOp::And => AtomicRmwOp::And,
        AtomicOp::Or => AtomicRmwOp::Or,
        AtomicOp::Xor => AtomicRmwOp::Xor,
        AtomicOp::IAdd => AtomicRmwOp::Add,
        AtomicOp::IMax => AtomicRmwOp::Smax,
        AtomicOp::IMin => AtomicRmwOp::Smin,
        AtomicOp::UMax => AtomicRmwOp::Umax,
        AtomicOp::UMin => AtomicRmwOp::Umin,
        AtomicOp::Exch | AtomicOp::CmpExch => AtomicRmwOp::Xchg,
    }
}

/// How deep [`lanes_equal`] follows an address's lane-wise steps.
const SAME_DEPTH: u32 = 4;

/// Whether every lane of the `i32x4` `v` holds the same bits, as its code
/// shows: a splat, or a lane-wise integer operation (a shift by a scalar
/// amount) of such values, at most `depth` steps deep.
fn lanes_equal(dfg: &cranelift_codegen::ir::DataFlowGraph, v: Value, depth: u32) -> bool {
    let v = dfg.resolve_aliases(v);
    if depth == 0 || dfg.value_type(v) != types::I32X4 {
        return false;
    }
    let Some(inst) = dfg.value_def(v).inst() else {
        return false;
    };
    use ClifOpcode::*;
    match dfg.insts[inst] {
        InstructionData::Unary { opcode: Splat, .. } => true,
        InstructionData::Binary {
            opcode: Ishl | Ushr | Sshr,
            args: [a, amount],
        } => !dfg.value_type(amount).is_vector() && lanes_equal(dfg, a, depth - 1),
        InstructionData::Binary {
            opcode: Iadd | Isub | Imul | Band | Bor | Bxor,
            args: [a, b],
        } => lanes_equal(dfg, a, depth - 1) && lanes_equal(dfg, b, depth - 1),
        _ => false,
    }
}

/// The number of lanes of a write mask (4 bits) that is a prefix of one
/// or two lanes.
fn prefix_lanes(bits: u8) -> Option<u8> {
    match bits {
        0b0001 => Some(1),
        0b0011 => Some(2),
        _ => None,
    }
}
