"""Op-database rows for fgrad.scipy.special's functions beyond the first ones (see op_db.py).

Samples lie where each function is smooth and finite differences are accurate. Arguments
whose derivative raises (betainc's a and b, a Bessel function's order, zeta's x, ...) are
held fixed: a tuple of Python floats `p` or an integer array, neither of which the table
differentiates (tests/scipy/test_special.py checks that differentiating them raises).
"""
import numpy as np
import scipy.special as sps

import fgrad.scipy.special as fsp

from .op_db import custom, uniform

SHAPES = ((), (3,), (2, 3))
PAIRS = (((3,), (3,)), ((2, 3), (3,)), ((), (2, 3)))


def unary(name, lo, hi, suffix="", **kw):
    return custom(f"special.{name}{suffix}", lambda rng: [(uniform(rng, s, lo, hi),) for s in SHAPES],
                  fn=getattr(fsp, name), ref=getattr(sps, name), **kw)


def binary(name, lo, hi, suffix="", **kw):
    return custom(f"special.{name}{suffix}",
                  lambda rng: [(uniform(rng, a, lo[0], hi[0]), uniform(rng, b, lo[1], hi[1])) for a, b in PAIRS],
                  fn=getattr(fsp, name), ref=getattr(sps, name), **kw)


def at(name, values, suffix, **kw):
    """A row at given points (a pole, a removable singularity of a derivative)."""
    return custom(f"special.{name}{suffix}", lambda rng: [(np.array(values),)], fn=getattr(fsp, name),
                  ref=getattr(sps, name), **kw)


def fixed(name, params, lo, hi, ints=None, **kw):
    """Rows of name(*p, x), differentiated in x alone: p a tuple of Python floats per sample,
    and (`ints`) integer arrays of the leading arguments, broadcast against x."""
    def samples(rng):
        rows = [(p, uniform(rng, s, lo, hi)) for p, s in zip(params, SHAPES)]
        if ints is not None:
            rows.append((*(np.array(v) for v in ints), uniform(rng, (2, len(ints[0])), lo, hi)))
        return rows
    f, r = getattr(fsp, name), getattr(sps, name)
    return custom(f"special.{name}", samples, fn=lambda *a: f(*_unpacked(a)), ref=lambda *a: r(*_unpacked(a)), **kw)


def _unpacked(args):
    return (*args[0], *args[1:]) if isinstance(args[0], tuple) else args


def order(name, lo, hi, orders=(0, 1, 3)):
    """name(n, x) with integer n (not differentiated), and an integer array of them."""
    return custom(f"special.{name}",
                  lambda rng: [(n, uniform(rng, (3,), lo, hi)) for n in orders]
                  + [(np.array(orders), uniform(rng, (2, 3), lo, hi))],
                  fn=getattr(fsp, name), ref=getattr(sps, name))


def _bessel_jn_ref(z, v):
    return np.stack([sps.jv(k, z) for k in range(v + 1)])


SPECIAL_OPS = [
    # error function, normal distribution
    unary("erfcx", -2.0, 3.0), unary("erfinv", -0.9, 0.9), unary("erfcinv", 0.1, 1.9), unary("dawsn", -3.0, 3.0),
    unary("ndtr", -3.0, 3.0), unary("ndtri", 0.05, 0.95), unary("log_ndtr", -6.0, 3.0),
    unary("log_ndtr", -30.0, -10.0, suffix="_tail"),
    binary("owens_t", (-2.0, -2.0), (2.0, 2.0)),
    unary("wofz", -2.0, 2.0, differentiable=False),
    # gamma and beta functions
    unary("gamma", 0.2, 4.0), unary("gamma", -2.8, -2.2, suffix="_negative"),
    unary("rgamma", -2.8, 4.0), at("rgamma", [0.0, -1.0, -2.0, -3.0], "_poles"),
    unary("loggamma", 0.2, 4.0), unary("gammasgn", -3.5, 3.5, differentiable=False),
    binary("beta", (0.3, 0.3), (3.0, 3.0)), binary("betaln", (0.3, 0.3), (3.0, 3.0)),
    binary("binom", (2.0, 0.3), (6.0, 1.8)), binary("poch", (0.5, -0.4), (3.0, 2.0)),
    fixed("gammainc", [(1.7,), (0.6,), (3.2,)], 0.2, 4.0, ints=[[1, 2, 5]]),
    fixed("gammaincc", [(1.7,), (0.6,), (3.2,)], 0.2, 4.0, ints=[[1, 2, 5]]),
    fixed("betainc", [(0.7, 2.5), (1.5, 1.5), (3.2, 0.8)], 0.05, 0.95, ints=[[1, 2, 4], [3, 1, 2]]),
    fixed("hyp1f1", [(0.7, 1.9), (-1.3, 2.5), (2.0, 0.6)], -2.0, 2.0, ints=[[1, 2, -1], [3, 1, 2]]),
    fixed("hyp2f1", [(0.7, 1.9, 2.3), (-1.3, 0.5, 1.5), (2.0, 0.6, 3.1)], -0.8, 0.8,
          ints=[[1, 2, -1], [3, 1, 2], [2, 4, 3]]),
    fixed("zeta", [(2.5,), (1.7,), (4.0,)], 0.5, 3.0, ints=[[2, 3, 5]]),  # Hurwitz's: zeta(x, q) in q
    custom("special.zeta_riemann", lambda rng: [(uniform(rng, s, 1.5, 4.0),) for s in SHAPES]
           + [(uniform(rng, (3,), -3.0, 0.5),)], fn=fsp.zeta, ref=sps.zeta, differentiable=False),
    custom("special.multigammaln", lambda rng: [(uniform(rng, s, 1.6, 5.0),) for s in SHAPES],
           fn=lambda a: fsp.multigammaln(a, 3), ref=lambda a: sps.multigammaln(a, 3)),
    custom("special.factorial", lambda rng: [(uniform(rng, s, 0.3, 5.0),) for s in SHAPES]
           + [(np.array([-1.5, 2.5, -0.5, 1.0]),)], fn=fsp.factorial, ref=sps.factorial),
    custom("special.factorial_ints", lambda rng: [(np.array([0, 3, -2, 6]),), (4,)], fn=fsp.factorial,
           ref=sps.factorial, differentiable=False),
    custom("special.comb", lambda rng: [(uniform(rng, a, 3.0, 8.0), uniform(rng, b, 0.3, 2.8)) for a, b in PAIRS]
           + [(np.array([2.0, 5.0, 4.0]), np.array([3.5, 1.5, -0.5]))], fn=fsp.comb, ref=sps.comb),
    custom("special.comb_repetition", lambda rng: [(uniform(rng, (3,), 1.0, 4.0), uniform(rng, (3,), 0.3, 2.0))],
           fn=lambda n, k: fsp.comb(n, k, repetition=True), ref=lambda n, k: sps.comb(n, k, repetition=True)),
    custom("special.bernoulli", lambda rng: [(0,), (6,)], fn=fsp.bernoulli, ref=sps.bernoulli, differentiable=False),
    # exponential, sine/cosine and Fresnel integrals, dilogarithm
    unary("exp1", 0.2, 3.0), unary("expi", 0.2, 3.0), unary("expi", -3.0, -0.2, suffix="_negative"),
    order("expn", 0.3, 3.0, orders=(0, 1, 3)),
    unary("sici", 0.3, 4.0), unary("sici", -4.0, -0.3, suffix="_negative"), unary("fresnel", -2.0, 2.0),
    unary("spence", 0.2, 3.0), at("spence", [1.0, 1.05, 0.93, 1.2], "_near_one"),
    # logistic, logarithms, entropies, Box-Cox
    unary("log_expit", -5.0, 5.0), unary("exprel", -2.0, 2.0), at("exprel", [0.0, 1e-3, -0.3, 0.6], "_near_zero"),
    unary("cosm1", -2.0, 2.0), unary("log1p", -0.5, 2.0), unary("expm1", -2.0, 2.0),
    binary("xlog1py", (-2.0, -0.5), (2.0, 2.0)), unary("entr", 0.1, 3.0),
    binary("rel_entr", (0.1, 0.1), (3.0, 3.0)), binary("kl_div", (0.1, 0.1), (3.0, 3.0)),
    binary("boxcox", (0.2, -1.0), (3.0, 2.0)), binary("boxcox1p", (-0.5, -1.0), (2.0, 2.0)),
    custom("special.boxcox_small_lambda",
           lambda rng: [(uniform(rng, (4,), 0.3, 3.0), np.array([0.0, 1e-3, -0.2, 0.4]))],
           fn=fsp.boxcox, ref=sps.boxcox),
    # Bessel functions
    unary("j0", 0.3, 5.0), unary("j1", -5.0, 5.0), at("j1", [0.0, 5e-3, -0.2], "_near_zero"),
    unary("y0", 0.3, 5.0), unary("y1", 0.3, 5.0), order("yn", 0.5, 5.0),
    fixed("jv", [(0.5,), (1.3,), (2.0,)], 0.3, 5.0, ints=[[0, 1, 3]]),
    custom("special.jn", lambda rng: [(n, uniform(rng, (3,), 0.3, 5.0)) for n in (0, 2)], fn=fsp.jn, ref=sps.jn),
    fixed("yv", [(0.5,), (1.3,), (2.0,)], 0.5, 5.0, ints=[[0, 1, 3]]),
    unary("i0", -3.0, 3.0), unary("i1", -3.0, 3.0), at("i1", [0.0, 5e-3, -0.2], "_near_zero"),
    unary("i0e", 0.2, 3.0), unary("i0e", -3.0, -0.2, suffix="_negative"),
    unary("i1e", 0.2, 3.0), unary("i1e", -3.0, -0.2, suffix="_negative"),
    fixed("iv", [(0.5,), (1.3,), (2.0,)], 0.3, 3.0, ints=[[0, 1, 3]]),
    fixed("ive", [(0.5,), (1.3,), (2.0,)], 0.3, 3.0, ints=[[0, 1, 3]]),
    custom("special.ive_negative", lambda rng: [(np.array([0, 1, 3]), uniform(rng, (2, 3), -3.0, -0.3))],
           fn=fsp.ive, ref=sps.ive),
    unary("k0", 0.3, 4.0), unary("k1", 0.3, 4.0), unary("k0e", 0.3, 4.0), unary("k1e", 0.3, 4.0),
    fixed("kv", [(0.5,), (1.3,), (2.0,)], 0.3, 4.0, ints=[[0, 1, 3]]),
    fixed("kve", [(0.5,), (1.3,), (2.0,)], 0.3, 4.0, ints=[[0, 1, 3]]),
    custom("special.bessel_jn", lambda rng: [(uniform(rng, s, 0.3, 5.0),) for s in SHAPES],
           fn=lambda z: fsp.bessel_jn(z, v=3), ref=lambda z: _bessel_jn_ref(z, 3)),
    custom("special.sph_harm_y",
           lambda rng: [(np.array([1, 2, 3]), np.array([0, -1, 2]), uniform(rng, (3,), 0.2, 3.0),
                         uniform(rng, (3,), 0.0, 6.0)), (2, 1, uniform(rng, (2, 3), 0.2, 3.0), 0.7)],
           fn=fsp.sph_harm_y, ref=sps.sph_harm_y, differentiable=False),
]

__all__ = ["SPECIAL_OPS"]
