#!/usr/bin/env python3
"""High-precision reference data for dpkit's accounting layer.

Writes CSV files (provenance header + one column-name row + data rows) into
data/reference/: privacy profiles delta_T(eps) of the Poisson-subsampled
Gaussian (remove and add direction) and of the symmetric subsampled Gaussian
C_p(G(mu)) for T = 1, 2, 3 compositions, eps(delta) for T = 1, the trade-off
function C_p(G(mu)), and Renyi-DP curves of subsampled Gaussians.  Only the
Python standard library and mpmath are used:

    /usr/bin/python3 data/generators/accounting_reference.py [--out DIR] [--only NAME] [--jobs N]

Conventions are those of foundation_reference.py (see data/generators/README.md):
  * input columns are written as repr(float) and the value used in the
    computation is the exact binary value of that double, mpf(float);
  * output columns are written with 25 significant digits in exponent form;
  * every value is cross-checked by an independent route; the checks are
    assertions, so a successful run means every row passed its check.

Output is deterministic: re-running produces byte-identical files (the work
is spread over --jobs worker processes, default 2; results are collected in
grid order, so the number of processes does not change the output).
"""

import argparse
import math
import multiprocessing
import os
import statistics
import sys
import time

import mpmath
from mpmath import mp, mpf

mp.dps = 50
BASE_DPS = 50
OUT_DIGITS = 25

GENERATOR = ("data/generators/accounting_reference.py (mpmath %s, mp.dps = %d)"
             % (mpmath.__version__, BASE_DPS))


# --------------------------------------------------------------------------
# formatting (identical to foundation_reference.py)
# --------------------------------------------------------------------------

def fin(x):
    """Input column: shortest round-trip repr of a Python float."""
    assert isinstance(x, float), x
    return repr(x)


def fout(v):
    """Output column: 25 significant digits, exponent form, strtod-parsable."""
    with mp.workdps(400):
        v = mpf(v)                 # no rounding of higher-precision values
    if v == 0:
        return "0"
    if mp.isinf(v):
        return "inf" if v > 0 else "-inf"
    assert not mp.isnan(v)
    s = mpmath.libmp.to_str(v._mpf_, OUT_DIGITS, strip_zeros=False,
                            min_fixed=1, max_fixed=0)
    mant, _, exp = s.partition("e")
    e = int(exp) if exp else 0
    assert mant.replace("-", "").replace(".", "").isdigit(), s
    return "%se%+03d" % (mant, e)


def write_csv(path, meta, columns, rows):
    lines = []
    for key in ("what", "source", "generator", "method", "trusted digits",
                "grid", "columns"):
        val = GENERATOR if key == "generator" else meta[key]
        val = str(val)
        assert "\n" not in val
        lines.append("# %s: %s" % (key, val))
    lines.append(",".join(columns))
    for r in rows:
        assert len(r) == len(columns), (r, columns)
        for c in r:
            assert c and (" " not in c) and ("," not in c), r
        lines.append(",".join(r))
    text = "\n".join(lines) + "\n"
    text.encode("ascii")
    with open(path, "w", encoding="ascii", newline="\n") as f:
        f.write(text)
    return len(rows)


def rel_err(a, b):
    """Relative difference, evaluated without rounding the arguments."""
    with mp.workdps(400):
        a = mpf(a)
        b = mpf(b)
        if a == b:
            return mpf(0)
        return abs(a - b) / max(abs(a), abs(b))


def tens(k):
    return mpf(10) ** k


# --------------------------------------------------------------------------
# normal distribution helpers
# --------------------------------------------------------------------------

def Phi(x):
    return mp.ncdf(x)


def norm_ppf_lower(q):
    """Phi^-1(q) for 0 < q <= 1/2: Newton on log Phi(x) = log q (residual checked)."""
    q = mpf(q)
    assert 0 < q <= mpf(1) / 2
    if q == mpf(1) / 2:
        return mpf(0)
    dps = mp.dps + 30
    with mp.workdps(dps):
        x = mpf(statistics.NormalDist().inv_cdf(float(q)))
        lq = mp.log(q)
        for _ in range(80):
            F = mp.ncdf(x)
            dx = (mp.log(F) - lq) * F / mp.npdf(x)
            x -= dx
            if abs(dx) <= abs(x) * tens(-(dps - 5)):
                break
        else:
            raise RuntimeError("Newton did not converge for q=%s" % q)
        F = mp.ncdf(x)
        assert abs(F / q - 1) < tens(-(dps - 12)), q
    return +x


def solve_bracketed(F, lo, hi, rtol, maxit=400):
    """Root of F on [lo, hi] (F(x) returns (value, derivative), opposite signs
    at the ends); Newton steps accepted only inside the bracket, else bisection."""
    flo, _ = F(lo)
    fhi, _ = F(hi)
    assert flo * fhi < 0, (lo, hi, flo, fhi)
    x = (lo + hi) / 2
    fx, dfx = F(x)
    for _ in range(maxit):
        if fx == 0:
            return x
        if (fx < 0) == (flo < 0):
            lo, flo = x, fx
        else:
            hi, fhi = x, fx
        xn = None
        if dfx != 0:
            xn = x - fx / dfx
            if not (lo < xn < hi):
                xn = None
        if xn is None:
            xn = (lo + hi) / 2
        step = abs(xn - x)
        x = xn
        fx, dfx = F(x)
        if step <= rtol * abs(x) or (hi - lo) <= rtol * abs(x):
            return x
    raise RuntimeError("solve_bracketed: no convergence")


# --------------------------------------------------------------------------
# quadrature engine: composite Gauss-Legendre panels, tanh-sinh panels next
# to points where the integrand is not analytic
# --------------------------------------------------------------------------

_TS = {}
_GL = {}


def ts_nodes(h_inv, dps):
    """tanh-sinh rule on [-1,1], step 1/h_inv: list of (1 - |x|, weight)."""
    key = (h_inv, dps)
    if key not in _TS:
        with mp.workdps(dps + 15):
            h = mpf(1) / h_inv
            tol = tens(-(dps + 3))
            nodes = []
            k = 0
            while True:
                t = k * h
                u = mp.pi / 2 * mp.sinh(t)
                w = h * mp.pi / 2 * mp.cosh(t) / mp.cosh(u) ** 2
                c = 2 / (mp.exp(2 * u) + 1)          # 1 - tanh(u) without cancellation
                nodes.append((c, w))
                if w < tol:
                    break
                k += 1
        _TS[key] = nodes
    return _TS[key]


def gl_nodes(n, dps):
    """Gauss-Legendre nodes/weights on [-1,1] (Newton on P_n, 15 guard digits)."""
    key = (n, dps)
    if key not in _GL:
        with mp.workdps(dps + 15):
            out = []
            for i in range(1, n + 1):
                x = mp.cos(mp.pi * (i - mpf(1) / 4) / (n + mpf(1) / 2))
                for _ in range(100):
                    p0, p1 = mpf(1), x
                    for k in range(2, n + 1):
                        p0, p1 = p1, ((2 * k - 1) * x * p1 - (k - 1) * p0) / k
                    dp = n * (x * p1 - p0) / (x * x - 1)
                    dx = p1 / dp
                    x -= dx
                    if abs(dx) < tens(-(dps + 13)):
                        break
                p0, p1 = mpf(1), x
                for k in range(2, n + 1):
                    p0, p1 = p1, ((2 * k - 1) * x * p1 - (k - 1) * p0) / k
                dp = n * (x * p1 - p0) / (x * x - 1)
                out.append((x, 2 / ((1 - x * x) * dp * dp)))
            assert abs(sum(w for _, w in out) - 2) < tens(-(dps + 5))
        _GL[key] = out
    return _GL[key]


ZK_A = [-16.5, -13, -10, -8, -6.5, -5.2, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5.2,
        6.5, 8, 10, 13, 16.5]
ZK_B = [-17, -13.6, -10.8, -8.6, -6.9, -5.6, -4.5, -3.5, -2.5, -1.5, -0.5,
        0.5, 1.5, 2.5, 3.5, 4.5, 5.6, 6.9, 8.6, 10.8, 13.6, 17]


class Cfg:
    """Discretisation: working digits, GL points per panel, tanh-sinh step
    1/h_inv, base knots (units of sigma) and width D = sigma/d_div of the
    panels next to non-analytic points."""

    def __init__(self, dps, n_gl, h_inv, zk, d_div):
        self.dps, self.n_gl, self.h_inv, self.zk, self.d_div = dps, n_gl, h_inv, zk, d_div

    def __repr__(self):
        return "dps %d, %d-point GL, tanh-sinh h=1/%d, D=sigma/%d" % (
            self.dps, self.n_gl, self.h_inv, self.d_div)


def panels(lo, hi, centers, sigma, sing, cfg):
    """Panels [(a, b, kind)] covering [lo, hi]; kind 'G' (Gauss-Legendre) or
    'T' (tanh-sinh).

    Base knots: c0 + sigma*z (c0 = mean of centers, z in cfg.zk).  sing: list
    of (point, side): the integrand is not analytic at point and its
    non-analytic branch is on side 'L', 'R' or 'B' (both) of it.  Around such
    a point base knots are replaced by knots at distances D, 2D, 4D, 8D; the
    panel(s) of width D touching the point on the branch side are tanh-sinh,
    every other panel is GL and at least its own width away from the point.
    """
    D = sigma / cfg.d_div
    spts = {}
    for p, side in sing:
        if lo <= p <= hi:
            old = spts.get(p)
            spts[p] = side if old is None or old == side else 'B'
    c0 = sum(centers) / len(centers)
    ks = sorted(c0 + sigma * z for z in cfg.zk)
    ks = [k for k in ks if lo < k < hi and all(abs(k - p) > 9 * D for p in spts)]
    extra = []
    for p in spts:
        extra += [p + k * D for k in (-8, -4, -2, -1, 1, 2, 4, 8)]
    extra = [k for k in extra if lo < k < hi and
             all(abs(k - p) >= D * mpf('0.99') for p in spts)]
    allk = sorted(set([lo, hi] + ks + extra + list(spts)))
    out = []
    for a, b in zip(allk[:-1], allk[1:]):
        if spts.get(a) in ('R', 'B') or spts.get(b) in ('L', 'B'):
            out.append((a, b, 'T'))
        else:
            out.append((a, b, 'G'))
    return out


def panel_nodes(a, b, kind, cfg):
    """[(x, weight)] of one panel."""
    hw = (b - a) / 2
    if kind == 'G':
        m = (a + b) / 2
        return [(m + hw * x0, w0 * hw) for x0, w0 in gl_nodes(cfg.n_gl, cfg.dps)]
    tsn = ts_nodes(cfg.h_inv, cfg.dps)
    pts = [(a + hw, tsn[0][1] * hw)]
    for c, w0 in tsn[1:]:
        pts.append((a + hw * c, w0 * hw))
        pts.append((b - hw * c, w0 * hw))
    return pts


def integrate(f, pans, cfg):
    tot = mpf(0)
    for a, b, kind in pans:
        for x, w in panel_nodes(a, b, kind, cfg):
            tot += w * f(x)
    return tot


# --------------------------------------------------------------------------
# privacy-loss distributions
#
# Gaussian pair in x coordinates: P = (1-q) N(0,s^2) + q N(1,s^2), Q = N(0,s^2)
# (s = sigma).  ell(x) = log dP/dQ (x) = log(1 - q + q exp((2x-1)/(2 s^2))),
# increasing, range (a, inf) with a = log(1-q).
#   rem: loss Y = ell(X), X ~ P              (Poisson remove, mechanism A)
#   add: loss Y = -ell(X), X ~ Q             (Poisson add, mechanism B)
#   sym: C_p(G(mu)) with q = p, s = 1/mu: Y = ell(X), X ~ P restricted to
#        x > 1/2 (Y > 0); Y = -ell(X), X ~ Q restricted to x > 1/2 (Y < 0);
#        atom m0 = (1-p)(Phi(mu/2) - Phi(-mu/2)) at Y = 0.  This reproduces
#        the CDF F_Y of seed 002 Prop D.4 (asserted against it).
# delta_T(t) = E[(1 - e^{t - S_T})_+] for any real t; delta_1 is closed form
# and delta_T(t) = E[delta_{T-1}(t - Y)].
# --------------------------------------------------------------------------

class Mech:
    def __init__(self, kind, q, s):
        """kind in {'rem','add','sym'}; q, s mpf (construct at the highest
        precision used later)."""
        self.kind = kind
        self.q = q
        self.omq = 1 - q
        self.s = s
        self.s2 = s * s
        self.i2s2 = 1 / (2 * self.s2)
        self.half = mpf(1) / 2
        self.cphi = 1 / (s * mp.sqrt(2 * mp.pi))
        self.cf = self.s2 * self.cphi / q
        self.a = mp.log1p(-q)
        Z = 20
        half = self.half
        if kind == 'rem':
            # (w, lam, increasing, xlo, xhi, centers)
            self.comps = [(self.wP, self.ell, True, -Z * s, 1 + Z * s, [mpf(0), mpf(1)])]
            self.atoms = []
        elif kind == 'add':
            self.comps = [(self.wQ, self.mell, False, -Z * s, Z * s, [mpf(0)])]
            self.atoms = []
        else:
            self.comps = [(self.wP, self.ell, True, half, 1 + Z * s, [mpf(0), mpf(1)]),
                          (self.wQ, self.mell, False, half, Z * s, [mpf(0), mpf(1)])]
            self.atoms = [(mpf(0), (1 - q) * (Phi(half / s) - Phi(-half / s)))]

    # ---- pair -------------------------------------------------------------
    def ell(self, x):
        return mp.log1p(self.q * mp.expm1((2 * x - 1) * self.i2s2))

    def mell(self, x):
        return -self.ell(x)

    def ellinv(self, v):
        """x with ell(x) = v; None when v <= a (numerically)."""
        r = (mp.expm1(v) + self.q) / self.q
        if r <= 0:
            return None
        return self.half + self.s2 * mp.log(r)

    def phis(self, x):
        return self.cphi * mp.exp(-x * x * self.i2s2)

    def wP(self, x):
        return self.omq * self.phis(x) + self.q * self.phis(x - 1)

    def wQ(self, x):
        return self.phis(x)

    def d_rem(self, t):
        """delta of (P,Q) at t: P(ell >= t) - e^t Q(ell >= t)."""
        q, s = self.q, self.s
        r = (mp.expm1(t) + q) / q
        if r <= 0:
            return -mp.expm1(t)
        xs = self.half + self.s2 * mp.log(r)
        return q * (Phi((1 - xs) / s) - r * Phi(-xs / s))

    def d_add(self, t):
        """delta of (Q,P) at t: Q(ell <= -t) - e^t P(ell <= -t)."""
        q, s = self.q, self.s
        r = (mp.expm1(-t) + q) / q
        if r <= 0:
            return mpf(0)
        xp = self.half + self.s2 * mp.log(r)
        return q * mp.exp(t) * (r * Phi(xp / s) - Phi((xp - 1) / s))

    # ---- single step --------------------------------------------------------
    def d1(self, t):
        if self.kind == 'rem':
            return self.d_rem(t)
        if self.kind == 'add':
            return self.d_add(t)
        if t > 0:
            return self.d_rem(t)
        return self.d1_sym_neg(t)

    def d1_sym_neg(self, t):
        """t <= 0: add-pair part on loss [t,0) + atom + remove-pair part on (0,inf)."""
        p, s = self.q, self.s
        h = self.half / s                          # mu/2
        et = mp.exp(t)
        m0 = self.atoms[0][1]
        term3 = (1 - p) * Phi(-h) + p * Phi(h) - et * Phi(-h)
        xp = self.ellinv(-t)                       # loss in [t,0)  <=>  1/2 < x <= xp
        A = Phi(xp / s) - Phi(h)
        B = (1 - p) * A + p * (Phi((xp - 1) / s) - Phi(-h))
        return (A - et * B) + m0 * (-mp.expm1(t)) + term3

    def fy_P(self, E):
        """density of ell(X), X ~ P, at y with e^y = E (y > a)."""
        r = (E - self.omq) / self.q
        if r <= 0:
            return mpf(0)
        x = self.half + self.s2 * mp.log(r)
        return self.cf * mp.exp(-x * x * self.i2s2) * E * E / r

    def fy_N(self, E):
        """density of -ell(X), X ~ Q, at y with e^(-y) = E (y < -a)."""
        r = (E - self.omq) / self.q
        if r <= 0:
            return mpf(0)
        x = self.half + self.s2 * mp.log(r)
        return self.cf * mp.exp(-x * x * self.i2s2) * E / r

    def fY(self, y):
        """density of the continuous part of Y."""
        if self.kind == 'rem' or (self.kind == 'sym' and y > 0):
            return self.fy_P(mp.exp(y))
        return self.fy_N(mp.exp(-y))

    def dk_sing(self, k):
        """t where delta_k(t) is not analytic, and on which side of it (in t)
        the non-analytic branch lies."""
        if self.kind == 'rem':
            return [(k * self.a, 'hi')]          # delta_k(t) = 1 - e^t for t <= k*a
        if self.kind == 'add':
            return [(-k * self.a, 'lo')]         # delta_k(t) = 0 for t >= k*b
        return [(mpf(0), 'both')]

    # ---- x-space recursion: delta_T(t) = sum_atoms + int w(x) delta_{T-1}(t - lam(x)) dx
    def delta_x(self, t, T, cfg, inner=None):
        """T >= 2; the innermost level is the closed form delta_1 (or, with
        inner = 'P'/'Q', the event probabilities P(Y >= u) / Q(Y >= u) used for
        P^2(E) - e^t Q^2(E))."""
        tot = mpf(0)
        for y, m in self.atoms:
            tot += m * self.delta_x(t - y, T - 1, cfg) if T > 2 else m * self.d1(t - y)
        for (w, lam, inc, xlo, xhi, cen) in self.comps:
            lo, hi = xlo, xhi
            sing = []
            for tau, side in self.dk_sing(T - 1):
                x = self.ellinv(t - tau) if inc else self.ellinv(tau - t)
                if x is None:
                    continue
                if side == 'both':
                    sing.append((x, 'B'))
                    continue
                # u(x) = t - lam(x) decreases in x iff lam increases
                branch_left = (side == 'hi') == inc
                if side == 'lo':                  # delta_{T-1} = 0 beyond: cut there
                    if inc:
                        lo = max(lo, x)
                    else:
                        hi = min(hi, x)
                sing.append((x, 'L' if branch_left else 'R'))
            if lo >= hi:
                continue
            pans = panels(lo, hi, cen, self.s, sing, cfg)
            if T == 2:
                g = self.d1
            else:
                g = lambda u: self.delta_x(u, T - 1, cfg)
            tot += integrate(lambda x: w(x) * g(t - lam(x)), pans, cfg)
        return tot

    # ---- P^2(E) - e^t Q^2(E), E = {Y1 + Y2 >= t} (Poisson pairs only) --------
    def delta2_events(self, t, cfg):
        """T = 2 through the two event probabilities, inner layer closed form."""
        q, s = self.q, self.s
        if self.kind == 'rem':
            # base measure P (loss ell), other measure Q
            def inner(u):                         # (P(ell >= u), Q(ell >= u))
                r = (mp.expm1(u) + q) / q
                if r <= 0:
                    return mpf(1), mpf(1)
                xs = self.half + self.s2 * mp.log(r)
                return (1 - q) * Phi(-xs / s) + q * Phi((1 - xs) / s), Phi(-xs / s)
            wa, wb, lam = self.wP, self.wQ, self.ell
            lo, hi, cen = -20 * s, 1 + 20 * s, [mpf(0), mpf(1)]
            x0 = self.ellinv(t - self.a)          # inner probabilities are 1 beyond
            sing = []
            if x0 is not None:
                hi = min(hi, x0)
                sing = [(x0, 'L')]
        else:
            def inner(u):                         # (Q(-ell >= u), P(-ell >= u))
                r = (mp.expm1(-u) + q) / q
                if r <= 0:
                    return mpf(0), mpf(0)
                xp = self.half + self.s2 * mp.log(r)
                return Phi(xp / s), (1 - q) * Phi(xp / s) + q * Phi((xp - 1) / s)
            wa, wb, lam = self.wQ, self.wP, self.mell
            lo, hi, cen = -20 * s, 20 * s, [mpf(0)]
            x0 = self.ellinv(-self.a - t)         # inner probabilities vanish beyond
            if x0 is None:
                return mpf(0)
            hi = min(hi, x0)
            sing = [(x0, 'L')]
        pans = panels(lo, hi, cen, s, sing, cfg)
        PA = integrate(lambda x: wa(x) * inner(t - lam(x))[0], pans, cfg)
        QB = integrate(lambda x: wb(x) * inner(t - lam(x))[1], pans, cfg)
        if self.kind == 'rem' and x0 is not None:
            PA += (1 - q) * Phi(-x0 / s) + q * Phi((1 - x0) / s)
            QB += Phi(-x0 / s)
        return PA - mp.exp(t) * QB


class S2Table:
    """Continuous part of the law of S2 = Y1 + Y2, tabulated once on the
    quadrature nodes of an outer variable v, S2 = S(v):
      rem: S = 2 ell(v); add: S = -2 ell(v); sym: S = sign(v) 2 ell(1/2 + |v|).
    f_S2(s) = 2 m0 f_Y(s) + 2 int_{region} f_Y(y1) f_Y(s - y1) dy1, region
    y1 < s/2 (rem; sym with s > 0) or y1 > s/2 (add; sym with s < 0), chosen
    so that s - y1 never reaches the end point / jump of f_Y: the inner
    integrand is analytic (GL panels in x, y1 = lam(x), w(x) and e^{+-lam(x)}
    cached).  Then delta_3(eps) = m0^2 delta_1(eps) + int f_S2(s) delta_1(eps-s) ds
    for every eps whose non-analytic point s* (delta_1(eps - s) at
    eps - s = a, b or 0) was put on a knot; delta_2(s*) is computed as a
    check of the table against the x-space recursion.
    """

    def __init__(self, M, cfg, eps_list):
        self.M, self.cfg = M, cfg
        s = M.s
        with mp.workdps(cfg.dps):
            self.xcache = []
            for (w, lam, inc, xlo, xhi, cen) in M.comps:
                cp = []
                for a, b, kind in panels(xlo, xhi, cen, s, [], cfg):
                    nodes = []
                    for x, W in panel_nodes(a, b, kind, cfg):
                        l = lam(x)
                        nodes.append((W * w(x), mp.exp(-l), mp.exp(l)))
                    cp.append((a, b, nodes))
                self.xcache.append(cp)
            Z = 20
            if M.kind == 'rem':
                vlo, vhi, vcen = -Z * s, 1 + Z * s, [mpf(0), mpf(1)]
            elif M.kind == 'add':
                vlo, vhi, vcen = -Z * s, Z * s, [mpf(0)]
            else:
                vlo, vhi, vcen = -(Z * s + 1), Z * s + 1, [-M.half, M.half]
            sing = []
            for e in eps_list:
                sv, side = self.sing_s(mpf(e))
                v = self.v_of_s(sv)
                if v is not None and vlo < v < vhi:
                    sing.append((v, side))
            if M.kind == 'sym':
                sing.append((mpf(0), 'B'))
            self.rows = []        # (S, weight * dS/dv * f_S2(S))
            for a, b, kind in panels(vlo, vhi, vcen, s, sing, cfg):
                for v, W in panel_nodes(a, b, kind, cfg):
                    S, dS = self.S(v)
                    self.rows.append((S, W * dS * self.fS2(S, v)))
            self.atoms = [(mpf(0), M.atoms[0][1] ** 2)] if M.atoms else []

    def sing_s(self, e):
        """s at which delta_1(e - s) is not analytic, branch side in v."""
        M = self.M
        if M.kind == 'rem':
            return e - M.a, 'L'
        if M.kind == 'add':
            return e + M.a, 'L'             # e - s = b
        return e, 'B'

    def check_point(self, e):
        return self.sing_s(mpf(e))[0]

    def v_of_s(self, sv):
        M = self.M
        if M.kind == 'rem':
            return M.ellinv(sv / 2)
        if M.kind == 'add':
            return M.ellinv(-sv / 2)
        if sv == 0:
            return mpf(0)
        x = M.ellinv(abs(sv) / 2)
        if x is None:
            return None
        return (x - M.half) * (1 if sv > 0 else -1)

    def S(self, v):
        M = self.M
        if M.kind == 'rem':
            x, sg = v, 1
        elif M.kind == 'add':
            x, sg = v, -1
        else:
            x, sg = M.half + abs(v), (1 if v >= 0 else -1)
        E = mp.exp((2 * x - 1) * M.i2s2)
        l = mp.log1p(M.q * (E - 1))
        dl = M.q * E / (M.s2 * (M.omq + M.q * E))
        return sg * 2 * l, 2 * dl

    def fS2(self, S, v):
        M = self.M
        tot = mpf(0)
        if M.atoms:
            tot += 2 * M.atoms[0][1] * M.fY(S)
        pos = M.kind == 'rem' or (M.kind == 'sym' and S > 0)
        eS = mp.exp(S) if pos else mp.exp(-S)
        for ci in range(len(M.comps)):
            if M.kind in ('rem', 'add'):
                cut = v
            elif S > 0:
                cut = M.half + v if ci == 0 else None
            else:
                cut = None if ci == 0 else M.half - v
            tot += 2 * self._inner(ci, eS, pos, cut)
        return tot

    def _inner(self, ci, eS, pos, cut):
        M = self.M
        f = M.fy_P if pos else M.fy_N
        tot = mpf(0)
        for a, b, nodes in self.xcache[ci]:
            if cut is None or b <= cut:
                if pos:
                    for ww, em, ep in nodes:
                        tot += ww * f(eS * em)
                else:
                    for ww, em, ep in nodes:
                        tot += ww * f(eS * ep)
            elif a < cut:
                w, lam = M.comps[ci][0], M.comps[ci][1]
                for x, W in panel_nodes(a, cut, 'G', self.cfg):
                    l = lam(x)
                    E = eS * (mp.exp(-l) if pos else mp.exp(l))
                    tot += W * w(x) * f(E)
            else:
                break
        return tot

    def delta(self, e, T):
        M = self.M
        e = mpf(e)
        with mp.workdps(self.cfg.dps):
            if T == 2:
                g = lambda t: -mp.expm1(t) if t < 0 else mpf(0)
            else:
                g = M.d1
            tot = sum(m * g(e - y) for y, m in self.atoms)
            for S, wf in self.rows:
                tot += wf * g(e - S)
            return tot

    def mass(self):
        return sum(wf for _, wf in self.rows) + sum(m for _, m in self.atoms)
