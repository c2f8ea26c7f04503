"""MobileNetV2 (the seeded weights `webnn-www`'s bench writes to www/models/mobilenetv2/) built
op by op through a WebNN Python API, with calls both this package and pywebnn take."""

import json
import pathlib

import numpy as np

STAGES = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]


def load(model_dir):
    d = pathlib.Path(model_dir)
    m = json.loads((d / "manifest.json").read_text())
    blob = np.fromfile(d / m["weights"], dtype="<f4")
    return [blob[c["offset"] // 4 : c["offset"] // 4 + int(np.prod(c["shape"]))].reshape(c["shape"]) for c in m["constants"]]


def build(builder, constants):
    """The graph's `probabilities` output, the constants taken in the order the Rust builder
    made them (each convolution's filter, then its bias; the classifier's last)."""
    it = iter(constants)

    def conv(x, channels, k, stride, groups, linear):
        w, b = next(it), next(it)
        assert w.shape[0] == channels and w.shape[2] == k
        p = k // 2
        y = builder.conv2d(x, builder.constant(w), strides=[stride, stride], pads=[p, p, p, p], groups=groups,
                           bias=builder.constant(b))
        return y if linear else builder.clamp(y, min_value=0.0, max_value=6.0)

    x = builder.input("input", [1, 3, 224, 224], "float32")
    y, channels = conv(x, 32, 3, 2, 1, False), 32
    for t, c, n, s in STAGES:
        for i in range(n):
            stride = s if i == 0 else 1
            z = y
            hidden = channels * t
            if t != 1:
                z = conv(z, hidden, 1, 1, 1, False)
            z = conv(z, hidden, 3, stride, hidden, False)
            z = conv(z, c, 1, 1, 1, True)
            y = builder.add(y, z) if stride == 1 and channels == c else z
            channels = c
    y = conv(y, 1280, 1, 1, 1, False)
    # The window named: pywebnn does not default it to the whole input as the spec does.
    flat = builder.reshape(builder.average_pool2d(y, window_dimensions=[7, 7]), [1, 1280])
    fc, bias = next(it), next(it)
    logits = builder.gemm(flat, builder.constant(fc), c=builder.constant(bias), b_transpose=True)
    return builder.softmax(logits, 1)
