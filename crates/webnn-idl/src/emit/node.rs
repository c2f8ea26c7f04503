//! One validated op as its `MLGraphBuilder` call: the positional arguments by IDL name and
//! the options dictionary, with the transport markers of `super` for values JSON lacks.

use super::{BIGINT, NUMBER, OPERAND};
use crate::options::*;
use serde_json::{json, Map, Value};
use webnn_core::ops::*;
use webnn_core::{Dim, Operand, OperandDescriptor};

fn operand(o: Operand) -> Value {
    json!({ OPERAND: o.index() })
}

fn number(x: f64) -> Value {
    let special = if x.is_nan() {
        "NaN"
    } else if x == f64::INFINITY {
        "Infinity"
    } else if x == f64::NEG_INFINITY {
        "-Infinity"
    } else if x == 0.0 && x.is_sign_negative() {
        "-0"
    } else {
        return json!(x);
    };
    json!({ NUMBER: special })
}

fn ml_number(n: MLNumber) -> Value {
    match n {
        MLNumber::Double(x) => number(x),
        MLNumber::BigInt(i) => json!({ BIGINT: i.to_string() }),
    }
}

fn dims(d: &[Dim]) -> Value {
    Value::Array(
        d.iter()
            .map(|d| match d {
                Dim::Static(n) => json!(n),
                Dim::Dynamic { name, max_size } => json!({"name": &**name, "maxSize": max_size}),
            })
            .collect(),
    )
}

pub(super) fn descriptor(d: &OperandDescriptor) -> Value {
    json!({"dataType": d.data_type.name(), "shape": dims(&d.shape)})
}

/// An enum value's IDL string, from the table the reader converts with.
fn name<T: Copy + PartialEq>(table: &[(&'static str, T)], v: T) -> Value {
    json!(table.iter().find(|(_, t)| *t == v).map_or("", |(n, _)| *n))
}

/// An options dictionary: members in `(name, value, default)` form, defaults left out.
struct Dict(Map<String, Value>);

impl Dict {
    fn new(label: &str) -> Dict {
        let mut m = Map::new();
        if !label.is_empty() {
            m.insert("label".into(), json!(label));
        }
        Dict(m)
    }
    fn set<T: PartialEq>(mut self, key: &str, v: &T, default: &T, f: impl Fn(&T) -> Value) -> Dict {
        if v != default {
            self.0.insert(key.into(), f(v));
        }
        self
    }
    /// An optional operand member.
    fn operand(self, key: &str, v: &Option<Operand>) -> Dict {
        self.opt(key, v, |o| operand(*o))
    }
    fn opt<T>(mut self, key: &str, v: &Option<T>, f: impl Fn(&T) -> Value) -> Dict {
        if let Some(v) = v {
            self.0.insert(key.into(), f(v));
        }
        self
    }
}

fn list(v: &Vec<u32>) -> Value {
    json!(v)
}

fn enum_list<T: Copy + PartialEq>(
    table: &'static [(&'static str, T)],
) -> impl Fn(&Vec<T>) -> Value {
    move |v| Value::Array(v.iter().map(|x| name(table, *x)).collect())
}

/// The named positional arguments and the options dictionary of one op.
pub(super) fn node_call(op: &Op) -> (Vec<(&'static str, Value)>, Map<String, Value>) {
    let (params, dict): (Vec<(&'static str, Value)>, Dict) = match op {
        Op::IsNaN(a) | Op::IsInfinite(a) | Op::LogicalNot(a) => {
            (vec![("a", operand(a.input))], Dict::new(a.label()))
        }
        Op::Abs(a)
        | Op::Ceil(a)
        | Op::Cos(a)
        | Op::Erf(a)
        | Op::Exp(a)
        | Op::Floor(a)
        | Op::Identity(a)
        | Op::Log(a)
        | Op::Neg(a)
        | Op::Reciprocal(a)
        | Op::RoundEven(a)
        | Op::Sin(a)
        | Op::Sign(a)
        | Op::Sqrt(a)
        | Op::Tan(a)
        | Op::Gelu(a)
        | Op::HardSwish(a)
        | Op::Relu(a)
        | Op::Sigmoid(a)
        | Op::Softplus(a)
        | Op::Softsign(a)
        | Op::Tanh(a) => (vec![("input", operand(a.input))], Dict::new(a.label())),
        Op::Add(a)
        | Op::Sub(a)
        | Op::Mul(a)
        | Op::Div(a)
        | Op::Max(a)
        | Op::Min(a)
        | Op::Pow(a)
        | Op::Equal(a)
        | Op::NotEqual(a)
        | Op::Greater(a)
        | Op::GreaterOrEqual(a)
        | Op::Lesser(a)
        | Op::LesserOrEqual(a)
        | Op::LogicalAnd(a)
        | Op::LogicalOr(a)
        | Op::LogicalXor(a)
        | Op::Matmul(a) => (
            vec![("a", operand(a.a)), ("b", operand(a.b))],
            Dict::new(a.label()),
        ),
        Op::Cast(a) => (
            vec![
                ("input", operand(a.input)),
                ("dataType", json!(a.data_type.name())),
            ],
            Dict::new(a.label()),
        ),
        Op::Clamp(a) => {
            let o = &a.options;
            let d = Dict::new(&o.label)
                .opt("minValue", &o.min_value, |n| ml_number(*n))
                .opt("maxValue", &o.max_value, |n| ml_number(*n));
            (vec![("input", operand(a.input))], d)
        }
        Op::Elu(a) => (
            vec![("input", operand(a.input))],
            Dict::new(a.label()).set(
                "alpha",
                &a.options.alpha,
                &EluOptions::default().alpha,
                |x| number(*x),
            ),
        ),
        Op::HardSigmoid(a) => {
            let def = HardSigmoidOptions::default();
            let d = Dict::new(a.label())
                .set("alpha", &a.options.alpha, &def.alpha, |x| number(*x))
                .set("beta", &a.options.beta, &def.beta, |x| number(*x));
            (vec![("input", operand(a.input))], d)
        }
        Op::LeakyRelu(a) => {
            let d = Dict::new(a.label()).set(
                "alpha",
                &a.options.alpha,
                &LeakyReluOptions::default().alpha,
                |x| number(*x),
            );
            (vec![("input", operand(a.input))], d)
        }
        Op::Linear(a) => {
            let def = LinearOptions::default();
            let d = Dict::new(a.label())
                .set("alpha", &a.options.alpha, &def.alpha, |x| number(*x))
                .set("beta", &a.options.beta, &def.beta, |x| number(*x));
            (vec![("input", operand(a.input))], d)
        }
        Op::Prelu(a) => (
            vec![("input", operand(a.input)), ("slope", operand(a.slope))],
            Dict::new(a.label()),
        ),
        Op::Softmax(a) => (
            vec![("input", operand(a.input)), ("axis", json!(a.axis))],
            Dict::new(a.label()),
        ),
        Op::ArgMin(a) | Op::ArgMax(a) => {
            let (o, def) = (&a.options, ArgMinMaxOptions::default());
            let d = Dict::new(&o.label)
                .set(
                    "keepDimensions",
                    &o.keep_dimensions,
                    &def.keep_dimensions,
                    |b| json!(b),
                )
                .set(
                    "outputDataType",
                    &o.output_data_type,
                    &def.output_data_type,
                    |t| json!(t.name()),
                );
            (
                vec![("input", operand(a.input)), ("axis", json!(a.axis))],
                d,
            )
        }
        Op::CumulativeSum(a) => {
            let (o, def) = (&a.options, CumulativeSumOptions::default());
            let d = Dict::new(&o.label)
                .set("exclusive", &o.exclusive, &def.exclusive, |b| json!(b))
                .set("reversed", &o.reversed, &def.reversed, |b| json!(b));
            (
                vec![("input", operand(a.input)), ("axis", json!(a.axis))],
                d,
            )
        }
        Op::ReduceL1(a)
        | Op::ReduceL2(a)
        | Op::ReduceLogSum(a)
        | Op::ReduceLogSumExp(a)
        | Op::ReduceMax(a)
        | Op::ReduceMean(a)
        | Op::ReduceMin(a)
        | Op::ReduceProduct(a)
        | Op::ReduceSum(a)
        | Op::ReduceSumSquare(a) => {
            let o = &a.options;
            let d = Dict::new(&o.label).opt("axes", &o.axes, list).set(
                "keepDimensions",
                &o.keep_dimensions,
                &false,
                |b| json!(b),
            );
            (vec![("input", operand(a.input))], d)
        }
        Op::Conv2d(a) => {
            let (o, def) = (&a.options, Conv2dOptions::default());
            let d = Dict::new(&o.label)
                .opt("padding", &o.padding, list)
                .opt("strides", &o.strides, list)
                .opt("dilations", &o.dilations, list)
                .set("groups", &o.groups, &def.groups, |g| json!(g))
                .set("inputLayout", &o.input_layout, &def.input_layout, |l| {
                    name(INPUT_LAYOUT, *l)
                })
                .set("filterLayout", &o.filter_layout, &def.filter_layout, |l| {
                    name(CONV2D_FILTER_LAYOUT, *l)
                })
                .operand("bias", &o.bias);
            (
                vec![("input", operand(a.input)), ("filter", operand(a.filter))],
                d,
            )
        }
        Op::ConvTranspose2d(a) => {
            let (o, def) = (&a.options, ConvTranspose2dOptions::default());
            let d = Dict::new(&o.label)
                .opt("padding", &o.padding, list)
                .opt("strides", &o.strides, list)
                .opt("dilations", &o.dilations, list)
                .opt("outputPadding", &o.output_padding, list)
                .opt("outputSizes", &o.output_sizes, list)
                .set("groups", &o.groups, &def.groups, |g| json!(g))
                .set("inputLayout", &o.input_layout, &def.input_layout, |l| {
                    name(INPUT_LAYOUT, *l)
                })
                .set("filterLayout", &o.filter_layout, &def.filter_layout, |l| {
                    name(CONV_TRANSPOSE2D_FILTER_LAYOUT, *l)
                })
                .operand("bias", &o.bias);
            (
                vec![("input", operand(a.input)), ("filter", operand(a.filter))],
                d,
            )
        }
        Op::AveragePool2d(a) | Op::L2Pool2d(a) | Op::MaxPool2d(a) => {
            let (o, def) = (&a.options, Pool2dOptions::default());
            let d = Dict::new(&o.label)
                .opt("windowDimensions", &o.window_dimensions, list)
                .opt("padding", &o.padding, list)
                .opt("strides", &o.strides, list)
                .opt("dilations", &o.dilations, list)
                .set("layout", &o.layout, &def.layout, |l| name(INPUT_LAYOUT, *l))
                .set(
                    "outputShapeRounding",
                    &o.output_shape_rounding,
                    &def.output_shape_rounding,
                    |r| name(ROUNDING, *r),
                )
                .opt("outputSizes", &o.output_sizes, list);
            (vec![("input", operand(a.input))], d)
        }
        Op::Resample2d(a) => {
            let (o, def) = (&a.options, Resample2dOptions::default());
            let d = Dict::new(&o.label)
                .set("mode", &o.mode, &def.mode, |m| name(INTERPOLATION, *m))
                .opt("scales", &o.scales, |s| {
                    Value::Array(s.iter().map(|x| number(f64::from(*x))).collect())
                })
                .opt("sizes", &o.sizes, list)
                .opt("axes", &o.axes, list);
            (vec![("input", operand(a.input))], d)
        }
        Op::BatchNormalization(a) => {
            let (o, def) = (&a.options, BatchNormalizationOptions::default());
            let d = Dict::new(&o.label)
                .operand("scale", &o.scale)
                .operand("bias", &o.bias)
                .set("axis", &o.axis, &def.axis, |x| json!(x))
                .set("epsilon", &o.epsilon, &def.epsilon, |x| number(*x));
            (
                vec![
                    ("input", operand(a.input)),
                    ("mean", operand(a.mean)),
                    ("variance", operand(a.variance)),
                ],
                d,
            )
        }
        Op::InstanceNormalization(a) => {
            let (o, def) = (&a.options, InstanceNormalizationOptions::default());
            let d = Dict::new(&o.label)
                .operand("scale", &o.scale)
                .operand("bias", &o.bias)
                .set("epsilon", &o.epsilon, &def.epsilon, |x| number(*x))
                .set("layout", &o.layout, &def.layout, |l| name(INPUT_LAYOUT, *l));
            (vec![("input", operand(a.input))], d)
        }
        Op::LayerNormalization(a) => {
            let (o, def) = (&a.options, LayerNormalizationOptions::default());
            let d = Dict::new(&o.label)
                .operand("scale", &o.scale)
                .operand("bias", &o.bias)
                .opt("axes", &o.axes, list)
                .set("epsilon", &o.epsilon, &def.epsilon, |x| number(*x));
            (vec![("input", operand(a.input))], d)
        }
        Op::Gemm(a) => {
            let (o, def) = (&a.options, GemmOptions::default());
            let d = Dict::new(&o.label)
                .operand("c", &o.c)
                .set("alpha", &o.alpha, &def.alpha, |x| number(*x))
                .set("beta", &o.beta, &def.beta, |x| number(*x))
                .set("aTranspose", &o.a_transpose, &false, |b| json!(b))
                .set("bTranspose", &o.b_transpose, &false, |b| json!(b));
            (vec![("a", operand(a.a)), ("b", operand(a.b))], d)
        }
        Op::Gru(a) => {
            let (o, def) = (&a.options, GruOptions::default());
            let d = Dict::new(&o.label)
                .operand("bias", &o.bias)
                .operand("recurrentBias", &o.recurrent_bias)
                .operand("initialHiddenState", &o.initial_hidden_state)
                .set("resetAfter", &o.reset_after, &def.reset_after, |b| json!(b))
                .set(
                    "returnSequence",
                    &o.return_sequence,
                    &def.return_sequence,
                    |b| json!(b),
                )
                .set("direction", &o.direction, &def.direction, |x| {
                    name(DIRECTION, *x)
                })
                .set("layout", &o.layout, &def.layout, |x| name(GRU_LAYOUT, *x))
                .opt("activations", &o.activations, enum_list(ACTIVATION));
            let p = vec![
                ("input", operand(a.input)),
                ("weight", operand(a.weight)),
                ("recurrentWeight", operand(a.recurrent_weight)),
                ("steps", json!(a.steps)),
                ("hiddenSize", json!(a.hidden_size)),
            ];
            (p, d)
        }
        Op::GruCell(a) => {
            let (o, def) = (&a.options, GruCellOptions::default());
            let d = Dict::new(&o.label)
                .operand("bias", &o.bias)
                .operand("recurrentBias", &o.recurrent_bias)
                .set("resetAfter", &o.reset_after, &def.reset_after, |b| json!(b))
                .set("layout", &o.layout, &def.layout, |x| name(GRU_LAYOUT, *x))
                .opt("activations", &o.activations, enum_list(ACTIVATION));
            let p = vec![
                ("input", operand(a.input)),
                ("weight", operand(a.weight)),
                ("recurrentWeight", operand(a.recurrent_weight)),
                ("hiddenState", operand(a.hidden_state)),
                ("hiddenSize", json!(a.hidden_size)),
            ];
            (p, d)
        }
        Op::Lstm(a) => {
            let (o, def) = (&a.options, LstmOptions::default());
            let d = Dict::new(&o.label)
                .operand("bias", &o.bias)
                .operand("recurrentBias", &o.recurrent_bias)
                .operand("peepholeWeight", &o.peephole_weight)
                .operand("initialHiddenState", &o.initial_hidden_state)
                .operand("initialCellState", &o.initial_cell_state)
                .set(
                    "returnSequence",
                    &o.return_sequence,
                    &def.return_sequence,
                    |b| json!(b),
                )
                .set("direction", &o.direction, &def.direction, |x| {
                    name(DIRECTION, *x)
                })
                .set("layout", &o.layout, &def.layout, |x| name(LSTM_LAYOUT, *x))
                .opt("activations", &o.activations, enum_list(ACTIVATION));
            let p = vec![
                ("input", operand(a.input)),
                ("weight", operand(a.weight)),
                ("recurrentWeight", operand(a.recurrent_weight)),
                ("steps", json!(a.steps)),
                ("hiddenSize", json!(a.hidden_size)),
            ];
            (p, d)
        }
        Op::LstmCell(a) => {
            let (o, def) = (&a.options, LstmCellOptions::default());
            let d = Dict::new(&o.label)
                .operand("bias", &o.bias)
                .operand("recurrentBias", &o.recurrent_bias)
                .operand("peepholeWeight", &o.peephole_weight)
                .set("layout", &o.layout, &def.layout, |x| name(LSTM_LAYOUT, *x))
                .opt("activations", &o.activations, enum_list(ACTIVATION));
            let p = vec![
                ("input", operand(a.input)),
                ("weight", operand(a.weight)),
                ("recurrentWeight", operand(a.recurrent_weight)),
                ("hiddenState", operand(a.hidden_state)),
                ("cellState", operand(a.cell_state)),
                ("hiddenSize", json!(a.hidden_size)),
            ];
            (p, d)
        }
        Op::Gather(a) | Op::GatherElements(a) => {
            let d = Dict::new(a.label()).set("axis", &a.options.axis, &0, |x| json!(x));
            (
                vec![("input", operand(a.input)), ("indices", operand(a.indices))],
                d,
            )
        }
        Op::GatherNd(a) => (
            vec![("input", operand(a.input)), ("indices", operand(a.indices))],
            Dict::new(a.label()),
        ),
        Op::ScatterElements(a) => {
            let d = Dict::new(a.label()).set("axis", &a.options.axis, &0, |x| json!(x));
            (
                vec![
                    ("input", operand(a.input)),
                    ("indices", operand(a.indices)),
                    ("updates", operand(a.updates)),
                ],
                d,
            )
        }
        Op::ScatterNd(a) => (
            vec![
                ("input", operand(a.input)),
                ("indices", operand(a.indices)),
                ("updates", operand(a.updates)),
            ],
            Dict::new(a.label()),
        ),
        Op::Concat(a) => {
            let inputs = Value::Array(a.inputs.iter().map(|o| operand(*o)).collect());
            (
                vec![("inputs", inputs), ("axis", json!(a.axis))],
                Dict::new(&a.options.label),
            )
        }
        Op::Expand(a) => (
            vec![
                ("input", operand(a.input)),
                ("newShape", dims(&a.new_shape)),
            ],
            Dict::new(a.label()),
        ),
        Op::Reshape(a) => (
            vec![
                ("input", operand(a.input)),
                ("newShape", dims(&a.new_shape)),
            ],
            Dict::new(a.label()),
        ),
        Op::Pad(a) => {
            let (o, def) = (&a.options, PadOptions::default());
            let d = Dict::new(&o.label)
                .set("mode", &o.mode, &def.mode, |m| name(PADDING_MODE, *m))
                .set("value", &o.value, &def.value, |n| ml_number(*n));
            let p = vec![
                ("input", operand(a.input)),
                ("beginningPadding", json!(a.beginning_padding)),
                ("endingPadding", json!(a.ending_padding)),
            ];
            (p, d)
        }
        Op::Reverse(a) => (
            vec![("input", operand(a.input))],
            Dict::new(a.label()).opt("axes", &a.options.axes, list),
        ),
        Op::Slice(a) => {
            let d = Dict::new(a.label()).opt("strides", &a.options.strides, list);
            (
                vec![
                    ("input", operand(a.input)),
                    ("starts", json!(a.starts)),
                    ("sizes", dims(&a.sizes)),
                ],
                d,
            )
        }
        Op::Split(a) => {
            let splits = match &a.splits {
                Splits::Count(n) => json!(n),
                Splits::Sizes(s) => json!(s),
            };
            let d = Dict::new(a.label()).set("axis", &a.options.axis, &0, |x| json!(x));
            (vec![("input", operand(a.input)), ("splits", splits)], d)
        }
        Op::Tile(a) => (
            vec![
                ("input", operand(a.input)),
                ("repetitions", json!(a.repetitions)),
            ],
            Dict::new(a.label()),
        ),
        Op::Transpose(a) => (
            vec![("input", operand(a.input))],
            Dict::new(a.label()).opt("permutation", &a.options.permutation, list),
        ),
        Op::Triangular(a) => {
            let (o, def) = (&a.options, TriangularOptions::default());
            let d = Dict::new(&o.label)
                .set("upper", &o.upper, &def.upper, |b| json!(b))
                .set("diagonal", &o.diagonal, &def.diagonal, |x| json!(x));
            (vec![("input", operand(a.input))], d)
        }
        Op::Where(a) => {
            let p = vec![
                ("condition", operand(a.condition)),
                ("trueValue", operand(a.true_value)),
                ("falseValue", operand(a.false_value)),
            ];
            (p, Dict::new(a.label()))
        }
        Op::QuantizeLinear(a) | Op::DequantizeLinear(a) => (
            vec![
                ("input", operand(a.input)),
                ("scale", operand(a.scale)),
                ("zeroPoint", operand(a.zero_point)),
            ],
            Dict::new(a.label()),
        ),
    };
    (params, dict.0)
}
