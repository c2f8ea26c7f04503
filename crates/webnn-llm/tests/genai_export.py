"""Writes the SmolLM2 GGUF as an ONNX Runtime GenAI-style decoder with the `onnx` package, for
tests/onnx_genai.rs: the layout ONNX Runtime GenAI's model builder gives Llama models for its
CPU provider, with the GGUF's own quantized weights (no requantization, so the ONNX model is
the GGUF's model):

- inputs `input_ids` int64 [batch_size, sequence_length], `attention_mask` int64
  [batch_size, total_sequence_length], `past_key_values.{l}.key/value` float32
  [batch_size, kv_heads, past_sequence_length, head_size]; outputs `logits` float32
  [batch_size, sequence_length, vocab] and `present.{l}.key/value` [batch_size, kv_heads,
  total_sequence_length, head_size];
- seqlens_k and total_sequence_length computed from the attention mask (ReduceSum, Sub,
  Shape, Gather, Cast), as the builder writes them;
- the Q8_0 embedding as com.microsoft GatherBlockQuantized (8-bit codes offset by 128, the
  default zero point), and the tied head as MatMulNBits over the same codes;
- per layer: SimplifiedLayerNormalization (the first) or SkipSimplifiedLayerNormalization
  (the residual sum as its fourth output), MatMulNBits for q, k, v, o, gate, up and down
  (Q4_1: 4-bit codes, the scale d, and the block minimum m as a float zero point -m/d),
  GroupQueryAttention with its rotary embedding (do_rotary, cos/sin caches; adjacent pairs,
  as the GGUF's permuted q/k rows want), SiLU as Sigmoid and Mul.

Usage: genai_export.py model.gguf out.onnx [max_positions]
"""
import sys

import numpy as np
import onnx
from gguf import GGUFReader
from onnx import TensorProto, helper, numpy_helper


def main():
    path, out = sys.argv[1], sys.argv[2]
    max_positions = int(sys.argv[3]) if len(sys.argv) > 3 else 2048
    reader = GGUFReader(path)
    arch = reader.get_field("general.architecture").contents()
    meta = lambda key: reader.get_field(f"{arch}.{key}").contents()
    layers, heads, kv_heads = meta("block_count"), meta("attention.head_count"), meta("attention.head_count_kv")
    eps, base = meta("attention.layer_norm_rms_epsilon"), meta("rope.freq_base")
    tensors = {t.name: t for t in reader.tensors}
    dim = int(tensors["token_embd.weight"].shape[0])
    head_dim = dim // heads

    nodes, inits = [], []

    def init(name, array):
        inits.append(numpy_helper.from_array(array, name))
        return name

    def node(op, inputs, outputs, domain="", **attrs):
        nodes.append(helper.make_node(op, inputs, outputs, name=f"/{outputs[0]}/{op}", domain=domain, **attrs))
        return outputs

    def blocks(name, size):
        """The tensor's raw blocks, [rows, blocks, size] bytes."""
        t = tensors[name]
        cols, rows = int(t.shape[0]), int(t.shape[1])
        raw = np.asarray(t.data, dtype=np.uint8).reshape(rows, cols // 32, size)
        return raw, rows, cols

    def q4_1_linear(x, name, out):
        raw, rows, cols = blocks(name, 20)
        d = raw[:, :, 0:2].copy().view(np.float16).astype(np.float32).reshape(-1)
        m = raw[:, :, 2:4].copy().view(np.float16).astype(np.float32).reshape(-1)
        qs = raw[:, :, 4:20]
        # GGUF's Q4_1 keeps elements 0..15 in the low nibbles, 16..31 in the high ones;
        # MatMulNBits packs element 2i in the low nibble of byte i, 2i + 1 in the high one.
        codes = np.concatenate([qs & 15, qs >> 4], axis=2)
        packed = (codes[:, :, 0::2] | (codes[:, :, 1::2] << 4)).astype(np.uint8)
        # w = q·d + m = (q - zp)·d with zp = -m/d; a block with d = 0 holds m alone: a tiny
        # scale and the matching zero point give it (its codes are all 0).
        tiny = np.float32(2.0**-24)
        scale = np.where(d == 0, tiny, d).astype(np.float32)
        zp = (-m / scale).astype(np.float32)
        node("MatMulNBits", [x, init(f"{name}.q", packed), init(f"{name}.scales", scale), init(f"{name}.zp", zp)], [out],
             domain="com.microsoft", K=cols, N=rows, bits=4, block_size=32)
        return out

    # The Q8_0 embedding: int8 codes + 128 as uint8 (the default zero point of 8-bit codes).
    raw, vocab, _ = blocks("token_embd.weight", 34)
    embed_scale = raw[:, :, 0:2].copy().view(np.float16).astype(np.float32).reshape(vocab, dim // 32)
    embed_codes = (raw[:, :, 2:34].view(np.int8).astype(np.int16) + 128).astype(np.uint8).reshape(vocab, dim)
    init("embed.codes", embed_codes)
    init("embed.scales", embed_scale)
    node("GatherBlockQuantized", ["embed.codes", "input_ids", "embed.scales"], ["embeddings"], domain="com.microsoft",
         bits=8, block_size=32, gather_axis=0, quantize_axis=1)

    # seqlens_k = sum(attention_mask) - 1 and total_sequence_length = its width, as int32.
    init("one", np.array(1, dtype=np.int64))
    init("axis1", np.array([1], dtype=np.int64))
    node("ReduceSum", ["attention_mask", "axis1"], ["mask_sum"], keepdims=0)
    node("Sub", ["mask_sum", "one"], ["seqlens_k_64"])
    node("Cast", ["seqlens_k_64"], ["seqlens_k"], to=TensorProto.INT32)
    node("Shape", ["attention_mask"], ["mask_shape"])
    node("Gather", ["mask_shape", "one"], ["total_64"], axis=0)
    node("Cast", ["total_64"], ["total_sequence_length"], to=TensorProto.INT32)

    # The rotary tables: cos/sin of position · base^(-2i / head_dim).
    angle = np.arange(max_positions, dtype=np.float64)[:, None] * base ** (-2.0 * np.arange(head_dim // 2) / head_dim)
    init("cos_cache", np.cos(angle).astype(np.float32))
    init("sin_cache", np.sin(angle).astype(np.float32))

    def norm_weight(name):
        return init(name, np.asarray(tensors[name].data, dtype=np.float32).reshape(dim))

    residual, previous = "embeddings", None
    inputs, outputs = [], []
    for l in range(layers):
        p = f"blk.{l}"
        if previous is None:
            node("SimplifiedLayerNormalization", [residual, norm_weight(f"{p}.attn_norm.weight")], [f"{p}.h"], axis=-1, epsilon=eps)
        else:
            node("SkipSimplifiedLayerNormalization", [previous, residual, norm_weight(f"{p}.attn_norm.weight")],
                 [f"{p}.h", "", "", f"{p}.residual"], domain="com.microsoft", epsilon=eps)
            residual = f"{p}.residual"
        q = q4_1_linear(f"{p}.h", f"{p}.attn_q.weight", f"{p}.q")
        k = q4_1_linear(f"{p}.h", f"{p}.attn_k.weight", f"{p}.k")
        v = q4_1_linear(f"{p}.h", f"{p}.attn_v.weight", f"{p}.v")
        past_k, past_v = f"past_key_values.{l}.key", f"past_key_values.{l}.value"
        present_k, present_v = f"present.{l}.key", f"present.{l}.value"
        node("GroupQueryAttention", [q, k, v, past_k, past_v, "seqlens_k", "total_sequence_length", "cos_cache", "sin_cache"],
             [f"{p}.attn", present_k, present_v], domain="com.microsoft",
             num_heads=heads, kv_num_heads=kv_heads, do_rotary=1, rotary_interleaved=1, scale=float(1.0 / np.sqrt(head_dim)))
        cache = ["batch_size", kv_heads, "past_sequence_length", head_dim]
        inputs += [helper.make_tensor_value_info(n, TensorProto.FLOAT, cache) for n in (past_k, past_v)]
        cache = ["batch_size", kv_heads, "total_sequence_length", head_dim]
        outputs += [helper.make_tensor_value_info(n, TensorProto.FLOAT, cache) for n in (present_k, present_v)]
        o = q4_1_linear(f"{p}.attn", f"{p}.attn_output.weight", f"{p}.o")
        node("SkipSimplifiedLayerNormalization", [o, residual, norm_weight(f"{p}.ffn_norm.weight")],
             [f"{p}.h2", "", "", f"{p}.residual2"], domain="com.microsoft", epsilon=eps)
        residual = f"{p}.residual2"
        gate = q4_1_linear(f"{p}.h2", f"{p}.ffn_gate.weight", f"{p}.gate")
        up = q4_1_linear(f"{p}.h2", f"{p}.ffn_up.weight", f"{p}.up")
        node("Sigmoid", [gate], [f"{p}.sigmoid"])
        node("Mul", [gate, f"{p}.sigmoid"], [f"{p}.silu"])
        node("Mul", [f"{p}.silu", up], [f"{p}.act"])
        previous = q4_1_linear(f"{p}.act", f"{p}.ffn_down.weight", f"{p}.down")

    node("SkipSimplifiedLayerNormalization", [previous, residual, norm_weight("output_norm.weight")],
         ["final", "", "", ""], domain="com.microsoft", epsilon=eps)
    # The head tied to the embedding: the same 8-bit codes as MatMulNBits' blocks.
    node("MatMulNBits", ["final", init("head.q", embed_codes.reshape(vocab, dim // 32, 32)), init("head.scales", embed_scale.reshape(-1))],
         ["logits"], domain="com.microsoft", K=dim, N=vocab, bits=8, block_size=32)

    graph = helper.make_graph(
        nodes, "smollm2-genai",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch_size", "sequence_length"]),
         helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch_size", "total_sequence_length"])] + inputs,
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch_size", "sequence_length", vocab])] + outputs,
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)],
                              producer_name="webnn-llm tests/genai_export.py")
    model.ir_version = 8
    # No onnx.checker: it knows no SimplifiedLayerNormalization, which ONNX Runtime registers
    # in the default domain (and GenAI exports use there). ONNX Runtime loading the file is
    # the check (tests/onnx_genai.rs runs it).
    onnx.save(model, out)


if __name__ == "__main__":
    main()
