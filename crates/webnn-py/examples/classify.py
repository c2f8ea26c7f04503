"""EfficientNet-Lite0 (ImageNet) classifying a picture through the WebNN Python API.

    python examples/classify.py chelsea.png [--device cpu|gpu] [--top 5]

The weights are the ones `bash scripts/models.sh` converts into www/models/efficientnet-lite0/
(batch norm folded into each convolution); a picture name found there (chelsea.png,
coffee.png) needs no path. The network is built op by op with MLGraphBuilder: a 3x3 stride-2
stem, 16 MBConv blocks, a 1x1 head, global average pooling, a 1280 -> 1000 gemm, softmax;
relu6 after every convolution but the projections, TensorFlow's SAME padding.
"""

import argparse
import json
import math
import os
import pathlib
import sys
import time
from typing import Any, Dict, List, Tuple

import numpy as np

import webnn

ROOT = pathlib.Path(__file__).resolve().parents[3]
MODEL = pathlib.Path(os.environ.get("WEBNN_MODELS_DIR", ROOT / "www" / "models")) / "efficientnet-lite0"
# The converter's PNG decoder and the ImageNet evaluation crop (scripts/models/).
sys.path.insert(0, str(ROOT / "scripts" / "models"))
from efficientnet_lite0 import center_crop, decode_png, resize_bilinear  # noqa: E402

SIZE = 224


def same_padding(n: int, kernel: int, stride: int) -> Tuple[int, int]:
    """TensorFlow's SAME: ceil(n / stride) outputs, the padding split floor-half before."""
    total = max((math.ceil(n / stride) - 1) * stride + kernel - n, 0)
    return total // 2, total - total // 2


class EfficientNet:
    def __init__(self, builder: webnn.MLGraphBuilder, weights: Dict[str, np.ndarray]) -> None:
        self.b, self.w = builder, weights

    def conv(self, x: webnn.MLOperand, name: str, stride: int, linear: bool) -> webnn.MLOperand:
        w = self.w[name + ".weight"]
        _, channels, size, _ = x.shape
        assert isinstance(channels, int) and isinstance(size, int)
        # A depthwise convolution: one filter input channel per group.
        groups = channels if w.shape[1] == 1 and w.shape[0] == channels and channels > 1 else 1
        before, after = same_padding(size, w.shape[2], stride)
        y = self.b.conv2d(
            x,
            self.b.constant(w),
            bias=self.b.constant(self.w[name + ".bias"]),
            strides=[stride, stride],
            padding=[before, after, before, after],
            groups=groups,
            label=name,
        )
        return y if linear else self.b.clamp(y, min_value=0.0, max_value=6.0, label=name + ".relu6")

    def build(self, blocks: List[Dict[str, int]]) -> webnn.MLGraph:
        x = self.b.input("input", [1, 3, SIZE, SIZE], "float32")
        y = self.conv(x, "_conv_stem", 2, False)
        for i, blk in enumerate(blocks):
            z = y
            if blk["expand"] != 1:
                z = self.conv(z, f"_blocks.{i}._expand_conv", 1, False)
            z = self.conv(z, f"_blocks.{i}._depthwise_conv", blk["stride"], False)
            z = self.conv(z, f"_blocks.{i}._project_conv", 1, True)
            y = self.b.add(y, z) if blk["stride"] == 1 and blk["in"] == blk["out"] else z
        y = self.conv(y, "_conv_head", 1, False)
        pooled = self.b.reshape(self.b.average_pool2d(y), [1, 1280])
        logits = self.b.gemm(
            pooled, self.b.constant(self.w["_fc.weight"]), c=self.b.constant(self.w["_fc.bias"]), b_transpose=True
        )
        return self.b.build({"probabilities": self.b.softmax(logits, 1)})


def load_weights(manifest: Dict[str, Any]) -> Dict[str, np.ndarray]:
    blob = np.fromfile(MODEL / manifest["weights"], dtype="<f4")
    out = {}
    for name, t in manifest["tensors"].items():
        n = int(np.prod(t["shape"]))
        out[name] = blob[t["offset"] // 4 : t["offset"] // 4 + n].reshape(t["shape"])
    return out


def picture(path: pathlib.Path) -> np.ndarray:
    """The ImageNet evaluation crop of a PNG, scaled to 224x224 and normalised, NCHW."""
    width, height, rgb = decode_png(path.read_bytes())
    pixels = resize_bilinear(width, height, rgb, center_crop(width, height), SIZE)
    x = (np.frombuffer(bytes(pixels), np.uint8).astype(np.float32) - 127.0) / 128.0
    return x.reshape(1, SIZE, SIZE, 3).transpose(0, 3, 1, 2).copy()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("picture")
    p.add_argument("--device", default="cpu", choices=["cpu", "gpu"])
    p.add_argument("--top", type=int, default=5)
    a = p.parse_args()
    path = pathlib.Path(a.picture)
    if not path.exists():
        path = MODEL / a.picture
    if not (MODEL / "manifest.json").exists():
        sys.exit(f"{MODEL} has no manifest.json: run bash scripts/models.sh")
    manifest = json.loads((MODEL / "manifest.json").read_text())
    labels = json.loads((MODEL / manifest["labels"]).read_text())

    context = webnn.ML().create_context(device_type=a.device)
    start = time.perf_counter()
    graph = EfficientNet(webnn.MLGraphBuilder(context), load_weights(manifest)).build(manifest["blocks"])
    built = time.perf_counter() - start
    x = picture(path)
    start = time.perf_counter()
    probabilities = context.compute(graph, {"input": x})["probabilities"][0]
    ran = time.perf_counter() - start
    print(f"{path.name} on {context.backend} ({context.device_name}): build {built * 1e3:.0f} ms, run {ran * 1e3:.1f} ms")
    for k in np.argsort(-probabilities)[: a.top]:
        print(f"{probabilities[k]:.4f}  {labels[k]}")


if __name__ == "__main__":
    main()
