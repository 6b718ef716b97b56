"""The interpreter runs the numpy reference of every bitfold op that has one: its list of dialects
(`bitfold.interpreters.references.EVALUATED_DIALECTS`, kept below the driver's registry) holds every
registered dialect with an evaluable op."""

from bitfold.dialects.evaluation import NumpyEvaluable
from bitfold.interpreters.references import EVALUATED_DIALECTS
from bitfold.registry import get_all_dialects


def test_every_registered_dialect_with_numpy_references_is_evaluated():
    dialects = [factory() for factory in get_all_dialects().values()]
    evaluable = {d.name for d in dialects if any(issubclass(op, NumpyEvaluable) for op in d.operations)}
    assert evaluable == {d.name for d in EVALUATED_DIALECTS}
