//! Options dictionaries (JSON objects) converted to the builder's typed options structs.
//! Every member of every `ML*Options` dictionary in the IDL is read; absent members keep the
//! spec defaults from the structs' `Default` impls; unknown members are ignored as WebIDL does.

use crate::args::Opts;
use webnn_core::ops::*;
use webnn_core::Result;

pub(crate) const INPUT_LAYOUT: &[(&str, InputLayout)] = &[("nchw", InputLayout::Nchw), ("nhwc", InputLayout::Nhwc)];
pub(crate) const CONV2D_FILTER_LAYOUT: &[(&str, Conv2dFilterLayout)] = &[
    ("oihw", Conv2dFilterLayout::Oihw),
    ("hwio", Conv2dFilterLayout::Hwio),
    ("ohwi", Conv2dFilterLayout::Ohwi),
    ("ihwo", Conv2dFilterLayout::Ihwo),
];
pub(crate) const CONV_TRANSPOSE2D_FILTER_LAYOUT: &[(&str, ConvTranspose2dFilterLayout)] = &[
    ("iohw", ConvTranspose2dFilterLayout::Iohw),
    ("hwoi", ConvTranspose2dFilterLayout::Hwoi),
    ("ohwi", ConvTranspose2dFilterLayout::Ohwi),
];
pub(crate) const ROUNDING: &[(&str, RoundingType)] = &[("floor", RoundingType::Floor), ("ceil", RoundingType::Ceil)];
pub(crate) const INTERPOLATION: &[(&str, InterpolationMode)] =
    &[("nearest-neighbor", InterpolationMode::NearestNeighbor), ("linear", InterpolationMode::Linear)];
pub(crate) const PADDING_MODE: &[(&str, PaddingMode)] =
    &[("constant", PaddingMode::Constant), ("edge", PaddingMode::Edge), ("reflection", PaddingMode::Reflection)];
pub(crate) const ACTIVATION: &[(&str, RecurrentActivation)] = &[
    ("relu", RecurrentActivation::Relu),
    ("sigmoid", RecurrentActivation::Sigmoid),
    ("tanh", RecurrentActivation::Tanh),
];
pub(crate) const DIRECTION: &[(&str, RecurrentDirection)] = &[
    ("forward", RecurrentDirection::Forward),
    ("backward", RecurrentDirection::Backward),
    ("both", RecurrentDirection::Both),
];
pub(crate) const GRU_LAYOUT: &[(&str, GruWeightLayout)] = &[("zrn", GruWeightLayout::Zrn), ("rzn", GruWeightLayout::Rzn)];
pub(crate) const LSTM_LAYOUT: &[(&str, LstmWeightLayout)] = &[("iofg", LstmWeightLayout::Iofg), ("ifgo", LstmWeightLayout::Ifgo)];

/// Sets `$target` from the option when it is present.
macro_rules! set {
    ($target:expr, $value:expr) => {
        if let Some(v) = $value {
            $target = v;
        }
    };
}

pub fn label_only(o: &Opts) -> Result<OpOptions> {
    Ok(OpOptions { label: o.label()? })
}

pub fn arg_min_max(o: &Opts) -> Result<ArgMinMaxOptions> {
    let mut r = ArgMinMaxOptions { label: o.label()?, ..Default::default() };
    set!(r.keep_dimensions, o.bool("keepDimensions"));
    set!(r.output_data_type, o.data_type("outputDataType")?);
    Ok(r)
}

pub fn batch_normalization(o: &Opts) -> Result<BatchNormalizationOptions> {
    let mut r = BatchNormalizationOptions { label: o.label()?, ..Default::default() };
    r.scale = o.operand("scale")?;
    r.bias = o.operand("bias")?;
    set!(r.axis, o.u32("axis")?);
    set!(r.epsilon, o.f64("epsilon")?);
    Ok(r)
}

pub fn clamp(o: &Opts) -> Result<ClampOptions> {
    Ok(ClampOptions { label: o.label()?, min_value: o.number("minValue")?, max_value: o.number("maxValue")? })
}

pub fn conv2d(o: &Opts) -> Result<Conv2dOptions> {
    let mut r = Conv2dOptions { label: o.label()?, ..Default::default() };
    r.padding = o.u32_list("padding")?;
    r.strides = o.u32_list("strides")?;
    r.dilations = o.u32_list("dilations")?;
    set!(r.groups, o.u32("groups")?);
    set!(r.input_layout, o.enum_value("inputLayout", INPUT_LAYOUT)?);
    set!(r.filter_layout, o.enum_value("filterLayout", CONV2D_FILTER_LAYOUT)?);
    r.bias = o.operand("bias")?;
    Ok(r)
}

pub fn conv_transpose2d(o: &Opts) -> Result<ConvTranspose2dOptions> {
    let mut r = ConvTranspose2dOptions { label: o.label()?, ..Default::default() };
    r.padding = o.u32_list("padding")?;
    r.strides = o.u32_list("strides")?;
    r.dilations = o.u32_list("dilations")?;
    r.output_padding = o.u32_list("outputPadding")?;
    r.output_sizes = o.u32_list("outputSizes")?;
    set!(r.groups, o.u32("groups")?);
    set!(r.input_layout, o.enum_value("inputLayout", INPUT_LAYOUT)?);
    set!(r.filter_layout, o.enum_value("filterLayout", CONV_TRANSPOSE2D_FILTER_LAYOUT)?);
    r.bias = o.operand("bias")?;
    Ok(r)
}

pub fn cumulative_sum(o: &Opts) -> Result<CumulativeSumOptions> {
    let mut r = CumulativeSumOptions { label: o.label()?, ..Default::default() };
    set!(r.exclusive, o.bool("exclusive"));
    set!(r.reversed, o.bool("reversed"));
    Ok(r)
}

pub fn elu(o: &Opts) -> Result<EluOptions> {
    let mut r = EluOptions { label: o.label()?, ..Default::default() };
    set!(r.alpha, o.f64("alpha")?);
    Ok(r)
}

pub fn gather(o: &Opts) -> Result<GatherOptions> {
    let mut r = GatherOptions { label: o.label()?, ..Default::default() };
    set!(r.axis, o.u32("axis")?);
    Ok(r)
}

pub fn gemm(o: &Opts) -> Result<GemmOptions> {
    let mut r = GemmOptions { label: o.label()?, ..Default::default() };
    r.c = o.operand("c")?;
    set!(r.alpha, o.f64("alpha")?);
    set!(r.beta, o.f64("beta")?);
    set!(r.a_transpose, o.bool("aTranspose"));
    set!(r.b_transpose, o.bool("bTranspose"));
    Ok(r)
}

pub fn gru(o: &Opts) -> Result<GruOptions> {
    let mut r = GruOptions { label: o.label()?, ..Default::default() };
    r.bias = o.operand("bias")?;
    r.recurrent_bias = o.operand("recurrentBias")?;
    r.initial_hidden_state = o.operand("initialHiddenState")?;
    set!(r.reset_after, o.bool("resetAfter"));
    set!(r.return_sequence, o.bool("returnSequence"));
    set!(r.direction, o.enum_value("direction", DIRECTION)?);
    set!(r.layout, o.enum_value("layout", GRU_LAYOUT)?);
    r.activations = o.enum_list("activations", ACTIVATION)?;
    Ok(r)
}

pub fn gru_cell(o: &Opts) -> Result<GruCellOptions> {
    let mut r = GruCellOptions { label: o.label()?, ..Default::default() };
    r.bias = o.operand("bias")?;
    r.recurrent_bias = o.operand("recurrentBias")?;
    set!(r.reset_after, o.bool("resetAfter"));
    set!(r.layout, o.enum_value("layout", GRU_LAYOUT)?);
    r.activations = o.enum_list("activations", ACTIVATION)?;
    Ok(r)
}

pub fn hard_sigmoid(o: &Opts) -> Result<HardSigmoidOptions> {
    let mut r = HardSigmoidOptions { label: o.label()?, ..Default::default() };
    set!(r.alpha, o.f64("alpha")?);
    set!(r.beta, o.f64("beta")?);
    Ok(r)
}

pub fn instance_normalization(o: &Opts) -> Result<InstanceNormalizationOptions> {
    let mut r = InstanceNormalizationOptions { label: o.label()?, ..Default::default() };
    r.scale = o.operand("scale")?;
    r.bias = o.operand("bias")?;
    set!(r.epsilon, o.f64("epsilon")?);
    set!(r.layout, o.enum_value("layout", INPUT_LAYOUT)?);
    Ok(r)
}

pub fn layer_normalization(o: &Opts) -> Result<LayerNormalizationOptions> {
    let mut r = LayerNormalizationOptions { label: o.label()?, ..Default::default() };
    r.scale = o.operand("scale")?;
    r.bias = o.operand("bias")?;
    r.axes = o.u32_list("axes")?;
    set!(r.epsilon, o.f64("epsilon")?);
    Ok(r)
}

pub fn leaky_relu(o: &Opts) -> Result<LeakyReluOptions> {
    let mut r = LeakyReluOptions { label: o.label()?, ..Default::default() };
    set!(r.alpha, o.f64("alpha")?);
    Ok(r)
}

pub fn linear(o: &Opts) -> Result<LinearOptions> {
    let mut r = LinearOptions { label: o.label()?, ..Default::default() };
    set!(r.alpha, o.f64("alpha")?);
    set!(r.beta, o.f64("beta")?);
    Ok(r)
}

pub fn lstm(o: &Opts) -> Result<LstmOptions> {
    let mut r = LstmOptions { label: o.label()?, ..Default::default() };
    r.bias = o.operand("bias")?;
    r.recurrent_bias = o.operand("recurrentBias")?;
    r.peephole_weight = o.operand("peepholeWeight")?;
    r.initial_hidden_state = o.operand("initialHiddenState")?;
    r.initial_cell_state = o.operand("initialCellState")?;
    set!(r.return_sequence, o.bool("returnSequence"));
    set!(r.direction, o.enum_value("direction", DIRECTION)?);
    set!(r.layout, o.enum_value("layout", LSTM_LAYOUT)?);
    r.activations = o.enum_list("activations", ACTIVATION)?;
    Ok(r)
}

pub fn lstm_cell(o: &Opts) -> Result<LstmCellOptions> {
    let mut r = LstmCellOptions { label: o.label()?, ..Default::default() };
    r.bias = o.operand("bias")?;
    r.recurrent_bias = o.operand("recurrentBias")?;
    r.peephole_weight = o.operand("peepholeWeight")?;
    set!(r.layout, o.enum_value("layout", LSTM_LAYOUT)?);
    r.activations = o.enum_list("activations", ACTIVATION)?;
    Ok(r)
}

pub fn pad(o: &Opts) -> Result<PadOptions> {
    let mut r = PadOptions { label: o.label()?, ..Default::default() };
    set!(r.mode, o.enum_value("mode", PADDING_MODE)?);
    set!(r.value, o.number("value")?);
    Ok(r)
}

/// `MLPool2dOptions`. The WPT data predates the spec's rename of `roundingType` to
/// `outputShapeRounding`; the old name is read as an alias (the new one wins) so that the
/// vectors still exercise ceil rounding.
pub fn pool2d(o: &Opts) -> Result<Pool2dOptions> {
    let mut r = Pool2dOptions { label: o.label()?, ..Default::default() };
    r.window_dimensions = o.u32_list("windowDimensions")?;
    r.padding = o.u32_list("padding")?;
    r.strides = o.u32_list("strides")?;
    r.dilations = o.u32_list("dilations")?;
    set!(r.layout, o.enum_value("layout", INPUT_LAYOUT)?);
    set!(r.output_shape_rounding, o.enum_value("roundingType", ROUNDING)?);
    set!(r.output_shape_rounding, o.enum_value("outputShapeRounding", ROUNDING)?);
    r.output_sizes = o.u32_list("outputSizes")?;
    Ok(r)
}

pub fn reduce(o: &Opts) -> Result<ReduceOptions> {
    let mut r = ReduceOptions { label: o.label()?, ..Default::default() };
    r.axes = o.u32_list("axes")?;
    set!(r.keep_dimensions, o.bool("keepDimensions"));
    Ok(r)
}

pub fn resample2d(o: &Opts) -> Result<Resample2dOptions> {
    let mut r = Resample2dOptions { label: o.label()?, ..Default::default() };
    set!(r.mode, o.enum_value("mode", INTERPOLATION)?);
    r.scales = o.f32_list("scales")?;
    r.sizes = o.u32_list("sizes")?;
    r.axes = o.u32_list("axes")?;
    Ok(r)
}

pub fn reverse(o: &Opts) -> Result<ReverseOptions> {
    Ok(ReverseOptions { label: o.label()?, axes: o.u32_list("axes")? })
}

pub fn scatter(o: &Opts) -> Result<ScatterOptions> {
    let mut r = ScatterOptions { label: o.label()?, ..Default::default() };
    set!(r.axis, o.u32("axis")?);
    Ok(r)
}

pub fn slice(o: &Opts) -> Result<SliceOptions> {
    Ok(SliceOptions { label: o.label()?, strides: o.u32_list("strides")? })
}

pub fn split(o: &Opts) -> Result<SplitOptions> {
    let mut r = SplitOptions { label: o.label()?, ..Default::default() };
    set!(r.axis, o.u32("axis")?);
    Ok(r)
}

pub fn transpose(o: &Opts) -> Result<TransposeOptions> {
    Ok(TransposeOptions { label: o.label()?, permutation: o.u32_list("permutation")? })
}

pub fn triangular(o: &Opts) -> Result<TriangularOptions> {
    let mut r = TriangularOptions { label: o.label()?, ..Default::default() };
    set!(r.upper, o.bool("upper"));
    set!(r.diagonal, o.i32("diagonal")?);
    Ok(r)
}
