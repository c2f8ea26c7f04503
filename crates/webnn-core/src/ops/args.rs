//! Typed operands and options of every op, with the spec's defaults in `Default` impls.
//! Option fields whose absence has its own meaning (e.g. `axes`, `outputSizes`) are `Option`.

use crate::dtype::DataType;
use crate::graph::Operand;
use crate::shape::Dim;

/// `MLNumber`: a JS number or a BigInt.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MLNumber {
    Double(f64),
    BigInt(i128),
}

impl MLNumber {
    pub fn as_f64(self) -> f64 {
        match self {
            MLNumber::Double(v) => v,
            MLNumber::BigInt(v) => v as f64,
        }
    }
}

/// An `MLNumber` cast to a data type (<https://www.w3.org/TR/webnn/#algorithms-casting>).
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
pub enum NumberCast {
    Float(f64),
    Int(i128),
}

impl MLNumber {
    /// The spec's cast: ConvertToFloat rounds to nearest (ties to even, overflow to
    /// ±Infinity); ConvertToInt maps NaN to 0, clamps to the type's range and rounds half to
    /// even.
    pub fn cast(self, data_type: DataType) -> NumberCast {
        let Some((lo, hi)) = data_type.int_range() else {
            return NumberCast::Float(match (data_type, self) {
                (DataType::Float16, v) => half::f16::from_f64(v.as_f64()).to_f64(),
                (_, MLNumber::Double(x)) => x as f32 as f64,
                (_, MLNumber::BigInt(x)) => x as f32 as f64,
            });
        };
        NumberCast::Int(match self {
            MLNumber::BigInt(x) => x.clamp(lo, hi),
            MLNumber::Double(x) if x.is_nan() => 0,
            // The float clamp keeps the conversion in range; the integer one is exact (i64::MAX
            // as f64 is 2^63, one above the range).
            MLNumber::Double(x) => {
                (x.clamp(lo as f64, hi as f64).round_ties_even() as i128).clamp(lo, hi)
            }
        })
    }
}

impl Default for MLNumber {
    fn default() -> MLNumber {
        MLNumber::Double(0.0)
    }
}

/// `MLOperatorOptions`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OpOptions {
    pub label: String,
}

/// What every op payload tells generic code: its operand inputs (required, then the optional
/// ones present) and its label.
pub trait OpArgs {
    fn operands(&self) -> Vec<Operand>;
    fn label(&self) -> &str;
    /// Rewrites every operand reference (used when a graph is pruned and renumbered).
    fn remap(&mut self, f: &dyn Fn(Operand) -> Operand);
}

/// Declares an options struct with `label` plus typed fields and their spec defaults.
macro_rules! options {
    ($(#[$m:meta])* $name:ident { $($field:ident : $ty:ty = $default:expr),* $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, Debug, PartialEq)]
        pub struct $name {
            pub label: String,
            $(pub $field: $ty,)*
        }
        impl Default for $name {
            fn default() -> Self {
                $name { label: String::new(), $($field: $default,)* }
            }
        }
    };
}

/// Declares an op payload: required operand fields, scalar arguments, then an options struct
/// whose `Option<Operand>` fields listed after `opt` are operand inputs too.
macro_rules! payload {
    ($(#[$m:meta])* $name:ident { operands: [$($op:ident),*], args: { $($arg:ident : $aty:ty),* }, options: $opts:ty $(, opt: [$($o:ident),*])? }) => {
        $(#[$m])*
        #[derive(Clone, Debug, PartialEq)]
        pub struct $name {
            $(pub $op: Operand,)*
            $(pub $arg: $aty,)*
            pub options: $opts,
        }
        impl OpArgs for $name {
            fn operands(&self) -> Vec<Operand> {
                #[allow(unused_mut)]
                let mut v = vec![$(self.$op),*];
                $($(if let Some(x) = self.options.$o { v.push(x); })*)?
                v
            }
            fn label(&self) -> &str {
                &self.options.label
            }
            fn remap(&mut self, f: &dyn Fn(Operand) -> Operand) {
                $(self.$op = f(self.$op);)*
                $($(if let Some(x) = self.options.$o { self.options.$o = Some(f(x)); })*)?
                let _ = f;
            }
        }
    };
}

payload!(/// Element-wise unary ops and parameterless activations.
    Unary { operands: [input], args: {}, options: OpOptions });
payload!(/// Element-wise binary ops, comparisons, logical ops and matmul.
    Binary { operands: [a, b], args: {}, options: OpOptions });

options!(ArgMinMaxOptions { keep_dimensions: bool = false, output_data_type: DataType = DataType::Int32 });
payload!(ArgMinMax { operands: [input], args: { axis: u32 }, options: ArgMinMaxOptions });

options!(BatchNormalizationOptions { scale: Option<Operand> = None, bias: Option<Operand> = None, axis: u32 = 1, epsilon: f64 = 1e-5 });
payload!(BatchNormalization { operands: [input, mean, variance], args: {}, options: BatchNormalizationOptions, opt: [scale, bias] });

payload!(Cast { operands: [input], args: { data_type: DataType }, options: OpOptions });

options!(ClampOptions { min_value: Option<MLNumber> = None, max_value: Option<MLNumber> = None });
payload!(Clamp { operands: [input], args: {}, options: ClampOptions });

/// `concat(inputs, axis)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Concat {
    pub inputs: Vec<Operand>,
    pub axis: u32,
    pub options: OpOptions,
}
impl OpArgs for Concat {
    fn operands(&self) -> Vec<Operand> {
        self.inputs.clone()
    }
    fn label(&self) -> &str {
        &self.options.label
    }
    fn remap(&mut self, f: &dyn Fn(Operand) -> Operand) {
        for o in &mut self.inputs {
            *o = f(*o);
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum InputLayout {
    #[default]
    Nchw,
    Nhwc,
}
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Conv2dFilterLayout {
    #[default]
    Oihw,
    Hwio,
    Ohwi,
    Ihwo,
}
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ConvTranspose2dFilterLayout {
    #[default]
    Iohw,
    Hwoi,
    Ohwi,
}

impl InputLayout {
    /// The axes holding (batch, channels, height, width).
    pub fn nchw_axes(self) -> [usize; 4] {
        match self {
            InputLayout::Nchw => [0, 1, 2, 3],
            InputLayout::Nhwc => [0, 3, 1, 2],
        }
    }
}

impl Conv2dFilterLayout {
    /// The filter's axes holding (output channels, input channels per group, height, width).
    pub fn oihw_axes(self) -> [usize; 4] {
        match self {
            Conv2dFilterLayout::Oihw => [0, 1, 2, 3],
            Conv2dFilterLayout::Hwio => [3, 2, 0, 1],
            Conv2dFilterLayout::Ohwi => [0, 3, 1, 2],
            Conv2dFilterLayout::Ihwo => [3, 0, 1, 2],
        }
    }
}

impl ConvTranspose2dFilterLayout {
    /// The filter's axes holding (input channels, output channels per group, height, width).
    pub fn iohw_axes(self) -> [usize; 4] {
        match self {
            ConvTranspose2dFilterLayout::Iohw => [0, 1, 2, 3],
            ConvTranspose2dFilterLayout::Hwoi => [3, 2, 0, 1],
            ConvTranspose2dFilterLayout::Ohwi => [3, 0, 1, 2],
        }
    }
}

/// A two-value spatial option (strides, dilations) with the spec's default of 1 each.
pub fn spatial_pair(v: &Option<Vec<u32>>) -> [u32; 2] {
    match v.as_deref() {
        Some(&[h, w]) => [h, w],
        _ => [1, 1],
    }
}

/// A padding option [top, bottom, left, right] with the spec's default of zeros.
pub fn spatial_padding(v: &Option<Vec<u32>>) -> [u32; 4] {
    match v.as_deref() {
        Some(&[t, b, l, r]) => [t, b, l, r],
        _ => [0; 4],
    }
}

options!(Conv2dOptions {
    padding: Option<Vec<u32>> = None,
    strides: Option<Vec<u32>> = None,
    dilations: Option<Vec<u32>> = None,
    groups: u32 = 1,
    input_layout: InputLayout = InputLayout::Nchw,
    filter_layout: Conv2dFilterLayout = Conv2dFilterLayout::Oihw,
    bias: Option<Operand> = None,
});
payload!(Conv2d { operands: [input, filter], args: {}, options: Conv2dOptions, opt: [bias] });

options!(ConvTranspose2dOptions {
    padding: Option<Vec<u32>> = None,
    strides: Option<Vec<u32>> = None,
    dilations: Option<Vec<u32>> = None,
    output_padding: Option<Vec<u32>> = None,
    output_sizes: Option<Vec<u32>> = None,
    groups: u32 = 1,
    input_layout: InputLayout = InputLayout::Nchw,
    filter_layout: ConvTranspose2dFilterLayout = ConvTranspose2dFilterLayout::Iohw,
    bias: Option<Operand> = None,
});
payload!(ConvTranspose2d { operands: [input, filter], args: {}, options: ConvTranspose2dOptions, opt: [bias] });

options!(CumulativeSumOptions { exclusive: bool = false, reversed: bool = false });
payload!(CumulativeSum { operands: [input], args: { axis: u32 }, options: CumulativeSumOptions });

payload!(/// quantizeLinear and dequantizeLinear.
    QuantizeLinear { operands: [input, scale, zero_point], args: {}, options: OpOptions });

options!(EluOptions { alpha: f64 = 1.0 });
payload!(Elu { operands: [input], args: {}, options: EluOptions });

payload!(Expand { operands: [input], args: { new_shape: Vec<Dim> }, options: OpOptions });

options!(GatherOptions { axis: u32 = 0 });
payload!(/// gather and gatherElements.
    Gather { operands: [input, indices], args: {}, options: GatherOptions });
payload!(GatherNd { operands: [input, indices], args: {}, options: OpOptions });

options!(GemmOptions { c: Option<Operand> = None, alpha: f64 = 1.0, beta: f64 = 1.0, a_transpose: bool = false, b_transpose: bool = false });
payload!(Gemm { operands: [a, b], args: {}, options: GemmOptions, opt: [c] });

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum GruWeightLayout {
    #[default]
    Zrn,
    Rzn,
}
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecurrentActivation {
    Relu,
    Sigmoid,
    Tanh,
}
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum RecurrentDirection {
    #[default]
    Forward,
    Backward,
    Both,
}
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum LstmWeightLayout {
    #[default]
    Iofg,
    Ifgo,
}

options!(GruOptions {
    bias: Option<Operand> = None,
    recurrent_bias: Option<Operand> = None,
    initial_hidden_state: Option<Operand> = None,
    reset_after: bool = true,
    return_sequence: bool = false,
    direction: RecurrentDirection = RecurrentDirection::Forward,
    layout: GruWeightLayout = GruWeightLayout::Zrn,
    activations: Option<Vec<RecurrentActivation>> = None,
});
payload!(Gru { operands: [input, weight, recurrent_weight], args: { steps: u32, hidden_size: u32 }, options: GruOptions, opt: [bias, recurrent_bias, initial_hidden_state] });

options!(GruCellOptions {
    bias: Option<Operand> = None,
    recurrent_bias: Option<Operand> = None,
    reset_after: bool = true,
    layout: GruWeightLayout = GruWeightLayout::Zrn,
    activations: Option<Vec<RecurrentActivation>> = None,
});
payload!(GruCell { operands: [input, weight, recurrent_weight, hidden_state], args: { hidden_size: u32 }, options: GruCellOptions, opt: [bias, recurrent_bias] });

options!(HardSigmoidOptions { alpha: f64 = 0.2, beta: f64 = 0.5 });
payload!(HardSigmoid { operands: [input], args: {}, options: HardSigmoidOptions });

options!(InstanceNormalizationOptions { scale: Option<Operand> = None, bias: Option<Operand> = None, epsilon: f64 = 1e-5, layout: InputLayout = InputLayout::Nchw });
payload!(InstanceNormalization { operands: [input], args: {}, options: InstanceNormalizationOptions, opt: [scale, bias] });

options!(LayerNormalizationOptions { scale: Option<Operand> = None, bias: Option<Operand> = None, axes: Option<Vec<u32>> = None, epsilon: f64 = 1e-5 });
payload!(LayerNormalization { operands: [input], args: {}, options: LayerNormalizationOptions, opt: [scale, bias] });

options!(LeakyReluOptions { alpha: f64 = 0.01 });
payload!(LeakyRelu { operands: [input], args: {}, options: LeakyReluOptions });

options!(LinearOptions { alpha: f64 = 1.0, beta: f64 = 0.0 });
payload!(Linear { operands: [input], args: {}, options: LinearOptions });

options!(LstmOptions {
    bias: Option<Operand> = None,
    recurrent_bias: Option<Operand> = None,
    peephole_weight: Option<Operand> = None,
    initial_hidden_state: Option<Operand> = None,
    initial_cell_state: Option<Operand> = None,
    return_sequence: bool = false,
    direction: RecurrentDirection = RecurrentDirection::Forward,
    layout: LstmWeightLayout = LstmWeightLayout::Iofg,
    activations: Option<Vec<RecurrentActivation>> = None,
});
payload!(Lstm { operands: [input, weight, recurrent_weight], args: { steps: u32, hidden_size: u32 }, options: LstmOptions, opt: [bias, recurrent_bias, peephole_weight, initial_hidden_state, initial_cell_state] });

options!(LstmCellOptions {
    bias: Option<Operand> = None,
    recurrent_bias: Option<Operand> = None,
    peephole_weight: Option<Operand> = None,
    layout: LstmWeightLayout = LstmWeightLayout::Iofg,
    activations: Option<Vec<RecurrentActivation>> = None,
});
payload!(LstmCell { operands: [input, weight, recurrent_weight, hidden_state, cell_state], args: { hidden_size: u32 }, options: LstmCellOptions, opt: [bias, recurrent_bias, peephole_weight] });

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum PaddingMode {
    #[default]
    Constant,
    Edge,
    Reflection,
}
options!(PadOptions { mode: PaddingMode = PaddingMode::Constant, value: MLNumber = MLNumber::Double(0.0) });
payload!(Pad { operands: [input], args: { beginning_padding: Vec<u32>, ending_padding: Vec<u32> }, options: PadOptions });

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum RoundingType {
    #[default]
    Floor,
    Ceil,
}
options!(Pool2dOptions {
    window_dimensions: Option<Vec<u32>> = None,
    padding: Option<Vec<u32>> = None,
    strides: Option<Vec<u32>> = None,
    dilations: Option<Vec<u32>> = None,
    layout: InputLayout = InputLayout::Nchw,
    output_shape_rounding: RoundingType = RoundingType::Floor,
    output_sizes: Option<Vec<u32>> = None,
});
payload!(/// averagePool2d, l2Pool2d and maxPool2d.
    Pool2d { operands: [input], args: {}, options: Pool2dOptions });

payload!(Prelu { operands: [input, slope], args: {}, options: OpOptions });

options!(ReduceOptions { axes: Option<Vec<u32>> = None, keep_dimensions: bool = false });
payload!(/// The ten reductions.
    Reduce { operands: [input], args: {}, options: ReduceOptions });

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum InterpolationMode {
    #[default]
    NearestNeighbor,
    Linear,
}
options!(Resample2dOptions { mode: InterpolationMode = InterpolationMode::NearestNeighbor, scales: Option<Vec<f32>> = None, sizes: Option<Vec<u32>> = None, axes: Option<Vec<u32>> = None });
payload!(Resample2d { operands: [input], args: {}, options: Resample2dOptions });

payload!(Reshape { operands: [input], args: { new_shape: Vec<Dim> }, options: OpOptions });

options!(ReverseOptions { axes: Option<Vec<u32>> = None });
payload!(Reverse { operands: [input], args: {}, options: ReverseOptions });

options!(ScatterOptions { axis: u32 = 0 });
payload!(ScatterElements { operands: [input, indices, updates], args: {}, options: ScatterOptions });
payload!(ScatterNd { operands: [input, indices, updates], args: {}, options: OpOptions });

options!(SliceOptions { strides: Option<Vec<u32>> = None });
payload!(Slice { operands: [input], args: { starts: Vec<u32>, sizes: Vec<Dim> }, options: SliceOptions });

payload!(Softmax { operands: [input], args: { axis: u32 }, options: OpOptions });

/// `splits`: a number of equal parts, or explicit sizes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Splits {
    Count(u32),
    Sizes(Vec<u32>),
}
options!(SplitOptions { axis: u32 = 0 });
payload!(Split { operands: [input], args: { splits: Splits }, options: SplitOptions });

payload!(Tile { operands: [input], args: { repetitions: Vec<u32> }, options: OpOptions });

options!(TransposeOptions { permutation: Option<Vec<u32>> = None });
payload!(Transpose { operands: [input], args: {}, options: TransposeOptions });

options!(TriangularOptions { upper: bool = true, diagonal: i32 = 0 });
payload!(Triangular { operands: [input], args: {}, options: TriangularOptions });

payload!(Where { operands: [condition, true_value, false_value], args: {}, options: OpOptions });
