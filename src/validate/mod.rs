//! Program validation: checks a decoded or parsed [`Program`] against the
//! rules of its shader model and gathers what the engines need to run it.
//!
//! In: a [`Program`] straight from `dxbc::decode` or `asm::parse` (only the
//! token format has been checked). Out: a [`ProgramInfo`] (declared resources
//! by slot, TGSM layout, register counts, the control-flow match table, ...)
//! or the first [`ValidationError`], which names the instruction or
//! declaration index into `p.insts` / `p.decls` and says what is wrong.
//!
//! Invariant: when [`validate`] returns `Ok`, an engine may rely on every
//! register index being declared (constant indices in range), every resource
//! operand naming a declaration of a kind the opcode accepts, every
//! structured construct being balanced with its matches recorded in
//! [`FlowTable`], every operand count matching the opcode, and the model's
//! limits (`sm5-semantics.md` §2, §15) holding. Dynamic (relative) indices
//! are not checked here; engines bound-check them at run time.
//!
//! The checks are split by concern: `limits` (per-model limits and opcode
//! availability), `resources` (declarations and register files), `kinds`
//! (resource kinds per opcode), `shape` (operand counts, destinations,
//! masks) and `cfg` (structured control flow); `info` holds the
//! [`ProgramInfo`] types.

mod cfg;
mod info;
mod kinds;
mod limits;
mod resources;
mod shape;

use crate::ir::{Opcode, Program};

pub use cfg::{Flow, FlowTable, MAX_NESTING};
pub use info::{
    CbInfo, IndexableTempInfo, IoReg, ProgramInfo, ResourceInfo, ResourceKind, SamplerInfo,
    TgsmInfo, TgsmKind, UavInfo,
};
pub use limits::global_flags;

/// Which family of rule a [`ValidationError`] breaks (for callers and tests
/// that want to match on the kind without parsing the message).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    /// A register or resource is used without a declaration, or a constant
    /// index is past the declared size.
    Undeclared,
    /// A declaration is malformed, duplicated or out of the model's limits.
    Declaration,
    /// A resource operand names a declaration of the wrong kind.
    ResourceKind,
    /// The opcode or declaration is not available in this model or kind.
    Model,
    /// A model limit (thread-group size, TGSM size, slot counts, ...).
    Limit,
    /// Unbalanced or misplaced structured control flow, bad labels.
    Flow,
    /// Wrong operand count, register file, mask or swizzle.
    Operand,
}

/// A program that breaks a rule of its shader model. Displays as
/// `instruction 12 (ld_structured): t3 is not declared`,
/// `declaration 2 (dcl_tgsm_raw): ...` or `program: ...`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}: {message}", location(*.inst_index, *.decl_index, *.opcode))]
pub struct ValidationError {
    pub rule: Rule,
    /// Index into `Program::insts` of the offending instruction.
    pub inst_index: Option<usize>,
    /// Index into `Program::decls` of the offending declaration.
    pub decl_index: Option<usize>,
    /// The opcode of that instruction or declaration.
    pub opcode: Option<Opcode>,
    pub message: String,
}

impl ValidationError {
    /// An error about the whole program (no single instruction to blame).
    pub fn program(rule: Rule, message: impl Into<String>) -> ValidationError {
        ValidationError {
            rule,
            inst_index: None,
            decl_index: None,
            opcode: None,
            message: message.into(),
        }
    }

    /// An error about instruction `index` of `p.insts`.
    pub fn inst(
        rule: Rule,
        index: usize,
        opcode: Opcode,
        message: impl Into<String>,
    ) -> ValidationError {
        ValidationError {
            rule,
            inst_index: Some(index),
            decl_index: None,
            opcode: Some(opcode),
            message: message.into(),
        }
    }

    /// An error about declaration `index` of `p.decls`.
    pub fn decl(
        rule: Rule,
        index: usize,
        opcode: Opcode,
        message: impl Into<String>,
    ) -> ValidationError {
        ValidationError {
            rule,
            inst_index: None,
            decl_index: Some(index),
            opcode: Some(opcode),
            message: message.into(),
        }
    }

    /// The base mnemonic of the offending opcode, if there is one.
    pub fn mnemonic(&self) -> Option<&'static str> {
        self.opcode.map(Opcode::mnemonic)
    }
}

/// Where an error happened, for its message.
fn location(inst: Option<usize>, decl: Option<usize>, opcode: Option<Opcode>) -> String {
    let name = opcode.map_or("?", Opcode::mnemonic);
    match (inst, decl) {
        (Some(i), _) => format!("instruction {i} ({name})"),
        (None, Some(d)) => format!("declaration {d} ({name})"),
        (None, None) => "program".to_string(),
    }
}

/// Shorthand used by the submodules.
pub(crate) type VResult<T> = Result<T, ValidationError>;

/// Validates `p` and returns what the engines need to run it.
///
/// Order: declarations first (they build the slot tables every later check
/// reads), then per-instruction availability and operand checks, then the
/// structured control flow, then the whole-program limits.
pub fn validate(p: &Program) -> Result<ProgramInfo, ValidationError> {
    let mut info = resources::collect_decls(p)?;
    for (index, inst) in p.insts.iter().enumerate() {
        limits::check_opcode_available(p, &info, index, inst)?;
        shape::check_shape(p, index, inst)?;
        resources::check_instruction(p, &mut info, index, inst)?;
    }
    let (flow, labels) = cfg::build_flow(p)?;
    info.flow = flow;
    info.labels = labels;
    limits::check_program_limits(p, &info)?;
    Ok(info)
}

#[cfg(test)]
pub(crate) mod testutil;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_instruction_and_mnemonic() {
        let e = ValidationError::inst(
            Rule::Undeclared,
            12,
            Opcode::LdStructured,
            "t3 is not declared",
        );
        assert_eq!(
            e.to_string(),
            "instruction 12 (ld_structured): t3 is not declared"
        );
        let d = ValidationError::decl(Rule::Limit, 2, Opcode::DclTgsmRaw, "too big");
        assert_eq!(d.to_string(), "declaration 2 (dcl_tgsm_raw): too big");
        let g = ValidationError::program(Rule::Limit, "dcl_thread_group is missing");
        assert_eq!(g.to_string(), "program: dcl_thread_group is missing");
    }
}
