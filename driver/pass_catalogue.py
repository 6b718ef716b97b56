"""bitfold's passes described for `bitfold-opt --help`: one line each, the first sentence of the
pass class's docstring, and the options a `-p` spec can set (`name{option=value}`) with their
types and defaults, read from the pass dataclass's fields through xDSL's `get_pass_option_infos`."""

import dataclasses
import re

from xdsl.passes import ModulePass, get_pass_option_infos

from bitfold.registry import get_all_passes

SPEC_OPTION_TYPES = (bool, int, float, str)
"""Field types a pass spec can spell; other fields (an output stream, results) are not options."""


def first_sentence(text: str | None) -> str:
    """The docstring's first sentence (its first paragraph if no sentence ends in it), on one line."""
    paragraph = " ".join((text or "").strip().split("\n\n")[0].split())
    match = re.match(r"(.+?\.)(\s|$)", paragraph)
    return match.group(1) if match else paragraph


def spec_options(pass_class: type[ModulePass]) -> list[str]:
    """`name=default` for each option of the pass that a `-p` spec can set, hyphenated as in a spec."""
    settable = {f.name for f in dataclasses.fields(pass_class) if f.init and f.type in SPEC_OPTION_TYPES}
    return [
        f"{info.name.replace('_', '-')}={info.default_value}" if info.default_value is not None
        else f"{info.name.replace('_', '-')} ({info.expected_type})"
        for info in get_pass_option_infos(pass_class)
        if info.name in settable
    ]


def describe_passes() -> str:
    """The `--help` epilog: every bitfold pass, its options in braces, and what it does."""
    lines = ["bitfold's passes (-p NAME or -p 'NAME{option=value}'):"]
    for name, factory in get_all_passes().items():
        pass_class = factory()
        options = spec_options(pass_class)
        spelled = f"{name}{{{', '.join(options)}}}" if options else name
        lines.append(f"  {spelled}: {first_sentence(pass_class.__doc__)}")
    return "\n".join(lines)
