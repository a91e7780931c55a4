//! The reference interpreter as a case-runner [`Engine`].
//!
//! In: a program and case [`Resource`]s. Out: the resources updated in place
//! (UAV bytes and hidden counters) or the `o#` registers of a pixel-shader
//! invocation. Invariant: each resource is bound with exactly the view the
//! case describes (its window, stride or format), so the interpreter's
//! bounds checks see what the original test bound; runtime errors keep
//! their message, and `RuntimeError::Unsupported` becomes a skip.

use super::spec::ResourceKindSpec;
use super::{Engine, EngineError, EngineOptions, Resource, SlotClass};
use sm5jit::interp::Interpreter;
use sm5jit::ir::Program;
use sm5jit::runtime::{
    Bindings, BufferKind, BufferView, DispatchOptions, Format, RuntimeError, Slot, TextureView,
    View,
};

/// Runs programs on [`Interpreter`]; keeps the last prepared program so a
/// case's dispatches share one preparation.
pub struct InterpEngine {
    options: DispatchOptions,
    prepared: Option<(Program, Interpreter)>,
}

impl InterpEngine {
    pub fn new(opts: EngineOptions) -> InterpEngine {
        let mut options = DispatchOptions::default();
        if let Some(b) = opts.budget {
            options.budget = b;
        }
        InterpEngine {
            options,
            prepared: None,
        }
    }

    fn interpreter(&mut self, program: &Program) -> Result<&Interpreter, EngineError> {
        let fresh = !matches!(&self.prepared, Some((p, _)) if p == program);
        if fresh {
            let interp = Interpreter::new(program).map_err(runtime_error)?;
            self.prepared = Some((program.clone(), interp));
        }
        match &self.prepared {
            Some((_, interp)) => Ok(interp),
            None => Err(EngineError::Failed("no prepared program".into())),
        }
    }
}

/// An engine error for a runtime error (`Unsupported` makes a case SKIP).
pub(crate) fn runtime_error(e: RuntimeError) -> EngineError {
    match e {
        RuntimeError::Unsupported { .. } => EngineError::Unsupported(format!("needs {e}")),
        other => EngineError::Failed(other.to_string()),
    }
}

fn slot_of(r: &Resource) -> Slot {
    Slot {
        space: r.slot.space,
        index: r.slot.index,
    }
}

/// The runtime view matching a case resource.
fn view(r: &Resource) -> Result<View, EngineError> {
    let format = || -> Result<Format, EngineError> {
        let name = r.format.as_deref().unwrap_or("");
        Format::from_dxgi_name(name)
            .ok_or_else(|| EngineError::Unsupported(format!("needs format {name}")))
    };
    let buffer = |kind: BufferKind| {
        View::Buffer(BufferView {
            kind,
            first_element: u64::from(r.first_element),
            num_elements: u64::from(r.num_elements),
        })
    };
    Ok(match r.kind {
        ResourceKindSpec::Raw | ResourceKindSpec::Constant => buffer(BufferKind::Raw),
        ResourceKindSpec::Structured => buffer(BufferKind::Structured { stride: r.stride }),
        ResourceKindSpec::Typed => {
            let f = format()?;
            if f.is_block_compressed() {
                // Block-compressed formats exist only for textures.
                return Err(EngineError::Unsupported(format!(
                    "needs format {} in a typed buffer",
                    f.dxgi_name()
                )));
            }
            buffer(BufferKind::Typed(f))
        }
        ResourceKindSpec::Texture2d => {
            View::Texture(TextureView::tex2d(format()?, r.width, r.height))
        }
        ResourceKindSpec::Texture { dim, layers } => View::Texture(TextureView::packed(
            dim,
            format()?,
            [r.width, r.height, layers],
            1,
        )),
    })
}

/// Binds every resource, runs `f`, then copies UAV counters back. Every
/// engine binds through this one function.
pub fn with_bindings<T>(
    resources: &mut [Resource],
    f: impl FnOnce(&mut Bindings) -> Result<T, RuntimeError>,
) -> Result<T, EngineError> {
    let views: Vec<View> = resources.iter().map(view).collect::<Result<_, _>>()?;
    let counter_slots: Vec<(usize, Slot)> = resources
        .iter()
        .enumerate()
        .filter(|(_, r)| r.slot.class == SlotClass::Uav)
        .map(|(i, r)| (i, slot_of(r)))
        .collect();
    let mut counters = Vec::new();
    let result = {
        let mut b = Bindings::new();
        for (r, v) in resources.iter_mut().zip(views) {
            let slot = slot_of(r);
            match r.slot.class {
                SlotClass::ConstantBuffer => {
                    b.cb(slot, &r.data);
                }
                SlotClass::Srv => {
                    b.srv(slot, &r.data, v);
                }
                SlotClass::Uav => match r.counter {
                    Some(c) => {
                        b.uav_with_counter(slot, &mut r.data, v, c);
                    }
                    None => {
                        b.uav(slot, &mut r.data, v);
                    }
                },
                SlotClass::Output => {}
            }
        }
        b.check_fits().map_err(runtime_error)?;
        let out = f(&mut b).map_err(runtime_error)?;
        for (i, slot) in counter_slots {
            if let Some(c) = b.counter(slot) {
                counters.push((i, c));
            }
        }
        out
    };
    for (i, c) in counters {
        if let Some(r) = resources.get_mut(i) {
            r.counter = Some(c);
        }
    }
    Ok(result)
}

impl Engine for InterpEngine {
    fn name(&self) -> &'static str {
        "interp"
    }

    fn prepare(&mut self, program: &Program) -> Result<(), EngineError> {
        self.interpreter(program).map(|_| ())
    }

    fn dispatch(
        &mut self,
        program: &Program,
        resources: &mut [Resource],
        groups: [u32; 3],
    ) -> Result<(), EngineError> {
        let options = self.options;
        let interp = self.interpreter(program)?;
        with_bindings(resources, |b| interp.dispatch(b, groups, &options)).map(|_| ())
    }

    fn invoke(
        &mut self,
        program: &Program,
        resources: &mut [Resource],
    ) -> Result<Vec<(u32, [u32; 4])>, EngineError> {
        let options = self.options;
        let interp = self.interpreter(program)?;
        let inv = with_bindings(resources, |b| interp.run_invocation(b, &[], &options))?;
        // A discarded pixel writes no render target.
        if inv.discarded {
            return Ok(Vec::new());
        }
        Ok(inv.outputs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::SlotRef;

    fn resource(kind: ResourceKindSpec, format: Option<&str>) -> Resource {
        Resource {
            slot: SlotRef::parse("u0", 0).unwrap(),
            kind,
            stride: 8,
            format: format.map(str::to_string),
            width: 2,
            height: 2,
            first_element: 1,
            num_elements: 3,
            data: vec![0; 64],
            counter: None,
        }
    }

    #[test]
    fn views_keep_the_case_window() {
        match view(&resource(ResourceKindSpec::Structured, None)).unwrap() {
            View::Buffer(b) => {
                assert_eq!(b.kind, BufferKind::Structured { stride: 8 });
                assert_eq!((b.first_element, b.num_elements), (1, 3));
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            view(&resource(ResourceKindSpec::Texture2d, Some("R32_FLOAT"))).unwrap(),
            View::Texture(_)
        ));
    }

    #[test]
    fn unknown_format_is_unsupported() {
        let e = view(&resource(ResourceKindSpec::Typed, Some("BC7_UNORM"))).unwrap_err();
        assert!(
            matches!(e, EngineError::Unsupported(ref m) if m.contains("BC7_UNORM")),
            "{e}"
        );
    }
}
