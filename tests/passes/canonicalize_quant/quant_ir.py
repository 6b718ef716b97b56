"""Build, parse and run quant-form IR for the canonicalize-quant tests."""

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, ModuleOp, TensorType
from xdsl.dialects.func import Func
from xdsl.parser import Parser

import bitfold
from bitfold.dialects.evaluation import numpy_dtype_of


def parse(text: str) -> tuple[Context, ModuleOp]:
    ctx = Context()
    ctx.load_dialect(Builtin)
    ctx.load_dialect(Func)
    bitfold.register_into(ctx)
    module = Parser(ctx, text).parse_module()
    module.verify()
    return ctx, module


def random_inputs(module: ModuleOp, rng: np.random.Generator) -> list[np.ndarray]:
    """Float arguments: multiples of 0.025 (ties of the test scales) mixed with normal
    noise, spanning beyond the i8 ranges of the tests' scales."""
    function = next(iter(module.ops))
    inputs = []
    for arg_type in function.function_type.inputs:
        assert isinstance(arg_type, TensorType)
        shape = tuple(arg_type.get_shape())
        grid = rng.integers(-600, 600, shape) * 0.025
        noise = rng.normal(0, 4, shape)
        inputs.append(np.where(rng.random(shape) < 0.5, grid, noise).astype(numpy_dtype_of(arg_type)))
    return inputs


def bits(outputs: dict[str, np.ndarray]) -> dict[str, bytes]:
    """Each output's bytes with its dtype and shape: equal means bit-identical."""
    return {name: (value.dtype.str, value.shape, value.tobytes()) for name, value in outputs.items()}
