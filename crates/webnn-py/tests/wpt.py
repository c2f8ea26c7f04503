"""The WPT conformance vectors (tests/wpt/conformance/*.json) through the Python API: each
case's graph built with ``MLGraphBuilder`` methods, run with ``MLContext.compute`` and
compared with WPT's rules (ULP on float32 sign-magnitude bits, raw-uint16 distance for
float16, integer distance, ATOL; an expected NaN means NaN), as the Rust harness does
(crates/webnn-wpt). Cases the context's ``op_support_limits()`` rules out are skipped, as
WPT skips them."""

import json
import math
import pathlib

import numpy as np

import webnn

ROOT = pathlib.Path(__file__).resolve().parents[3]
VECTORS = ROOT / "tests" / "wpt" / "conformance"
EXPECTED = ROOT / "crates" / "webnn-wpt" / "expected"
# WPT's kMaximumIndexToValidate: an output written as one fill value is checked this far.
MAX_INDEX_TO_VALIDATE = 1000
NP = {
    "float32": np.float32, "float16": np.float16, "int32": np.int32, "uint32": np.uint32,
    "int64": np.int64, "uint64": np.uint64, "int8": np.int8, "uint8": np.uint8,
}
WIDER = {
    "int4": ["int8", "int32", "int64", "float16", "float32"],
    "uint4": ["uint8", "int8", "int32", "uint32", "int64", "uint64", "float16", "float32"],
    "int8": ["int32", "int64", "float16", "float32"],
    "uint8": ["int32", "uint32", "int64", "uint64", "float16", "float32"],
    "float16": ["float32"], "int32": ["int64"], "uint32": ["uint64", "int64"],
}
ALL_TYPES = ["float32", "float16", "int32", "uint32", "int64", "uint64", "int8", "uint8", "int4", "uint4"]
SPECIAL = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf, "-0": -0.0}


class Skip(Exception):
    pass


def expected_failures(backend, suite="conformance"):
    """``<suite>/<file>/<case>`` of the backend's expected-failure list."""
    out = set()
    for line in (EXPECTED / f"{backend}.txt").read_text().splitlines():
        line = line.strip()
        if line.startswith(suite + "/"):
            out.add(line.split(" # ")[0])
    return out


def scalar(v):
    if isinstance(v, str):
        return SPECIAL[v] if v in SPECIAL else int(v)
    return v


def to_half(value):
    """WPT's toHalf(): float16 bits of a value rounded through float32, as its utils.js does."""
    x = int(np.array(value, np.float32).view(np.int32))
    bits = (x >> 16) & 0x8000
    m = (x >> 12) & 0x07FF
    e = (x >> 23) & 0xFF
    if e < 103:
        return bits
    if e > 142:
        bits |= 0x7C00
        if e != 255:
            bits |= x & 0x007FFFFF
        return bits & 0xFFFF
    if e < 113:
        m |= 0x0800
        return bits | ((m >> (114 - e)) + ((m >> (113 - e)) & 1))
    bits |= ((e - 112) << 10) | (m >> 1)
    return (bits + (m & 1)) & 0xFFFF


def to_integer(v, bits, signed):
    """A number stored into an integer typed array: truncated, wrapped (NaN and infinities 0)."""
    if isinstance(v, float):
        v = 0 if not math.isfinite(v) else math.trunc(v)
    v &= (1 << bits) - 1
    if signed and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v


def elements(shape):
    return int(np.prod(shape, dtype=np.int64)) if shape else 1


def encode(data_type, data, shape):
    """The case's data as an array webnn takes for ``data_type``: float16 as WPT rounds it,
    int4/uint4 packed two to a byte."""
    n = elements(shape)
    values = [scalar(x) for x in data] if isinstance(data, list) else [scalar(data)] * n
    if len(values) != n:
        raise Skip(f"harness: {len(values)} values for {n} elements")
    if data_type == "float16":
        bits = [0x7E00 if isinstance(v, float) and math.isnan(v) else to_half(v) for v in values]
        return np.array(bits, np.uint16).view(np.float16).reshape(shape)
    if data_type in ("int4", "uint4"):
        packed = np.zeros((n + 1) // 2, np.uint8)
        for i, v in enumerate(values):
            packed[i // 2] |= (to_integer(v, 32, True) & 0xF) << ((i % 2) * 4)
        return packed
    if data_type == "float32":
        return np.array(values, np.float64).astype(np.float32).reshape(shape)
    bits = np.dtype(NP[data_type]).itemsize * 8
    signed = data_type.startswith("int")
    return np.array([to_integer(v, bits, signed) for v in values], NP[data_type]).reshape(shape)


def unpack4(packed, n, signed):
    """int4/uint4 values from the packed bytes webnn reads them as (low nibble first)."""
    nibbles = np.stack([packed & 0xF, packed >> 4], axis=1).reshape(-1)[:n].astype(np.int8)
    return np.where(nibbles >= 8, nibbles - 16, nibbles) if signed else nibbles


def sign_magnitude(x):
    """float32 bits of |x|, negated for x < 0 (±0 both 0); NaN as the canonical quiet NaN."""
    x = np.asarray(x, np.float32)
    mag = (x.view(np.int32).astype(np.int64)) & 0x7FFFFFFF
    mag = np.where(np.isnan(x), 0x7FC00000, mag)
    return np.where(x < 0, -mag, mag)


def check(name, data_type, actual, data, tol):
    """WPT's comparison of one output; a message on the first element out of tolerance."""
    actual = actual.reshape(-1)
    n = actual.size
    if isinstance(data, list):
        if len(data) != n:
            return f"output '{name}': {n} elements, expected {len(data)}"
        count, exp = n, [scalar(x) for x in data]
    else:
        count = min(n, MAX_INDEX_TO_VALIDATE)
        exp = [scalar(data)] * count
    metric, limit = tol["metricType"], float(scalar(tol["value"]))
    bad = []
    for i in range(count):
        a, e = actual[i], exp[i]
        if isinstance(e, float) and math.isnan(e):
            if not np.isnan(a):
                bad.append((i, a, e, "expected NaN"))
            continue
        if metric == "ATOL":
            if float(a) == float(e):
                continue
            d = abs(float(a) - float(e))
        elif data_type == "float32":
            d = abs(int(sign_magnitude(a)) - int(sign_magnitude(np.float32(e))))
        elif data_type == "float16":
            ab, eb = int(np.array(a, np.float16).view(np.uint16)), to_half(e)
            d = 0 if (ab & 0x7FFF) == 0 and (eb & 0x7FFF) == 0 else abs(ab - eb)
        else:
            d = abs(int(a) - int(e)) if not isinstance(e, float) or e.is_integer() else abs(float(a) - e)
        if not d <= limit:
            bad.append((i, a, e, f"distance {d}"))
    if not bad:
        return None
    i, a, e, why = bad[0]
    return f"output '{name}' ({data_type}): {len(bad)} of {count} out of tolerance ({metric} {limit}); first at {i}: actual {a}, expected {e} ({why})"


def resolve(v, operands):
    if isinstance(v, str) and v in operands:
        return operands[v]
    if isinstance(v, list):
        return [resolve(x, operands) for x in v]
    if isinstance(v, dict):
        return {k: resolve(x, operands) for k, x in v.items()}
    return v


def compatible(data_type, supported):
    return next((w for w in WIDER.get(data_type, []) if w in supported), None)


def run_case(ctx, limits, case):
    """Raises Skip when the case does not apply; returns None on a pass, else why it failed."""
    graph, tol = case["graph"], case["tolerance"]
    cast = bool(case.get("castToSupportedType"))
    b = webnn.MLGraphBuilder(ctx)
    operands, feeds = {}, {}
    try:
        for name, t in graph["inputs"].items():
            dt, shape = t["descriptor"]["dataType"], t["descriptor"]["shape"]
            supported = limits.get("constant" if t.get("constant") else "input", {}).get("dataTypes", ALL_TYPES)
            use = dt
            if dt not in supported:
                use = compatible(dt, supported) if cast else None
                if use is None:
                    raise Skip(f"input '{name}' is {dt}")
            data = encode(use, t["data"], shape)
            if t.get("constant"):
                o = b.constant(data, shape, use)
            else:
                o = b.input(name, shape, use)
                feeds[name] = data
            if use != dt:
                o = b.cast(o, dt)
            operands[name] = o
        for op in graph["operators"]:
            method = op["name"]
            params, options = {}, {}
            for arg in op.get("arguments", []):
                if arg is None:
                    continue
                for k, v in arg.items():
                    if k == "options":
                        options = resolve(v, operands)
                    else:
                        params[k] = resolve(v, operands)
            if not cast:
                slots = limits.get(method, {})
                for slot, v in list(params.items()) + list(options.items()):
                    for o in v if isinstance(v, list) else [v]:
                        if slot in slots and isinstance(o, webnn.MLOperand) and o.data_type not in slots[slot].get("dataTypes", ALL_TYPES):
                            raise Skip(f"{method}.{slot}: {o.data_type}")
            # The vectors list arguments in the IDL's order, under names that do not always
            # match it (cast's `dataType` is the IDL's `type`): positional, as WPT passes them.
            outs = getattr(b, webnn.snake_case(method))(*params.values(), options=options)
            names = op["outputs"] if isinstance(op["outputs"], list) else [op["outputs"]]
            outs = outs if isinstance(outs, list) else [outs]
            operands.update(zip(names, outs))
        wanted = {}
        for name, t in graph["expectedOutputs"].items():
            o, dt = operands[name], t["descriptor"]["dataType"]
            output_types = limits.get("output", {}).get("dataTypes", ALL_TYPES)
            if dt not in output_types:
                use = compatible(dt, output_types) if cast else None
                if use is None:
                    raise Skip(f"output '{name}' is {dt}")
                o, dt = b.cast(o, use), use
            wanted[name] = (o, dt, t)
        g = b.build({n: o for n, (o, _, _) in wanted.items()})
        names = g.get_input_names()
        results = ctx.compute(g, {n: v for n, v in feeds.items() if n in names})
    except Skip:
        raise
    except (TypeError, webnn.WebNNError) as e:
        return f"{type(e).__name__}: {e}"
    failures = []
    for name, (_, dt, t) in wanted.items():
        actual = results[name]
        if dt in ("int4", "uint4"):
            actual = unpack4(actual, elements(t["descriptor"]["shape"]), dt == "int4").reshape(t["descriptor"]["shape"])
        if list(actual.shape) != list(t["descriptor"]["shape"]):
            failures.append(f"output '{name}' has shape {list(actual.shape)}, expected {t['descriptor']['shape']}")
            continue
        m = check(name, dt, actual, t["data"], tol)
        if m:
            failures.append(m)
    return "; ".join(failures) or None


def run_all(ctx, only=None):
    """{'conformance/<file>/<case>': None | message | Skip} over every vector file."""
    limits = ctx.op_support_limits()
    results = {}
    for path in sorted(VECTORS.glob("*.json")):
        if path.name.startswith("_") or (only and path.stem not in only):
            continue
        for case in json.loads(path.read_text())["cases"]:
            key = f"conformance/{path.stem}/{case['name']}"
            try:
                results[key] = run_case(ctx, limits, case)
            except Skip as s:
                results[key] = s
    return results


# ---- validation rows (tests/wpt/validation/*.json) ----

VALIDATION = ROOT / "tests" / "wpt" / "validation"
# Files whose rows expect success only where opSupportLimits() has the inputs' data types.
SUPPORT_GATED = {"conv2d", "convTranspose2d", "gatherND", "gru", "gruCell", "lstm", "lstmCell",
                 "instanceNormalization", "layerNormalization", "where"}
NOT_ARGUMENTS = {"name", "testName", "output", "outputs", "options"}
VIEW = {"Float32Array": np.float32, "Float64Array": np.float64, "Int32Array": np.int32,
        "Uint32Array": np.uint32, "Int8Array": np.int8, "Uint8Array": np.uint8,
        "Int16Array": np.int16, "Uint16Array": np.uint16, "BigInt64Array": np.int64,
        "BigUint64Array": np.uint64, "Float16Array": np.float16}
# The typed arrays a page may pass for each data type (float16 also as a Uint16Array of bits).
NATURAL_VIEWS = {"float32": {"Float32Array"}, "float16": {"Float16Array", "Uint16Array"},
                 "int32": {"Int32Array"}, "uint32": {"Uint32Array"}, "int64": {"BigInt64Array"},
                 "uint64": {"BigUint64Array"}, "int8": {"Int8Array"}, "uint8": {"Uint8Array"},
                 "int4": {"Uint8Array"}, "uint4": {"Uint8Array"}}


def is_descriptor(v):
    return isinstance(v, dict) and "dataType" in v and "shape" in v


def prepare(b, row):
    """The row's arguments with each descriptor made an input operand."""
    params, options = [], {}
    for k, v in row.items():
        if k in NOT_ARGUMENTS:
            continue
        if is_descriptor(v):
            params.append((k, b.input(k, v["shape"], v["dataType"])))
        elif isinstance(v, list) and v and is_descriptor(v[0]):  # concat's inputs
            params.append((k, [b.input(f"{k}{i}", d["shape"], d["dataType"]) for i, d in enumerate(v)]))
        elif isinstance(v, dict) and v and all(is_descriptor(d) for d in v.values()):  # matmul's {a, b}
            params.extend((kk, b.input(kk, d["shape"], d["dataType"])) for kk, d in v.items())
        else:
            params.append((k, v))
    for k, v in (row.get("options") or {}).items():
        options[k] = b.input(f"options.{k}", v["shape"], v["dataType"]) if is_descriptor(v) else v
    return params, options


def call_row(b, method, row, signature):
    """The row's call: parameters the IDL names go positionally in its order; the others
    (option members some rows write beside them, as gather's ``axis``) into the options."""
    params, options = prepare(b, row)
    order = [p for p, _, _ in signature if p != "options"]
    named = dict(params)
    positional = []
    for p in order:
        if p not in named:
            break
        positional.append(named.pop(p))
    # Names the IDL spells differently (cast's `type`, logicalNot's `input`) stay positional
    # in row order when no IDL name matched at all.
    if not positional and named:
        positional, named = [v for _, v in params], {}
    options = {**named, **options}
    outs = getattr(b, webnn.snake_case(method))(*positional, options=options)
    return outs if isinstance(outs, list) else [outs]


def judge(outs, err, row, label):
    want = [row["output"]] if "output" in row else row.get("outputs")
    if want is None:
        if err is None:
            return f"expected a TypeError, built {[(o.data_type, o.shape) for o in outs]}"
        if not isinstance(err, TypeError):
            return f"expected a TypeError, got {type(err).__name__}: {err}"
        if label and f"[{label}]" not in str(err):
            return f"the TypeError does not name [{label}]: {err}"
        return None
    if err is not None:
        return f"expected success, got {type(err).__name__}: {err}"
    if len(outs) != len(want):
        return f"built {len(outs)} outputs, expected {len(want)}"
    for o, w in zip(outs, want):
        if ("dataType" in w and o.data_type != w["dataType"]) or o.shape != w["shape"]:
            return f"built {o.data_type} {o.shape}, expected {w.get('dataType', 'any type')} {w['shape']}"
    return None


def run_validation(ctx):
    """{'validation/<file>/<row>': None | message | Skip}."""
    limits = ctx.op_support_limits()
    signatures = {m: params for m, _, params, _ in webnn._webnn.op_signatures()}
    results = {}
    for path in sorted(VALIDATION.glob("*.json")):
        data = json.loads(path.read_text())
        file = path.stem
        lists = [m for ms in data.get("operatorLists", {}).values() for m in ms]
        for table in data["tables"]:
            methods = table.get("builderMethods") or lists
            for row in table["cases"]:
                name = row.get("testName") or row.get("name")
                key = f"validation/{file}/{name}"
                label = (row.get("options") or {}).get("label")
                verdicts = []
                for method in methods or [file]:
                    b = webnn.MLGraphBuilder(ctx)
                    outs, err = [], None
                    try:
                        if file == "input":
                            d = row["descriptor"]
                            outs = [b.input(row["name"], d["shape"], d["dataType"])]
                        elif file == "constant":
                            d, buf = row["descriptor"], row["buffer"]
                            if row.get("viewTestOnly") or buf["type"] not in NATURAL_VIEWS.get(d["dataType"], {buf["type"]}):
                                # WebIDL's typed-array kinds are JavaScript's: Python passes
                                # NumPy arrays, which convert within a kind.
                                raise Skip("a typed-array view rule (JavaScript's)")
                            t = np.dtype(VIEW[buf["type"]])
                            data_ = np.zeros(buf["byteLength"] // t.itemsize, t)
                            if d["dataType"] == "float16":
                                data_ = data_.view(np.float16)
                            outs = [b.constant(data_, d["shape"], d["dataType"])]
                        else:
                            if file in SUPPORT_GATED and ("output" in row or "outputs" in row):
                                slots = limits.get(method, {})
                                for k, v in row.items():
                                    if is_descriptor(v) and k in slots and v["dataType"] not in slots[k]["dataTypes"]:
                                        row = {k2: v2 for k2, v2 in row.items() if k2 not in ("output", "outputs")}
                            outs = call_row(b, method, row, signatures[method])
                    except Skip as s:
                        verdicts.append(s)
                        break
                    except (TypeError, webnn.WebNNError) as e:
                        err = e
                    verdicts.append(judge(outs, err, row, label))
                if verdicts and isinstance(verdicts[-1], Skip):
                    results[key] = verdicts[-1]
                    continue
                bad = [f"{m}: {v}" if len(verdicts) > 1 else v for m, v in zip(methods or [file], verdicts) if v]
                results[key] = "; ".join(bad) or None
    return results
