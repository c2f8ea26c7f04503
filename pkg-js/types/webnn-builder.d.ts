// Part of the WebNN declarations (webnn.d.ts references this file): the operations' options and the
// graph builder.
// Global declarations, as in webnn.d.ts.

// ---------------------------------------------------------------------------------------------
// Operation options

interface MLArgMinMaxOptions extends MLOperatorOptions {
    /** @default false */
    keepDimensions?: boolean;
    /** @default "int32" */
    outputDataType?: MLOperandDataType;
}

interface MLBatchNormalizationOptions extends MLOperatorOptions {
    scale?: MLOperand;
    bias?: MLOperand;
    /** @default 1 */
    axis?: number;
    /** @default 1e-5 */
    epsilon?: number;
}

interface MLClampOptions extends MLOperatorOptions {
    minValue?: MLNumber;
    maxValue?: MLNumber;
}

/**
 * @extension How older drafts chose convolution and pooling padding: `"same-upper"` and
 * `"same-lower"` pad so that the output size is the input size divided by the stride, with
 * the extra element at the end or at the beginning.
 */
type MLAutoPad = "explicit" | "same-upper" | "same-lower";

type MLConv2dFilterOperandLayout = "oihw" | "hwio" | "ohwi" | "ihwo";

interface MLConv2dOptions extends MLOperatorOptions {
    /** [beginningHeight, endingHeight, beginningWidth, endingWidth] @default [0, 0, 0, 0] */
    padding?: readonly number[];
    /** @default [1, 1] */
    strides?: readonly number[];
    /** @default [1, 1] */
    dilations?: readonly number[];
    /** @default 1 */
    groups?: number;
    /** @default "nchw" */
    inputLayout?: MLInputOperandLayout;
    /** @default "oihw" */
    filterLayout?: MLConv2dFilterOperandLayout;
    bias?: MLOperand;
    /** @deprecated Compute `padding` instead. */
    autoPad?: MLAutoPad;
}

type MLConvTranspose2dFilterOperandLayout = "iohw" | "hwoi" | "ohwi";

interface MLConvTranspose2dOptions extends MLOperatorOptions {
    /** @default [0, 0, 0, 0] */
    padding?: readonly number[];
    /** @default [1, 1] */
    strides?: readonly number[];
    /** @default [1, 1] */
    dilations?: readonly number[];
    /** @default [0, 0] */
    outputPadding?: readonly number[];
    /** [height, width]; when given, `outputPadding` is ignored. */
    outputSizes?: readonly number[];
    /** @default 1 */
    groups?: number;
    /** @default "nchw" */
    inputLayout?: MLInputOperandLayout;
    /** @default "iohw" */
    filterLayout?: MLConvTranspose2dFilterOperandLayout;
    bias?: MLOperand;
    /** @deprecated Compute `padding` instead. */
    autoPad?: MLAutoPad;
}

interface MLCumulativeSumOptions extends MLOperatorOptions {
    /** @default false */
    exclusive?: boolean;
    /** @default false */
    reversed?: boolean;
}

interface MLEluOptions extends MLOperatorOptions {
    /** @default 1 */
    alpha?: number;
}

interface MLGatherOptions extends MLOperatorOptions {
    /** @default 0 */
    axis?: number;
}

interface MLGemmOptions extends MLOperatorOptions {
    c?: MLOperand;
    /** @default 1.0 */
    alpha?: number;
    /** @default 1.0 */
    beta?: number;
    /** @default false */
    aTranspose?: boolean;
    /** @default false */
    bTranspose?: boolean;
}

/** Gate order of GRU weights: `"zrn"` update-reset-new, `"rzn"` reset-update-new. */
type MLGruWeightLayout = "zrn" | "rzn";

type MLRecurrentNetworkActivation = "relu" | "sigmoid" | "tanh";

type MLRecurrentNetworkDirection = "forward" | "backward" | "both";

interface MLGruOptions extends MLOperatorOptions {
    bias?: MLOperand;
    recurrentBias?: MLOperand;
    initialHiddenState?: MLOperand;
    /** @default true */
    resetAfter?: boolean;
    /** @default false */
    returnSequence?: boolean;
    /** @default "forward" */
    direction?: MLRecurrentNetworkDirection;
    /** @default "zrn" */
    layout?: MLGruWeightLayout;
    /** @default ["sigmoid", "tanh"] */
    activations?: readonly MLRecurrentNetworkActivation[];
}

interface MLGruCellOptions extends MLOperatorOptions {
    bias?: MLOperand;
    recurrentBias?: MLOperand;
    /** @default true */
    resetAfter?: boolean;
    /** @default "zrn" */
    layout?: MLGruWeightLayout;
    /** @default ["sigmoid", "tanh"] */
    activations?: readonly MLRecurrentNetworkActivation[];
}

interface MLHardSigmoidOptions extends MLOperatorOptions {
    /** @default 0.2 */
    alpha?: number;
    /** @default 0.5 */
    beta?: number;
}

interface MLInstanceNormalizationOptions extends MLOperatorOptions {
    scale?: MLOperand;
    bias?: MLOperand;
    /** @default 1e-5 */
    epsilon?: number;
    /** @default "nchw" */
    layout?: MLInputOperandLayout;
}

interface MLLayerNormalizationOptions extends MLOperatorOptions {
    scale?: MLOperand;
    bias?: MLOperand;
    /** @default every axis but the first */
    axes?: readonly number[];
    /** @default 1e-5 */
    epsilon?: number;
}

interface MLLeakyReluOptions extends MLOperatorOptions {
    /** @default 0.01 */
    alpha?: number;
}

interface MLLinearOptions extends MLOperatorOptions {
    /** @default 1 */
    alpha?: number;
    /** @default 0 */
    beta?: number;
}

/** Gate order of LSTM weights: `"iofg"` input-output-forget-cell, `"ifgo"` input-forget-cell-output. */
type MLLstmWeightLayout = "iofg" | "ifgo";

interface MLLstmOptions extends MLOperatorOptions {
    bias?: MLOperand;
    recurrentBias?: MLOperand;
    peepholeWeight?: MLOperand;
    initialHiddenState?: MLOperand;
    initialCellState?: MLOperand;
    /** @default false */
    returnSequence?: boolean;
    /** @default "forward" */
    direction?: MLRecurrentNetworkDirection;
    /** @default "iofg" */
    layout?: MLLstmWeightLayout;
    /** @default ["sigmoid", "tanh", "tanh"] */
    activations?: readonly MLRecurrentNetworkActivation[];
}

interface MLLstmCellOptions extends MLOperatorOptions {
    bias?: MLOperand;
    recurrentBias?: MLOperand;
    peepholeWeight?: MLOperand;
    /** @default "iofg" */
    layout?: MLLstmWeightLayout;
    /** @default ["sigmoid", "tanh", "tanh"] */
    activations?: readonly MLRecurrentNetworkActivation[];
}

type MLPaddingMode = "constant" | "edge" | "reflection";

interface MLPadOptions extends MLOperatorOptions {
    /** @default "constant" */
    mode?: MLPaddingMode;
    /** The fill value of `"constant"` mode. @default 0 */
    value?: MLNumber;
}

type MLRoundingType = "floor" | "ceil";

interface MLPool2dOptions extends MLOperatorOptions {
    /** [height, width] @default the input's spatial size (global pooling) */
    windowDimensions?: readonly number[];
    /** @default [0, 0, 0, 0] */
    padding?: readonly number[];
    /** @default [1, 1] */
    strides?: readonly number[];
    /** @default [1, 1] */
    dilations?: readonly number[];
    /** @default "nchw" */
    layout?: MLInputOperandLayout;
    /** @default "floor" */
    outputShapeRounding?: MLRoundingType;
    /** [height, width]; when given, `outputShapeRounding` is ignored. */
    outputSizes?: readonly number[];
    /** @deprecated Compute `padding` instead. */
    autoPad?: MLAutoPad;
}

interface MLReduceOptions extends MLOperatorOptions {
    /** @default every axis */
    axes?: readonly number[];
    /** @default false */
    keepDimensions?: boolean;
}

type MLInterpolationMode = "nearest-neighbor" | "linear";

interface MLResample2dOptions extends MLOperatorOptions {
    /** @default "nearest-neighbor" */
    mode?: MLInterpolationMode;
    /** @default [1.0, 1.0] */
    scales?: readonly number[];
    /** [height, width]; when given, `scales` is ignored. */
    sizes?: readonly number[];
    /** @default [2, 3] */
    axes?: readonly number[];
}

interface MLReverseOptions extends MLOperatorOptions {
    /** @default every axis */
    axes?: readonly number[];
}

interface MLScatterOptions extends MLOperatorOptions {
    /** @default 0 */
    axis?: number;
}

interface MLSliceOptions extends MLOperatorOptions {
    /** @default all ones */
    strides?: readonly number[];
}

interface MLSplitOptions extends MLOperatorOptions {
    /** @default 0 */
    axis?: number;
}

interface MLTransposeOptions extends MLOperatorOptions {
    /** @default the axes reversed */
    permutation?: readonly number[];
}

interface MLTriangularOptions extends MLOperatorOptions {
    /** @default true */
    upper?: boolean;
    /** @default 0 */
    diagonal?: number;
}

// ---------------------------------------------------------------------------------------------
// The graph builder

interface MLGraphBuilder {
    /** A graph input, bound by name at dispatch. */
    input(name: string, descriptor: MLOperandDescriptor): MLOperand;
    /** @deprecated Older drafts named the shape `dimensions`; use `shape`. */
    input(name: string, descriptor: MLLegacyOperandDescriptor): MLOperand;
    /**
     * A constant from a buffer, copied now. float16 data may be a `Float16Array` or a
     * `Uint16Array` of bit patterns.
     */
    constant(descriptor: MLStaticOperandDescriptor, buffer: AllowSharedBufferSource): MLOperand;
    /** @deprecated Older drafts named the shape `dimensions`; use `shape`. */
    constant(descriptor: MLLegacyOperandDescriptor, buffer: AllowSharedBufferSource): MLOperand;
    /** A scalar constant of a data type. */
    constant(dataType: MLOperandDataType, value: MLNumber): MLOperand;
    /** A constant from a tensor made by `MLContext.createConstantTensor`. */
    constant(tensor: MLTensor): MLOperand;
    /** Compiles the graph that computes the named outputs. */
    build(outputs: MLNamedOperands): Promise<MLGraph>;

    /** Index of the smallest value along an axis. */
    argMin(input: MLOperand, axis: number, options?: MLArgMinMaxOptions): MLOperand;
    /** Index of the largest value along an axis. */
    argMax(input: MLOperand, axis: number, options?: MLArgMinMaxOptions): MLOperand;
    /** Batch normalization with given mean and variance. */
    batchNormalization(
        input: MLOperand,
        mean: MLOperand,
        variance: MLOperand,
        options?: MLBatchNormalizationOptions,
    ): MLOperand;
    /** Element-wise conversion to another data type. */
    cast(input: MLOperand, dataType: MLOperandDataType, options?: MLOperatorOptions): MLOperand;
    /** Element-wise clamp to [minValue, maxValue]. */
    clamp(input: MLOperand, options?: MLClampOptions): MLOperand;
    /** Concatenation along an axis. */
    concat(inputs: readonly MLOperand[], axis: number, options?: MLOperatorOptions): MLOperand;
    /** 2-D convolution. */
    conv2d(input: MLOperand, filter: MLOperand, options?: MLConv2dOptions): MLOperand;
    /** 2-D transposed convolution. */
    convTranspose2d(input: MLOperand, filter: MLOperand, options?: MLConvTranspose2dOptions): MLOperand;
    /** Running sum along an axis. */
    cumulativeSum(input: MLOperand, axis: number, options?: MLCumulativeSumOptions): MLOperand;

    /** a + b, broadcast. */
    add(a: MLOperand, b: MLOperand, options?: MLOperatorOptions): MLOperand;
    /** a - b, broadcast. */
    sub(a: MLOperand, b: MLOperand, options?: MLOperatorOptions): MLOperand;
    /** a * b, broadcast. */
    mul(a: MLOperand, b: MLOperand, options?: MLOperatorOptions): MLOperand;
    /** a / b, broadcast. */
    div(a: MLOperand, b: MLOperand, options?: MLOperatorOptions): MLOperand;
    /** Element-wise maximum, broadcast. */
    max(a: MLOperand, b: MLOperand, options?: MLOperatorOptions): MLOperand;
    /** Element-wise minimum, broadcast. */
    min(a: MLOperand, b: MLOperand, options?: MLOperatorOptions): MLOperand;
    /** a to the power b, broadcast. */
    pow(a: MLOperand, b: MLOperand, options?: MLOperatorOptions): MLOperand;

    /** a == b as uint8 0 or 1, broadcast. */
    equal(a: MLOperand, b: MLOperand, options?: MLOperatorOptions): MLOperand;
    /** a != b as uint8 0 or 1, broadcast. */
    notEqual(a: MLOperand, b: MLOperand, options?: MLOperatorOptions): MLOperand;
    /** a > b as uint8 0 or 1, broadcast. */
    greater(a: MLOperand, b: MLOperand, options?: MLOperatorOptions): MLOperand;
    /** a >= b as uint8 0 or 1, broadcast. */
    greaterOrEqual(a: MLOperand, b: MLOperand, options?: MLOperatorOptions): MLOperand;
    /** a < b as uint8 0 or 1, broadcast. */
    lesser(a: MLOperand, b: MLOperand, options?: MLOperatorOptions): MLOperand;
    /** a <= b as uint8 0 or 1, broadcast. */
    lesserOrEqual(a: MLOperand, b: MLOperand, options?: MLOperatorOptions): MLOperand;
    /** Logical not of a uint8 operand. */
    logicalNot(a: MLOperand, options?: MLOperatorOptions): MLOperand;
    /** Logical and of uint8 operands, broadcast. */
    logicalAnd(a: MLOperand, b: MLOperand, options?: MLOperatorOptions): MLOperand;
    /** Logical or of uint8 operands, broadcast. */
    logicalOr(a: MLOperand, b: MLOperand, options?: MLOperatorOptions): MLOperand;
    /** Logical exclusive or of uint8 operands, broadcast. */
    logicalXor(a: MLOperand, b: MLOperand, options?: MLOperatorOptions): MLOperand;
    /** Whether each element is NaN, as uint8. */
    isNaN(a: MLOperand, options?: MLOperatorOptions): MLOperand;
    /** Whether each element is infinite, as uint8. */
    isInfinite(a: MLOperand, options?: MLOperatorOptions): MLOperand;

    abs(input: MLOperand, options?: MLOperatorOptions): MLOperand;
    ceil(input: MLOperand, options?: MLOperatorOptions): MLOperand;
    cos(input: MLOperand, options?: MLOperatorOptions): MLOperand;
    erf(input: MLOperand, options?: MLOperatorOptions): MLOperand;
    exp(input: MLOperand, options?: MLOperatorOptions): MLOperand;
    floor(input: MLOperand, options?: MLOperatorOptions): MLOperand;
    identity(input: MLOperand, options?: MLOperatorOptions): MLOperand;
    /** Natural logarithm. */
    log(input: MLOperand, options?: MLOperatorOptions): MLOperand;
    neg(input: MLOperand, options?: MLOperatorOptions): MLOperand;
    reciprocal(input: MLOperand, options?: MLOperatorOptions): MLOperand;
    /** Rounds to the nearest integer, ties to even. */
    roundEven(input: MLOperand, options?: MLOperatorOptions): MLOperand;
    sin(input: MLOperand, options?: MLOperatorOptions): MLOperand;
    sign(input: MLOperand, options?: MLOperatorOptions): MLOperand;
    sqrt(input: MLOperand, options?: MLOperatorOptions): MLOperand;
    tan(input: MLOperand, options?: MLOperatorOptions): MLOperand;

    /** (input - zeroPoint) * scale, blockwise where scale is smaller than input. */
    dequantizeLinear(input: MLOperand, scale: MLOperand, zeroPoint: MLOperand, options?: MLOperatorOptions): MLOperand;
    /** clamp(round(input / scale) + zeroPoint), blockwise where scale is smaller than input. */
    quantizeLinear(input: MLOperand, scale: MLOperand, zeroPoint: MLOperand, options?: MLOperatorOptions): MLOperand;
    elu(input: MLOperand, options?: MLEluOptions): MLOperand;
    /** Broadcasts to a new shape. */
    /** `newShape` may name a dynamic dimension the graph's inputs declare (extension). */
    expand(input: MLOperand, newShape: readonly MLDimension[], options?: MLOperatorOptions): MLOperand;
    gather(input: MLOperand, indices: MLOperand, options?: MLGatherOptions): MLOperand;
    gatherElements(input: MLOperand, indices: MLOperand, options?: MLGatherOptions): MLOperand;
    gatherND(input: MLOperand, indices: MLOperand, options?: MLOperatorOptions): MLOperand;
    gelu(input: MLOperand, options?: MLOperatorOptions): MLOperand;
    /** alpha * A * B + beta * C on 2-D operands. */
    gemm(a: MLOperand, b: MLOperand, options?: MLGemmOptions): MLOperand;
    /**
     * A gated recurrent unit over `steps` steps: [the last hidden state, and with
     * `returnSequence` the hidden state of every step].
     */
    gru(
        input: MLOperand,
        weight: MLOperand,
        recurrentWeight: MLOperand,
        steps: number,
        hiddenSize: number,
        options?: MLGruOptions,
    ): MLOperand[];
    /** One step of a gated recurrent unit: the new hidden state. */
    gruCell(
        input: MLOperand,
        weight: MLOperand,
        recurrentWeight: MLOperand,
        hiddenState: MLOperand,
        hiddenSize: number,
        options?: MLGruCellOptions,
    ): MLOperand;
    hardSigmoid(input: MLOperand, options?: MLHardSigmoidOptions): MLOperand;
    hardSwish(input: MLOperand, options?: MLOperatorOptions): MLOperand;
    instanceNormalization(input: MLOperand, options?: MLInstanceNormalizationOptions): MLOperand;
    layerNormalization(input: MLOperand, options?: MLLayerNormalizationOptions): MLOperand;
    leakyRelu(input: MLOperand, options?: MLLeakyReluOptions): MLOperand;
    /** alpha * input + beta. */
    linear(input: MLOperand, options?: MLLinearOptions): MLOperand;
    /**
     * A long short-term memory network over `steps` steps: [the last hidden state, the last
     * cell state, and with `returnSequence` the hidden state of every step].
     */
    lstm(
        input: MLOperand,
        weight: MLOperand,
        recurrentWeight: MLOperand,
        steps: number,
        hiddenSize: number,
        options?: MLLstmOptions,
    ): MLOperand[];
    /** One step of a long short-term memory cell: [the new hidden state, the new cell state]. */
    lstmCell(
        input: MLOperand,
        weight: MLOperand,
        recurrentWeight: MLOperand,
        hiddenState: MLOperand,
        cellState: MLOperand,
        hiddenSize: number,
        options?: MLLstmCellOptions,
    ): MLOperand[];
    /** Matrix product, batched over leading dimensions. */
    matmul(a: MLOperand, b: MLOperand, options?: MLOperatorOptions): MLOperand;
    pad(
        input: MLOperand,
        beginningPadding: readonly number[],
        endingPadding: readonly number[],
        options?: MLPadOptions,
    ): MLOperand;
    averagePool2d(input: MLOperand, options?: MLPool2dOptions): MLOperand;
    l2Pool2d(input: MLOperand, options?: MLPool2dOptions): MLOperand;
    maxPool2d(input: MLOperand, options?: MLPool2dOptions): MLOperand;
    /** Leaky ReLU with a slope operand, broadcast. */
    prelu(input: MLOperand, slope: MLOperand, options?: MLOperatorOptions): MLOperand;
    reduceL1(input: MLOperand, options?: MLReduceOptions): MLOperand;
    reduceL2(input: MLOperand, options?: MLReduceOptions): MLOperand;
    reduceLogSum(input: MLOperand, options?: MLReduceOptions): MLOperand;
    reduceLogSumExp(input: MLOperand, options?: MLReduceOptions): MLOperand;
    reduceMax(input: MLOperand, options?: MLReduceOptions): MLOperand;
    reduceMean(input: MLOperand, options?: MLReduceOptions): MLOperand;
    reduceMin(input: MLOperand, options?: MLReduceOptions): MLOperand;
    reduceProduct(input: MLOperand, options?: MLReduceOptions): MLOperand;
    reduceSum(input: MLOperand, options?: MLReduceOptions): MLOperand;
    reduceSumSquare(input: MLOperand, options?: MLReduceOptions): MLOperand;
    relu(input: MLOperand, options?: MLOperatorOptions): MLOperand;
    /** Resizes two spatial axes. */
    resample2d(input: MLOperand, options?: MLResample2dOptions): MLOperand;
    /** `newShape` may name the input's dynamic dimensions (extension). */
    reshape(input: MLOperand, newShape: readonly MLDimension[], options?: MLOperatorOptions): MLOperand;
    reverse(input: MLOperand, options?: MLReverseOptions): MLOperand;
    scatterElements(input: MLOperand, indices: MLOperand, updates: MLOperand, options?: MLScatterOptions): MLOperand;
    scatterND(input: MLOperand, indices: MLOperand, updates: MLOperand, options?: MLOperatorOptions): MLOperand;
    sigmoid(input: MLOperand, options?: MLOperatorOptions): MLOperand;
    /**
     * A `sizes` entry may be a dynamic dimension the graph's inputs declare (extension): the
     * slice then takes that many leading elements of a static axis that holds its `maxSize`
     * (a key/value cache's first `total` rows).
     */
    slice(
        input: MLOperand,
        starts: readonly number[],
        sizes: readonly MLDimension[],
        options?: MLSliceOptions,
    ): MLOperand;
    softmax(input: MLOperand, axis: number, options?: MLOperatorOptions): MLOperand;
    softplus(input: MLOperand, options?: MLOperatorOptions): MLOperand;
    softsign(input: MLOperand, options?: MLOperatorOptions): MLOperand;
    /** Splits along an axis into `splits` equal parts, or into parts of the given sizes. */
    split(input: MLOperand, splits: number | readonly number[], options?: MLSplitOptions): MLOperand[];
    tanh(input: MLOperand, options?: MLOperatorOptions): MLOperand;
    /** Repeats the input along each axis. */
    tile(input: MLOperand, repetitions: readonly number[], options?: MLOperatorOptions): MLOperand;
    transpose(input: MLOperand, options?: MLTransposeOptions): MLOperand;
    /** Keeps the upper or lower triangle of the last two dimensions, zeroing the rest. */
    triangular(input: MLOperand, options?: MLTriangularOptions): MLOperand;
    /** Element-wise choice: trueValue where condition is non-zero, else falseValue. */
    where(condition: MLOperand, trueValue: MLOperand, falseValue: MLOperand, options?: MLOperatorOptions): MLOperand;
}

declare var MLGraphBuilder: {
    prototype: MLGraphBuilder;
    new (context: MLContext): MLGraphBuilder;
};
