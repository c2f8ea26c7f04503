"""Loads converted CoreML programs with coremltools' MIL protobuf loader, which rebuilds each
operation through its type inference (and checks it against the type the program declares),
and compares the inferred output types and shapes with the expected ones. Where an output
comes with a reference (a program whose inputs are constants), the value coremltools folds
it to (its numpy constant propagation, with `mil_numpy` supplying the ops it cannot fold) is
compared with the reference too.

    python3 check_programs.py MANIFEST RESULTS

MANIFEST: a JSON list of {"key", "package", "outputs": [{"name", "dtype", "shape",
"reference"?}]}, a reference being a file of the expected little-endian elements;
RESULTS: a JSON object written here, key -> "ok", "unfolded: ..." (no value to compare) or
why not.
"""
import json
import logging
import os
import sys
import warnings

import numpy as np

logging.disable(logging.WARNING)
warnings.filterwarnings("ignore")
# coremltools warns on import that its macOS-only runtime is missing; keep the output short.
_stderr = sys.stderr
sys.stderr = open(os.devnull, "w")
from coremltools import proto  # noqa: E402
from coremltools.converters.mil.frontend.milproto import load as milproto  # noqa: E402
from coremltools.converters.mil.mil import types  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mil_numpy  # noqa: E402

sys.stderr = _stderr
mil_numpy.install()


def check(entry):
    data = os.path.join(entry["package"], "Data", "com.apple.CoreML")
    spec = proto.Model_pb2.Model()
    with open(os.path.join(data, "model.mlmodel"), "rb") as f:
        spec.ParseFromString(f.read())
    prog = milproto.load(spec, spec.specificationVersion, file_weights_dir=os.path.join(data, "weights"))
    outputs = prog.functions["main"].outputs
    if len(outputs) != len(entry["outputs"]):
        return f"{len(outputs)} outputs, expected {len(entry['outputs'])}"
    for var, want in zip(outputs, entry["outputs"]):
        dtype = types.builtin_to_string(var.dtype)
        shape = [int(d) for d in var.shape]
        if var.name != want["name"] or dtype != want["dtype"] or shape != want["shape"]:
            return (f"output {want['name']}: inferred {var.name} {dtype}{shape}, "
                    f"expected {want['dtype']}{want['shape']}")
    for var, want in zip(outputs, entry["outputs"]):
        if "reference" not in want:
            continue
        if var.val is None:
            return f"unfolded: {var.op.op_type if var.op is not None else 'input'}"
        why = compare(np.asarray(var.val), want)
        if why:
            return f"values of {want['name']}: {why}"
    return "ok"


NUMPY = {"fp32": np.float32, "fp16": np.float16, "int32": np.int32, "int8": np.int8, "uint8": np.uint8}
# Relative and absolute tolerance per type: the folding runs in numpy, the reference in the
# cpu backend, so float results differ in the last bits (more for float16).
TOLERANCE = {"fp32": (1e-3, 1e-5), "fp16": (1e-2, 1e-3)}


def compare(got, want):
    with open(want["reference"], "rb") as f:
        ref = np.frombuffer(f.read(), NUMPY[want["dtype"]]).reshape(want["shape"])
    got = got.reshape(want["shape"])
    rtol, atol = TOLERANCE.get(want["dtype"], (0, 0))
    ok = np.isclose(got.astype(np.float64), ref.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True)
    if ok.all():
        return None
    i = int(np.flatnonzero(~ok)[0])
    return f"{int((~ok).sum())} of {ok.size} differ, first at {i}: {got.flat[i]} vs {ref.flat[i]}"


def main():
    with open(sys.argv[1]) as f:
        manifest = json.load(f)
    results = {}
    for entry in manifest:
        try:
            results[entry["key"]] = check(entry)
        except Exception as e:  # the loader raises many kinds; each is a finding
            msg = " ".join(str(e).split())[:300]
            results[entry["key"]] = f"load: {type(e).__name__}: {msg}"
    with open(sys.argv[2], "w") as f:
        json.dump(results, f, indent=0)


if __name__ == "__main__":
    main()
