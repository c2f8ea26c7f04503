// TypeScript declarations of the W3C Web Neural Network API (WebNN), following
// webidl/webnn.idl: every interface, attribute, method (with its overloads), dictionary and
// enum, and the global interface objects a native implementation exposes.
//
// This is a global declaration file, as lib.dom.d.ts is: `navigator.ml`, `MLGraphBuilder` and
// the other names are globals, whether a browser provides them or the polyfill installs them.
// It compiles with `lib: ["ES2022", "DOM"]`; `GPUDevice` comes from `@webgpu/types` (or from
// lib.dom where TypeScript ships WebGPU).
//
// Beyond the IDL, it declares what real clients pass and the polyfill accepts, each marked
// `@extension` (not in the specification) or `@deprecated` (in an older draft, kept so that
// existing code compiles):
// - `MLContextOptions.deviceType`, the device hint Chromium had;
// - the pre-2024 dictionary members `dimensions` (for `shape`), `usage` and `autoPad`;
// - the data types `int4` and `uint4` (packed quantized weights);
// - flexible inputs: an `MLOperandDescriptor.shape` entry may be an `MLDynamicDimension`, as
//   may an entry of `reshape`/`expand` `newShape` and `slice` `sizes`;
// - float16 data in a `Uint16Array` (bit patterns) where the runtime has no `Float16Array`.
//
// WebIDL to TypeScript: `unsigned long` and the other numeric types are `number` (a WebIDL
// number conversion throws on a bigint), `MLNumber` is `number | bigint`, `sequence<T>`
// arguments and members are `readonly T[]` (a caller's readonly array is accepted),
// `FrozenArray<T>` attributes are `readonly T[]`, `record<USVString, T>` is
// `Record<string, T>`, `undefined` results are `void`, enums are string-literal unions.

// ---------------------------------------------------------------------------------------------
// Navigator

interface NavigatorML {
    /** The WebNN entry point (secure contexts only). */
    readonly ml: ML;
}

interface Navigator extends NavigatorML {}

interface WorkerNavigator extends NavigatorML {}

/**
 * A WebGPU device, declared empty so that this file compiles without WebGPU types; the
 * declaration from `@webgpu/types` or lib.dom merges into it.
 */
interface GPUDevice {}
/** A WebGPU buffer, declared empty for the same reason. */
interface GPUBuffer {}

// ---------------------------------------------------------------------------------------------
// ML and contexts

type MLPowerPreference = "default" | "high-performance" | "low-power";

/**
 * @extension The device kinds of Chromium's former `MLContextOptions.deviceType`.
 */
type MLDeviceType = "cpu" | "gpu" | "npu";

interface MLContextOptions {
    /** @default "default" */
    powerPreference?: MLPowerPreference;
    /**
     * Whether the context should run on the fastest hardware available (a GPU or NPU);
     * `false` asks for the CPU.
     * @default true
     */
    accelerated?: boolean;
    /**
     * A device hint as Chromium had it: `"cpu"` asks for the CPU, `"gpu"` and `"npu"` for an
     * accelerator. Removed from the specification in favour of `accelerated`. A hint only:
     * where the only WebGPU adapter is a software one, `"gpu"` runs on the CPU.
     * @extension
     * @deprecated Use `accelerated` and `powerPreference`.
     */
    deviceType?: MLDeviceType;
    /**
     * The polyfill's backend named outright (what `MLContext.backend` reports): `"webgpu"`
     * runs on WebGPU even on a software adapter, for tests and demos of the WGSL path.
     * @extension
     */
    backend?: "cpu" | "reference" | "webgpu";
}

interface ML {
    /** Creates a context on the device that the options describe. */
    createContext(options?: MLContextOptions): Promise<MLContext>;
    /** Creates a context that runs on the given WebGPU device. */
    createContext(gpuDevice: GPUDevice): Promise<MLContext>;
}

declare var ML: {
    prototype: ML;
    /** Not constructible: use `navigator.ml`. */
    new (illegal: never): never;
};

type MLNamedTensors = Record<string, MLTensor>;

/** Why a context was lost (the value `MLContext.lost` resolves to). */
interface MLContextLostInfo {
    message: string;
}

/**
 * @extension The backend a polyfill context runs on.
 */
type MLContextBackend = "webgpu" | "cpu" | "reference";

interface MLContext {
    /**
     * Runs a graph on input tensors and writes its results into output tensors, queued after
     * earlier work on this context.
     */
    dispatch(graph: MLGraph, inputs: MLNamedTensors, outputs: MLNamedTensors): void;
    createTensor(descriptor: MLTensorDescriptor): Promise<MLTensor>;
    /** @deprecated Older drafts named the shape `dimensions`; use `shape`. */
    createTensor(descriptor: MLLegacyTensorDescriptor): Promise<MLTensor>;
    /**
     * Creates a tensor that holds constant data, for `MLGraphBuilder.constant(tensor)`.
     * float16 data may be a `Float16Array` or a `Uint16Array` of bit patterns.
     */
    createConstantTensor(descriptor: MLStaticOperandDescriptor, inputData: AllowSharedBufferSource): Promise<MLTensor>;
    /** Reads a readable tensor's contents into a new buffer. */
    /**
     * An exportable tensor for `device` (Chromium's form of `exportableToGPU`); the context
     * must run on that device (created from it).
     */
    createExportableTensor(descriptor: MLOperandDescriptor, device: GPUDevice): Promise<MLTensor>;
    /**
     * Hands an exportable tensor to WebGPU as the GPUBuffer holding it (no copy); the page
     * gives it back by calling the buffer's `destroy()`, and until then WebNN calls that use
     * the tensor throw `InvalidStateError`.
     */
    exportToGPU(tensor: MLTensor): Promise<GPUBuffer>;
    readTensor(tensor: MLTensor): Promise<ArrayBuffer>;
    /** Reads a readable tensor's contents into `outputData`, which must have its byte length. */
    readTensor(tensor: MLTensor, outputData: AllowSharedBufferSource): Promise<void>;
    /**
     * Replaces a writable tensor's contents. float16 data may be a `Float16Array` or a
     * `Uint16Array` of bit patterns.
     */
    writeTensor(tensor: MLTensor, inputData: AllowSharedBufferSource): void;
    /** The data types and ranks this context supports, for the context and per operation. */
    opSupportLimits(): MLOpSupportLimits;
    /** Releases the context and everything created from it; `lost` then resolves. */
    destroy(): void;
    /** Whether the context runs on an accelerator (GPU or NPU) rather than on the CPU. */
    readonly accelerated: boolean;
    /** Resolves when the context is lost or destroyed. */
    readonly lost: Promise<MLContextLostInfo>;
    /**
     * The backend this context runs on. Only the polyfill has it; a native implementation's
     * contexts do not.
     * @extension
     */
    readonly backend?: MLContextBackend;
    /**
     * What runs the context's work, for logs: e.g. `"fast cpu (simd128, 1 thread)"` or the
     * WebGPU adapter's name. Only the polyfill has it.
     * @extension
     */
    readonly deviceName?: string;
}

declare var MLContext: {
    prototype: MLContext;
    /** Not constructible: use `navigator.ml.createContext()`. */
    new (illegal: never): never;
};

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

// ---------------------------------------------------------------------------------------------
// Graphs, operands, tensors

interface MLGraph {
    /** Releases the compiled graph; dispatching it afterwards throws. */
    destroy(): void;
}

declare var MLGraph: {
    prototype: MLGraph;
    /** Not constructible: use `MLGraphBuilder.build()`. */
    new (illegal: never): never;
};

/** The data types of the specification. */
type MLSpecOperandDataType =
    | "float32"
    | "float16"
    | "int32"
    | "uint32"
    | "int64"
    | "uint64"
    | "int8"
    | "uint8";

/**
 * @extension 4-bit integers, packed two per byte (element 2i in the low nibble), as Chromium
 * and ONNX Runtime use them for quantized weights.
 */
type MLPackedOperandDataType = "int4" | "uint4";

/**
 * An operand's element type. Data for `float16` is a `Float16Array` where the runtime has
 * one, or (extension) a `Uint16Array` of IEEE 754 binary16 bit patterns; `int64` and `uint64`
 * data are `BigInt64Array` and `BigUint64Array`.
 */
type MLOperandDataType = MLSpecOperandDataType | MLPackedOperandDataType;

/**
 * @extension A flexible (bounded dynamic) dimension of a graph input: its size is given at
 * each dispatch by the bound tensors, up to `maxSize`; dimensions with the same `name` must
 * agree. One compiled graph then serves every size (for example prefill and decode steps).
 */
interface MLDynamicDimension {
    name: string;
    maxSize: number;
}

/** A dimension of an operand descriptor's shape: a size, or (extension) a dynamic dimension. */
type MLDimension = number | MLDynamicDimension;

interface MLOperandDescriptor {
    dataType: MLOperandDataType;
    /** The dimensions; an entry may be an `MLDynamicDimension` (extension) for graph inputs. */
    shape: readonly MLDimension[];
}

/**
 * An operand descriptor whose dimensions are all sizes, as constants and tensors need (only
 * graph inputs may have dynamic dimensions).
 */
interface MLStaticOperandDescriptor extends MLOperandDescriptor {
    shape: readonly number[];
}

/**
 * An operand descriptor as older drafts wrote it, with `dimensions` for `shape`.
 * @deprecated Use `MLOperandDescriptor` with `shape`.
 */
interface MLLegacyOperandDescriptor {
    dataType: MLOperandDataType;
    /** @deprecated Use `shape`. */
    dimensions: readonly number[];
    shape?: undefined;
}

interface MLOperand {
    readonly dataType: MLOperandDataType;
    /**
     * The operand's dimensions. With flexible inputs (extension), a dimension that follows a
     * dynamic input dimension is reported as its `MLDynamicDimension` object.
     */
    readonly shape: readonly number[];
}

declare var MLOperand: {
    prototype: MLOperand;
    /** Not constructible: operands come from `MLGraphBuilder` methods. */
    new (illegal: never): never;
};

interface MLOperatorOptions {
    /** A name for the operation, quoted in error messages. @default "" */
    label?: string;
}

/** A number for a given data type: a `bigint` keeps int64 and uint64 values exact. */
type MLNumber = number | bigint;

interface MLTensorDescriptor extends MLOperandDescriptor {
    /** The dimensions, all sizes: a tensor has no dynamic dimensions. */
    shape: readonly number[];
    /** Whether `readTensor` may read the tensor. @default false */
    readable?: boolean;
    /** Whether `writeTensor` may write the tensor. @default false */
    writable?: boolean;
    /**
     * Whether `MLContext.exportToGPU` may hand the tensor to WebGPU: the context must be
     * created from a GPUDevice, and the tensor's storage is then a buffer of that device.
     * From the MLTensor explainer's WebGPU interop. @default false
     */
    exportableToGPU?: boolean;
    /**
     * Chromium's former usage flags (`MLTensorUsage.WEBGPU_INTEROP` = 1, `READ` = 2,
     * `WRITE` = 4); `READ` and `WRITE` mean `readable` and `writable`.
     * @deprecated Use `readable` and `writable`.
     */
    usage?: number;
}

/**
 * A tensor descriptor as older drafts wrote it, with `dimensions` for `shape`.
 * @deprecated Use `MLTensorDescriptor` with `shape`.
 */
interface MLLegacyTensorDescriptor extends MLLegacyOperandDescriptor {
    readable?: boolean;
    writable?: boolean;
    /** @deprecated Use `readable` and `writable`. */
    usage?: number;
}

interface MLTensor {
    readonly dataType: MLOperandDataType;
    readonly shape: readonly number[];
    readonly readable: boolean;
    readonly writable: boolean;
    /** Whether the tensor was made by `createConstantTensor` (its contents never change). */
    readonly constant: boolean;
    /** Whether `MLContext.exportToGPU` may hand the tensor to WebGPU. */
    readonly exportableToGPU: boolean;
    /** Releases the tensor's memory; using it afterwards throws. */
    destroy(): void;
}

declare var MLTensor: {
    prototype: MLTensor;
    /** Not constructible: use `MLContext.createTensor()`. */
    new (illegal: never): never;
};

type MLNamedOperands = Record<string, MLOperand>;

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
