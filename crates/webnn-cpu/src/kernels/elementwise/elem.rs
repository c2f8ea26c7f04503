//! The element trait the kernels are generic over, dispatch macros over `Data` variants, and
//! runtime broadcasting.

use crate::tensor::{broadcast_map, Data};
use half::f16;
use webnn_core::{DataType, Error, Result};

/// An element type the kernels are generic over (the fast backend's casts convert with it
/// too, so both give the same values).
pub trait Elem: Copy {
    const FLOAT: bool;
    /// The type's range (integers only; floats leave it unused).
    const MIN: i128;
    const MAX: i128;
    fn to_f64(self) -> f64;
    /// Floats: the nearest value. Integers: truncation toward zero, saturating, NaN to 0.
    fn from_f64(x: f64) -> Self;
    /// Integers: exact. Floats: truncated as `from_f64` does.
    fn to_i128(self) -> i128;
    /// Integers: the lowest bits (two's complement wrap). Floats: the nearest value.
    fn wrap(x: i128) -> Self;
}

macro_rules! int_elem {
    ($($t:ty),*) => {$(
        impl Elem for $t {
            const FLOAT: bool = false;
            const MIN: i128 = <$t>::MIN as i128;
            const MAX: i128 = <$t>::MAX as i128;
            fn to_f64(self) -> f64 { self as f64 }
            // Rust's float-to-int `as` truncates toward zero, saturates and maps NaN to 0.
            fn from_f64(x: f64) -> Self { x as $t }
            fn to_i128(self) -> i128 { self as i128 }
            fn wrap(x: i128) -> Self { x as $t }
        }
    )*};
}
int_elem!(i8, u8, i32, u32, i64, u64);

impl Elem for f32 {
    const FLOAT: bool = true;
    const MIN: i128 = 0;
    const MAX: i128 = 0;
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn from_f64(x: f64) -> Self {
        x as f32
    }
    fn to_i128(self) -> i128 {
        self as i128
    }
    // i128 -> f32 rounds once (an i64 through f64 would round twice).
    fn wrap(x: i128) -> Self {
        x as f32
    }
}

impl Elem for f16 {
    const FLOAT: bool = true;
    const MIN: i128 = 0;
    const MAX: i128 = 0;
    fn to_f64(self) -> f64 {
        f16::to_f64(self)
    }
    fn from_f64(x: f64) -> Self {
        f16::from_f64(x)
    }
    fn to_i128(self) -> i128 {
        f16::to_f64(self) as i128
    }
    // Integers beyond 2^53 overflow float16 anyway, so going through f64 loses nothing.
    fn wrap(x: i128) -> Self {
        f16::from_f64(x as f64)
    }
}

/// Evaluates `$body` with `$v` bound to the element slice of every variant; the arms must
/// agree on the body's type.
macro_rules! each_data {
    ($data:expr, |$v:ident| $body:expr) => {
        match $data {
            $crate::tensor::Data::F32($v) => $body,
            $crate::tensor::Data::F16($v) => $body,
            $crate::tensor::Data::I32($v) => $body,
            $crate::tensor::Data::U32($v) => $body,
            $crate::tensor::Data::I64($v) => $body,
            $crate::tensor::Data::U64($v) => $body,
            $crate::tensor::Data::I8($v) | $crate::tensor::Data::I4($v) => $body,
            $crate::tensor::Data::U8($v) | $crate::tensor::Data::U4($v) => $body,
        }
    };
}

/// Like `each_data!` for two tensors of one data type, wrapping the body's vector back into that
/// variant (`same`) or returning the body as is (`any`).
macro_rules! zip_data {
    (same, $a:expr, $b:expr, |$x:ident, $y:ident| $body:expr) => {
        match ($a, $b) {
            ($crate::tensor::Data::F32($x), $crate::tensor::Data::F32($y)) => {
                $crate::tensor::Data::F32($body)
            }
            ($crate::tensor::Data::F16($x), $crate::tensor::Data::F16($y)) => {
                $crate::tensor::Data::F16($body)
            }
            ($crate::tensor::Data::I32($x), $crate::tensor::Data::I32($y)) => {
                $crate::tensor::Data::I32($body)
            }
            ($crate::tensor::Data::U32($x), $crate::tensor::Data::U32($y)) => {
                $crate::tensor::Data::U32($body)
            }
            ($crate::tensor::Data::I64($x), $crate::tensor::Data::I64($y)) => {
                $crate::tensor::Data::I64($body)
            }
            ($crate::tensor::Data::U64($x), $crate::tensor::Data::U64($y)) => {
                $crate::tensor::Data::U64($body)
            }
            ($crate::tensor::Data::I8($x), $crate::tensor::Data::I8($y)) => {
                $crate::tensor::Data::I8($body)
            }
            ($crate::tensor::Data::U8($x), $crate::tensor::Data::U8($y)) => {
                $crate::tensor::Data::U8($body)
            }
            ($crate::tensor::Data::I4($x), $crate::tensor::Data::I4($y)) => {
                $crate::kernels::elementwise::elem::renibble($crate::tensor::Data::I4($body))
            }
            ($crate::tensor::Data::U4($x), $crate::tensor::Data::U4($y)) => {
                $crate::kernels::elementwise::elem::renibble($crate::tensor::Data::U4($body))
            }
            (x, y) => {
                return Err($crate::kernels::elementwise::elem::mismatch(
                    x.data_type(),
                    y.data_type(),
                ))
            }
        }
    };
    (any, $a:expr, $b:expr, |$x:ident, $y:ident| $body:expr) => {
        match ($a, $b) {
            ($crate::tensor::Data::F32($x), $crate::tensor::Data::F32($y)) => $body,
            ($crate::tensor::Data::F16($x), $crate::tensor::Data::F16($y)) => $body,
            ($crate::tensor::Data::I32($x), $crate::tensor::Data::I32($y)) => $body,
            ($crate::tensor::Data::U32($x), $crate::tensor::Data::U32($y)) => $body,
            ($crate::tensor::Data::I64($x), $crate::tensor::Data::I64($y)) => $body,
            ($crate::tensor::Data::U64($x), $crate::tensor::Data::U64($y)) => $body,
            ($crate::tensor::Data::I8($x), $crate::tensor::Data::I8($y))
            | ($crate::tensor::Data::I4($x), $crate::tensor::Data::I4($y)) => $body,
            ($crate::tensor::Data::U8($x), $crate::tensor::Data::U8($y))
            | ($crate::tensor::Data::U4($x), $crate::tensor::Data::U4($y)) => $body,
            (x, y) => {
                return Err($crate::kernels::elementwise::elem::mismatch(
                    x.data_type(),
                    y.data_type(),
                ))
            }
        }
    };
}

pub(crate) fn mismatch(a: DataType, b: DataType) -> Error {
    Error::operation_error(format!(
        "operands of data types {a} and {b} cannot be combined"
    ))
}

pub(crate) fn unsupported(what: &str, dt: DataType) -> Error {
    Error::not_supported(format!("{what} does not support {dt}"))
}

/// int4/uint4 elements live in i8/u8 vectors: arithmetic there leaves the lowest 4 bits
/// right, so wrapping them again gives the 4-bit two's complement result.
pub(crate) fn renibble(d: Data) -> Data {
    match d {
        Data::I4(v) => Data::I4(v.into_iter().map(|x| (x << 4) >> 4).collect()),
        Data::U4(v) => Data::U4(v.into_iter().map(|x| x & 0xF).collect()),
        d => d,
    }
}

/// Where each output element of a broadcast reads one input.
pub(crate) enum Index {
    Same,
    First,
    Map(Vec<usize>),
}

impl Index {
    pub(crate) fn new(from: &[usize], to: &[usize]) -> Index {
        if from == to {
            Index::Same
        } else if from.iter().product::<usize>() == 1 {
            Index::First
        } else {
            Index::Map(broadcast_map(from, to))
        }
    }
    #[inline]
    pub(crate) fn at(&self, i: usize) -> usize {
        match self {
            Index::Same => i,
            Index::First => 0,
            Index::Map(m) => m[i],
        }
    }
}

/// The bidirectional broadcast of two runtime shapes.
pub(crate) fn broadcast_shape(a: &[usize], b: &[usize]) -> Result<Vec<usize>> {
    let rank = a.len().max(b.len());
    let dim = |s: &[usize], i: usize| {
        if i + s.len() >= rank {
            s[i + s.len() - rank]
        } else {
            1
        }
    };
    (0..rank)
        .map(|i| match (dim(a, i), dim(b, i)) {
            (x, y) if x == y || y == 1 => Ok(x),
            (1, y) => Ok(y),
            _ => Err(Error::operation_error(format!(
                "shapes {a:?} and {b:?} do not broadcast"
            ))),
        })
        .collect()
}

/// Two operands broadcast to one output shape.
pub(crate) struct Zip {
    ia: Index,
    ib: Index,
    n: usize,
}

impl Zip {
    pub(crate) fn new(a: &[usize], b: &[usize]) -> Result<(Zip, Vec<usize>)> {
        let shape = broadcast_shape(a, b)?;
        let zip = Zip {
            ia: Index::new(a, &shape),
            ib: Index::new(b, &shape),
            n: shape.iter().product(),
        };
        Ok((zip, shape))
    }
    pub(crate) fn map<T: Copy, U>(&self, x: &[T], y: &[T], f: impl Fn(T, T) -> U) -> Vec<U> {
        (0..self.n)
            .map(|i| f(x[self.ia.at(i)], y[self.ib.at(i)]))
            .collect()
    }
}

pub(crate) use each_data as each;
pub(crate) use zip_data;
