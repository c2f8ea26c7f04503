// A dedicated worker's use of WebNN, type-checked against lib.webworker: WorkerNavigator has
// `ml`, and the interface objects are globals of the worker scope too.

declare const self: DedicatedWorkerGlobalScope;
export {};

async function handle(data: Float32Array): Promise<Float32Array> {
    if (!("ml" in self.navigator) || typeof MLGraphBuilder !== "function") throw new Error("no WebNN");
    const context = await self.navigator.ml.createContext({ powerPreference: "low-power" });
    const builder = new MLGraphBuilder(context);
    const x = builder.input("x", { dataType: "float32", shape: [data.length] });
    const graph = await builder.build({ y: builder.sigmoid(x) });
    const input = await context.createTensor({ dataType: "float32", shape: [data.length], writable: true });
    const output = await context.createTensor({ dataType: "float32", shape: [data.length], readable: true });
    context.writeTensor(input, data);
    context.dispatch(graph, { x: input }, { y: output });
    const result = new Float32Array(await context.readTensor(output));
    context.destroy();
    return result;
}

self.onmessage = async (e: MessageEvent<Float32Array>) => {
    const out = await handle(e.data);
    self.postMessage(out, [out.buffer]);
};
