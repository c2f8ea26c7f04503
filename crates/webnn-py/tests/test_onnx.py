"""ONNX models from Python: a model a package ships (scripts/onnx-setup.sh), imported and run."""

import os
import pathlib

import numpy as np
import pytest

import webnn

MODELS = pathlib.Path(os.environ.get("WEBNN_ONNX_DIR", pathlib.Path.home() / ".cache/webnn-rs/onnx"))
CLS = MODELS / "rapidocr_onnxruntime/models/ch_ppocr_mobile_v2.0_cls_infer.onnx"


def test_text_direction_classifier():
    if not CLS.exists():
        if os.environ.get("CI") == "true":
            raise FileNotFoundError(f"{CLS}: scripts/onnx-setup.sh fetches it")
        pytest.skip(f"{CLS} is not here (bash scripts/onnx-setup.sh)")
    ctx = webnn.ML().create_context(device_type="cpu")
    g = ctx.load_onnx(CLS, dims={"x": "1x3x48x192"})
    (name,) = g.inputs
    assert g.inputs[name]["shape"] == [1, 3, 48, 192]
    rng = np.random.default_rng(7)
    out = ctx.compute(g, {name: rng.random((1, 3, 48, 192), np.float32)})
    (probs,) = out.values()
    assert probs.shape == (1, 2)
    np.testing.assert_allclose(probs.sum(), 1.0, rtol=1e-5)
    with pytest.raises(TypeError, match="positive"):
        ctx.load_onnx(CLS, dims="x=1x0x48x192")
