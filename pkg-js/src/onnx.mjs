// loadOnnx: an ONNX model as an MLGraph on any WebNN context — this polyfill's or a
// browser's own. The model is read and checked in wasm (crates/webnn-onnx-web: the same
// importer as the Rust and Python APIs, so its errors name the node, op type and opset) and
// comes back as the MLGraphBuilder calls that build it, which this module makes on the page's
// MLGraphBuilder. It imports nothing from the polyfill: a page loads it only if it imports it.
//
//   import { loadOnnx } from 'webnn-polyfill-rs/onnx';
//   const { graph, inputs, outputs } = await loadOnnx(bytes, context, { dims: { batch: 1 } });
//
// `dims` fixes a model's named dimensions ({batch: 1}), or bounds one ({seq: {maxSize: 128}},
// for contexts with flexible inputs); `shapes` gives inputs whose dimensions have no names a
// whole shape ({input: [1, 3, 224, 224]}). `inputs` and `outputs` map the graph's names to
// their {dataType, shape}.

import init, { importOnnx } from './webnn_onnx_web.js';

let ready;
// The wasm lies next to this module (wasm-bindgen's glue finds it from import.meta.url).
const load = () => (ready ??= init());

// The typed array a constant of each data type is passed as (the IDL takes any buffer; a
// view of the matching type is what every implementation accepts).
const VIEWS = {
  float32: Float32Array, float16: Uint16Array, int32: Int32Array, uint32: Uint32Array,
  int64: BigInt64Array, uint64: BigUint64Array, int8: Int8Array, uint8: Uint8Array,
  int4: Uint8Array, uint4: Uint8Array,
};

async function modelBytes(model) {
  if (model instanceof ArrayBuffer) return new Uint8Array(model);
  if (ArrayBuffer.isView(model)) return new Uint8Array(model.buffer, model.byteOffset, model.byteLength);
  if (typeof Response !== 'undefined' && model instanceof Response) return new Uint8Array(await model.arrayBuffer());
  if (typeof model === 'string' || model instanceof URL) {
    const r = await fetch(model);
    if (!r.ok) throw new TypeError(`loadOnnx: fetching ${model} gave HTTP ${r.status}`);
    return new Uint8Array(await r.arrayBuffer());
  }
  throw new TypeError('loadOnnx: the model is not an ArrayBuffer, a typed array, a Response or a URL');
}

// The importer's errors carry the DOMException name the spec would use.
function rethrow(e) {
  if (e?.name && e.name !== 'Error' && e.name !== 'TypeError' && typeof DOMException !== 'undefined') {
    throw new DOMException(e.message, e.name);
  }
  throw e;
}

/**
 * Builds a program of webnn_idl::emit (the graph as MLGraphBuilder calls, its constants in
 * one buffer) with a new MLGraphBuilder on `context`. loadOnnx's second half, exported for
 * other producers of programs (the fuzzer's page).
 */
export async function buildCalls(context, program, blob) {
  const builder = new MLGraphBuilder(context);
  const operands = [];
  // Transport markers (webnn_idl::emit): operands, special numbers, BigInts.
  const value = (v) => {
    if (Array.isArray(v)) return v.map(value);
    if (v === null || typeof v !== 'object') return v;
    if ('$operand' in v) return operands[v.$operand];
    if ('$number' in v) return Number(v.$number);
    if ('$bigint' in v) return BigInt(v.$bigint);
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, value(x)]));
  };
  const descriptor = (d) => ({ dataType: d.dataType, shape: value(d.shape) });
  for (const i of program.inputs) operands[i.operand] = builder.input(i.name, descriptor(i.descriptor));
  for (const c of program.constants) {
    const View = VIEWS[c.descriptor.dataType] ?? Uint8Array;
    // Offsets are 16-byte aligned, so every view lies in place.
    const data = new View(blob.buffer, blob.byteOffset + c.byteOffset, c.byteLength / View.BYTES_PER_ELEMENT);
    operands[c.operand] = builder.constant(descriptor(c.descriptor), data);
  }
  for (const call of program.calls) {
    const made = builder[call.method](...value(call.args));
    const list = Array.isArray(made) ? made : [made];
    call.outputs.forEach((o, k) => (operands[o] = list[k]));
  }
  const named = Object.fromEntries(program.outputs.map((o) => [o.name, operands[o.operand]]));
  return { graph: await builder.build(named), named, descriptor };
}

/** Imports `model` and builds it on `context` with a new MLGraphBuilder. */
export async function loadOnnx(model, context, options = {}) {
  if (typeof MLGraphBuilder === 'undefined') throw new TypeError('loadOnnx: this page has no WebNN (MLGraphBuilder)');
  const bytes = await modelBytes(model);
  await load();
  let imported;
  try {
    imported = importOnnx(bytes, JSON.stringify({ dims: options.dims ?? null, shapes: options.shapes ?? null }));
  } catch (e) {
    rethrow(e);
  }
  const program = JSON.parse(imported.program);
  const { graph, named, descriptor } = await buildCalls(context, program, imported.constants);
  const describe = (op) => ({ dataType: op.dataType, shape: op.shape });
  return {
    graph,
    inputs: Object.fromEntries(program.inputs.map((i) => [i.name, descriptor(i.descriptor)])),
    outputs: Object.fromEntries(Object.entries(named).map(([n, op]) => [n, describe(op)])),
    opset: imported.opset,
  };
}
