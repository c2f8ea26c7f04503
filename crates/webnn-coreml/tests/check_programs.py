"""Loads converted CoreML programs with coremltools' MIL protobuf loader, which rebuilds each
operation through its type inference (and checks it against the type the program declares),
and compares the inferred output types and shapes with the expected ones.

    python3 check_programs.py MANIFEST RESULTS

MANIFEST: a JSON list of {"key", "package", "outputs": [{"name", "dtype", "shape"}]};
RESULTS: a JSON object written here, key -> "ok" or why not.
"""
import json
import logging
import os
import sys
import warnings

logging.disable(logging.WARNING)
warnings.filterwarnings("ignore")
# coremltools warns on import that its macOS-only runtime is missing; keep the output short.
_stderr = sys.stderr
sys.stderr = open(os.devnull, "w")
from coremltools import proto  # noqa: E402
from coremltools.converters.mil.frontend.milproto import load as milproto  # noqa: E402
from coremltools.converters.mil.mil import types  # noqa: E402

sys.stderr = _stderr


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
    return "ok"


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
