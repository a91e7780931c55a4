//! A mutant JIT: the real JIT handed a deliberately wrong program or
//! bindings, standing in for a miscompiling JIT when we prove that the
//! differential fuzzer catches real miscompilations (`fault.rs`).
//!
//! In: a [`Mutation`] and the programs and resources a fuzz run gives an
//! engine. Out: a case-runner [`Engine`] (`mutant-jit`) that compiles the
//! mutated program with the unmodified JIT and runs it over the (perturbed)
//! resources. Invariants: the mutations live only in this test binary, so
//! the library and everything built from it carry no fault-injection code
//! (`docs/testing.md`); every mutation is the effect of a plausible
//! lowering bug (a wrong condition code, a dropped clamp, a swapped lane
//! selector, a wrong shift, a wrong exec mask, a bound one element short)
//! and never widens what the JIT may touch: a perturbed view is smaller
//! than the bound one, never larger.

use sm5jit::ir::{Components, Instruction, Modifier, Opcode, Operand, Program, Selection};
use sm5jit_tools::case::jit::JitEngine;
use sm5jit_tools::case::spec::ResourceKindSpec;
use sm5jit_tools::case::{Engine, EngineError, EngineOptions, Resource};
use sm5jit_tools::fuzz::run::FUZZ_BUDGET;

/// The miscompilations the mutant JIT makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mutation {
    /// `ilt d, a, b` compiled as `ige d, b, a`: a signed `<=`.
    IltAsIle,
    /// `lt d, a, b` compiled as "less than or unordered" (`ge` then
    /// `not`): NaN compares true.
    LtNanTrue,
    /// `if_nz` and `if_z` swapped: the then-branch runs with the inverted
    /// execution mask.
    IfMaskInverted,
    /// Every buffer view (raw, structured, typed) bound one element (a DWORD for
    /// raw views) short: the last element reads 0 and ignores stores.
    ViewOneShort,
    /// `_sat` dropped.
    SatDropped,
    /// Source swizzles read the `.x` and `.y` selectors swapped.
    SwizzleXySwapped,
    /// `ushr` compiled as an arithmetic shift.
    UshrAsIshr,
}

impl Mutation {
    /// Every mutation, in a fixed order.
    pub const ALL: [Mutation; 7] = [
        Mutation::IltAsIle,
        Mutation::LtNanTrue,
        Mutation::IfMaskInverted,
        Mutation::ViewOneShort,
        Mutation::SatDropped,
        Mutation::SwizzleXySwapped,
        Mutation::UshrAsIshr,
    ];

    /// `program` as the mutant compiles it.
    pub fn program(self, program: &Program) -> Program {
        let mut p = program.clone();
        p.insts = program
            .insts
            .iter()
            .flat_map(|inst| self.instruction(inst))
            .collect();
        p
    }

    /// What the mutant makes of one instruction (one or two instructions).
    fn instruction(self, inst: &Instruction) -> Vec<Instruction> {
        let mut i = inst.clone();
        match (self, inst.opcode) {
            (Mutation::IltAsIle, Opcode::ILt) => {
                i.opcode = Opcode::IGe;
                i.operands.swap(1, 2);
            }
            (Mutation::LtNanTrue, Opcode::Lt) => {
                i.opcode = Opcode::Ge;
                return vec![i, not_in_place(&inst.operands[0])];
            }
            (Mutation::IfMaskInverted, Opcode::If) => i.controls ^= TEST_NZ,
            (Mutation::UshrAsIshr, Opcode::UShr) => i.opcode = Opcode::IShr,
            (Mutation::SatDropped, _) => i.controls &= !SATURATE,
            // Destinations carry masks, so this touches sources only.
            (Mutation::SwizzleXySwapped, _) => {
                for op in &mut i.operands {
                    if let Components::Four(Selection::Swizzle(s)) = &mut op.comps {
                        s.swap(0, 1);
                    }
                }
            }
            _ => {}
        }
        vec![i]
    }

    /// Shrinks the views of `resources` as the mutant binds them; returns
    /// the original sizes for [`Mutation::restore`].
    fn bind(self, resources: &mut [Resource]) -> Vec<u32> {
        let before = resources.iter().map(|r| r.num_elements).collect();
        if self == Mutation::ViewOneShort {
            for r in resources.iter_mut().filter(|r| is_buffer(r.kind)) {
                r.num_elements = r.num_elements.saturating_sub(1);
            }
        }
        before
    }

    fn restore(resources: &mut [Resource], sizes: Vec<u32>) {
        for (r, n) in resources.iter_mut().zip(sizes) {
            r.num_elements = n;
        }
    }
}

/// The saturate bit of an instruction's controls (`Instruction::saturate`).
const SATURATE: u32 = 0x4;
/// The `_nz` bit of a conditional's controls (`Instruction::test_nz`).
const TEST_NZ: u32 = 0x80;

fn is_buffer(kind: ResourceKindSpec) -> bool {
    matches!(
        kind,
        ResourceKindSpec::Raw | ResourceKindSpec::Structured | ResourceKindSpec::Typed
    )
}

/// `not d, d` over the components `d` writes.
fn not_in_place(dst: &Operand) -> Instruction {
    let mut src = dst.clone();
    src.comps = Components::Four(Selection::Swizzle([0, 1, 2, 3]));
    src.modifier = Modifier::None;
    Instruction::new(Opcode::Not, vec![dst.clone(), src])
}

/// The JIT engine compiling and binding through a [`Mutation`].
pub struct MutantJit {
    mutation: Mutation,
    jit: JitEngine,
}

impl MutantJit {
    /// A mutant with the fuzzer's budget and one thread, like `jit`.
    pub fn new(mutation: Mutation) -> MutantJit {
        MutantJit {
            mutation,
            // Tier 1 explicitly: faults are injected into compiles on this
            // thread, and an auto shader's tier-1 compile runs on another.
            jit: JitEngine::new(EngineOptions {
                budget: Some(FUZZ_BUDGET),
                threads: Some(1),
                tier: sm5jit::jit::Tier::One,
            }),
        }
    }
}

impl Engine for MutantJit {
    fn name(&self) -> &'static str {
        "mutant-jit"
    }

    fn prepare(&mut self, program: &Program) -> Result<(), EngineError> {
        self.jit.prepare(&self.mutation.program(program))
    }

    fn dispatch(
        &mut self,
        program: &Program,
        resources: &mut [Resource],
        groups: [u32; 3],
    ) -> Result<(), EngineError> {
        let p = self.mutation.program(program);
        let sizes = self.mutation.bind(resources);
        let run = self.jit.dispatch(&p, resources, groups);
        Mutation::restore(resources, sizes);
        run
    }

    fn invoke(
        &mut self,
        program: &Program,
        resources: &mut [Resource],
    ) -> Result<Vec<(u32, [u32; 4])>, EngineError> {
        let p = self.mutation.program(program);
        let sizes = self.mutation.bind(resources);
        let run = self.jit.invoke(&p, resources);
        Mutation::restore(resources, sizes);
        run
    }
}
