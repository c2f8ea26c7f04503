// The polyfill package's ES module (`import { install } from "webnn-polyfill-rs"`). Importing
// these types also declares the WebNN globals (navigator.ml, MLGraphBuilder, ...), which the
// classic script `webnn-polyfill-rs/webnn-polyfill.js` installs by itself.

/// <reference path="./webnn.d.ts" />

export interface InstallOptions {
    /**
     * Install over a native WebNN too (for side-by-side testing); by default a browser's own
     * `navigator.ml` is kept and returned.
     * @default false
     */
    force?: boolean;
    /**
     * Where to load the wasm module from (a simd128 build, as `webnn_web_bg.wasm`).
     * @default the .wasm files next to the module (see `build`)
     */
    wasmUrl?: string | URL;
    /**
     * Which wasm build to load: `"threads"` (shared memory, atomics and relaxed SIMD; needs
     * a cross-origin-isolated page), `"relaxed-simd"` (one thread, fused multiply-add),
     * `"simd128"` (every browser with WebAssembly SIMD). A named build that cannot run in
     * the page is a TypeError at the first `createContext()`.
     * @default "auto": the fastest this page can run
     */
    build?: "auto" | "threads" | "relaxed-simd" | "simd128";
    /**
     * Threads for CPU contexts, the calling thread included, in the threads build (Web
     * Workers sharing the wasm memory), which needs a cross-origin-isolated page (COOP
     * `same-origin`, COEP `require-corp`); the other builds use 1.
     * @default one per core, at most 4
     */
    threads?: number;
}

/**
 * Installs `navigator.ml` and the global WebNN interfaces (`ML`, `MLContext`, `MLGraph`,
 * `MLGraphBuilder`, `MLOperand`, `MLTensor`) where the browser has no WebNN, or always with
 * `force`, and resolves to `navigator.ml`. The wasm module loads on the first
 * `createContext()`.
 */
export function install(options?: InstallOptions): Promise<ML>;

// The polyfill's interface objects, the same ones `install()` puts on the global object.
export declare const ML: typeof globalThis.ML;
export declare const MLContext: typeof globalThis.MLContext;
export declare const MLGraph: typeof globalThis.MLGraph;
export declare const MLGraphBuilder: typeof globalThis.MLGraphBuilder;
export declare const MLOperand: typeof globalThis.MLOperand;
export declare const MLTensor: typeof globalThis.MLTensor;

export type ML = globalThis.ML;
export type MLContext = globalThis.MLContext;
export type MLGraph = globalThis.MLGraph;
export type MLGraphBuilder = globalThis.MLGraphBuilder;
export type MLOperand = globalThis.MLOperand;
export type MLTensor = globalThis.MLTensor;

export type MLPowerPreference = globalThis.MLPowerPreference;
export type MLDeviceType = globalThis.MLDeviceType;
export type MLContextOptions = globalThis.MLContextOptions;
export type MLContextLostInfo = globalThis.MLContextLostInfo;
export type MLContextBackend = globalThis.MLContextBackend;
export type MLNamedTensors = globalThis.MLNamedTensors;
export type MLNamedOperands = globalThis.MLNamedOperands;
export type MLInputOperandLayout = globalThis.MLInputOperandLayout;
export type MLOperandDataType = globalThis.MLOperandDataType;
export type MLSpecOperandDataType = globalThis.MLSpecOperandDataType;
export type MLPackedOperandDataType = globalThis.MLPackedOperandDataType;
export type MLDataTypeList = globalThis.MLDataTypeList;
export type MLDynamicDimension = globalThis.MLDynamicDimension;
export type MLDimension = globalThis.MLDimension;
export type MLOperandDescriptor = globalThis.MLOperandDescriptor;
export type MLStaticOperandDescriptor = globalThis.MLStaticOperandDescriptor;
export type MLLegacyOperandDescriptor = globalThis.MLLegacyOperandDescriptor;
export type MLTensorDescriptor = globalThis.MLTensorDescriptor;
export type MLLegacyTensorDescriptor = globalThis.MLLegacyTensorDescriptor;
export type MLNumber = globalThis.MLNumber;
export type MLOperatorOptions = globalThis.MLOperatorOptions;

export type MLOpSupportLimits = globalThis.MLOpSupportLimits;
export type MLRankRange = globalThis.MLRankRange;
export type MLTensorLimits = globalThis.MLTensorLimits;
export type MLBinarySupportLimits = globalThis.MLBinarySupportLimits;
export type MLSingleInputSupportLimits = globalThis.MLSingleInputSupportLimits;
export type MLBatchNormalizationSupportLimits = globalThis.MLBatchNormalizationSupportLimits;
export type MLConcatSupportLimits = globalThis.MLConcatSupportLimits;
export type MLConv2dSupportLimits = globalThis.MLConv2dSupportLimits;
export type MLLogicalNotSupportLimits = globalThis.MLLogicalNotSupportLimits;
export type MLQuantizeDequantizeLinearSupportLimits = globalThis.MLQuantizeDequantizeLinearSupportLimits;
export type MLGatherSupportLimits = globalThis.MLGatherSupportLimits;
export type MLGemmSupportLimits = globalThis.MLGemmSupportLimits;
export type MLGruSupportLimits = globalThis.MLGruSupportLimits;
export type MLGruCellSupportLimits = globalThis.MLGruCellSupportLimits;
export type MLNormalizationSupportLimits = globalThis.MLNormalizationSupportLimits;
export type MLLstmSupportLimits = globalThis.MLLstmSupportLimits;
export type MLLstmCellSupportLimits = globalThis.MLLstmCellSupportLimits;
export type MLPreluSupportLimits = globalThis.MLPreluSupportLimits;
export type MLScatterSupportLimits = globalThis.MLScatterSupportLimits;
export type MLSplitSupportLimits = globalThis.MLSplitSupportLimits;
export type MLWhereSupportLimits = globalThis.MLWhereSupportLimits;

export type MLArgMinMaxOptions = globalThis.MLArgMinMaxOptions;
export type MLBatchNormalizationOptions = globalThis.MLBatchNormalizationOptions;
export type MLClampOptions = globalThis.MLClampOptions;
export type MLAutoPad = globalThis.MLAutoPad;
export type MLConv2dFilterOperandLayout = globalThis.MLConv2dFilterOperandLayout;
export type MLConv2dOptions = globalThis.MLConv2dOptions;
export type MLConvTranspose2dFilterOperandLayout = globalThis.MLConvTranspose2dFilterOperandLayout;
export type MLConvTranspose2dOptions = globalThis.MLConvTranspose2dOptions;
export type MLCumulativeSumOptions = globalThis.MLCumulativeSumOptions;
export type MLEluOptions = globalThis.MLEluOptions;
export type MLGatherOptions = globalThis.MLGatherOptions;
export type MLGemmOptions = globalThis.MLGemmOptions;
export type MLGruWeightLayout = globalThis.MLGruWeightLayout;
export type MLRecurrentNetworkActivation = globalThis.MLRecurrentNetworkActivation;
export type MLRecurrentNetworkDirection = globalThis.MLRecurrentNetworkDirection;
export type MLGruOptions = globalThis.MLGruOptions;
export type MLGruCellOptions = globalThis.MLGruCellOptions;
export type MLHardSigmoidOptions = globalThis.MLHardSigmoidOptions;
export type MLInstanceNormalizationOptions = globalThis.MLInstanceNormalizationOptions;
export type MLLayerNormalizationOptions = globalThis.MLLayerNormalizationOptions;
export type MLLeakyReluOptions = globalThis.MLLeakyReluOptions;
export type MLLinearOptions = globalThis.MLLinearOptions;
export type MLLstmWeightLayout = globalThis.MLLstmWeightLayout;
export type MLLstmOptions = globalThis.MLLstmOptions;
export type MLLstmCellOptions = globalThis.MLLstmCellOptions;
export type MLPaddingMode = globalThis.MLPaddingMode;
export type MLPadOptions = globalThis.MLPadOptions;
export type MLRoundingType = globalThis.MLRoundingType;
export type MLPool2dOptions = globalThis.MLPool2dOptions;
export type MLReduceOptions = globalThis.MLReduceOptions;
export type MLInterpolationMode = globalThis.MLInterpolationMode;
export type MLResample2dOptions = globalThis.MLResample2dOptions;
export type MLReverseOptions = globalThis.MLReverseOptions;
export type MLScatterOptions = globalThis.MLScatterOptions;
export type MLSliceOptions = globalThis.MLSliceOptions;
export type MLSplitOptions = globalThis.MLSplitOptions;
export type MLTransposeOptions = globalThis.MLTransposeOptions;
export type MLTriangularOptions = globalThis.MLTriangularOptions;
