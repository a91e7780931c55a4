//! Generation-checked handle tables for the C ABI.
//!
//! In: objects the C side creates (shaders, bindings). Out: 64-bit handles
//! `kind (2 bits) | generation (30 bits) | index + 1 (32 bits)`. Invariant:
//! a handle resolves only while its object lives and only in the table of
//! its own kind; freeing bumps the slot's generation, so a stale handle (use
//! after free, double free) or a handle of the wrong kind is reported, never
//! dereferenced. Handle 0 is never issued. A slot whose generation would
//! wrap is retired instead of reused.

use std::sync::{Mutex, MutexGuard};

const GEN_BITS: u32 = 30;
const GEN_MASK: u64 = (1 << GEN_BITS) - 1;

/// Which table a handle belongs to (its top two bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandleKind {
    Shader = 1,
    Bindings = 2,
}

struct Entry<T> {
    generation: u32,
    value: Option<T>,
}

/// One table of live objects of a kind.
pub struct Table<T> {
    kind: HandleKind,
    entries: Vec<Entry<T>>,
    free: Vec<u32>,
}

/// Why a handle did not resolve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandleError {
    /// 0, or a handle of another kind.
    NotThisKind,
    /// The object was freed (or the handle was never issued).
    Stale,
}

impl<T> Table<T> {
    pub const fn new(kind: HandleKind) -> Table<T> {
        Table {
            kind,
            entries: Vec::new(),
            free: Vec::new(),
        }
    }

    fn handle(&self, index: u32, generation: u32) -> u64 {
        (self.kind as u64) << 62 | (u64::from(generation) & GEN_MASK) << 32 | (u64::from(index) + 1)
    }

    /// Stores `value` and returns its handle (`None` when 2^32 - 1 slots
    /// are in use).
    pub fn insert(&mut self, value: T) -> Option<u64> {
        if let Some(index) = self.free.pop() {
            let e = &mut self.entries[index as usize];
            e.value = Some(value);
            let generation = e.generation;
            return Some(self.handle(index, generation));
        }
        let index = u32::try_from(self.entries.len())
            .ok()
            .filter(|&i| i < u32::MAX)?;
        self.entries.push(Entry {
            generation: 1,
            value: Some(value),
        });
        Some(self.handle(index, 1))
    }

    fn locate(&self, handle: u64) -> Result<usize, HandleError> {
        if handle >> 62 != self.kind as u64 || handle as u32 == 0 {
            return Err(HandleError::NotThisKind);
        }
        let index = (handle as u32 - 1) as usize;
        let generation = ((handle >> 32) & GEN_MASK) as u32;
        match self.entries.get(index) {
            Some(e) if e.generation == generation && e.value.is_some() => Ok(index),
            _ => Err(HandleError::Stale),
        }
    }

    /// The live object behind `handle`.
    pub fn get(&self, handle: u64) -> Result<&T, HandleError> {
        let i = self.locate(handle)?;
        self.entries[i].value.as_ref().ok_or(HandleError::Stale)
    }

    /// Removes and returns the object; the handle is stale afterwards.
    pub fn remove(&mut self, handle: u64) -> Result<T, HandleError> {
        let i = self.locate(handle)?;
        let e = &mut self.entries[i];
        let value = e.value.take().ok_or(HandleError::Stale)?;
        let next = e.generation.wrapping_add(1) & GEN_MASK as u32;
        if next != 0 {
            e.generation = next;
            self.free.push(i as u32);
        }
        Ok(value)
    }
}

/// Locks a table, recovering it when a panic poisoned the lock (tables are
/// only changed by whole-entry writes, so they stay consistent).
pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stale_and_foreign_handles_are_detected() {
        let mut t = Table::new(HandleKind::Shader);
        let a = t.insert("a").unwrap();
        assert_eq!(t.get(a), Ok(&"a"));
        assert_eq!(t.remove(a), Ok("a"));
        assert_eq!(t.get(a), Err(HandleError::Stale));
        assert_eq!(t.remove(a), Err(HandleError::Stale), "double free");
        // The slot is reused under a new generation; the old handle stays dead.
        let b = t.insert("b").unwrap();
        assert_ne!(a, b);
        assert_eq!(a as u32, b as u32);
        assert_eq!(t.get(a), Err(HandleError::Stale));
        assert_eq!(t.get(b), Ok(&"b"));
        assert_eq!(t.get(0), Err(HandleError::NotThisKind));
        let other: Table<&str> = Table::new(HandleKind::Bindings);
        assert_eq!(other.get(b), Err(HandleError::NotThisKind));
        assert_eq!(t.get(b + 1), Err(HandleError::Stale), "never issued");
    }
}
