"""xDSL 0.74's parsers raise Python exceptions instead of a `ParseError` on some malformed text.

`XDSL_PARSER_CRASHES` are the types they raise: ValueError (`iterator_types = ["banana"]` in
`linalg.generic`, from the enum; `dense<300> : tensor<2xi8>`, from
`IntegerType.get_normalized_value`), NotImplementedError (`array<i333: 1>`); these are all that
3,000 mutated `.mlir` texts of `tests/fuzz` and `tests/driver/test_hostile_input.py` raise.
`raised_by_xdsl(error)` tells such a crash from the same exception raised by bitfold's own code
(a type parser of its dialects, the driver's parser), which is a bug and must not be reported as
the user's parse error."""

XDSL_PARSER_CRASHES = (ValueError, NotImplementedError)


def raised_by_xdsl(error: BaseException) -> bool:
    """Whether the innermost frame of `error`'s traceback that is xDSL's or bitfold's is xDSL's
    (frames of other libraries, numpy or the standard library, that either called are skipped)."""
    owner = None
    frame = error.__traceback__
    while frame is not None:
        module = frame.tb_frame.f_globals.get("__name__", "")
        if module.split(".")[0] in ("xdsl", "bitfold"):
            owner = module.split(".")[0]
        frame = frame.tb_next
    return owner == "xdsl"
