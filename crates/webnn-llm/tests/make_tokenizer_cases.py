#!/usr/bin/env python3
"""Writes tokenizer_cases.json: reference token ids for tests/tokenizer.rs.

The ids come from an independent implementation, Hugging Face `tokenizers` (PyPI wheel; llama.cpp
itself has no wheel to install), configured as SmolLM2's tokenizer.json is: byte-level BPE from the
GGUF's vocabulary and merges, pre-tokenizer Digits(individual) then ByteLevel (GPT-2 regex, no
prefix space), the control tokens of the GGUF as special added tokens. The GGUF is read by hand
(no `gguf` package, no numpy).

    python3 -m pip install --target "$DIR" tokenizers   # any scratch folder
    PYTHONPATH="$DIR" python3 crates/webnn-llm/tests/make_tokenizer_cases.py [model.gguf]
"""
import json
import os
import struct
import sys


def read_metadata(path):
    data = open(path, "rb").read()
    at = 0

    def take(n):
        nonlocal at
        s = data[at : at + n]
        at += n
        return s

    def u32():
        return struct.unpack("<I", take(4))[0]

    def u64():
        return struct.unpack("<Q", take(8))[0]

    def string():
        return take(u64()).decode("utf-8")

    scalars = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}

    def value(kind):
        if kind == 8:
            return string()
        if kind == 9:
            inner, n = u32(), u64()
            return [value(inner) for _ in range(n)]
        fmt = scalars[kind]
        return struct.unpack(fmt, take(struct.calcsize(fmt)))[0]

    assert take(4) == b"GGUF", "not a GGUF file"
    u32()  # version
    u64()  # tensor count
    meta = {}
    for _ in range(u64()):
        key = string()
        meta[key] = value(u32())
    return meta


SYSTEM = "You are a helpful AI assistant named SmolLM, trained by Hugging Face"
CHAT = (
    f"<|im_start|>system\n{SYSTEM}<|im_end|>\n"
    "<|im_start|>user\nWhat is the capital of France?<|im_end|>\n<|im_start|>assistant\n"
)

# (prompt, parse_special, round_trips): round_trips is false where the text holds bytes the
# vocabulary has no token for (they are dropped, by llama.cpp and HF alike).
CASES = [
    ("What is the capital of France?", True, True),
    ("Hello, world! The quick brown fox jumps over the lazy dog.", True, True),
    ("def add(a, b):\n    return a + b\n\n\nclass Foo:\n\tdef bar(self):\n\t\tpass  # tabs\n", True, True),
    ("12345", True, True),
    ("Pi is 3.14159, and 1,000,000 is a million; call 555-0100 at 10:30pm.", True, True),
    ("I'm sure you're right: it's what they'd've said, we'll see. DON'T SHOUT, I'M HERE", True, True),
    ("I love 🦀 and 🤗! 👍🏽 👨‍👩‍👧 ✨✨", True, True),
    ("你好，世界。日本語のテキストです。한국어 문장", True, True),
    ("a  b   c\n\n\nd \n  e   \n\n", True, True),
    ("   leading spaces and trailing   ", True, True),
    (CHAT, True, True),
    (CHAT, False, True),
    ("<|im_end|>\n<|im_start|>assistant\n<|endoftext|><jupyter_code>x = 1<|im_start|", True, True),
    ("Café naïve résumé über Straße façade", True, True),
    ("नमस्ते दुनिया, हिन्दी में", True, True),
    ("Привет, мир! Γειά σου κόσμε. مرحبا بالعالم", True, True),
    ("Wait... what?!?! (yes) [no] {maybe} <tag> &amp; @user #hash $5.00 100% ~/.bashrc", True, True),
    ("https://example.com/path?q=1&r=2 mail@example.org", True, True),
    ("# Title\n\n- item 1\n- item 2\n\n```rust\nfn main() {\n    println!(\"hi\");\n}\n```\n", True, True),
    ("\r\n\tx\u00a0y\u3000z\u2003 end", True, True),
    ("antidisestablishmentarianism supercalifragilisticexpialidocious", True, True),
    ("½ ² Ⅻ ٣ 𝟙", True, True),
    ("", True, True),
    (" ", True, True),
    ("x\x04y \x06 z", True, False),
]


def main():
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers

    path = sys.argv[1] if len(sys.argv) > 1 else os.path.expanduser(
        "~/.cache/webnn-rs/llm/SmolLM2-135M-Instruct.Q4_1.gguf"
    )
    meta = read_metadata(path)
    tokens = meta["tokenizer.ggml.tokens"]
    types = meta["tokenizer.ggml.token_type"]
    merges = [tuple(m.split(" ")) for m in meta["tokenizer.ggml.merges"]]
    assert meta["tokenizer.ggml.pre"] == "smollm"

    def build(specials):
        tok = Tokenizer(models.BPE(vocab={t: i for i, t in enumerate(tokens)}, merges=merges))
        tok.pre_tokenizer = pre_tokenizers.Sequence(
            [
                pre_tokenizers.Digits(individual_digits=True),
                pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True),
            ]
        )
        tok.decoder = decoders.ByteLevel()
        if specials:
            control = [t for t, k in zip(tokens, types) if k == 3]
            tok.add_special_tokens([AddedToken(t, normalized=False, special=True) for t in control])
        return tok

    with_special, plain = build(True), build(False)
    out = []
    for prompt, parse_special, round_trips in CASES:
        tok = with_special if parse_special else plain
        ids = tok.encode(prompt, add_special_tokens=False).ids
        if round_trips:
            assert tok.decode(ids, skip_special_tokens=False) == prompt, prompt
        out.append({"prompt": prompt, "parse_special": parse_special, "round_trips": round_trips, "ids": ids})

    dest = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tokenizer_cases.json")
    with open(dest, "w", encoding="utf-8") as f:
        f.write("[\n")
        f.write(",\n".join("  " + json.dumps(c, ensure_ascii=False) for c in out))
        f.write("\n]\n")
    print(f"{len(out)} cases -> {dest}")


if __name__ == "__main__":
    main()
