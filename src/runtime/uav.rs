//! UAV memory that several threads read and write at once.
//!
//! In: the caller's writable slice (`&'a mut [u8]`, or a C pointer and
//! length), borrowed by [`Bindings`](super::Bindings) for `'a`. Out:
//! bounds-checked reads, writes and atomic read-modify-writes of bytes and
//! DWORDs through a *shared* reference, so the batches and groups of any
//! number of threads can use one `&Bindings` without copies. Invariants:
//! the memory is borrowed exclusively for `'a` (no one else touches it
//! while the bindings live); every access from Rust goes through atomic
//! operations (relaxed loads and stores, which compile to plain moves, and
//! real read-modify-writes), so concurrent engine threads never make a
//! Rust data race; every access is checked against the length first, so
//! nothing outside the slice is ever reached. Generated code gets the base
//! pointer ([`UavMemory::as_mut_ptr`]) and checks its own windows, as it
//! always did for the compute path's worker threads.
//!
//! What concurrent writers see is D3D's rule: writes of different threads
//! to the same bytes race (the result is one of the written values per
//! DWORD for aligned DWORD stores, unspecified otherwise), atomics are
//! atomic per DWORD. A DWORD whose address in memory is not 4-aligned
//! (memory from a byte slice at an odd address) is read and written byte
//! by byte, and its atomics are serialised by one process-wide lock.

use std::marker::PhantomData;
use std::sync::atomic::{AtomicU32, AtomicU8, Ordering};
use std::sync::Mutex;

/// Writable memory of one bound UAV, shared by every thread that runs
/// against the bindings.
pub struct UavMemory<'a> {
    ptr: *mut u8,
    len: usize,
    _borrow: PhantomData<&'a mut [u8]>,
}

// SAFETY: a `UavMemory` is an exclusive borrow of its bytes for `'a`
// (like `&'a mut [u8]`, which is `Send`), and every access through a
// shared reference is an atomic operation (`bytes`, `word`), so sharing it
// between threads cannot make a data race in Rust code.
unsafe impl Send for UavMemory<'_> {}
// SAFETY: as above.
unsafe impl Sync for UavMemory<'_> {}

impl std::fmt::Debug for UavMemory<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UavMemory")
            .field("ptr", &self.ptr)
            .field("len", &self.len)
            .finish()
    }
}

/// Serialises the atomics on DWORDs that are not 4-aligned in memory.
static UNALIGNED: Mutex<()> = Mutex::new(());

impl<'a> UavMemory<'a> {
    /// Borrows `data` for `'a`.
    pub fn new(data: &'a mut [u8]) -> UavMemory<'a> {
        UavMemory {
            ptr: data.as_mut_ptr(),
            len: data.len(),
            _borrow: PhantomData,
        }
    }

    /// Memory given as a pointer and a length (the C ABI).
    ///
    /// # Safety
    /// `ptr` must be valid for reads and writes of `len` bytes for `'a`
    /// (or `len` is 0), and nothing but engines running against these
    /// bindings may access it meanwhile.
    pub unsafe fn from_raw_parts(ptr: *mut u8, len: usize) -> UavMemory<'a> {
        let ptr = if len == 0 {
            std::ptr::NonNull::dangling().as_ptr()
        } else {
            ptr
        };
        UavMemory {
            ptr,
            len,
            _borrow: PhantomData,
        }
    }

    /// Bytes of memory.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when no memory is bound.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The first byte, for generated code (which checks its own windows,
    /// all inside `len`, before every access).
    pub fn as_mut_ptr(&self) -> *mut u8 {
        self.ptr
    }

    fn bytes(&self) -> &[AtomicU8] {
        // SAFETY: `ptr` is valid for `len` bytes for `'a` (non-null and
        // dangling when empty); `AtomicU8` has the layout of `u8`, and
        // every Rust access to these bytes while they are borrowed goes
        // through this atomic view.
        unsafe { std::slice::from_raw_parts(self.ptr.cast::<AtomicU8>(), self.len) }
    }

    /// The bytes `at .. at + n` as a range, when inside.
    fn range(&self, at: u64, n: usize) -> Option<std::ops::Range<usize>> {
        let start = usize::try_from(at).ok()?;
        let end = start.checked_add(n)?;
        (end <= self.len).then_some(start..end)
    }

    /// The DWORD at byte `at` as one atomic, when inside and 4-aligned in
    /// memory.
    fn word(&self, at: usize) -> Option<&AtomicU32> {
        let p = self.ptr.wrapping_add(at);
        if p as usize % 4 != 0 {
            return None;
        }
        // SAFETY: the caller checked `at + 4 <= len`; `p` is 4-aligned and
        // inside the borrowed memory; `AtomicU32` has the layout of `u32`.
        Some(unsafe { &*p.cast::<AtomicU32>() })
    }

    /// Copies the bytes at `at` into `out`; false (nothing read) when they
    /// are not all inside.
    pub fn read(&self, at: u64, out: &mut [u8]) -> bool {
        let Some(r) = self.range(at, out.len()) else {
            return false;
        };
        for (o, b) in out.iter_mut().zip(&self.bytes()[r]) {
            *o = b.load(Ordering::Relaxed);
        }
        true
    }

    /// Writes `data` at `at`; false (nothing written) when it does not fit.
    pub fn write(&self, at: u64, data: &[u8]) -> bool {
        let Some(r) = self.range(at, data.len()) else {
            return false;
        };
        for (b, v) in self.bytes()[r].iter().zip(data) {
            b.store(*v, Ordering::Relaxed);
        }
        true
    }

    /// The little-endian DWORD at byte `at`, when inside.
    pub fn read_u32(&self, at: u64) -> Option<u32> {
        let r = self.range(at, 4)?;
        if let Some(w) = self.word(r.start) {
            return Some(u32::from_le(w.load(Ordering::Relaxed)));
        }
        let mut b = [0u8; 4];
        self.read(at, &mut b);
        Some(u32::from_le_bytes(b))
    }

    /// Writes a little-endian DWORD at byte `at`; false when it does not fit.
    pub fn write_u32(&self, at: u64, v: u32) -> bool {
        let Some(r) = self.range(at, 4) else {
            return false;
        };
        match self.word(r.start) {
            Some(w) => w.store(v.to_le(), Ordering::Relaxed),
            None => {
                self.write(at, &v.to_le_bytes());
            }
        }
        true
    }

    /// Atomically replaces the DWORD at byte `at` by `f(old)` (nothing is
    /// stored when `f` returns `None`) and returns `old`; `None` when the
    /// DWORD is not inside.
    pub fn update_u32(&self, at: u64, mut f: impl FnMut(u32) -> Option<u32>) -> Option<u32> {
        let r = self.range(at, 4)?;
        if let Some(w) = self.word(r.start) {
            let le = |x: u32| u32::from_le(x);
            let old = w.fetch_update(Ordering::AcqRel, Ordering::Relaxed, |x| {
                f(le(x)).map(u32::to_le)
            });
            return Some(le(old.unwrap_or_else(|x| x)));
        }
        let _serial = UNALIGNED.lock().unwrap_or_else(|e| e.into_inner());
        let old = self.read_u32(at)?;
        if let Some(new) = f(old) {
            self.write_u32(at, new);
        }
        Some(old)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accesses_stay_inside_and_round_trip() {
        let mut mem = [0u8; 10];
        let m = UavMemory::new(&mut mem);
        assert!(m.write_u32(4, 0x0403_0201));
        assert_eq!(m.read_u32(4), Some(0x0403_0201));
        // Unaligned DWORDs go byte by byte.
        assert!(m.write_u32(1, 0xAABB_CCDD));
        assert_eq!(m.read_u32(1), Some(0xAABB_CCDD));
        assert!(!m.write_u32(7, 1));
        assert_eq!(m.read_u32(7), None);
        assert_eq!(m.read_u32(u64::MAX), None);
        assert_eq!(m.update_u32(u64::MAX - 1, |x| Some(x + 1)), None);
        let mut out = [0u8; 3];
        assert!(!m.read(8, &mut out));
        assert!(m.read(1, &mut out));
        assert_eq!(out, [0xDD, 0xCC, 0xBB]);
        assert_eq!(mem[9], 0);
    }

    #[test]
    fn updates_from_many_threads_are_atomic() {
        let mut mem = vec![0u8; 16];
        let m = UavMemory::new(&mut mem);
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for _ in 0..1000 {
                        m.update_u32(0, |x| Some(x + 1));
                        m.update_u32(5, |x| Some(x + 2));
                    }
                });
            }
        });
        assert_eq!(m.read_u32(0), Some(4000));
        assert_eq!(m.read_u32(5), Some(8000));
        // `None` from the update stores nothing but reports the old value.
        assert_eq!(m.update_u32(0, |_| None), Some(4000));
        assert_eq!(m.read_u32(0), Some(4000));
    }
}
