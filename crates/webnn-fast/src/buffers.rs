//! Float (and byte) buffers reused across steps and dispatches.
//!
//! A network's activations are megabytes; allocating them afresh per op makes the allocator
//! hand out new pages (one fault and one kernel zero-fill per 4 KiB) or zero-fill them itself,
//! which measured ~15% of MobileNetV2's time. So every buffer a fast step writes comes from
//! here and returns here when its value dies; after the first dispatch the set of buffers is
//! stable and nothing is allocated or cleared. Bytes are the storage of 8-bit activations
//! (`quant::Bytes`).

use std::ops::{Deref, DerefMut};

/// An element type every bit pattern of which is a value (so stale contents are harmless).
pub(crate) trait Plain: Copy + Default {}
impl Plain for f32 {}
impl Plain for u8 {}

/// A buffer whose whole capacity has been initialized: it can be resized within its
/// capacity without writing anything (its old contents show through, and every step
/// overwrites all of its output).
pub(crate) struct Buf<T: Plain = f32>(Vec<T>);

impl<T: Plain> Buf<T> {
    /// A buffer of `len` zeros with its capacity initialized.
    fn new(len: usize) -> Buf<T> {
        let mut v = Vec::with_capacity(len);
        v.resize(v.capacity(), T::default());
        v.truncate(len);
        Buf(v)
    }

    /// A buffer that holds nothing (for a step that needs no scratch).
    pub(crate) fn empty() -> Buf<T> {
        Buf(Vec::new())
    }

    /// Wraps a vector that came from [`Buf::into_vec`]: the caller vouches that it has not
    /// been reallocated since, so its capacity is still initialized.
    pub(crate) fn from_vec(v: Vec<T>) -> Buf<T> {
        Buf(v)
    }

    pub(crate) fn into_vec(self) -> Vec<T> {
        self.0
    }

    fn set_len(&mut self, len: usize) {
        assert!(len <= self.0.capacity());
        // SAFETY: every `Buf` has its whole capacity initialized (see `new`; nothing hands
        // out a `&mut Vec` that could reallocate it), and `Plain` types have no invalid bit
        // patterns.
        unsafe { self.0.set_len(len) }
    }
}

impl<T: Plain> Deref for Buf<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.0
    }
}

impl<T: Plain> DerefMut for Buf<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        &mut self.0
    }
}

/// The spare buffers of one compiled graph: floats, and bytes.
#[derive(Default)]
pub(crate) struct Spare {
    floats: Pool<f32>,
    bytes: Pool<u8>,
}

impl Spare {
    /// A buffer of `len` floats: the smallest spare one large enough, else a new one. Its
    /// contents are whatever it last held.
    pub(crate) fn take(&mut self, len: usize) -> Buf {
        self.floats.take(len)
    }

    /// Keeps a buffer for a later `take` (tiny ones are not worth tracking).
    pub(crate) fn give(&mut self, b: Buf) {
        self.floats.give(b)
    }

    /// `take` for bytes.
    pub(crate) fn take_bytes(&mut self, len: usize) -> Buf<u8> {
        self.bytes.take(len)
    }

    /// `give` for bytes.
    pub(crate) fn give_bytes(&mut self, b: Buf<u8>) {
        self.bytes.give(b)
    }
}

/// The spare buffers of one element type.
struct Pool<T: Plain>(Vec<Buf<T>>);

impl<T: Plain> Default for Pool<T> {
    fn default() -> Self {
        Pool(Vec::new())
    }
}

impl<T: Plain> Pool<T> {
    fn take(&mut self, len: usize) -> Buf<T> {
        // An empty buffer (a step's unused scratch) takes none of the spare ones: dropped
        // unreturned, it would cost the set a buffer per dispatch.
        if len == 0 {
            return Buf::empty();
        }
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

    fn give(&mut self, b: Buf<T>) {
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
