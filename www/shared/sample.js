// What the benchmark pages (bench/, onnx/, ort-webnn/) share: their deterministic input.

/** `n` deterministic values in [-1, 1), as a normalized picture would be (xorshift32). */
export function sampleInput(n) {
  const v = new Float32Array(n);
  let s = 0x9e3779b9;
  for (let i = 0; i < n; i++) {
    s ^= s << 13; s ^= s >>> 17; s ^= s << 5;
    v[i] = ((s >>> 0) / 2 ** 32) * 2 - 1;
  }
  return v;
}
