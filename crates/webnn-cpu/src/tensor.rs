//! Host tensors of the interpreter: typed element vectors (int4/uint4 unpacked, one element per
//! `i8`/`u8`), conversion from and to the packed byte layout, and the `Elem` trait kernels are
//! generic over.

use half::f16;
use webnn_core::{DataType, Error, HostTensor, OperandDescriptor, Result};

/// Typed elements of a tensor.
#[derive(Clone, Debug, PartialEq)]
pub enum Data {
    F32(Vec<f32>),
    F16(Vec<f16>),
    I32(Vec<i32>),
    U32(Vec<u32>),
    I64(Vec<i64>),
    U64(Vec<u64>),
    I8(Vec<i8>),
    U8(Vec<u8>),
    /// int4, one element per byte, sign-extended.
    I4(Vec<i8>),
    /// uint4, one element per byte.
    U4(Vec<u8>),
}

/// Applies `$body` to the vector inside `$data`, binding it as `$v`; the body's value is
/// returned as is. `$T` names the element type inside the body.
#[macro_export]
macro_rules! with_data {
    ($data:expr, |$v:ident : $T:ident| $body:expr) => {
        match $data {
            $crate::tensor::Data::F32($v) => { #[allow(dead_code)] type $T = f32; $body }
            $crate::tensor::Data::F16($v) => { #[allow(dead_code)] type $T = half::f16; $body }
            $crate::tensor::Data::I32($v) => { #[allow(dead_code)] type $T = i32; $body }
            $crate::tensor::Data::U32($v) => { #[allow(dead_code)] type $T = u32; $body }
            $crate::tensor::Data::I64($v) => { #[allow(dead_code)] type $T = i64; $body }
            $crate::tensor::Data::U64($v) => { #[allow(dead_code)] type $T = u64; $body }
            $crate::tensor::Data::I8($v) => { #[allow(dead_code)] type $T = i8; $body }
            $crate::tensor::Data::U8($v) => { #[allow(dead_code)] type $T = u8; $body }
            $crate::tensor::Data::I4($v) => { #[allow(dead_code)] type $T = $crate::tensor::I4Elem; let _ = std::marker::PhantomData::<$T>; $body }
            $crate::tensor::Data::U4($v) => { #[allow(dead_code)] type $T = $crate::tensor::U4Elem; let _ = std::marker::PhantomData::<$T>; $body }
        }
    };
}

/// Marker types naming int4/uint4 inside `with_data!` (their vectors hold `i8`/`u8`).
pub struct I4Elem;
pub struct U4Elem;

/// Maps each element vector to a new vector of the same type: `map_data!(&data, |v| expr)`
/// where `expr` evaluates to a `Vec` of the same element type.
#[macro_export]
macro_rules! map_data {
    ($data:expr, |$v:ident| $body:expr) => {
        match $data {
            $crate::tensor::Data::F32($v) => $crate::tensor::Data::F32($body),
            $crate::tensor::Data::F16($v) => $crate::tensor::Data::F16($body),
            $crate::tensor::Data::I32($v) => $crate::tensor::Data::I32($body),
            $crate::tensor::Data::U32($v) => $crate::tensor::Data::U32($body),
            $crate::tensor::Data::I64($v) => $crate::tensor::Data::I64($body),
            $crate::tensor::Data::U64($v) => $crate::tensor::Data::U64($body),
            $crate::tensor::Data::I8($v) => $crate::tensor::Data::I8($body),
            $crate::tensor::Data::U8($v) => $crate::tensor::Data::U8($body),
            $crate::tensor::Data::I4($v) => $crate::tensor::Data::I4($body),
            $crate::tensor::Data::U4($v) => $crate::tensor::Data::U4($body),
        }
    };
}

impl Data {
    pub fn len(&self) -> usize {
        with_data!(self, |v: T| v.len())
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn data_type(&self) -> DataType {
        match self {
            Data::F32(_) => DataType::Float32,
            Data::F16(_) => DataType::Float16,
            Data::I32(_) => DataType::Int32,
            Data::U32(_) => DataType::Uint32,
            Data::I64(_) => DataType::Int64,
            Data::U64(_) => DataType::Uint64,
            Data::I8(_) => DataType::Int8,
            Data::U8(_) => DataType::Uint8,
            Data::I4(_) => DataType::Int4,
            Data::U4(_) => DataType::Uint4,
        }
    }
    /// Zero-filled elements of `data_type`.
    pub fn zeros(data_type: DataType, len: usize) -> Data {
        match data_type {
            DataType::Float32 => Data::F32(vec![0.0; len]),
            DataType::Float16 => Data::F16(vec![f16::ZERO; len]),
            DataType::Int32 => Data::I32(vec![0; len]),
            DataType::Uint32 => Data::U32(vec![0; len]),
            DataType::Int64 => Data::I64(vec![0; len]),
            DataType::Uint64 => Data::U64(vec![0; len]),
            DataType::Int8 => Data::I8(vec![0; len]),
            DataType::Uint8 => Data::U8(vec![0; len]),
            DataType::Int4 => Data::I4(vec![0; len]),
            DataType::Uint4 => Data::U4(vec![0; len]),
        }
    }
    /// Element `src[i]` for each `i` of `map`: every data-movement op reduces to this.
    pub fn gather(&self, map: &[usize]) -> Data {
        map_data!(self, |v| map.iter().map(|&i| v[i]).collect())
    }
}

/// A tensor of the interpreter.
#[derive(Clone, Debug, PartialEq)]
pub struct Tensor {
    pub shape: Vec<usize>,
    pub data: Data,
}

impl Tensor {
    pub fn new(shape: Vec<usize>, data: Data) -> Tensor {
        debug_assert_eq!(shape.iter().product::<usize>(), data.len());
        Tensor { shape, data }
    }
    pub fn data_type(&self) -> DataType {
        self.data.data_type()
    }
    pub fn len(&self) -> usize {
        self.data.len()
    }
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }
    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    /// Elements as f64 (exact for every type but 64-bit integers beyond 2^53).
    pub fn to_f64(&self) -> Vec<f64> {
        match &self.data {
            Data::F32(v) => v.iter().map(|&x| x as f64).collect(),
            Data::F16(v) => v.iter().map(|&x| x.to_f64()).collect(),
            Data::I32(v) => v.iter().map(|&x| x as f64).collect(),
            Data::U32(v) => v.iter().map(|&x| x as f64).collect(),
            Data::I64(v) => v.iter().map(|&x| x as f64).collect(),
            Data::U64(v) => v.iter().map(|&x| x as f64).collect(),
            Data::I8(v) | Data::I4(v) => v.iter().map(|&x| x as f64).collect(),
            Data::U8(v) | Data::U4(v) => v.iter().map(|&x| x as f64).collect(),
        }
    }

    /// Elements as i128 (exact for every integer type; floats truncate, NaN gives 0).
    pub fn to_i128(&self) -> Vec<i128> {
        match &self.data {
            Data::F32(v) => v.iter().map(|&x| float_to_i128(x as f64)).collect(),
            Data::F16(v) => v.iter().map(|&x| float_to_i128(x.to_f64())).collect(),
            Data::I32(v) => v.iter().map(|&x| x as i128).collect(),
            Data::U32(v) => v.iter().map(|&x| x as i128).collect(),
            Data::I64(v) => v.iter().map(|&x| x as i128).collect(),
            Data::U64(v) => v.iter().map(|&x| x as i128).collect(),
            Data::I8(v) | Data::I4(v) => v.iter().map(|&x| x as i128).collect(),
            Data::U8(v) | Data::U4(v) => v.iter().map(|&x| x as i128).collect(),
        }
    }

    /// A tensor of `data_type` from f64 values: floats round to nearest, integers truncate
    /// toward zero and saturate (NaN gives 0).
    pub fn from_f64(data_type: DataType, shape: Vec<usize>, values: &[f64]) -> Tensor {
        let data = match data_type {
            DataType::Float32 => Data::F32(values.iter().map(|&x| x as f32).collect()),
            DataType::Float16 => Data::F16(values.iter().map(|&x| f16::from_f64(x)).collect()),
            _ => return Tensor::from_i128(data_type, shape, &values.iter().map(|&x| float_to_i128(x)).collect::<Vec<_>>()),
        };
        Tensor::new(shape, data)
    }

    /// A tensor of `data_type` from integers, saturating to the type's range.
    pub fn from_i128(data_type: DataType, shape: Vec<usize>, values: &[i128]) -> Tensor {
        fn sat<T: TryFrom<i128>>(x: i128, lo: i128, hi: i128) -> T {
            match T::try_from(x.clamp(lo, hi)) {
                Ok(v) => v,
                Err(_) => unreachable!("clamped into range"),
            }
        }
        let data = match data_type {
            DataType::Float32 => Data::F32(values.iter().map(|&x| x as f32).collect()),
            DataType::Float16 => Data::F16(values.iter().map(|&x| f16::from_f64(x as f64)).collect()),
            DataType::Int32 => Data::I32(values.iter().map(|&x| sat(x, i32::MIN as i128, i32::MAX as i128)).collect()),
            DataType::Uint32 => Data::U32(values.iter().map(|&x| sat(x, 0, u32::MAX as i128)).collect()),
            DataType::Int64 => Data::I64(values.iter().map(|&x| sat(x, i64::MIN as i128, i64::MAX as i128)).collect()),
            DataType::Uint64 => Data::U64(values.iter().map(|&x| sat(x, 0, u64::MAX as i128)).collect()),
            DataType::Int8 => Data::I8(values.iter().map(|&x| sat(x, -128, 127)).collect()),
            DataType::Uint8 => Data::U8(values.iter().map(|&x| sat(x, 0, 255)).collect()),
            DataType::Int4 => Data::I4(values.iter().map(|&x| sat(x, -8, 7)).collect()),
            DataType::Uint4 => Data::U4(values.iter().map(|&x| sat(x, 0, 15)).collect()),
        };
        Tensor::new(shape, data)
    }

    /// Decodes packed little-endian bytes (int4/uint4 two per byte, element 2i low nibble).
    pub fn from_bytes(desc: &OperandDescriptor, bytes: &[u8]) -> Result<Tensor> {
        let shape: Vec<usize> = desc
            .static_shape()
            .ok_or_else(|| Error::type_error(format!("tensor shape {} is not concrete", desc.shape_string())))?
            .into_iter()
            .map(|d| d as usize)
            .collect();
        let n: usize = shape.iter().product();
        let expected = desc.data_type.byte_length(n as u64).unwrap_or(u64::MAX);
        if bytes.len() as u64 != expected {
            return Err(Error::type_error(format!(
                "{} needs {expected} bytes, got {}",
                desc,
                bytes.len()
            )));
        }
        macro_rules! le {
            ($t:ty, $w:literal) => {
                bytes.chunks_exact($w).map(|c| <$t>::from_le_bytes(c.try_into().unwrap_or([0; $w]))).collect()
            };
        }
        let nibble = |i: usize| (bytes[i / 2] >> ((i % 2) * 4)) & 0xF;
        let data = match desc.data_type {
            DataType::Float32 => Data::F32(le!(f32, 4)),
            DataType::Float16 => Data::F16(bytes.chunks_exact(2).map(|c| f16::from_bits(u16::from_le_bytes([c[0], c[1]]))).collect()),
            DataType::Int32 => Data::I32(le!(i32, 4)),
            DataType::Uint32 => Data::U32(le!(u32, 4)),
            DataType::Int64 => Data::I64(le!(i64, 8)),
            DataType::Uint64 => Data::U64(le!(u64, 8)),
            DataType::Int8 => Data::I8(bytes.iter().map(|&b| b as i8).collect()),
            DataType::Uint8 => Data::U8(bytes.to_vec()),
            DataType::Int4 => Data::I4((0..n).map(|i| ((nibble(i) << 4) as i8) >> 4).collect()),
            DataType::Uint4 => Data::U4((0..n).map(nibble).collect()),
        };
        Ok(Tensor::new(shape, data))
    }

    /// Encodes to packed little-endian bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let pack = |nibbles: &mut dyn Iterator<Item = u8>| {
            let mut out = vec![0u8; self.len().div_ceil(2)];
            for (i, x) in nibbles.enumerate() {
                out[i / 2] |= (x & 0xF) << ((i % 2) * 4);
            }
            out
        };
        match &self.data {
            Data::F32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Data::F16(v) => v.iter().flat_map(|x| x.to_bits().to_le_bytes()).collect(),
            Data::I32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Data::U32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Data::I64(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Data::U64(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Data::I8(v) => v.iter().map(|&x| x as u8).collect(),
            Data::U8(v) => v.clone(),
            Data::I4(v) => pack(&mut v.iter().map(|&x| x as u8)),
            Data::U4(v) => pack(&mut v.iter().copied()),
        }
    }

    pub fn to_host(&self) -> HostTensor {
        let shape: Vec<u32> = self.shape.iter().map(|&d| d as u32).collect();
        HostTensor { desc: OperandDescriptor::new(self.data_type(), &shape), bytes: self.to_bytes() }
    }
}

/// Truncates toward zero; NaN gives 0; infinities saturate.
pub fn float_to_i128(x: f64) -> i128 {
    if x.is_nan() {
        0
    } else {
        x.trunc().clamp(-1.7e38, 1.7e38) as i128
    }
}

/// Row-major strides.
pub fn strides(shape: &[usize]) -> Vec<usize> {
    webnn_core::shape::strides(shape)
}

/// For each element of `out_shape`, the flat index of the element of `in_shape` that
/// broadcasting (numpy rules, right-aligned) maps it to.
pub fn broadcast_map(in_shape: &[usize], out_shape: &[usize]) -> Vec<usize> {
    let n: usize = out_shape.iter().product();
    let rank = out_shape.len();
    let offset = rank - in_shape.len();
    let in_strides = strides(in_shape);
    // Stride per output axis: 0 where the input axis is missing or broadcast from 1.
    let eff: Vec<usize> = (0..rank)
        .map(|i| if i < offset || in_shape[i - offset] == 1 { 0 } else { in_strides[i - offset] })
        .collect();
    let mut map = Vec::with_capacity(n);
    let mut idx = vec![0usize; rank];
    let mut src = 0usize;
    for _ in 0..n {
        map.push(src);
        for ax in (0..rank).rev() {
            idx[ax] += 1;
            src += eff[ax];
            if idx[ax] < out_shape[ax] {
                break;
            }
            src -= eff[ax] * idx[ax];
            idx[ax] = 0;
        }
    }
    map
}
