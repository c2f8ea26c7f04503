"""SmolLM2 through the Python API (examples/generate.py's loop) gives webnn-llm's own greedy
tokens on the same context, and answers the recorded question."""

import os
import pathlib
import sys

import pytest

import webnn
import webnn.llm

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "examples"))
import generate  # noqa: E402

QUESTION = "What is the capital of France?"


@pytest.fixture(scope="module")
def tokenizer():
    if not pathlib.Path(webnn.llm.smollm2_path()).exists():
        if os.environ.get("CI") == "true":
            raise FileNotFoundError(f"{webnn.llm.smollm2_path()}: scripts/llm-setup.sh fetches it")
        pytest.skip("bash scripts/llm-setup.sh first")
    return webnn.llm.Tokenizer()


def test_tokenizer(tokenizer):
    ids = tokenizer.encode(tokenizer.chat_prompt(QUESTION))
    assert tokenizer.decode(ids).endswith("<|im_start|>assistant\n")
    assert tokenizer.vocab_size == 49152


@pytest.mark.parametrize("backend,cache,tokens", [("cpu", "f32", 16), ("cpu", "f16", 16), ("wgpu", "f16", 4)])
def test_python_loop_matches_native_session(tokenizer, backend, cache, tokens):
    ctx = webnn.ML().create_context(backend=backend)
    prompt = tokenizer.encode(tokenizer.chat_prompt(QUESTION))
    ours = generate.generate(ctx, tokenizer, prompt, tokens, cache=cache)
    native = webnn.llm.generate_native(ctx, prompt, tokens, stop=tokenizer.eos, cache=cache)
    assert ours == native
    if tokens == 16:
        assert tokenizer.decode(ours) == "The capital of France is Paris.<|im_end|>"
