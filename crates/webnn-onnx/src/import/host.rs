//! Tensors whose values the importer knows: initializers, `Constant` nodes and the results of
//! shape arithmetic folded at import. Held as little-endian bytes in the WebNN type they
//! become, so a host tensor turns into a graph constant without conversion.

use crate::proto::{tensor_proto, TensorProto};
use std::path::Path;
use std::sync::Arc;
use webnn_core::{DataType, Error, Result};

/// A tensor with known contents.
#[derive(Clone, Debug)]
pub struct Host {
    pub dt: DataType,
    pub shape: Vec<usize>,
    pub data: Arc<[u8]>,
}

/// The WebNN type an ONNX element type is imported as. ONNX `bool` is WebNN's `uint8` (what
/// its comparisons and logical ops produce); types WebNN lacks are refused.
pub fn webnn_type(elem_type: i64) -> Result<DataType> {
    use tensor_proto::DataType as T;
    let t = i32::try_from(elem_type).ok().and_then(|e| T::try_from(e).ok()).unwrap_or(T::Undefined);
    Ok(match t {
        T::Float => DataType::Float32,
        T::Float16 => DataType::Float16,
        T::Int32 => DataType::Int32,
        T::Uint32 => DataType::Uint32,
        T::Int64 => DataType::Int64,
        T::Uint64 => DataType::Uint64,
        T::Int8 => DataType::Int8,
        T::Uint8 | T::Bool => DataType::Uint8,
        T::Int4 => DataType::Int4,
        T::Uint4 => DataType::Uint4,
        other => {
            return Err(Error::not_supported(format!(
                "ONNX element type {} has no WebNN data type",
                other.as_str_name()
            )))
        }
    })
}

impl Host {
    pub fn elements(&self) -> usize {
        self.shape.iter().product()
    }

    pub fn dims_u32(&self) -> Vec<u32> {
        self.shape.iter().map(|&d| d as u32).collect()
    }

    /// Every element as i64 (floats truncated toward zero).
    pub fn ints(&self) -> Vec<i64> {
        let n = self.elements();
        (0..n).map(|i| self.int_at(i)).collect()
    }

    /// Every element as f64.
    pub fn floats(&self) -> Vec<f64> {
        let n = self.elements();
        (0..n).map(|i| self.float_at(i)).collect()
    }

    fn bytes<const N: usize>(&self, i: usize) -> [u8; N] {
        self.data[i * N..i * N + N].try_into().expect("element in range")
    }

    fn int_at(&self, i: usize) -> i64 {
        match self.dt {
            DataType::Float32 | DataType::Float16 => self.float_at(i) as i64,
            DataType::Int32 => i32::from_le_bytes(self.bytes(i)) as i64,
            DataType::Uint32 => u32::from_le_bytes(self.bytes(i)) as i64,
            DataType::Int64 => i64::from_le_bytes(self.bytes(i)),
            DataType::Uint64 => u64::from_le_bytes(self.bytes(i)) as i64,
            DataType::Int8 => self.data[i] as i8 as i64,
            DataType::Uint8 => self.data[i] as i64,
            DataType::Int4 | DataType::Uint4 => {
                let nibble = (self.data[i / 2] >> (4 * (i % 2))) & 15;
                match self.dt {
                    DataType::Int4 => ((nibble << 4) as i8 >> 4) as i64,
                    _ => nibble as i64,
                }
            }
        }
    }

    fn float_at(&self, i: usize) -> f64 {
        match self.dt {
            DataType::Float32 => f32::from_le_bytes(self.bytes(i)) as f64,
            DataType::Float16 => half::f16::from_le_bytes(self.bytes(i)).to_f64(),
            _ => self.int_at(i) as f64,
        }
    }

    /// A tensor of `dt` from i64 values (wrapping into narrower integer types).
    pub fn from_ints(dt: DataType, shape: Vec<usize>, v: &[i64]) -> Host {
        if dt.is_float() {
            let f: Vec<f64> = v.iter().map(|&x| x as f64).collect();
            return Host::from_floats(dt, shape, &f);
        }
        let mut data = Vec::with_capacity(v.len() * 8);
        match dt {
            DataType::Int32 | DataType::Uint32 => v.iter().for_each(|&x| data.extend((x as i32).to_le_bytes())),
            DataType::Int64 | DataType::Uint64 => v.iter().for_each(|&x| data.extend(x.to_le_bytes())),
            DataType::Int8 | DataType::Uint8 => data.extend(v.iter().map(|&x| x as u8)),
            DataType::Int4 | DataType::Uint4 => {
                data.resize(v.len().div_ceil(2), 0);
                for (i, &x) in v.iter().enumerate() {
                    data[i / 2] |= ((x as u8) & 15) << (4 * (i % 2));
                }
            }
            DataType::Float32 | DataType::Float16 => unreachable!("handled above"),
        }
        Host { dt, shape, data: data.into() }
    }

    /// A tensor of `dt` from f64 values (integers: truncated, as ONNX's Cast does).
    pub fn from_floats(dt: DataType, shape: Vec<usize>, v: &[f64]) -> Host {
        match dt {
            DataType::Float32 => {
                let data: Vec<u8> = v.iter().flat_map(|&x| (x as f32).to_le_bytes()).collect();
                Host { dt, shape, data: data.into() }
            }
            DataType::Float16 => {
                let data: Vec<u8> = v.iter().flat_map(|&x| half::f16::from_f64(x).to_le_bytes()).collect();
                Host { dt, shape, data: data.into() }
            }
            _ => {
                let ints: Vec<i64> = v.iter().map(|&x| if x.is_nan() { 0 } else { x as i64 }).collect();
                Host::from_ints(dt, shape, &ints)
            }
        }
    }

    /// The same values in another type (ONNX `Cast`: floats to integers truncate).
    pub fn cast(&self, dt: DataType) -> Host {
        if dt == self.dt {
            return self.clone();
        }
        if self.dt.is_float() || dt.is_float() {
            Host::from_floats(dt, self.shape.clone(), &self.floats())
        } else {
            Host::from_ints(dt, self.shape.clone(), &self.ints())
        }
    }

    pub fn reshaped(&self, shape: Vec<usize>) -> Host {
        Host { dt: self.dt, shape, data: self.data.clone() }
    }
}

/// Decodes an initializer or attribute tensor. External data is read from `dir`.
pub fn decode(t: &TensorProto, dir: Option<&Path>) -> Result<Host> {
    use tensor_proto::DataType as T;
    let name = t.name.as_deref().unwrap_or("");
    let elem = t.data_type.unwrap_or(0);
    let dt = webnn_type(elem as i64).map_err(|e| Error::not_supported(format!("tensor '{name}': {}", e.rule)))?;
    let shape: Vec<usize> = t
        .dims
        .iter()
        .map(|&d| usize::try_from(d).map_err(|_| Error::data_error(format!("tensor '{name}' has dimension {d}"))))
        .collect::<Result<_>>()?;
    let n = shape
        .iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d))
        .filter(|&n| n as u64 <= webnn_core::builder::MAX_TENSOR_BYTE_LENGTH)
        .ok_or_else(|| Error::data_error(format!("tensor '{name}' has the shape {shape:?}, larger than any WebNN tensor")))?;
    let t_kind = T::try_from(elem).unwrap_or(T::Undefined);
    let external = t.data_location == Some(tensor_proto::DataLocation::External as i32);
    let raw: Option<Vec<u8>> = if external {
        Some(read_external(t, dir)?)
    } else {
        t.raw_data.clone()
    };
    let host = if let Some(raw) = raw {
        // Raw data holds the ONNX type's bytes; only bool and wider-than-WebNN types differ.
        let src_bytes = match t_kind {
            T::Bool | T::Uint8 | T::Int8 => 1,
            T::Float16 => 2,
            T::Float | T::Int32 | T::Uint32 => 4,
            T::Int64 | T::Uint64 => 8,
            T::Int4 | T::Uint4 => 0,
            _ => 0,
        };
        let want = if src_bytes == 0 { n.div_ceil(2) } else { n * src_bytes };
        if raw.len() != want {
            return Err(Error::data_error(format!(
                "tensor '{name}' holds {} bytes where its shape {:?} needs {want}",
                raw.len(),
                shape
            )));
        }
        Host { dt, shape, data: raw.into() }
    } else {
        match t_kind {
            T::Float => {
                let data: Vec<u8> = t.float_data.iter().flat_map(|x| x.to_le_bytes()).collect();
                Host { dt, shape, data: data.into() }
            }
            T::Double => unreachable!("refused by webnn_type"),
            T::Int64 => Host::from_ints(dt, shape, &t.int64_data),
            T::Uint64 => Host::from_ints(dt, shape, &t.uint64_data.iter().map(|&x| x as i64).collect::<Vec<_>>()),
            // int32_data carries every type of 32 bits or fewer, float16 as its bit pattern.
            T::Float16 => {
                let data: Vec<u8> = t.int32_data.iter().flat_map(|&x| (x as u16).to_le_bytes()).collect();
                Host { dt, shape, data: data.into() }
            }
            T::Int4 | T::Uint4 => {
                let data: Vec<u8> = t.int32_data.iter().map(|&x| x as u8).collect();
                Host { dt, shape, data: data.into() }
            }
            _ => Host::from_ints(dt, shape, &t.int32_data.iter().map(|&x| x as i64).collect::<Vec<_>>()),
        }
    };
    let want = dt.byte_length(n as u64).unwrap_or(0) as usize;
    if host.data.len() != want {
        return Err(Error::data_error(format!(
            "tensor '{name}' holds {} bytes of data where its shape {:?} needs {want}",
            host.data.len(),
            host.shape
        )));
    }
    Ok(host)
}

fn read_external(t: &TensorProto, dir: Option<&Path>) -> Result<Vec<u8>> {
    let name = t.name.as_deref().unwrap_or("");
    let field = |k: &str| t.external_data.iter().find(|e| e.key.as_deref() == Some(k)).and_then(|e| e.value.clone());
    let location = field("location")
        .ok_or_else(|| Error::data_error(format!("tensor '{name}' is external but names no location")))?;
    let dir = dir.ok_or_else(|| {
        Error::data_error(format!(
            "tensor '{name}' is stored in '{location}' beside the model: load the model from its file (or give the directory)"
        ))
    })?;
    let path = dir.join(&location);
    if Path::new(&location).is_absolute() || location.split(['/', '\\']).any(|p| p == "..") {
        return Err(Error::data_error(format!("tensor '{name}': external location '{location}' leaves the model's directory")));
    }
    let bytes = std::fs::read(&path).map_err(|e| Error::data_error(format!("tensor '{name}': reading '{location}': {e}")))?;
    let offset = field("offset").and_then(|v| v.parse::<usize>().ok()).unwrap_or(0);
    let length = field("length").and_then(|v| v.parse::<usize>().ok()).unwrap_or(bytes.len().saturating_sub(offset));
    bytes
        .get(offset..offset.saturating_add(length))
        .map(<[u8]>::to_vec)
        .ok_or_else(|| Error::data_error(format!("tensor '{name}': bytes {offset}..+{length} lie outside '{location}'")))
}
