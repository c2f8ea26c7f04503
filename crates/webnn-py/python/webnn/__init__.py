"""The W3C Web Neural Network API (WebNN) for Python.

    import numpy as np, webnn
    context = webnn.ML().create_context(device_type="cpu")
    builder = webnn.MLGraphBuilder(context)
    x = builder.input("x", [2, 2], "float32")
    y = builder.relu(builder.add(x, builder.constant(np.ones((2, 2), np.float32))))
    graph = builder.build({"y": y})
    context.compute(graph, {"x": np.array([[-3, 0], [1, 2]], np.float32)})["y"]

The builder has every operation of the spec as a snake_case method (``reduce_mean``,
``conv_transpose2d``; the spec's camelCase names work too), taking the spec's positional
arguments and its options dictionary as keyword arguments (``strides=[2, 2]``,
``input_layout="nhwc"``) or as a dict. Errors are the exceptions the spec names:
``TypeError``, and ``DataError``, ``OperationError``, ``NotSupportedError``,
``InvalidStateError`` (subclasses of ``WebNNError``), each with ``op``, ``label`` and
``rule`` attributes.
"""

import re as _re

from ._webnn import (
    ML,
    MLContext,
    MLGraph,
    MLGraphBuilder as _Builder,
    MLOperand,
    MLTensor,
    WebNNError,
    DataError,
    OperationError,
    NotSupportedError,
    InvalidStateError,
    op_signatures as _op_signatures,
    snake_case,
)

__all__ = [
    "ML",
    "MLContext",
    "MLGraph",
    "MLGraphBuilder",
    "MLOperand",
    "MLTensor",
    "WebNNError",
    "DataError",
    "OperationError",
    "NotSupportedError",
    "InvalidStateError",
    "create_context",
    "snake_case",
]


class MLGraphBuilder(_Builder):
    """``MLGraphBuilder(context)``: ``input``, ``constant``, ``build`` and one method per op."""

    __slots__ = ()


def _method(name, python_name, params, sequence):
    positional = [p for p, _, _ in params if p != "options"]

    def op(self, *args, options=None, **kwargs):
        merged = dict(options or {})
        merged.update(kwargs)
        return self._op(name, args, merged)

    op.__name__ = python_name
    op.__qualname__ = "MLGraphBuilder." + op.__name__
    returns = "a list of MLOperand" if sequence else "an MLOperand"
    op.__doc__ = "``{}({})``: returns {}. Options as keyword arguments or ``options=dict``.".format(
        name, ", ".join(positional + (["**options"] if any(p == "options" for p, _, _ in params) else [])), returns
    )
    return op


for _name, _python_name, _params, _sequence in _op_signatures():
    _m = _method(_name, _python_name, _params, _sequence)
    setattr(MLGraphBuilder, _python_name, _m)
    if _python_name != _name:
        setattr(MLGraphBuilder, _name, _m)


def _squeeze(self, input, axes=None):
    """pywebnn's ``squeeze``: ``reshape`` without the size-1 axes (all, or ``axes``)."""
    shape = input.shape
    drop = [i for i, n in enumerate(shape) if n == 1] if axes is None else [a % len(shape) for a in axes]
    return self.reshape(input, [n for i, n in enumerate(shape) if i not in drop])


def _unsqueeze(self, input, axes):
    """pywebnn's ``unsqueeze``: ``reshape`` with size-1 axes inserted at ``axes``."""
    shape = list(input.shape)
    rank = len(shape) + len(axes)
    for a in sorted(a % rank for a in axes):
        shape.insert(a, 1)
    return self.reshape(input, shape)


def _global_pool(op):
    def pool(self, input, layout="nchw", **options):
        """pywebnn's global pooling: the pool over the whole spatial extent (the spec's default window)."""
        return getattr(self, op)(input, layout=layout, **options)

    pool.__name__ = "global_" + op.split("_")[0] + "_pool"
    return pool


MLGraphBuilder.squeeze = _squeeze
MLGraphBuilder.unsqueeze = _unsqueeze
MLGraphBuilder.global_average_pool = _global_pool("average_pool2d")
MLGraphBuilder.global_max_pool = _global_pool("max_pool2d")
MLGraphBuilder.where_ = MLGraphBuilder.where


def create_context(**options):
    """``ML().create_context(**options)``."""
    return ML().create_context(**options)
