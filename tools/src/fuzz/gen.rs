//! Random valid cs_5_0 programs with their inputs, deterministic from a seed.
//!
//! In: a seed and a [`GenConfig`]. Out: a [`Generated`] program (as parsed
//! assembly text and as a [`Program`]) with its [`FuzzInputs`]. Invariant:
//! every program passes [`sm5jit::validate::validate`] and its results never
//! depend on the order in which threads or groups run:
//!
//! - ordinary UAV and TGSM stores and loads only touch memory private to the
//!   thread (a per-thread region addressed from the global or in-group
//!   thread id), or an address with bit 30 set, which lies past every buffer
//!   and so is out of bounds for everyone;
//! - returning atomics (`imm_atomic_*`, `atomic_cmp_store`) also use private
//!   addresses; on shared words only non-returning commutative atomics run,
//!   and each shared word only ever sees one kind of operation;
//! - `imm_atomic_alloc`/`consume` results are only summed into a shared word
//!   with `atomic_iadd` (the multiset of returned values is fixed), and a
//!   program uses only one of the two;
//! - barriers (`sync_*_t`) appear only at the top level or in the body of a
//!   top-level loop with a fixed trip count that nothing inside breaks,
//!   continues or returns out of, all before any `ret`, so control flow is
//!   uniform there; TGSM shared words are only read after a
//!   final barrier, once every atomic on them is done.
//!
//! Register plan: `r0`/`r1` hold thread ids and private bases, `r2` the loop
//! counters (one component per nesting level), `r3` scratch for addresses and
//! relative indices, `r4`..`r9` the random data; `x0[8]` is an indexable temp.
//! At the end every thread dumps `r4`..`r9` and `x0` into its private region.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::LazyLock;

use super::inputs::{BufferInput, BufferKind, FuzzInputs};
use super::rng::Rng;
use sm5jit::ir::{ImmKind, OpClass, Opcode, Program, Role};
use sm5jit::sem::atomic::AtomicOp;

/// Knobs for the generator.
#[derive(Clone, Copy, Debug)]
pub struct GenConfig {
    /// Random statements at the top level.
    pub top_statements: u32,
    /// Deepest nesting of if/loop/switch.
    pub max_depth: u32,
}

impl Default for GenConfig {
    fn default() -> GenConfig {
        GenConfig {
            top_statements: 14,
            max_depth: 3,
        }
    }
}

/// A generated program and everything needed to run it.
#[derive(Clone, Debug)]
pub struct Generated {
    pub seed: u64,
    pub text: String,
    pub program: Program,
    pub inputs: FuzzInputs,
    /// Constructs the generator chose, counted by name (see [`Forms`]).
    pub forms: Forms,
}

/// Counts of the structural forms a program contains that its opcodes and
/// operands alone do not show: `same_operand_twice`, `cond_divergent` (a condition that differs
/// between threads of a group), `if_else`, `nested_3` (a block nested
/// three deep), `loop_fixed_trips` / `loop_divergent_trips`,
/// `switch_fallthrough`, `switch_default`, `ret_nested`, `early_return`
/// (`if (id >= n) return;` first in the program), `barrier_top`
/// (a barrier at the top level), `barrier_in_loop` (a barrier inside a
/// loop every thread runs equally often), `oob_*` (an
/// address made out of bounds on purpose: `oob_uav_raw`, `oob_tgsm_raw`,
/// `oob_uav_structured`, `oob_tgsm_structured`, `oob_uav_typed`,
/// `oob_atomic_shared`) and `short_*` (a buffer cut short so the last
/// threads' accesses fall outside it: `short_u0`, `short_u1`, `short_u2`),
/// `cond_uniform` (a condition equal in every thread of a group: a cb word
/// or the group id), `cond_id_range` (a thread id along x compared with a
/// uniform value, or tested itself), `floor_diff` (an `if` on `id >= u`
/// whose body reads or writes g2 at `id - u`), `group_whole_batches` (a group of a multiple of 8
/// threads: the JIT's full-mask paths), `nan_hidden` / `nan_visible` (a
/// float chain fed a special value — NaN, INF, a denormal — whose result
/// only float ops read, or whose bits an integer op or a stored copy
/// sees), `tgsm_written_first` (every TGSM DWORD stored before a first
/// barrier: the JIT's groups skip the clear).
pub type Forms = BTreeMap<&'static str, u64>;

/// Bytes of u0 before the private regions: one shared word per atomic kind.
const U0_SHARED: u32 = 128;
/// Bytes of each thread's private u0 region.
const U0_REGION: u32 = 512;
/// Private u0 byte offsets a random access may start at (`and` mask).
const U0_MASK: u32 = 28;
/// Bytes of g0 before the private regions.
const G0_SHARED: u32 = 64;
/// Bytes of each thread's private g0 region, and the access mask.
const G0_REGION: u32 = 32;
const G0_MASK: u32 = 12;
/// Structured u1 (stride 16): elements per thread, of which the first two are addressed.
const U1_PER_THREAD: u32 = 3;
/// Typed u2 (R32_UINT): elements per thread.
const U2_PER_THREAD: u32 = 4;
/// Structured g1 (stride 8): elements per thread, first two addressed.
const G1_PER_THREAD: u32 = 4;
/// OR-ed into an address to make it out of bounds for every buffer.
const OOB_BIT: u32 = 0x4000_0000;

/// The generator's opcode families, read from the instruction table by
/// class, operand roles, immediate type and form (each in token-number order).
type Family = LazyLock<Vec<Opcode>>;

fn shaped(op: Opcode, classes: &[OpClass], roles: &[Role]) -> bool {
    classes.contains(&op.class()) && op.roles() == Some(roles)
}
fn floats(op: Opcode) -> bool {
    op.imm_kind(0) == ImmKind::Float
}
fn atomics(returns_old: bool) -> Vec<Opcode> {
    Opcode::select(|op| {
        op.atomic()
            .is_some_and(|k| k.returns_old == returns_old && k.op != AtomicOp::CmpExch)
    })
}

const D1: &[Role] = &[Role::Dst, Role::Src];
const D2: &[Role] = &[Role::Dst, Role::Src, Role::Src];
const D3: &[Role] = &[Role::Dst, Role::Src, Role::Src, Role::Src];

/// Non-returning atomics allowed on shared words; the index is the word.
static SHARED_ATOMICS: Family = LazyLock::new(|| atomics(false));
/// The shared u0 word that sums alloc/consume results.
const ALLOC_SUM_OFFSET: u32 = 32;

static IMM_ATOMICS: Family = LazyLock::new(|| atomics(true));
static FLOAT_UNARY: Family = LazyLock::new(|| Opcode::select(|o| shaped(o, &[OpClass::Float], D1)));
static FLOAT_BINARY: Family = LazyLock::new(|| {
    Opcode::select(|o| shaped(o, &[OpClass::Float, OpClass::Compare], D2) && floats(o))
});
static INT_UNARY: Family = LazyLock::new(|| Opcode::select(|o| shaped(o, &[OpClass::Int], D1)));
static INT_BINARY: Family = LazyLock::new(|| {
    Opcode::select(|o| shaped(o, &[OpClass::Int, OpClass::Compare], D2) && !floats(o))
});
static INT_TERNARY: Family = LazyLock::new(|| Opcode::select(|o| shaped(o, &[OpClass::Int], D3)));
static CONVERT: Family = LazyLock::new(|| Opcode::select(|o| o.class() == OpClass::Convert));
fn doubles(dst64: bool, src64: bool, roles: &'static [Role]) -> Vec<Opcode> {
    Opcode::select(|o| o.double_form() == Some((dst64, src64)) && o.roles() == Some(roles))
}
static DOUBLE_BINARY: Family = LazyLock::new(|| doubles(true, true, D2));
static DOUBLE_COMPARE: Family = LazyLock::new(|| doubles(false, true, D2));
static DOUBLE_TO_32: Family = LazyLock::new(|| doubles(false, true, D1));
static TO_DOUBLE: Family = LazyLock::new(|| doubles(true, false, D1));

/// Every opcode the generator can emit (the coverage test checks each one
/// shows up over a run).
pub fn generated_opcodes() -> Vec<Opcode> {
    let mut ops: Vec<Opcode> = Vec::new();
    ops.extend(&*SHARED_ATOMICS);
    ops.extend(&*IMM_ATOMICS);
    ops.extend(&*FLOAT_UNARY);
    ops.extend(&*FLOAT_BINARY);
    ops.extend(&*INT_UNARY);
    ops.extend(&*INT_BINARY);
    ops.extend(&*INT_TERNARY);
    ops.extend(&*CONVERT);
    ops.extend(&*DOUBLE_BINARY);
    ops.extend(&*DOUBLE_COMPARE);
    ops.extend(&*DOUBLE_TO_32);
    ops.extend(&*TO_DOUBLE);
    use Opcode::*;
    ops.extend([
        Mov,
        Movc,
        Swapc,
        Mad,
        SinCos,
        IMul,
        UMul,
        UDiv,
        UAddc,
        USubb,
        Bfi,
        DMov,
        DMovc,
        DFma,
        DRcp,
        AtomicCmpStore,
        ImmAtomicCmpExch,
        ImmAtomicAlloc,
        ImmAtomicConsume,
        LdRaw,
        StoreRaw,
        LdStructured,
        StoreStructured,
        LdUavTyped,
        StoreUavTyped,
        Ld,
        BufInfo,
        Sync,
        If,
        Else,
        EndIf,
        Loop,
        EndLoop,
        Break,
        Breakc,
        Continue,
        Continuec,
        Switch,
        Case,
        Default,
        EndSwitch,
        Ret,
        Retc,
        Call,
        Callc,
        Label,
        Nop,
    ]);
    ops.sort();
    ops.dedup();
    ops
}

/// Interesting 32-bit patterns: NaNs, ±0, denormals, INT_MIN, ±INF, ...
const SPECIAL32: [u32; 24] = [
    0x7FC0_0000, // qNaN
    0x7F80_0001, // sNaN
    0xFFC0_0001, // negative NaN with payload
    0x0000_0000, // +0
    0x8000_0000, // -0 / INT_MIN
    0x0000_0001, // smallest denormal
    0x807F_FFFF, // largest negative denormal
    0x7F80_0000, // +INF
    0xFF80_0000, // -INF
    0x7FFF_FFFF, // INT_MAX / NaN
    0xFFFF_FFFF, // -1
    0x3F80_0000, // 1.0
    0xBF80_0000, // -1.0
    0x3F00_0000, // 0.5
    0x4060_0000, // 3.5
    0x4F00_0000, // 2^31
    0x4F80_0000, // 2^32
    0xCF00_0000, // -2^31
    0x501502F9,  // 1e10
    0x477F_E000, // 65504 (f16 max)
    0x3880_0000, // f16 smallest normal
    0x0000_001F, // 31
    0x0000_0020, // 32
    0x0000_3C00, // f16 1.0
];

/// Thread-group shapes (at most 64 threads).
const GROUP_SHAPES: [[u32; 3]; 10] = [
    [1, 1, 1],
    [2, 1, 1],
    [4, 1, 1],
    [8, 1, 1],
    [3, 2, 1],
    [4, 4, 1],
    [2, 2, 2],
    [16, 1, 1],
    [5, 3, 1],
    [64, 1, 1],
];

/// What the current position is nested in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ctx {
    If,
    Loop,
    Switch,
    /// A loop every thread of the group runs the same number of times,
    /// with a barrier in its body: nothing inside may leave it early.
    Uniform,
}

struct Gen {
    rng: Rng,
    out: String,
    indent: usize,
    ctx: Vec<Ctx>,
    loops: u32,
    /// A `ret`/`retc` has been emitted: no more barriers.
    returned: bool,
    /// Whether the program has a subroutine `l1` (calls go there).
    has_sub: bool,
    in_sub: bool,
    /// alloc (true) or consume (false) on u3.
    counter_alloc: bool,
    cfg: GenConfig,
    forms: Forms,
}

fn hex(v: u32) -> String {
    format!("0x{v:08x}")
}

const COMP: [char; 4] = ['x', 'y', 'z', 'w'];

fn mask_text(m: u8) -> String {
    (0..4)
        .filter(|i| m & (1 << i) != 0)
        .map(|i| COMP[i])
        .collect()
}

impl Gen {
    fn note(&mut self, form: &'static str) {
        *self.forms.entry(form).or_default() += 1;
    }

    fn line(&mut self, s: &str) {
        for _ in 0..self.indent {
            self.out.push_str("  ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }

    fn value(&mut self) -> u32 {
        match self.rng.below(4) {
            0 | 1 => self.rng.pick(&SPECIAL32),
            2 => self.rng.below(40),
            _ => self.rng.next_u32(),
        }
    }

    fn data_reg(&mut self) -> u32 {
        4 + self.rng.below(6)
    }

    fn mask(&mut self) -> u8 {
        if self.rng.chance(1, 3) {
            1 << self.rng.below(4)
        } else {
            1 + self.rng.below(15) as u8
        }
    }

    fn swizzle(&mut self) -> String {
        match self.rng.below(4) {
            0 => "xyzw".to_string(),
            1 => COMP[self.rng.below(4) as usize].to_string(),
            _ => (0..4).map(|_| COMP[self.rng.below(4) as usize]).collect(),
        }
    }

    /// Sets `r3.x` to an index for relative addressing (sometimes unmasked,
    /// so it may be far out of range).
    fn rel_index(&mut self, limit_mask: u32) -> String {
        let r = self.data_reg();
        let c = COMP[self.rng.below(4) as usize];
        if self.rng.chance(1, 6) {
            self.line(&format!("mov r3.x, r{r}.{c}"));
        } else {
            self.line(&format!("and r3.x, r{r}.{c}, l({limit_mask})"));
        }
        format!("r3.x + {}", self.rng.below(3))
    }

    /// A 32-bit source operand (register, immediate, cb, icb, x#, thread id).
    fn src(&mut self, float: bool) -> String {
        let base = match self.rng.below(16) {
            0..=6 => format!("r{}.{}", self.data_reg(), self.swizzle()),
            7 | 8 => {
                if self.rng.chance(1, 3) {
                    format!("l({})", hex(self.value()))
                } else {
                    let v: Vec<String> = (0..4).map(|_| hex(self.value())).collect();
                    format!("l({})", v.join(", "))
                }
            }
            9 => {
                let k = self.rng.below(16);
                format!("cb0[{k}].{}", self.swizzle())
            }
            10 => {
                let i = self.rel_index(15);
                format!("cb0[{i}].{}", self.swizzle())
            }
            11 => {
                let i = self.rel_index(7);
                format!("icb[{i}].{}", self.swizzle())
            }
            12 => {
                let i = self.rel_index(7);
                format!("x0[{i}].{}", self.swizzle())
            }
            13 => format!("x0[{}].{}", self.rng.below(8), self.swizzle()),
            14 => {
                let reg = self
                    .rng
                    .pick(&["vThreadID", "vThreadIDInGroup", "vThreadGroupID"]);
                let s: String = (0..4).map(|_| COMP[self.rng.below(3) as usize]).collect();
                format!("{reg}.{s}")
            }
            _ => format!("r0.{}", self.swizzle()),
        };
        if float && !base.starts_with("l(") {
            match self.rng.below(8) {
                0 => return format!("-{base}"),
                1 => return format!("|{base}|"),
                2 => return format!("-|{base}|"),
                _ => {}
            }
        }
        base
    }

    /// A destination: a data register or an x0 element, with a mask.
    fn dst(&mut self, mask: u8) -> String {
        let m = mask_text(mask);
        match self.rng.below(10) {
            0 => format!("x0[{}].{m}", self.rng.below(8)),
            1 => {
                let i = self.rel_index(7);
                format!("x0[{i}].{m}")
            }
            _ => format!("r{}.{m}", self.data_reg()),
        }
    }

    fn sat(&mut self) -> &'static str {
        if self.rng.chance(1, 6) {
            "_sat"
        } else {
            ""
        }
    }

    // ---- instruction families -------------------------------------------

    fn float_op(&mut self) {
        let m = self.mask();
        let (op, n) = match self.rng.below(10) {
            0..=3 => (self.rng.pick(&FLOAT_UNARY), 1),
            4..=7 => (self.rng.pick(&FLOAT_BINARY), 2),
            8 => (Opcode::Mad, 3),
            _ => (Opcode::Mov, 1),
        };
        let is_cmp = op.class() == OpClass::Compare;
        let sat = if is_cmp { "" } else { self.sat() };
        let srcs = self.srcs(n, true);
        let d = self.dst(m);
        self.line(&format!("{}{sat} {d}, {}", op.mnemonic(), srcs.join(", ")));
    }

    /// `n` sources; a two-source op sometimes gets the same operand twice,
    /// so compares and min/max meet equal inputs (`lt` against `le`).
    fn srcs(&mut self, n: u32, float: bool) -> Vec<String> {
        let mut srcs: Vec<String> = (0..n).map(|_| self.src(float)).collect();
        if n == 2 && self.rng.chance(1, 4) {
            self.note("same_operand_twice");
            srcs[1] = srcs[0].clone();
        }
        srcs
    }

    fn sincos(&mut self) {
        let m = self.mask();
        let s = self.src(true);
        let mt = mask_text(m);
        let (a, b) = (self.data_reg(), self.data_reg());
        let text = match self.rng.below(3) {
            0 => format!("sincos null, r{b}.{mt}, {s}"),
            1 => format!("sincos r{a}.{mt}, null, {s}"),
            _ if a != b => format!("sincos r{a}.{mt}, r{b}.{mt}, {s}"),
            _ => format!("sincos r{a}.{mt}, null, {s}"),
        };
        self.line(&text);
    }

    fn int_op(&mut self) {
        let m = self.mask();
        let (op, n) = match self.rng.below(10) {
            0..=2 => (self.rng.pick(&INT_UNARY), 1),
            3..=7 => (self.rng.pick(&INT_BINARY), 2),
            8 => (self.rng.pick(&INT_TERNARY), 3),
            _ => (Opcode::Bfi, 4),
        };
        let srcs = self.srcs(n, false);
        let d = self.dst(m);
        self.line(&format!("{} {d}, {}", op.mnemonic(), srcs.join(", ")));
    }

    /// imul/umul/udiv/uaddc/usubb and swapc: two destinations.
    fn two_dst_op(&mut self) {
        let op = self.rng.pick(&[
            Opcode::IMul,
            Opcode::UMul,
            Opcode::UDiv,
            Opcode::UAddc,
            Opcode::USubb,
            Opcode::Swapc,
        ]);
        let m = mask_text(self.mask());
        let a = self.data_reg();
        let b = if a == 9 { 4 } else { a + 1 };
        let n = if op == Opcode::Swapc { 3 } else { 2 };
        let srcs: Vec<String> = (0..n).map(|_| self.src(false)).collect();
        let (d0, d1) = match self.rng.below(4) {
            0 if op != Opcode::Swapc => ("null".to_string(), format!("r{b}.{m}")),
            1 if op != Opcode::Swapc => (format!("r{a}.{m}"), "null".to_string()),
            _ => (format!("r{a}.{m}"), format!("r{b}.{m}")),
        };
        self.line(&format!(
            "{} {d0}, {d1}, {}",
            op.mnemonic(),
            srcs.join(", ")
        ));
    }

    fn convert_or_move(&mut self) {
        let m = self.mask();
        if self.rng.chance(1, 3) {
            let srcs: Vec<String> = (0..3).map(|_| self.src(false)).collect();
            let d = self.dst(m);
            self.line(&format!("movc {d}, {}", srcs.join(", ")));
        } else {
            let op = self.rng.pick(&CONVERT);
            let float_src = floats(op);
            let s = self.src(float_src);
            let sat = if op == Opcode::F16tof32 || op == Opcode::Itof || op == Opcode::Utof {
                self.sat()
            } else {
                ""
            };
            let d = self.dst(m);
            self.line(&format!("{}{sat} {d}, {s}", op.mnemonic()));
        }
    }

    /// A double source: a register pair swizzle or a `d(..)` immediate.
    fn dsrc(&mut self, pairs: u32) -> String {
        if self.rng.chance(1, 4) {
            let mut v = Vec::new();
            for _ in 0..2 {
                let bits = match self.rng.below(5) {
                    0 => 0x7FF8_0000_0000_0000u64,
                    1 => 0x8000_0000_0000_0000,
                    2 => 0x0000_0000_0000_0001,
                    3 => 0xFFF0_0000_0000_0000,
                    _ => (f64::from(self.rng.below(2000)) / 8.0 - 100.0).to_bits(),
                };
                v.push(format!("0x{bits:016x}"));
            }
            return format!("d({})", v.join(", "));
        }
        let r = self.data_reg();
        let sw = if pairs == 2 {
            self.rng.pick(&["xyzw", "zwxy", "xyxy", "zwzw"])
        } else {
            self.rng.pick(&["xyxy", "zwzw"])
        };
        let base = format!("r{r}.{sw}");
        match self.rng.below(6) {
            0 => format!("-{base}"),
            1 => format!("|{base}|"),
            _ => base,
        }
    }

    fn double_op(&mut self) {
        let r = self.data_reg();
        let (dm, pairs) = match self.rng.below(3) {
            0 => ("xy", 1),
            1 => ("zw", 1),
            _ => ("xyzw", 2),
        };
        match self.rng.below(8) {
            0..=2 => {
                let op = self.rng.pick(&DOUBLE_BINARY);
                let (a, b) = (self.dsrc(pairs), self.dsrc(pairs));
                self.line(&format!("{} r{r}.{dm}, {a}, {b}", op.mnemonic()));
            }
            3 => {
                let op = self.rng.pick(&[Opcode::DMov, Opcode::DRcp]);
                let a = self.dsrc(pairs);
                self.line(&format!("{} r{r}.{dm}, {a}", op.mnemonic()));
            }
            4 => {
                let (a, b, c) = (self.dsrc(pairs), self.dsrc(pairs), self.dsrc(pairs));
                self.line(&format!("dfma r{r}.{dm}, {a}, {b}, {c}"));
            }
            5 => {
                let op = self.rng.pick(&DOUBLE_COMPARE);
                let (a, b) = (self.dsrc(pairs), self.dsrc(pairs));
                let dm32 = if pairs == 2 { "xy" } else { "x" };
                self.line(&format!("{} r{r}.{dm32}, {a}, {b}", op.mnemonic()));
            }
            6 => {
                let op = self.rng.pick(&DOUBLE_TO_32);
                let a = self.dsrc(pairs);
                let dm32 = if pairs == 2 { "xy" } else { "x" };
                self.line(&format!("{} r{r}.{dm32}, {a}", op.mnemonic()));
            }
            _ => {
                if self.rng.chance(1, 2) {
                    let op = self.rng.pick(&TO_DOUBLE);
                    let s = self.data_reg();
                    let ss = if pairs == 2 { "xyxx" } else { "x" };
                    self.line(&format!("{} r{r}.{dm}, r{s}.{ss}", op.mnemonic()));
                } else {
                    let c = self.data_reg();
                    let cs = if pairs == 2 { "xyxx" } else { "x" };
                    let (a, b) = (self.dsrc(pairs), self.dsrc(pairs));
                    self.line(&format!("dmovc r{r}.{dm}, r{c}.{cs}, {a}, {b}"));
                }
            }
        }
    }

    /// Sets `r3.y` to a private byte address in u0 or g0 (or an OOB one).
    fn private_raw_addr(&mut self, tgsm: bool) {
        let (mask, base) = if tgsm {
            (G0_MASK, "r0.w")
        } else {
            (U0_MASK, "r0.z")
        };
        let r = self.data_reg();
        let c = COMP[self.rng.below(4) as usize];
        self.line(&format!("and r3.y, r{r}.{c}, l({mask})"));
        self.line(&format!("iadd r3.y, r3.y, {base}"));
        self.maybe_oob("r3.y", if tgsm { "oob_tgsm_raw" } else { "oob_uav_raw" });
    }

    fn maybe_oob(&mut self, reg: &str, form: &'static str) {
        if self.rng.chance(1, 8) {
            self.note(form);
            self.line(&format!("or {reg}, {reg}, l({})", hex(OOB_BIT)));
        }
    }

    /// Sets `r3.yz` to a private structured (index, byte offset) in u1 or g1.
    fn private_struct_addr(&mut self, tgsm: bool) {
        let (base, off_mask) = if tgsm { ("r1.z", 4) } else { ("r1.x", 12) };
        let (a, b) = (self.data_reg(), self.data_reg());
        self.line(&format!("and r3.y, r{a}.x, l(1)"));
        self.line(&format!("iadd r3.y, r3.y, {base}"));
        let form = if tgsm {
            "oob_tgsm_structured"
        } else {
            "oob_uav_structured"
        };
        self.maybe_oob("r3.y", form);
        self.line(&format!("and r3.z, r{b}.y, l({off_mask})"));
    }

    fn memory_op(&mut self) {
        let m = self.mask();
        let mt = self.rng.pick(&["x", "xy", "xyz", "xyzw"]).to_string();
        match self.rng.below(9) {
            0 => {
                let tgsm = self.rng.chance(1, 3);
                self.private_raw_addr(tgsm);
                let s = self.src(false);
                let res = if tgsm { "g0" } else { "u0" };
                self.line(&format!("store_raw {res}.{mt}, r3.y, {s}"));
            }
            1 => {
                let which = self.rng.below(3);
                let res = match which {
                    0 => {
                        self.private_raw_addr(false);
                        "u0"
                    }
                    1 => {
                        self.private_raw_addr(true);
                        "g0"
                    }
                    _ if self.rng.chance(1, 2) => {
                        // Byte ids: lanes 4 bytes apart (`uniform.rs`).
                        let id = self.rng.pick(&[
                            "vThreadID.x",
                            "vThreadIDInGroup.x",
                            "vThreadIDInGroupFlattened.x",
                        ]);
                        let step = 4 * self.rng.below(64);
                        self.line(&format!("ishl r3.y, {id}, l(2)"));
                        self.line(&format!("iadd r3.y, r3.y, l({step})"));
                        self.note("raw_srv_byte_ids");
                        "t0"
                    }
                    _ => {
                        let r = self.data_reg();
                        self.line(&format!("and r3.y, r{r}.x, l(252)"));
                        "t0"
                    }
                };
                let sw = self.swizzle();
                let d = self.dst(m);
                self.line(&format!("ld_raw {d}, r3.y, {res}.{sw}"));
            }
            2 => {
                let tgsm = self.rng.chance(1, 3);
                self.private_struct_addr(tgsm);
                let s = self.src(false);
                let res = if tgsm { "g1" } else { "u1" };
                // Keep the components inside the thread's own structures.
                let mt = if tgsm { "x".to_string() } else { mt };
                self.line(&format!("store_structured {res}.{mt}, r3.y, r3.z, {s}"));
            }
            3 => {
                let res = match self.rng.below(3) {
                    0 => {
                        self.private_struct_addr(false);
                        "u1"
                    }
                    1 => {
                        self.private_struct_addr(true);
                        "g1"
                    }
                    _ => {
                        let (a, b) = (self.data_reg(), self.data_reg());
                        self.line(&format!("and r3.y, r{a}.x, l(15)"));
                        self.line(&format!("and r3.z, r{b}.y, l(12)"));
                        "t1"
                    }
                };
                let sw = self.swizzle();
                let d = self.dst(m);
                self.line(&format!("ld_structured {d}, r3.y, r3.z, {res}.{sw}"));
            }
            4 => {
                self.private_typed_addr();
                let s = self.src(false);
                self.line(&format!("store_uav_typed u2.xyzw, r3.yyyy, {s}"));
            }
            5 => {
                self.private_typed_addr();
                let d = self.dst(m);
                self.line(&format!("ld_uav_typed {d}, r3.yyyy, u2.xxxx"));
            }
            6 => {
                let r = self.data_reg();
                self.line(&format!("and r3.y, r{r}.z, l(15)"));
                let sw = self.swizzle();
                let d = self.dst(m);
                self.line(&format!("ld {d}, r3.yyyy, t2.{sw}"));
            }
            7 => {
                let res = self.rng.pick(&["t0", "t1", "t2", "u0", "u1", "u2"]);
                let d = self.dst(m);
                self.line(&format!("bufinfo {d}, {res}.xxxx"));
            }
            _ => self.atomic_op(),
        }
    }

    fn private_typed_addr(&mut self) {
        let r = self.data_reg();
        self.line(&format!("and r3.y, r{r}.w, l({})", U2_PER_THREAD - 1));
        self.line("iadd r3.y, r3.y, r1.y");
        self.maybe_oob("r3.y", "oob_uav_typed");
    }

    fn atomic_op(&mut self) {
        let tgsm = self.rng.chance(1, 3);
        let res = if tgsm { "g0" } else { "u0" };
        match self.rng.below(5) {
            0 | 1 => {
                let k = self.rng.below(SHARED_ATOMICS.len() as u32);
                let op = SHARED_ATOMICS[k as usize];
                let mut addr = k * 4;
                if self.rng.chance(1, 10) {
                    self.note("oob_atomic_shared");
                    addr |= OOB_BIT;
                }
                let s = self.src(false);
                self.line(&format!(
                    "atomic_{} {res}, l({addr}), {s}",
                    &op.mnemonic()[7..]
                ));
            }
            2 => {
                let op = self.rng.pick(&IMM_ATOMICS);
                let typed = !tgsm && self.rng.chance(1, 4);
                let res = if typed {
                    self.private_typed_addr();
                    "u2"
                } else {
                    self.private_raw_addr(tgsm);
                    res
                };
                let s = self.src(false);
                let d = self.data_reg();
                let c = COMP[self.rng.below(4) as usize];
                self.line(&format!("{} r{d}.{c}, {res}, r3.y, {s}", op.mnemonic()));
            }
            3 => {
                self.private_raw_addr(tgsm);
                let (a, b) = (self.src(false), self.src(false));
                if self.rng.chance(1, 2) {
                    self.line(&format!("atomic_cmp_store {res}, r3.y, {a}, {b}"));
                } else {
                    let d = self.data_reg();
                    self.line(&format!(
                        "imm_atomic_cmp_exch r{d}.y, {res}, r3.y, {a}, {b}"
                    ));
                }
            }
            _ => {
                let op = if self.counter_alloc {
                    "imm_atomic_alloc"
                } else {
                    "imm_atomic_consume"
                };
                self.line(&format!("{op} r3.w, u3"));
                self.line(&format!("atomic_iadd u0, l({ALLOC_SUM_OFFSET}), r3.w"));
            }
        }
    }

    /// A scalar condition operand for if/breakc/continuec/retc/movc.
    fn cond(&mut self) -> String {
        let r = self.data_reg();
        match self.rng.below(6) {
            0 => {
                // Divergent across threads.
                self.note("cond_divergent");
                let k = 1 + self.rng.below(3);
                self.line(&format!("and r3.w, r0.y, l({k})"));
                "r3.w".to_string()
            }
            1 => {
                // The same in every thread of a group (a cb word or the
                // group id): the JIT's uniform paths.
                self.note("cond_uniform");
                if self.rng.chance(1, 2) {
                    format!(
                        "cb0[{}].{}",
                        self.rng.below(16),
                        COMP[self.rng.below(4) as usize]
                    )
                } else {
                    format!("vThreadGroupID.{}", COMP[self.rng.below(2) as usize])
                }
            }
            2 => self.id_range_cond(),
            _ => format!("r{r}.{}", COMP[self.rng.below(4) as usize]),
        }
    }

    /// A thread id along x compared with a uniform value right before its
    /// use, or the id itself: where a batch lies in one row, the JIT's
    /// `if` on an id range decides from the batch's first and last id.
    fn id_range_cond(&mut self) -> String {
        self.note("cond_id_range");
        let id = self.rng.pick(&[
            "vThreadIDInGroupFlattened.x",
            "vThreadIDInGroup.x",
            "vThreadID.x",
        ]);
        if self.rng.chance(1, 4) {
            return id.to_string();
        }
        let op = self.rng.pick(&["ieq", "ine", "ilt", "ige", "ult", "uge"]);
        let u = match self.rng.below(3) {
            0 => format!("l({})", self.rng.below(72)),
            1 => format!("l({})", hex(self.value())),
            _ => format!(
                "cb0[{}].{}",
                self.rng.below(16),
                COMP[self.rng.below(4) as usize]
            ),
        };
        let (a, b) = if self.rng.chance(1, 2) {
            (id.to_string(), u)
        } else {
            (u, id.to_string())
        };
        self.line(&format!("{op} r3.w, {a}, {b}"));
        "r3.w".to_string()
    }

    fn zn(&mut self) -> &'static str {
        if self.rng.chance(1, 2) {
            "_z"
        } else {
            "_nz"
        }
    }

    // ---- statements -----------------------------------------------------

    fn simple(&mut self) {
        match self.rng.below(20) {
            0..=4 => self.float_op(),
            5..=8 => self.int_op(),
            9 => self.two_dst_op(),
            10 | 11 => self.convert_or_move(),
            12 => self.sincos(),
            13 | 14 => self.double_op(),
            15..=18 => self.memory_op(),
            _ => {
                if self.rng.chance(1, 4) {
                    self.line("nop");
                } else if self.rng.chance(1, 2) {
                    self.float_chain();
                } else {
                    self.float_op();
                }
            }
        }
    }

    /// A float chain through the scratch `r3.y`, `r3.z` (rewritten before
    /// any later read, so the JIT leaves its results unfinished) fed a
    /// special value (NaN, INF, denormal, ...), then read by a float op
    /// that hides the NaN payload and denormal (`nan_hidden`) or by an op
    /// that sees the bits (`nan_visible`: an integer op, a copy to a
    /// stored register, `ftoi`).
    fn float_chain(&mut self) {
        let op = self
            .rng
            .pick(&[Opcode::Add, Opcode::Mul, Opcode::Div, Opcode::Mad]);
        let special = hex(self.rng.pick(&SPECIAL32));
        let a = self.src(true);
        if op == Opcode::Mad {
            let b = self.src(true);
            self.line(&format!("mad r3.y, {a}, l({special}), {b}"));
        } else {
            self.line(&format!("{} r3.y, {a}, l({special})", op.mnemonic()));
        }
        let b = self.src(true);
        self.line(&format!("mad r3.z, r3.y, {b}, r3.y"));
        let m = mask_text(1 << self.rng.below(4));
        let r = self.data_reg();
        let c = self.src(true);
        match self.rng.below(6) {
            0 => {
                self.note("nan_hidden");
                self.line(&format!("lt r{r}.{m}, r3.z, {c}"));
            }
            1 => {
                self.note("nan_hidden");
                self.line(&format!("max r{r}.{m}, r3.z, {c}"));
            }
            2 => {
                self.note("nan_hidden");
                self.line(&format!("add_sat r{r}.{m}, r3.z, {c}"));
            }
            3 => {
                self.note("nan_visible");
                self.line(&format!("xor r{r}.{m}, r3.z, l(0x80000000)"));
            }
            4 => {
                self.note("nan_visible");
                self.line(&format!("mov r{r}.{m}, -r3.z"));
            }
            _ => {
                self.note("nan_hidden");
                self.line(&format!("ftoi r{r}.{m}, r3.z"));
            }
        }
    }

    fn statement(&mut self) {
        let depth = self.ctx.len() as u32;
        let nest = depth < self.cfg.max_depth;
        match self.rng.below(24) {
            0..=2 if nest => self.if_block(),
            3 | 4 if nest && (self.loops < 3 || (self.in_sub && self.loops < 4)) => {
                self.loop_block()
            }
            5 if nest => self.switch_block(),
            6 if self.in_loop() && self.innermost_exit() != Some(Ctx::Uniform) => self.loop_exit(),
            7 if self.has_sub && !self.in_sub => {
                if self.rng.chance(1, 2) {
                    self.line("call l1");
                } else {
                    let c = self.cond();
                    let zn = self.zn();
                    self.line(&format!("callc{zn} {c}, l1"));
                }
            }
            8 if depth > 0 && !self.ctx.contains(&Ctx::Uniform) && self.rng.chance(1, 4) => {
                if !self.in_sub {
                    self.returned = true;
                }
                self.note("ret_nested");
                if self.rng.chance(1, 2) {
                    let c = self.cond();
                    let zn = self.zn();
                    self.line(&format!("retc{zn} {c}"));
                } else {
                    self.line("ret");
                }
            }
            _ => self.simple(),
        }
    }

    fn in_loop(&self) -> bool {
        self.ctx.contains(&Ctx::Loop)
    }

    /// What a `break` here would leave.
    fn innermost_exit(&self) -> Option<Ctx> {
        self.ctx.iter().rev().find(|c| **c != Ctx::If).copied()
    }

    /// Whether a `continue` here would continue an ordinary loop.
    fn continue_ok(&self) -> bool {
        self.ctx
            .iter()
            .rev()
            .find(|c| matches!(c, Ctx::Loop | Ctx::Uniform))
            == Some(&Ctx::Loop)
    }

    fn block(&mut self, n: u32) {
        if self.ctx.len() >= 3 {
            self.note("nested_3");
        }
        self.indent += 1;
        for _ in 0..n {
            self.statement();
        }
        self.indent -= 1;
    }

    fn if_block(&mut self) {
        if self.rng.chance(1, 8) {
            return self.floor_block();
        }
        let c = self.cond();
        let zn = self.zn();
        self.line(&format!("if{zn} {c}"));
        self.ctx.push(Ctx::If);
        let n = self.rng.range(1, 4);
        self.block(n);
        if self.rng.chance(1, 2) {
            self.note("if_else");
            self.line("else");
            let n = self.rng.range(1, 3);
            self.block(n);
        }
        self.ctx.pop();
        self.line("endif");
    }

    /// `if (id >= n) return;` first in the program, the bounds test of
    /// most compute shaders: without a barrier after it, the JIT splits
    /// the rest of the program on the batch's first and last id.
    fn early_return(&mut self) {
        self.note("early_return");
        let c = self.id_range_cond();
        let zn = self.zn();
        self.line(&format!("if{zn} {c}"));
        self.line("ret");
        self.line("endif");
        self.returned = true;
    }

    /// `if (id >= u)` (or `id > u`) whose body first reads or writes g2
    /// at `id - u`: on the full-mask path of the JIT's split `if`, the
    /// difference keeps the id's facts (`floor_diff`).
    fn floor_block(&mut self) {
        self.note("floor_diff");
        let id = self.rng.pick(&[
            "vThreadIDInGroupFlattened.x",
            "vThreadIDInGroup.x",
            "vThreadID.x",
        ]);
        let u = if self.rng.chance(1, 2) {
            format!("l({})", self.rng.below(72))
        } else {
            let w = format!(
                "cb0[{}].{}",
                self.rng.below(16),
                COMP[self.rng.below(4) as usize]
            );
            self.line(&format!("mov r3.z, {w}"));
            "r3.z".to_string()
        };
        let neg = match u.strip_prefix("l(") {
            Some(v) => format!("l(-{v}"),
            None => format!("-{u}"),
        };
        let (cmp, test) = match self.rng.below(3) {
            0 => (format!("uge r3.w, {id}, {u}"), "if_nz r3.w"),
            1 => (format!("ult r3.w, {id}, {u}"), "if_z r3.w"),
            _ => (format!("ult r3.w, {u}, {id}"), "if_nz r3.w"),
        };
        self.line(&cmp);
        self.line(test);
        self.ctx.push(Ctx::If);
        self.indent += 1;
        self.line(&format!("iadd r3.y, {id}, {neg}"));
        let r = self.data_reg();
        let c = COMP[self.rng.below(4) as usize];
        if self.rng.chance(1, 2) {
            self.line(&format!("ld_structured r{r}.{c}, r3.y, l(0), g2.xxxx"));
        } else {
            self.line(&format!("store_structured g2.x, r3.y, l(0), r{r}.{c}"));
        }
        self.indent -= 1;
        let n = self.rng.range(0, 3);
        self.block(n);
        self.ctx.pop();
        self.line("endif");
    }

    fn loop_block(&mut self) {
        let level = self.loops;
        let c = COMP[level as usize];
        self.line(&format!("mov r2.{c}, l(0)"));
        self.line("loop");
        self.indent += 1;
        if self.rng.chance(1, 3) {
            // Divergent trip count: 0..3 depending on the thread.
            self.note("loop_divergent_trips");
            let k = 1 + self.rng.below(3);
            self.line(&format!("and r3.w, r0.y, l({k})"));
            self.line(&format!("uge r3.w, r2.{c}, r3.w"));
        } else {
            self.note("loop_fixed_trips");
            let trips = self.rng.below(5);
            self.line(&format!("uge r3.w, r2.{c}, l({trips})"));
        }
        self.line("breakc_nz r3.w");
        self.line(&format!("iadd r2.{c}, r2.{c}, l(1)"));
        self.indent -= 1;
        self.ctx.push(Ctx::Loop);
        self.loops += 1;
        let n = self.rng.range(1, 5);
        self.block(n);
        self.loops -= 1;
        self.ctx.pop();
        self.line("endloop");
    }

    fn loop_exit(&mut self) {
        // break/continue bind to the innermost loop or switch.
        let innermost_switch = self.ctx.iter().rev().find(|c| **c != Ctx::If) == Some(&Ctx::Switch);
        let cont = (!innermost_switch || self.rng.chance(1, 2)) && self.continue_ok();
        match (self.rng.below(2), cont && self.rng.chance(1, 2)) {
            (0, false) => self.line("break"),
            (0, true) => self.line("continue"),
            (_, is_cont) => {
                let c = self.cond();
                let zn = self.zn();
                let op = if is_cont { "continuec" } else { "breakc" };
                self.line(&format!("{op}{zn} {c}"));
            }
        }
    }

    /// A top-level loop with a fixed trip count and a barrier in its body:
    /// control flow stays uniform at the barrier because nothing inside
    /// breaks, continues or returns out of this loop.
    fn uniform_loop(&mut self) {
        self.note("barrier_in_loop");
        let c = COMP[self.loops as usize];
        let trips = self.rng.range(1, 3);
        self.line(&format!("mov r2.{c}, l(0)"));
        self.line("loop");
        self.indent += 1;
        self.line(&format!("uge r3.w, r2.{c}, l({trips})"));
        self.line("breakc_nz r3.w");
        self.line(&format!("iadd r2.{c}, r2.{c}, l(1)"));
        self.indent -= 1;
        self.ctx.push(Ctx::Uniform);
        self.loops += 1;
        let n = self.rng.range(1, 3);
        self.block(n);
        self.indent += 1;
        self.sync();
        self.indent -= 1;
        let n = self.rng.range(0, 2);
        self.block(n);
        self.loops -= 1;
        self.ctx.pop();
        self.line("endloop");
    }

    fn switch_block(&mut self) {
        let r = self.data_reg();
        self.line(&format!("and r3.w, r{r}.x, l(3)"));
        self.line("switch r3.w");
        self.ctx.push(Ctx::Switch);
        let mut values: Vec<u32> = (0..4).collect();
        let ncases = self.rng.range(1, 3);
        for i in 0..ncases {
            let k = self.rng.below(values.len() as u32) as usize;
            let v = values.remove(k);
            self.line(&format!("case l({v})"));
            let n = self.rng.below(3);
            self.block(n);
            // Fall through into the next label sometimes (never out of the last one).
            if i + 1 == ncases || self.rng.chance(2, 3) {
                self.indent += 1;
                self.line("break");
                self.indent -= 1;
            } else {
                self.note("switch_fallthrough");
            }
        }
        if self.rng.chance(1, 2) {
            self.note("switch_default");
            self.line("default");
            let n = self.rng.range(1, 2);
            self.block(n);
            self.indent += 1;
            self.line("break");
            self.indent -= 1;
        }
        self.ctx.pop();
        self.line("endswitch");
    }

    fn sync(&mut self) {
        let flags = self.rng.pick(&[
            "sync_g_t",
            "sync_uglobal_g_t",
            "sync_ugroup_g_t",
            "sync_uglobal_t",
            "sync_ugroup_t",
            "sync_g",
            "sync_uglobal",
            "sync_ugroup",
            "sync_uglobal_g",
        ]);
        self.line(flags);
    }
}

struct Layout {
    tg: [u32; 3],
    groups: [u32; 3],
}

impl Layout {
    fn group_threads(&self) -> u32 {
        self.tg.iter().product()
    }
    fn threads(&self) -> u32 {
        self.group_threads() * self.groups.iter().product::<u32>()
    }
}

fn header(g: &mut Gen, l: &Layout, icb: &[u32]) {
    g.line("cs_5_0");
    g.line("dcl_globalFlags refactoringAllowed | enableDoublePrecisionFloatOps | enable11_1DoubleExtensions | enable11_1ShaderExtensions");
    let rows: Vec<String> = icb
        .chunks(4)
        .map(|c| {
            let v: Vec<String> = c.iter().map(|w| hex(*w)).collect();
            format!("{{ {} }}", v.join(", "))
        })
        .collect();
    g.line(&format!(
        "dcl_immediateConstantBuffer {{ {} }}",
        rows.join(",\n")
    ));
    g.line("dcl_constantbuffer cb0[16], dynamicIndexed");
    g.line("dcl_resource_raw t0");
    g.line("dcl_resource_structured t1, 16");
    g.line("dcl_resource_buffer (uint,uint,uint,uint) t2");
    g.line("dcl_uav_raw u0");
    g.line("dcl_uav_structured u1, 16");
    g.line("dcl_uav_typed_buffer (uint,uint,uint,uint) u2");
    g.line("dcl_uav_structured u3, 4");
    g.line("dcl_input vThreadGroupID.xyz");
    g.line("dcl_input vThreadIDInGroupFlattened");
    g.line("dcl_input vThreadIDInGroup.xyz");
    g.line("dcl_input vThreadID.xyz");
    g.line("dcl_temps 10");
    g.line("dcl_indexableTemp x0[8], 4");
    let lt = l.group_threads();
    g.line(&format!("dcl_tgsm_raw g0, {}", G0_SHARED + lt * G0_REGION));
    g.line(&format!(
        "dcl_tgsm_structured g1, 8, {}",
        lt * G1_PER_THREAD
    ));
    g.line(&format!("dcl_tgsm_structured g2, 4, {lt}"));
    g.line(&format!(
        "dcl_thread_group {}, {}, {}",
        l.tg[0], l.tg[1], l.tg[2]
    ));
}

fn prologue(g: &mut Gen, l: &Layout) {
    let [gx, gy, _] = l.groups;
    let lt = l.group_threads();
    if g.rng.chance(1, 4) {
        tgsm_written_first(g);
    }
    g.line("mov r0.y, vThreadIDInGroupFlattened.x");
    g.line(&format!(
        "imad r0.x, vThreadGroupID.y, l({gx}), vThreadGroupID.x"
    ));
    g.line(&format!(
        "imad r0.x, vThreadGroupID.z, l({}), r0.x",
        gx * gy
    ));
    g.line(&format!("imad r0.x, r0.x, l({lt}), r0.y"));
    g.line(&format!("imad r0.z, r0.x, l({U0_REGION}), l({U0_SHARED})"));
    g.line(&format!("imad r0.w, r0.y, l({G0_REGION}), l({G0_SHARED})"));
    g.line(&format!("imul null, r1.x, r0.x, l({U1_PER_THREAD})"));
    g.line(&format!("imul null, r1.y, r0.x, l({U2_PER_THREAD})"));
    g.line(&format!("imul null, r1.z, r0.y, l({G1_PER_THREAD})"));
    g.line("mov r1.w, l(0)");
    g.line("mov r2.xyzw, l(0, 0, 0, 0)");
    g.line("mov r3.xyzw, l(0, 0, 0, 0)");
    for r in 4..10 {
        let text = match g.rng.below(4) {
            0 => format!("mov r{r}.xyzw, vThreadID.xyzx"),
            1 => {
                let k = g.rng.below(16);
                format!("mov r{r}.xyzw, cb0[{k}].xyzw")
            }
            2 => format!("utof r{r}.xyzw, vThreadIDInGroup.xyzx"),
            _ => {
                let v: Vec<String> = (0..4).map(|_| hex(g.value())).collect();
                format!("mov r{r}.xyzw, l({})", v.join(", "))
            }
        };
        g.line(&text);
        if g.rng.chance(1, 2) {
            g.line(&format!("iadd r{r}.xyzw, r{r}.xyzw, vThreadID.xyzx"));
        }
    }
    for i in 0..8 {
        let r = g.data_reg();
        g.line(&format!("mov x0[{i}].xyzw, r{r}.yzwx"));
    }
}

/// Stores every DWORD of g0, g1 and g2 and then a barrier, before anything
/// else: the analysis then finds the group's TGSM written before it is
/// read, and the JIT runs the groups without clearing it
/// (`analysis::Prepared::tgsm_written_first`). r1 is scratch here; the
/// prologue sets it after.
fn tgsm_written_first(g: &mut Gen) {
    g.note("tgsm_written_first");
    let value = |g: &mut Gen| {
        if g.rng.chance(1, 2) {
            "vThreadID.xyzx".to_string()
        } else {
            let v: Vec<String> = (0..4).map(|_| hex(g.value())).collect();
            format!("l({})", v.join(", "))
        }
    };
    // g0: the shared head at constant addresses, then each thread's region.
    for at in (0..G0_SHARED).step_by(16) {
        let v = value(g);
        g.line(&format!("store_raw g0.xyzw, l({at}), {v}"));
    }
    g.line(&format!(
        "imad r1.x, vThreadIDInGroupFlattened.x, l({G0_REGION}), l({G0_SHARED})"
    ));
    for k in 0..G0_REGION / 16 {
        g.line(&format!("iadd r1.y, r1.x, l({})", 16 * k));
        let v = value(g);
        g.line(&format!("store_raw g0.xyzw, r1.y, {v}"));
    }
    // g1 (stride 8): each thread's elements, through offsets past the stride.
    g.line(&format!(
        "imul null, r1.z, vThreadIDInGroupFlattened.x, l({G1_PER_THREAD})"
    ));
    for e in 0..G1_PER_THREAD {
        let v = value(g);
        g.line(&format!("store_structured g1.xy, r1.z, l({}), {v}", 8 * e));
    }
    let v = value(g);
    g.line(&format!(
        "store_structured g2.x, vThreadIDInGroupFlattened.x, l(0), {v}"
    ));
    g.line("sync_g_t");
}

/// Dumps the data registers and x0 into the private u0 region; if no thread
/// can have returned, also a barrier and the shared g0 words.
fn epilogue(g: &mut Gen) {
    for r in 4..10 {
        g.line(&format!("store_raw u0.xyzw, r0.z, r{r}.xyzw"));
        g.line("iadd r0.z, r0.z, l(16)");
    }
    for i in 0..8 {
        g.line(&format!("store_raw u0.xyzw, r0.z, x0[{i}].xyzw"));
        g.line("iadd r0.z, r0.z, l(16)");
    }
    if !g.returned {
        g.line("sync_g_t");
        for k in 0..2 {
            g.line(&format!("ld_raw r4.xyzw, l({}), g0.xyzw", k * 16));
            g.line("store_raw u0.xyzw, r0.z, r4.xyzw");
            g.line("iadd r0.z, r0.z, l(16)");
        }
    }
    g.line("ret");
}

fn words(rng: &mut Rng, n: u32) -> Vec<u32> {
    (0..n)
        .map(|_| {
            if rng.chance(1, 3) {
                rng.pick(&SPECIAL32)
            } else if rng.chance(1, 2) {
                rng.below(64)
            } else {
                rng.next_u32()
            }
        })
        .collect()
}

/// Shortens a size sometimes so the last threads' accesses go out of bounds.
fn cut(rng: &mut Rng, n: u32, unit: u32) -> u32 {
    match rng.below(4) {
        0 => n.saturating_sub(unit * rng.range(1, 3)),
        1 => n.saturating_sub(rng.range(1, 3)),
        _ => n,
    }
}

fn make_inputs(rng: &mut Rng, l: &Layout, counter_alloc: bool) -> FuzzInputs {
    let t = l.threads();
    let buf = |slot: &str, kind, stride, format: Option<&str>, words: Vec<u32>| BufferInput {
        slot: slot.to_string(),
        kind,
        stride,
        format: format.map(str::to_string),
        counter: None,
        words,
    };
    let u0_words = cut(rng, (U0_SHARED + t * U0_REGION) / 4, U0_REGION / 4);
    let u0 = {
        let mut w = words(rng, u0_words);
        // Shared atomic words start from values every op can move.
        for (i, v) in w.iter_mut().take(9).enumerate() {
            *v = [
                0xFFFF_FFFF,
                0,
                0x5A5A_5A5A,
                7,
                0,
                0,
                0x8000_0000,
                0xFFFF_FFFF,
                0,
            ][i];
        }
        w
    };
    let u1_words = cut(rng, t * U1_PER_THREAD * 4, 4);
    let u2_words = cut(rng, t * U2_PER_THREAD, 1);
    let t0_words = rng.range(8, 64);
    let t1_words = rng.range(2, 8) * 4 + rng.below(2);
    let t2_words = rng.range(2, 8) * 4;
    let cb_words = rng.range(4, 64);
    let mut u3 = buf("u3", BufferKind::Structured, 4, None, vec![0; 4]);
    u3.counter = Some(if counter_alloc {
        rng.below(10)
    } else {
        rng.range(t / 2, t + 3)
    });
    FuzzInputs {
        groups: l.groups,
        buffers: vec![
            buf("u0", BufferKind::Raw, 0, None, u0),
            buf("u1", BufferKind::Structured, 16, None, words(rng, u1_words)),
            buf(
                "u2",
                BufferKind::Typed,
                0,
                Some("R32_UINT"),
                words(rng, u2_words),
            ),
            u3,
            buf("t0", BufferKind::Raw, 0, None, words(rng, t0_words)),
            buf("t1", BufferKind::Structured, 16, None, words(rng, t1_words)),
            buf(
                "t2",
                BufferKind::Typed,
                0,
                Some("R32G32B32A32_UINT"),
                words(rng, t2_words),
            ),
            buf("cb0", BufferKind::Constant, 0, None, words(rng, cb_words)),
        ],
    }
}

/// Why a generated program was rejected (a generator bug).
#[derive(Debug, thiserror::Error)]
pub enum GenError {
    #[error("seed {seed}: generated text does not parse: {message}\n{text}")]
    Parse {
        seed: u64,
        message: String,
        text: String,
    },
    #[error("seed {seed}: generated program is invalid: {message}\n{text}")]
    Invalid {
        seed: u64,
        message: String,
        text: String,
    },
}

/// The text of the program for `seed` (not yet parsed), and its inputs.
pub fn generate_text(seed: u64, cfg: &GenConfig) -> (String, FuzzInputs) {
    let (text, inputs, _) = generate_text_forms(seed, cfg);
    (text, inputs)
}

/// [`generate_text`] with the [`Forms`] the program contains.
fn generate_text_forms(seed: u64, cfg: &GenConfig) -> (String, FuzzInputs, Forms) {
    let mut rng = Rng::new(seed);
    let tg = rng.pick(&GROUP_SHAPES);
    let groups = [rng.range(1, 3), rng.range(1, 2), 1];
    let layout = Layout { tg, groups };
    let icb: Vec<u32> = words(&mut rng, 32);
    let mut g = Gen {
        counter_alloc: rng.chance(1, 2),
        has_sub: rng.chance(1, 2),
        rng,
        out: String::new(),
        indent: 0,
        ctx: Vec::new(),
        loops: 0,
        returned: false,
        in_sub: false,
        cfg: *cfg,
        forms: Forms::new(),
    };
    header(&mut g, &layout, &icb);
    prologue(&mut g, &layout);
    let n = g.rng.range(cfg.top_statements / 2, cfg.top_statements);
    for k in 0..n {
        if k == 0 && g.rng.chance(1, 6) {
            g.early_return();
        } else if !g.returned && g.rng.chance(1, 10) {
            g.note("barrier_top");
            g.sync();
        } else if !g.returned && g.rng.chance(1, 12) {
            g.uniform_loop();
        } else {
            g.statement();
        }
    }
    epilogue(&mut g);
    if g.has_sub {
        g.line("label l1");
        g.in_sub = true;
        // The subroutine's loops count in r2.w so they never clobber a caller's counter.
        g.loops = 3;
        let n = g.rng.range(1, 4);
        g.block(n);
        g.line("ret");
    }
    let inputs = make_inputs(&mut g.rng, &layout, g.counter_alloc);
    let mut forms = g.forms;
    if layout.group_threads() % 8 == 0 {
        // Every batch of 8 full: the JIT's full-mask paths.
        *forms.entry("group_whole_batches").or_default() += 1;
    }
    let full = |slot: &str| match slot {
        "u0" => (U0_SHARED + layout.threads() * U0_REGION) / 4,
        "u1" => layout.threads() * U1_PER_THREAD * 4,
        "u2" => layout.threads() * U2_PER_THREAD,
        _ => 0,
    };
    for (b, form) in inputs
        .buffers
        .iter()
        .zip(["short_u0", "short_u1", "short_u2"])
    {
        if (b.words.len() as u32) < full(&b.slot) {
            *forms.entry(form).or_default() += 1;
        }
    }
    let mut text = g.out;
    let _ = writeln!(text, "// seed {seed}");
    (text, inputs, forms)
}

/// Generates, parses and validates the program for `seed`.
pub fn generate(seed: u64, cfg: &GenConfig) -> Result<Generated, GenError> {
    let (text, inputs, forms) = generate_text_forms(seed, cfg);
    let program = sm5jit::asm::parse_program(&text).map_err(|e| GenError::Parse {
        seed,
        message: e.to_string(),
        text: text.clone(),
    })?;
    sm5jit::validate::validate(&program).map_err(|e| GenError::Invalid {
        seed,
        message: e.to_string(),
        text: text.clone(),
    })?;
    Ok(Generated {
        seed,
        text,
        program,
        inputs,
        forms,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_read_from_the_table_have_their_members() {
        let sizes = [
            (&SHARED_ATOMICS, 8, Opcode::AtomicUMin),
            (&IMM_ATOMICS, 9, Opcode::ImmAtomicExch),
            (&FLOAT_UNARY, 10, Opcode::Rcp),
            (&FLOAT_BINARY, 12, Opcode::Ne),
            (&INT_UNARY, 7, Opcode::BfRev),
            (&INT_BINARY, 17, Opcode::UGe),
            (&INT_TERNARY, 5, Opcode::Msad),
            (&CONVERT, 6, Opcode::F16tof32),
            (&DOUBLE_BINARY, 5, Opcode::DDiv),
            (&DOUBLE_COMPARE, 4, Opcode::DNe),
            (&DOUBLE_TO_32, 3, Opcode::Dtou),
            (&TO_DOUBLE, 3, Opcode::Utod),
        ];
        for (family, n, member) in sizes {
            assert_eq!(family.len(), n, "{member:?}");
            assert!(family.contains(&member), "{member:?}");
        }
        assert!(!FLOAT_BINARY.contains(&Opcode::IEq));
        assert!(!INT_BINARY.contains(&Opcode::Eq));
    }

    #[test]
    fn same_seed_same_program() {
        let cfg = GenConfig::default();
        let a = generate_text(42, &cfg);
        let b = generate_text(42, &cfg);
        assert_eq!(a.0, b.0);
        assert_eq!(a.1, b.1);
        assert_ne!(a.0, generate_text(43, &cfg).0);
    }

    #[test]
    fn first_seeds_parse_and_validate() {
        for seed in 0..400 {
            if let Err(e) = generate(seed, &GenConfig::default()) {
                panic!("{e}");
            }
        }
    }

    #[test]
    fn the_tgsm_written_first_form_is_what_the_analysis_finds() {
        let mut with = 0;
        for seed in 0..200 {
            let g = generate(seed, &GenConfig::default()).unwrap();
            let form = g.forms.contains_key("tgsm_written_first");
            let fact = sm5jit::analysis::prepare(&g.program)
                .unwrap()
                .tgsm_written_first;
            assert_eq!(form, fact, "seed {seed}");
            with += u32::from(form);
        }
        assert!((20..100).contains(&with), "{with} of 200");
    }

    #[test]
    fn exact_listings_of_generated_programs_parse_back() {
        let opts = sm5jit::asm::PrintOptions {
            exact: true,
            style: sm5jit::asm::ListingStyle::Modern,
        };
        for seed in 0..30 {
            let g = generate(seed, &GenConfig::default()).unwrap();
            let text = sm5jit::asm::print_program(&g.program, &opts);
            assert_eq!(
                sm5jit::asm::parse_program(&text).unwrap(),
                g.program,
                "seed {seed}"
            );
        }
    }
}
