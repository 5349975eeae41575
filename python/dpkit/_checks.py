"""Argument checks shared by the theory modules (shifted, volterra, hsgd): each raises a
one-line ValueError that starts with the argument's name, in the CLI's words."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import _core

if TYPE_CHECKING:
    from typing import Any, Optional, Sequence

    import numpy as np


def nonneg(name: str, v: Any) -> float:
    """v as a finite float ≥ 0."""
    return _core._real(name, v, lambda x: x >= 0, "a finite number >= 0")


def pos(name: str, v: Any) -> float:
    """v as a finite float > 0."""
    return _core._real(name, v, lambda x: x > 0, "a finite number > 0")


def vector(name: str, v: Any, size: Optional[int] = None) -> np.ndarray:
    """v as a contiguous non-empty 1-D float array of finite numbers (of length size)."""
    import numpy as np
    try:
        one_dimensional = np.ndim(v) == 1
    except ValueError:  # a ragged nesting
        one_dimensional = False
    if not one_dimensional:
        raise ValueError(f"{name} must be a non-empty one-dimensional array of finite numbers")
    a = _core._reals(name, v, lambda x: True, "a finite number")
    if size is not None and a.size != size:
        raise ValueError(f"{name} has {a.size} entries, but must have {size}")
    return np.ascontiguousarray(a)


def choice(name: str, v: Any, allowed: Sequence[str]) -> str:
    """v, one of allowed."""
    if v not in allowed:
        raise _core._bad(name, v, " or ".join(repr(a) for a in allowed))
    return str(v)
