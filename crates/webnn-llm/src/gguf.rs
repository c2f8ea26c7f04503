//! A GGUF (version 2 and 3) reader: metadata, tensor directory, and the block formats the
//! SmolLM2 file uses (F32, F16, Q4_1, Q8_0). The whole file is held in memory.

use std::fmt;

#[derive(Debug)]
pub struct GgufError(pub String);

impl fmt::Display for GgufError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "GGUF: {}", self.0)
    }
}

impl std::error::Error for GgufError {}

type Result<T> = std::result::Result<T, GgufError>;

fn err<T>(msg: impl Into<String>) -> Result<T> {
    Err(GgufError(msg.into()))
}

/// A metadata value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    U64(u64),
    I64(i64),
    F64(f64),
    Bool(bool),
    Str(String),
    Array(Vec<Value>),
}

impl Value {
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Value::U64(v) => Some(*v),
            Value::I64(v) => u64::try_from(*v).ok(),
            _ => None,
        }
    }
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::F64(v) => Some(*v),
            Value::U64(v) => Some(*v as f64),
            Value::I64(v) => Some(*v as f64),
            _ => None,
        }
    }
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }
    pub fn as_array(&self) -> Option<&[Value]> {
        match self {
            Value::Array(v) => Some(v),
            _ => None,
        }
    }
}

/// The ggml block formats this reader decodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TensorType {
    F32,
    F16,
    /// Blocks of 32: f16 scale `d`, f16 minimum `m`, 16 bytes of 4-bit `q` (elements 0..16 in
    /// the low nibbles, 16..32 in the high ones); x = d * q + m.
    Q4_1,
    /// Blocks of 32: f16 scale `d`, 32 signed bytes `q`; x = d * q.
    Q8_0,
}

impl TensorType {
    fn from_code(code: u32) -> Option<TensorType> {
        match code {
            0 => Some(TensorType::F32),
            1 => Some(TensorType::F16),
            3 => Some(TensorType::Q4_1),
            8 => Some(TensorType::Q8_0),
            _ => None,
        }
    }
    /// Bytes of `n` elements (whole blocks).
    fn bytes(self, n: u64) -> u64 {
        match self {
            TensorType::F32 => n * 4,
            TensorType::F16 => n * 2,
            TensorType::Q4_1 => n / 32 * 20,
            TensorType::Q8_0 => n / 32 * 34,
        }
    }
}

/// One tensor of the directory. `dims[0]` is the fastest-varying (a row's length).
#[derive(Clone, Debug)]
pub struct TensorInfo {
    pub name: String,
    pub dims: Vec<u64>,
    pub kind: TensorType,
    /// Byte range in the file.
    pub start: usize,
    pub len: usize,
}

impl TensorInfo {
    pub fn elements(&self) -> u64 {
        self.dims.iter().product()
    }
}

pub struct Gguf {
    pub version: u32,
    pub metadata: Vec<(String, Value)>,
    pub tensors: Vec<TensorInfo>,
    data: Vec<u8>,
}

struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8]> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let Some(end) = end else { return err(format!("truncated at byte {}", self.at)) };
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }
    fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().unwrap_or_default()))
    }
    fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().unwrap_or_default()))
    }
    fn string(&mut self) -> Result<String> {
        let n = self.u64()? as usize;
        String::from_utf8(self.take(n)?.to_vec()).map_err(|_| GgufError("a string is not UTF-8".into()))
    }
    fn value(&mut self, kind: u32, depth: u32) -> Result<Value> {
        let le = |b: &[u8]| -> [u8; 8] {
            let mut a = [0u8; 8];
            a[..b.len()].copy_from_slice(b);
            a
        };
        Ok(match kind {
            0 => Value::U64(self.take(1)?[0] as u64),
            1 => Value::I64(self.take(1)?[0] as i8 as i64),
            2 => Value::U64(u16::from_le_bytes(self.take(2)?.try_into().unwrap_or_default()) as u64),
            3 => Value::I64(i16::from_le_bytes(self.take(2)?.try_into().unwrap_or_default()) as i64),
            4 => Value::U64(self.u32()? as u64),
            5 => Value::I64(self.u32()? as i32 as i64),
            6 => Value::F64(f32::from_le_bytes(self.take(4)?.try_into().unwrap_or_default()) as f64),
            7 => Value::Bool(self.take(1)?[0] != 0),
            8 => Value::Str(self.string()?),
            9 if depth < 4 => {
                let (inner, n) = (self.u32()?, self.u64()?);
                if n > self.bytes.len() as u64 {
                    return err("an array longer than the file");
                }
                let items: Result<Vec<Value>> = (0..n).map(|_| self.value(inner, depth + 1)).collect();
                Value::Array(items?)
            }
            10 => Value::U64(self.u64()?),
            11 => Value::I64(self.u64()? as i64),
            12 => Value::F64(f64::from_le_bytes(le(self.take(8)?))),
            other => return err(format!("unknown metadata type {other}")),
        })
    }
}

impl Gguf {
    pub fn read(path: &std::path::Path) -> Result<Gguf> {
        let data = std::fs::read(path).map_err(|e| GgufError(format!("{}: {e}", path.display())))?;
        Gguf::parse(data)
    }

    pub fn parse(data: Vec<u8>) -> Result<Gguf> {
        let mut c = Cursor { bytes: &data, at: 0 };
        if c.take(4)? != b"GGUF" {
            return err("not a GGUF file");
        }
        let version = c.u32()?;
        if !(2..=3).contains(&version) {
            return err(format!("version {version} (2 and 3 are read)"));
        }
        let (tensor_count, kv_count) = (c.u64()?, c.u64()?);
        let mut metadata = Vec::new();
        for _ in 0..kv_count {
            let key = c.string()?;
            let kind = c.u32()?;
            metadata.push((key, c.value(kind, 0)?));
        }
        let mut infos = Vec::new();
        for _ in 0..tensor_count {
            let name = c.string()?;
            let n = c.u32()?;
            if n > 8 {
                return err(format!("{name}: {n} dimensions"));
            }
            let dims: Result<Vec<u64>> = (0..n).map(|_| c.u64()).collect();
            let code = c.u32()?;
            let offset = c.u64()?;
            infos.push((name, dims?, code, offset));
        }
        let align = metadata
            .iter()
            .find(|(k, _)| k == "general.alignment")
            .and_then(|(_, v)| v.as_u64())
            .unwrap_or(32) as usize;
        let base = c.at.next_multiple_of(align.max(1));
        let mut tensors = Vec::new();
        for (name, dims, code, offset) in infos {
            let Some(kind) = TensorType::from_code(code) else {
                return err(format!("{name}: ggml type {code} is not read"));
            };
            let n: u64 = dims.iter().product();
            if !matches!(kind, TensorType::F32 | TensorType::F16) && !n.is_multiple_of(32) {
                return err(format!("{name}: {n} elements are not whole blocks"));
            }
            let start = base as u64 + offset;
            let len = kind.bytes(n);
            if start + len > data.len() as u64 {
                return err(format!("{name}: data past the end of the file"));
            }
            tensors.push(TensorInfo { name, dims, kind, start: start as usize, len: len as usize });
        }
        Ok(Gguf { version, metadata, tensors, data })
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        self.metadata.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    pub fn u64(&self, key: &str) -> Result<u64> {
        self.get(key).and_then(Value::as_u64).ok_or_else(|| GgufError(format!("no integer '{key}'")))
    }

    pub fn f64(&self, key: &str) -> Result<f64> {
        self.get(key).and_then(Value::as_f64).ok_or_else(|| GgufError(format!("no number '{key}'")))
    }

    /// An array of strings (the vocabulary, the merges).
    pub fn strings(&self, key: &str) -> Result<Vec<&str>> {
        let a = self.get(key).and_then(Value::as_array).ok_or_else(|| GgufError(format!("no array '{key}'")))?;
        a.iter().map(|v| v.as_str().ok_or_else(|| GgufError(format!("'{key}' holds a non-string")))).collect()
    }

    pub fn tensor(&self, name: &str) -> Result<&TensorInfo> {
        self.tensors.iter().find(|t| t.name == name).ok_or_else(|| GgufError(format!("no tensor '{name}'")))
    }

    pub fn bytes(&self, t: &TensorInfo) -> &[u8] {
        &self.data[t.start..t.start + t.len]
    }

    /// Any tensor as float32 (dequantized), for references and small tensors.
    pub fn f32s(&self, t: &TensorInfo) -> Vec<f32> {
        let b = self.bytes(t);
        let h = |i: usize| half::f16::from_le_bytes([b[i], b[i + 1]]).to_f32();
        match t.kind {
            TensorType::F32 => b.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect(),
            TensorType::F16 => (0..b.len() / 2).map(|i| h(2 * i)).collect(),
            TensorType::Q4_1 => (0..b.len() / 20)
                .flat_map(|k| {
                    let at = 20 * k;
                    let (d, m) = (h(at), h(at + 2));
                    let qs = &b[at + 4..at + 20];
                    let low = qs.iter().map(move |q| d * (q & 15) as f32 + m);
                    let high = qs.iter().map(move |q| d * (q >> 4) as f32 + m);
                    low.chain(high).collect::<Vec<f32>>()
                })
                .collect(),
            TensorType::Q8_0 => (0..b.len() / 34)
                .flat_map(|k| {
                    let d = h(34 * k);
                    b[34 * k + 2..34 * k + 34].iter().map(move |&q| d * q as i8 as f32)
                })
                .collect(),
        }
    }
}
