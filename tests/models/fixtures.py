"""pytest fixtures serving the test models (see recipes.py); loaded by tests/conftest.py.

Models are built lazily, once per test session, into a session temporary directory:

    @pytest.mark.parametrize("name", names("qdq"))      # from models.recipes import names
    def test_imports_every_qdq_model(name, model_catalogue):
        path = model_catalogue.path(name)                     # built on first use, then cached
        inputs = model_catalogue.inputs(name, seed=0)
        expected = model_catalogue.run(name, inputs)          # onnxruntime, the QDQ oracle
"""

import pytest

from .recipes import ModelCatalogue


@pytest.fixture(scope="session")
def model_catalogue(tmp_path_factory) -> ModelCatalogue:
    """The session's `ModelCatalogue`: `.path(name)`, `.load(name)`, `.inputs(name, seed)`,
    `.run(name, inputs)` (the model's oracle: onnxruntime, or qonnx's executor for QONNX)."""
    return ModelCatalogue(tmp_path_factory.mktemp("bitfold-test-models"))
