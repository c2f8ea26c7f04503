// A dedicated worker that loads the classic polyfill script and runs a small graph.
self.WEBNN_POLYFILL_BASE = '/pkg/';
importScripts('/pkg/webnn-polyfill.js');
(async () => {
  const ctx = await navigator.ml.createContext();
  const b = new MLGraphBuilder(ctx);
  const x = b.input('x', { dataType: 'float32', shape: [3] });
  const graph = await b.build({ y: b.mul(x, b.constant('float32', 2)) });
  const input = await ctx.createTensor({ dataType: 'float32', shape: [3], writable: true });
  const output = await ctx.createTensor({ dataType: 'float32', shape: [3], readable: true });
  ctx.writeTensor(input, new Float32Array([1, 2, 3]));
  ctx.dispatch(graph, { x: input }, { y: output });
  const y = Array.from(new Float32Array(await ctx.readTensor(output)));
  postMessage({ y, hasMl: 'ml' in navigator, builder: typeof MLGraphBuilder });
})().catch((e) => postMessage({ error: `${e.name}: ${e.message}` }));
