"""The run's arguments, declared once for every public function that takes a training run.

A run is given as σ, q and T, or in a training loop's units, or as phases (``dpkit._core``'s
module docstring). Ten public signatures take those arguments; they are written here once and
:func:`takes_run` puts them into each signature. A decorated function is written as

    @takes_run()
    def epsilon(delta, run, *, gaussian_mu=0.0, accountant="pld", ...): ...

and the public ``dpkit.epsilon`` is ``epsilon(delta, noise_multiplier=None, sample_rate=None,
steps=None, *, batch_size=None, ..., phases=None, gaussian_mu=0.0, accountant="pld", ...)``,
which calls the written function with the run's arguments as one dict ``run`` (for
``_core._resolve_run``, which checks and derives them through the library).

Why the public function is generated from source (as :mod:`dataclasses` makes ``__init__``)
rather than wrapped with ``*args, **kwargs``: Python itself then binds the arguments, so
``help()``, ``inspect.signature``, positional calls and the errors for a misspelt or repeated
argument are those of a function written out by hand, and the cost per call is one extra call
and one dict (a wrapper binding through ``inspect.Signature.bind`` measured several µs, the size
of the whole Python layer's overhead in docs/performance.md).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any, Callable, Dict, Iterable, Mapping, Optional, Sequence, Tuple, TypeVar

    R = TypeVar("R")

# The run's arguments in signature order: name, annotation (as source text), default.
RUN_ARGUMENTS: Tuple[Tuple[str, str, Any], ...] = (
    ("noise_multiplier", "Optional[float]", None),
    ("sample_rate", "Optional[float]", None),
    ("steps", "Optional[int]", None),
    ("batch_size", "Optional[int]", None),
    ("dataset_size", "Optional[int]", None),
    ("epochs", "Optional[float]", None),
    ("sampling", "str", "poisson"),
    ("neighbours", "Optional[str]", None),
    ("max_batch_size", "Optional[int]", None),
    ("drop_last", "bool", False),
    ("selected", "Optional[int]", None),
    ("phases", "Optional[Iterable[Phase]]", None),
)
RUN_NAMES = tuple(name for name, _, _ in RUN_ARGUMENTS)

# The usual positional-or-keyword run arguments (the accountants' own units); the rest are
# keyword-only.
ACCOUNTANT_UNITS = ("noise_multiplier", "sample_rate", "steps")


def takes_run(positional: Sequence[str] = ACCOUNTANT_UNITS,
              omit: Iterable[str] = (),
              annotations: Optional[Mapping[str, str]] = None
              ) -> Callable[[Callable[..., R]], Callable[..., R]]:
    """Decorator: the written function ``fn(leading..., run, *, own...)`` becomes the public
    ``fn(leading..., <positional run arguments>, *, <other run arguments>, own...)``.

    Args:
        positional: the run arguments that may be given by position, in this order, after
            ``fn``'s leading arguments.
        omit: run arguments the function does not take (they reach ``run`` as None).
        annotations: run arguments whose annotation differs here (e.g. arrays of steps).

    For a static type checker (the package ships ``py.typed``) the public function keeps its
    return type and takes any arguments; ``inspect.signature`` and ``help()`` give the whole
    signature.
    """
    omitted = set(omit)
    for name in (*positional, *omitted):
        if name not in RUN_NAMES:
            raise AssertionError(f"{name} is not a run argument")

    def decorate(fn: Callable[..., R]) -> Callable[..., R]:
        code = fn.__code__
        if code.co_flags & 0x0C:  # CO_VARARGS | CO_VARKEYWORDS
            raise AssertionError(f"{fn.__name__} must not take *args or **kwargs")
        names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
        leading = list(names[:code.co_argcount])
        if not leading or leading[-1] != "run":
            raise AssertionError(f"{fn.__name__}'s last positional argument must be run")
        leading.pop()
        own = names[code.co_argcount:]
        if fn.__defaults__:
            raise AssertionError(f"{fn.__name__}'s leading arguments take no defaults")
        kw_defaults = fn.__kwdefaults__ or {}
        taken = [n for n in RUN_NAMES if n not in omitted]
        keyword_run = [n for n in taken if n not in positional]
        clash = set(taken) & set(names)
        if clash:
            raise AssertionError(f"{fn.__name__} names run argument(s) {sorted(clash)} itself")

        # Defaults go in through the namespace (by name), never as source text.
        namespace: Dict[str, Any] = {"_fn": fn}
        for name, _, default in RUN_ARGUMENTS:
            namespace["_d_" + name] = default
        for name, default in kw_defaults.items():
            namespace["_k_" + name] = default
        params = list(leading)
        params += [f"{n}=_d_{n}" for n in positional]
        params.append("*")
        params += [f"{n}=_d_{n}" for n in keyword_run]
        params += [f"{n}=_k_{n}" if n in kw_defaults else n for n in own]
        run_dict = ", ".join(f"{n!r}: {n if n in taken else 'None'}" for n in RUN_NAMES)
        call = ", ".join([*leading, "{" + run_dict + "}", *(f"{n}={n}" for n in own)])
        source = (f"def {fn.__name__}({', '.join(params)}):\n"
                  f"    return _fn({call})\n")
        exec(source, namespace)  # noqa: S102 — source built above from identifiers only
        public = namespace[fn.__name__]

        notes = dict(fn.__annotations__)
        notes.pop("run", None)
        written = {n: a for n, a, _ in RUN_ARGUMENTS}
        written.update(annotations or {})
        ordered = {n: notes[n] for n in leading if n in notes}
        ordered.update((n, written[n]) for n in (*positional, *keyword_run))
        ordered.update((n, notes[n]) for n in own if n in notes)
        if "return" in notes:
            ordered["return"] = notes["return"]
        public.__annotations__ = ordered
        public.__doc__ = fn.__doc__
        public.__module__ = fn.__module__
        public.__qualname__ = fn.__qualname__
        return public

    return decorate
