"""llama.cpp's answers on the SmolLM2 GGUF, and the model's own in float64 (exact_model.py),
for webnn-llm's parity test (tests/llama.rs).

Reads a JSON request on stdin: {"model": path, "prompts": [text...], "teacher": text,
"greedy": n, "exact_logits": path}; prints {"prompts": [{"tokens": [...], "greedy": [...],
"top5": [...], "greedy_stepwise": [...], "greedy_exact": [...]}], "teacher": {"tokens": [...],
"top1": [...], "top5": [[[token, logit] x5] per position], "top1_stepwise": [...]}}, and writes
the float64 model's teacher-forced logits to `exact_logits` (float32, [positions, vocab]).
Tokenization parses special tokens (<|im_start|>...) and adds no BOS, as the model's chat use
does. Greedy decoding takes the argmax of the logits (first index on ties) and stops at
<|im_end|>.

The *_stepwise answers are llama.cpp's again with each prompt fed one token at a time instead
of in one batch: the same model and weights, other kernels and summation orders (its batched
products run tiled), which measures how far llama.cpp's own answers move under float32
reordering alone.
"""
import json
import sys

import numpy as np
from llama_cpp import Llama

from exact_model import ExactModel


def argmax(row):
    best = 0
    for i, v in enumerate(row):
        if v > row[best]:
            best = i
    return best


def main():
    req = json.load(sys.stdin)
    llm = Llama(model_path=req["model"], n_ctx=1024, n_batch=512, n_threads=2,
                logits_all=True, verbose=False)
    eos = llm.token_eos()
    def feed(tokens, stepwise):
        llm.reset()
        if stepwise:
            for t in tokens:
                llm.eval([t])
        else:
            llm.eval(tokens)

    def greedy(tokens, stepwise):
        feed(tokens, stepwise)
        chosen, tops = [], []
        for _ in range(req["greedy"]):
            row = list(map(float, llm.scores[llm.n_tokens - 1]))
            tok = argmax(row)
            chosen.append(tok)
            tops.append([[t, row[t]] for t in sorted(range(len(row)), key=lambda t: -row[t])[:5]])
            if tok == eos:
                break
            llm.eval([tok])
        return chosen, tops

    exact = ExactModel(req["model"])

    def greedy_exact(tokens):
        exact.reset()
        row, chosen = exact.feed(tokens)[-1], []
        for _ in range(req["greedy"]):
            tok = int(np.argmax(row))
            chosen.append(tok)
            if tok == eos:
                break
            row = exact.feed([tok])[-1]
        return chosen

    out = {"prompts": []}
    for text in req["prompts"]:
        tokens = llm.tokenize(text.encode(), add_bos=False, special=True)
        chosen, tops = greedy(tokens, False)
        stepwise, _ = greedy(tokens, True)
        out["prompts"].append({"tokens": tokens, "greedy": chosen, "top5": tops,
                               "greedy_stepwise": stepwise, "greedy_exact": greedy_exact(tokens)})
    tokens = llm.tokenize(req["teacher"].encode(), add_bos=False, special=True)
    feed(tokens, True)
    top1_stepwise = [argmax(list(map(float, llm.scores[i]))) for i in range(len(tokens))]
    feed(tokens, False)
    rows = [list(map(float, llm.scores[i])) for i in range(len(tokens))]
    top1 = [argmax(r) for r in rows]
    # The five best (token, logit) per position, to measure how near a tie a difference is.
    top5 = [sorted(range(len(r)), key=lambda t: -r[t])[:5] for r in rows]
    out["teacher"] = {"tokens": tokens, "top1": top1,
                      "top5": [[[t, rows[i][t]] for t in ts] for i, ts in enumerate(top5)],
                      "top1_stepwise": top1_stepwise}
    exact.reset()
    exact.feed(tokens).astype(np.float32).tofile(req["exact_logits"])
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
