//! Double-precision instructions: routing in generated code, arithmetic in
//! [`crate::sem::double`] through one shim.
//!
//! In: a double-class instruction. Out: its destination written as the
//! interpreter writes it: doubles as (low, high) DWORD pairs in `.xy` and
//! `.zw`, comparisons and narrowing conversions packed into the mask's
//! components in order, widening conversions into `.xy` or `.zw`.
//! Invariant: every double value is computed by the `sem::double`
//! function the interpreter calls ([`double_op`], one call per lane and
//! pair); only moves and `dmovc` selects are done inline.

use cranelift_codegen::ir::{types, InstBuilder, Value};

use super::context::{N, OFF_IO, W};
use super::lower::{trusted, Lower, Ty, V};
use super::JitError;
use crate::ir::{DoubleInst, Instruction, Opcode};
use crate::sem::double as d;

/// The double operation codes [`double_op`] understands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum DOp {
    Add,
    Mul,
    Div,
    Min,
    Max,
    Fma,
    Rcp,
    Sat,
    Eq,
    Ne,
    Lt,
    Ge,
    Dtof,
    Dtoi,
    Dtou,
    Ftod,
    Itod,
    Utod,
}

const OPS: [DOp; 18] = [
    DOp::Add,
    DOp::Mul,
    DOp::Div,
    DOp::Min,
    DOp::Max,
    DOp::Fma,
    DOp::Rcp,
    DOp::Sat,
    DOp::Eq,
    DOp::Ne,
    DOp::Lt,
    DOp::Ge,
    DOp::Dtof,
    DOp::Dtoi,
    DOp::Dtou,
    DOp::Ftod,
    DOp::Itod,
    DOp::Utod,
];

/// One lane's double op: `io[0..6]` = up to three (low, high) operands
/// (widening ops read `io[0]`), `sat` applies `dsat` to a double result;
/// the result goes to `io[6..8]` (a narrow result in `io[6]`).
///
/// # Safety
/// `io` points to 8 writable DWORDs (the batch context's io area).
pub unsafe extern "C" fn double_op(op: u32, sat: u32, io: *mut u32) {
    // SAFETY: the caller passes the context's 8-DWORD io area.
    let io = unsafe { std::slice::from_raw_parts_mut(io, 8) };
    let a = d::unpack(io[0], io[1]);
    let b = d::unpack(io[2], io[3]);
    let c = d::unpack(io[4], io[5]);
    let Some(&op) = OPS.get(op as usize) else {
        return;
    };
    let wide = |x: f64| if sat != 0 { d::dsat(x) } else { x };
    let (lo, hi) = match op {
        DOp::Add => d::pack(wide(d::dadd(a, b))),
        DOp::Mul => d::pack(wide(d::dmul(a, b))),
        DOp::Div => d::pack(wide(d::ddiv(a, b))),
        DOp::Min => d::pack(wide(d::dmin(a, b))),
        DOp::Max => d::pack(wide(d::dmax(a, b))),
        DOp::Fma => d::pack(wide(d::dfma(a, b, c))),
        DOp::Rcp => d::pack(wide(d::drcp(a))),
        DOp::Sat => d::pack(d::dsat(a)),
        DOp::Eq => (d::deq(a, b), 0),
        DOp::Ne => (d::dne(a, b), 0),
        DOp::Lt => (d::dlt(a, b), 0),
        DOp::Ge => (d::dge(a, b), 0),
        DOp::Dtof => (d::dtof(a).to_bits(), 0),
        DOp::Dtoi => (d::dtoi(a) as u32, 0),
        DOp::Dtou => (d::dtou(a), 0),
        DOp::Ftod => d::pack(d::ftod(f32::from_bits(io[0]))),
        DOp::Itod => d::pack(d::itod(io[0] as i32)),
        DOp::Utod => d::pack(d::utod(io[0])),
    };
    io[6] = lo;
    io[7] = hi;
}

/// How a double instruction's results are laid out in its destination.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// Two doubles in `.xy`, `.zw`.
    Wide,
    /// Two 32-bit results packed into the mask's components in order.
    Narrow,
    /// One source pair of 32-bit values widened to two doubles.
    Widen,
}

impl Lower<'_, '_> {
    /// Calls [`double_op`] for one lane with `args` (lane values) in io.
    fn dcall(&mut self, op: DOp, sat: bool, args: &[V], l: usize) -> (Value, Value) {
        for (i, v) in args.iter().enumerate() {
            let x = self.b.ins().extractlane(v[l / 4], (l % 4) as u8);
            self.b
                .ins()
                .store(trusted(), x, self.ctx, OFF_IO + 4 * i as i32);
        }
        let f = self.import(self.double_fn);
        let opv = self.b.ins().iconst(types::I32, op as i64);
        let satv = self.b.ins().iconst(types::I32, i64::from(sat));
        let io = self.b.ins().iadd_imm_s(self.ctx, i64::from(OFF_IO));
        self.b.ins().call(f, &[opv, satv, io]);
        let lo = self
            .b
            .ins()
            .load(types::I32, trusted(), self.ctx, OFF_IO + 24);
        let hi = self
            .b
            .ins()
            .load(types::I32, trusted(), self.ctx, OFF_IO + 28);
        (lo, hi)
    }

    /// Runs `op` on source pairs `p` (0 = .xy, 1 = .zw) of operands
    /// `srcs`; returns (low, high) results as batch values.
    fn dpair(
        &mut self,
        op: DOp,
        sat: bool,
        inst: &Instruction,
        srcs: &[usize],
        p: usize,
        ty: Ty,
    ) -> Result<(V, V), JitError> {
        let mut args = Vec::new();
        for &k in srcs {
            let o = self.operand(inst, k)?;
            if ty == Ty::Double {
                args.push(self.src(o, 2 * p, Ty::Double)?);
                args.push(self.src(o, 2 * p + 1, Ty::Double)?);
            } else {
                args.push(self.src(o, p, ty)?);
            }
        }
        let zero = self.vsplat(0);
        let (mut lo, mut hi) = ([zero; N], [zero; N]);
        for l in 0..W {
            let (a, b) = self.dcall(op, sat, &args, l);
            lo[l / 4] = self.b.ins().insertlane(lo[l / 4], a, (l % 4) as u8);
            hi[l / 4] = self.b.ins().insertlane(hi[l / 4], b, (l % 4) as u8);
        }
        Ok((lo, hi))
    }

    /// A double op with `srcs` source operands and result `shape`.
    fn dgeneric(
        &mut self,
        inst: &Instruction,
        op: DOp,
        srcs: &[usize],
        shape: Shape,
    ) -> Result<(), JitError> {
        let dst = self.operand(inst, 0)?;
        let mask = dst.write_mask();
        let sat = inst.saturate();
        let out: [Option<V>; 4] = match shape {
            Shape::Wide => {
                let (a_lo, a_hi) = self.dpair(op, sat, inst, srcs, 0, Ty::Double)?;
                let (b_lo, b_hi) = if mask & 0xC != 0 {
                    self.dpair(op, sat, inst, srcs, 1, Ty::Double)?
                } else {
                    (a_lo, a_hi)
                };
                [Some(a_lo), Some(a_hi), Some(b_lo), Some(b_hi)]
            }
            Shape::Widen => {
                let ty = if op == DOp::Ftod { Ty::Float } else { Ty::Int };
                let (lo, hi) = self.dpair(op, false, inst, srcs, 0, ty)?;
                let (lo2, hi2) = self.dpair(op, false, inst, srcs, 1, ty)?;
                if mask & 0x3 != 0 {
                    [Some(lo), Some(hi), Some(lo2), Some(hi2)]
                } else {
                    [None, None, Some(lo), Some(hi)]
                }
            }
            Shape::Narrow => {
                let (r0, _) = self.dpair(op, false, inst, srcs, 0, Ty::Double)?;
                let (r1, _) = self.dpair(op, false, inst, srcs, 1, Ty::Double)?;
                // Float `_sat` applies to dtof's 32-bit result.
                let fsat = sat && op == DOp::Dtof;
                let (r0, r1) = if fsat {
                    (
                        self.map1(r0, |s, v| s.sat(v)),
                        self.map1(r1, |s, v| s.sat(v)),
                    )
                } else {
                    (r0, r1)
                };
                let mut out: [Option<V>; 4] = [None; 4];
                let mut next = 0;
                for (c, o) in out.iter_mut().enumerate() {
                    if mask & (1 << c) != 0 {
                        *o = Some(if next == 0 { r0 } else { r1 });
                        next += 1;
                    }
                }
                out
            }
        };
        self.write(dst, &out)
    }

    /// dmov / dmovc: inline selects; `_sat` goes through `dsat`.
    fn dmove(&mut self, inst: &Instruction) -> Result<(), JitError> {
        let movc = inst.opcode == Opcode::DMovc;
        let first = if movc { 2 } else { 1 };
        let a = self.operand(inst, first)?;
        let mut v: Vec<V> = (0..4)
            .map(|c| self.src(a, c, Ty::Double))
            .collect::<Result<_, _>>()?;
        if movc {
            let cond = self.operand(inst, 1)?;
            let b = self.operand(inst, 3)?;
            for (c, slot) in v.iter_mut().enumerate() {
                let k = self.src(cond, c / 2, Ty::Int)?;
                let y = self.src(b, c, Ty::Double)?;
                let zero = self.vsplat(0);
                *slot = self.map3(k, *slot, y, |s, k, x, y| {
                    let z =
                        s.b.ins()
                            .icmp(cranelift_codegen::ir::condcodes::IntCC::Equal, k, zero);
                    s.b.ins().bitselect(z, y, x)
                });
            }
        }
        if inst.saturate() {
            for p in 0..2 {
                let args = [v[2 * p], v[2 * p + 1]];
                let zero = self.vsplat(0);
                let (mut lo, mut hi) = ([zero; N], [zero; N]);
                for l in 0..W {
                    let (x, y) = self.dcall(DOp::Sat, false, &args, l);
                    lo[l / 4] = self.b.ins().insertlane(lo[l / 4], x, (l % 4) as u8);
                    hi[l / 4] = self.b.ins().insertlane(hi[l / 4], y, (l % 4) as u8);
                }
                v[2 * p] = lo;
                v[2 * p + 1] = hi;
            }
        }
        let dst = self.operand(inst, 0)?;
        self.write(dst, &[Some(v[0]), Some(v[1]), Some(v[2]), Some(v[3])])
    }

    pub fn double(&mut self, op: DoubleInst, inst: &Instruction) -> Result<(), JitError> {
        use DoubleInst as O;
        let (op, srcs, shape): (DOp, &[usize], Shape) = match op {
            O::DMov | O::DMovc => return self.dmove(inst),
            O::DAdd => (DOp::Add, &[1, 2], Shape::Wide),
            O::DMul => (DOp::Mul, &[1, 2], Shape::Wide),
            O::DDiv => (DOp::Div, &[1, 2], Shape::Wide),
            O::DMin => (DOp::Min, &[1, 2], Shape::Wide),
            O::DMax => (DOp::Max, &[1, 2], Shape::Wide),
            O::DFma => (DOp::Fma, &[1, 2, 3], Shape::Wide),
            O::DRcp => (DOp::Rcp, &[1], Shape::Wide),
            O::DEq => (DOp::Eq, &[1, 2], Shape::Narrow),
            O::DNe => (DOp::Ne, &[1, 2], Shape::Narrow),
            O::DLt => (DOp::Lt, &[1, 2], Shape::Narrow),
            O::DGe => (DOp::Ge, &[1, 2], Shape::Narrow),
            O::Dtof => (DOp::Dtof, &[1], Shape::Narrow),
            O::Dtoi => (DOp::Dtoi, &[1], Shape::Narrow),
            O::Dtou => (DOp::Dtou, &[1], Shape::Narrow),
            O::Ftod => (DOp::Ftod, &[1], Shape::Widen),
            O::Itod => (DOp::Itod, &[1], Shape::Widen),
            O::Utod => (DOp::Utod, &[1], Shape::Widen),
        };
        self.dgeneric(inst, op, srcs, shape)
    }
}
