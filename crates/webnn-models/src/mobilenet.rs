//! MobileNetV2 1.0 (224x224, NCHW), the webnn-samples image classifier: a 3x3 stem, 17
//! inverted-residual blocks (1x1 expansion, 3x3 depthwise, 1x1 projection, residual add),
//! a 1x1 head to 1280 channels, global average pooling and a 1000-way gemm with softmax.
//! Batch normalization is folded into the convolutions' biases, as in the published ONNX
//! model; relu6 is clamp(0, 6).

use crate::rng::Rng;
use webnn_core::ops::*;
use webnn_core::{DataType, Graph, GraphBuilder, HostTensor, Operand, OperandDescriptor, Result};

/// The input's name and shape.
pub const MOBILENET_INPUT: (&str, [u32; 4]) = ("input", [1, 3, 224, 224]);

/// (expansion factor, output channels, repeats, first stride) of each stage.
const STAGES: [(u32, u32, u32, u32); 7] = [
    (1, 16, 1, 1),
    (6, 24, 2, 2),
    (6, 32, 3, 2),
    (6, 64, 4, 2),
    (6, 96, 3, 1),
    (6, 160, 3, 2),
    (6, 320, 1, 1),
];

struct Net {
    b: GraphBuilder,
    rng: Rng,
    convs: u32,
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

impl Net {
    fn constant(&mut self, shape: &[u32], values: &[f32]) -> Result<Operand> {
        self.b.constant(
            OperandDescriptor::new(DataType::Float32, shape),
            f32_bytes(values),
        )
    }

    /// conv2d (OIHW filter, bias) with He-scaled weights (variance 2 / fan-in), then relu6 unless
    /// `linear`.
    fn conv(
        &mut self,
        x: Operand,
        out: u32,
        k: u32,
        stride: u32,
        groups: u32,
        linear: bool,
    ) -> Result<Operand> {
        let in_ch = self.b.desc(x)?.shape[1].max_size();
        let fan_in = in_ch / groups * k * k;
        let a = (6.0 / fan_in as f32).sqrt();
        let n = (out * fan_in) as usize;
        let w = self.rng.fill(n, -a, a);
        let bias = self.rng.fill(out as usize, -0.1, 0.1);
        let filter = self.constant(&[out, in_ch / groups, k, k], &w)?;
        let bias = self.constant(&[out], &bias)?;
        self.convs += 1;
        let pad = k / 2;
        let options = Conv2dOptions {
            label: format!("conv{}", self.convs),
            padding: Some(vec![pad; 4]),
            strides: Some(vec![stride; 2]),
            groups,
            bias: Some(bias),
            ..Default::default()
        };
        let y = self.b.conv2d(x, filter, options)?;
        if linear {
            return Ok(y);
        }
        let relu6 = ClampOptions {
            label: format!("relu6_{}", self.convs),
            min_value: Some(MLNumber::Double(0.0)),
            max_value: Some(MLNumber::Double(6.0)),
        };
        self.b.clamp(y, relu6)
    }

    fn inverted_residual(
        &mut self,
        x: Operand,
        expand: u32,
        out: u32,
        stride: u32,
    ) -> Result<Operand> {
        let in_ch = self.b.desc(x)?.shape[1].max_size();
        let hidden = in_ch * expand;
        let mut y = x;
        if expand != 1 {
            y = self.conv(y, hidden, 1, 1, 1, false)?;
        }
        y = self.conv(y, hidden, 3, stride, hidden, false)?;
        y = self.conv(y, out, 1, 1, 1, true)?;
        if stride == 1 && in_ch == out {
            y = self.b.add(x, y, OpOptions::default())?;
        }
        Ok(y)
    }
}

/// MobileNetV2 with weights from `seed`: input `input` [1, 3, 224, 224] float32, outputs
/// `logits` and `probabilities` [1, 1000].
pub fn mobilenet_v2(seed: u64) -> Result<Graph> {
    let mut net = Net {
        b: GraphBuilder::new(),
        rng: Rng::new(seed),
        convs: 0,
    };
    let (name, shape) = MOBILENET_INPUT;
    let input = net
        .b
        .input(name, OperandDescriptor::new(DataType::Float32, &shape))?;
    let mut x = net.conv(input, 32, 3, 2, 1, false)?;
    for (t, c, n, s) in STAGES {
        for i in 0..n {
            x = net.inverted_residual(x, t, c, if i == 0 { s } else { 1 })?;
        }
    }
    x = net.conv(x, 1280, 1, 1, 1, false)?;
    let pooled = net.b.average_pool2d(x, Pool2dOptions::default())?;
    let flat = net
        .b
        .reshape(pooled, vec![1.into(), 1280.into()], OpOptions::default())?;
    let a = (3.0f32 / 1280.0).sqrt();
    let w = net.rng.fill(1000 * 1280, -a, a);
    let fc = net.constant(&[1000, 1280], &w)?;
    let bias = net.rng.fill(1000, -0.1, 0.1);
    let bias = net.constant(&[1000], &bias)?;
    let gemm = GemmOptions {
        label: "fc".into(),
        c: Some(bias),
        b_transpose: true,
        ..Default::default()
    };
    let logits = net.b.gemm(flat, fc, gemm)?;
    let probabilities = net.b.softmax(logits, 1, OpOptions::default())?;
    net.b
        .build(&[("logits", logits), ("probabilities", probabilities)])
}

/// A deterministic "image": values in [-1, 1) as a normalized input would have.
pub fn sample_image(seed: u64) -> HostTensor {
    let (_, shape) = MOBILENET_INPUT;
    let n = shape.iter().product::<u32>() as usize;
    let v = Rng::new(seed).fill(n, -1.0, 1.0);
    HostTensor {
        desc: OperandDescriptor::new(DataType::Float32, &shape),
        bytes: f32_bytes(&v),
    }
}
