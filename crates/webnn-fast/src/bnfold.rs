//! Batch normalization folded into the convolution (or single-group transposed convolution)
//! before it, at compile: when the
//! convolution's filter and bias and the normalization's statistics are constants and the
//! normalization is the convolution's only reader, y = (conv(x, W) + b - mean) * s + beta
//! with s = gamma / sqrt(var + eps) is conv(x, W * s) + ((b - mean) * s + beta): one
//! convolution with new constants, and no pass over the activations. Exporters from
//! frameworks that keep the two apart (Paddle, TensorFlow) write such pairs after every
//! convolution. The folded constants are computed in f64 and rounded once, so results move
//! by float32 rounding only.

use webnn_core::graph::Source;
use webnn_core::ops::{BatchNormalization, Conv2d, ConvTranspose2d, Op};
use webnn_core::{DataType, Graph, Operand, OperandDescriptor, Result};

/// A foldable pair: the convolution's node, the normalization's node, the new filter and bias.
struct Pair {
    conv: usize,
    norm: usize,
    filter: Vec<u8>,
    bias: Vec<u8>,
}

fn floats(graph: &Graph, o: Operand) -> Option<Vec<f64>> {
    if graph.desc(o).data_type != DataType::Float32 {
        return None;
    }
    let bytes = graph.constant_data(o)?;
    Some(bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f64).collect())
}

fn pair(graph: &Graph, readers: &[usize], n: usize) -> Option<Pair> {
    let Op::BatchNormalization(BatchNormalization { input, mean, variance, options: bn }) = &graph.nodes[n].op else {
        return None;
    };
    let Source::Node { node: c, .. } = graph.info(*input).source else { return None };
    // The filter, the bias, the layout, and the filter's output-channel axis.
    let (filter, conv_bias, layout, o_axis) = match &graph.nodes[c].op {
        Op::Conv2d(Conv2d { filter, options: co, .. }) => (filter, co.bias, co.input_layout, co.filter_layout.oihw_axes()[0]),
        // A transposed convolution's filter holds output channels per group: one group only.
        Op::ConvTranspose2d(ConvTranspose2d { filter, options: co, .. }) if co.groups == 1 => {
            (filter, co.bias, co.input_layout, co.filter_layout.iohw_axes()[1])
        }
        _ => return None,
    };
    let is_output = graph.outputs.iter().any(|(_, o)| o == input);
    let channel_axis = layout.nchw_axes()[1] as u32;
    if readers[input.index()] != 1 || is_output || bn.axis != channel_axis {
        return None;
    }
    let w = floats(graph, *filter)?;
    let (mean, var) = (floats(graph, *mean)?, floats(graph, *variance)?);
    let channels = mean.len();
    let gamma = match bn.scale {
        Some(s) => floats(graph, s)?,
        None => vec![1.0; channels],
    };
    let beta = match bn.bias {
        Some(b) => floats(graph, b)?,
        None => vec![0.0; channels],
    };
    let b = match conv_bias {
        Some(b) => floats(graph, b)?,
        None => vec![0.0; channels],
    };
    let shape = graph.desc(*filter).static_shape()?;
    if shape[o_axis] as usize != channels || [&var, &gamma, &beta, &b].iter().any(|v| v.len() != channels) {
        return None;
    }
    let s: Vec<f64> = (0..channels).map(|o| gamma[o] / (var[o] + bn.epsilon).sqrt()).collect();
    // The output channel of each filter element: its index along the O axis.
    let inner: usize = shape[o_axis + 1..].iter().map(|&d| d as usize).product();
    let filter: Vec<u8> = w
        .iter()
        .enumerate()
        .flat_map(|(i, &x)| ((x * s[(i / inner) % channels]) as f32).to_le_bytes())
        .collect();
    let bias: Vec<u8> = (0..channels).flat_map(|o| (((b[o] - mean[o]) * s[o] + beta[o]) as f32).to_le_bytes()).collect();
    Some(Pair { conv: c, norm: n, filter, bias })
}

/// `graph` with its foldable convolution → batchNormalization pairs folded, or `None`.
pub(crate) fn fold_batch_norms(graph: &Graph) -> Result<Option<Graph>> {
    let mut readers = vec![0usize; graph.operands.len()];
    for node in &graph.nodes {
        for o in node.op.operands() {
            readers[o.index()] += 1;
        }
    }
    let pairs: Vec<Pair> = (0..graph.nodes.len()).filter_map(|n| pair(graph, &readers, n)).collect();
    if pairs.is_empty() {
        return Ok(None);
    }
    webnn_core::passes::rebuild(graph, |b, n, mut op| {
        if pairs.iter().any(|p| p.norm == n) {
            // The normalization's result is the folded convolution's: its input, here.
            return Ok(op.operands()[..1].to_vec());
        }
        if let Some(p) = pairs.iter().find(|p| p.conv == n) {
            let channels = p.bias.len() as u32 / 4;
            let filter = b.constant(graph.desc(graph_filter(graph, n)).clone(), p.filter.clone())?;
            let bias = Some(b.constant(OperandDescriptor::new(DataType::Float32, &[channels]), p.bias.clone())?);
            match &mut op {
                Op::Conv2d(c) => (c.filter, c.options.bias) = (filter, bias),
                Op::ConvTranspose2d(c) => (c.filter, c.options.bias) = (filter, bias),
                _ => unreachable!("pairs hold convolutions"),
            }
        }
        b.add_op(op)
    })
    .map(Some)
}

/// The filter operand of convolution node `n`.
fn graph_filter(graph: &Graph, n: usize) -> Operand {
    match &graph.nodes[n].op {
        Op::Conv2d(c) => c.filter,
        Op::ConvTranspose2d(c) => c.filter,
        _ => unreachable!("pairs hold convolutions"),
    }
}
