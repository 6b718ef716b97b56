"""pytest fixtures serving the test models (see recipes.py); loaded by tests/conftest.py.

Models are built lazily, once per test session, into a session temporary directory:

    @pytest.mark.parametrize("name", names("qdq"))      # from models.recipes import names
    def test_imports_every_qdq_model(name, model_catalogue):
        path = model_catalogue.path(name)                     # built on first use, then cached
        inputs = model_catalogue.inputs(name, seed=0)
        expected = model_catalogue.run(name, inputs)          # onnxruntime, the QDQ oracle

`catalogue_compilations(name, target)` is `compile_model` of a catalogue model, likewise made once per
session: a model compiled for the same target in several test files is compiled once a worker.
"""

import pytest

from bitfold.compile import CompiledModel, compile_model
from bitfold.load import load_module

from .recipes import ModelCatalogue


@pytest.fixture(scope="session")
def model_catalogue(tmp_path_factory) -> ModelCatalogue:
    """The session's `ModelCatalogue`: `.path(name)`, `.load(name)`, `.inputs(name, seed)`,
    `.run(name, inputs)` (the model's oracle: onnxruntime, or qonnx's executor for QONNX)."""
    return ModelCatalogue(tmp_path_factory.mktemp("bitfold-test-models"))


@pytest.fixture(scope="session")
def catalogue_compilations(model_catalogue):
    """`(name, target, backend="xdsl") -> CompiledModel`: `compile_model` of a catalogue model, made on
    the first request of the session (of the xdist worker) and shared by every test file that asks the
    same; tests read it, never change it."""
    cache: dict[tuple[str, str, str], CompiledModel] = {}

    def compiled(name: str, target: str, backend: str = "xdsl") -> CompiledModel:
        key = (name, target, backend)
        if key not in cache:
            cache[key] = compile_model(load_module(str(model_catalogue.path(name))), target, backend=backend)
        return cache[key]

    return compiled
