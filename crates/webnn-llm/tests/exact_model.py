"""The GGUF's Llama decoder evaluated in float64 with NumPy: the model's own arithmetic with
no rounding to speak of, as an oracle for tests/llama.rs. It shares no code with webnn-llm:
the file is read and dequantized by `gguf`, llama.cpp's own Python package, and the decoder
is written here from the architecture's definition (RMSNorm, rotary embedding on adjacent
pairs, grouped-query attention, SiLU-gated MLP, the head tied to the embedding when the file
has no `output.weight`).
"""
import numpy as np
from gguf import GGUFReader
from gguf.quants import dequantize


class ExactModel:
    def __init__(self, path):
        reader = GGUFReader(path)
        arch = reader.get_field("general.architecture").contents()
        meta = lambda key: reader.get_field(f"{arch}.{key}").contents()
        self.layers = meta("block_count")
        self.heads = meta("attention.head_count")
        self.kv_heads = meta("attention.head_count_kv")
        self.eps = meta("attention.layer_norm_rms_epsilon")
        self.base = meta("rope.freq_base")
        self.w = {}
        for t in reader.tensors:
            shape = [int(n) for n in reversed(t.shape)]
            self.w[t.name] = dequantize(t.data, t.tensor_type).astype(np.float64).reshape(shape)
        self.head = self.w.get("output.weight", self.w["token_embd.weight"])
        self.head_dim = self.w["token_embd.weight"].shape[1] // self.heads
        self.reset()

    def reset(self):
        """Empties the key/value caches."""
        self.k = [np.zeros((0, self.kv_heads, self.head_dim)) for _ in range(self.layers)]
        self.v = [np.zeros((0, self.kv_heads, self.head_dim)) for _ in range(self.layers)]

    def rms_norm(self, x, weight):
        return x / np.sqrt((x * x).mean(-1, keepdims=True) + self.eps) * weight

    def rope(self, x, positions):
        """Rotates adjacent pairs (x[2i], x[2i+1]) by position * base^(-2i/head_dim)."""
        half = self.head_dim // 2
        angle = positions[:, None] * self.base ** (-2.0 * np.arange(half) / self.head_dim)
        cos, sin = np.cos(angle)[:, None, :], np.sin(angle)[:, None, :]
        even, odd = x[..., 0::2], x[..., 1::2]
        out = np.empty_like(x)
        out[..., 0::2] = even * cos - odd * sin
        out[..., 1::2] = even * sin + odd * cos
        return out

    def feed(self, tokens):
        """Runs `tokens` after the cached ones; the logits after each, [len(tokens), vocab]."""
        w = lambda l, name: self.w[f"blk.{l}.{name}.weight"]
        n, past = len(tokens), self.k[0].shape[0]
        positions = np.arange(past, past + n, dtype=np.float64)
        x = self.w["token_embd.weight"][np.asarray(tokens)]
        group = self.heads // self.kv_heads
        # Query i (at past + i) sees keys 0..past + i.
        visible = np.arange(past + n)[None, :] <= (past + np.arange(n))[:, None]
        for l in range(self.layers):
            h = self.rms_norm(x, w(l, "attn_norm"))
            q = self.rope((h @ w(l, "attn_q").T).reshape(n, self.heads, self.head_dim), positions)
            k = self.rope((h @ w(l, "attn_k").T).reshape(n, self.kv_heads, self.head_dim), positions)
            v = (h @ w(l, "attn_v").T).reshape(n, self.kv_heads, self.head_dim)
            self.k[l] = np.concatenate([self.k[l], k])
            self.v[l] = np.concatenate([self.v[l], v])
            out = np.empty((n, self.heads, self.head_dim))
            for head in range(self.heads):
                keys, values = self.k[l][:, head // group], self.v[l][:, head // group]
                scores = np.where(visible, q[:, head] @ keys.T / np.sqrt(self.head_dim), -np.inf)
                p = np.exp(scores - scores.max(-1, keepdims=True))
                out[:, head] = (p / p.sum(-1, keepdims=True)) @ values
            x = x + out.reshape(n, -1) @ w(l, "attn_output").T
            h = self.rms_norm(x, w(l, "ffn_norm"))
            gate, up = h @ w(l, "ffn_gate").T, h @ w(l, "ffn_up").T
            x = x + (gate / (1.0 + np.exp(-gate)) * up) @ w(l, "ffn_down").T
        return self.rms_norm(x, self.w["output_norm.weight"]) @ self.head.T
