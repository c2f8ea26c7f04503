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


def test_convert_to_onnx_and_back(tmp_path):
    """A graph built here, written as ONNX (webnn-onnx), read back by the importer: same results."""
    ctx = webnn.ML().create_context(device_type="cpu")
    b = ctx.create_graph_builder()
    x = b.input("x", [2, 8], "float32")
    w = b.constant(np.linspace(-1, 1, 8 * 4, dtype=np.float32).reshape(8, 4))
    y = b.softmax(b.gemm(x, w, c=b.constant(np.ones(4, np.float32))), 1)
    g = b.build({"y": y})
    assert (g.operand_count, g.operation_count) == (5, 2)
    path = tmp_path / "graph.onnx"
    ctx.convert_to_onnx(g, path)
    back = ctx.load_onnx(path)
    (name,) = back.get_input_names()
    x_value = np.random.default_rng(3).random((2, 8), np.float32)
    want = ctx.compute(g, {"x": x_value})["y"]
    (got,) = ctx.compute(back, {name: x_value}).values()
    np.testing.assert_allclose(got, want, rtol=1e-6)
    g.destroy()
    with pytest.raises(webnn.NotSupportedError):
        ctx.convert_to_onnx(g, path)
    with pytest.raises(webnn.NotSupportedError, match="imported"):
        ctx.convert_to_onnx(back, path)


def test_pywebnn_context_members():
    """What pywebnn's offline examples call beyond the spec (python_simple.py, python_matmul.py,
    dispatch_example.py, kv_cache_device_tensors.py run with this package)."""
    ctx = webnn.ML().create_context(device_type="cpu", power_preference="low_power")
    assert ctx.power_preference == "low-power"
    assert ctx.backend_info()["backend"] == "cpu"
    b = ctx.create_graph_builder()
    g = b.build({"y": b.relu(b.input("x", [2], "float32"))})
    host = ctx.create_host_tensor([2], "float32")
    device = ctx.create_device_tensor(g, [2], "float32")
    ctx.write_tensor(host, [-1.0, 2.0])
    ctx.dispatch(g, {"x": host}, {"y": device})
    np.testing.assert_array_equal(ctx.read_tensor(device), [0.0, 2.0])
