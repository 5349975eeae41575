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
from mpmath import libmp, mp, mpf
from mpmath.libmp import mpf_add, mpf_div, mpf_exp, mpf_log, mpf_mul, mpf_sub

# Shared helpers (fin, fout, rel_err, ...) live next to this script; put its
# directory on sys.path so that the import works from any working directory.
_HERE = os.path.dirname(os.path.realpath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
import reference_io  # noqa: E402
from reference_io import fin, fout, rel_err, tens  # noqa: E402

mp.dps = 50
BASE_DPS = 50

GENERATOR = ("data/generators/accounting_reference.py (mpmath %s, mp.dps = %d)"
             % (mpmath.__version__, BASE_DPS))


# --------------------------------------------------------------------------
# formatting (fin, fout, rel_err, tens: reference_io.py)
# --------------------------------------------------------------------------

def write_csv(path, meta, columns, rows, **checks):
    return reference_io.write_csv(path, GENERATOR, meta, columns, rows, **checks)


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
        self.u_off = 0 if zk is ZK_A else mpf(1) / 2

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
    ks = [c0 + sigma * z for z in cfg.zk]
    u = sigma * sigma * mpf('2.4')
    if u < sigma * mpf('0.75'):
        # small sigma: ell(x) has complex branch points at distance pi sigma^2
        # from the real axis; core panels of width 2.4 sigma^2 there
        kmax = int(6 * sigma / u)
        ks = [k for k in ks if abs(k - c0) > 6 * sigma]
        ks += [c0 + u * (k + cfg.u_off) for k in range(-kmax, kmax + 1)]
    ks = sorted(ks)
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
#        the CDF F_Y of BSA24 Prop D.4 (asserted against it).
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
            for ci, (w, lam, inc, xlo, xhi, cen) in enumerate(M.comps):
                cp = []
                for a, b, kind in panels(xlo, xhi, cen, s, [], cfg):
                    cp.append((a, b, [((W * ww)._mpf_, em._mpf_, ep._mpf_) for (x, W) in
                                      panel_nodes(a, b, kind, cfg)
                                      for (ww, em, ep) in [self.node(inc, x)]]))
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
            tot += 2 * self._inner(ci, S, eS, pos, cut)
        return tot

    def node(self, inc, x):
        """(w(x), e^-lam(x), e^lam(x)) for the component with lam = +ell (inc,
        weight P) or lam = -ell (weight Q)."""
        M = self.M
        Dx = M.omq + M.q * mp.exp((2 * x - 1) * M.i2s2)     # e^ell(x)
        ph = M.cphi * mp.exp(-x * x * M.i2s2)
        if inc:
            return ph * Dx, 1 / Dx, Dx
        return ph, Dx, 1 / Dx

    def _inner(self, ci, S, eS, pos, cut):
        """int over the component (x < cut) of w(x) f_Y(S - lam(x)), S given by
        eS = e^S (pos, positive branch of f_Y) or e^-S (negative branch).

        Cached panels are used up to a knot k with cut - k >= width of the
        panel ending at k; [k, cut] is covered by fresh GL panels graded
        towards the cut (widths d, d, 2d, 4d, ... <= sigma, d = distance from
        the cut to the point beyond it where s - lam(x) reaches the end point
        of f_Y, a branch point of the integrand)."""
        M = self.M
        inc = M.comps[ci][2]
        pans = self.xcache[ci]
        items = []
        if cut is None:
            j = len(pans)
        else:
            j = 0
            while j < len(pans) and pans[j][1] <= cut:
                j += 1
            # back off until the remaining cached panels are far enough
            while j > 0 and cut - pans[j - 1][1] < pans[j - 1][1] - pans[j - 1][0]:
                j -= 1
        for a, b, nodes in pans[:j]:
            items += nodes
        if cut is None or cut <= (pans[j - 1][1] if j > 0 else pans[0][0]):
            return self._sum_raw(items, eS, pos)
        k = pans[j - 1][1] if j > 0 else pans[0][0]
        # branch point beyond the cut: S - lam(x) = a (pos: ell(x) = S - a) or
        # = -a (neg: lam = -ell, ell(x) = -a - S)
        xs = M.ellinv((S - M.a) if pos else (-M.a - S))
        d = (xs - cut) if (xs is not None and xs > cut) else M.s
        wmax = M.s * mpf('0.75')
        ends = [cut]
        width = min(d, wmax)
        r = cut
        first = True
        while r > k:
            l = max(k, r - width)
            if l - k < width / 8:
                l = k
            ends.append(l)
            r = l
            if not first:
                width = min(2 * width, wmax)
            first = False
        ends.reverse()
        for a, b in zip(ends[:-1], ends[1:]):
            for x, W in panel_nodes(a, b, 'G', self.cfg):
                ww, em, ep = self.node(inc, x)
                items.append(((W * ww)._mpf_, em._mpf_, ep._mpf_))
        return self._sum_raw(items, eS, pos)

    def _sum_raw(self, items, eS, pos):
        """M.cf * sum of ww * f_Y-kernel over items (ww, e^-lam, e^lam) as raw
        mpmath tuples (libmp level, same precision and rounding as mpf
        arithmetic, ~3x faster): f_Y = cf e^(-x^2/(2s^2)) E^2/r (pos, E = eS e^-lam)
        or cf e^(-x^2/(2s^2)) E/r (neg, E = eS e^lam), r = (E - (1-q))/q,
        x = 1/2 + s^2 log r (see Mech.fy_P / fy_N)."""
        M = self.M
        prec, rnd = mp.prec, 'n'
        omq, iq, half = M.omq._mpf_, (1 / M.q)._mpf_, M.half._mpf_
        s2, ni2s2 = M.s2._mpf_, (-M.i2s2)._mpf_
        e = eS._mpf_
        idx = 1 if pos else 2
        tot = libmp.fzero
        for it in items:
            E = mpf_mul(e, it[idx], prec, rnd)
            r = mpf_mul(mpf_sub(E, omq, prec, rnd), iq, prec, rnd)
            if r[0] or not r[1]:
                continue
            x = mpf_add(half, mpf_mul(s2, mpf_log(r, prec, rnd), prec, rnd), prec, rnd)
            g = mpf_exp(mpf_mul(mpf_mul(x, x, prec, rnd), ni2s2, prec, rnd), prec, rnd)
            g = mpf_mul(g, E, prec, rnd)
            if pos:
                g = mpf_mul(g, E, prec, rnd)
            tot = mpf_add(tot, mpf_div(mpf_mul(g, it[0], prec, rnd), r, prec, rnd), prec, rnd)
        return M.cf * mp.make_mpf(tot)

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


# --------------------------------------------------------------------------
# shared settings for the privacy-profile tables
# --------------------------------------------------------------------------

POISSON_QS = [(0.01, 1.0), (0.1, 1.0), (0.01, 0.5), (0.2, 2.0), (0.5, 0.8), (0.001, 0.8)]
EPS_POISSON = [0.0, 0.1, 0.5, 1.0, 2.0]
SYM_PM = [(0.01, 2.0), (0.1, 2.0), (0.05, 1.0), (0.25, 2.5), (0.5, 4.0)]
EPS_SYM = [0.1, 0.5, 1.0, 2.0]
DROP_BELOW = mpf('1e-30')

CFG_X = Cfg(40, 24, 20, ZK_A, 4)     # x-space recursion (T = 2 values, table checks)
CFG_E = Cfg(38, 22, 18, ZK_B, 5)     # T = 2 via P^2(E) - e^eps Q^2(E)
CFG_A = Cfg(32, 18, 16, ZK_A, 4)     # S2 table, discretisation A
CFG_B = Cfg(34, 20, 18, ZK_B, 5)     # S2 table, discretisation B (values written)

TOL_T1 = tens(-40)       # T = 1 closed form vs quadrature
TOL_T2 = tens(-30)       # T = 2 routes
TOL_T3 = tens(-24)       # T = 3: table A vs table B, table checks, rem/add at eps = 0


def make_mech(kind, qf, sf, dps):
    """sf = sigma for 'rem'/'add', mu for 'sym' (sigma = 1/mu at dps digits)."""
    with mp.workdps(dps):
        s = 1 / mpf(sf) if kind == 'sym' else mpf(sf)
        return Mech(kind, mpf(qf), s)


def x_knots(M, ks=(-8, -5, -3, -2, -1, 0, 1, 2, 3, 4, 6, 8, 11, 15)):
    c0 = sum(M.comps[0][5]) / len(M.comps[0][5])
    return [c0 + M.s * k for k in ks]


def t1_quad_poisson(M, e):
    """delta_1(eps) = int (p - e^eps q)_+ dx, split at the likelihood-ratio threshold."""
    ee = mp.exp(e)
    if M.kind == 'rem':
        xs = M.ellinv(e)
        pts = [xs + M.s * k for k in (0, 0.5, 1, 2, 4, 8, 16)] + [mp.inf]
        return mp.quad(lambda x: M.wP(x) - ee * M.wQ(x), pts)
    xp = M.ellinv(-e)
    if xp is None:
        return mpf(0)
    pts = [-mp.inf] + [xp - M.s * k for k in (16, 8, 4, 2, 1, 0.5, 0)]
    return mp.quad(lambda x: M.wQ(x) - ee * M.wP(x), pts)


def t2_loss_poisson(M, e):
    """delta_2(eps) = int f_Y(y) delta_1(eps - y) dy in loss space (mp.quad)."""
    if M.kind == 'rem':
        lo, hi = M.a, mp.inf
        pts = [M.ell(x) for x in x_knots(M)] + [e - M.a]
    else:
        b = -M.a
        lo, hi = e - b, b                  # delta_1(eps - y) = 0 for y <= eps - b
        if lo >= hi:
            return mpf(0)
        pts = [-M.ell(x) for x in x_knots(M)]
    pts = sorted(set(p for p in pts if lo < p < hi))
    return mp.quad(lambda y: M.fY(y) * M.d1(e - y), [lo] + pts + [hi])


# ---- symmetric C_p(G(mu)): the CDF of BSA24 Prop D.4 and its density ----

def sym_cdf(p, mu, t):
    if t > 0:
        ep = mp.log((p - 1 + mp.exp(t)) / p)
        return p * Phi(ep / mu - mu / 2) + (1 - p) * Phi(ep / mu + mu / 2)
    em = mp.log((p - 1 + mp.exp(-t)) / p)
    return Phi(-em / mu - mu / 2)


def sym_density(p, mu, t):
    """d F_Y / dt of the CDF above (t != 0), by differentiating it by hand."""
    if t > 0:
        et = mp.exp(t)
        ep = mp.log((p - 1 + et) / p)
        return ((p * mp.npdf(ep / mu - mu / 2) + (1 - p) * mp.npdf(ep / mu + mu / 2))
                * et / (p - 1 + et) / mu)
    emt = mp.exp(-t)
    em = mp.log((p - 1 + emt) / p)
    return mp.npdf(-em / mu - mu / 2) * emt / (p - 1 + emt) / mu


def delta_gdp(mu, e):
    return Phi(-e / mu + mu / 2) - mp.exp(e) * Phi(-e / mu - mu / 2)


def sym_loss_pts(M, e):
    pts = [mpf(0), e]
    for k in (0.1, 0.25, 0.5, 1, 2, 3, 4, 6, 8, 12):
        y = M.ell(M.half + M.s * k)
        pts += [y, -y]
    return sorted(set(pts))


def t1_loss_sym(p, mu, M, e):
    """delta_1(eps) = int_eps^inf f_Y(y) (1 - e^(eps-y)) dy with the CDF density (eps > 0)."""
    pts = [y for y in sym_loss_pts(M, e) if y >= e] + [mp.inf]
    return mp.quad(lambda y: sym_density(p, mu, y) * (-mp.expm1(e - y)), pts)


def t2_loss_sym(p, mu, M, e):
    """delta_2(eps) = m0 delta_1(eps) + int f_Y(y) delta_1(eps - y) dy (CDF density)."""
    m0 = (1 - p) * (Phi(mu / 2) - Phi(-mu / 2))
    pts = [-mp.inf] + sym_loss_pts(M, e) + [mp.inf]
    return m0 * M.d1(e) + mp.quad(lambda y: sym_density(p, mu, y) * M.d1(e - y), pts)


# --------------------------------------------------------------------------
# (1)/(2) privacy profiles for T = 1, 2, 3 (one task per mechanism)
# --------------------------------------------------------------------------

def task_profile(kind, qf, sf):
    """Returns {(T, eps): delta} (mpf, all eps of the grid) and check statistics."""
    eps_grid = EPS_SYM if kind == 'sym' else EPS_POISSON
    out = {}
    worst = {1: mpf(0), 2: mpf(0), 3: mpf(0)}

    def chk(T, a, b, tol, what):
        r = rel_err(a, b)
        assert r < tol, (kind, qf, sf, T, what, a, b, r)
        worst[T] = max(worst[T], r)

    # ---- T = 1 --------------------------------------------------------------
    M60, M90 = make_mech(kind, qf, sf, 60), make_mech(kind, qf, sf, 90)
    for ef in eps_grid:
        with mp.workdps(90):
            d90 = M90.d1(mpf(ef))
        with mp.workdps(60):
            d60 = M60.d1(mpf(ef))
        assert rel_err(d60, d90) < tens(-50) or d90 == d60
        with mp.workdps(50):
            e = mpf(ef)
            if kind == 'sym':
                p, mu = mpf(qf), mpf(sf)
                closed = p * delta_gdp(mu, mp.log1p(mp.expm1(e) / p))
                chk(1, closed, d90, TOL_T1, 'closed form p delta_G')
                chk(1, t1_loss_sym(p, mu, M60, e), d90, TOL_T1, 'loss-space quadrature')
            else:
                q1 = t1_quad_poisson(M60, e)
                if d90 == 0:
                    assert q1 == 0
                else:
                    chk(1, q1, d90, TOL_T1, 'x quadrature of (p - e^eps q)_+')
        out[(1, ef)] = d90
    if kind == 'sym':
        # the x-space decomposition reproduces the CDF of Prop D.4 and the
        # PLD is symmetric: delta(t) = 1 - e^t + e^t delta(-t) for t < 0
        with mp.workdps(60):
            p, mu = mpf(qf), mpf(sf)
            M = M60
            m0 = M.atoms[0][1]
            assert rel_err(sym_cdf(p, mu, tens(-40)) - sym_cdf(p, mu, mpf(0)), m0) < tens(-35)
            for y in (-3, -1, -0.5, -0.1, -0.01, 0.01, 0.1, 0.5, 1, 3):
                y = mpf(y)
                assert rel_err(M.fY(y), sym_density(p, mu, y)) < tens(-45), y
            mass = m0 + mp.quad(lambda y: sym_density(p, mu, y),
                                [-mp.inf] + sym_loss_pts(M, mpf(1)) + [mp.inf])
            assert abs(mass - 1) < tens(-45), mass
            for t in (-0.05, -0.3, -1, -2.5):
                t = mpf(t)
                assert rel_err(M.d1_sym_neg(t), -mp.expm1(t) + mp.exp(t) * M.d_rem(-t)) < tens(-45)
            # t < 0 directly from F_Y: m0 (1 - e^t) + int_{y >= t} F_Y'(y) (1 - e^(t-y)) dy
            for t in (-0.3, -1):
                t = mpf(t)
                pts = [t] + [y for y in sym_loss_pts(M, mpf(1)) if y > t] + [mp.inf]
                st = m0 * (-mp.expm1(t)) + mp.quad(
                    lambda y: sym_density(p, mu, y) * (-mp.expm1(t - y)), pts)
                assert rel_err(st, M.d1_sym_neg(t)) < tens(-40), (qf, sf, t)
    # ---- T = 2 --------------------------------------------------------------
    M = make_mech(kind, qf, sf, 60)
    d2x = {}

    def x2(t):
        t = mpf(t)
        if t not in d2x:
            with mp.workdps(CFG_X.dps):
                d2x[t] = M.delta_x(t, 2, CFG_X)
        return d2x[t]

    for ef in eps_grid:
        e = mpf(ef)
        v = x2(e)
        if kind == 'sym':
            with mp.workdps(38):
                chk(2, t2_loss_sym(mpf(qf), mpf(sf), M, e), v, TOL_T2, 'loss-space (CDF density)')
        else:
            with mp.workdps(CFG_E.dps):
                ev = M.delta2_events(e, CFG_E)
            with mp.workdps(38):
                ls = t2_loss_poisson(M, e)
            if v == 0:
                assert ev == 0 and ls == 0
            else:
                chk(2, ev, v, TOL_T2, 'P^2(E) - e^eps Q^2(E)')
                chk(2, ls, v, TOL_T2, 'loss-space E[delta_1(eps - Y)]')
        out[(2, ef)] = v
    # ---- T = 3 --------------------------------------------------------------
    tabs = []
    for cfg in (CFG_A, CFG_B):
        with mp.workdps(cfg.dps):
            tab = S2Table(M, cfg, eps_grid)
        assert abs(tab.mass() - 1) < TOL_T3, (kind, qf, sf, tab.mass())
        for ef in eps_grid:
            tp = tab.check_point(ef)
            xv = x2(tp)
            tv = tab.delta(tp, 2)
            if xv == 0:
                assert abs(tv) < tens(-40)
            else:
                chk(3, tv, xv, TOL_T3, 'table delta_2 vs x-space')
        tabs.append(tab)
    for ef in eps_grid:
        a3, b3 = tabs[0].delta(ef, 3), tabs[1].delta(ef, 3)
        if b3 == 0:
            assert a3 == 0
        else:
            chk(3, a3, b3, TOL_T3, 'table A vs table B')
        out[(3, ef)] = b3
    return out, worst, (len(tabs[0].rows), len(tabs[1].rows))


def _call(key, f, a):
    mp.dps = BASE_DPS
    t0 = time.time()
    r = f(*a)
    return key, r, t0, time.time()


def run_all(tasks, jobs):
    """tasks: list of (key, weight, function, args); runs heaviest first on
    `jobs` processes; returns {key: result} (order-independent) and
    [(seconds, start, key)] per task."""
    tasks = sorted(tasks, key=lambda t: -t[1])
    if jobs <= 1:
        out = [_call(k, f, a) for k, _, f, a in tasks]
    else:
        ctx = multiprocessing.get_context("fork")
        with ctx.Pool(jobs) as pool:
            out = list(pool.imap(_callstar, [(k, f, a) for k, _, f, a in tasks], chunksize=1))
    return {k: r for k, r, _, _ in out}, [(t1 - t0, t0, k) for k, _, t0, t1 in out]


def _callstar(args):
    return _call(*args)


def tasks_pld_poisson_delta():
    return [(('pd', qf, sf, d), 40 - 20 * d, task_profile, (kind, qf, sf))
            for qf, sf in POISSON_QS for d, kind in ((0, 'rem'), (1, 'add'))]


def gen_pld_poisson_delta(out, allres):
    res = {k[1:]: v for k, v in allres.items() if k[0] == 'pd'}
    rows = []
    worst = {1: mpf(0), 2: mpf(0), 3: mpf(0)}
    dropped = 0
    for qf, sf in POISSON_QS:
        # at eps = 0 both directions give the total variation distance
        for T in (1, 2, 3):
            a, b = res[(qf, sf, 0)][0][(T, 0.0)], res[(qf, sf, 1)][0][(T, 0.0)]
            assert rel_err(a, b) < {1: TOL_T1, 2: TOL_T2, 3: TOL_T3}[T], (qf, sf, T, a, b)
        for d in (0, 1):
            vals, w, _ = res[(qf, sf, d)]
            for T in (1, 2, 3):
                worst[T] = max(worst[T], w[T])
                for ef in EPS_POISSON:
                    v = vals[(T, ef)]
                    if v < DROP_BELOW:
                        # only exact zeros occur: add direction beyond T*b
                        assert v == 0 and d == 1 and ef >= -T * math.log1p(-qf), (qf, sf, d, T, ef)
                        dropped += 1
                        continue
                    rows.append([str(d), fin(qf), fin(sf), str(T), fin(ef), fout(v)])
    meta = {
        "what": "privacy profile delta_T(eps) = sup_E P^T(E) - e^eps Q^T(E) of the T-fold "
                "Poisson-subsampled Gaussian, remove direction (P = (1-q)N(0,s^2) + qN(1,s^2), "
                "Q = N(0,s^2)) and add direction (the reverse pair), s = sigma",
        "source": "delta_T(eps) = E_{P^T}[(1 - e^(eps - S))_+], S = sum of T i.i.d. privacy "
                  "losses L(x) = log(1 - q + q exp((2x-1)/(2 sigma^2))) under P (remove) or "
                  "-L(x) under N(0,sigma^2) (add); T = 1: delta = q[Phi((1-x*)/s) - r Phi(-x*/s)], "
                  "r = (e^eps - 1 + q)/q, x* = 1/2 + s^2 log r (remove), "
                  "delta = q e^eps [r' Phi(x'/s) - Phi((x'-1)/s)], r' = (e^-eps - 1 + q)/q, "
                  "x' = 1/2 + s^2 log r' (add; 0 if r' <= 0)",
        "method": "T=1: closed form (likelihood-ratio threshold) at 60 and 90 digits, "
                  "cross-checked by mpmath quadrature of (p - e^eps q)_+ over x >= x* "
                  "(remove) / x <= x' (add), < 1e-40; "
                  "T=2: x-space recursion delta_2(eps) = int p(x) delta_1(eps - L(x)) dx "
                  "(composite Gauss-Legendre panels, tanh-sinh panels at the point where "
                  "eps - L(x) reaches the end of the loss support, 40 digits), cross-checked "
                  "two ways: P^2(E) - e^eps Q^2(E) with closed-form inner event "
                  "probabilities (other panel layout) and loss-space quadrature of "
                  "E[delta_1(eps - Y)] with the density of Y (mpmath quad), < 1e-30; "
                  "T=3: delta_3(eps) = int f_S2(s) delta_1(eps - s) ds with the density of "
                  "S2 = Y1 + Y2 tabulated by a convolution integral (symmetric split, "
                  "Gauss-Legendre, 1-D quadrature per node), computed with two independent "
                  "discretisations (32 digits, 18-point GL, tanh-sinh h=1/16 / 34 digits, "
                  "20-point GL, h=1/18, shifted knots), agreement < 1e-24; each table "
                  "also reproduces the x-space delta_2 at its knots (< 1e-24) and has "
                  "mass 1 (< 1e-24); remove and add rows agree at eps = 0 (total "
                  "variation) for T = 1, 2, 3; per-T trusted digits: T=1 40, T=2 30, T=3 24",
        "trusted digits": 24,
        "grid": "(q,sigma) in {(0.01,1),(0.1,1),(0.01,0.5),(0.2,2),(0.5,0.8),(0.001,0.8)} x "
                "direction {0,1} x steps {1,2,3} x eps in {0,0.1,0.5,1,2}; rows with "
                "delta < 1e-30 dropped (%d rows, all of them exact zeros: the add direction has "
                "delta_T = 0 for eps >= -T log(1-q)); T = 4 not included (needs a 3-D integral or "
                "an interpolated delta_2, too slow for this generator at >= 20 digits)" % dropped,
        "columns": "direction = 0 remove / 1 add; q, sigma = inputs (exact doubles); "
                   "steps = T; epsilon (exact double); delta = delta_T(eps)",
    }
    return write_csv(os.path.join(out, "pld_poisson_delta.csv"), meta,
                     ["direction", "q", "sigma", "steps", "epsilon", "delta"], rows), worst


def tasks_pld_symmetric_delta():
    return [(('sd', pf, mf), 60, task_profile, ('sym', pf, mf)) for pf, mf in SYM_PM]


def gen_pld_symmetric_delta(out, allres):
    res = {k[1:]: v for k, v in allres.items() if k[0] == 'sd'}
    rows = []
    worst = {1: mpf(0), 2: mpf(0), 3: mpf(0)}
    dropped = 0
    for pf, mf in SYM_PM:
        vals, w, _ = res[(pf, mf)]
        for T in (1, 2, 3):
            worst[T] = max(worst[T], w[T])
            for ef in EPS_SYM:
                v = vals[(T, ef)]
                if v < DROP_BELOW:
                    dropped += 1
                    continue
                rows.append([fin(pf), fin(mf), str(T), fin(ef), fout(v)])
    assert dropped == 0
    meta = {
        "what": "privacy profile delta_T(eps) of the T-fold composition of the symmetric "
                "subsampled Gaussian trade-off function C_p(G(mu))",
        "source": "BSA24 Def 4.7 / Prop D.4: privacy-loss Y with F_Y(t) = p Phi(e+/mu - mu/2) "
                  "+ (1-p) Phi(e+/mu + mu/2), e+ = log((p-1+e^t)/p) (t > 0), F_Y(t) = "
                  "Phi(-e-/mu - mu/2), e- = log((p-1+e^-t)/p) (t <= 0), atom (1-p)(Phi(mu/2) - "
                  "Phi(-mu/2)) at 0; delta_T(eps) = E[(1 - e^(eps - Y1 - ... - YT))_+]",
        "method": "Y realised in x space: Y = L(x), x ~ (1-p)N(0,1/mu^2) + pN(1,1/mu^2) on x > 1/2, "
                  "Y = -L(x), x ~ N(0,1/mu^2) on x > 1/2, plus the atom (asserted: density = "
                  "derivative of F_Y above to 1e-45, total mass 1, atom = jump of F_Y at 0); "
                  "T=1: closed form at 60/90 digits, checked against p delta_G(log(1+(e^eps-1)/p)) "
                  "and against the Stieltjes integral with the density of F_Y (< 1e-40; the "
                  "t <= 0 branch used inside the recursion likewise at t = -0.3, -1, and against "
                  "the symmetry delta(t) = 1 - e^t + e^t delta(-t)); "
                  "T=2: x-space recursion (atom term + two component integrals, tanh-sinh "
                  "panels at the kinks eps - L(x) = 0), cross-checked by the loss-space "
                  "Stieltjes integral m0 delta_1(eps) + int F_Y'(y) delta_1(eps - y) dy "
                  "(mpmath quad, < 1e-30); T=3: m0^2 delta_1(eps) + int f_S2(s) delta_1(eps-s) ds "
                  "with the continuous part of S2 = Y1 + Y2 (2 m0 f_Y + f_Y * f_Y) tabulated "
                  "with two independent discretisations (agreement < 1e-24, each table "
                  "reproduces the x-space delta_2 at eps to < 1e-24); per-T trusted digits: "
                  "T=1 40, T=2 30, T=3 24",
        "trusted digits": 24,
        "grid": "(p,mu) in {(0.01,2),(0.1,2),(0.05,1),(0.25,2.5),(0.5,4)} x steps {1,2,3} x "
                "eps in {0.1,0.5,1,2}",
        "columns": "p, mu = inputs (exact doubles); steps = T; epsilon (exact double); "
                   "delta = delta_T(eps)",
    }
    return write_csv(os.path.join(out, "pld_symmetric_delta.csv"), meta,
                     ["p", "mu", "steps", "epsilon", "delta"], rows), worst


# --------------------------------------------------------------------------
# (3) pld_poisson_epsilon.csv: eps(delta) for T = 1
# --------------------------------------------------------------------------

def d1_deriv(M, e):
    """d delta_1 / d eps = -e^eps Q(L >= eps) for the pair (P,Q) of M."""
    s = M.s
    if M.kind == 'rem':
        xs = M.ellinv(e)
        return -mp.exp(e) * Phi(-xs / s)
    xp = M.ellinv(-e)
    if xp is None:
        return mpf(0)
    return -mp.exp(e) * ((1 - M.q) * Phi(xp / s) + M.q * Phi((xp - 1) / s))


def eps_of_delta(kind, qf, sf, df):
    M = make_mech(kind, qf, sf, 120)
    with mp.workdps(90):
        delta = mpf(df)
        if M.d1(mpf(0)) <= delta:
            return mpf(0)
        ld = mp.log(delta)

        def F(e):
            d = M.d1(e)
            return mp.log(d) - ld, d1_deriv(M, e) / d

        if kind == 'rem':
            hi = mpf(1)
            while M.d1(hi) >= delta:
                hi *= 2
        else:
            b = -M.a
            k = 1
            while True:                      # delta_1 vanishes at b: stay inside
                hi = b * (1 - mpf(2) ** -k)
                d = M.d1(hi)
                if d < delta:
                    break
                k += 1
            assert d > 0
        e = solve_bracketed(F, mpf(0), hi, tens(-70))
    # verification at 120 digits: residual-implied error and bracketing
    with mp.workdps(120):
        d = M.d1(e)
        g = d1_deriv(M, e)
        assert abs((d - delta) / g) <= e * tens(-45), (kind, qf, sf, df)
        assert M.d1(e * (1 - tens(-40))) > delta > M.d1(e * (1 + tens(-40)))
    # independent: delta_1 at the root by quadrature of (p - e^eps q)_+
    with mp.workdps(60):
        dq = t1_quad_poisson(make_mech(kind, qf, sf, 60), e)
        assert abs((dq - delta) / g) <= e * tens(-40), (kind, qf, sf, df, dq)
    return e


EPS_DELTAS = [1e-3, 1e-5, 1e-8]


def tasks_pld_poisson_epsilon():
    return [(('pe', qf, sf, d, df), 0.3, eps_of_delta, (kind, qf, sf, df))
            for qf, sf in POISSON_QS for d, kind in ((0, 'rem'), (1, 'add'))
            for df in EPS_DELTAS]


def gen_pld_poisson_epsilon(out, allres):
    deltas = EPS_DELTAS
    res = {k[1:]: v for k, v in allres.items() if k[0] == 'pe'}
    rows = []
    for qf, sf in POISSON_QS:
        for d in (0, 1):
            for df in deltas:
                rows.append([str(d), fin(qf), fin(sf), fin(df), fout(res[(qf, sf, d, df)])])
    meta = {
        "what": "epsilon(delta) for one step (T = 1) of the Poisson-subsampled Gaussian: "
                "smallest eps >= 0 with delta_1(eps) <= delta, remove (0) and add (1) direction",
        "source": "inverse of the T = 1 closed forms of pld_poisson_delta.csv (delta_1 "
                  "decreasing in eps; d delta_1/d eps = -e^eps Q(L >= eps))",
        "method": "eps = 0 when delta_1(0) <= delta; otherwise safeguarded Newton/bisection on "
                  "log delta_1(eps) = log delta at 90 digits (add direction: bracket inside "
                  "(0, -log(1-q)) where delta_1 > 0); verified at 120 digits by the "
                  "residual-implied error |delta_1(eps) - delta|/|delta_1'(eps)| < 1e-45 eps "
                  "and delta_1(eps(1 -+ 1e-40)) bracketing delta, and independently by "
                  "mpmath quadrature of (p - e^eps q)_+ at the root (implied error < 1e-40 eps)",
        "trusted digits": 40,
        "grid": "(q,sigma) in {(0.01,1),(0.1,1),(0.01,0.5),(0.2,2),(0.5,0.8),(0.001,0.8)} x "
                "direction {0,1} x delta in {1e-3,1e-5,1e-8}",
        "columns": "direction = 0 remove / 1 add; q, sigma, delta = inputs (exact doubles); "
                   "epsilon = eps(delta) (0 exactly when delta_1(0) <= delta)",
    }
    return write_csv(os.path.join(out, "pld_poisson_epsilon.csv"), meta,
                     ["direction", "q", "sigma", "delta", "epsilon"], rows), None


# --------------------------------------------------------------------------
# (4) cp_gaussian_tradeoff.csv
# --------------------------------------------------------------------------

def cp_tradeoff(p, mu, alpha):
    """C_p(G(mu))(alpha), three-piece closed form (current precision)."""
    a_star = Phi(-mu / 2)
    b_star = p * Phi(-mu / 2) + (1 - p) * Phi(mu / 2)
    if alpha <= a_star:
        z = -norm_ppf_lower(alpha)                   # Phi^-1(1 - alpha), alpha <= 1/2
        return p * Phi(z - mu) + (1 - p) * (1 - alpha), 1
    if alpha <= b_star:
        return (1 + p) * Phi(-mu / 2) + (1 - p) * Phi(mu / 2) - alpha, 2
    # (1-p) Phi(-z) + p Phi(-z-mu) = alpha  <=>  (1-p) Phi(z) + p Phi(z+mu) = 1 - alpha
    z = tangent_solve(p, mu, mu, alpha)
    return Phi(z), 3


def tangent_solve(p, mu, c, alpha):
    """z with (1-p) Phi(-z) + p Phi(-z - c) = alpha (decreasing in z)."""
    def F(z):
        return ((1 - p) * Phi(-z) + p * Phi(-z - c) - alpha,
                -(1 - p) * mp.npdf(z) - p * mp.npdf(z + c))
    lo, hi = mpf(-60), mpf(60)
    return solve_bracketed(F, lo, hi, tens(-(mp.dps - 8)))


def tangent_value(p, mu, lam, alpha):
    """f^(lambda)(alpha): alpha(z) = 1 - (1-p)Phi(z) - p Phi(z + (1-lambda) mu),
    f^(lambda) = (1-p) Phi(z) + p Phi(z - lambda mu)."""
    z = tangent_solve(p, mu, (1 - lam) * mu, alpha)
    return (1 - p) * Phi(z) + p * Phi(z - lam * mu)


def tangent_inf(p, mu, alpha):
    """inf over lambda in [0,1] of f^(lambda)(alpha): scan + golden section."""
    n = 32
    lams = [mpf(k) / n for k in range(n + 1)]
    vals = [tangent_value(p, mu, l, alpha) for l in lams]
    k = min(range(n + 1), key=lambda i: vals[i])
    lo, hi = lams[max(k - 1, 0)], lams[min(k + 1, n)]
    g = (mp.sqrt(5) - 1) / 2
    c, d = hi - g * (hi - lo), lo + g * (hi - lo)
    fc, fd = tangent_value(p, mu, c, alpha), tangent_value(p, mu, d, alpha)
    while hi - lo > tens(-22):
        if fc < fd:
            hi, d, fd = d, c, fc
            c = hi - g * (hi - lo)
            fc = tangent_value(p, mu, c, alpha)
        else:
            lo, c, fc = c, d, fd
            d = lo + g * (hi - lo)
            fd = tangent_value(p, mu, d, alpha)
    return min([fc, fd, vals[k]])


def cp_row(pf, mf, af):
    p, mu, alpha = mpf(pf), mpf(mf), mpf(af)
    with mp.workdps(60):
        b60, piece = cp_tradeoff(p, mu, alpha)
    with mp.workdps(90):
        b90, piece2 = cp_tradeoff(p, mu, alpha)
        assert piece == piece2
        assert rel_err(b60, b90) < tens(-45), (pf, mf, af)
        # (i) symmetry: C(C(alpha)) = alpha
        back, _ = cp_tradeoff(p, mu, b90)
        assert rel_err(back, alpha) < tens(-45), (pf, mf, af, back)
    # (ii) lower envelope of the tangent family (BSA24 section C.4.1)
    with mp.workdps(60):
        inf = tangent_inf(p, mu, alpha)
        assert rel_err(inf, b90) < tens(-40), (pf, mf, af, inf, b90)
    return b90, piece


CP_PMS = [(0.1, 1.5), (0.25, 2.5), (0.01, 3.0), (0.5, 1.0)]
CP_ALPHAS = [1e-8, 1e-4, 0.01, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 0.99]


def tasks_cp_gaussian_tradeoff():
    return [(('cp', pf, mf, af), 1.5, cp_row, (pf, mf, af))
            for pf, mf in CP_PMS for af in CP_ALPHAS]


def gen_cp_gaussian_tradeoff(out, allres):
    pms, alphas = CP_PMS, CP_ALPHAS
    res = {k[1:]: v for k, v in allres.items() if k[0] == 'cp'}
    rows = []
    for pf, mf in pms:
        for af in alphas:
            b, piece = res[(pf, mf, af)]
            rows.append([fin(pf), fin(mf), fin(af), fout(b)])
    meta = {
        "what": "trade-off function beta = C_p(G(mu))(alpha) of the symmetric subsampled Gaussian",
        "source": "BSA24 Def 4.7 / Prop D.4: alpha* = Phi(-mu/2), beta* = p Phi(-mu/2) + "
                  "(1-p) Phi(mu/2); beta = p Phi(Phi^-1(1-alpha) - mu) + (1-p)(1-alpha) for "
                  "alpha <= alpha*; (1+p) Phi(-mu/2) + (1-p) Phi(mu/2) - alpha for alpha* <= "
                  "alpha <= beta*; Phi(z) with (1-p) Phi(z) + p Phi(z+mu) = 1 - alpha for alpha >= beta*",
        "method": "closed form at 60 and 90 digits (Phi^-1 by Newton; z by safeguarded Newton "
                  "on (1-p)Phi(-z) + p Phi(-z-mu) = alpha, no cancellation), agreement < 1e-45; "
                  "cross-checked on every row by (i) symmetry C(C(alpha)) = alpha (< 1e-45) and "
                  "(ii) the lower envelope of the tangent family of BSA24 section C.4.1, "
                  "inf over lambda in [0,1] of f^(lambda)(alpha) with alpha(z) = 1 - (1-p)Phi(z) "
                  "- p Phi(z + (1-lambda) mu), f^(lambda)(alpha(z)) = (1-p)Phi(z) + p Phi(z - "
                  "lambda mu) (33-point scan + golden section at 60 digits), < 1e-40",
        "trusted digits": 40,
        "grid": "(p,mu) in {(0.1,1.5),(0.25,2.5),(0.01,3),(0.5,1)} x alpha in {1e-8,1e-4,0.01,"
                "0.05,0.1,0.2,0.3,0.5,0.7,0.9,0.99}",
        "columns": "p, mu, alpha = inputs (exact doubles); beta = C_p(G(mu))(alpha)",
    }
    return write_csv(os.path.join(out, "cp_gaussian_tradeoff.csv"), meta,
                     ["p", "mu", "alpha", "beta"], rows), None


# --------------------------------------------------------------------------
# (5) rdp_poisson_gaussian.csv
# --------------------------------------------------------------------------

def rdp_log_integrand_double(qd, sd, ad, z):
    """log of ((1+u)^alpha - 1 - alpha u) phi_s(z) in double precision (only used
    to locate where the integrand is not negligible)."""
    t = (2 * z - 1) / (2 * sd * sd)
    if t > 30:
        L1 = math.log(qd) + t + math.log1p((1 - qd) / qd * math.exp(-t))
    else:
        L1 = math.log1p(qd * math.expm1(t))
    u = qd * math.expm1(t) if t < 700 else float('inf')
    g = -z * z / (2 * sd * sd)
    if ad * L1 > 30:
        return ad * L1 + g
    if abs(u) < 1e-4:
        hv = ad * (ad - 1) / 2 * u * u * (1 + (ad - 2) * u / 3)
    else:
        hv = math.expm1(ad * L1) - ad * u
    if not hv > 0:
        return -math.inf
    return math.log(hv) + g


def rdp_regions(qd, sd, ad, drop=115.0):
    """Intervals of z where the integrand is within e^-drop of its maximum
    (double-precision scan, step sigma/10, padded by 3 steps)."""
    step = sd / 10
    zlo = -25 * sd - 1
    zhi = max(25 * sd, ad + 25 * sd) + 1
    n = int((zhi - zlo) / step) + 1
    vals = [rdp_log_integrand_double(qd, sd, ad, zlo + i * step) for i in range(n)]
    top = max(vals)
    keep = [v > top - drop for v in vals]
    assert not keep[0] and not keep[-1]
    out = []
    i = 0
    while i < n:
        if keep[i]:
            j = i
            while j + 1 < n and keep[j + 1]:
                j += 1
            out.append((zlo + (i - 3) * step, zlo + (j + 3) * step))
            i = j + 1
        else:
            i += 1
    merged = []
    for lo, hi in out:
        if merged and lo <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(hi, merged[-1][1]))
        else:
            merged.append((lo, hi))
    return merged


def rdp_A_minus_1(qf, sf, af, dps, hfac, offset):
    """A_alpha - 1 = E_{z~N(0,s^2)}[(1+u)^alpha - 1 - alpha u], u = q(e^((2z-1)/(2s^2)) - 1)
    (E[u] = 0; the integrand is >= 0 by convexity), by the trapezoidal rule on the
    real line restricted to the region where the integrand exceeds e^-115 of its
    maximum.  The integrand is analytic in |Im z| < pi s^2 (branch point of
    (1+u)^alpha) and grows like e^(d^2/(2s^2)) there, so with d = min(0.8 pi s^2, 3s)
    the step h = 2 pi d/(110 + d^2/(2 s^2)) gives an error ~ e^-110."""
    with mp.workdps(dps):
        q, s, a = mpf(qf), mpf(sf), mpf(af)
        i2s2 = 1 / (2 * s * s)
        c = 1 / (s * mp.sqrt(2 * mp.pi))
        d = min(mpf('0.8') * mp.pi * s * s, 3 * s)
        h = 2 * mp.pi * d / (110 + d * d * i2s2) * hfac

        def f(z):
            with mp.workdps(dps + 30):
                u = q * mp.expm1((2 * z - 1) * i2s2)
                v = mp.expm1(a * mp.log1p(u)) - a * u
                return v * c * mp.exp(-z * z * i2s2)

        tot = mpf(0)
        for lo, hi in rdp_regions(float(qf), float(sf), float(af)):
            lo, hi = mpf(lo), mpf(hi)
            k0 = int(mp.floor(lo / h))
            k1 = int(mp.ceil(hi / h))
            for k in range(k0, k1 + 1):
                tot += f((k + offset) * h)
        tot *= h
        assert tot > 0
        return tot


def rdp_binomial_A_minus_1(qf, sf, n, dps):
    """Integer alpha: A - 1 = sum_{k>=2} C(n,k)(1-q)^(n-k) q^k (e^(k(k-1)/(2 s^2)) - 1)."""
    with mp.workdps(dps):
        q, s = mpf(qf), mpf(sf)
        i2s2 = 1 / (2 * s * s)
        pmf = (1 - q) ** n
        tot = mpf(0)
        r = q / (1 - q)
        for k in range(1, n + 1):
            pmf = pmf * (n - k + 1) / k * r
            if k >= 2:
                tot += pmf * mp.expm1(k * (k - 1) * i2s2)
        return tot


def rdp_row(qf, sf, af):
    I1 = rdp_A_minus_1(qf, sf, af, 50, mpf(1), mpf(0))
    I2 = rdp_A_minus_1(qf, sf, af, 60, mpf('0.8'), mpf('0.5'))
    assert rel_err(I1, I2) < tens(-38), (qf, sf, af, I1, I2)
    chk = 'two quadratures'
    if af == int(af):
        Ib = rdp_binomial_A_minus_1(qf, sf, int(af), 80)
        assert rel_err(I2, Ib) < tens(-38), (qf, sf, af, I2, Ib)
        chk = 'binomial'
    with mp.workdps(60):
        rdp = mp.log1p(I2) / (mpf(af) - 1)
    return rdp, chk


RDP_QS = [1e-8, 1e-4, 0.01, 0.1, 0.5]
RDP_SIGMAS = [0.5, 1.0, 2.0, 5.0]
RDP_ALPHAS = [1.01, 1.1, 1.5, 2.0, 2.5, 3.0, 4.75, 10.0, 32.5, 100.0, 256.0, 1000.0, 1e4]


def tasks_rdp_poisson_gaussian():
    return [(('rp', qf, sf, af), 0.5, rdp_row, (qf, sf, af))
            for qf in RDP_QS for sf in RDP_SIGMAS for af in RDP_ALPHAS]


def rdp_grid_rows(allres, tag, qs, sigmas, alphas):
    """Rows (q, sigma, alpha, rdp) of one RDP table, in grid order, from the tasks tagged `tag`."""
    res = {k[1:]: v for k, v in allres.items() if k[0] == tag}
    return [[fin(qf), fin(sf), fin(af), fout(res[(qf, sf, af)][0])]
            for qf in qs for sf in sigmas for af in alphas]


def gen_rdp_poisson_gaussian(out, allres):
    rows = rdp_grid_rows(allres, 'rp', RDP_QS, RDP_SIGMAS, RDP_ALPHAS)
    meta = {
        "what": "Renyi DP epsilon(alpha) of one step of the Poisson-subsampled Gaussian, "
                "remove direction: D_alpha(P || Q), P = (1-q)N(0,sigma^2) + qN(1,sigma^2), "
                "Q = N(0,sigma^2)",
        "source": "Mironov, Talwar & Zhang 2019: rdp = log(A_alpha)/(alpha-1), A_alpha = "
                  "E_{z~N(0,sigma^2)}[((1-q) + q exp((2z-1)/(2 sigma^2)))^alpha]; integer alpha: "
                  "A_alpha = sum_k C(alpha,k) (1-q)^(alpha-k) q^k exp((k^2-k)/(2 sigma^2))",
        "method": "A_alpha - 1 = E[(1+u)^alpha - 1 - alpha u], u = q(exp((2z-1)/(2 sigma^2)) - 1) "
                  "(E[u] = 0, non-negative integrand, no cancellation for small q or alpha near 1; "
                  "huge values are plain mpf numbers), integrand with 30 guard digits; "
                  "trapezoidal rule on the real line (spectrally accurate: the integrand is "
                  "analytic for |Im z| < pi sigma^2), step 2 pi d/(110 + d^2/(2 sigma^2)), "
                  "d = min(0.8 pi sigma^2, 3 sigma), restricted to the z-intervals where the "
                  "integrand exceeds e^-115 of its maximum (double-precision scan; bulk near "
                  "z = 0 and/or the tail peak near z ~ alpha); rdp = log1p(A-1)/(alpha-1); every "
                  "row computed twice (50 digits / 60 digits with step x0.8 and nodes shifted by "
                  "half a step), agreement < 1e-38; integer alpha additionally equal to the exact "
                  "binomial sum sum_{k>=2} C(alpha,k)(1-q)^(alpha-k) q^k expm1((k^2-k)/(2 sigma^2)) "
                  "at 80 digits (< 1e-38); spot checks against mpmath tanh-sinh quadrature agreed "
                  "to all printed digits",
        "trusted digits": 38,
        "grid": "q in {1e-8,1e-4,0.01,0.1,0.5} x sigma in {0.5,1,2,5} x alpha in {1.01,1.1,1.5,2,"
                "2.5,3,4.75,10,32.5,100,256,1000,1e4}",
        "columns": "q, sigma, alpha = inputs (exact doubles); rdp = epsilon(alpha) in nats",
    }
    return write_csv(os.path.join(out, "rdp_poisson_gaussian.csv"), meta,
                     ["q", "sigma", "alpha", "rdp"], rows), None


# The accepted domain's corners the first table does not reach: small sigma (0.1 .. 0.3, where
# the tail peak of the integrand sits far out, at z ~ alpha sigma^2 + 1/2 in units of sigma, and
# where the library once returned values 6x too small), large sigma (20, 100: RDP ~ 1e-16),
# q from 1e-6 to 1, and fractional orders between the integers up to 256.
RDPW_QS = [1e-6, 1e-5, 1e-3, 0.01, 0.1, 0.5, 0.9, 1.0]
RDPW_SIGMAS = [0.1, 0.2, 0.3, 0.5, 1.0, 2.0, 5.0, 20.0, 100.0]
RDPW_ALPHAS = [1.01, 1.5, 2.0, 2.5, 3.0, 7.5, 10.0, 10.5, 20.5, 32.0, 64.3, 100.0, 128.5,
               256.0, 256.1]


def rdp_row_wide(qf, sf, af):
    if qf == 1.0:
        # The Gaussian mechanism itself: D_alpha(N(1, s^2) || N(0, s^2)) = alpha/(2 s^2).
        with mp.workdps(60):
            return mpf(af) / (2 * mpf(sf) ** 2), 'closed form'
    return rdp_row(qf, sf, af)


def tasks_rdp_poisson_gaussian_wide():
    return [(('rw', qf, sf, af), 0.5 + (1.0 if sf < 0.5 else 0.0), rdp_row_wide, (qf, sf, af))
            for qf in RDPW_QS for sf in RDPW_SIGMAS for af in RDPW_ALPHAS]


def gen_rdp_poisson_gaussian_wide(out, allres):
    rows = rdp_grid_rows(allres, 'rw', RDPW_QS, RDPW_SIGMAS, RDPW_ALPHAS)
    meta = {
        "what": "Renyi DP epsilon(alpha) of one step of the Poisson-subsampled Gaussian, remove "
                "direction, over the corners of the accepted domain: sigma down to 0.1 and up to "
                "100, q from 1e-6 to 1, fractional and integer alpha up to 256.1",
        "source": "Mironov, Talwar & Zhang 2019 (as rdp_poisson_gaussian.csv); q = 1: the "
                  "Gaussian mechanism, alpha/(2 sigma^2)",
        "method": "as rdp_poisson_gaussian.csv: trapezoidal rule restricted to where the "
                  "integrand exceeds e^-115 of its maximum, every row twice (50 and 60 digits, "
                  "step x0.8, nodes shifted by half a step) agreeing to < 1e-38, integer alpha "
                  "also equal to the exact binomial sum at 80 digits; q = 1 rows in closed form",
        "trusted digits": 38,
        "grid": "q in {1e-6,1e-5,1e-3,0.01,0.1,0.5,0.9,1} x sigma in {0.1,0.2,0.3,0.5,1,2,5,20,"
                "100} x alpha in {1.01,1.5,2,2.5,3,7.5,10,10.5,20.5,32,64.3,100,128.5,256,256.1}",
        "columns": "q, sigma, alpha = inputs (exact doubles); rdp = epsilon(alpha) in nats",
    }
    return write_csv(os.path.join(out, "rdp_poisson_gaussian_wide.csv"), meta,
                     ["q", "sigma", "alpha", "rdp"], rows), None


# --------------------------------------------------------------------------
# (6) rdp_wor_gaussian.csv
# --------------------------------------------------------------------------

def wor_bound_direct(q, s, n):
    """WBK19 Thm 9 bound with eps(j) = 2j/sigma^2, evaluated term by term."""
    def ej(j):
        return 2 * mpf(j) / (s * s)
    e2 = ej(2)
    t2 = q * q * mp.binomial(n, 2) * min(4 * mp.expm1(e2), 2 * mp.exp(e2))
    tail = mpf(0)
    for j in range(3, n + 1):
        tail += q ** j * mp.binomial(n, j) * mp.exp((j - 1) * ej(j))
    return mp.log1p(t2 + 2 * tail) / (n - 1)


def wor_bound_logspace(q, s, n):
    """Same bound, log-sum-exp of log terms (as a double-precision code would do)."""
    lq = mp.log(q)
    logs = []
    e2 = 4 / (s * s)
    m = min(mp.log(4) + mp.log(mp.expm1(e2)), mp.log(2) + e2)
    logs.append(2 * lq + mp.log(mp.binomial(n, 2)) + m)
    for j in range(3, n + 1):
        logs.append(mp.log(2) + j * lq + mp.loggamma(n + 1) - mp.loggamma(j + 1)
                    - mp.loggamma(n - j + 1) + (j - 1) * 2 * j / (s * s))
    L = max(logs)
    S = sum(mp.exp(l - L) for l in logs)
    lse = L + mp.log(S)                       # log of the sum of the terms
    # log(1 + e^lse) without overflow
    tot = lse + mp.log1p(mp.exp(-lse)) if lse > 0 else mp.log1p(mp.exp(lse))
    return tot / (n - 1)


def tasks_rdp_wor_gaussian():
    return []


def gen_rdp_wor_gaussian(out, allres):
    qs = [1e-4, 0.01, 0.1, 0.5]
    sigmas = [0.8, 1.0, 2.0, 5.0]
    alphas = [2, 3, 4, 8, 16, 64, 256]
    rows = []
    for qf in qs:
        for sf in sigmas:
            for n in alphas:
                with mp.workdps(60):
                    v60 = wor_bound_direct(mpf(qf), mpf(sf), n)
                with mp.workdps(100):
                    v100 = wor_bound_direct(mpf(qf), mpf(sf), n)
                    assert rel_err(v60, v100) < tens(-50), (qf, sf, n)
                with mp.workdps(60):
                    vl = wor_bound_logspace(mpf(qf), mpf(sf), n)
                    assert rel_err(vl, v100) < tens(-50), (qf, sf, n, vl, v100)
                rows.append([fin(qf), fin(sf), fin(float(n)), fout(v100)])
    meta = {
        "what": "Renyi-DP upper bound for sampling without replacement (rate q) of the Gaussian "
                "mechanism with replace-one sensitivity 2 and noise sigma: eps(j) = 2j/sigma^2",
        "source": "Wang, Balle & Kasiviswanathan 2019, Thm 9: rdp_bound = (1/(alpha-1)) log(1 + "
                  "q^2 C(alpha,2) min{4(e^eps(2) - 1), 2 e^eps(2)} + 2 sum_{j=3}^{alpha} q^j "
                  "C(alpha,j) e^((j-1) eps(j))), integer alpha >= 2",
        "method": "formula evaluated term by term at 60 and 100 digits (agreement < 1e-50) and "
                  "independently as a log-sum-exp of the log terms (loggamma binomials) at 60 "
                  "digits (< 1e-50)",
        "trusted digits": 40,
        "grid": "q in {1e-4,0.01,0.1,0.5} x sigma in {0.8,1,2,5} x alpha in {2,3,4,8,16,64,256}",
        "columns": "q, sigma, alpha = inputs (exact doubles; alpha integer-valued); rdp_bound = the bound (nats)",
    }
    return write_csv(os.path.join(out, "rdp_wor_gaussian.csv"), meta,
                     ["q", "sigma", "alpha", "rdp_bound"], rows), None


# --------------------------------------------------------------------------

GENERATORS = [
    ("pld_poisson_delta", tasks_pld_poisson_delta, gen_pld_poisson_delta),
    ("pld_symmetric_delta", tasks_pld_symmetric_delta, gen_pld_symmetric_delta),
    ("pld_poisson_epsilon", tasks_pld_poisson_epsilon, gen_pld_poisson_epsilon),
    ("cp_gaussian_tradeoff", tasks_cp_gaussian_tradeoff, gen_cp_gaussian_tradeoff),
    ("rdp_poisson_gaussian", tasks_rdp_poisson_gaussian, gen_rdp_poisson_gaussian),
    ("rdp_poisson_gaussian_wide", tasks_rdp_poisson_gaussian_wide,
     gen_rdp_poisson_gaussian_wide),
    ("rdp_wor_gaussian", tasks_rdp_wor_gaussian, gen_rdp_wor_gaussian),
]


def main(argv=None):
    here = os.path.dirname(os.path.abspath(__file__))
    default_out = os.path.normpath(os.path.join(here, "..", "reference"))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=default_out,
                    help="output directory (default: %(default)s)")
    ap.add_argument("--only", default=None,
                    help="generate a single file, e.g. pld_poisson_delta or pld_poisson_delta.csv")
    ap.add_argument("--jobs", type=int, default=2,
                    help="worker processes (default: %(default)s; output does not depend on it)")
    ap.add_argument("--quiet", action="store_true",
                    help="do not print per-file row counts and timings")
    args = ap.parse_args(argv)
    names = [g[0] for g in GENERATORS]
    todo = GENERATORS
    if args.only:
        want = args.only[:-4] if args.only.endswith(".csv") else args.only
        if want not in names:
            ap.error("unknown --only %r; choose from: %s" % (args.only, ", ".join(names)))
        todo = [g for g in GENERATORS if g[0] == want]
    os.makedirs(args.out, exist_ok=True)
    t0 = time.time()
    tasks = [t for _, mk, _ in todo for t in mk()]
    res, times = run_all(tasks, max(1, args.jobs))
    if not args.quiet:
        print("%d tasks on %d process(es): %.1f s (cpu %.1f s; slowest: %s)" % (
            len(tasks), max(1, args.jobs), time.time() - t0, sum(t for t, _, _ in times),
            ", ".join("%s %.0f s" % (k, t) for t, _, k in sorted(times, reverse=True)[:3])),
            file=sys.stderr)
    if os.environ.get("ACCOUNTING_REFERENCE_TIMES"):
        with open(os.environ["ACCOUNTING_REFERENCE_TIMES"], "w") as f:
            for t, st, k in sorted(times, key=lambda x: x[1]):
                f.write("%.1f %.1f %s\n" % (st - t0, t, k))
    for name, _, gen in todo:
        mp.dps = BASE_DPS
        n, worst = gen(args.out, res)
        if not args.quiet:
            extra = ""
            if worst:
                extra = "  worst check (rel): " + " ".join(
                    "T%d %s" % (T, mp.nstr(worst[T], 2)) for T in sorted(worst))
            print("%-28s %5d rows%s" % (name + ".csv", n, extra), file=sys.stderr)
    if not args.quiet:
        print("total %.1f s" % (time.time() - t0), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
