//! The worker threads that dispatches share: started once, reused by every
//! dispatch, so that a dispatch of a few groups does not pay for starting
//! and joining threads (about 50 us each, more than such a dispatch runs).
//!
//! In: a job (`&(dyn Fn() + Sync)`, which claims its own work from shared
//! state) and how many helper threads should run it besides the caller.
//! Out: [`run`] returns once the caller has run the job and every helper
//! that started it has finished; copies no helper started are withdrawn.
//! Invariant: the job is only reached through the queue and the helpers
//! while `run` is still waiting, which is what makes lending it a
//! borrowed closure sound; a panic in the job (caller or helper) is
//! re-raised in the caller after that wait, never while a helper could
//! still be using the job.
//!
//! Waking a sleeping thread takes tens of microseconds on a virtual
//! machine, as long as a small dispatch runs. So a dispatch calls [`wake`]
//! before it builds its tables, and a helper that was woken or has just
//! finished a job spins for up to [`spin_time`] watching the queue before it
//! sleeps again: the job of the dispatch being set up, or of the next one
//! dispatched right after, is taken at once. For the same reason a caller
//! whose own share is done spins for up to [`spin_time`] on the helpers'
//! last chunks before it sleeps until they end. A helper that finds itself
//! on the CPU of the thread that dispatched moves off it
//! (`Pool::keep_apart`): sharing one CPU, the two would run at one
//! worker's speed until the OS separated them.

use std::collections::VecDeque;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

/// At most this many pool threads are started.
const MAX_HELPERS: usize = 256;

/// How long an idle helper watches the queue before it sleeps, unless
/// `SM5JIT_SPIN_US` says otherwise ([`spin_time`]).
pub const SPIN: Duration = Duration::from_micros(1000);

/// The longest spin `SM5JIT_SPIN_US` may ask for.
const MAX_SPIN_US: u64 = 1_000_000;

/// [`SPIN`], or `SM5JIT_SPIN_US` microseconds (at most one second) when
/// that is set to a number (0: helpers sleep as soon as they are idle).
pub fn spin_time() -> Duration {
    static SPIN_TIME: OnceLock<Duration> = OnceLock::new();
    *SPIN_TIME.get_or_init(|| spin_from(std::env::var("SM5JIT_SPIN_US").ok().as_deref()))
}

/// The cores this process may run on, asked of the OS once: on Linux
/// `available_parallelism` reads the cgroup's CPU quota from files,
/// about 13 us a call, as long as a small dispatch runs, so a dispatch
/// must not ask each time. A quota changed while the process runs is
/// not seen.
pub fn cores() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// The spin a `SM5JIT_SPIN_US` value asks for: [`SPIN`] when unset or not
/// a number.
fn spin_from(value: Option<&str>) -> Duration {
    value
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map_or(SPIN, |us| Duration::from_micros(us.min(MAX_SPIN_US)))
}

/// What one dispatch waits for: copies of its job not finished yet, and
/// whether a helper's copy panicked. The caller spins on `left` before it
/// sleeps on `done`; the helper that takes `left` to zero then reads under
/// `lock` whether the caller sleeps and, if so, notifies it. The caller
/// holds `lock` from marking itself asleep and its last look at `left`
/// until it waits, so a notification cannot fall between the two.
struct Pending {
    left: AtomicUsize,
    panicked: AtomicBool,
    /// Whether the caller sleeps on `done` (under `lock`).
    lock: Mutex<bool>,
    done: Condvar,
}

impl Pending {
    /// One copy finished (`ok`: without a panic).
    fn finish(&self, ok: bool) {
        if !ok {
            self.panicked.store(true, Ordering::Relaxed);
        }
        if self.left.fetch_sub(1, Ordering::AcqRel) == 1 && *lock(&self.lock) {
            self.done.notify_all();
        }
    }

    /// Waits until no copy is left: spins (yielding) for up to
    /// [`spin_time`] (the helpers' last chunks usually end within
    /// microseconds of the caller's, sooner than a sleeping thread wakes
    /// on a virtual machine), then sleeps.
    fn wait(&self) {
        if spin_while(|| self.left.load(Ordering::Acquire) != 0, true) {
            return;
        }
        let mut sleeping = lock(&self.lock);
        *sleeping = true;
        while self.left.load(Ordering::Acquire) != 0 {
            sleeping = self.done.wait(sleeping).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// How long a caller waiting in [`spin_while`] spins before it yields
/// between its looks.
const EAGER: Duration = Duration::from_micros(10);

/// Waits while `busy` holds, for up to [`spin_time`]; whether it stopped
/// holding. With `yielding`, only the first [`EAGER`] microseconds are
/// pure spinning and the CPU is yielded between later looks: that is the
/// caller waiting for helpers, one of which Linux may have placed on the
/// caller's own CPU (it does when every CPU has looked busy, as right
/// after a tier-up compile on two CPUs), where a spinning caller would
/// hold it off. Idle helpers spin without yielding: one that yields on
/// the caller's CPU was left there longer (measured on saxpy right after
/// a tier-up, before `Pool::keep_apart`: with every spin yielding, 11
/// of 14 processes ran two workers at one worker's speed for a whole
/// 21-dispatch measurement; with only the caller yielding, 4 of 16, the
/// helper moved within about 10 ms).
fn spin_while(busy: impl Fn() -> bool, yielding: bool) -> bool {
    let start = Instant::now();
    let limit = spin_time();
    loop {
        if !busy() {
            return true;
        }
        let spun = start.elapsed();
        if spun >= limit {
            return false;
        }
        if yielding && spun >= EAGER {
            std::thread::yield_now();
        } else {
            for _ in 0..64 {
                std::hint::spin_loop();
            }
        }
    }
}

/// The job as the helpers see it. The pointer's lifetime is erased; see
/// [`run`] for why it stays valid while a helper holds it.
type JobPtr = *const (dyn Fn() + Sync + 'static);

struct Job {
    f: JobPtr,
    pending: Arc<Pending>,
}

// SAFETY: the pointee is `Sync` (shared use from several threads is what
// the job is for) and outlives every use (see `run`).
unsafe impl Send for Job {}

struct Pool {
    queue: Mutex<VecDeque<Job>>,
    ready: Condvar,
    started: Mutex<usize>,
    /// Jobs in `queue`, read without the lock by spinning helpers.
    queued: AtomicUsize,
    /// Counts [`wake`] calls: a sleeping helper that sees it change
    /// spins again.
    wakes: AtomicUsize,
    /// Helpers waiting on `ready`, changed and read under the queue's
    /// lock: with none, no notification (a system call) is sent.
    sleepers: AtomicUsize,
    /// The CPU the last caller of [`wake`] or [`run`] ran on
    /// (`usize::MAX`: not known), which helpers keep off
    /// (`Pool::keep_apart`).
    caller_cpu: AtomicUsize,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn pool() -> &'static Pool {
    static POOL: OnceLock<Pool> = OnceLock::new();
    POOL.get_or_init(|| Pool {
        queue: Mutex::new(VecDeque::new()),
        ready: Condvar::new(),
        started: Mutex::new(0),
        queued: AtomicUsize::new(0),
        wakes: AtomicUsize::new(0),
        sleepers: AtomicUsize::new(0),
        caller_cpu: AtomicUsize::new(usize::MAX),
    })
}

impl Pool {
    /// Wakes the helpers sleeping on `ready`, if any; called with the
    /// queue's lock held.
    fn notify_sleepers(&self) {
        if self.sleepers.load(Ordering::Relaxed) > 0 {
            self.ready.notify_all();
        }
    }

    /// Starts threads until `n` exist (at most [`MAX_HELPERS`]); returns
    /// how many exist.
    fn grow(&'static self, n: usize) -> usize {
        let mut started = lock(&self.started);
        while *started < n.min(MAX_HELPERS) {
            let spawned = std::thread::Builder::new()
                .name(format!("sm5jit-worker-{}", *started))
                .spawn(move || self.serve());
            if spawned.is_err() {
                break;
            }
            *started += 1;
        }
        *started
    }

    /// Notes the calling thread's CPU as the caller's.
    fn note_caller(&self) {
        if let Some(cpu) = placement::current() {
            self.caller_cpu.store(cpu, Ordering::Relaxed);
        }
    }

    /// Moves the calling helper off the caller's CPU when it finds itself
    /// there. Linux can put a woken helper on the CPU of the thread that
    /// woke it while another CPU is idle (it does when every CPU has
    /// looked busy, as while a tier-up compile runs, and then keeps doing
    /// so, since the helper last ran there); the two then share one CPU
    /// until the load balancer separates them, which took about 10 ms
    /// (docs/performance.md).
    fn keep_apart(&self) {
        let caller = self.caller_cpu.load(Ordering::Relaxed);
        if caller != usize::MAX && placement::current() == Some(caller) {
            placement::leave(caller);
        }
    }

    /// Watches the queue for up to [`spin_time`]; returns early when a
    /// job is queued.
    fn spin(&self) {
        spin_while(|| self.queued.load(Ordering::Relaxed) == 0, false);
    }

    fn serve(&self) {
        let mut seen = self.wakes.load(Ordering::Relaxed);
        loop {
            self.keep_apart();
            self.spin();
            let job = {
                let mut q = lock(&self.queue);
                loop {
                    if let Some(job) = q.pop_front() {
                        self.queued.fetch_sub(1, Ordering::Relaxed);
                        break Some(job);
                    }
                    // Woken by `wake` with nothing queued yet: spin.
                    let w = self.wakes.load(Ordering::Relaxed);
                    if w != seen {
                        seen = w;
                        break None;
                    }
                    self.sleepers.fetch_add(1, Ordering::Relaxed);
                    q = self.ready.wait(q).unwrap_or_else(|e| e.into_inner());
                    self.sleepers.fetch_sub(1, Ordering::Relaxed);
                }
            };
            let Some(job) = job else { continue };
            self.keep_apart();
            // SAFETY: `run` does not return before this copy is finished
            // (it waits for `pending` to reach zero), so the job is alive.
            let ok = catch_unwind(AssertUnwindSafe(|| unsafe { (*job.f)() })).is_ok();
            job.pending.finish(ok);
        }
    }
}

/// Wakes up to `helpers` pool threads (starting them if needed) so that
/// they spin, ready for the job a [`run`] about to come will queue.
pub fn wake(helpers: usize) {
    if helpers == 0 {
        return;
    }
    let pool = pool();
    pool.grow(helpers);
    pool.note_caller();
    pool.wakes.fetch_add(1, Ordering::Relaxed);
    // Under the lock, so that a helper between its check of `wakes` and
    // its wait cannot miss the notification.
    let _q = lock(&pool.queue);
    pool.notify_sleepers();
}

/// Runs `job` on the calling thread and on up to `helpers` pool threads at
/// once, and returns when all of them are done with it.
pub fn run(helpers: usize, job: &(dyn Fn() + Sync)) {
    let pool = pool();
    let helpers = pool.grow(helpers).min(helpers);
    if helpers == 0 {
        job();
        return;
    }
    let pending = Arc::new(Pending {
        left: AtomicUsize::new(helpers),
        panicked: AtomicBool::new(false),
        lock: Mutex::new(false),
        done: Condvar::new(),
    });
    // SAFETY: only the lifetime is erased. Every copy queued below is
    // either withdrawn from the queue or run to its end by a helper before
    // this function returns or unwinds: the caller's own run is wrapped in
    // `catch_unwind`, and the wait below takes no path out before the
    // pending count is zero.
    let f: JobPtr =
        unsafe { std::mem::transmute::<*const (dyn Fn() + Sync + '_), JobPtr>(job as *const _) };
    pool.note_caller();
    {
        let mut q = lock(&pool.queue);
        for _ in 0..helpers {
            q.push_back(Job {
                f,
                pending: pending.clone(),
            });
        }
        pool.queued.fetch_add(helpers, Ordering::Relaxed);
        pool.notify_sleepers();
    }
    let mine = catch_unwind(AssertUnwindSafe(job));
    // Copies no helper has taken yet are not needed any more: the job ran
    // here until there was nothing left to claim.
    let withdrawn = {
        let mut q = lock(&pool.queue);
        let before = q.len();
        q.retain(|j| !Arc::ptr_eq(&j.pending, &pending));
        let withdrawn = before - q.len();
        pool.queued.fetch_sub(withdrawn, Ordering::Relaxed);
        withdrawn
    };
    pending.left.fetch_sub(withdrawn, Ordering::AcqRel);
    pending.wait();
    let helper_panicked = pending.panicked.load(Ordering::Relaxed);
    if let Err(p) = mine {
        resume_unwind(p);
    }
    if helper_panicked {
        panic!("a dispatch worker thread panicked");
    }
}

/// Where threads run: the calling thread's CPU, and a move off one.
/// Only Linux says; elsewhere nothing is known and nothing moves.
#[cfg(target_os = "linux")]
mod placement {
    /// The CPU the calling thread runs on.
    pub fn current() -> Option<usize> {
        // SAFETY: takes nothing, touches no memory of ours.
        usize::try_from(unsafe { libc::sched_getcpu() }).ok()
    }

    /// Moves the calling thread off `cpu` when its affinity mask allows
    /// another CPU: the mask without `cpu` is set for a moment (the kernel
    /// migrates the thread before the call returns) and then restored,
    /// so the thread keeps every CPU it had and the load balancer its
    /// freedom. A mask that cannot be read (more CPUs than `cpu_set_t`
    /// holds) or names one CPU leaves the thread where it is.
    pub fn leave(cpu: usize) {
        let size = std::mem::size_of::<libc::cpu_set_t>();
        // SAFETY: `cpu_set_t` is plain bits; each call reads or writes
        // only the set it is given, of the size given, and `cpu` is
        // checked against that size before the set is indexed.
        unsafe {
            let mut mask: libc::cpu_set_t = std::mem::zeroed();
            if libc::sched_getaffinity(0, size, &mut mask) != 0
                || cpu >= 8 * size
                || !libc::CPU_ISSET(cpu, &mask)
                || libc::CPU_COUNT(&mask) < 2
            {
                return;
            }
            let mut others = mask;
            libc::CPU_CLR(cpu, &mut others);
            if libc::sched_setaffinity(0, size, &others) == 0 {
                libc::sched_setaffinity(0, size, &mask);
            }
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod placement {
    pub fn current() -> Option<usize> {
        None
    }

    pub fn leave(_cpu: usize) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn every_item_is_done_once_by_the_caller_and_the_helpers() {
        for helpers in [0, 1, 3] {
            let next = AtomicUsize::new(0);
            let done: Vec<AtomicUsize> = (0..1000).map(|_| AtomicUsize::new(0)).collect();
            run(helpers, &|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(d) = done.get(i) else { return };
                d.fetch_add(1, Ordering::Relaxed);
            });
            assert!(done.iter().all(|d| d.load(Ordering::Relaxed) == 1));
        }
    }

    #[test]
    fn dispatches_from_several_threads_share_the_pool() {
        let total = AtomicUsize::new(0);
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for _ in 0..50 {
                        let next = AtomicUsize::new(0);
                        run(2, &|| {
                            while next.fetch_add(1, Ordering::Relaxed) < 100 {
                                total.fetch_add(1, Ordering::Relaxed);
                            }
                        });
                    }
                });
            }
        });
        assert_eq!(total.load(Ordering::Relaxed), 4 * 50 * 100);
    }

    #[test]
    fn a_wake_before_a_run_and_a_wake_without_one_are_harmless() {
        wake(0);
        wake(2);
        let next = AtomicUsize::new(0);
        run(2, &|| while next.fetch_add(1, Ordering::Relaxed) < 100 {});
        assert!(next.load(Ordering::Relaxed) >= 100);
        // Woken helpers with nothing to do go back to sleep.
        wake(2);
        std::thread::sleep(spin_time() * 4);
        let done = AtomicUsize::new(0);
        run(1, &|| {
            done.fetch_add(1, Ordering::Relaxed);
        });
        assert!((1..=2).contains(&done.load(Ordering::Relaxed)));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn leaving_a_cpu_keeps_the_threads_affinity_mask() {
        fn mask() -> Vec<u8> {
            let size = std::mem::size_of::<libc::cpu_set_t>();
            // SAFETY: the call writes only the set it is given; the bytes
            // are read within its size.
            unsafe {
                let mut m: libc::cpu_set_t = std::mem::zeroed();
                assert_eq!(libc::sched_getaffinity(0, size, &mut m), 0);
                std::slice::from_raw_parts((&m as *const libc::cpu_set_t).cast::<u8>(), size)
                    .to_vec()
            }
        }
        std::thread::spawn(|| {
            let before = mask();
            let cpu = placement::current().expect("Linux names the CPU");
            placement::leave(cpu);
            assert_eq!(mask(), before);
            // A CPU outside any set leaves the thread alone.
            placement::leave(usize::MAX / 2);
            assert_eq!(mask(), before);
        })
        .join()
        .unwrap();
    }

    #[test]
    fn the_spin_setting_is_read_with_a_default_and_a_ceiling() {
        assert_eq!(spin_from(None), SPIN);
        assert_eq!(spin_from(Some("fast")), SPIN);
        assert_eq!(spin_from(Some(" 0 ")), Duration::ZERO);
        assert_eq!(spin_from(Some("250")), Duration::from_micros(250));
        assert_eq!(
            spin_from(Some("18446744073709551615")),
            Duration::from_micros(MAX_SPIN_US)
        );
    }

    #[test]
    fn a_panic_in_the_job_reaches_the_caller_after_the_helpers_are_done() {
        let calls = AtomicUsize::new(0);
        let r = catch_unwind(AssertUnwindSafe(|| {
            run(2, &|| {
                calls.fetch_add(1, Ordering::Relaxed);
                panic!("job failed");
            })
        }));
        assert!(r.is_err());
        // The caller's copy ran; helpers' copies either ran or were withdrawn.
        let n = calls.load(Ordering::Relaxed);
        assert!((1..=3).contains(&n), "{n}");
    }
}
