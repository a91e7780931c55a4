//! Running one program on two engines and comparing what they wrote.
//!
//! In: a program, its [`FuzzInputs`] and two [`Engine`]s. Out: a
//! [`Verdict`]. Invariant: each engine gets its own fresh copy of every
//! resource; the comparison covers every byte of every UAV (word by word,
//! in slot order) and every hidden counter. Values are compared bit for
//! bit: both engines canonicalise the NaNs arithmetic produces
//! (`docs/semantics.md`), so even NaN payloads must agree. Running out of
//! the instruction budget counts as agreement only when both engines do.

use std::fmt;

use crate::case::{Engine, EngineError, Resource, SlotClass};
use sm5jit::ir::Program;

use super::inputs::FuzzInputs;

/// The first difference between two runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    /// `u0`, `u3.counter`, ...
    pub slot: String,
    /// Word index inside the slot (0 for counters and size differences).
    pub word: usize,
    pub a: u32,
    pub b: u32,
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} word {} (byte {}): 0x{:08x} vs 0x{:08x}",
            self.slot,
            self.word,
            self.word * 4,
            self.a,
            self.b
        )
    }
}

/// The outcome of one differential run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Every UAV byte and counter equal.
    Agree,
    /// Both engines ran out of the instruction budget.
    BothOutOfBudget,
    /// The first differing word.
    Differ(Difference),
    /// One or both engines failed (other than both running out of budget).
    Error { engine: String, message: String },
}

impl Verdict {
    /// True when the engines agree (including both out of budget).
    pub fn agrees(&self) -> bool {
        matches!(self, Verdict::Agree | Verdict::BothOutOfBudget)
    }
}

fn is_budget(e: &EngineError) -> bool {
    matches!(e, EngineError::Failed(m) if m.contains("instruction budget exhausted"))
}

/// Runs `engine` on fresh resources; returns them after the dispatch.
pub fn run_one(
    engine: &mut dyn Engine,
    program: &Program,
    inputs: &FuzzInputs,
) -> Result<Vec<Resource>, EngineError> {
    let mut res = inputs
        .resources()
        .map_err(|e| EngineError::Failed(e.to_string()))?;
    engine.prepare(program)?;
    engine.dispatch(program, &mut res, inputs.groups)?;
    Ok(res)
}

/// The first difference between the UAVs of two runs, if any.
pub fn first_difference(a: &[Resource], b: &[Resource]) -> Option<Difference> {
    for (ra, rb) in a.iter().zip(b) {
        if ra.slot.class != SlotClass::Uav {
            continue;
        }
        let name = format!("u{}", ra.slot.index);
        let word = |d: &[u8], i: usize| -> u32 {
            let mut w = [0u8; 4];
            for (k, byte) in w.iter_mut().enumerate() {
                *byte = d.get(i * 4 + k).copied().unwrap_or(0);
            }
            u32::from_le_bytes(w)
        };
        let words = ra.data.len().max(rb.data.len()).div_ceil(4);
        if let Some(i) = (0..words).find(|&i| word(&ra.data, i) != word(&rb.data, i)) {
            return Some(Difference {
                slot: name,
                word: i,
                a: word(&ra.data, i),
                b: word(&rb.data, i),
            });
        }
        if ra.data.len() != rb.data.len() {
            return Some(Difference {
                slot: format!("{name}.size"),
                word: 0,
                a: ra.data.len() as u32,
                b: rb.data.len() as u32,
            });
        }
        if ra.counter != rb.counter {
            return Some(Difference {
                slot: format!("{name}.counter"),
                word: 0,
                a: ra.counter.unwrap_or(0),
                b: rb.counter.unwrap_or(0),
            });
        }
    }
    None
}

/// Runs both engines and compares every UAV byte and counter.
pub fn compare_engines(
    a: &mut dyn Engine,
    b: &mut dyn Engine,
    program: &Program,
    inputs: &FuzzInputs,
) -> Verdict {
    let ra = run_one(a, program, inputs);
    let rb = run_one(b, program, inputs);
    compare_results(a.name(), ra, b.name(), rb)
}

/// Compares two finished runs, however they were produced (engines or
/// closures over fresh [`FuzzInputs::resources`]).
pub fn compare_results(
    name_a: &str,
    ra: Result<Vec<Resource>, EngineError>,
    name_b: &str,
    rb: Result<Vec<Resource>, EngineError>,
) -> Verdict {
    match (ra, rb) {
        (Ok(ra), Ok(rb)) => match first_difference(&ra, &rb) {
            None => Verdict::Agree,
            Some(d) => Verdict::Differ(d),
        },
        (Err(ea), Err(eb)) if is_budget(&ea) && is_budget(&eb) => Verdict::BothOutOfBudget,
        (Err(e), _) => Verdict::Error {
            engine: name_a.to_string(),
            message: e.to_string(),
        },
        (_, Err(e)) => Verdict::Error {
            engine: name_b.to_string(),
            message: e.to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::spec::ResourceKindSpec;
    use crate::case::SlotRef;

    fn uav(data: Vec<u8>, counter: Option<u32>) -> Resource {
        Resource {
            slot: SlotRef::parse("u2", 0).unwrap(),
            kind: ResourceKindSpec::Raw,
            stride: 0,
            format: None,
            width: 0,
            height: 0,
            first_element: 0,
            num_elements: (data.len() / 4) as u32,
            data,
            counter,
        }
    }

    #[test]
    fn reports_the_first_differing_word_and_counters() {
        let a = [uav(vec![0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0], None)];
        let b = [uav(vec![0, 0, 0, 0, 1, 0, 0, 0xFF, 3, 0, 0, 0], None)];
        let d = first_difference(&a, &b).unwrap();
        assert_eq!(
            (d.slot.as_str(), d.word, d.a, d.b),
            ("u2", 1, 1, 0xFF00_0001)
        );
        assert!(d.to_string().contains("byte 4"));
        assert_eq!(first_difference(&a, &a), None);
        let c = [uav(vec![0; 4], Some(1))];
        let e = [uav(vec![0; 4], Some(2))];
        assert_eq!(first_difference(&c, &e).unwrap().slot, "u2.counter");
    }

    #[test]
    fn budget_is_agreement_only_when_both_run_out() {
        let budget = || {
            EngineError::Failed(
                "instruction budget exhausted in group [0, 0, 0] at instruction 3".into(),
            )
        };
        assert_eq!(
            compare_results("a", Err(budget()), "b", Err(budget())),
            Verdict::BothOutOfBudget
        );
        let v = compare_results("a", Ok(vec![]), "b", Err(budget()));
        assert!(
            matches!(v, Verdict::Error { ref engine, .. } if engine == "b"),
            "{v:?}"
        );
        assert!(!v.agrees());
        assert_eq!(
            compare_results("a", Ok(vec![]), "b", Ok(vec![])),
            Verdict::Agree
        );
    }

    #[test]
    fn nan_payloads_are_compared_exactly() {
        let a = [uav(0x7FC0_0000u32.to_le_bytes().to_vec(), None)];
        let b = [uav(0x7FC0_0001u32.to_le_bytes().to_vec(), None)];
        assert!(first_difference(&a, &b).is_some());
    }
}
