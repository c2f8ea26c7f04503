//! `MLOperandDataType` plus the int4/uint4 extension types.

use std::fmt;

/// An operand data type. `Int4`/`Uint4` are an extension used for quantized weights; they are
/// packed two per byte (element 2i in the low nibble).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DataType {
    Float32,
    Float16,
    Int32,
    Uint32,
    Int64,
    Uint64,
    Int8,
    Uint8,
    Int4,
    Uint4,
}

impl DataType {
    pub const ALL: [DataType; 10] = [
        DataType::Float32,
        DataType::Float16,
        DataType::Int32,
        DataType::Uint32,
        DataType::Int64,
        DataType::Uint64,
        DataType::Int8,
        DataType::Uint8,
        DataType::Int4,
        DataType::Uint4,
    ];

    /// The IDL enum string.
    pub fn name(self) -> &'static str {
        match self {
            DataType::Float32 => "float32",
            DataType::Float16 => "float16",
            DataType::Int32 => "int32",
            DataType::Uint32 => "uint32",
            DataType::Int64 => "int64",
            DataType::Uint64 => "uint64",
            DataType::Int8 => "int8",
            DataType::Uint8 => "uint8",
            DataType::Int4 => "int4",
            DataType::Uint4 => "uint4",
        }
    }

    /// NumPy's array-interface type string (`.npy` headers, `np.dtype(...)`), little-endian;
    /// none for int4/uint4, which NumPy has no type for.
    pub fn numpy_descr(self) -> Option<&'static str> {
        Some(match self {
            DataType::Float32 => "<f4",
            DataType::Float16 => "<f2",
            DataType::Int32 => "<i4",
            DataType::Uint32 => "<u4",
            DataType::Int64 => "<i8",
            DataType::Uint64 => "<u8",
            DataType::Int8 => "|i1",
            DataType::Uint8 => "|u1",
            DataType::Int4 | DataType::Uint4 => return None,
        })
    }

    pub fn from_name(s: &str) -> Option<DataType> {
        DataType::ALL.into_iter().find(|d| d.name() == s)
    }

    /// Size in bits of one element.
    pub fn bits(self) -> u32 {
        match self {
            DataType::Float32 | DataType::Int32 | DataType::Uint32 => 32,
            DataType::Float16 => 16,
            DataType::Int64 | DataType::Uint64 => 64,
            DataType::Int8 | DataType::Uint8 => 8,
            DataType::Int4 | DataType::Uint4 => 4,
        }
    }

    /// Bytes taken by `elements` packed elements (int4/uint4 round up to whole bytes).
    pub fn byte_length(self, elements: u64) -> Option<u64> {
        elements.checked_mul(self.bits() as u64).map(|b| b.div_ceil(8))
    }

    pub fn is_float(self) -> bool {
        matches!(self, DataType::Float32 | DataType::Float16)
    }

    pub fn is_signed(self) -> bool {
        !matches!(self, DataType::Uint32 | DataType::Uint64 | DataType::Uint8 | DataType::Uint4)
    }

    pub fn set(self) -> DataTypeSet {
        DataTypeSet(1 << self as u16)
    }

    /// The lowest and highest value of an integer type; None for floats.
    pub fn int_range(self) -> Option<(i128, i128)> {
        Some(match self {
            DataType::Int32 => (i32::MIN as i128, i32::MAX as i128),
            DataType::Uint32 => (0, u32::MAX as i128),
            DataType::Int64 => (i64::MIN as i128, i64::MAX as i128),
            DataType::Uint64 => (0, u64::MAX as i128),
            DataType::Int8 => (i8::MIN as i128, i8::MAX as i128),
            DataType::Uint8 => (0, u8::MAX as i128),
            DataType::Int4 => (-8, 7),
            DataType::Uint4 => (0, 15),
            DataType::Float32 | DataType::Float16 => return None,
        })
    }
}

impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of data types, used by the op table and `opSupportLimits()`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct DataTypeSet(pub u16);

impl DataTypeSet {
    pub const NONE: DataTypeSet = DataTypeSet(0);
    pub const F32: DataTypeSet = DataTypeSet(1 << DataType::Float32 as u16);
    pub const F16: DataTypeSet = DataTypeSet(1 << DataType::Float16 as u16);
    pub const I32: DataTypeSet = DataTypeSet(1 << DataType::Int32 as u16);
    pub const U32: DataTypeSet = DataTypeSet(1 << DataType::Uint32 as u16);
    pub const I64: DataTypeSet = DataTypeSet(1 << DataType::Int64 as u16);
    pub const U64: DataTypeSet = DataTypeSet(1 << DataType::Uint64 as u16);
    pub const I8: DataTypeSet = DataTypeSet(1 << DataType::Int8 as u16);
    pub const U8: DataTypeSet = DataTypeSet(1 << DataType::Uint8 as u16);
    pub const I4: DataTypeSet = DataTypeSet(1 << DataType::Int4 as u16);
    pub const U4: DataTypeSet = DataTypeSet(1 << DataType::Uint4 as u16);
    /// float32, float16.
    pub const FLOAT: DataTypeSet = DataTypeSet(Self::F32.0 | Self::F16.0);
    /// The eight types of the spec's `MLOperandDataType`.
    pub const SPEC: DataTypeSet = DataTypeSet(
        Self::FLOAT.0 | Self::I32.0 | Self::U32.0 | Self::I64.0 | Self::U64.0 | Self::I8.0 | Self::U8.0,
    );
    /// Every type, including int4/uint4.
    pub const ALL: DataTypeSet = DataTypeSet(Self::SPEC.0 | Self::I4.0 | Self::U4.0);
    /// float32, float16, int32, int64, int8: the spec's set for signed numeric ops (abs, neg, relu...).
    pub const FLOAT_SIGNED_INT: DataTypeSet =
        DataTypeSet(Self::FLOAT.0 | Self::I32.0 | Self::I64.0 | Self::I8.0);
    /// int4, uint4, int8, uint8, int32, uint32: quantized values (quantizeLinear's output,
    /// dequantizeLinear's input and both zero points).
    pub const QUANTIZED: DataTypeSet = DataTypeSet(
        Self::I4.0 | Self::U4.0 | Self::I8.0 | Self::U8.0 | Self::I32.0 | Self::U32.0,
    );
    /// float32, float16, int32, uint32, int64, uint64: the spec's set for sums and products.
    pub const FLOAT_INT32_64: DataTypeSet =
        DataTypeSet(Self::FLOAT.0 | Self::I32.0 | Self::U32.0 | Self::I64.0 | Self::U64.0);

    pub const fn union(self, other: DataTypeSet) -> DataTypeSet {
        DataTypeSet(self.0 | other.0)
    }
    pub const fn intersection(self, other: DataTypeSet) -> DataTypeSet {
        DataTypeSet(self.0 & other.0)
    }
    pub fn contains(self, t: DataType) -> bool {
        self.0 & (1 << t as u16) != 0
    }
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    pub fn iter(self) -> impl Iterator<Item = DataType> {
        DataType::ALL.into_iter().filter(move |t| self.contains(t.to_owned()))
    }
}

impl std::ops::BitOr for DataTypeSet {
    type Output = DataTypeSet;
    fn bitor(self, rhs: DataTypeSet) -> DataTypeSet {
        self.union(rhs)
    }
}

impl fmt::Display for DataTypeSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.iter().map(DataType::name).collect();
        write!(f, "{{{}}}", names.join(", "))
    }
}

/// The element type of a JS `ArrayBufferView` passed as constant or tensor data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ViewType {
    Int8,
    Uint8,
    Uint8Clamped,
    Int16,
    Uint16,
    Int32,
    Uint32,
    Float16,
    Float32,
    Float64,
    BigInt64,
    BigUint64,
    DataView,
}

impl ViewType {
    /// From the constructor's name (`"Float32Array"`, `"DataView"`...).
    pub fn from_name(name: &str) -> Option<ViewType> {
        Some(match name {
            "Int8Array" => ViewType::Int8,
            "Uint8Array" => ViewType::Uint8,
            "Uint8ClampedArray" => ViewType::Uint8Clamped,
            "Int16Array" => ViewType::Int16,
            "Uint16Array" => ViewType::Uint16,
            "Int32Array" => ViewType::Int32,
            "Uint32Array" => ViewType::Uint32,
            "Float16Array" => ViewType::Float16,
            "Float32Array" => ViewType::Float32,
            "Float64Array" => ViewType::Float64,
            "BigInt64Array" => ViewType::BigInt64,
            "BigUint64Array" => ViewType::BigUint64,
            "DataView" => ViewType::DataView,
            _ => return None,
        })
    }
}

/// <https://www.w3.org/TR/webnn/#appendices-mloperanddatatype-arraybufferview-compatibility>:
/// a typed array must match the operand's data type. float16 also takes `Uint16Array` (raw
/// bits, as the spec's note allows); int4/uint4 (an extension) take packed `Uint8Array`s; a
/// `DataView` carries no element type, so any type accepts it.
pub fn check_view_type(data_type: DataType, view: ViewType) -> crate::error::Result<()> {
    let ok = match view {
        ViewType::DataView => true,
        ViewType::Float32 => data_type == DataType::Float32,
        ViewType::Float16 => data_type == DataType::Float16,
        ViewType::Uint16 => data_type == DataType::Float16,
        ViewType::BigInt64 => data_type == DataType::Int64,
        ViewType::BigUint64 => data_type == DataType::Uint64,
        ViewType::Int32 => data_type == DataType::Int32,
        ViewType::Uint32 => data_type == DataType::Uint32,
        // "If bufferSource is a Uint8Array object, then return true" (validate buffer with
        // descriptor): a byte view of any tensor, e.g. a slice of a WebAssembly.Memory.
        // Int8Array is taken as a byte view too, an extension: ONNX Runtime Web's WebNN
        // execution provider reads float32 outputs into an Int8Array over its wasm heap
        // (Chromium checks only the byte length), and refusing it fails every such session.
        ViewType::Uint8 | ViewType::Int8 => true,
        ViewType::Uint8Clamped | ViewType::Int16 | ViewType::Float64 => false,
    };
    if ok {
        Ok(())
    } else {
        Err(crate::error::Error::type_error(format!(
            "a {view:?} array cannot hold {data_type} data"
        )))
    }
}
