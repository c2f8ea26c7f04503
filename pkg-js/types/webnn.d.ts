/// <reference path="./webnn-limits.d.ts" />
/// <reference path="./webnn-builder.d.ts" />

// TypeScript declarations of the W3C Web Neural Network API (WebNN), following
// webidl/webnn.idl: every interface, attribute, method (with its overloads), dictionary and
// enum, and the global interface objects a native implementation exposes.
//
// Two more files hold the rest: webnn-limits.d.ts (what `opSupportLimits()` returns) and
// webnn-builder.d.ts (the operations' options and `MLGraphBuilder`); this one references
// both, so naming it brings in all three.
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
