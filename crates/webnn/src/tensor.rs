//! `MLTensor`: storage its context's backend owns (host bytes on the CPU, a GPU buffer on
//! WebGPU), behind [`DeviceTensor`].

use crate::context::{next_id, Context};
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use webnn_core::builder::check_descriptor;
use webnn_core::{DeviceTensor, Error, OperandDescriptor, ReadFuture, Result};

/// `MLTensorDescriptor` and whether the tensor is a constant one.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorDescriptor {
    pub desc: OperandDescriptor,
    pub readable: bool,
    pub writable: bool,
    pub constant: bool,
}

impl TensorDescriptor {
    pub fn new(desc: OperandDescriptor, readable: bool, writable: bool) -> TensorDescriptor {
        TensorDescriptor { desc, readable, writable, constant: false }
    }
}

pub(crate) struct TensorInner {
    pub(crate) id: u64,
    pub(crate) context: u64,
    pub(crate) desc: TensorDescriptor,
    pub(crate) bytes: usize,
    /// A constant tensor's contents, kept so graphs can embed them (`builder.constant(tensor)`)
    /// without reading the device back.
    pub(crate) constant_data: Option<Arc<[u8]>>,
    /// `None` once destroyed: the memory is released at once, not when the last handle goes.
    pub(crate) storage: RefCell<Option<Box<dyn DeviceTensor>>>,
}

/// `MLTensor`. Cloning gives another handle to the same tensor.
#[derive(Clone)]
pub struct Tensor(pub(crate) Rc<TensorInner>);

impl Tensor {
    pub(crate) fn new(ctx: &Context, desc: TensorDescriptor, data: Option<&[u8]>) -> Result<Tensor> {
        check_descriptor(&desc.desc)?;
        let bytes = desc.desc.max_byte_length().unwrap_or(0) as usize;
        if let Some(d) = data {
            check_len(&desc.desc, bytes, d.len())?;
        }
        let storage = ctx.0.backend.create_tensor(&desc.desc, data)?;
        let constant_data = data.filter(|_| desc.constant).map(Arc::from);
        Ok(Tensor(Rc::new(TensorInner {
            id: next_id(),
            context: ctx.0.id,
            desc,
            bytes,
            constant_data,
            storage: RefCell::new(Some(storage)),
        })))
    }

    pub fn descriptor(&self) -> &TensorDescriptor {
        &self.0.desc
    }

    pub fn desc(&self) -> &OperandDescriptor {
        &self.0.desc.desc
    }

    /// The tensor's size in bytes (int4/uint4 packed two per byte).
    pub fn byte_length(&self) -> usize {
        self.0.bytes
    }

    pub fn id(&self) -> u64 {
        self.0.id
    }

    pub fn is_destroyed(&self) -> bool {
        self.0.storage.borrow().is_none()
    }

    /// `MLTensor.destroy()`: frees the memory now; later use is an error, and reads still in
    /// flight reject with an InvalidStateError.
    pub fn destroy(&self) {
        self.0.storage.borrow_mut().take();
    }

    pub(crate) fn write(&self, data: &[u8]) -> Result<()> {
        check_len(self.desc(), self.0.bytes, data.len())?;
        match &mut *self.0.storage.borrow_mut() {
            Some(s) => s.write(data),
            None => Err(Error::type_error("writeTensor: the tensor is destroyed")),
        }
    }

    /// Starts a read now: the future gives the contents as of this call.
    pub(crate) fn start_read(&self) -> Result<ReadFuture> {
        match &*self.0.storage.borrow() {
            Some(s) => Ok(s.read()),
            None => Err(Error::type_error("readTensor: the tensor is destroyed")),
        }
    }
}

fn check_len(desc: &OperandDescriptor, want: usize, got: usize) -> Result<()> {
    if want != got {
        return Err(Error::type_error(format!("{desc} holds {want} bytes, the data has {got}")));
    }
    Ok(())
}
