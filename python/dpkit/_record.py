"""A small immutable record type for the result objects.

dataclasses would do, but importing it costs ~20–30 ms (it imports inspect, re and ast), and
`import dpkit` is meant to stay under 50 ms; these records need only construction by position or
keyword, read-only attributes, repr and equality.
"""

from __future__ import annotations

__all__ = ["Record"]

_MISSING = object()


class Record:
    """Subclasses set ``__slots__ = _fields = (...)`` and optionally ``_defaults`` (a dict of
    field → default; a callable default is called per instance) and ``_no_compare`` (fields
    left out of ``==`` and ``hash``)."""

    __slots__ = ()
    _fields: tuple = ()
    _defaults: dict = {}
    _no_compare: tuple = ()

    def __init__(self, *args, **kwargs) -> None:
        cls = type(self)
        if len(args) > len(cls._fields):
            raise TypeError(f"{cls.__name__}() takes at most {len(cls._fields)} positional "
                            f"arguments ({len(args)} given)")
        values = dict(zip(cls._fields, args))
        for k, v in kwargs.items():
            if k not in cls._fields:
                raise TypeError(f"{cls.__name__}() got an unexpected keyword argument {k!r}")
            if k in values:
                raise TypeError(f"{cls.__name__}() got multiple values for argument {k!r}")
            values[k] = v
        for f in cls._fields:
            v = values.get(f, _MISSING)
            if v is _MISSING:
                d = cls._defaults.get(f, _MISSING)
                if d is _MISSING:
                    raise TypeError(f"{cls.__name__}() missing required argument {f!r}")
                v = d() if callable(d) else d
            object.__setattr__(self, f, v)
        self.__post_init__()

    def __post_init__(self) -> None:
        pass

    @classmethod
    def _make(cls, values: tuple):
        """An instance from all field values in order, unchecked (the fast path for results
        built by dpkit itself)."""
        self = object.__new__(cls)
        set_ = object.__setattr__
        for f, v in zip(cls._fields, values):
            set_(self, f, v)
        return self

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def _key(self) -> tuple:
        return tuple(getattr(self, f) for f in self._fields if f not in self._no_compare)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._key() == other._key()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self).__name__,) + self._key())

    def __repr__(self) -> str:
        body = ", ".join(f"{f}={getattr(self, f)!r}" for f in self._fields)
        return f"{type(self).__name__}({body})"

    def __reduce__(self):
        return (type(self), tuple(getattr(self, f) for f in self._fields))
