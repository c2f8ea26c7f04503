//! A small persistent thread pool (std only).
//!
//! A network runs dozens of ops of a few hundred microseconds each, so starting threads per op
//! (or going through a general-purpose scheduler) would cost as much as the work. The workers
//! here live as long as the backend; for each op the caller publishes a job (a closure over
//! task indices) and everyone, the caller included, claims task indices until none are left.
//! Between ops the workers spin briefly, so the next op starts them in well under a
//! microsecond; after [`SPIN`] idle rounds they park on a condition variable and cost nothing
//! until the next job wakes them.
//!
//! The caller waits only for tasks that were claimed, never for a worker to show up: if a
//! worker is asleep or the OS has given its core to another process, the caller simply runs
//! that worker's share. Each thread has a share of every job, a contiguous block of its
//! tasks, and claims from its own first, then from the others' (stealing): consecutive ops
//! split by rows then give each thread the same rows of the image, whose values its own
//! caches still hold from the op before (with one shared counter the rows fell to the
//! threads at random, and MobileNetV2's depthwise layers read half their input from the
//! other core's cache, no faster on two threads than on one). A share's epoch, end and next
//! index are one atomic word, so a claim (a compare-and-swap on it) succeeds only for a task
//! of the job being run.
//!
//! In the browser, a wasm module cannot start threads: the page starts Web Workers that share
//! the module's memory, and each calls [`Pool::serve`] to become one of the pool's workers
//! ([`Pool::with_external_workers`]). The browser's main thread may not block (a wasm
//! `memory.atomic.wait` traps there), so parked workers wait on a futex word that the caller
//! only notifies, and the caller never takes a lock a worker holds.
//!
//! Which thread runs which task never changes a result: callers make each task's arithmetic
//! depend only on its index (see `exec::unit_rows`), which is what makes outputs
//! bit-identical for every thread count.

use std::cell::UnsafeCell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::*};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// Idle rounds (each a `spin_loop` hint) before a worker parks: about 100 µs natively,
/// longer than the gap between two ops of a network and far shorter than the gap between
/// two inferences. wasm has no pause instruction, so a round there is a bare atomic load of
/// a nanosecond or two, and waking a Web Worker from `memory.atomic.wait` takes tens of
/// microseconds: there it spins about a millisecond, which also covers the page's own work
/// between two dispatches of one inference.
const SPIN: u32 = if cfg!(target_family = "wasm") {
    1_000_000
} else {
    20_000
};

/// Whether this target lacks threads: a wasm module is single-threaded unless built with
/// shared memory and atomics (the polyfill's threads build).
const NO_THREADS: bool = cfg!(all(target_family = "wasm", not(target_feature = "atomics")));
/// Whether std can start threads here; a wasm module's threads are Web Workers the page starts.
const SPAWNS: bool = !cfg!(target_family = "wasm");

/// Bits of the state and share words: epoch (20) | tasks or end (22) | next task (22).
const IDX_BITS: u32 = 22;
const IDX_MASK: u64 = (1 << IDX_BITS) - 1;
/// The most tasks one job may have.
pub const MAX_TASKS: usize = IDX_MASK as usize;

fn pack(epoch: u64, tasks: usize, next: usize) -> u64 {
    (epoch << (2 * IDX_BITS)) | ((tasks as u64) << IDX_BITS) | next as u64
}

fn epoch_of(s: u64) -> u64 {
    s >> (2 * IDX_BITS)
}

/// One thread's share of the current job: tasks `next..end`, tagged with the job's epoch.
/// A cache line of its own, so claims on different shares do not contend.
#[repr(align(128))]
struct Share(AtomicU64);

type Job = &'static (dyn Fn(usize) + Sync);

struct Shared {
    /// The current job's epoch and task count (its next-task field is unused): what
    /// workers watch for a new job.
    state: AtomicU64,
    /// Each thread's block of the current job's tasks.
    shares: Box<[Share]>,
    /// The current job: written by the caller before it publishes the state, read by a
    /// worker only after it claimed a task of that state, while the caller still waits for
    /// that task.
    job: UnsafeCell<Option<Job>>,
    /// Tasks of the current job finished.
    done: AtomicUsize,
    panicked: AtomicBool,
    /// Workers parked or about to park: the caller wakes them only when this is nonzero.
    sleepers: AtomicUsize,
    parking: Parking,
    shutdown: AtomicBool,
    /// Workers that joined through [`Pool::serve`] and have not left.
    served: AtomicUsize,
}

// SAFETY: `job` is only accessed under the protocol described on the field.
unsafe impl Sync for Shared {}

/// A pool of `threads - 1` workers plus the calling thread.
pub struct Pool {
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
    /// Threads that run a job, the caller included (spawned or external workers alike).
    threads: usize,
    /// One job at a time: executables compiled by one backend share its pool.
    busy: Mutex<()>,
}

impl Pool {
    /// A pool that runs jobs on `threads` threads in all (at least 1, the caller). Where
    /// the target has no threads (wasm32 without the atomics feature, where std's spawn
    /// fails) it is always 1: every job runs inline on the caller.
    ///
    /// In a wasm threads build, where std cannot start threads, this is
    /// [`Pool::with_external_workers`]: the page starts the workers.
    pub fn new(threads: usize) -> Pool {
        if !SPAWNS {
            return Pool::with_external_workers(threads);
        }
        let mut pool = Pool::with_external_workers(threads);
        pool.workers = (1..pool.threads)
            .map(|i| {
                let s = pool.shared.clone();
                std::thread::Builder::new()
                    .name(format!("webnn-fast-{i}"))
                    .spawn(move || worker(&s, i))
                    .expect("cannot start a webnn-fast worker thread")
            })
            .collect();
        pool
    }

    /// A pool of `threads` whose `threads - 1` workers are threads someone else starts, each
    /// calling [`Pool::serve`] (Web Workers in the browser). Jobs never wait for them to
    /// arrive: until they do, the caller runs their share. Where the target has no threads
    /// at all it is a pool of 1.
    pub fn with_external_workers(threads: usize) -> Pool {
        let threads = if NO_THREADS { 1 } else { threads.max(1) };
        let shared = Arc::new(Shared {
            state: AtomicU64::new(0),
            shares: (0..threads).map(|_| Share(AtomicU64::new(0))).collect(),
            job: UnsafeCell::new(None),
            done: AtomicUsize::new(0),
            panicked: AtomicBool::new(false),
            sleepers: AtomicUsize::new(0),
            parking: Parking::new(),
            shutdown: AtomicBool::new(false),
            served: AtomicUsize::new(0),
        });
        Pool {
            shared,
            workers: Vec::new(),
            threads,
            busy: Mutex::new(()),
        }
    }

    /// Runs the calling thread as one of this pool's workers until the pool is dropped:
    /// the body of an external worker (a Web Worker sharing the wasm memory). Returns at
    /// once, false, when the pool already has all its workers.
    pub fn serve(&self) -> bool {
        let s = &*self.shared;
        let spawned = self.workers.len();
        let Ok(before) = s.served.fetch_update(SeqCst, SeqCst, |n| (spawned + n + 1 < self.threads).then_some(n + 1)) else {
            return false;
        };
        // Its share: a worker that left may have had it (two threads then start on one
        // share, which only costs locality).
        worker(s, spawned + before + 1);
        s.served.fetch_sub(1, SeqCst);
        true
    }

    /// Threads that run a job, the caller included.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Workers running now: spawned ones and external ones that have arrived.
    pub fn workers_present(&self) -> usize {
        self.workers.len() + self.shared.served.load(SeqCst)
    }

    /// Runs `f(0)`, ..., `f(tasks - 1)` across the pool and returns when all have finished.
    /// A panic in any task is re-raised here after every task has finished.
    pub fn run(&self, tasks: usize, f: &(dyn Fn(usize) + Sync)) {
        if self.threads <= 1 || tasks <= 1 || tasks > MAX_TASKS {
            (0..tasks).for_each(f);
            return;
        }
        let _guard = self.busy.lock().unwrap_or_else(|e| e.into_inner());
        let s = &*self.shared;
        // SAFETY: the reference is used only by claims of this job's tasks, and we return (or
        // unwind) only after every claimed task has finished.
        let job: Job = unsafe { std::mem::transmute::<&(dyn Fn(usize) + Sync), Job>(f) };
        // SAFETY: no task of an earlier job is running (its caller waited for all of them),
        // and none of this job can be claimed before the state below is published.
        unsafe { *s.job.get() = Some(job) };
        s.done.store(0, Relaxed);
        let epoch = (epoch_of(s.state.load(Relaxed)) + 1) & ((1 << 20) - 1);
        let n = s.shares.len();
        for (k, share) in s.shares.iter().enumerate() {
            share.0.store(pack(epoch, (k + 1) * tasks / n, k * tasks / n), Relaxed);
        }
        // Publishes the shares with it: a worker that sees this epoch sees them.
        s.state.store(pack(epoch, tasks, 0), SeqCst);
        if s.sleepers.load(SeqCst) > 0 {
            s.parking.wake_all();
        }
        // Every task counts as finished even when it panics, so the wait below ends; the
        // caller goes on claiming, as no worker may be there to run the rest.
        let mut mine = Ok(());
        while let Some(t) = claim(s, epoch, 0) {
            let r = panic::catch_unwind(AssertUnwindSafe(|| f(t)));
            s.done.fetch_add(1, Release);
            if mine.is_ok() {
                mine = r;
            }
        }
        let mut spins = 0u32;
        while s.done.load(Acquire) < tasks {
            spins += 1;
            if spins.is_multiple_of(1024) {
                // A worker holding a task may have lost its core to another process.
                std::thread::yield_now();
            } else {
                std::hint::spin_loop();
            }
        }
        if let Err(e) = mine {
            panic::resume_unwind(e);
        }
        if s.panicked.swap(false, Relaxed) {
            panic!("a webnn-fast worker panicked");
        }
    }
}

/// Claims a task of job `epoch` for thread `me`: from its own share first, then from the
/// others' in turn. None when every share is exhausted (or a later job has replaced it).
fn claim(s: &Shared, epoch: u64, me: usize) -> Option<usize> {
    let n = s.shares.len();
    for k in 0..n {
        let share = &s.shares[(me + k) % n].0;
        let mut cur = share.load(Acquire);
        loop {
            let (end, next) = (((cur >> IDX_BITS) & IDX_MASK) as usize, (cur & IDX_MASK) as usize);
            if epoch_of(cur) != epoch || next >= end {
                break;
            }
            match share.compare_exchange_weak(cur, cur + 1, AcqRel, Acquire) {
                Ok(_) => return Some(next),
                Err(now) => cur = now,
            }
        }
    }
    None
}

/// Worker `me` (1 and up; the caller is 0) of the pool `s`.
fn worker(s: &Shared, me: usize) {
    let mut seen = 0;
    loop {
        let mut spins = 0;
        loop {
            let e = epoch_of(s.state.load(SeqCst));
            if e != seen {
                seen = e;
                break;
            }
            if s.shutdown.load(Relaxed) {
                return;
            }
            if spins < SPIN {
                spins += 1;
                std::hint::spin_loop();
                continue;
            }
            // Announced before the condition is read: the caller publishes a job before it
            // reads `sleepers`, so either it sees this worker and wakes it, or the worker
            // sees the new job.
            s.sleepers.fetch_add(1, SeqCst);
            s.parking
                .wait_while(|| epoch_of(s.state.load(SeqCst)) == seen && !s.shutdown.load(SeqCst));
            s.sleepers.fetch_sub(1, SeqCst);
            spins = 0;
        }
        // Claim tasks until the job is exhausted. The job is read only after a successful
        // claim: the caller is then still waiting for that task, so the job is alive.
        while let Some(t) = claim(s, seen, me) {
            // SAFETY: see above; the caller wrote the job before publishing its epoch.
            let job = unsafe { *s.job.get() };
            let ok = job.is_some_and(|job| panic::catch_unwind(AssertUnwindSafe(|| job(t))).is_ok());
            if !ok {
                s.panicked.store(true, Relaxed);
            }
            s.done.fetch_add(1, Release);
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.shared.shutdown.store(true, SeqCst);
        self.shared.parking.wake_all();
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}

/// Where idle workers sleep: natively a condition variable.
#[cfg(not(all(target_family = "wasm", target_feature = "atomics")))]
struct Parking {
    lock: Mutex<()>,
    wake: std::sync::Condvar,
}

#[cfg(not(all(target_family = "wasm", target_feature = "atomics")))]
impl Parking {
    fn new() -> Parking {
        Parking {
            lock: Mutex::new(()),
            wake: std::sync::Condvar::new(),
        }
    }

    /// Blocks while `cond` holds, until a [`Parking::wake_all`] (or spuriously).
    fn wait_while(&self, cond: impl Fn() -> bool) {
        let mut l = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        while cond() {
            l = self.wake.wait(l).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn wake_all(&self) {
        let _l = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        self.wake.notify_all();
    }
}

/// Where idle workers sleep in a wasm threads build: a futex word. Waking only bumps and
/// notifies it, which the browser's main thread may do (it may not wait, not even on a
/// contended lock).
#[cfg(all(target_family = "wasm", target_feature = "atomics"))]
struct Parking {
    word: std::sync::atomic::AtomicU32,
}

#[cfg(all(target_family = "wasm", target_feature = "atomics"))]
impl Parking {
    fn new() -> Parking {
        Parking {
            word: std::sync::atomic::AtomicU32::new(0),
        }
    }

    fn wait_while(&self, cond: impl Fn() -> bool) {
        use core::arch::wasm32::memory_atomic_wait32;
        loop {
            // Read before the condition: a wake after it changes the word, and the wait
            // below then returns at once.
            let seen = self.word.load(SeqCst);
            if !cond() {
                return;
            }
            // SAFETY: the pointer is to a live, aligned 32-bit atomic.
            unsafe { memory_atomic_wait32(self.word.as_ptr().cast(), seen as i32, -1) };
        }
    }

    fn wake_all(&self) {
        self.word.fetch_add(1, SeqCst);
        // SAFETY: as above.
        unsafe { core::arch::wasm32::memory_atomic_notify(self.word.as_ptr().cast(), u32::MAX) };
    }
}

/// A mutable slice shared by the tasks of one job, each writing a disjoint range.
pub(crate) struct SharedMut<'a, T = f32> {
    ptr: *mut T,
    len: usize,
    _life: std::marker::PhantomData<&'a mut [T]>,
}

// SAFETY: tasks only touch disjoint ranges (the contract of `range`); the elements are
// plain values (floats, bytes).
unsafe impl<T: Send> Send for SharedMut<'_, T> {}
unsafe impl<T: Send> Sync for SharedMut<'_, T> {}

impl<'a, T> SharedMut<'a, T> {
    pub(crate) fn new(v: &'a mut [T]) -> Self {
        SharedMut {
            ptr: v.as_mut_ptr(),
            len: v.len(),
            _life: std::marker::PhantomData,
        }
    }

    /// Its length in elements.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Elements `start..start + len`.
    ///
    /// # Safety
    /// No two live results may overlap: each task of a job asks for its own range.
    #[allow(clippy::mut_from_ref)]
    pub(crate) unsafe fn range(&self, start: usize, len: usize) -> &mut [T] {
        assert!(
            start <= self.len && len <= self.len - start,
            "range out of bounds"
        );
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(start), len) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_every_task_once() {
        for threads in 1..=4 {
            let pool = Pool::new(threads);
            for tasks in [0, 1, 2, 7, 100] {
                let hits: Vec<AtomicUsize> = (0..tasks).map(|_| AtomicUsize::new(0)).collect();
                pool.run(tasks, &|i| {
                    hits[i].fetch_add(1, Relaxed);
                });
                assert!(hits.iter().all(|h| h.load(Relaxed) == 1));
            }
        }
    }

    #[test]
    fn wakes_parked_workers() {
        let pool = Pool::new(3);
        std::thread::sleep(std::time::Duration::from_millis(20));
        let sum = AtomicUsize::new(0);
        pool.run(64, &|i| {
            sum.fetch_add(i, Relaxed);
        });
        assert_eq!(sum.load(Relaxed), 64 * 63 / 2);
    }

    #[test]
    fn external_workers_join_late_and_leave_with_the_pool() {
        let pool = Arc::new(Pool::with_external_workers(3));
        assert_eq!((pool.threads(), pool.workers_present()), (3, 0));
        // Before any worker arrives, the caller runs every task.
        let sum = AtomicUsize::new(0);
        pool.run(50, &|i| {
            sum.fetch_add(i, Relaxed);
        });
        assert_eq!(sum.load(Relaxed), 50 * 49 / 2);
        let served: Vec<_> = (0..3)
            .map(|_| {
                let p = pool.clone();
                std::thread::spawn(move || p.serve())
            })
            .collect();
        while pool.workers_present() < 2 {
            std::thread::yield_now();
        }
        let ran_on: Vec<Mutex<Option<std::thread::ThreadId>>> =
            (0..64).map(|_| Mutex::new(None)).collect();
        pool.run(64, &|i| {
            // Long enough that the caller cannot take every task before the workers wake.
            std::thread::sleep(std::time::Duration::from_micros(300));
            *ran_on[i].lock().unwrap() = Some(std::thread::current().id());
        });
        let threads: std::collections::HashSet<_> =
            ran_on.iter().map(|t| t.lock().unwrap().unwrap()).collect();
        assert!(threads.len() >= 2, "the external workers took no task");
        // The third arrival found the pool full; the other two leave at shutdown (what
        // dropping the pool does, which their references prevent here).
        pool.shared.shutdown.store(true, SeqCst);
        pool.shared.parking.wake_all();
        let joined: Vec<bool> = served.into_iter().map(|h| h.join().unwrap()).collect();
        assert_eq!(joined.iter().filter(|&&j| j).count(), 2);
    }

    #[test]
    fn a_panicking_task_reaches_the_caller() {
        let pool = Pool::new(2);
        let r = panic::catch_unwind(AssertUnwindSafe(|| pool.run(8, &|i| assert!(i != 5))));
        assert!(r.is_err());
        pool.run(4, &|_| {});
    }
}
