//! Tensors a backend owns (`MLTensor`'s storage) and the bindings of one dispatch, with the
//! host-memory implementation every backend without a device of its own gets by default.

use crate::backend::{Executable, HostTensor, InPlace, LocalFuture};
use crate::error::{Error, Result};
use crate::shape::OperandDescriptor;
use std::any::Any;

/// The report of device work a dispatch submitted: awaited by the next read.
pub type Pending = LocalFuture<'static, Result<()>>;

/// A read started by [`DeviceTensor::read`]: it owns what it needs, so the tensor may be
/// written, dispatched to or destroyed while it is in flight.
pub type ReadFuture = LocalFuture<'static, Result<Vec<u8>>>;

/// A tensor a backend owns. The facade checks descriptors, lengths and usage flags first.
pub trait DeviceTensor: Any {
    /// Replaces the contents (`writeTensor`), ordered after the work submitted before.
    fn write(&mut self, data: &[u8]) -> Result<()>;
    /// Starts reading the contents now (`readTensor`): the bytes are those left by the work
    /// submitted before this call and by nothing submitted after it.
    fn read(&self) -> ReadFuture;
}

impl dyn DeviceTensor {
    /// The backend's concrete tensor type, or None for another backend's tensor.
    pub fn downcast_ref<T: DeviceTensor>(&self) -> Option<&T> {
        (self as &dyn Any).downcast_ref()
    }

    pub fn downcast_mut<T: DeviceTensor>(&mut self) -> Option<&mut T> {
        (self as &mut dyn Any).downcast_mut()
    }
}

/// Host backends' tensors: the bytes themselves.
impl DeviceTensor for HostTensor {
    fn write(&mut self, data: &[u8]) -> Result<()> {
        if data.len() != self.bytes.len() {
            return Err(Error::type_error(format!(
                "{} holds {} bytes, the data has {}",
                self.desc,
                self.bytes.len(),
                data.len()
            )));
        }
        self.bytes.copy_from_slice(data);
        Ok(())
    }

    fn read(&self) -> ReadFuture {
        // Host work ran when it was dispatched: the copy taken now is the value to return.
        let bytes = self.bytes.clone();
        Box::pin(std::future::ready(Ok(bytes)))
    }
}

/// A zero-filled (or `data`-filled) host tensor; an allocation that fails is an
/// OperationError, not an abort.
pub(crate) fn host_tensor(desc: &OperandDescriptor, data: Option<&[u8]>) -> Result<Box<dyn DeviceTensor>> {
    let len = desc.max_byte_length().unwrap_or(0);
    let len = usize::try_from(len).map_err(|_| too_large(desc, len))?;
    let mut bytes = Vec::new();
    bytes.try_reserve_exact(len).map_err(|_| too_large(desc, len as u64))?;
    match data {
        Some(d) => bytes.extend_from_slice(d),
        None => bytes.resize(len, 0),
    }
    Ok(Box::new(HostTensor { desc: desc.clone(), bytes }))
}

fn too_large(desc: &OperandDescriptor, len: u64) -> Error {
    Error::operation_error(format!("createTensor: cannot allocate {len} bytes for {desc}"))
}

/// The tensors of one dispatch: each distinct tensor once, and which one each of the
/// graph's inputs and outputs is bound to. An index shared by an input and an output marks
/// an in-place pair (the facade allows no other sharing).
pub struct Bound<'a> {
    pub tensors: Vec<&'a mut dyn DeviceTensor>,
    pub inputs: Vec<(&'a str, usize)>,
    pub outputs: Vec<(&'a str, usize)>,
}

impl<'a> Bound<'a> {
    /// The output bound to the same tensor as input `input` (an in-place pair).
    pub fn in_place_output(&self, input: usize) -> Option<&'a str> {
        let k = self.inputs[input].1;
        self.outputs.iter().find(|(_, t)| *t == k).map(|(name, _)| *name)
    }

    /// Every binding as the backend's tensor type `T`; a TypeError naming the first tensor
    /// of another backend.
    #[allow(clippy::type_complexity)]
    pub fn typed<T: DeviceTensor>(&self) -> Result<(Vec<(&'a str, &T)>, Vec<(&'a str, &T)>)> {
        Ok((self.typed_list("input", &self.inputs)?, self.typed_list("output", &self.outputs)?))
    }

    fn typed_list<T: DeviceTensor>(&self, what: &str, named: &[(&'a str, usize)]) -> Result<Vec<(&'a str, &T)>> {
        named
            .iter()
            .map(|&(name, k)| {
                let t: &dyn DeviceTensor = &*self.tensors[k];
                let t = t.downcast_ref::<T>().ok_or_else(|| {
                    Error::type_error(format!("dispatch: the tensor for {what} '{name}' belongs to another kind of context"))
                })?;
                Ok((name, t))
            })
            .collect()
    }
}

/// [`Executable::dispatch_bound`] for host tensors: inputs are passed by reference, the
/// tensor of an in-place pair is lent to the backend (its bytes moved out and back, never
/// copied), and outputs are moved into their tensors.
pub(crate) fn dispatch_host<E: Executable + ?Sized>(exe: &mut E, bound: &mut Bound<'_>) -> Result<()> {
    let not_host = |name: &str| Error::type_error(format!("dispatch: '{name}' is not a tensor of this context"));
    // Lend the in-place tensors first: their bytes leave the bound tensors for the call.
    let mut lent = Vec::new();
    for k in 0..bound.inputs.len() {
        if let Some(output) = bound.in_place_output(k) {
            let (input, t) = bound.inputs[k];
            let host = bound.tensors[t].downcast_mut::<HostTensor>().ok_or_else(|| not_host(input))?;
            let len = host.bytes.len();
            let held = HostTensor { desc: host.desc.clone(), bytes: std::mem::take(&mut host.bytes) };
            lent.push((input, output, t, len, held));
        }
    }
    let result = {
        let mut feeds = Vec::with_capacity(bound.inputs.len());
        for &(name, t) in &bound.inputs {
            if lent.iter().any(|l| l.0 == name) {
                continue;
            }
            let tensor: &dyn DeviceTensor = &*bound.tensors[t];
            feeds.push((name, tensor.downcast_ref::<HostTensor>().ok_or_else(|| not_host(name))?));
        }
        let mut inout: Vec<InPlace> = lent
            .iter_mut()
            .map(|(input, output, _, _, tensor)| InPlace { input, output, tensor })
            .collect();
        exe.dispatch_in_place(&feeds, &mut inout)
    };
    // Back in place whatever happened: a backend that failed midway may have left part of an
    // update, as a failed GPU dispatch would. One that left another size is a backend bug:
    // the tensor keeps its size, zeroed.
    let mut resized = None;
    for (input, _, t, len, held) in lent {
        let host = bound.tensors[t].downcast_mut::<HostTensor>().ok_or_else(|| not_host(input))?;
        host.bytes = match held.bytes.len() == len {
            true => held.bytes,
            false => {
                resized.get_or_insert(input);
                vec![0; len]
            }
        };
    }
    let outputs = result?;
    if let Some(name) = resized {
        return Err(Error::operation_error(format!("dispatch: the backend changed the size of in-place tensor '{name}'")));
    }
    for (name, value) in outputs {
        let Some(&(_, t)) = bound.outputs.iter().find(|(n, _)| *n == name) else { continue };
        let host = bound.tensors[t].downcast_mut::<HostTensor>().ok_or_else(|| not_host(&name))?;
        if value.bytes.len() != host.bytes.len() {
            return Err(Error::operation_error(format!(
                "dispatch: the backend computed {} bytes for output '{name}', its tensor holds {}",
                value.bytes.len(),
                host.bytes.len()
            )));
        }
        host.bytes = value.bytes;
    }
    Ok(())
}
