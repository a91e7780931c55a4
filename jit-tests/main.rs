//! Integration tests: one binary, one module per area.

mod alu_table;
mod asm_roundtrip;
mod batch;
mod batch_threads;
mod bc7;
mod compat;
mod decode;
mod embed;
mod interp;
mod jit;
#[cfg(target_os = "linux")]
mod memsafety;
mod peer;
mod pixel_io;
mod reflect;
mod sampling;
mod snapshots;
mod tiers;
mod util;
mod validate;

/// Counts the heap allocations of the threads that ask for it (the
/// batch tests check that a warm batch runner allocates nothing); every
/// allocation goes to the system allocator.
pub mod alloc_count {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::cell::Cell;

    thread_local! {
        static COUNTING: Cell<bool> = const { Cell::new(false) };
        static COUNT: Cell<u64> = const { Cell::new(0) };
    }

    pub struct Counting;

    fn note() {
        let on = COUNTING.try_with(Cell::get).unwrap_or(false);
        if on {
            let _ = COUNT.try_with(|c| c.set(c.get() + 1));
        }
    }

    // SAFETY: every call is forwarded to `System` unchanged; the counting
    // touches only `const`-initialised thread-locals (no allocation).
    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            note();
            unsafe { System.alloc(layout) }
        }
        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            unsafe { System.dealloc(ptr, layout) }
        }
        unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
            note();
            unsafe { System.alloc_zeroed(layout) }
        }
        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new: usize) -> *mut u8 {
            note();
            unsafe { System.realloc(ptr, layout, new) }
        }
    }

    /// The allocations `f` makes on the calling thread.
    pub fn count<T>(f: impl FnOnce() -> T) -> (T, u64) {
        COUNT.with(|c| c.set(0));
        COUNTING.with(|c| c.set(true));
        let r = f();
        COUNTING.with(|c| c.set(false));
        (r, COUNT.with(Cell::get))
    }
}

#[global_allocator]
static ALLOCATOR: alloc_count::Counting = alloc_count::Counting;

/// The shared corpus beside the checkout (`../shared/corpus`).
pub fn corpus_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus")
}
