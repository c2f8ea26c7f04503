//! A fast-style-transfer network in the shape of the webnn-samples style transfer page's
//! model (the image transformation network of Johnson et al., 2016), with seeded weights:
//! reflection padding, a 9x9 convolution, two stride-2 convolutions, five residual blocks
//! (3x3 convolutions with instance normalization), two stride-2 transposed convolutions back
//! up, a last 9x9 convolution and tanh. Every convolution but the last is followed by
//! instanceNormalization and relu. NCHW, float32, input `input` [1, 3, size, size], output
//! `output` of the same shape.

use crate::rng::Rng;
use webnn_core::ops::*;
use webnn_core::{DataType, Graph, GraphBuilder, Operand, OperandDescriptor, Result};

/// The input's name.
pub const STYLE_INPUT: &str = "input";

struct Net {
    b: GraphBuilder,
    rng: Rng,
}

impl Net {
    fn constant(&mut self, shape: &[u32], lo: f32, hi: f32) -> Result<Operand> {
        let n = shape.iter().product::<u32>() as usize;
        let bytes = self.rng.fill(n, lo, hi).iter().flat_map(|v| v.to_le_bytes()).collect();
        self.b.constant(OperandDescriptor::new(DataType::Float32, shape), bytes)
    }

    fn channels(&self, x: Operand) -> Result<u32> {
        Ok(self.b.desc(x)?.shape[1].max_size())
    }

    /// Reflection padding of k/2, then a k x k convolution with bias.
    fn conv(&mut self, x: Operand, out: u32, k: u32, stride: u32) -> Result<Operand> {
        let c = self.channels(x)?;
        let p = k / 2;
        let reflect = PadOptions { mode: PaddingMode::Reflection, ..Default::default() };
        let x = self.b.pad(x, vec![0, 0, p, p], vec![0, 0, p, p], reflect)?;
        let a = (3.0 / (c * k * k) as f32).sqrt();
        let filter = self.constant(&[out, c, k, k], -a, a)?;
        let bias = self.constant(&[out], -0.1, 0.1)?;
        let options = Conv2dOptions { strides: Some(vec![stride, stride]), bias: Some(bias), ..Default::default() };
        self.b.conv2d(x, filter, options)
    }

    /// A stride-2 transposed 3x3 convolution doubling the size, with bias.
    fn up(&mut self, x: Operand, out: u32) -> Result<Operand> {
        let c = self.channels(x)?;
        let a = (3.0 / (c * 9) as f32).sqrt();
        let filter = self.constant(&[c, out, 3, 3], -a, a)?;
        let bias = self.constant(&[out], -0.1, 0.1)?;
        let options = ConvTranspose2dOptions {
            strides: Some(vec![2, 2]),
            padding: Some(vec![1, 1, 1, 1]),
            output_padding: Some(vec![1, 1]),
            bias: Some(bias),
            ..Default::default()
        };
        self.b.conv_transpose2d(x, filter, options)
    }

    /// instanceNormalization with a scale and bias per channel, then relu unless `linear`.
    fn norm(&mut self, x: Operand, linear: bool) -> Result<Operand> {
        let c = self.channels(x)?;
        let scale = self.constant(&[c], 0.5, 1.5)?;
        let bias = self.constant(&[c], -0.2, 0.2)?;
        let options = InstanceNormalizationOptions { scale: Some(scale), bias: Some(bias), ..Default::default() };
        let y = self.b.instance_normalization(x, options)?;
        match linear {
            true => Ok(y),
            false => self.b.relu(y, OpOptions::default()),
        }
    }
}

/// The network for `size` x `size` pictures (a multiple of 4), with weights from `seed`.
pub fn style_transfer(size: u32, seed: u64) -> Result<Graph> {
    let mut net = Net { b: GraphBuilder::new(), rng: Rng::new(seed) };
    let x = net.b.input(STYLE_INPUT, OperandDescriptor::new(DataType::Float32, &[1, 3, size, size]))?;
    let mut y = net.conv(x, 32, 9, 1)?;
    y = net.norm(y, false)?;
    for channels in [64, 128] {
        y = net.conv(y, channels, 3, 2)?;
        y = net.norm(y, false)?;
    }
    for _ in 0..5 {
        let mut r = net.conv(y, 128, 3, 1)?;
        r = net.norm(r, false)?;
        r = net.conv(r, 128, 3, 1)?;
        r = net.norm(r, true)?;
        y = net.b.add(y, r, OpOptions::default())?;
    }
    for channels in [64, 32] {
        y = net.up(y, channels)?;
        y = net.norm(y, false)?;
    }
    y = net.conv(y, 3, 9, 1)?;
    let y = net.b.tanh(y, OpOptions::default())?;
    net.b.build(&[("output", y)])
}
