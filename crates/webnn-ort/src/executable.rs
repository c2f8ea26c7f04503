//! A compiled graph: the session, its IO binding and, where shapes are static, the input and
//! output tensors allocated and bound once. Inputs with dynamic (bounded) dimensions get a
//! tensor of their actual shape per dispatch, and such outputs are allocated by ONNX Runtime
//! at the sizes the inputs imply.

use crate::{element_type, ort_error, ModelSession, OrtBackend};
use ort::memory::{Allocator, MemoryInfo};
use ort::session::IoBinding;
use ort::value::{DynTensor, DynTensorValueType};
use webnn_core::{DataType, DimBindings, Error, Executable, HostTensor, OperandDescriptor, Result};
use webnn_onnx::{Boundary, OnnxModel};

/// Bytes of `elements` values of `dt` in memory (int4/uint4 two per byte, as ONNX packs them).
fn byte_len(dt: DataType, elements: usize) -> usize {
    dt.byte_length(elements as u64).unwrap_or(u64::MAX) as usize
}

fn new_tensor(dt: DataType, shape: &[u32]) -> Result<DynTensor> {
    let shape: Vec<i64> = shape.iter().map(|&n| n as i64).collect();
    DynTensor::new(&Allocator::default(), element_type(dt), shape)
        .map_err(|e| ort_error("tensor", e))
}

/// A graph input or output and, when its shape is static, its tensor.
struct Slot {
    boundary: Boundary,
    tensor: Option<DynTensor>,
}

fn slot(boundary: &Boundary) -> Result<Slot> {
    let tensor = match boundary.desc.static_shape() {
        Some(shape) => Some(new_tensor(boundary.desc.data_type, &shape)?),
        None => None,
    };
    Ok(Slot {
        boundary: boundary.clone(),
        tensor,
    })
}

/// Copies `bytes` into a CPU tensor of exactly that many bytes.
fn write(tensor: &mut DynTensor, bytes: &[u8]) {
    if !bytes.is_empty() {
        // SAFETY: the tensor was allocated on the CPU for `bytes.len()` bytes.
        unsafe {
            std::ptr::copy_nonoverlapping(
                bytes.as_ptr(),
                tensor.data_ptr_mut().cast::<u8>(),
                bytes.len(),
            )
        };
    }
}

/// The first `len` bytes of a CPU tensor.
fn read(ptr: *const std::ffi::c_void, len: usize) -> Vec<u8> {
    let mut bytes = vec![0u8; len];
    if len > 0 {
        // SAFETY: the caller passes a CPU tensor of at least `len` bytes, written by the run.
        unsafe { std::ptr::copy_nonoverlapping(ptr.cast::<u8>(), bytes.as_mut_ptr(), len) };
    }
    bytes
}

/// A compiled graph.
pub struct OrtExecutable {
    session: ModelSession,
    binding: IoBinding,
    inputs: Vec<Slot>,
    outputs: Vec<Slot>,
}

impl OrtExecutable {
    pub fn new(backend: &OrtBackend, model: &OnnxModel) -> Result<OrtExecutable> {
        let session = backend.model_session(model)?;
        let mut binding = session
            .create_binding()
            .map_err(|e| ort_error("binding", e))?;
        let inputs = model.inputs.iter().map(slot).collect::<Result<Vec<_>>>()?;
        let mut outputs = model.outputs.iter().map(slot).collect::<Result<Vec<_>>>()?;
        for o in &mut outputs {
            let name = o.boundary.onnx_name.clone();
            match &mut o.tensor {
                Some(t) => binding.bind_output(name, t),
                None => binding.bind_output_to_device(name, &MemoryInfo::default()),
            }
            .map_err(|e| ort_error("binding", e))?;
        }
        Ok(OrtExecutable {
            session,
            binding,
            inputs,
            outputs,
        })
    }
}

impl Executable for OrtExecutable {
    fn dispatch(&mut self, inputs: &[(&str, &HostTensor)]) -> Result<Vec<(String, HostTensor)>> {
        let mut sizes = DimBindings::default();
        let mut fresh = Vec::new();
        for s in &mut self.inputs {
            let b = &s.boundary;
            let (_, t) = inputs
                .iter()
                .find(|(n, _)| *n == b.name)
                .ok_or_else(|| Error::type_error(format!("missing input '{}'", b.name)))?;
            let dt = b.desc.data_type;
            if t.desc.data_type != dt {
                return Err(Error::type_error(format!(
                    "input '{}' must be {}, got {}",
                    b.name, b.desc, t.desc
                )));
            }
            let shape = t.desc.require_static("a tensor bound to an input")?;
            sizes.bind(&b.name, &b.desc, &shape)?;
            let elements: usize = shape.iter().map(|&n| n as usize).product();
            let expected = byte_len(dt, elements);
            if t.bytes.len() != expected {
                return Err(Error::type_error(format!(
                    "input '{}' holds {} bytes, expected {expected}",
                    b.name,
                    t.bytes.len()
                )));
            }
            let tensor = match &mut s.tensor {
                Some(tensor) => tensor,
                None => {
                    fresh.push(new_tensor(dt, &shape)?);
                    fresh.last_mut().expect("just pushed")
                }
            };
            write(tensor, &t.bytes);
            self.binding
                .bind_input(b.onnx_name.clone(), &*tensor)
                .map_err(|e| ort_error("binding", e))?;
        }
        // Outputs of dynamic shape: ONNX Runtime allocates them at this run's sizes (the
        // binding would otherwise hold the previous run's tensors).
        for o in self.outputs.iter().filter(|o| o.tensor.is_none()) {
            self.binding
                .bind_output_to_device(o.boundary.onnx_name.clone(), &MemoryInfo::default())
                .map_err(|e| ort_error("binding", e))?;
        }
        let run = self
            .session
            .run_binding(&self.binding)
            .map_err(|e| ort_error("run", e))?;
        let mut results = Vec::with_capacity(self.outputs.len());
        for s in &self.outputs {
            let b = &s.boundary;
            let dt = b.desc.data_type;
            let (desc, bytes) = match &s.tensor {
                Some(t) => {
                    let elements = b.desc.max_elements() as usize;
                    (b.desc.clone(), read(t.data_ptr(), byte_len(dt, elements)))
                }
                None => {
                    let value = run.get(b.onnx_name.as_str()).ok_or_else(|| {
                        Error::operation_error(format!("ONNX Runtime gave no output '{}'", b.name))
                    })?;
                    let t = value
                        .view()
                        .downcast::<DynTensorValueType>()
                        .map_err(|e| ort_error("output", e))?;
                    let shape: Vec<u32> = t.shape().iter().map(|&n| n as u32).collect();
                    let elements: usize = shape.iter().map(|&n| n as usize).product();
                    (
                        OperandDescriptor::new(dt, &shape),
                        read(t.data_ptr(), byte_len(dt, elements)),
                    )
                }
            };
            results.push((b.name.clone(), HostTensor { desc, bytes }));
        }
        Ok(results)
    }
}
