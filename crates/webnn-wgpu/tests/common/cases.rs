//! One small graph per (op, data type): odd sizes so packed types straddle words, broadcast
//! operands, non-default options. `cases(kind, t)` gives every graph that exercises `kind`
//! with `t` as the type of its first operand (several when options or other slots vary);
//! none when the op table rejects `t`.

use webnn_core::ops::*;
use webnn_core::{DataType, Graph, GraphBuilder, HostTensor, OpKind, Operand, OperandDescriptor};
use webnn_cpu::Tensor;

/// A graph and the tensors for its inputs.
pub struct Case {
    pub name: String,
    pub graph: Graph,
    pub feeds: Vec<(String, HostTensor)>,
}

struct B {
    b: GraphBuilder,
    feeds: Vec<(String, HostTensor)>,
    seed: u64,
}

fn rand(seed: &mut u64) -> f64 {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    (*seed >> 11) as f64 / (1u64 << 53) as f64
}

/// Values spread over the type: floats in [-4, 4), integers over a range that keeps sums
/// and products interesting (64-bit ones beyond 32 bits).
fn values(t: DataType, n: usize, seed: &mut u64) -> Tensor {
    let shape = vec![n];
    if t.is_float() {
        let v: Vec<f64> = (0..n).map(|_| rand(seed) * 8.0 - 4.0).collect();
        return Tensor::from_f64(t, shape, &v);
    }
    let (lo, hi): (f64, f64) = match t {
        DataType::Int4 => (-8.0, 8.0),
        DataType::Uint4 => (0.0, 16.0),
        DataType::Int8 => (-128.0, 128.0),
        DataType::Uint8 => (0.0, 256.0),
        DataType::Int32 => (-1000.0, 1000.0),
        DataType::Uint32 => (0.0, 2000.0),
        DataType::Int64 => (-3e12, 3e12),
        _ => (0.0, 6e12),
    };
    let v: Vec<i128> = (0..n)
        .map(|_| (lo + (hi - lo) * rand(seed)).floor() as i128)
        .collect();
    Tensor::from_i128(t, shape, &v)
}

fn count(shape: &[u32]) -> usize {
    shape.iter().map(|&d| d as usize).product()
}

impl B {
    fn new(seed: u64) -> B {
        B {
            b: GraphBuilder::new(),
            feeds: Vec::new(),
            seed: seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1,
        }
    }
    fn feed(&mut self, t: DataType, shape: &[u32], data: Tensor) -> Option<Operand> {
        let name = format!("in{}", self.feeds.len());
        let desc = OperandDescriptor::new(t, shape);
        let o = self.b.input(&name, desc.clone()).ok()?;
        self.feeds.push((
            name,
            HostTensor {
                desc,
                bytes: data.to_bytes(),
            },
        ));
        Some(o)
    }
    fn x(&mut self, t: DataType, shape: &[u32]) -> Option<Operand> {
        let data = values(t, count(shape), &mut self.seed);
        self.feed(t, shape, data)
    }
    /// Values in [lo, hi) (for sizes, indices and conditions).
    fn ints(&mut self, t: DataType, shape: &[u32], lo: i128, hi: i128) -> Option<Operand> {
        let n = count(shape);
        let v: Vec<i128> = (0..n)
            .map(|_| lo + (rand(&mut self.seed) * (hi - lo) as f64) as i128)
            .collect();
        self.feed(t, shape, Tensor::from_i128(t, vec![n], &v))
    }
    fn given(&mut self, t: DataType, shape: &[u32], v: &[i128]) -> Option<Operand> {
        self.feed(t, shape, Tensor::from_i128(t, vec![v.len()], v))
    }
    fn floats(&mut self, t: DataType, shape: &[u32], lo: f64, hi: f64) -> Option<Operand> {
        let n = count(shape);
        let v: Vec<f64> = (0..n)
            .map(|_| lo + (hi - lo) * rand(&mut self.seed))
            .collect();
        self.feed(t, shape, Tensor::from_f64(t, vec![n], &v))
    }
    fn done(mut self, name: String, outs: &[Operand]) -> Option<Case> {
        let named: Vec<(String, Operand)> = outs
            .iter()
            .enumerate()
            .map(|(k, &o)| (format!("out{k}"), o))
            .collect();
        let refs: Vec<(&str, Operand)> = named.iter().map(|(n, o)| (n.as_str(), *o)).collect();
        let graph = self.b.build(&refs).ok()?;
        Some(Case {
            name,
            graph,
            feeds: self.feeds,
        })
    }
}

fn o() -> OpOptions {
    OpOptions::default()
}

fn num(v: f64) -> Option<MLNumber> {
    Some(MLNumber::Double(v))
}

/// Every case of `kind` with first-operand type `t`.
pub fn cases(kind: OpKind, t: DataType) -> Vec<Case> {
    let mut out = Vec::new();
    for variant in 0..6 {
        if let Some(c) = case(kind, t, variant) {
            out.push(c);
        }
    }
    out
}

/// Variant `v` of the cases of (kind, t), if there is one.
fn case(kind: OpKind, t: DataType, v: u32) -> Option<Case> {
    use OpKind::*;
    let mut b = B::new(kind as u64 * 131 + t as u64 * 7 + v as u64);
    let name = format!("{kind:?} {t} #{v}");
    let only = |n: u32| if v < n { Some(()) } else { None };
    let shape = [3u32, 5, 7];
    let unary = |b: &mut B,
                 f: &dyn Fn(&mut GraphBuilder, Operand) -> webnn_core::Result<Operand>|
     -> Option<Operand> {
        let x = b.x(t, &shape)?;
        f(&mut b.b, x).ok()
    };
    let binary =
        |b: &mut B,
         f: &dyn Fn(&mut GraphBuilder, Operand, Operand) -> webnn_core::Result<Operand>|
         -> Option<Operand> {
            let (x, y) = if v == 0 {
                (b.x(t, &shape)?, b.x(t, &[5, 1])?)
            } else {
                (b.x(t, &[6, 9])?, b.x(t, &[6, 9])?)
            };
            f(&mut b.b, x, y).ok()
        };
    let outs: Vec<Operand> = match kind {
        Add => {
            only(2)?;
            vec![binary(&mut b, &|g, x, y| g.add(x, y, o()))?]
        }
        Sub => {
            only(2)?;
            vec![binary(&mut b, &|g, x, y| g.sub(x, y, o()))?]
        }
        Mul => {
            only(2)?;
            vec![binary(&mut b, &|g, x, y| g.mul(x, y, o()))?]
        }
        Div => {
            only(2)?;
            vec![binary(&mut b, &|g, x, y| g.div(x, y, o()))?]
        }
        Max => {
            only(2)?;
            vec![binary(&mut b, &|g, x, y| g.max(x, y, o()))?]
        }
        Min => {
            only(2)?;
            vec![binary(&mut b, &|g, x, y| g.min(x, y, o()))?]
        }
        Pow => {
            only(1)?;
            let x = b.x(t, &shape)?;
            let y = if t.is_float() {
                b.x(t, &[5, 1])?
            } else {
                b.ints(t, &[5, 1], 0, 4)?
            };
            vec![b.b.pow(x, y, o()).ok()?]
        }
        Equal => {
            only(2)?;
            vec![binary(&mut b, &|g, x, y| g.equal(x, y, o()))?]
        }
        NotEqual => {
            only(1)?;
            vec![binary(&mut b, &|g, x, y| g.not_equal(x, y, o()))?]
        }
        Greater => {
            only(1)?;
            vec![binary(&mut b, &|g, x, y| g.greater(x, y, o()))?]
        }
        GreaterOrEqual => {
            only(1)?;
            vec![binary(&mut b, &|g, x, y| g.greater_or_equal(x, y, o()))?]
        }
        Lesser => {
            only(1)?;
            vec![binary(&mut b, &|g, x, y| g.lesser(x, y, o()))?]
        }
        LesserOrEqual => {
            only(1)?;
            vec![binary(&mut b, &|g, x, y| g.lesser_or_equal(x, y, o()))?]
        }
        LogicalAnd => {
            only(1)?;
            vec![binary(&mut b, &|g, x, y| g.logical_and(x, y, o()))?]
        }
        LogicalOr => {
            only(1)?;
            vec![binary(&mut b, &|g, x, y| g.logical_or(x, y, o()))?]
        }
        LogicalXor => {
            only(1)?;
            vec![binary(&mut b, &|g, x, y| g.logical_xor(x, y, o()))?]
        }
        LogicalNot => {
            only(1)?;
            vec![unary(&mut b, &|g, x| g.logical_not(x, o()))?]
        }
        IsNaN => {
            only(1)?;
            vec![unary(&mut b, &|g, x| g.is_nan(x, o()))?]
        }
        IsInfinite => {
            only(1)?;
            vec![unary(&mut b, &|g, x| g.is_infinite(x, o()))?]
        }
        Abs => {
            only(1)?;
            vec![unary(&mut b, &|g, x| g.abs(x, o()))?]
        }
        Ceil => {
            only(1)?;
            vec![unary(&mut b, &|g, x| g.ceil(x, o()))?]
        }
        Cos => {
            only(1)?;
            vec![unary(&mut b, &|g, x| g.cos(x, o()))?]
        }
        Erf => {
            only(1)?;
            vec![unary(&mut b, &|g, x| g.erf(x, o()))?]
        }
        Exp => {
            only(1)?;
            vec![unary(&mut b, &|g, x| g.exp(x, o()))?]
        }
        Floor => {
            only(1)?;
            vec![unary(&mut b, &|g, x| g.floor(x, o()))?]
        }
        Identity => {
            only(1)?;
            vec![unary(&mut b, &|g, x| g.identity(x, o()))?]
        }
        Log => {
            only(1)?;
            vec![unary(&mut b, &|g, x| g.log(x, o()))?]
        }
        Neg => {
            only(1)?;
            vec![unary(&mut b, &|g, x| g.neg(x, o()))?]
        }
        Reciprocal => {
            only(1)?;
            vec![unary(&mut b, &|g, x| g.reciprocal(x, o()))?]
        }
        RoundEven => {
            only(1)?;
            vec![unary(&mut b, &|g, x| g.round_even(x, o()))?]
        }
        Sin => {
            only(1)?;
            vec![unary(&mut b, &|g, x| g.sin(x, o()))?]
        }
        Sign => {
            only(1)?;
            vec![unary(&mut b, &|g, x| g.sign(x, o()))?]
        }
        Sqrt => {
            only(1)?;
            vec![unary(&mut b, &|g, x| g.sqrt(x, o()))?]
        }
        Tan => {
            only(1)?;
            vec![unary(&mut b, &|g, x| g.tan(x, o()))?]
        }
        Cast => {
            let to = *DataType::ALL.get(v as usize * 2)?;
            let to2 = DataType::ALL[v as usize * 2 + 1];
            let x = b.x(t, &shape)?;
            vec![b.b.cast(x, to, o()).ok()?, b.b.cast(x, to2, o()).ok()?]
        }
        Clamp => {
            only(2)?;
            let options = if v == 0 {
                ClampOptions {
                    min_value: num(-2.5),
                    max_value: num(100.0),
                    ..Default::default()
                }
            } else {
                ClampOptions {
                    min_value: num(3.0),
                    ..Default::default()
                }
            };
            vec![unary(&mut b, &|g, x| g.clamp(x, options.clone()))?]
        }
        Elu => {
            only(1)?;
            vec![unary(&mut b, &|g, x| {
                g.elu(
                    x,
                    EluOptions {
                        alpha: 0.7,
                        ..Default::default()
                    },
                )
            })?]
        }
        Gelu => {
            only(1)?;
            vec![unary(&mut b, &|g, x| g.gelu(x, o()))?]
        }
        HardSigmoid => {
            only(1)?;
            vec![unary(&mut b, &|g, x| {
                g.hard_sigmoid(
                    x,
                    HardSigmoidOptions {
                        alpha: 0.3,
                        beta: 0.4,
                        ..Default::default()
                    },
                )
            })?]
        }
        HardSwish => {
            only(1)?;
            vec![unary(&mut b, &|g, x| g.hard_swish(x, o()))?]
        }
        LeakyRelu => {
            only(1)?;
            vec![unary(&mut b, &|g, x| {
                g.leaky_relu(
                    x,
                    LeakyReluOptions {
                        alpha: 0.2,
                        ..Default::default()
                    },
                )
            })?]
        }
        Linear => {
            only(1)?;
            vec![unary(&mut b, &|g, x| {
                g.linear(
                    x,
                    LinearOptions {
                        alpha: 1.5,
                        beta: -0.5,
                        ..Default::default()
                    },
                )
            })?]
        }
        Prelu => {
            only(1)?;
            let x = b.x(t, &shape)?;
            let s = b.x(t, &[5, 7])?;
            vec![b.b.prelu(x, s, o()).ok()?]
        }
        Relu => {
            only(1)?;
            vec![unary(&mut b, &|g, x| g.relu(x, o()))?]
        }
        Sigmoid => {
            only(1)?;
            vec![unary(&mut b, &|g, x| g.sigmoid(x, o()))?]
        }
        Softmax => {
            only(2)?;
            vec![unary(&mut b, &|g, x| g.softmax(x, v * 2, o()))?]
        }
        Softplus => {
            only(1)?;
            vec![unary(&mut b, &|g, x| g.softplus(x, o()))?]
        }
        Softsign => {
            only(1)?;
            vec![unary(&mut b, &|g, x| g.softsign(x, o()))?]
        }
        Tanh => {
            only(1)?;
            vec![unary(&mut b, &|g, x| g.tanh(x, o()))?]
        }
        ArgMin | ArgMax => {
            only(2)?;
            let options = ArgMinMaxOptions {
                keep_dimensions: v == 1,
                output_data_type: if v == 0 {
                    DataType::Int32
                } else {
                    DataType::Int64
                },
                ..Default::default()
            };
            let x = b.x(t, &[3, 70, 5])?;
            let y = if kind == ArgMin {
                b.b.arg_min(x, 1, options)
            } else {
                b.b.arg_max(x, 1, options)
            };
            vec![y.ok()?]
        }
        CumulativeSum => {
            only(2)?;
            let options = CumulativeSumOptions {
                exclusive: v == 1,
                reversed: v == 1,
                ..Default::default()
            };
            let x = b.x(t, &[3, 70])?;
            vec![b.b.cumulative_sum(x, 1, options).ok()?]
        }
        ReduceL1 | ReduceL2 | ReduceLogSum | ReduceLogSumExp | ReduceMax | ReduceMean
        | ReduceMin | ReduceProduct | ReduceSum | ReduceSumSquare => {
            only(3)?;
            let options = ReduceOptions {
                axes: match v {
                    0 => Some(vec![0, 2]),
                    1 => None,
                    _ => Some(vec![1]),
                },
                keep_dimensions: v == 2,
                ..Default::default()
            };
            // Products of many elements overflow every type; two per group stay meaningful.
            let x = if kind == ReduceProduct {
                b.x(t, &[2, 3, 2])?
            } else if kind == ReduceLogSum {
                b.floats(t, &shape, 0.1, 4.0)?
            } else {
                b.x(t, &shape)?
            };
            let g = &mut b.b;
            let y = match kind {
                ReduceL1 => g.reduce_l1(x, options),
                ReduceL2 => g.reduce_l2(x, options),
                ReduceLogSum => g.reduce_log_sum(x, options),
                ReduceLogSumExp => g.reduce_log_sum_exp(x, options),
                ReduceMax => g.reduce_max(x, options),
                ReduceMean => g.reduce_mean(x, options),
                ReduceMin => g.reduce_min(x, options),
                ReduceProduct => g.reduce_product(x, options),
                ReduceSum => g.reduce_sum(x, options),
                _ => g.reduce_sum_square(x, options),
            };
            vec![y.ok()?]
        }
        Conv2d => {
            // Grouped with strides, padding and dilation; depthwise; pointwise (NHWC).
            let (xs, fs, options) = match v {
                0 => (
                    [1, 4, 9, 8],
                    [6, 2, 3, 3],
                    Conv2dOptions {
                        groups: 2,
                        strides: Some(vec![2, 1]),
                        padding: Some(vec![1, 2, 0, 1]),
                        dilations: Some(vec![1, 2]),
                        ..Default::default()
                    },
                ),
                1 => (
                    [2, 5, 10, 37],
                    [5, 1, 3, 3],
                    Conv2dOptions {
                        groups: 5,
                        strides: Some(vec![2, 2]),
                        padding: Some(vec![1; 4]),
                        ..Default::default()
                    },
                ),
                2 => (
                    [2, 6, 7, 3],
                    [3, 1, 1, 3],
                    Conv2dOptions {
                        input_layout: InputLayout::Nhwc,
                        filter_layout: Conv2dFilterLayout::Ohwi,
                        ..Default::default()
                    },
                ),
                _ => return None,
            };
            let x = b.x(t, &xs)?;
            let f = b.x(t, &fs)?;
            let bias = b.x(t, &[fs[0]])?;
            let y =
                b.b.conv2d(
                    x,
                    f,
                    Conv2dOptions {
                        bias: Some(bias),
                        ..options
                    },
                )
                .ok()?;
            let relu = b.b.relu(y, o()).ok()?;
            vec![relu]
        }
        ConvTranspose2d => {
            only(2)?;
            let layout = if v == 0 {
                InputLayout::Nchw
            } else {
                InputLayout::Nhwc
            };
            let xs = if v == 0 { [1, 4, 5, 4] } else { [1, 5, 4, 4] };
            let filter_layout = if v == 0 {
                ConvTranspose2dFilterLayout::Iohw
            } else {
                ConvTranspose2dFilterLayout::Ohwi
            };
            let fs = if v == 0 { [4, 3, 3, 2] } else { [3, 3, 2, 4] };
            let x = b.x(t, &xs)?;
            let f = b.x(t, &fs)?;
            let options = ConvTranspose2dOptions {
                groups: if v == 0 { 2 } else { 1 },
                strides: Some(vec![2, 3]),
                padding: Some(vec![1, 0, 0, 1]),
                output_padding: Some(vec![1, 0]),
                input_layout: layout,
                filter_layout,
                ..Default::default()
            };
            vec![b.b.conv_transpose2d(x, f, options).ok()?]
        }
        AveragePool2d | L2Pool2d | MaxPool2d => {
            only(2)?;
            let layout = if v == 0 {
                InputLayout::Nchw
            } else {
                InputLayout::Nhwc
            };
            let options = Pool2dOptions {
                window_dimensions: Some(vec![3, 3]),
                strides: Some(vec![2, 2]),
                padding: Some(vec![1, 1, 1, 0]),
                layout,
                ..Default::default()
            };
            let x = b.x(t, &[1, 3, 9, 8])?;
            let g = &mut b.b;
            let y = match kind {
                AveragePool2d => g.average_pool2d(x, options),
                L2Pool2d => g.l2_pool2d(x, options),
                _ => g.max_pool2d(x, options),
            };
            vec![y.ok()?]
        }
        Resample2d => {
            only(2)?;
            let mode = if v == 0 {
                InterpolationMode::NearestNeighbor
            } else {
                InterpolationMode::Linear
            };
            let x = b.x(t, &[1, 2, 5, 6])?;
            let options = Resample2dOptions {
                mode,
                sizes: Some(vec![9, 4]),
                ..Default::default()
            };
            vec![b.b.resample2d(x, options).ok()?]
        }
        BatchNormalization => {
            only(1)?;
            let x = b.x(t, &[2, 3, 4, 5])?;
            let (mean, var) = (b.x(t, &[3])?, b.floats(t, &[3], 0.5, 2.0)?);
            let (scale, bias) = (b.x(t, &[3])?, b.x(t, &[3])?);
            let options = BatchNormalizationOptions {
                scale: Some(scale),
                bias: Some(bias),
                ..Default::default()
            };
            vec![b.b.batch_normalization(x, mean, var, options).ok()?]
        }
        InstanceNormalization => {
            only(2)?;
            let layout = if v == 0 {
                InputLayout::Nchw
            } else {
                InputLayout::Nhwc
            };
            let x = b.x(t, &[2, 3, 4, 3])?;
            let (scale, bias) = (b.x(t, &[3])?, b.x(t, &[3])?);
            let options = InstanceNormalizationOptions {
                scale: Some(scale),
                bias: Some(bias),
                layout,
                ..Default::default()
            };
            vec![b.b.instance_normalization(x, options).ok()?]
        }
        LayerNormalization => {
            only(1)?;
            let x = b.x(t, &[2, 3, 4, 5])?;
            let (scale, bias) = (b.x(t, &[5, 3])?, b.x(t, &[5, 3])?);
            let options = LayerNormalizationOptions {
                axes: Some(vec![3, 1]),
                scale: Some(scale),
                bias: Some(bias),
                ..Default::default()
            };
            vec![b.b.layer_normalization(x, options).ok()?]
        }
        Matmul => {
            only(2)?;
            let (sa, sb) = if v == 0 {
                (vec![2, 1, 5, 6], vec![3, 6, 70])
            } else {
                (vec![1, 19], vec![19, 9])
            };
            let (x, y) = (b.x(t, &sa)?, b.x(t, &sb)?);
            vec![b.b.matmul(x, y, o()).ok()?]
        }
        Gemm => {
            only(2)?;
            let x = b.x(t, &[6, 5])?;
            let y = b.x(t, &[7, 6])?;
            let c = b.x(t, &[7])?;
            let options = GemmOptions {
                c: Some(c),
                alpha: 0.5,
                beta: 2.0,
                a_transpose: true,
                b_transpose: true,
                ..Default::default()
            };
            let g = b.b.gemm(x, y, options).ok()?;
            vec![if v == 1 {
                b.b.clamp(
                    g,
                    ClampOptions {
                        min_value: num(-1.0),
                        max_value: num(1.0),
                        ..Default::default()
                    },
                )
                .ok()?
            } else {
                g
            }]
        }
        Gru | GruCell | Lstm | LstmCell => {
            only(1)?;
            let (batch, input, hidden, steps) = (2u32, 3u32, 4u32, 2u32);
            let gates = if matches!(kind, Gru | GruCell) { 3 } else { 4 };
            let small = |b: &mut B, s: &[u32]| b.floats(t, s, -0.5, 0.5);
            match kind {
                Gru | Lstm => {
                    let x = small(&mut b, &[steps, batch, input])?;
                    let w = small(&mut b, &[2, gates * hidden, input])?;
                    let r = small(&mut b, &[2, gates * hidden, hidden])?;
                    let bias = small(&mut b, &[2, gates * hidden])?;
                    if kind == Gru {
                        let options = GruOptions {
                            bias: Some(bias),
                            return_sequence: true,
                            direction: RecurrentDirection::Both,
                            reset_after: false,
                            ..Default::default()
                        };
                        b.b.gru(x, w, r, steps, hidden, options).ok()?
                    } else {
                        let peep = small(&mut b, &[2, 3 * hidden])?;
                        let options = LstmOptions {
                            bias: Some(bias),
                            peephole_weight: Some(peep),
                            return_sequence: true,
                            direction: RecurrentDirection::Both,
                            ..Default::default()
                        };
                        b.b.lstm(x, w, r, steps, hidden, options).ok()?
                    }
                }
                _ => {
                    let x = small(&mut b, &[batch, input])?;
                    let w = small(&mut b, &[gates * hidden, input])?;
                    let r = small(&mut b, &[gates * hidden, hidden])?;
                    let h = small(&mut b, &[batch, hidden])?;
                    if kind == GruCell {
                        vec![b
                            .b
                            .gru_cell(x, w, r, h, hidden, GruCellOptions::default())
                            .ok()?]
                    } else {
                        let c = small(&mut b, &[batch, hidden])?;
                        b.b.lstm_cell(x, w, r, h, c, hidden, LstmCellOptions::default())
                            .ok()?
                    }
                }
            }
        }
        Gather | GatherElements | GatherNd | ScatterElements | ScatterNd => {
            let index = [DataType::Int32, DataType::Uint32, DataType::Int64]
                .get(v as usize)
                .copied()?;
            let lo = if index == DataType::Uint32 { 0 } else { -6 };
            match kind {
                Gather => {
                    let x = b.x(t, &[5, 6, 7])?;
                    let i = b.ints(index, &[2, 3], lo, 6)?;
                    vec![b
                        .b
                        .gather(
                            x,
                            i,
                            GatherOptions {
                                axis: 1,
                                ..Default::default()
                            },
                        )
                        .ok()?]
                }
                GatherElements => {
                    let x = b.x(t, &[4, 5])?;
                    let i = b.ints(index, &[3, 5], lo.max(-4), 4)?;
                    vec![b
                        .b
                        .gather_elements(
                            x,
                            i,
                            GatherOptions {
                                axis: 0,
                                ..Default::default()
                            },
                        )
                        .ok()?]
                }
                GatherNd => {
                    let x = b.x(t, &[4, 5, 6])?;
                    let i = b.ints(index, &[2, 3, 2], lo.max(-4), 4)?;
                    vec![b.b.gather_nd(x, i, o()).ok()?]
                }
                ScatterElements => {
                    // Distinct targets per column, so the result does not depend on order.
                    let x = b.x(t, &[4, 5])?;
                    let i = b.given(index, &[2, 5], &[0, 1, 2, 3, 0, 1, 2, 3, 0, 3])?;
                    let u = b.x(t, &[2, 5])?;
                    vec![b
                        .b
                        .scatter_elements(
                            x,
                            i,
                            u,
                            ScatterOptions {
                                axis: 0,
                                ..Default::default()
                            },
                        )
                        .ok()?]
                }
                _ => {
                    let x = b.x(t, &[4, 5, 3])?;
                    let i = b.given(index, &[2, 1], &[3, 1])?;
                    let u = b.x(t, &[2, 5, 3])?;
                    vec![b.b.scatter_nd(x, i, u, o()).ok()?]
                }
            }
        }
        Concat => {
            only(1)?;
            let parts = [
                b.x(t, &[2, 3, 5])?,
                b.x(t, &[2, 1, 5])?,
                b.x(t, &[2, 4, 5])?,
            ];
            vec![b.b.concat(&parts, 1, o()).ok()?]
        }
        Expand => {
            only(1)?;
            let x = b.x(t, &[3, 1])?;
            vec![b
                .b
                .expand(x, vec![2.into(), 3.into(), 5.into()], o())
                .ok()?]
        }
        Pad => {
            only(3)?;
            let mode = [
                PaddingMode::Constant,
                PaddingMode::Edge,
                PaddingMode::Reflection,
            ][v as usize];
            let x = b.x(t, &[3, 5])?;
            let options = PadOptions {
                mode,
                value: MLNumber::Double(3.5),
                ..Default::default()
            };
            vec![b.b.pad(x, vec![1, 2], vec![2, 4], options).ok()?]
        }
        Reshape => {
            only(1)?;
            let x = b.x(t, &shape)?;
            let r = b.b.reshape(x, vec![7.into(), 15.into()], o()).ok()?;
            vec![b.b.identity(r, o()).ok()?]
        }
        Reverse => {
            only(2)?;
            let axes = if v == 0 { Some(vec![0, 2]) } else { None };
            vec![unary(&mut b, &|g, x| {
                g.reverse(
                    x,
                    ReverseOptions {
                        axes: axes.clone(),
                        ..Default::default()
                    },
                )
            })?]
        }
        Slice => {
            only(1)?;
            let x = b.x(t, &[5, 7])?;
            let options = SliceOptions {
                strides: Some(vec![2, 3]),
                ..Default::default()
            };
            vec![b.b.slice(x, vec![1, 0], vec![3, 7], options).ok()?]
        }
        Split => {
            only(1)?;
            let x = b.x(t, &[3, 10])?;
            b.b.split(
                x,
                Splits::Sizes(vec![3, 7]),
                SplitOptions {
                    axis: 1,
                    ..Default::default()
                },
            )
            .ok()?
        }
        Tile => {
            only(1)?;
            let x = b.x(t, &[2, 3])?;
            vec![b.b.tile(x, vec![2, 3], o()).ok()?]
        }
        Transpose => {
            only(1)?;
            vec![unary(&mut b, &|g, x| {
                g.transpose(
                    x,
                    TransposeOptions {
                        permutation: Some(vec![2, 0, 1]),
                        ..Default::default()
                    },
                )
            })?]
        }
        Triangular => {
            only(2)?;
            let options = TriangularOptions {
                upper: v == 0,
                diagonal: if v == 0 { 1 } else { -1 },
                ..Default::default()
            };
            let x = b.x(t, &[2, 5, 6])?;
            vec![b.b.triangular(x, options).ok()?]
        }
        Where => {
            only(1)?;
            let c = b.ints(DataType::Uint8, &[3, 1], 0, 3)?;
            let (x, y) = (b.x(t, &[5])?, b.x(t, &[3, 5])?);
            vec![b.b.where_(c, x, y, o()).ok()?]
        }
        QuantizeLinear => {
            let q = [
                DataType::Int4,
                DataType::Uint4,
                DataType::Int8,
                DataType::Uint8,
                DataType::Int32,
                DataType::Uint32,
            ]
            .get(v as usize)
            .copied()?;
            let x = b.floats(t, &[4, 6], -300.0, 300.0)?;
            let s = b.floats(t, &[4, 2], 0.5, 3.0)?;
            let z = b.x(q, &[4, 2])?;
            vec![b.b.quantize_linear(x, s, z, o()).ok()?]
        }
        DequantizeLinear => {
            only(2)?;
            let f = if v == 0 {
                DataType::Float32
            } else {
                DataType::Float16
            };
            let x = b.x(t, &[4, 6])?;
            let s = b.floats(f, &[4, 2], 0.5, 3.0)?;
            let z = b.x(t, &[4, 2])?;
            vec![b.b.dequantize_linear(x, s, z, o()).ok()?]
        }
    };
    b.done(name, &outs)
}
