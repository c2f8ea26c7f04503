// loadOnnx (`import { loadOnnx } from "webnn-polyfill-rs/onnx"`): an ONNX model built as an
// MLGraph on any WebNN context, this polyfill's or a browser's own.

/// <reference path="./webnn.d.ts" />

export interface LoadOnnxOptions {
    /**
     * The model's named dimensions: a size fixes one (`{ batch: 1 }`), `{ maxSize }` bounds
     * it (a flexible input, on contexts that have them); or the text form
     * `"batch=1,seq<=128"`. Shape arithmetic on a bounded dimension is not folded, so most
     * models want fixed sizes.
     */
    dims?: Record<string, number | { maxSize: number }> | string | null;
    /** Whole shapes for inputs, by name (for inputs whose dimensions have no names). */
    shapes?: Record<string, number[]> | null;
}

export interface OnnxGraph {
    graph: MLGraph;
    /** The graph's inputs by the model's names: what `dispatch` binds. */
    inputs: Record<string, MLOperandDescriptor>;
    /** The graph's outputs by the model's names. */
    outputs: Record<string, MLOperandDescriptor>;
    /** The default domain's opset the model declares. */
    opset: number;
}

/**
 * Imports an ONNX model (bytes, a Response, or a URL to fetch) and builds it with a new
 * MLGraphBuilder on `context`. A model the importer cannot express rejects with an error
 * naming the node, its op type and opset (NotSupportedError, DataError or TypeError, as the
 * spec names them); what the context rejects rejects as the builder threw it.
 */
export function loadOnnx(
    model: ArrayBuffer | ArrayBufferView | Response | string | URL,
    context: MLContext,
    options?: LoadOnnxOptions,
): Promise<OnnxGraph>;

/**
 * Builds a program of builder calls (the JSON `loadOnnx` receives from its wasm: `inputs`,
 * `constants`, `calls`, `outputs`; format in `crates/webnn-idl/src/emit.rs`) with a new
 * MLGraphBuilder on `context`; `constants` is the buffer the program's constants point into.
 */
export function buildCalls(
    context: MLContext,
    program: unknown,
    constants: Uint8Array,
): Promise<{ graph: MLGraph; named: Record<string, MLOperand> }>;
