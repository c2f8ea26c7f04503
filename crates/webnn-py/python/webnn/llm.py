"""SmolLM2 through the WebNN API: the GGUF file's tokenizer, and the decoder graph built from
its weights for a context (``build_decoder``); the decode loop is yours (see
examples/generate.py). ``generate_native`` runs the Rust session, for comparison."""

from ._webnn import llm as _llm

Tokenizer = _llm.Tokenizer
smollm2_path = _llm.smollm2_path
build_decoder = _llm.build_decoder
generate_native = _llm.generate_native

__all__ = ["Tokenizer", "smollm2_path", "build_decoder", "generate_native"]
