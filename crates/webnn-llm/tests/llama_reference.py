"""llama.cpp's answers on the SmolLM2 GGUF, for webnn-llm's parity test (tests/llama.rs).

Reads a JSON request on stdin: {"model": path, "prompts": [text...], "teacher": text,
"greedy": n}; prints {"prompts": [{"tokens": [...], "greedy": [...], "top5": [...]}], "teacher":
{"tokens": [...], "top1": [...], "top5": [[[token, logit] x5] per position]}}. Tokenization parses special tokens (<|im_start|>...) and
adds no BOS, as the model's chat use does. Greedy decoding takes the argmax of the logits
(first index on ties) and stops at <|im_end|>.
"""
import json
import sys

from llama_cpp import Llama


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
    out = {"prompts": []}
    for text in req["prompts"]:
        tokens = llm.tokenize(text.encode(), add_bos=False, special=True)
        llm.reset()
        llm.eval(tokens)
        greedy, tops = [], []
        for _ in range(req["greedy"]):
            row = list(map(float, llm.scores[llm.n_tokens - 1]))
            tok = argmax(row)
            greedy.append(tok)
            tops.append([[t, row[t]] for t in sorted(range(len(row)), key=lambda t: -row[t])[:5]])
            if tok == eos:
                break
            llm.eval([tok])
        out["prompts"].append({"tokens": tokens, "greedy": greedy, "top5": tops})
    tokens = llm.tokenize(req["teacher"].encode(), add_bos=False, special=True)
    llm.reset()
    llm.eval(tokens)
    rows = [list(map(float, llm.scores[i])) for i in range(len(tokens))]
    top1 = [argmax(r) for r in rows]
    # The five best (token, logit) per position, to measure how near a tie a difference is.
    top5 = [sorted(range(len(r)), key=lambda t: -r[t])[:5] for r in rows]
    out["teacher"] = {"tokens": tokens, "top1": top1,
                      "top5": [[[t, rows[i][t]] for t in ts] for i, ts in enumerate(top5)]}
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
