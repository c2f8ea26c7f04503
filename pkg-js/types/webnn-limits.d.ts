// Part of the WebNN declarations (webnn.d.ts references this file): the support limits.
// Global declarations, as in webnn.d.ts.

// ---------------------------------------------------------------------------------------------
// Support limits. These dictionaries are only ever returned by `opSupportLimits()`, which
// fills every member (for every operation and operand), so their members are declared present.

type MLInputOperandLayout = "nchw" | "nhwc";

interface MLRankRange {
    min: number;
    max: number;
}

type MLDataTypeList = MLOperandDataType[];

interface MLTensorLimits {
    dataTypes: MLDataTypeList;
    rankRange: MLRankRange;
}

interface MLBinarySupportLimits {
    a: MLTensorLimits;
    b: MLTensorLimits;
    output: MLTensorLimits;
}

interface MLSingleInputSupportLimits {
    input: MLTensorLimits;
    output: MLTensorLimits;
}

interface MLBatchNormalizationSupportLimits {
    input: MLTensorLimits;
    mean: MLTensorLimits;
    variance: MLTensorLimits;
    scale: MLTensorLimits;
    bias: MLTensorLimits;
    output: MLTensorLimits;
}

interface MLConcatSupportLimits {
    inputs: MLTensorLimits;
    output: MLTensorLimits;
}

interface MLConv2dSupportLimits {
    input: MLTensorLimits;
    filter: MLTensorLimits;
    bias: MLTensorLimits;
    output: MLTensorLimits;
}

interface MLLogicalNotSupportLimits {
    a: MLTensorLimits;
    output: MLTensorLimits;
}

interface MLQuantizeDequantizeLinearSupportLimits {
    input: MLTensorLimits;
    scale: MLTensorLimits;
    zeroPoint: MLTensorLimits;
    output: MLTensorLimits;
}

interface MLGatherSupportLimits {
    input: MLTensorLimits;
    indices: MLTensorLimits;
    output: MLTensorLimits;
}

interface MLGemmSupportLimits {
    a: MLTensorLimits;
    b: MLTensorLimits;
    c: MLTensorLimits;
    output: MLTensorLimits;
}

interface MLGruSupportLimits {
    input: MLTensorLimits;
    weight: MLTensorLimits;
    recurrentWeight: MLTensorLimits;
    bias: MLTensorLimits;
    recurrentBias: MLTensorLimits;
    initialHiddenState: MLTensorLimits;
    output0: MLTensorLimits;
    output1: MLTensorLimits;
}

interface MLGruCellSupportLimits {
    input: MLTensorLimits;
    weight: MLTensorLimits;
    recurrentWeight: MLTensorLimits;
    hiddenState: MLTensorLimits;
    bias: MLTensorLimits;
    recurrentBias: MLTensorLimits;
    output: MLTensorLimits;
}

interface MLNormalizationSupportLimits {
    input: MLTensorLimits;
    scale: MLTensorLimits;
    bias: MLTensorLimits;
    output: MLTensorLimits;
}

interface MLLstmSupportLimits {
    input: MLTensorLimits;
    weight: MLTensorLimits;
    recurrentWeight: MLTensorLimits;
    bias: MLTensorLimits;
    recurrentBias: MLTensorLimits;
    peepholeWeight: MLTensorLimits;
    initialHiddenState: MLTensorLimits;
    initialCellState: MLTensorLimits;
    output0: MLTensorLimits;
    output1: MLTensorLimits;
    output2: MLTensorLimits;
}

interface MLLstmCellSupportLimits {
    input: MLTensorLimits;
    weight: MLTensorLimits;
    recurrentWeight: MLTensorLimits;
    hiddenState: MLTensorLimits;
    cellState: MLTensorLimits;
    bias: MLTensorLimits;
    recurrentBias: MLTensorLimits;
    peepholeWeight: MLTensorLimits;
    output0: MLTensorLimits;
    output1: MLTensorLimits;
}

interface MLPreluSupportLimits {
    input: MLTensorLimits;
    slope: MLTensorLimits;
    output: MLTensorLimits;
}

interface MLScatterSupportLimits {
    input: MLTensorLimits;
    indices: MLTensorLimits;
    updates: MLTensorLimits;
    output: MLTensorLimits;
}

interface MLSplitSupportLimits {
    input: MLTensorLimits;
    outputs: MLTensorLimits;
}

interface MLWhereSupportLimits {
    condition: MLTensorLimits;
    trueValue: MLTensorLimits;
    falseValue: MLTensorLimits;
    output: MLTensorLimits;
}

interface MLOpSupportLimits {
    /** The input layout (for conv2d, pooling, ...) the context runs fastest with. */
    preferredInputLayout: MLInputOperandLayout;
    /** The largest tensor, in bytes, the context can hold. */
    maxTensorByteLength: number;
    /**
     * Whether graphs with bounded dynamic input dimensions ({@link MLDynamicDimension}) build
     * and run on this context.
     * @extension webnn-rs flexible inputs; not in the WebNN specification.
     */
    flexibleInputs?: boolean;
    /** Limits on graph inputs. */
    input: MLTensorLimits;
    /** Limits on graph constants. */
    constant: MLTensorLimits;
    /** Limits on graph outputs. */
    output: MLTensorLimits;

    argMin: MLSingleInputSupportLimits;
    argMax: MLSingleInputSupportLimits;
    batchNormalization: MLBatchNormalizationSupportLimits;
    cast: MLSingleInputSupportLimits;
    clamp: MLSingleInputSupportLimits;
    concat: MLConcatSupportLimits;
    conv2d: MLConv2dSupportLimits;
    convTranspose2d: MLConv2dSupportLimits;
    cumulativeSum: MLSingleInputSupportLimits;
    add: MLBinarySupportLimits;
    sub: MLBinarySupportLimits;
    mul: MLBinarySupportLimits;
    div: MLBinarySupportLimits;
    max: MLBinarySupportLimits;
    min: MLBinarySupportLimits;
    pow: MLBinarySupportLimits;
    equal: MLBinarySupportLimits;
    notEqual: MLBinarySupportLimits;
    greater: MLBinarySupportLimits;
    greaterOrEqual: MLBinarySupportLimits;
    lesser: MLBinarySupportLimits;
    lesserOrEqual: MLBinarySupportLimits;
    logicalNot: MLLogicalNotSupportLimits;
    logicalAnd: MLBinarySupportLimits;
    logicalOr: MLBinarySupportLimits;
    logicalXor: MLBinarySupportLimits;
    isNaN: MLLogicalNotSupportLimits;
    isInfinite: MLLogicalNotSupportLimits;
    abs: MLSingleInputSupportLimits;
    ceil: MLSingleInputSupportLimits;
    cos: MLSingleInputSupportLimits;
    erf: MLSingleInputSupportLimits;
    exp: MLSingleInputSupportLimits;
    floor: MLSingleInputSupportLimits;
    identity: MLSingleInputSupportLimits;
    log: MLSingleInputSupportLimits;
    neg: MLSingleInputSupportLimits;
    reciprocal: MLSingleInputSupportLimits;
    roundEven: MLSingleInputSupportLimits;
    sin: MLSingleInputSupportLimits;
    sign: MLSingleInputSupportLimits;
    sqrt: MLSingleInputSupportLimits;
    tan: MLSingleInputSupportLimits;
    dequantizeLinear: MLQuantizeDequantizeLinearSupportLimits;
    quantizeLinear: MLQuantizeDequantizeLinearSupportLimits;
    elu: MLSingleInputSupportLimits;
    expand: MLSingleInputSupportLimits;
    gather: MLGatherSupportLimits;
    gatherElements: MLGatherSupportLimits;
    gatherND: MLGatherSupportLimits;
    gelu: MLSingleInputSupportLimits;
    gemm: MLGemmSupportLimits;
    gru: MLGruSupportLimits;
    gruCell: MLGruCellSupportLimits;
    hardSigmoid: MLSingleInputSupportLimits;
    hardSwish: MLSingleInputSupportLimits;
    instanceNormalization: MLNormalizationSupportLimits;
    layerNormalization: MLNormalizationSupportLimits;
    leakyRelu: MLSingleInputSupportLimits;
    linear: MLSingleInputSupportLimits;
    lstm: MLLstmSupportLimits;
    lstmCell: MLLstmCellSupportLimits;
    matmul: MLBinarySupportLimits;
    pad: MLSingleInputSupportLimits;
    averagePool2d: MLSingleInputSupportLimits;
    l2Pool2d: MLSingleInputSupportLimits;
    maxPool2d: MLSingleInputSupportLimits;
    prelu: MLPreluSupportLimits;
    reduceL1: MLSingleInputSupportLimits;
    reduceL2: MLSingleInputSupportLimits;
    reduceLogSum: MLSingleInputSupportLimits;
    reduceLogSumExp: MLSingleInputSupportLimits;
    reduceMax: MLSingleInputSupportLimits;
    reduceMean: MLSingleInputSupportLimits;
    reduceMin: MLSingleInputSupportLimits;
    reduceProduct: MLSingleInputSupportLimits;
    reduceSum: MLSingleInputSupportLimits;
    reduceSumSquare: MLSingleInputSupportLimits;
    relu: MLSingleInputSupportLimits;
    resample2d: MLSingleInputSupportLimits;
    reshape: MLSingleInputSupportLimits;
    reverse: MLSingleInputSupportLimits;
    scatterElements: MLScatterSupportLimits;
    scatterND: MLScatterSupportLimits;
    sigmoid: MLSingleInputSupportLimits;
    slice: MLSingleInputSupportLimits;
    softmax: MLSingleInputSupportLimits;
    softplus: MLSingleInputSupportLimits;
    softsign: MLSingleInputSupportLimits;
    split: MLSplitSupportLimits;
    tanh: MLSingleInputSupportLimits;
    tile: MLSingleInputSupportLimits;
    transpose: MLSingleInputSupportLimits;
    triangular: MLSingleInputSupportLimits;
    where: MLWhereSupportLimits;
}
