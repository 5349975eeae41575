"""Cell formatting and small numeric helpers shared by the reference generators.

Used by foundation_reference.py, accounting_reference.py and
shifted_reference.py (see data/generators/README.md for the conventions).
The generators import it from their own directory, so they can be run from
any working directory.

Nothing here changes the mpmath precision: every function works in mpmath's
global context `mp`, at the caller's mp.dps unless stated otherwise.
"""

from fractions import Fraction

import mpmath
from mpmath import mp, mpf

OUT_DIGITS = 25     # significant digits of every output cell


def to_mpf(q):
    """Exact rational (Fraction / int / float) -> mpf at the current precision."""
    if isinstance(q, Fraction):
        return mpf(q.numerator) / q.denominator
    return mpf(q)


def fin(x):
    """Input column: plain integer, or the shortest round-trip repr of a float."""
    if isinstance(x, int):
        return str(x)
    assert isinstance(x, float), x
    return repr(x)


def fout(v, digits=OUT_DIGITS):
    """Output column: `digits` significant digits, exponent form, strtod-parsable.

    v may be an mpf (of any precision; it is not rounded before printing), a
    float, an int or a Fraction (converted at 400 digits).  Exact zero is
    written as 0, infinities as inf / -inf.
    """
    with mp.workdps(400):
        v = to_mpf(v)              # no rounding of higher-precision values
    if v == 0:
        return "0"
    if mp.isinf(v):
        return "inf" if v > 0 else "-inf"
    assert not mp.isnan(v)
    s = mpmath.libmp.to_str(v._mpf_, digits, strip_zeros=False,
                            min_fixed=1, max_fixed=0)
    mant, _, exp = s.partition("e")
    e = int(exp) if exp else 0
    assert mant.replace("-", "").replace(".", "").isdigit(), s
    return "%se%+03d" % (mant, e)


def rel_err(a, b):
    """Relative difference, evaluated without rounding the arguments.

    a and b may be mpf, float, int or Fraction (converted at 400 digits).
    """
    with mp.workdps(400):
        a = to_mpf(a)
        b = to_mpf(b)
        if a == b:
            return mpf(0)
        return abs(a - b) / max(abs(a), abs(b))


def tens(k):
    """10**k at the current precision."""
    return mpf(10) ** k


META_KEYS = ("what", "source", "generator", "method", "trusted digits", "grid",
             "columns", "ids")


def write_csv(path, generator, meta, columns, rows, list_columns=(), allow_empty=False):
    """Writes a reference table: "# key: value" provenance lines (META_KEYS in that order,
    those present in `meta`; "generator" is `generator`), the header row, then the rows.

    Every cell is checked: no comma; no space except in `list_columns` (space-separated
    lists, trimmed, single spaces); non-empty unless `allow_empty` (dpkit's read_csv,
    core/csv.hpp, reads numbers only). ASCII, "\n" line ends. Returns the row count.
    """
    lines = []
    for key in META_KEYS:
        if key != "generator" and key not in meta:
            continue
        val = str(generator if key == "generator" else meta[key])
        assert "\n" not in val
        lines.append("# %s: %s" % (key, val))
    lines.append(",".join(columns))
    for r in rows:
        assert len(r) == len(columns), (r, columns)
        for name, cell in zip(columns, r):
            assert "," not in cell, r
            if name in list_columns:
                assert cell and cell == cell.strip() and "  " not in cell, r
            else:
                assert " " not in cell, r
                assert cell or allow_empty, r
        lines.append(",".join(r))
    text = "\n".join(lines) + "\n"
    text.encode("ascii")
    with open(path, "w", encoding="ascii", newline="\n") as f:
        f.write(text)
    return len(rows)

