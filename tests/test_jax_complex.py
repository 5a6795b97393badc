"""fgrad against JAX (x64) on the complex corpus (tests/jax_corpus_complex.py): value, jvp and
vjp along random complex tangents and cotangents, grad of a real scalar output, jacrev of
real outputs and jacfwd of real inputs (which JAX allows without holomorphic=True), and for
holomorphic functions jacfwd, jacrev and grad with holomorphic=True. JAX computes each case's
references with its own transforms, a dozen cases per jitted program (compiled programs are
cached on disk, as in tests/test_jax_reference.py)."""
import zlib

import numpy as np
import optree
import pytest

import fgrad
import fgrad.numpy as fnp

from .jax_corpus_complex import COMPLEX_CASES
from .test_jax_reference import assert_tree_close, diff_args, jax, local_argnums, partial

jnp = jax.numpy


def _leaves(tree):
    return optree.tree_leaves(tree, none_is_leaf=False)


def _random_like(tree, rng):
    def one(x):
        x = np.asarray(x)
        v = rng.standard_normal(x.shape)
        if x.dtype.kind == "c":
            v = v + 1j * rng.standard_normal(x.shape)
        return np.asarray(v, dtype=x.dtype if x.dtype.kind in "fc" else np.float64)
    return optree.tree_map(one, tree, none_is_leaf=False)


class Inputs:
    """The differentiated arguments, tangents and cotangent of a case (deterministic)."""

    def __init__(self, case):
        rng = np.random.default_rng(zlib.crc32(case.name.encode()))
        self.diff = diff_args(case)
        self.tangents = _random_like(tuple(self.diff), rng)
        out = case.fn(np, *case.args)
        self.cotangent = _random_like(out, rng)
        outs = _leaves(out)
        self.scalar = len(outs) == 1 and np.ndim(outs[0]) == 0 and not isinstance(out, (tuple, list))
        self.real_out = all(np.asarray(o).dtype.kind != "c" for o in outs)
        self.real_in = all(np.asarray(x).dtype.kind != "c" for x in _leaves(self.diff))


def transforms(case, inputs):
    """The names of what is compared for `case`."""
    names = ["value", "jvp", "vjp"]
    if inputs.scalar and inputs.real_out:
        names.append("grad")
    if inputs.real_out:
        names.append("jacrev")
    if inputs.real_in:
        names.append("jacfwd")
    if case.holomorphic:
        names += ["jacfwd_holomorphic", "jacrev_holomorphic"] + (["grad_holomorphic"] if inputs.scalar else [])
    return names


def compute(case, np_, ad, inputs, only=None):
    f = partial(case, np_)
    an = local_argnums(case)
    diff = inputs.diff
    out = {}
    for name in transforms(case, inputs) if only is None else [only]:
        if name == "value":
            out[name] = f(*diff)
        elif name == "jvp":
            out[name] = ad.jvp(f, tuple(diff), tuple(inputs.tangents))
        elif name == "vjp":
            value, pull = ad.vjp(f, *diff)
            out[name] = (value, pull(inputs.cotangent))
        elif name in ("grad", "jacrev", "jacfwd"):
            out[name] = getattr(ad, name)(f, an)(*diff)
        else:
            out[name] = getattr(ad, name.split("_")[0])(f, an, holomorphic=True)(*diff)
    return out


_REFERENCE = {}
_CHUNK = 12


def reference(case):
    if case.name not in _REFERENCE:
        start = COMPLEX_CASES.index(case)
        chunk = [c for c in COMPLEX_CASES[start:] if c.name not in _REFERENCE][:_CHUNK]
        inputs = [Inputs(c) for c in chunk]

        def program(diffs):
            results = []
            for c, i, d in zip(chunk, inputs, diffs):
                i.diff = list(d)
                results.append(compute(c, jnp, jax, i))
            return results
        raw = jax.jit(program)([tuple(i.diff) for i in inputs])
        for c, r in zip(chunk, raw):
            _REFERENCE[c.name] = jax.tree_util.tree_map(np.asarray, r)
    return _REFERENCE[case.name]


def _params():
    return [pytest.param(c, t, id=f"{c.name}-{t}") for c in COMPLEX_CASES for t in transforms(c, Inputs(c))]


@pytest.mark.parametrize("case,transform", _params())
def test_against_jax(case, transform):
    inputs = Inputs(case)
    got = compute(case, fnp, fgrad, inputs, only=transform)[transform]
    want = reference(case)[transform]
    assert_tree_close(got, want, case, transform)


def test_complex_corpus_size_and_coverage():
    """At least 60 functions, holomorphic or not, real-to-complex and complex-to-real."""
    assert len(COMPLEX_CASES) >= 60
    assert len({c.name for c in COMPLEX_CASES}) == len(COMPLEX_CASES)
    kinds = [Inputs(c) for c in COMPLEX_CASES]
    assert sum(c.holomorphic for c in COMPLEX_CASES) >= 20
    assert sum(i.real_in and not i.real_out for i in kinds) >= 3
    assert sum(i.real_out and not i.real_in for i in kinds) >= 15
