//! Deliberate miscompilations, for proving that the differential fuzzer
//! catches JIT bugs (cargo feature `fault-injection`, enabled only by the
//! crate's own tests).
//!
//! In: a [`Fault`] selected with [`inject`] on the thread that compiles.
//! Out: [`active`], asked at each injection point while lowering.
//! Invariants: without the feature, [`active`] is a `const fn` returning
//! `false` and there is no `inject`, so every injection point folds away
//! and nothing can select a fault; with it, a fault is active only on the thread that holds the
//! [`Injected`] guard and only for shaders compiled while it is held. No
//! fault weakens memory safety: bounds only ever get smaller and a store
//! that ignores the execution mask still goes through the bounds check.

/// The miscompilations the JIT knows how to make. Without the feature
/// the names exist but nothing can make one active.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fault {
    /// `ilt` lowered as a signed `<=`.
    IltAsIle,
    /// Float `lt` lowered as "less than or unordered" (NaN compares true).
    LtNanTrue,
    /// `store_raw`/`store_structured` write inactive lanes too.
    StoreIgnoresExec,
    /// Buffer, cb and icb loads treat the last DWORD of a window as out of
    /// bounds (the bound is one smaller, never larger).
    LoadBoundOneShort,
    /// `_sat` clamps to 1 only, not to 0.
    SatNoLowerClamp,
    /// Source swizzles read the `.x` and `.y` selectors swapped.
    SwizzleXySwapped,
    /// `ushr` lowered as an arithmetic shift.
    UshrAsIshr,
}

impl Fault {
    /// Every fault, in a fixed order.
    pub const ALL: [Fault; 7] = [
        Fault::IltAsIle,
        Fault::LtNanTrue,
        Fault::StoreIgnoresExec,
        Fault::LoadBoundOneShort,
        Fault::SatNoLowerClamp,
        Fault::SwizzleXySwapped,
        Fault::UshrAsIshr,
    ];
}

#[cfg(feature = "fault-injection")]
mod on {
    use std::cell::Cell;

    use super::Fault;

    thread_local! {
        static ACTIVE: Cell<Option<Fault>> = const { Cell::new(None) };
    }

    /// Keeps a fault active on this thread until dropped.
    #[must_use = "the fault is active only while the guard lives"]
    pub struct Injected {
        before: Option<Fault>,
        // Thread-bound: the guard must drop on the thread that made it.
        _not_send: std::marker::PhantomData<*const ()>,
    }

    impl Drop for Injected {
        fn drop(&mut self) {
            ACTIVE.with(|a| a.set(self.before));
        }
    }

    /// Makes `fault` active for shaders compiled on this thread while the
    /// returned guard lives.
    pub fn inject(fault: Fault) -> Injected {
        let before = ACTIVE.with(|a| a.replace(Some(fault)));
        Injected {
            before,
            _not_send: std::marker::PhantomData,
        }
    }

    /// True when `fault` is active on this thread.
    pub fn active(fault: Fault) -> bool {
        ACTIVE.with(|a| a.get() == Some(fault))
    }
}

#[cfg(feature = "fault-injection")]
pub use on::{active, inject, Injected};

/// Always `false` without the feature; the compiler removes every
/// injection point.
#[cfg(not(feature = "fault-injection"))]
#[inline(always)]
pub const fn active(_fault: Fault) -> bool {
    false
}

/// `faulty` when `fault` is active, else `right`.
#[inline(always)]
pub(crate) fn choose<T>(fault: Fault, faulty: T, right: T) -> T {
    if active(fault) {
        faulty
    } else {
        right
    }
}

#[cfg(all(test, feature = "fault-injection"))]
mod tests {
    use super::*;

    #[test]
    fn a_fault_is_active_only_while_its_guard_lives_and_only_here() {
        assert!(!active(Fault::IltAsIle));
        {
            let _g = inject(Fault::IltAsIle);
            assert!(active(Fault::IltAsIle));
            assert!(!active(Fault::UshrAsIshr));
            let other = std::thread::spawn(|| active(Fault::IltAsIle));
            assert!(!other.join().unwrap());
        }
        assert!(!active(Fault::IltAsIle));
    }
}
