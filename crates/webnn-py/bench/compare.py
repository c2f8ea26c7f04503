"""One side of the pywebnn comparison, run in the interpreter of the package it measures
(both install as `webnn`, so each lives in its own virtual environment):

    python bench/compare.py [--runs 10]   # prints one JSON line

WPT's conformance vectors through the package's builder (this package's harness, tests/wpt.py,
with pywebnn's call spellings where it is pywebnn), then MobileNetV2 built op by op
(bench/mobilenet.py): build time (graph and compile) and the median of the runs."""

import argparse
import json
import pathlib
import re
import statistics
import sys
import time

import numpy as np

import webnn

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
sys.path.insert(0, str(HERE))
import mobilenet  # noqa: E402
import wpt  # noqa: E402

OURS = hasattr(webnn, "WebNNError")


def snake_case(name):
    s = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name.replace("NaN", "Nan"))
    return re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", s).lower()


class Builder:
    """pywebnn's builder behind the harness's calls: options as snake_case keywords
    (`padding` as its `pads`)."""

    def __init__(self, ctx):
        self.b = ctx.create_graph_builder()

    def input(self, *a):
        return self.b.input(*a)

    def constant(self, *a):
        return self.b.constant(*a)

    def build(self, outputs):
        return self.b.build(outputs)

    def __getattr__(self, name):
        method = getattr(self.b, name)

        def call(*args, options=None):
            kw = {("pads" if k == "padding" else snake_case(k)): v for k, v in (options or {}).items()}
            return method(*args, **kw)

        return call


class Shim:
    """What the harness reads of the `webnn` module, for pywebnn."""

    MLOperand = webnn.MLOperand
    WebNNError = Exception
    snake_case = staticmethod(snake_case)
    MLGraphBuilder = Builder


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--models", default=str(HERE.parents[2] / "www" / "models" / "mobilenetv2"))
    a = p.parse_args()
    ctx = webnn.ML().create_context(device_type="cpu")
    if not OURS:
        wpt.webnn = Shim
    started = time.perf_counter()
    results = wpt.run_all(ctx)
    wpt_seconds = time.perf_counter() - started
    passed = sum(v is None for v in results.values())
    skipped = sum(isinstance(v, wpt.Skip) for v in results.values())

    constants = mobilenet.load(a.models)
    started = time.perf_counter()
    builder = ctx.create_graph_builder()
    graph = builder.build({"probabilities": mobilenet.build(builder, constants)})
    x = np.random.default_rng(1).uniform(-1, 1, (1, 3, 224, 224)).astype(np.float32)
    first = ctx.compute(graph, {"input": x})["probabilities"]
    build_s = time.perf_counter() - started
    runs = []
    for _ in range(a.runs):
        t = time.perf_counter()
        ctx.compute(graph, {"input": x})
        runs.append(time.perf_counter() - t)
    print(json.dumps({
        "package": "webnn (this project)" if OURS else "pywebnn",
        "wpt_passed": passed, "wpt_skipped": skipped, "wpt_cases": len(results), "wpt_seconds": round(wpt_seconds, 1),
        "mobilenet_build_and_first_run_ms": round(build_s * 1e3, 1),
        "mobilenet_run_ms": round(statistics.median(runs) * 1e3, 2),
        "top1": int(np.argmax(first)),
    }))


if __name__ == "__main__":
    main()
