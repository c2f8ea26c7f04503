"""llama.cpp's speed on the SmolLM2 GGUF for webnn-llm's benchmark (examples/bench.rs).

Takes {"model": path, "threads": n, "long": n, "steps": n} as its argument, loads the
model once and prints {"ready": true} (so that the caller measures nothing while it loads);
then for each line {"prompt": [ids], "short": [ids]} on stdin prints one line
{"ttft_ms", "decode_16", "decode_long"}: the time to evaluate the prompt (its logits
included), and decode tokens/s (one token per evaluation) after `short` tokens and after
`long` tokens. Decoding feeds the greedy token back, as a chat would.
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
    setup = json.loads(sys.argv[1])
    steps = setup["steps"]
    llm = Llama(model_path=setup["model"], n_ctx=setup["long"] + steps + 8, n_batch=512,
                n_threads=setup["threads"], logits_all=False, verbose=False)
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        req = json.loads(line)
        llm.reset()
        start = time.perf_counter()
        llm.eval(req["prompt"])
        int(np.argmax(last_logits(llm)))
        ttft = (time.perf_counter() - start) * 1e3
        llm.reset()
        llm.eval(req["short"])
        short = decode(llm, steps)
        llm.reset()
        llm.eval([req["short"][i % len(req["short"])] for i in range(setup["long"])])
        long = decode(llm, steps)
        print(json.dumps({"ttft_ms": ttft, "decode_16": short, "decode_long": long}), flush=True)


main()
