//! Compile tiers, tier-up on a background thread, and the in-process
//! shader cache.
//!
//! In: a [`Program`] and [`CompileOptions`]. Out: a [`JitShader`] that
//! starts on tier 0 (compiled for compile speed, `tier0.rs`) or tier 1
//! (today's optimising lowering) and, with [`Tier::Auto`], moves to tier 1
//! by itself once it has run [`CompileOptions::tier_up_after`] batch
//! calls. Invariants:
//! - nothing ever waits for tier 1: the compile runs on one background
//!   thread ([`spawn_tier_up`]); dispatches keep running whatever code is
//!   installed, and pick the installed code afresh at the start of every
//!   chunk of thread groups (`runner.rs`, at most 64 groups) and every
//!   vertex/pixel batch call, so a group that started on tier 0
//!   finishes on tier 0 (its barrier save area and resume ids belong to
//!   the code that started it);
//! - a queued job holds only a `Weak` reference (a shader dropped before
//!   its job starts is skipped); a running job holds the shader, because
//!   the code embeds addresses of data the shader owns, and when the
//!   caller dropped it meanwhile, the job's reference is the last one and
//!   frees the shader and both codes once the compile ends (no leak, no
//!   use after free);
//! - the cache maps (program, options) to the compiled shader; a hit is
//!   confirmed by comparing whole programs, so a hash collision can only
//!   cost a compile, never return the wrong code. It holds at most
//!   [`CACHE_ENTRIES`] shaders, least recently used out first.

use std::collections::VecDeque;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{channel, Sender};
use std::sync::{Mutex, OnceLock, Weak};

use super::{Inner, JitError, JitShader};
use crate::ir::Program;

/// Which code a shader runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Tier {
    /// Tier 0 only: fastest compile, slower code.
    Zero,
    /// Tier 1 only: the optimising compile, fastest code.
    One,
    /// Start on tier 0, move to tier 1 in the background once the shader
    /// has run enough.
    #[default]
    Auto,
}

impl Tier {
    /// `"0"`, `"1"` or `"auto"` (the CLI and C spelling).
    pub fn parse(s: &str) -> Option<Tier> {
        match s {
            "0" => Some(Tier::Zero),
            "1" => Some(Tier::One),
            "auto" => Some(Tier::Auto),
            _ => None,
        }
    }
}

/// Batch calls (of [`super::context::W`] invocations each) a shader on
/// [`Tier::Auto`] runs on tier 0 before its tier-1 compile is queued:
/// 256 calls, 2,048 invocations. A one-group test dispatch or a single
/// draw of a few quads never pays for a tier-1 compile; anything that
/// runs for longer than about a tier-0 compile does.
pub const TIER_UP_AFTER: u64 = 256;

/// Shaders the in-process cache keeps.
pub const CACHE_ENTRIES: usize = 64;

/// How to compile a shader.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CompileOptions {
    pub tier: Tier,
    /// Batch calls before tier-up on [`Tier::Auto`] (0: queue the tier-1
    /// compile at once).
    pub tier_up_after: u64,
    /// Look the shader up in (and add it to) the in-process cache.
    pub cache: bool,
}

impl Default for CompileOptions {
    /// Tier auto, tier-up after [`TIER_UP_AFTER`] batch calls, cached. The
    /// environment variables `SM5JIT_TIER=0|1|auto` and
    /// `SM5JIT_TIER_UP_AFTER=N` override the tier and the threshold (to run
    /// a whole program or test suite on one tier, or to tier up at once).
    fn default() -> Self {
        let tier = std::env::var("SM5JIT_TIER")
            .ok()
            .and_then(|t| Tier::parse(&t))
            .unwrap_or(Tier::Auto);
        let tier_up_after = std::env::var("SM5JIT_TIER_UP_AFTER")
            .ok()
            .and_then(|t| t.parse().ok())
            .unwrap_or(TIER_UP_AFTER);
        CompileOptions {
            tier,
            tier_up_after,
            cache: true,
        }
    }
}

impl CompileOptions {
    /// The default options on `tier`.
    pub fn tier(tier: Tier) -> CompileOptions {
        CompileOptions {
            tier,
            ..CompileOptions::default()
        }
    }
}

/// Counts of background tier-1 compiles, for tests and reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TierUpStats {
    /// Jobs that found their shader alive and started compiling.
    pub started: u64,
    /// Tier-1 code installed into a live shader.
    pub installed: u64,
    /// Tier-1 code compiled for a shader dropped meanwhile, and freed with it.
    pub discarded: u64,
    /// Jobs skipped because the shader was gone before they started.
    pub skipped: u64,
    /// Tier-1 compiles that failed (the shader stays on tier 0).
    pub failed: u64,
}

static STARTED: AtomicU64 = AtomicU64::new(0);
static INSTALLED: AtomicU64 = AtomicU64::new(0);
static DISCARDED: AtomicU64 = AtomicU64::new(0);
static SKIPPED: AtomicU64 = AtomicU64::new(0);
static FAILED: AtomicU64 = AtomicU64::new(0);
/// Jobs queued and not finished yet.
static PENDING: AtomicU64 = AtomicU64::new(0);

/// Microseconds each background job waits after it starts, before it
/// compiles (tests only: it makes "dropped while compiling" certain).
static PAUSE_US: AtomicU64 = AtomicU64::new(0);

/// Makes each background job pause `us` microseconds after it starts
/// (for tests of dropping shaders while tier 1 compiles).
#[doc(hidden)]
pub fn set_tier_up_pause(us: u64) {
    PAUSE_US.store(us, Ordering::Relaxed);
}

/// The background compile counters so far.
pub fn tier_up_stats() -> TierUpStats {
    TierUpStats {
        started: STARTED.load(Ordering::Relaxed),
        installed: INSTALLED.load(Ordering::Relaxed),
        discarded: DISCARDED.load(Ordering::Relaxed),
        skipped: SKIPPED.load(Ordering::Relaxed),
        failed: FAILED.load(Ordering::Relaxed),
    }
}

/// Tier-1 compiles queued or running now.
pub fn tier_up_pending() -> u64 {
    PENDING.load(Ordering::Acquire)
}

/// Queues the tier-1 compile of `shader` on the background thread.
pub(super) fn spawn_tier_up(shader: Weak<Inner>) {
    static QUEUE: OnceLock<Mutex<Sender<Weak<Inner>>>> = OnceLock::new();
    let queue = QUEUE.get_or_init(|| {
        let (tx, rx) = channel::<Weak<Inner>>();
        let started = std::thread::Builder::new()
            .name("sm5jit-tier1".into())
            .spawn(move || {
                for job in rx {
                    tier_up(job);
                    PENDING.fetch_sub(1, Ordering::AcqRel);
                }
            });
        if started.is_err() {
            // No thread: shaders stay on tier 0 (the sender's sends fail).
        }
        Mutex::new(tx)
    });
    PENDING.fetch_add(1, Ordering::AcqRel);
    let sent = queue.lock().unwrap_or_else(|e| e.into_inner()).send(shader);
    if sent.is_err() {
        PENDING.fetch_sub(1, Ordering::AcqRel);
        FAILED.fetch_add(1, Ordering::Relaxed);
    }
}

/// One background job: compile tier 1 and install it.
///
/// The job holds the shader while it compiles: the generated code embeds
/// addresses of data the shader owns (the immediate constant buffer, for
/// one), so it must be compiled from the shader's own prepared program.
/// If every other reference was dropped meanwhile, the job's reference is
/// the last: dropping it frees the shader and both codes, on this thread.
fn tier_up(job: Weak<Inner>) {
    let Some(inner) = job.upgrade() else {
        SKIPPED.fetch_add(1, Ordering::Relaxed);
        return;
    };
    STARTED.fetch_add(1, Ordering::Relaxed);
    let pause = PAUSE_US.load(Ordering::Relaxed);
    if pause > 0 {
        std::thread::sleep(std::time::Duration::from_micros(pause));
    }
    let compiled = match super::compile_code(&inner.prepared, &inner.plan, 1, false) {
        Ok((c, _)) => c,
        Err(_) => {
            FAILED.fetch_add(1, Ordering::Relaxed);
            return;
        }
    };
    if std::sync::Arc::strong_count(&inner) == 1 {
        // Dropped while compiling: free the new code and the shader.
        drop(compiled);
        DISCARDED.fetch_add(1, Ordering::Relaxed);
    } else {
        // A second install cannot happen (one job per shader); if it did,
        // the returned code would simply be freed here.
        let _ = inner.upgraded.set(compiled);
        INSTALLED.fetch_add(1, Ordering::Relaxed);
    }
    drop(inner);
}

/// One cached shader.
struct Entry {
    hash: u64,
    options: CompileOptions,
    program: Program,
    shader: JitShader,
}

static CACHE: Mutex<VecDeque<Entry>> = Mutex::new(VecDeque::new());

/// The cache key of `program`: a hash of its encoded tokens, or `None`
/// when it cannot be encoded (such programs are not cached).
pub(super) fn program_hash(program: &Program) -> Option<u64> {
    let tokens = crate::dxbc::encode_program(program).ok()?;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    tokens.hash(&mut h);
    Some(h.finish())
}

/// The cached shader for `program` compiled with `options`, if any.
pub(super) fn cache_get(
    hash: u64,
    program: &Program,
    options: &CompileOptions,
) -> Option<JitShader> {
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    let at = cache
        .iter()
        .position(|e| e.hash == hash && e.options == *options && e.program == *program)?;
    let entry = cache.remove(at)?;
    let shader = entry.shader.clone();
    cache.push_front(entry);
    Some(shader)
}

/// Adds a compiled shader to the cache, evicting the least recently used.
pub(super) fn cache_put(
    hash: u64,
    program: &Program,
    options: &CompileOptions,
    shader: &JitShader,
) {
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    cache.push_front(Entry {
        hash,
        options: *options,
        program: program.clone(),
        shader: shader.clone(),
    });
    cache.truncate(CACHE_ENTRIES);
}

/// Empties the in-process cache (its shaders are freed once no caller
/// holds them).
pub fn clear_cache() {
    CACHE.lock().unwrap_or_else(|e| e.into_inner()).clear();
}

/// Shaders in the in-process cache now.
pub fn cache_len() -> usize {
    CACHE.lock().unwrap_or_else(|e| e.into_inner()).len()
}

impl JitShader {
    /// Compiles `program` with `options` (validating and preparing it
    /// first), or returns the cached shader compiled from an equal program
    /// with equal options.
    pub fn compile_with(
        program: &Program,
        options: &CompileOptions,
    ) -> Result<JitShader, JitError> {
        let hash = if options.cache {
            program_hash(program)
        } else {
            None
        };
        if let Some(h) = hash {
            if let Some(s) = cache_get(h, program, options) {
                return Ok(s);
            }
        }
        let (shader, _) = JitShader::compile_inner(program, options, false)?;
        if let Some(h) = hash {
            cache_put(h, program, options, &shader);
        }
        Ok(shader)
    }

    /// The tier of the code the next group or batch will run (0 or 1).
    pub fn tier(&self) -> u8 {
        self.inner.code().tier
    }

    /// 16-byte slots of each batch's out-of-line barrier save area that
    /// the code the next group runs needs: 0 without barriers, and for
    /// group-level code (docs/architecture.md, "Groups") whose values
    /// carried across barriers fit in the batch's context.
    pub fn save_area_slots(&self) -> usize {
        self.inner.code().save_slots
    }

    /// Whether `other` shares this shader's compiled code (a cache hit).
    pub fn same_code(&self, other: &JitShader) -> bool {
        std::sync::Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// Counts `calls` batches run and queues the tier-1 compile when an
    /// [`Tier::Auto`] shader passes its threshold.
    pub(super) fn note_calls(&self, calls: u64) {
        let inner = &self.inner;
        if !inner.auto || inner.upgraded.get().is_some() {
            return;
        }
        let before = inner.calls.fetch_add(calls, Ordering::Relaxed);
        let after = before.saturating_add(calls);
        if before < inner.tier_up_after && after >= inner.tier_up_after {
            spawn_tier_up(std::sync::Arc::downgrade(inner));
        }
    }
}
