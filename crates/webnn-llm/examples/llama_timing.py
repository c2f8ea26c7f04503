"""llama.cpp's speed on the SmolLM2 GGUF for webnn-llm's benchmark (examples/bench.rs).

Reads {"model": path, "threads": n, "prompt": [ids], "short": [ids], "long": n, "steps": n}
on stdin and prints {"ttft_ms", "decode_16", "decode_long"}: the time to evaluate the prompt
(its logits included), and decode tokens/s (one token per evaluation) after `short` tokens
and after `long` tokens. Decoding feeds the greedy token back, as a chat would.
"""
import json
import sys
import time

import numpy as np
from llama_cpp import Llama


def last_logits(llm):
    # Without logits_all, llama.cpp keeps only the last token's logits, in its context.
    return np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(llm.n_vocab(),))


def decode(llm, steps):
    tok = int(np.argmax(last_logits(llm)))
    start = time.perf_counter()
    for _ in range(steps):
        llm.eval([tok])
        tok = int(np.argmax(last_logits(llm)))
    return steps / (time.perf_counter() - start)


def main():
    req = json.load(sys.stdin)
    llm = Llama(model_path=req["model"], n_ctx=req["long"] + req["steps"] + 8, n_batch=512,
                n_threads=req["threads"], logits_all=False, verbose=False)
    llm.reset()
    start = time.perf_counter()
    llm.eval(req["prompt"])
    int(np.argmax(last_logits(llm)))
    ttft = (time.perf_counter() - start) * 1e3
    llm.reset()
    llm.eval(req["short"])
    short = decode(llm, req["steps"])
    llm.reset()
    llm.eval([req["short"][i % len(req["short"])] for i in range(req["long"])])
    long = decode(llm, req["steps"])
    print(json.dumps({"ttft_ms": ttft, "decode_16": short, "decode_long": long}))


main()
