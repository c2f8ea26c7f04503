"""The Python API itself: conversions, errors, tensors, lifetimes, the op methods."""

import gc
import resource
import tracemalloc

import numpy as np
import pytest

import webnn


@pytest.fixture(scope="module")
def ctx():
    return webnn.ML().create_context(device_type="cpu")


def test_context(ctx):
    assert ctx.backend == "cpu" and not ctx.destroyed
    assert "cpu" in repr(ctx)
    limits = ctx.op_support_limits()
    assert "float32" in limits["conv2d"]["input"]["dataTypes"]
    assert limits["conv2d"]["input"]["rankRange"] == {"min": 4, "max": 4}
    ref = webnn.create_context(backend="reference")
    assert ref.backend == "reference"
    with pytest.raises(TypeError, match="not a valid device type"):
        webnn.ML().create_context(device_type="tpu")


def test_every_op_is_a_method():
    names = [n for n, _, _, _ in webnn._webnn.op_signatures()]
    assert len(names) == 95
    for n in names:
        assert callable(getattr(webnn.MLGraphBuilder, webnn.snake_case(n)))
        assert callable(getattr(webnn.MLGraphBuilder, n))
    assert webnn.snake_case("reduceLogSumExp") == "reduce_log_sum_exp"
    assert webnn.snake_case("gatherND") == "gather_nd"
    assert webnn.snake_case("convTranspose2d") == "conv_transpose2d"
    assert webnn.snake_case("isNaN") == "is_nan"
    assert webnn.snake_case("l2Pool2d") == "l2_pool2d"


def test_conv2d_options_as_keywords(ctx):
    b = webnn.MLGraphBuilder(ctx)
    x = b.input("x", [1, 4, 4, 1], "float32")
    w = b.constant(np.ones((1, 2, 2, 1), np.float32))
    y = b.conv2d(x, w, strides=[2, 2], input_layout="nhwc", filter_layout="ohwi", label="down")
    assert y.shape == [1, 2, 2, 1] and y.data_type == "float32"
    assert repr(y) == "MLOperand(float32[1,2,2,1])"
    g = b.build({"y": y})
    out = ctx.compute(g, {"x": np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)})["y"]
    np.testing.assert_array_equal(out.reshape(2, 2), [[10, 18], [42, 50]])


def test_options_dict_and_sequences(ctx):
    b = webnn.MLGraphBuilder(ctx)
    x = b.input("x", [2, 6], "float32")
    parts = b.split(x, [2, 4], options={"axis": 1})
    assert [p.shape for p in parts] == [[2, 2], [2, 4]]
    m = b.reduce_mean(x, axes=[1], keep_dimensions=True)
    assert m.shape == [2, 1]
    g = b.build({"a": parts[0], "m": m})
    r = ctx.compute(g, {"x": np.arange(12, dtype=np.float32).reshape(2, 6)})
    np.testing.assert_array_equal(r["a"], [[0, 1], [6, 7]])
    np.testing.assert_allclose(r["m"], [[2.5], [8.5]])


def test_errors_name_op_label_and_rule(ctx):
    b = webnn.MLGraphBuilder(ctx)
    x = b.input("x", [2, 3], "float32")
    with pytest.raises(TypeError) as e:
        b.matmul(x, x, label="proj")
    assert e.value.op == "matmul" and e.value.label == "proj" and e.value.rule
    assert "matmul" in str(e.value) and "proj" in str(e.value)
    with pytest.warns(UserWarning, match="unknown arguments ignored: strides"):
        assert b.relu(x, strides=[1]).shape == [2, 3]
    with pytest.raises(TypeError, match="not a valid"):
        b.input("y", [2], "float64")
    with pytest.raises(TypeError):
        b.input("x", [2], "float32")  # a duplicate input name
    i = b.input("i", [2], "int32")
    with pytest.raises(TypeError):
        b.add(x, i)  # mismatched data types


def test_data_types_round_trip(ctx):
    b = webnn.MLGraphBuilder(ctx)
    outs = {}
    values = {
        "float16": np.array([1.5, -2.25, 65504, np.inf], np.float16),
        "int64": np.array([-(2**62), 2**40, -1, 7], np.int64),
        "uint64": np.array([2**63 + 5, 0, 1, 2**40], np.uint64),
        "int8": np.array([-128, 127, 0, -1], np.int8),
        "uint32": np.array([2**32 - 1, 0, 5, 9], np.uint32),
    }
    for t, v in values.items():
        outs[t] = b.identity(b.input(t, [4], t))
    g = b.build(outs)
    r = ctx.compute(g, values)
    for t, v in values.items():
        assert r[t].dtype == v.dtype, t
        np.testing.assert_array_equal(r[t], v)


def test_int4_packed(ctx):
    b = webnn.MLGraphBuilder(ctx)
    # int4 [-1, 2, -8, 7] packed low nibble first.
    packed = np.array([0x2F, 0x78], np.uint8)
    q = b.constant(packed, [4], "int4")
    scale = b.constant(np.ones(4, np.float32))
    zero = b.constant(np.zeros(2, np.uint8), shape=[4], data_type="int4")
    g = b.build({"y": b.dequantize_linear(q, scale, zero)})
    np.testing.assert_array_equal(ctx.compute(g, {})["y"], [-1, 2, -8, 7])


def test_tensors_dispatch_in_place_and_destroy(ctx):
    b = webnn.MLGraphBuilder(ctx)
    cache = b.input("cache", [4, 2], "float32")
    idx = b.input("idx", [1, 1], "int32")
    upd = b.input("upd", [1, 2], "float32")
    out = b.scatter_nd(cache, idx, upd)
    g = b.build({"out": out})
    t_cache = ctx.create_tensor([4, 2], "float32", readable=True, writable=True)
    t_idx = ctx.create_tensor([1, 1], "int32", readable=False)
    t_upd = ctx.create_tensor([1, 2], "float32")
    assert repr(t_cache) == "MLTensor(float32[4,2], readable, writable)"
    ctx.write_tensor(t_cache, np.zeros((4, 2)))
    for row in range(4):
        ctx.write_tensor(t_idx, [[row]])
        ctx.write_tensor(t_upd, [[row, row * 10]])
        ctx.dispatch(g, {"cache": t_cache, "idx": t_idx, "upd": t_upd}, {"out": t_cache})
    np.testing.assert_array_equal(ctx.read_tensor(t_cache), [[0, 0], [1, 10], [2, 20], [3, 30]])
    with pytest.raises(TypeError, match="not created readable"):
        ctx.read_tensor(t_idx)
    with pytest.raises(TypeError, match="bytes"):
        ctx.write_tensor(t_upd, np.zeros(3, np.float32))
    with pytest.raises(TypeError, match="cannot be int32"):
        ctx.write_tensor(t_idx, np.array([[1.5]]))
    t_cache.destroy()
    assert t_cache.destroyed
    with pytest.raises(TypeError, match="destroyed"):
        ctx.read_tensor(t_cache)
    g.destroy()
    with pytest.raises(webnn.InvalidStateError):
        ctx.dispatch(g, {}, {})


def test_destroyed_context():
    c = webnn.ML().create_context(device_type="cpu")
    b = webnn.MLGraphBuilder(c)
    c.destroy()
    with pytest.raises(webnn.InvalidStateError):
        b.input("x", [1], "float32")
    with pytest.raises(webnn.InvalidStateError):
        webnn.MLGraphBuilder(c)


def test_flexible_input(ctx):
    b = webnn.MLGraphBuilder(ctx)
    x = b.input("x", [{"name": "n", "max_size": 8}, 2], "float32")
    assert x.shape == [{"name": "n", "max_size": 8}, 2]
    g = b.build({"y": b.relu(x)})
    assert g.inputs["x"]["shape"][0] == {"name": "n", "max_size": 8}
    x3 = np.array([[-1, 2], [3, -4], [5, 6]], np.float32)
    t_in = ctx.create_tensor([3, 2], "float32", writable=True)
    t_out = ctx.create_tensor([3, 2], "float32", readable=True)
    ctx.write_tensor(t_in, x3)
    ctx.dispatch(g, {"x": t_in}, {"y": t_out})
    np.testing.assert_array_equal(ctx.read_tensor(t_out), np.maximum(x3, 0))


def test_cycles_keep_memory_flat(ctx):
    """1,000 build / compute / destroy cycles: resident memory stops growing."""
    x = np.ones((64, 64), np.float32)

    def cycle():
        b = webnn.MLGraphBuilder(ctx)
        a = b.input("a", [64, 64], "float32")
        g = b.build({"y": b.matmul(a, b.constant(x))})
        ctx.compute(g, {"a": x})
        g.destroy()

    for _ in range(200):
        cycle()
    gc.collect()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for _ in range(800):
        cycle()
    gc.collect()
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kib < 16 * 1024, f"peak RSS grew {grown_kib} KiB over 800 cycles"


def test_arrays_without_copies(ctx):
    """Arrays go in and come out without copies of their own: a write reads the array's memory
    in place and a read's array is the bytes the backend read. NumPy reports its data
    allocations to tracemalloc, so a copy on the Python side (tobytes(), a bytearray)
    would show as 16 MiB traced."""
    n = 4 * 1024 * 1024
    x = np.arange(n, dtype=np.float32)
    t = ctx.create_tensor([n], "float32", readable=True, writable=True)
    tracemalloc.start()
    try:
        ctx.write_tensor(t, x)
        y = ctx.read_tensor(t)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1024 * 1024, f"{peak} bytes traced for a 16 MiB write and read"
    assert np.array_equal(x, y)
    # The array's memory is owned by the object it was made over, and is writable.
    assert not y.flags.owndata and y.flags.writeable and y.flags.c_contiguous
    y[0] = 7.0
    assert y[0] == 7.0
    del y
    gc.collect()
    # Non-contiguous, other dtypes and big-endian data are converted first, then read in place.
    m = np.arange(12, dtype=">f8").reshape(3, 4).T
    u = ctx.create_tensor([4, 3], "float32", readable=True, writable=True)
    ctx.write_tensor(u, m)
    assert np.array_equal(ctx.read_tensor(u), m.astype(np.float32))
    # float16 and the packed int4 come back as numpy float16 and packed uint8.
    h = ctx.create_tensor([3], "float16", readable=True, writable=True)
    ctx.write_tensor(h, np.array([0.5, -2, 65504], np.float16))
    assert ctx.read_tensor(h).dtype == np.float16 and ctx.read_tensor(h)[2] == 65504
    q = ctx.create_tensor([4], "int4", readable=True, writable=True)
    ctx.write_tensor(q, np.array([0x21, 0xF7], np.uint8))
    assert ctx.read_tensor(q).tolist() == [0x21, 0xF7]


def test_pywebnn_spellings(ctx):
    """pywebnn's names: create_graph_builder, compute with output arrays, get_*_names, size."""
    b = ctx.create_graph_builder()
    x = b.input("x", [2, 3], "float32")
    y = b.reshape(b.softmax(x, 1), new_shape=[3, 2])
    g = b.build({"y": y})
    assert g.get_input_names() == ["x"] and g.get_output_names() == ["y"]
    out = np.zeros((3, 2), np.float32)
    r = ctx.compute(g, {"x": np.zeros((2, 3))}, {"y": out})
    np.testing.assert_allclose(out, np.full((3, 2), 1 / 3), rtol=1e-6)
    np.testing.assert_array_equal(r["y"], out)
    t = ctx.create_tensor([2, 3], "float32")
    assert t.readable and t.writable and t.size == 6
    with pytest.raises(AttributeError):
        b.no_such_op
    b2 = webnn.MLGraphBuilder(ctx)
    x = b2.input("x", [1, 2, 4, 4], "float32")
    w = b2.constant(np.ones((2, 1, 3, 3), np.float32))
    c = b2.conv2d(x, w, pads=[1, 1, 1, 1], groups=2)
    assert c.shape == [1, 2, 4, 4]
    assert b2.relu(x=x).shape == [1, 2, 4, 4]
    assert b2.global_average_pool(c).shape == [1, 2, 1, 1]
    assert b2.squeeze(b2.global_max_pool(c)).shape == [2]
    assert b2.unsqueeze(b2.squeeze(c), [0]).shape == [1, 2, 4, 4]
    assert b2.where_(b2.input("m", [4], "uint8"), b2.input("p", [4]), b2.input("q", [4])).shape == [4]


def test_threads():
    """Objects stay on the thread that made them (InvalidStateError elsewhere, never a crash);
    a context per thread works; compute releases the GIL, so Python threads run meanwhile."""
    import threading

    ctx = webnn.ML().create_context(device_type="cpu")
    seen = []

    def elsewhere():
        try:
            ctx.op_support_limits()
        except webnn.InvalidStateError as e:
            seen.append(str(e))

    t = threading.Thread(target=elsewhere)
    t.start()
    t.join()
    assert seen and "thread" in seen[0]

    results = {}

    def own(k):
        c = webnn.ML().create_context(device_type="cpu")
        b = webnn.MLGraphBuilder(c)
        x = b.input("x", [3], "float32")
        g = b.build({"y": b.mul(x, b.constant(np.full(3, float(k), np.float32)))})
        results[k] = c.compute(g, {"x": np.ones(3, np.float32)})["y"].tolist()

    threads = [threading.Thread(target=own, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {k: [float(k)] * 3 for k in range(4)}

    b = webnn.MLGraphBuilder(ctx)
    a = b.input("a", [768, 768], "float32")
    y = a
    for _ in range(12):
        y = b.matmul(y, a)
    g = b.build({"y": y})
    import time

    ticks = []
    stop = threading.Event()

    def count():
        while not stop.is_set():
            ticks.append(time.perf_counter())

    counter = threading.Thread(target=count)
    counter.start()
    time.sleep(0.01)
    t0 = time.perf_counter()
    ctx.compute(g, {"a": np.full((768, 768), 1e-3, np.float32)})
    t1 = time.perf_counter()
    stop.set()
    counter.join()
    # 12 chained 768x768 matmuls (11 GFLOP) take far longer than the 20 ms margins; with
    # the GIL held through them the counter could not tick inside the window at all.
    assert t1 - t0 > 0.05, t1 - t0
    inside = [t for t in ticks if t0 + 0.02 < t < t1 - 0.02]
    assert len(inside) > 10, (len(inside), t1 - t0)
