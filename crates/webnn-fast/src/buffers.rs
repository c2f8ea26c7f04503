//! Float buffers reused across steps and dispatches.
//!
//! A network's activations are megabytes; allocating them afresh per op makes the allocator
//! hand out new pages (one fault and one kernel zero-fill per 4 KiB) or zero-fill them itself,
//! which measured ~15% of MobileNetV2's time. So every buffer a fast step writes comes from
//! here and returns here when its value dies; after the first dispatch the set of buffers is
//! stable and nothing is allocated or cleared.

use std::ops::{Deref, DerefMut};

/// A float buffer whose whole capacity has been initialized: it can be resized within its
/// capacity without writing anything (its old contents show through, and every step
/// overwrites all of its output).
pub(crate) struct Buf(Vec<f32>);

impl Buf {
    /// A buffer of `len` zeros with its capacity initialized.
    fn new(len: usize) -> Buf {
        let mut v = Vec::with_capacity(len);
        v.resize(v.capacity(), 0.0);
        v.truncate(len);
        Buf(v)
    }

    /// A buffer that holds nothing (for a step that needs no scratch).
    pub(crate) fn empty() -> Buf {
        Buf(Vec::new())
    }

    /// Wraps a vector that came from [`Buf::into_vec`]: the caller vouches that it has not
    /// been reallocated since, so its capacity is still initialized.
    pub(crate) fn from_vec(v: Vec<f32>) -> Buf {
        Buf(v)
    }

    pub(crate) fn into_vec(self) -> Vec<f32> {
        self.0
    }

    fn set_len(&mut self, len: usize) {
        assert!(len <= self.0.capacity());
        // SAFETY: every `Buf` has its whole capacity initialized (see `new`; nothing hands
        // out a `&mut Vec` that could reallocate it), and f32 has no invalid bit patterns.
        unsafe { self.0.set_len(len) }
    }
}

impl Deref for Buf {
    type Target = [f32];
    fn deref(&self) -> &[f32] {
        &self.0
    }
}

impl DerefMut for Buf {
    fn deref_mut(&mut self) -> &mut [f32] {
        &mut self.0
    }
}

/// The spare buffers of one compiled graph.
#[derive(Default)]
pub(crate) struct Spare(Vec<Buf>);

impl Spare {
    /// A buffer of `len` floats: the smallest spare one large enough, else a new one. Its
    /// contents are whatever it last held.
    pub(crate) fn take(&mut self, len: usize) -> Buf {
        let best = (0..self.0.len())
            .filter(|&i| self.0[i].0.capacity() >= len)
            .min_by_key(|&i| self.0[i].0.capacity());
        match best {
            Some(i) => {
                let mut b = self.0.swap_remove(i);
                b.set_len(len);
                b
            }
            None => Buf::new(len),
        }
    }

    /// Keeps a buffer for a later `take` (tiny ones are not worth tracking).
    pub(crate) fn give(&mut self, b: Buf) {
        if b.0.capacity() >= 1024 {
            self.0.push(b);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_are_reused_without_clearing() {
        let mut spare = Spare::default();
        let mut a = spare.take(5000);
        a[4999] = 7.0;
        let ptr = a.as_ptr();
        spare.give(a);
        let b = spare.take(3000);
        assert_eq!(b.as_ptr(), ptr);
        spare.give(b);
        let c = spare.take(5000);
        assert_eq!((c.as_ptr(), c[4999]), (ptr, 7.0));
        assert_ne!(spare.take(6000).as_ptr(), ptr);
    }
}
