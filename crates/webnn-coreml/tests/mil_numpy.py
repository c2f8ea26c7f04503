"""numpy values for the MIL ops whose coremltools definitions fold no constants (conv,
conv_transpose, the three pools, softmax, gather_nd, scatter_nd, resize_bilinear), written
from the ops' documented semantics, so that programs with constant inputs fold through them too
and their values can be compared with the cpu backend's. `install()` attaches them to every
registered version of each op.
"""
import numpy as np

from coremltools.converters.mil.mil.ops.registry import SSAOpRegistry


def _vals(op, *names):
    """The constant values of the named inputs; no folding when any is not constant."""
    out = []
    for n in names:
        var = getattr(op, n, None)
        if var is None:
            out.append(None)
            continue
        if var.val is None:
            raise NotImplementedError
        out.append(np.asarray(var.val))
    return out


def _result(like, y):
    """`y` (computed in float64) in the input's element type."""
    return y.astype(like.dtype)


def _windows(x, k, s, d, pad, fill):
    """x [N, C, H, W] padded with `fill`, and for each window tap (a, b) the strided view
    [N, C, OH, OW] it sees."""
    t, b, l, r = pad
    xp = np.pad(x, ((0, 0), (0, 0), (t, b), (l, r)), constant_values=fill)
    oh = (xp.shape[2] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ow = (xp.shape[3] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    for a in range(k[0]):
        for c in range(k[1]):
            y0, x0 = a * d[0], c * d[1]
            yield a, c, xp[:, :, y0:y0 + (oh - 1) * s[0] + 1:s[0], x0:x0 + (ow - 1) * s[1] + 1:s[1]]


def conv(self):
    x0, w, bias, s, pad, d, g = _vals(self, "x", "weight", "bias", "strides", "pad", "dilations", "groups")
    x, w = x0.astype(np.float64), w.astype(np.float64)
    g = int(g)
    cout, cin_g = w.shape[0], w.shape[1]
    ys = []
    for gi in range(g):
        xs = x[:, gi * cin_g:(gi + 1) * cin_g]
        wg = w[gi * (cout // g):(gi + 1) * (cout // g)]
        acc = 0
        for a, c, view in _windows(xs, w.shape[2:], s, d, pad, 0.0):
            acc = acc + np.einsum("nchw,oc->nohw", view, wg[:, :, a, c])
        ys.append(acc)
    y = np.concatenate(ys, axis=1)
    if bias is not None:
        y = y + bias.reshape(1, -1, 1, 1)
    return _result(x0, y)


def conv_transpose(self):
    x0, w, bias, s, pad, d, g, shape = _vals(
        self, "x", "weight", "bias", "strides", "pad", "dilations", "groups", "output_shape")
    x, w = x0.astype(np.float64), w.astype(np.float64)
    g = int(g)
    n, cin, h, wd = x.shape
    cin_g, cout_g, kh, kw = w.shape[0] // g, w.shape[1], w.shape[2], w.shape[3]
    full_h = (h - 1) * s[0] + d[0] * (kh - 1) + 1
    full_w = (wd - 1) * s[1] + d[1] * (kw - 1) + 1
    full = np.zeros((n, cout_g * g, full_h, full_w))
    for gi in range(g):
        xs = x[:, gi * cin_g:(gi + 1) * cin_g]
        wg = w[gi * cin_g:(gi + 1) * cin_g]
        for a in range(kh):
            for c in range(kw):
                r0, c0 = a * d[0], c * d[1]
                full[:, gi * cout_g:(gi + 1) * cout_g, r0:r0 + (h - 1) * s[0] + 1:s[0],
                     c0:c0 + (wd - 1) * s[1] + 1:s[1]] += np.einsum("nchw,co->nohw", xs, wg[:, :, a, c])
    oh, ow = (int(shape[2]), int(shape[3])) if shape is not None else (
        full_h - pad[0] - pad[1], full_w - pad[2] - pad[3])
    # Rows past the full result (output padding) are zero before the bias.
    y = np.zeros((n, cout_g * g, oh, ow))
    part = full[:, :, pad[0]:pad[0] + oh, pad[2]:pad[2] + ow]
    y[:, :, :part.shape[2], :part.shape[3]] = part
    if bias is not None:
        y = y + bias.reshape(1, -1, 1, 1)
    return _result(x0, y)


def _pool(self, kind):
    x0, k, s, pad = _vals(self, "x", "kernel_sizes", "strides", "pad")
    x = x0.astype(np.float64)
    ones = np.ones_like(x[:1, :1])
    fill = -np.inf if kind == "max" else 0.0
    acc, count = None, 0
    for _, _, view in _windows(x, k, s, (1, 1), pad, fill):
        v = view * view if kind == "l2" else view
        acc = v if acc is None else (np.maximum(acc, v) if kind == "max" else acc + v)
    if kind == "l2":
        return _result(x0, np.sqrt(acc))
    if kind == "avg":
        exclude = self.exclude_padding_from_average is not None and bool(self.exclude_padding_from_average.val)
        if exclude:
            count = sum(view for _, _, view in _windows(ones, k, s, (1, 1), pad, 0.0))
        else:
            count = k[0] * k[1]
        return _result(x0, acc / count)
    return _result(x0, acc)


def softmax(self):
    x0, axis = _vals(self, "x", "axis")
    x = x0.astype(np.float64)
    e = np.exp(x - x.max(axis=int(axis), keepdims=True))
    return _result(x0, e / e.sum(axis=int(axis), keepdims=True))


def gather_nd(self):
    x, idx = _vals(self, "x", "indices")
    k = idx.shape[-1]
    flat = idx.reshape(-1, k)
    picked = np.stack([x[tuple(i)] for i in flat]) if len(flat) else np.zeros((0,) + x.shape[k:], x.dtype)
    return picked.reshape(idx.shape[:-1] + x.shape[k:])


def scatter_nd(self):
    data, idx, upd = _vals(self, "data", "indices", "updates")
    if str(self.mode.val) != "update":
        raise NotImplementedError
    out = data.copy()
    k = idx.shape[-1]
    flat = idx.reshape(-1, k)
    upd = upd.reshape((len(flat),) + data.shape[k:])
    for i, u in zip(flat, upd):
        out[tuple(i)] = u
    return out


def resize_bilinear(self):
    x0, th, tw = _vals(self, "x", "target_size_height", "target_size_width")
    if str(self.sampling_mode.val) != "UNALIGN_CORNERS":
        raise NotImplementedError
    y = x0.astype(np.float64)
    for axis, size in ((-2, int(th)), (-1, int(tw))):
        n = y.shape[axis]
        coord = np.clip((np.arange(size) + 0.5) * n / size - 0.5, 0, n - 1)
        lo = np.floor(coord).astype(int)
        hi = np.minimum(lo + 1, n - 1)
        t = coord - lo
        shape = [1] * y.ndim
        shape[axis] = size
        y = np.take(y, lo, axis=axis) * (1 - t).reshape(shape) + np.take(y, hi, axis=axis) * t.reshape(shape)
    return _result(x0, y)


VALUES = {
    "conv": conv,
    "conv_transpose": conv_transpose,
    "avg_pool": lambda self: _pool(self, "avg"),
    "max_pool": lambda self: _pool(self, "max"),
    "l2_pool": lambda self: _pool(self, "l2"),
    "softmax": softmax,
    "gather_nd": gather_nd,
    "scatter_nd": scatter_nd,
    "resize_bilinear": resize_bilinear,
}


def install():
    for op_type, fn in VALUES.items():
        for cls in set(SSAOpRegistry.core_ops[op_type].values()):
            cls.value_inference = fn
