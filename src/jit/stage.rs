//! Vertex and pixel programs in the JIT: `v#` inputs, `o#` outputs,
//! `discard` and the quad derivatives.
//!
//! In: the prepared program's `io_regs` and its graphics instructions.
//! Out: code that loads every `v#` component of the batch from the
//! context's input area at entry (`[register][component][lane]` DWORDs),
//! keeps `v#` and `o#` in batch variables like `r#`, and stores `o#` and
//! the discarded-lane mask back to the context when the batch ends.
//! Invariants: `o#` writes go through `exec` like every register write;
//! `discard` turns the lanes into helpers: they keep running under `exec`
//! (so their registers evolve for the neighbours' derivatives) while their
//! `uav_lanes` entries are cleared, so no store or atomic of theirs counts
//! after it, and the batch reports them as discarded; a
//! derivative reads its source in all four lanes of each quad (vector `j`
//! of a batch value is quad `j`) whether or not they are active, and
//! subtracts the lanes [`crate::sem::quad::lanes`] names with the rules
//! of `sem::float::add`. The special pixel registers (`vCoverage`,
//! `vInnerCoverage`, `oDepth`, `oDepthGE`/`LE`, `oMask`, `oStencilRef`)
//! are components of the prepared program's special register, loaded and
//! stored with the others ([`crate::runtime::batch::special_component`]).
//! Relative `v#`/`o#` indices are not lowered.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, Value};
use cranelift_frontend::Variable;

use super::context::{N, OFF_DISCARDED, OFF_INPUTS, OFF_OUTPUTS, OFF_UAV_LANES, W};
use super::lower::{fixed, trusted, Lower, Ty, V};
use super::JitError;
use crate::ir::{GraphicsInst, Instruction, Operand, ProgramKind};
use crate::runtime::batch::special_component;
use crate::sem::quad::{lanes, Deriv};

/// The batch variables of a vertex or pixel program.
#[derive(Default)]
pub struct StageVars {
    /// v#: `[register][component]`.
    pub inputs: Vec<[[Variable; N]; 4]>,
    /// o#: `[register][component]`.
    pub outputs: Vec<[[Variable; N]; 4]>,
    /// Lanes that executed `discard`.
    pub killed: Option<[Variable; N]>,
}

/// DWORD offset of (register, component, first lane of vector `j`) in the
/// context's input or output area.
fn io_offset(r: usize, c: usize, j: usize) -> i32 {
    (((r * 4 + c) * W + 4 * j) * 4) as i32
}

impl Lower<'_, '_> {
    fn is_stage(&self) -> bool {
        matches!(
            self.p.version().kind,
            ProgramKind::Pixel | ProgramKind::Vertex
        )
    }

    /// At the function's entry: loads v#, zeroes o# and the discard mask.
    pub fn stage_init(&mut self) {
        if !self.is_stage() {
            return;
        }
        let regs = self.p.io_regs as usize;
        let base = self
            .b
            .ins()
            .load(types::I64, trusted(), self.ctx, OFF_INPUTS);
        let zero = self.splat_v(0);
        for r in 0..regs {
            let input: [[Variable; N]; 4] = std::array::from_fn(|_| self.new_vars());
            let output: [[Variable; N]; 4] = std::array::from_fn(|_| self.new_vars());
            for c in 0..4 {
                // The input area does not change during the call (`fixed`):
                // loads of components the program never reads are dropped.
                let vals: V = std::array::from_fn(|j| {
                    self.b
                        .ins()
                        .load(types::I32X4, fixed(), base, io_offset(r, c, j))
                });
                self.def_vars(input[c], vals);
                self.def_vars(output[c], zero);
            }
            self.stage.inputs.push(input);
            self.stage.outputs.push(output);
        }
        let killed = self.new_vars();
        self.def_vars(killed, zero);
        self.stage.killed = Some(killed);
    }

    /// Where the batch ends: stores o# and the discarded lanes.
    pub fn stage_finish(&mut self) {
        if !self.is_stage() {
            return;
        }
        let base = self
            .b
            .ins()
            .load(types::I64, trusted(), self.ctx, OFF_OUTPUTS);
        for r in 0..self.stage.outputs.len() {
            for c in 0..4 {
                let vals = self.use_vars(self.stage.outputs[r][c]);
                for (j, v) in vals.iter().enumerate() {
                    self.b.ins().store(trusted(), *v, base, io_offset(r, c, j));
                }
            }
        }
        if let Some(k) = self.stage.killed {
            let vals = self.use_vars(k);
            for (j, v) in vals.iter().enumerate() {
                self.b
                    .ins()
                    .store(trusted(), *v, self.ctx, OFF_DISCARDED + 16 * j as i32);
            }
        }
    }

    fn io_reg(&self, op: &Operand, what: &str) -> Result<usize, JitError> {
        op.imm_index(0)
            .map(|r| r as usize)
            .ok_or_else(|| self.unsupported_operand(format!("relative {what} index")))
    }

    /// Component `comp` of a v# (`input`) or o# operand; 0 past the registers.
    pub fn io_fetch(&mut self, op: &Operand, comp: usize, input: bool) -> Result<V, JitError> {
        let r = self.io_reg(op, if input { "v#" } else { "o#" })?;
        let regs = if input {
            &self.stage.inputs
        } else {
            &self.stage.outputs
        };
        match regs.get(r) {
            Some(reg) => {
                let vars = reg[comp & 3];
                Ok(self.use_vars(vars))
            }
            None => Ok(self.splat_v(0)),
        }
    }

    /// A special pixel input (`vCoverage`, `vInnerCoverage`) in every
    /// component; 0 when the program has no special register.
    pub fn special_fetch(&mut self, op: &Operand) -> Result<V, JitError> {
        let at = self.p.special_reg.zip(special_component(op.ty));
        match at.and_then(|(r, c)| self.stage.inputs.get(r as usize).map(|reg| reg[c])) {
            Some(vars) => Ok(self.use_vars(vars)),
            None => Ok(self.splat_v(0)),
        }
    }

    /// Writes the x value of a special pixel output (`oDepth`, `oMask`,
    /// ...) into its component of the special register, under `exec`.
    pub fn special_write(&mut self, op: &Operand, vals: &[Option<V>; 4]) -> Result<(), JitError> {
        let at = self.p.special_reg.zip(special_component(op.ty));
        let Some(vars) = at.and_then(|(r, c)| self.stage.outputs.get(r as usize).map(|reg| reg[c]))
        else {
            return Ok(());
        };
        let Some(v) = vals[0].filter(|_| op.write_mask() & 1 != 0) else {
            return Ok(());
        };
        let exec = self.use_vars(self.exec);
        let old = self.use_vars(vars);
        let new = self.map3(exec, v, old, |s, m, n, o| s.b.ins().bitselect(m, n, o));
        self.def_vars(vars, new);
        Ok(())
    }

    /// Writes the masked components of an o# operand under `exec`.
    pub fn output_write(&mut self, op: &Operand, vals: &[Option<V>; 4]) -> Result<(), JitError> {
        let r = self.io_reg(op, "o#")?;
        let Some(reg) = self.stage.outputs.get(r).copied() else {
            return Ok(());
        };
        let mask = op.write_mask();
        let exec = self.use_vars(self.exec);
        for c in 0..4 {
            let Some(v) = vals[c].filter(|_| mask & (1 << c) != 0) else {
                continue;
            };
            let old = self.use_vars(reg[c]);
            let new = self.map3(exec, v, old, |s, m, n, o| s.b.ins().bitselect(m, n, o));
            self.def_vars(reg[c], new);
        }
        Ok(())
    }

    /// Graphics-class instructions: `discard` and the derivatives (the
    /// table's `Form::Deriv` names the lanes); the rest are not lowered.
    pub fn stage_inst(&mut self, op: GraphicsInst, inst: &Instruction) -> Result<(), JitError> {
        use GraphicsInst::*;
        match op {
            DerivRtx | DerivRty | DerivRtxCoarse | DerivRtxFine | DerivRtyCoarse | DerivRtyFine => {
                match inst.opcode.deriv() {
                    Some(kind) => self.deriv(inst, kind),
                    None => Err(self.unsupported(inst.opcode)),
                }
            }
            Discard if self.stage.killed.is_some() => self.discard(inst),
            // discard outside a pixel stage; geometry, hull and
            // interpolation instructions: no such stages in the JIT.
            Discard | Cut | Emit | EmitThenCut | EmitStream | CutStream | EmitThenCutStream
            | HsDecls | HsControlPointPhase | HsForkPhase | HsJoinPhase | EvalSnapped
            | EvalSampleIndex | EvalCentroid => Err(self.unsupported(inst.opcode)),
        }
    }

    fn discard(&mut self, inst: &Instruction) -> Result<(), JitError> {
        let op = self.operand(inst, 0)?;
        let v = self.scalar_src(op)?;
        let zero = self.vsplat(0);
        let cc = if inst.test_nz() {
            IntCC::NotEqual
        } else {
            IntCC::Equal
        };
        let cond = self.map1(v, |s, x| s.b.ins().icmp(cc, x, zero));
        let exec = self.use_vars(self.exec);
        let leaving = self.and_v(exec, cond);
        // The lanes become helpers: they stay in `exec` (their neighbours'
        // derivatives read their registers) but their memory writes stop
        // counting, as a partial quad's helpers' do (`uav_lanes`).
        for (j, l) in leaving.iter().enumerate() {
            let off = OFF_UAV_LANES + 16 * j as i32;
            let w = self.b.ins().load(types::I32X4, trusted(), self.ctx, off);
            let w = self.b.ins().band_not(w, *l);
            self.b.ins().store(trusted(), w, self.ctx, off);
        }
        if let Some(k) = self.stage.killed {
            let cur = self.use_vars(k);
            let new = self.or_v(cur, leaving);
            self.def_vars(k, new);
        }
        Ok(())
    }

    /// `deriv_rt{x,y}[_coarse|_fine] dst, src` over each quad.
    fn deriv(&mut self, inst: &Instruction, kind: Deriv) -> Result<(), JitError> {
        let dst = self.operand(inst, 0)?;
        let src = self.operand(inst, 1)?;
        let mask = dst.write_mask();
        let pairs = lanes(kind);
        let mut vals: [Option<V>; 4] = [None; 4];
        for (c, slot) in vals.iter_mut().enumerate() {
            if mask & (1 << c) == 0 {
                continue;
            }
            let v = self.src(src, c, Ty::Float)?;
            let mut out = v;
            for (j, o) in out.iter_mut().enumerate() {
                let hi = self.gather4(v[j], pairs.map(|p| p.0));
                let lo = self.gather4(v[j], pairs.map(|p| p.1));
                let sign = self.vsplat(0x8000_0000);
                let neg = self.b.ins().bxor(lo, sign);
                let d = self.fadd(hi, neg);
                *o = if inst.saturate() { self.sat(d) } else { d };
            }
            *slot = Some(out);
        }
        self.write(dst, &vals)
    }

    /// A vector whose lane `k` is lane `from[k]` of `v`.
    fn gather4(&mut self, v: Value, from: [usize; 4]) -> Value {
        let first = self.b.ins().extractlane(v, from[0] as u8);
        let mut out = self.b.ins().splat(types::I32X4, first);
        for (k, &f) in from.iter().enumerate().skip(1) {
            if f != from[0] {
                let x = self.b.ins().extractlane(v, f as u8);
                out = self.b.ins().insertlane(out, x, k as u8);
            }
        }
        out
    }
}
