"""The library's rejected arguments, worded with the Python package's names.

The extension raises ``_dpkit.ArgumentError`` (a ValueError) with the parts of the library's
``dpkit::argument_error`` as attributes: ``function``, ``name`` (the library's spelling of the
argument), ``value`` and ``constraint``. Each Python module says how the library's names map to
its keywords; the message is built from the parts, never read back from text.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Tuple

from . import _dpkit

# The library's names that every module spells differently.
_COMMON = {"sampling_rate": "sample_rate"}


def _python_name(name: str, names: Mapping[str, str], strip: Tuple[str, ...]) -> str:
    if name in names:
        return names[name]
    for prefix in strip:
        if name.startswith(prefix):
            return name[len(prefix):]
    return _COMMON.get(name, name)


def call(fn: Callable[..., Any], *args: Any, names: Mapping[str, str] = {},
         strip: Tuple[str, ...] = ()) -> Any:
    """``fn(*args)``; the library's argument error as a one-line ValueError naming the Python
    argument: ``names`` maps a library name to the keyword, ``strip`` lists name prefixes that
    the keyword drops (``params.ridge`` → ``ridge``)."""
    try:
        return fn(*args)
    except _dpkit.ArgumentError as e:
        raise ValueError(f"{_python_name(e.name, names, strip)} is {e.value}, but must be "
                         f"{e.constraint}") from None
