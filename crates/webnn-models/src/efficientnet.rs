//! EfficientNet-Lite0 with its ImageNet weights, read from the files `scripts/models.sh`
//! converts (`weights.bin` + `manifest.json`, batch norm already folded into each
//! convolution's weight and bias), built in NCHW or NHWC.
//!
//! The network: a 3x3 stride-2 stem to 32 channels, 16 MBConv blocks (1x1 expansion unless
//! the factor is 1, depthwise kxk, 1x1 projection; a residual add where the stride is 1 and
//! the channels match), a 1x1 head to 1280 channels, global average pooling, a 1280 -> 1000
//! gemm and softmax. Every convolution but the projections is followed by relu6
//! (clamp 0..6). Padding is TensorFlow's "SAME", asymmetric at stride 2.

use serde_json::Value;
use std::collections::HashMap;
use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};
use webnn_core::ops::*;
use webnn_core::{DataType, Graph, GraphBuilder, HostTensor, Operand, OperandDescriptor};

/// The input's name; its shape is [1, 3, 224, 224] (NCHW) or [1, 224, 224, 3] (NHWC).
pub const EFFICIENTNET_INPUT: &str = "input";
/// The input's height and width.
pub const EFFICIENTNET_SIZE: u32 = 224;
/// The two sample pictures the converter writes (scikit-image's, CC0).
pub const EFFICIENTNET_SAMPLES: [&str; 2] = ["chelsea", "coffee"];

/// What went wrong reading the converted files; the message says how to produce them.
#[derive(Debug)]
pub struct ModelError(pub String);

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ModelError {}

impl From<webnn_core::Error> for ModelError {
    fn from(e: webnn_core::Error) -> Self {
        ModelError(e.to_string())
    }
}

/// The converted files' folder: `$WEBNN_MODELS_DIR/efficientnet-lite0` when that variable
/// is set, else the workspace's `www/models/efficientnet-lite0` (where `scripts/models.sh`
/// writes them).
pub fn efficientnet_dir() -> PathBuf {
    match std::env::var_os("WEBNN_MODELS_DIR") {
        Some(d) => PathBuf::from(d).join("efficientnet-lite0"),
        // $WEBNN_ROOT (scripts/env.sh) first: clones sharing a target directory may run a
        // binary compiled in another clone.
        None => std::env::var_os("WEBNN_ROOT")
            .map(PathBuf::from)
            .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
            .join("www/models/efficientnet-lite0"),
    }
}

fn read(path: &Path) -> Result<Vec<u8>, ModelError> {
    std::fs::read(path).map_err(|e| {
        ModelError(format!(
            "{}: {e}; run `bash scripts/models.sh` to fetch and convert EfficientNet-Lite0",
            path.display()
        ))
    })
}

fn bad(what: impl fmt::Display) -> ModelError {
    ModelError(format!(
        "efficientnet-lite0 manifest: {what}; run `bash scripts/models.sh` again"
    ))
}

/// One MBConv block's configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Block {
    pub expand: u32,
    pub kernel: u32,
    pub stride: u32,
    pub input: u32,
    pub output: u32,
}

/// The converted weights: float32 tensors by name, and the block table.
pub struct EfficientNetWeights {
    data: Vec<u8>,
    tensors: HashMap<String, (Vec<u32>, Range<usize>)>,
    pub blocks: Vec<Block>,
}

fn uint(v: &Value, what: &str) -> Result<u32, ModelError> {
    v.as_u64()
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| bad(format!("{what} is not a small unsigned integer")))
}

impl EfficientNetWeights {
    /// Reads `manifest.json` and `weights.bin` from `dir`.
    pub fn load(dir: &Path) -> Result<Self, ModelError> {
        let manifest = read(&dir.join("manifest.json"))?;
        Self::from_bytes(&manifest, read(&dir.join("weights.bin"))?)
    }

    /// The weights from the two files' contents (for callers that fetch them, as a page does).
    pub fn from_bytes(manifest: &[u8], data: Vec<u8>) -> Result<Self, ModelError> {
        let manifest: Value =
            serde_json::from_slice(manifest).map_err(|e| bad(format!("not JSON: {e}")))?;
        let mut tensors = HashMap::new();
        let entries = manifest["tensors"]
            .as_object()
            .ok_or_else(|| bad("no tensors"))?;
        for (name, t) in entries {
            let offset = uint(&t["offset"], name)? as usize;
            let shape = t["shape"]
                .as_array()
                .ok_or_else(|| bad(format!("{name} has no shape")))?
                .iter()
                .map(|d| uint(d, name))
                .collect::<Result<Vec<u32>, _>>()?;
            let len = 4 * shape.iter().product::<u32>() as usize;
            if offset + len > data.len() {
                return Err(bad(format!("{name} lies past the end of weights.bin")));
            }
            tensors.insert(name.clone(), (shape, offset..offset + len));
        }
        let blocks = manifest["blocks"]
            .as_array()
            .ok_or_else(|| bad("no blocks"))?
            .iter()
            .map(|b| {
                Ok(Block {
                    expand: uint(&b["expand"], "expand")?,
                    kernel: uint(&b["kernel"], "kernel")?,
                    stride: uint(&b["stride"], "stride")?,
                    input: uint(&b["in"], "in")?,
                    output: uint(&b["out"], "out")?,
                })
            })
            .collect::<Result<Vec<_>, ModelError>>()?;
        if blocks.len() != 16 {
            return Err(bad(format!(
                "{} blocks, EfficientNet-Lite0 has 16",
                blocks.len()
            )));
        }
        Ok(EfficientNetWeights {
            data,
            tensors,
            blocks,
        })
    }

    /// The folder's weights, with `efficientnet_dir()` as the folder.
    pub fn load_default() -> Result<Self, ModelError> {
        Self::load(&efficientnet_dir())
    }

    /// The tensor's shape and little-endian float32 bytes.
    pub fn tensor(&self, name: &str) -> Result<(&[u32], &[u8]), ModelError> {
        let (shape, range) = self
            .tensors
            .get(name)
            .ok_or_else(|| bad(format!("no tensor {name}")))?;
        Ok((shape, &self.data[range.clone()]))
    }

    /// The number of float32 parameters.
    pub fn parameters(&self) -> usize {
        self.data.len() / 4
    }
}

/// The ImageNet class names (1000, index 0 = "tench, Tinca tinca") from `labels.json`.
pub fn imagenet_labels(dir: &Path) -> Result<Vec<String>, ModelError> {
    let labels: Vec<String> = serde_json::from_slice(&read(&dir.join("labels.json"))?)
        .map_err(|e| bad(format!("labels.json: {e}")))?;
    if labels.len() != 1000 {
        return Err(bad(format!("labels.json has {} names", labels.len())));
    }
    Ok(labels)
}

/// A sample picture as 224x224 RGB bytes, row-major (`<name>.rgb`).
pub fn sample_rgb(dir: &Path, name: &str) -> Result<Vec<u8>, ModelError> {
    let rgb = read(&dir.join(format!("{name}.rgb")))?;
    let want = (EFFICIENTNET_SIZE * EFFICIENTNET_SIZE * 3) as usize;
    if rgb.len() != want {
        return Err(bad(format!(
            "{name}.rgb has {} bytes, not {want}",
            rgb.len()
        )));
    }
    Ok(rgb)
}

/// The network's input from 224x224 RGB bytes (row-major, 3 per pixel): (x - 127) / 128 per
/// channel, as [1, 3, 224, 224] for NCHW or [1, 224, 224, 3] for NHWC.
pub fn preprocess(rgb: &[u8], layout: InputLayout) -> HostTensor {
    let s = EFFICIENTNET_SIZE as usize;
    assert_eq!(rgb.len(), s * s * 3, "expected 224x224 RGB bytes");
    let value = |b: u8| (b as f32 - 127.0) / 128.0;
    let (shape, values): ([u32; 4], Vec<f32>) = match layout {
        InputLayout::Nhwc => (
            [1, s as u32, s as u32, 3],
            rgb.iter().map(|&b| value(b)).collect(),
        ),
        InputLayout::Nchw => (
            [1, 3, s as u32, s as u32],
            (0..3)
                .flat_map(|c| (0..s * s).map(move |p| value(rgb[p * 3 + c])))
                .collect(),
        ),
    };
    HostTensor {
        desc: OperandDescriptor::new(DataType::Float32, &shape),
        bytes: values.iter().flat_map(|v| v.to_le_bytes()).collect(),
    }
}

/// TensorFlow "SAME" padding of one spatial axis: the output has ceil(n / stride) positions,
/// the total padding that needs goes floor(total / 2) before and the rest after.
pub fn same_padding(n: u32, kernel: u32, stride: u32) -> [u32; 2] {
    let out = n.div_ceil(stride);
    let total = ((out - 1) * stride + kernel).saturating_sub(n);
    [total / 2, total - total / 2]
}

/// The bytes of an OIHW float32 filter with its axes permuted: output axis i takes OIHW
/// axis `perm[i]`.
fn permute_oihw(shape: &[u32], bytes: &[u8], perm: [usize; 4]) -> (Vec<u32>, Vec<u8>) {
    let dims: Vec<usize> = shape.iter().map(|&d| d as usize).collect();
    let strides = [dims[1] * dims[2] * dims[3], dims[2] * dims[3], dims[3], 1];
    let out_shape: Vec<u32> = perm.iter().map(|&a| shape[a]).collect();
    let od: Vec<usize> = perm.iter().map(|&a| dims[a]).collect();
    let mut out = Vec::with_capacity(bytes.len());
    for i0 in 0..od[0] {
        for i1 in 0..od[1] {
            for i2 in 0..od[2] {
                for i3 in 0..od[3] {
                    let mut src = 0;
                    for (axis, i) in [i0, i1, i2, i3].into_iter().enumerate() {
                        src += i * strides[perm[axis]];
                    }
                    out.extend_from_slice(&bytes[src * 4..src * 4 + 4]);
                }
            }
        }
    }
    (out_shape, out)
}

struct Net<'w> {
    b: GraphBuilder,
    w: &'w EfficientNetWeights,
    layout: InputLayout,
}

impl Net<'_> {
    fn constant(&mut self, shape: &[u32], bytes: Vec<u8>) -> Result<Operand, ModelError> {
        Ok(self
            .b
            .constant(OperandDescriptor::new(DataType::Float32, shape), bytes)?)
    }

    /// The spatial size of `x` (square throughout this network).
    fn size(&self, x: Operand) -> Result<u32, ModelError> {
        let axis = self.layout.nchw_axes()[2];
        Ok(self.b.desc(x)?.shape[axis].max_size())
    }

    /// Convolution `name` (folded weight and bias, OIHW in the file) with SAME padding,
    /// then relu6 unless `linear`. Depthwise when the filter has one input channel per group
    /// and more than one output.
    fn conv(
        &mut self,
        x: Operand,
        name: &str,
        stride: u32,
        linear: bool,
    ) -> Result<Operand, ModelError> {
        let (shape, bytes) = self.w.tensor(&format!("{name}.weight"))?;
        let (shape, bytes) = (shape.to_vec(), bytes.to_vec());
        let (bias_shape, bias) = self.w.tensor(&format!("{name}.bias"))?;
        let bias = self.constant(bias_shape, bias.to_vec())?;
        let in_channels = self.b.desc(x)?.shape[self.layout.nchw_axes()[1]].max_size();
        let depthwise = shape[1] == 1 && in_channels == shape[0] && in_channels > 1;
        let groups = if depthwise { in_channels } else { 1 };
        // NHWC takes the TFLite filter layouts: OHWI, and IHWO ([1, H, W, C]) for depthwise.
        let (filter_layout, (fshape, fbytes)) = match (self.layout, depthwise) {
            (InputLayout::Nchw, _) => (Conv2dFilterLayout::Oihw, (shape.clone(), bytes)),
            (InputLayout::Nhwc, false) => (
                Conv2dFilterLayout::Ohwi,
                permute_oihw(&shape, &bytes, [0, 2, 3, 1]),
            ),
            (InputLayout::Nhwc, true) => (
                Conv2dFilterLayout::Ihwo,
                permute_oihw(&shape, &bytes, [1, 2, 3, 0]),
            ),
        };
        let filter = self.constant(&fshape, fbytes)?;
        let [before, after] = same_padding(self.size(x)?, shape[2], stride);
        let options = Conv2dOptions {
            label: name.into(),
            padding: Some(vec![before, after, before, after]),
            strides: Some(vec![stride; 2]),
            groups,
            input_layout: self.layout,
            filter_layout,
            bias: Some(bias),
            ..Default::default()
        };
        let y = self.b.conv2d(x, filter, options)?;
        if linear {
            return Ok(y);
        }
        let relu6 = ClampOptions {
            label: format!("{name}.relu6"),
            min_value: Some(MLNumber::Double(0.0)),
            max_value: Some(MLNumber::Double(6.0)),
        };
        Ok(self.b.clamp(y, relu6)?)
    }

    fn block(&mut self, x: Operand, i: usize, block: Block) -> Result<Operand, ModelError> {
        let p = format!("_blocks.{i}");
        let mut y = x;
        if block.expand != 1 {
            y = self.conv(y, &format!("{p}._expand_conv"), 1, false)?;
        }
        y = self.conv(y, &format!("{p}._depthwise_conv"), block.stride, false)?;
        y = self.conv(y, &format!("{p}._project_conv"), 1, true)?;
        if block.stride == 1 && block.input == block.output {
            let add = OpOptions {
                label: format!("{p}.add"),
            };
            y = self.b.add(x, y, add)?;
        }
        Ok(y)
    }
}

/// EfficientNet-Lite0 in `layout`: input `input` float32 [1, 3, 224, 224] (NCHW) or
/// [1, 224, 224, 3] (NHWC), preprocessed by `preprocess`; outputs `logits` and
/// `probabilities`, [1, 1000].
pub fn efficientnet_lite0(
    weights: &EfficientNetWeights,
    layout: InputLayout,
) -> Result<Graph, ModelError> {
    let mut net = Net {
        b: GraphBuilder::new(),
        w: weights,
        layout,
    };
    let s = EFFICIENTNET_SIZE;
    let shape = match layout {
        InputLayout::Nchw => [1, 3, s, s],
        InputLayout::Nhwc => [1, s, s, 3],
    };
    let input = net.b.input(
        EFFICIENTNET_INPUT,
        OperandDescriptor::new(DataType::Float32, &shape),
    )?;
    let mut x = net.conv(input, "_conv_stem", 2, false)?;
    for (i, block) in weights.blocks.clone().into_iter().enumerate() {
        x = net.block(x, i, block)?;
    }
    x = net.conv(x, "_conv_head", 1, false)?;
    let pool = Pool2dOptions {
        label: "pool".into(),
        layout,
        ..Default::default()
    };
    let pooled = net.b.average_pool2d(x, pool)?;
    let (fc_shape, fc) = weights.tensor("_fc.weight")?;
    let (classes, features) = (fc_shape[0], fc_shape[1]);
    let flat = net.b.reshape(
        pooled,
        vec![1.into(), features.into()],
        OpOptions::default(),
    )?;
    let fc = net.constant(&[classes, features], fc.to_vec())?;
    let (_, bias) = weights.tensor("_fc.bias")?;
    let bias = net.constant(&[classes], bias.to_vec())?;
    let gemm = GemmOptions {
        label: "_fc".into(),
        c: Some(bias),
        b_transpose: true,
        ..Default::default()
    };
    let logits = net.b.gemm(flat, fc, gemm)?;
    let probabilities = net.b.softmax(logits, 1, OpOptions::default())?;
    Ok(net
        .b
        .build(&[("logits", logits), ("probabilities", probabilities)])?)
}

/// The `k` most probable classes as (class index, probability), most probable first.
pub fn top_k(probabilities: &HostTensor, k: usize) -> Vec<(usize, f32)> {
    let mut v: Vec<(usize, f32)> = probabilities
        .bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .enumerate()
        .collect();
    v.sort_by(|a, b| b.1.total_cmp(&a.1));
    v.truncate(k);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_padding_matches_tensorflow() {
        assert_eq!(same_padding(224, 3, 2), [0, 1]);
        assert_eq!(same_padding(112, 3, 1), [1, 1]);
        assert_eq!(same_padding(56, 5, 2), [1, 2]);
        assert_eq!(same_padding(28, 5, 1), [2, 2]);
        assert_eq!(same_padding(7, 1, 1), [0, 0]);
        assert_eq!(same_padding(15, 3, 2), [1, 1]);
    }

    #[test]
    fn filters_permute_from_oihw() {
        // O=2, I=1, H=1, W=3: element (o, 0, 0, w) = 10 o + w.
        let v: Vec<f32> = vec![0.0, 1.0, 2.0, 10.0, 11.0, 12.0];
        let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        let (shape, out) = permute_oihw(&[2, 1, 1, 3], &bytes, [1, 2, 3, 0]);
        assert_eq!(shape, [1, 1, 3, 2]);
        let got: Vec<f32> = out
            .chunks(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(got, [0.0, 10.0, 1.0, 11.0, 2.0, 12.0]);
    }

    #[test]
    fn preprocess_scales_and_lays_out() {
        let mut rgb = vec![127u8; 224 * 224 * 3];
        rgb[0] = 255;
        rgb[1] = 0;
        let nchw = preprocess(&rgb, InputLayout::Nchw);
        let f = |t: &HostTensor, i: usize| {
            f32::from_le_bytes(t.bytes[i * 4..i * 4 + 4].try_into().unwrap())
        };
        assert_eq!(f(&nchw, 0), 1.0);
        assert_eq!(f(&nchw, 224 * 224), -127.0 / 128.0);
        let nhwc = preprocess(&rgb, InputLayout::Nhwc);
        assert_eq!(f(&nhwc, 1), -127.0 / 128.0);
        assert_eq!(f(&nhwc, 2), 0.0);
    }
}
