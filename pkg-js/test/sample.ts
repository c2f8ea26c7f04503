// A program that uses the whole WebNN API the way web pages do. It is only type-checked
// (`tsc --noEmit`), never run: it shows that the declarations accept real code, and the
// `@ts-expect-error` lines show that they reject misuse.

import { install, type InstallOptions } from "webnn-polyfill-rs";
import * as webnn from "webnn-polyfill-rs";
import { loadOnnx, type LoadOnnxOptions } from "webnn-polyfill-rs/onnx";

// --- Feature detection, then the polyfill where the browser has no WebNN --------------------

async function getML(): Promise<ML> {
    if ("ml" in navigator && typeof MLGraphBuilder === "function") return navigator.ml;
    const options: InstallOptions = { wasmUrl: new URL("./webnn_web_bg.wasm", import.meta.url) };
    return install(options);
}

async function forced(): Promise<void> {
    const ml = await install({ force: true, wasmUrl: "/pkg/webnn_web_bg.wasm" });
    const same: ML = navigator.ml;
    console.log(ml === same, webnn.MLGraphBuilder === MLGraphBuilder);
    const b: webnn.MLGraphBuilder = new webnn.MLGraphBuilder(await ml.createContext());
    console.log(b instanceof MLGraphBuilder);
}

// --- Contexts -------------------------------------------------------------------------------

async function contexts(ml: ML): Promise<MLContext[]> {
    const plain = await ml.createContext();
    const empty = await ml.createContext({});
    const fast = await ml.createContext({ powerPreference: "high-performance" });
    const cpu = await ml.createContext({ accelerated: false, powerPreference: "low-power" });
    // Chromium's former device hint (extension, deprecated).
    const hinted = await ml.createContext({ deviceType: "gpu" });
    // The polyfill's backend named outright (extension).
    const named = await ml.createContext({ backend: "webgpu" });
    const contexts = [plain, empty, fast, cpu, hinted, named];

    // A context on the page's own WebGPU device.
    if ("gpu" in navigator) {
        const adapter = await navigator.gpu.requestAdapter({ powerPreference: "high-performance" });
        if (adapter) {
            const device: GPUDevice = await adapter.requestDevice();
            const onDevice = await ml.createContext(device);
            contexts.push(onDevice);
            // WebGPU interop: a tensor handed to the page's WebGPU as a GPUBuffer, no copy.
            const shared = await onDevice.createTensor({ dataType: "float32", shape: [4], writable: true, exportableToGPU: true });
            const also: MLTensor = await onDevice.createExportableTensor({ dataType: "float32", shape: [4] }, device);
            const exportable: boolean = shared.exportableToGPU && also.exportableToGPU;
            const buffer: GPUBuffer = await onDevice.exportToGPU(shared);
            console.log(exportable, buffer.size);
            buffer.destroy(); // gives it back to WebNN
        }
    }

    for (const c of contexts) {
        const accelerated: boolean = c.accelerated;
        // The polyfill says which backend it chose (extension; absent on a native context).
        const backend: "webgpu" | "cpu" | "reference" | undefined = c.backend;
        console.log(accelerated, backend ?? "native");
        c.lost.then((info: MLContextLostInfo) => console.warn(`context lost: ${info.message}`));
    }
    return contexts;
}

// --- Support limits -------------------------------------------------------------------------

function supports(context: MLContext, dataType: MLOperandDataType): boolean {
    const limits: MLOpSupportLimits = context.opSupportLimits();
    const layout: MLInputOperandLayout = limits.preferredInputLayout;
    const maxBytes: number = limits.maxTensorByteLength;
    const conv: MLTensorLimits = limits.conv2d.input;
    const { min, max }: MLRankRange = conv.rankRange;
    const rank4 = min <= 4 && 4 <= max;
    const types: MLDataTypeList = limits.input.dataTypes;
    const lstmOutputs = [limits.lstm.output0, limits.lstm.output1, limits.lstm.output2];
    const ops = ["add", "matmul", "softmax"] as const satisfies readonly (keyof MLOpSupportLimits)[];
    const byName = ops.every((op) => limits[op].output.dataTypes.includes(dataType));
    console.log(layout, maxBytes, lstmOutputs.length, limits.gemm.c.dataTypes, limits.where.condition.rankRange.max);
    return rank4 && types.includes(dataType) && byName && limits.conv2d.filter.dataTypes.includes("float16");
}

// --- Building and running a small image classifier -------------------------------------------

async function classifier(context: MLContext): Promise<void> {
    const builder = new MLGraphBuilder(context);
    const layout = context.opSupportLimits().preferredInputLayout;
    const nhwc = layout === "nhwc";

    const inputShape = nhwc ? [1, 32, 32, 3] : [1, 3, 32, 32];
    const input = builder.input("image", { dataType: "float32", shape: inputShape });

    // The three constant overloads: a buffer, a scalar, a constant tensor.
    const filter = builder.constant(
        { dataType: "float32", shape: [8, 3, 3, 3] }, // oihw or ohwi: 3x3 kernels over 3 channels
        new Float32Array(8 * 3 * 3 * 3).fill(0.01),
    );
    const biasTensor = await context.createConstantTensor(
        { dataType: "float32", shape: [8] },
        new Float32Array(8),
    );
    const bias = builder.constant(biasTensor);
    const six = builder.constant("float32", 6);
    const bigOne = builder.constant("int64", 1n);
    const sharedWeights = builder.constant(
        { dataType: "float32", shape: [8, 10] },
        new Float32Array(new SharedArrayBuffer(8 * 10 * 4)),
    );
    const rawBuffer = builder.constant({ dataType: "uint8", shape: [4] }, new ArrayBuffer(4));

    const conv = builder.conv2d(input, filter, {
        padding: [1, 1, 1, 1],
        strides: [2, 2],
        dilations: [1, 1],
        groups: 1,
        inputLayout: layout,
        filterLayout: nhwc ? "ohwi" : "oihw",
        bias,
        label: "conv0",
    });
    const relu6 = builder.clamp(conv, { minValue: 0, maxValue: 6 });
    const act = builder.min(builder.relu(relu6), builder.expand(six, relu6.shape));
    const pooled = builder.averagePool2d(act, { layout, outputShapeRounding: "floor" });
    const flat = builder.reshape(pooled, [1, 8]);
    const logits = builder.gemm(flat, sharedWeights, { alpha: 1, beta: 0, bTranspose: false });
    const probs = builder.softmax(logits, 1, { label: "probs" });
    const top = builder.argMax(probs, 1, { keepDimensions: true, outputDataType: "int64" });
    const counted = builder.add(builder.cast(top, "int64"), bigOne);
    const padded = builder.pad(probs, [0, 1], [0, 1], { mode: "constant", value: 0 });
    const [left, right] = builder.split(padded, 2, { axis: 1 });
    const parts = builder.split(padded, [4, 8], { axis: 1 });
    const sliced = builder.slice(padded, [0, 1], [1, 10], { strides: [1, 1] });
    const norm = builder.layerNormalization(sliced, { axes: [1], epsilon: 1e-5 });
    const picked = builder.where(builder.greater(norm, builder.constant("float32", 0)), norm, builder.neg(norm));
    const rounded = builder.roundEven(builder.linear(picked, { alpha: 2, beta: 0.5 }));
    const shifted = builder.concat([left!, right!, ...parts], 1);
    const flags = builder.logicalNot(builder.isNaN(rounded));
    console.log(rawBuffer.dataType, shifted.shape, flags.dataType, counted.shape.length);

    const graph = await builder.build({ probs, top: counted, rounded });

    // Tensors: written, dispatched into, read back both ways.
    const imageTensor = await context.createTensor({ dataType: "float32", shape: inputShape, writable: true });
    const probsTensor = await context.createTensor({ dataType: "float32", shape: [1, 10], readable: true });
    const topTensor = await context.createTensor({ dataType: "int64", shape: [1, 1], readable: true });
    const roundedTensor = await context.createTensor({
        dataType: "float32",
        shape: rounded.shape,
        readable: true,
        writable: false,
    });
    const tensorInfo = [imageTensor.dataType, imageTensor.shape, imageTensor.readable, imageTensor.writable];
    console.log(tensorInfo, biasTensor.constant);

    context.writeTensor(imageTensor, new Float32Array(inputShape.reduce((a, b) => a * b, 1)));
    context.writeTensor(imageTensor, new DataView(new ArrayBuffer(3 * 32 * 32 * 4)));
    context.dispatch(graph, { image: imageTensor }, { probs: probsTensor, top: topTensor, rounded: roundedTensor });

    const bytes: ArrayBuffer = await context.readTensor(probsTensor);
    const scores = new Float32Array(bytes);
    const topIndex = new BigInt64Array(1);
    const nothing: void = await context.readTensor(topTensor, topIndex);
    await context.readTensor(roundedTensor, new Float32Array(new SharedArrayBuffer(10 * 4)));
    console.log(scores[0], topIndex[0], nothing);

    // Everything is released explicitly; using a destroyed object throws.
    graph.destroy();
    for (const t of [imageTensor, probsTensor, topTensor, roundedTensor, biasTensor]) t.destroy();
}

// --- Recurrent networks ---------------------------------------------------------------------

function recurrent(builder: MLGraphBuilder): MLOperand[] {
    const steps = 4;
    const batch = 1;
    const inputSize = 3;
    const hiddenSize = 5;
    const x = builder.input("x", { dataType: "float32", shape: [steps, batch, inputSize] });
    const zeros = (shape: number[]) =>
        builder.constant({ dataType: "float32", shape }, new Float32Array(shape.reduce((a, b) => a * b, 1)));

    const [gruLast, gruSequence] = builder.gru(
        x,
        zeros([2, 3 * hiddenSize, inputSize]),
        zeros([2, 3 * hiddenSize, hiddenSize]),
        steps,
        hiddenSize,
        {
            bias: zeros([2, 3 * hiddenSize]),
            recurrentBias: zeros([2, 3 * hiddenSize]),
            initialHiddenState: zeros([2, batch, hiddenSize]),
            resetAfter: false,
            returnSequence: true,
            direction: "both",
            layout: "rzn",
            activations: ["sigmoid", "tanh"],
        },
    );
    const [lstmHidden, lstmCell] = builder.lstm(
        x,
        zeros([1, 4 * hiddenSize, inputSize]),
        zeros([1, 4 * hiddenSize, hiddenSize]),
        steps,
        hiddenSize,
        {
            bias: zeros([1, 4 * hiddenSize]),
            peepholeWeight: zeros([1, 3 * hiddenSize]),
            initialCellState: zeros([1, batch, hiddenSize]),
            direction: "forward",
            layout: "ifgo",
            activations: ["sigmoid", "relu", "tanh"],
        },
    );
    const xt = builder.reshape(builder.slice(x, [0, 0, 0], [1, batch, inputSize]), [batch, inputSize]);
    const h = zeros([batch, hiddenSize]);
    const gruCell = builder.gruCell(xt, zeros([3 * hiddenSize, inputSize]), zeros([3 * hiddenSize, hiddenSize]), h, hiddenSize, {
        layout: "zrn",
    });
    const [h1, c1] = builder.lstmCell(
        xt,
        zeros([4 * hiddenSize, inputSize]),
        zeros([4 * hiddenSize, hiddenSize]),
        h,
        zeros([batch, hiddenSize]),
        hiddenSize,
        { recurrentBias: zeros([4 * hiddenSize]), layout: "iofg" },
    );
    return [gruLast!, gruSequence!, lstmHidden!, lstmCell!, gruCell, h1!, c1!];
}

// --- Every other operation, with its options --------------------------------------------------

function everyOp(b: MLGraphBuilder): MLOperand[] {
    const x = b.input("x", { dataType: "float32", shape: [1, 2, 4, 4] });
    const m = b.input("m", { dataType: "float32", shape: [4, 4] });
    const i = b.input("i", { dataType: "int32", shape: [2] });
    const u8 = b.input("u8", { dataType: "uint8", shape: [4, 4] });
    const q = b.input("q", { dataType: "int8", shape: [4, 4] });
    const c = b.constant("float32", 1.5);
    const f16 = b.constant({ dataType: "float16", shape: [2] }, new Uint16Array([0x3c00, 0x4000]));
    const int4 = b.constant({ dataType: "int4", shape: [4] }, new Uint8Array([0x21, 0x43]));
    const out: MLOperand[] = [
        b.argMin(x, 1),
        b.batchNormalization(x, b.constant("float32", 0), b.constant("float32", 1), { axis: 1, epsilon: 1e-3, scale: c, bias: c }),
        b.convTranspose2d(x, b.input("w", { dataType: "float32", shape: [2, 2, 3, 3] }), {
            outputPadding: [1, 1],
            outputSizes: [9, 9],
            filterLayout: "iohw",
        }),
        b.cumulativeSum(x, 3, { exclusive: true, reversed: false }),
        b.sub(x, c), b.mul(x, c), b.div(x, c), b.max(x, c), b.pow(x, c),
        b.equal(x, c), b.notEqual(x, c), b.greaterOrEqual(x, c), b.lesser(x, c), b.lesserOrEqual(x, c),
        b.logicalAnd(u8, u8), b.logicalOr(u8, u8), b.logicalXor(u8, u8), b.isInfinite(x),
        b.abs(x), b.ceil(x), b.cos(x), b.erf(x), b.exp(x), b.floor(x), b.identity(x), b.log(x),
        b.reciprocal(x), b.sin(x), b.sign(x), b.sqrt(x), b.tan(x), b.tanh(x), b.sigmoid(x),
        b.softplus(x), b.softsign(x), b.gelu(x), b.hardSwish(x),
        b.dequantizeLinear(q, b.constant("float32", 0.1), b.constant("int8", 0)),
        b.quantizeLinear(m, b.constant("float32", 0.1), b.constant("int8", 0)),
        b.elu(x, { alpha: 1 }),
        b.gather(x, i, { axis: 1 }), b.gatherElements(m, b.input("ge", { dataType: "int32", shape: [4, 4] }), { axis: 0 }),
        b.gatherND(m, b.input("gn", { dataType: "uint32", shape: [2, 2] })),
        b.hardSigmoid(x, { alpha: 0.2, beta: 0.5 }),
        b.instanceNormalization(x, { layout: "nchw", epsilon: 1e-5 }),
        b.leakyRelu(x, { alpha: 0.1 }),
        b.matmul(m, m),
        b.l2Pool2d(x, { windowDimensions: [2, 2], strides: [2, 2], padding: [0, 0, 0, 0], dilations: [1, 1] }),
        b.maxPool2d(x, { windowDimensions: [3, 3], outputSizes: [2, 2], outputShapeRounding: "ceil" }),
        b.prelu(x, c),
        b.reduceL1(x), b.reduceL2(x, { axes: [1] }), b.reduceLogSum(x), b.reduceLogSumExp(x),
        b.reduceMax(x), b.reduceMean(x, { axes: [2, 3], keepDimensions: true }), b.reduceMin(x),
        b.reduceProduct(x), b.reduceSum(x), b.reduceSumSquare(x),
        b.resample2d(x, { mode: "linear", scales: [2, 2], axes: [2, 3] }),
        b.resample2d(x, { mode: "nearest-neighbor", sizes: [8, 8] }),
        b.reverse(x, { axes: [3] }),
        b.scatterElements(m, b.input("se", { dataType: "int32", shape: [1, 4] }), b.input("su", { dataType: "float32", shape: [1, 4] }), { axis: 0 }),
        b.scatterND(m, b.input("sn", { dataType: "int64", shape: [1, 2] }), b.constant("float32", 0)),
        b.tile(m, [2, 1]),
        b.transpose(x, { permutation: [0, 2, 3, 1] }),
        b.triangular(m, { upper: false, diagonal: -1 }),
        b.cast(f16, "float32"),
        b.cast(int4, "int8"),
        b.pad(x, [0, 0, 1, 1], [0, 0, 1, 1], { mode: "reflection" }),
        b.pad(b.input("big", { dataType: "int64", shape: [2] }), [1], [1], { value: 9007199254740993n }),
        b.clamp(b.input("u64", { dataType: "uint64", shape: [2] }), { minValue: 0n, maxValue: 2n ** 63n }),
    ];
    return out;
}

// --- Flexible inputs (extension) ------------------------------------------------------------

async function flexible(context: MLContext): Promise<void> {
    const builder = new MLGraphBuilder(context);
    const sequence: MLDynamicDimension = { name: "sequence", maxSize: 2048 };
    const tokens = builder.input("tokens", { dataType: "float32", shape: [1, sequence, 64] });
    const mask = builder.input("mask", { dataType: "float32", shape: [1, { name: "sequence", maxSize: 2048 }, 1] });
    const graph = await builder.build({ out: builder.mul(tokens, mask) });
    // Each dispatch binds tensors of the actual size.
    const step = await context.createTensor({ dataType: "float32", shape: [1, 7, 64], writable: true });
    const stepMask = await context.createTensor({ dataType: "float32", shape: [1, 7, 1], writable: true });
    const out = await context.createTensor({ dataType: "float32", shape: [1, 7, 64], readable: true });
    context.dispatch(graph, { tokens: step, mask: stepMask }, { out });
    // A key cache of 2048 rows updated in place; attention reads its first `sequence` rows.
    const cache = builder.input("cache", { dataType: "float32", shape: [2048, 64] });
    const at = builder.input("at", { dataType: "int32", shape: [1, 1] });
    const updated = builder.scatterND(cache, at, builder.input("row", { dataType: "float32", shape: [1, 64] }));
    const keys: MLOperand = builder.slice(updated, [0, 0], [sequence, 64]);
    const flat: MLOperand = builder.reshape(keys, [sequence, 8, 8]);
    void flat;
}

// --- Code written against older drafts (deprecated members the polyfill still accepts) -------

function legacy(builder: MLGraphBuilder, context: MLContext): Promise<MLTensor> {
    const x = builder.input("x", { dataType: "float32", dimensions: [1, 3, 8, 8] });
    builder.constant({ dataType: "float32", dimensions: [2] }, new Float32Array(2));
    const w = builder.constant({ dataType: "float32", shape: [3, 3, 3, 3] }, new Float32Array(81));
    builder.conv2d(x, w, { autoPad: "same-upper" });
    builder.averagePool2d(x, { windowDimensions: [2, 2], autoPad: "same-lower" });
    const READ = 2;
    const WRITE = 4;
    return context.createTensor({ dataType: "float32", dimensions: [1, 3, 8, 8], usage: READ | WRITE });
}

// --- Works in a worker too: WorkerNavigator has ml ------------------------------------------

function inWorker(nav: WorkerNavigator): Promise<MLContext> {
    return nav.ml.createContext({ accelerated: true });
}

// --- Interface objects as real pages test them --------------------------------------------

function brands(values: unknown[]): number {
    let n = 0;
    for (const v of values) {
        if (v instanceof MLTensor) v.destroy();
        else if (v instanceof MLGraph) v.destroy();
        else if (v instanceof MLOperand) n += v.shape.length;
        else if (v instanceof MLContext) n += v.accelerated ? 1 : 0;
    }
    const methods = Object.getOwnPropertyNames(MLGraphBuilder.prototype).length;
    return n + methods + (typeof ML === "function" && ML.prototype.createContext.length === 0 ? 1 : 0);
}

// --- Misuse the declarations reject ---------------------------------------------------------

async function misuse(ml: ML, context: MLContext, builder: MLGraphBuilder, x: MLOperand, t: MLTensor): Promise<void> {
    // @ts-expect-error: an unknown enum value (not an MLPowerPreference)
    await ml.createContext({ powerPreference: "fastest" });
    // @ts-expect-error: not an MLOperandDataType
    builder.input("x", { dataType: "float64", shape: [1] });
    // @ts-expect-error: descriptor.shape is required
    builder.input("x", { dataType: "float32" });
    // @ts-expect-error: the descriptor argument is required
    builder.input("x");
    // @ts-expect-error: softmax's axis is required
    builder.softmax(x);
    // @ts-expect-error: an unknown conv2d filter layout
    builder.conv2d(x, x, { filterLayout: "hwoi" });
    // @ts-expect-error: an unknown option
    builder.relu(x, { alpha: 1 });
    // @ts-expect-error: dispatch needs the outputs
    context.dispatch(await builder.build({ x }), { x: t });
    // @ts-expect-error: a scalar constant needs its data type
    builder.constant(1);
    // @ts-expect-error: MLOperand has no public constructor
    const operand: MLOperand = new MLOperand();
    // @ts-expect-error: readonly attribute
    t.readable = false;
    // @ts-expect-error: gru returns a sequence of operands
    const single: MLOperand = builder.gru(x, x, x, 1, 1);
    // @ts-expect-error: the builder needs a context
    new MLGraphBuilder();
    // @ts-expect-error: an unknown op in the limits
    context.opSupportLimits().convolution;
    const dynamic: MLDynamicDimension = { name: "batch", maxSize: 8 };
    // @ts-expect-error: a tensor's dimensions are sizes (only graph inputs may be dynamic)
    await context.createTensor({ dataType: "float32", shape: [dynamic, 4] });
    // @ts-expect-error: so are a constant's
    builder.constant({ dataType: "float32", shape: [dynamic] }, new Float32Array(8));
    // @ts-expect-error: a dynamic dimension needs its bound
    builder.input("y", { dataType: "float32", shape: [{ name: "batch" }] });
    console.log(operand, single);
}

export { getML, forced, contexts, supports, classifier, recurrent, everyOp, flexible, legacy, inWorker, brands, misuse };

// --- An ONNX file through loadOnnx, on any navigator.ml -------------------------------------

async function onnxModel(context: MLContext): Promise<Float32Array> {
    const options: LoadOnnxOptions = { dims: { batch: 1 }, shapes: { x: [1, 3, 48, 192] } };
    const { graph, inputs, outputs } = await loadOnnx("/models/cls.onnx", context, options);
    // A bounded dimension ({name, maxSize}) takes a size per tensor; here, its bound.
    const sized = (d: MLOperandDescriptor) => ({ dataType: d.dataType, shape: d.shape.map((x) => (typeof x === "number" ? x : x.maxSize)) });
    const feeds: MLNamedTensors = {};
    for (const [name, desc] of Object.entries(inputs)) feeds[name] = await context.createTensor({ ...sized(desc), writable: true });
    const results: MLNamedTensors = {};
    for (const [name, desc] of Object.entries(outputs)) results[name] = await context.createTensor({ ...sized(desc), readable: true });
    context.dispatch(graph, feeds, results);
    const first = Object.values(results)[0];
    if (!first) throw new Error("no output");
    // @ts-expect-error a dimension is a size or {maxSize}
    await loadOnnx(new ArrayBuffer(8), context, { dims: { batch: "one" } });
    return new Float32Array(await context.readTensor(first));
}
void onnxModel;
