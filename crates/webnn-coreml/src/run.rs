//! Running converted programs through Core ML (`macos-run`). Core ML exists only on Apple
//! platforms; elsewhere, and without the feature, the backend converts every graph it is
//! given and reports NotSupportedError instead of an executable.

use webnn_core::{Backend, Capabilities, DataTypeSet, DeviceInfo, Executable, Graph, OpKind, Result};

/// The Core ML backend: converts in `compile` and, on macOS with `macos-run`, loads the
/// program there once; `dispatch` runs a prediction.
#[derive(Clone, Copy, Debug, Default)]
pub struct CoreMlBackend;

impl Backend for CoreMlBackend {
    fn name(&self) -> &'static str {
        "coreml"
    }
    /// Core ML's tensor types: no int64, uint64 or uint32; int4/uint4 only as dequantizeLinear's
    /// constant input and zero point (they are widened to int8/uint8 there).
    fn capabilities(&self) -> Capabilities {
        let four_bit = DataTypeSet::I4.union(DataTypeSet::U4);
        Capabilities {
            data_types: DataTypeSet::FLOAT
                .union(DataTypeSet::I32)
                .union(DataTypeSet::I8)
                .union(DataTypeSet::U8)
                .union(four_bit),
            unsupported: vec![(OpKind::QuantizeLinear, "zeroPoint", four_bit), (OpKind::QuantizeLinear, "output", four_bit)],
            ..Capabilities::default()
        }
    }
    fn compile(&self, graph: &Graph) -> Result<Box<dyn Executable>> {
        let model = crate::convert_with(graph, &crate::Options { multiarray_io: true, ..Default::default() })?;
        executor(model)
    }
    fn device(&self) -> DeviceInfo {
        DeviceInfo { name: "CoreML".into(), accelerated: false }
    }
}

#[cfg(not(all(feature = "macos-run", target_os = "macos")))]
fn executor(_: crate::CoreMlModel) -> Result<Box<dyn Executable>> {
    Err(webnn_core::Error::not_supported("running CoreML programs needs macOS and the macos-run feature"))
}

#[cfg(all(feature = "macos-run", target_os = "macos"))]
fn executor(model: crate::CoreMlModel) -> Result<Box<dyn Executable>> {
    Ok(Box::new(mac::Loaded::new(model)?))
}

#[cfg(all(feature = "macos-run", target_os = "macos"))]
mod mac {
    use crate::emit::Ty;
    use crate::{Boundary, CoreMlModel};
    use objc2::rc::Retained;
    use objc2::runtime::{AnyObject, ProtocolObject};
    use objc2::AnyThread;
    use objc2_core_ml::{
        MLDictionaryFeatureProvider, MLFeatureProvider, MLFeatureValue, MLModel, MLMultiArray, MLMultiArrayDataType,
    };
    use objc2_foundation::{NSArray, NSDictionary, NSError, NSNumber, NSString, NSURL};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use webnn_core::{Error, Executable, HostTensor, Result};

    fn ns_error(what: &str, e: Retained<NSError>) -> Error {
        Error::operation_error(format!("{what}: {}", e.localizedDescription()))
    }

    /// Core ML's multi-array type and element size for a boundary value (converted with
    /// `Options::multiarray_io`, so of a type the array has).
    fn array_type(b: &Boundary) -> Result<(MLMultiArrayDataType, usize)> {
        match b.ty {
            Ty::F32 => Ok((MLMultiArrayDataType::Float32, 4)),
            Ty::F16 => Ok((MLMultiArrayDataType::Float16, 2)),
            Ty::I32 => Ok((MLMultiArrayDataType::Int32, 4)),
            Ty::I8 => Ok((MLMultiArrayDataType::Int8, 1)),
            Ty::U8 | Ty::Bool => Err(Error::operation_error("a uint8 boundary was not widened")),
        }
    }

    /// WebNN uint8 and int8 data cross the boundary as int32: the data type they widen from.
    fn widened(b: &Boundary) -> Option<webnn_core::DataType> {
        use webnn_core::DataType as D;
        let dt = b.desc.data_type;
        (b.ty == Ty::I32 && matches!(dt, D::Uint8 | D::Int8)).then_some(dt)
    }

    /// A program compiled and loaded by Core ML.
    pub struct Loaded {
        model: Retained<MLModel>,
        inputs: Vec<Boundary>,
        outputs: Vec<Boundary>,
    }

    impl Loaded {
        pub fn new(model: CoreMlModel) -> Result<Loaded> {
            for b in model.inputs.iter().chain(&model.outputs) {
                array_type(b)?;
            }
            static NEXT: AtomicUsize = AtomicUsize::new(0);
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let dir = std::env::temp_dir().join(format!("webnn-coreml-{}-{n}.mlpackage", std::process::id()));
            model.write_package(&dir).map_err(|e| Error::operation_error(e.to_string()))?;
            let path = NSString::from_str(&dir.to_string_lossy());
            // SAFETY: plain Objective-C calls on valid, retained objects.
            let loaded = unsafe {
                let url = NSURL::fileURLWithPath(&path);
                #[allow(deprecated)]
                let compiled = MLModel::compileModelAtURL_error(&url).map_err(|e| ns_error("compiling", e))?;
                MLModel::modelWithContentsOfURL_error(&compiled).map_err(|e| ns_error("loading", e))?
            };
            let _ = std::fs::remove_dir_all(&dir);
            Ok(Loaded { model: loaded, inputs: model.inputs, outputs: model.outputs })
        }
    }

    impl Executable for Loaded {
        fn dispatch(&mut self, inputs: &[(&str, &HostTensor)]) -> Result<Vec<(String, HostTensor)>> {
            let mut keys = Vec::new();
            let mut values = Vec::new();
            for b in &self.inputs {
                let t = inputs
                    .iter()
                    .find(|(n, _)| *n == b.name)
                    .ok_or_else(|| Error::type_error(format!("input {} is missing", b.name)))?
                    .1;
                let (dt, size) = array_type(b)?;
                let shape: Vec<Retained<NSNumber>> = b.shape.iter().map(|&n| NSNumber::new_usize(n)).collect();
                let bytes: Vec<u8> = match widened(b) {
                    Some(webnn_core::DataType::Int8) => t.bytes.iter().flat_map(|&v| (v as i8 as i32).to_le_bytes()).collect(),
                    Some(_) => t.bytes.iter().flat_map(|&v| (v as i32).to_le_bytes()).collect(),
                    None => t.bytes.clone(),
                };
                // SAFETY: the array is created contiguous with the input's element count and
                // type, so its buffer holds exactly `bytes`.
                let value = unsafe {
                    let array = MLMultiArray::initWithShape_dataType_error(
                        MLMultiArray::alloc(),
                        &NSArray::from_retained_slice(&shape),
                        dt,
                    )
                    .map_err(|e| ns_error("creating an input", e))?;
                    let n = array.count() as usize * size;
                    #[allow(deprecated)]
                    let ptr = array.dataPointer().as_ptr() as *mut u8;
                    std::ptr::copy_nonoverlapping(bytes.as_ptr(), ptr, n.min(bytes.len()));
                    MLFeatureValue::featureValueWithMultiArray(&array)
                };
                keys.push(NSString::from_str(&b.mil_name));
                values.push(Retained::into_super(Retained::into_super(value)));
            }
            let keys: Vec<&NSString> = keys.iter().map(|k| &**k).collect();
            let dict: Retained<NSDictionary<NSString, AnyObject>> = NSDictionary::from_retained_objects(&keys, &values);
            let mut result = Vec::new();
            // SAFETY: as above; outputs are read through their strides, as Core ML may pad them.
            unsafe {
                let provider = MLDictionaryFeatureProvider::initWithDictionary_error(
                    MLDictionaryFeatureProvider::alloc(),
                    &dict,
                )
                .map_err(|e| ns_error("binding the inputs", e))?;
                let out = self
                    .model
                    .predictionFromFeatures_error(ProtocolObject::from_ref(&*provider))
                    .map_err(|e| ns_error("predicting", e))?;
                for b in &self.outputs {
                    let (_, size) = array_type(b)?;
                    let array = out
                        .featureValueForName(&NSString::from_str(&b.mil_name))
                        .and_then(|v| v.multiArrayValue())
                        .ok_or_else(|| Error::operation_error(format!("output {} is missing", b.name)))?;
                    let shape: Vec<usize> = array.shape().iter().map(|n| n.as_usize()).collect();
                    let strides: Vec<usize> = array.strides().iter().map(|n| n.as_usize()).collect();
                    #[allow(deprecated)]
                    let base = array.dataPointer().as_ptr() as *const u8;
                    let count: usize = shape.iter().product();
                    let mut bytes = Vec::with_capacity(count * size);
                    for i in 0..count {
                        let (mut rest, mut offset) = (i, 0);
                        for d in (0..shape.len()).rev() {
                            offset += (rest % shape[d]) * strides[d];
                            rest /= shape[d];
                        }
                        bytes.extend_from_slice(std::slice::from_raw_parts(base.add(offset * size), size));
                    }
                    if widened(b).is_some() {
                        bytes = bytes.chunks_exact(4).map(|c| c[0]).collect();
                    }
                    result.push((b.name.clone(), HostTensor { desc: b.desc.clone(), bytes }));
                }
            }
            Ok(result)
        }
    }
}
