//! How each data type lives in GPU memory (arrays of u32 words) and the typed preamble that
//! binds a kernel's `InT`/`OutT` and `in_*`/`out_*` functions to the per-type functions of
//! `shaders/storage.wgsl`. The preamble is generated from this table, never from op names.

use webnn_core::DataType;

/// The WGSL type a data type computes in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Domain {
    /// float32 and float16: f32.
    Float,
    /// int32, int8, int4: i32, sign-extended.
    Sint,
    /// uint32, uint8, uint4: u32.
    Uint,
    /// int64: vec2<u32>, two's complement.
    S64,
    /// uint64: vec2<u32>.
    U64,
}

impl Domain {
    pub fn of(t: DataType) -> Domain {
        match t {
            DataType::Float32 | DataType::Float16 => Domain::Float,
            DataType::Int32 | DataType::Int8 | DataType::Int4 => Domain::Sint,
            DataType::Uint32 | DataType::Uint8 | DataType::Uint4 => Domain::Uint,
            DataType::Int64 => Domain::S64,
            DataType::Uint64 => Domain::U64,
        }
    }

    fn wgsl_type(self) -> &'static str {
        match self {
            Domain::Float => "f32",
            Domain::Sint => "i32",
            Domain::Uint => "u32",
            Domain::S64 | Domain::U64 => "vec2<u32>",
        }
    }

    /// Prefixes of the domain's conversions in storage.wgsl: `<a>_to_float`, `<b>_to_int` and
    /// `<c>_from_int`.
    fn conversions(self) -> (&'static str, &'static str, &'static str) {
        match self {
            Domain::Float => ("float", "float", "float"),
            Domain::Sint => ("sint", "sint", "sint"),
            Domain::Uint => ("uint", "uint", "uint"),
            Domain::S64 => ("s64", "x64", "x64"),
            Domain::U64 => ("u64", "x64", "x64"),
        }
    }
}

/// The storage layout of one data type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Storage {
    pub data_type: DataType,
    /// Elements per u32 word (1 for 32- and 64-bit types).
    pub per_word: u32,
    /// Bits per element inside a word (32 for 32- and 64-bit types).
    pub bits: u32,
    /// Two words per element (int64, uint64).
    pub wide: bool,
}

impl Storage {
    pub fn of(data_type: DataType) -> Storage {
        let bits = data_type.bits();
        let wide = bits == 64;
        let per_word = if bits >= 32 { 1 } else { 32 / bits };
        Storage {
            data_type,
            per_word,
            bits: bits.min(32),
            wide,
        }
    }

    /// The suffix of the type's decode/encode/from_float functions in storage.wgsl.
    fn tag(self) -> &'static str {
        match self.data_type {
            DataType::Float32 => "f32",
            DataType::Float16 => "f16",
            DataType::Int32 => "i32",
            DataType::Uint32 => "u32",
            DataType::Int64 => "i64",
            DataType::Uint64 => "u64",
            DataType::Int8 => "i8",
            DataType::Uint8 => "u8",
            DataType::Int4 => "i4",
            DataType::Uint4 => "u4",
        }
    }

    fn codec_tag(self) -> &'static str {
        if self.wide {
            "x64"
        } else {
            self.tag()
        }
    }

    /// Work units of an output of `elements` elements: one per element for 32/64-bit types,
    /// one per word otherwise.
    pub fn units(self, elements: u64) -> u64 {
        elements.div_ceil(self.per_word as u64)
    }

    /// Bytes of a GPU buffer holding `elements` elements: whole words, at least one.
    pub fn buffer_bytes(self, elements: u64) -> Option<u64> {
        let words = if self.wide {
            elements.checked_mul(2)?
        } else {
            elements.div_ceil(self.per_word as u64)
        };
        words.max(1).checked_mul(4)
    }

    /// The typed preamble of one role of a kernel (`in`/`InT`, `out`/`OutT`, `ix`/`IxT`):
    /// the alias, layout constants and conversions, bound to this type's functions in
    /// storage.wgsl.
    pub fn preamble(self, prefix: &str, alias: &str) -> String {
        let d = Domain::of(self.data_type);
        let (to_float, to_int, from_int) = d.conversions();
        let from_float = match d {
            Domain::Float => "f32",
            _ => self.tag(),
        };
        let p = prefix.to_uppercase();
        format!(
            "// {alias}: {dt}.\n\
             alias {alias} = {ty};\n\
             const {p}_WIDE: bool = {wide};\n\
             const {p}_FLOAT: bool = {float};\n\
             const {p}_SIGNED: bool = {signed};\n\
             const {p}_PER_WORD: u32 = {per_word}u;\n\
             const {p}_BITS: u32 = {bits}u;\n\
             fn {prefix}_decode(lo: u32, hi: u32, i: u32) -> {alias} {{ return decode_{codec}(lo, hi, i); }}\n\
             fn {prefix}_encode(v: {alias}) -> vec2<u32> {{ return encode_{codec}(v); }}\n\
             fn {prefix}_to_float(x: {alias}) -> f32 {{ return {to_float}_to_float(x); }}\n\
             fn {prefix}_to_int(x: {alias}) -> vec2<u32> {{ return {to_int}_to_int(x); }}\n\
             fn {prefix}_from_float(x: f32) -> {alias} {{ return {from_float}_from_float(x); }}\n\
             fn {prefix}_from_int(v: vec2<u32>, signed: bool) -> {alias} {{ return {from_int}_from_int(v, signed); }}\n",
            dt = self.data_type,
            ty = d.wgsl_type(),
            wide = self.wide,
            float = self.data_type.is_float(),
            signed = self.data_type.is_signed(),
            per_word = self.per_word,
            bits = self.bits,
            codec = self.codec_tag(),
        )
    }

    /// Input binding `binding` named `name` and its loader `load_<name>(i)`, which returns
    /// element i in the type's compute domain. With `native_f16` (a module that enables f16)
    /// a float16 input is an `array<f16>` widened exactly to f32.
    pub fn loader(self, binding: u32, name: &str, native_f16: bool) -> String {
        let ty = Domain::of(self.data_type).wgsl_type();
        if native_f16 && self.data_type == DataType::Float16 {
            return format!(
                "// Input {name}: float16, native.\n\
                 @group(0) @binding({binding}) var<storage, read> {name}: array<f16>;\n\
                 fn load_{name}(i: u32) -> f32 {{ return f32({name}[i]); }}\n"
            );
        }
        let (word, hi) = if self.wide {
            ("2u * i".to_owned(), format!("{name}[2u * i + 1u]"))
        } else if self.per_word == 1 {
            ("i".to_owned(), "0u".to_owned())
        } else {
            (format!("i / {}u", self.per_word), "0u".to_owned())
        };
        format!(
            "// Input {name}: {dt}.\n\
             @group(0) @binding({binding}) var<storage, read> {name}: array<u32>;\n\
             fn load_{name}(i: u32) -> {ty} {{ return decode_{codec}({name}[{word}], {hi}, i); }}\n",
            dt = self.data_type,
            codec = self.codec_tag(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts() {
        let f16 = Storage::of(DataType::Float16);
        assert_eq!((f16.per_word, f16.bits, f16.wide), (2, 16, false));
        assert_eq!(f16.buffer_bytes(3), Some(8));
        let i4 = Storage::of(DataType::Int4);
        assert_eq!((i4.per_word, i4.bits), (8, 4));
        assert_eq!(i4.units(9), 2);
        let i64 = Storage::of(DataType::Int64);
        assert!(i64.wide);
        assert_eq!(i64.units(3), 3);
        assert_eq!(i64.buffer_bytes(3), Some(24));
        assert_eq!(Storage::of(DataType::Uint8).buffer_bytes(1), Some(4));
    }
}
