"""ONNX Runtime's static quantizer over a float32 ONNX file: the QDQ form (uint8
activations through QuantizeLinear/DequantizeLinear pairs, int8 weights with a scale per
output channel) that quantized models on the web ship in.

    python3 scripts/quantize-onnx.py SRC.onnx DST.onnx

Calibration reads four seeded standard-normal inputs of the model's (static) input shape,
so the file is the same on every run. Needs onnxruntime, onnx and numpy on the path
(scripts/test.sh gives the setup's copies)."""

import sys

import numpy as np
import onnx
from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static


class Seeded(CalibrationDataReader):
    def __init__(self, name, shape):
        rng = np.random.default_rng(7)
        self.batches = iter([{name: rng.standard_normal(shape).astype(np.float32)} for _ in range(4)])

    def get_next(self):
        return next(self.batches, None)


def main():
    src, dst = sys.argv[1], sys.argv[2]
    model = onnx.load(src)
    inp = model.graph.input[0]
    shape = [d.dim_value for d in inp.type.tensor_type.shape.dim]
    if not all(shape):
        sys.exit(f"{src}: the input {inp.name} needs a static shape, not {shape}")
    quantize_static(src, dst, Seeded(inp.name, shape), quant_format=QuantFormat.QDQ,
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8, per_channel=True)


if __name__ == "__main__":
    main()
