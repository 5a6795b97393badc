"""Every row of the op database, checked generically; every primitive covered by a row."""
import numpy as np
import optree
import pytest

import fgrad
import fgrad.numpy as fnp
from fgrad.ir.value import concrete
from fgrad.ops.primitive import REGISTRY
from fgrad.testing import check_grads
from fgrad.transforms import trees

from ..op_db import OPS

ROWS = [pytest.param(op, id=op.name) for op in OPS]


def _split(args):
    """Positions of the float and complex arguments (differentiated)."""
    pos = [i for i, a in enumerate(args) if isinstance(a, (float, complex, np.inexact, np.ndarray))
           and np.issubdtype(np.asarray(a).dtype, np.inexact)]
    return pos


def random_like(rng, x):
    """Standard normal values of x's shape and dtype (both parts of a complex x)."""
    x = np.asarray(x)
    r = rng.standard_normal(x.shape)
    if x.dtype.kind == "c":
        r = r + 1j * rng.standard_normal(x.shape)
    return np.asarray(r, dtype=x.dtype)


def pairing(a, b):
    """Re(sum(a * b)): the pairing under which a vjp is the jvp's transpose (Note [complex
    derivatives] in fgrad/ops/conversion.py; the plain dot product for real values)."""
    return float(np.real(np.sum(np.asarray(a) * np.asarray(b))))


def _partial(op, args, pos):
    def f(*diff):
        full = list(args)
        for i, d in zip(pos, diff):
            full[i] = d
        return op.fn(*full, **op.kwargs)
    return f


def _close(actual, expected, rtol=1e-12, atol=1e-12):
    a_leaves, _a_tree = trees.flatten(actual)
    e_leaves, _e_tree = trees.flatten(expected if not isinstance(expected, list) else list(expected))
    assert len(a_leaves) == len(e_leaves)
    for a, e in zip(a_leaves, e_leaves):
        a, e = np.asarray(concrete(a)), np.asarray(e)
        assert a.shape == e.shape, (a.shape, e.shape)
        assert a.dtype == e.dtype or (np.issubdtype(a.dtype, np.floating) and np.issubdtype(e.dtype, np.floating)) \
            or (a.dtype.kind == "c" and e.dtype.kind == "c"), (a.dtype, e.dtype)
        np.testing.assert_allclose(a, e, rtol=rtol, atol=atol)


@pytest.mark.parametrize("op", ROWS)
def test_value_matches_numpy(op):
    rng = np.random.default_rng(0)
    for args in op.samples(rng):
        _close(op.fn(*args, **op.kwargs), op.ref(*args, **op.kwargs))


@pytest.mark.parametrize("op", [r for r in ROWS if r.values[0].differentiable])
def test_derivatives_against_finite_differences(op):
    """jvp and vjp against central differences, to second order, and the two against each other."""
    rng = np.random.default_rng(1)
    for args in op.samples(rng):
        pos = _split(args)
        f = _partial(op, args, pos)
        check_grads(f, [args[i] for i in pos], order=2 if op.second_order else 1, eps=op.eps,
                    atol=op.atol, rtol=op.rtol)


@pytest.mark.parametrize("op", [r for r in ROWS if r.values[0].differentiable])
def test_jvp_and_vjp_are_transposes(op):
    """v . (J u) == (J^T v) . u to 1e-10 for random u, v."""
    rng = np.random.default_rng(2)
    for args in op.samples(rng):
        pos = _split(args)
        f = _partial(op, args, pos)
        primals = [args[i] for i in pos]
        u = [random_like(rng, p) for p in primals]
        out, ju = fgrad.jvp(f, primals, u)
        out_leaves, out_tree = trees.flatten(out)
        v = [random_like(rng, o) for o in out_leaves]
        _, f_vjp = fgrad.vjp(f, *primals)
        jtv = f_vjp(trees.unflatten(out_tree, v))
        lhs = sum(pairing(a, b) for a, b in zip(v, trees.flatten(ju)[0]))
        rhs = sum(pairing(a, b) for a, b in zip(trees.flatten(jtv)[0], u))
        tol = 1e-10 if all(np.asarray(o).dtype in (np.float64, np.complex128) for o in out_leaves) else 1e-5
        assert abs(lhs - rhs) <= tol * max(1.0, abs(lhs)), (lhs, rhs)


def test_every_registered_primitive_has_a_row():
    """The table is how new ops get tested: a primitive no row reaches is an untested op."""
    used = set()
    rng = np.random.default_rng(0)
    for op in OPS:
        for args in op.samples(rng):
            # every array argument traced (integers too): fgrad.compile's program (a row's Python
            # numbers, exponents and orders, static: as traced numbers some ops refuse them, as jit's)
            static = tuple(i for i, a in enumerate(args) if not hasattr(a, "shape"))
            used.update(fgrad.compile(lambda *a, op=op: op.fn(*a, **op.kwargs), static_argnums=static)
                        .lower(*args).program.primitives())
            pos = _split(args)
            if not pos:
                continue
            graph = fgrad.make_graph(_partial(op, args, pos))(*[args[i] for i in pos])
            used.update(graph.primitives())
            if op.differentiable:  # the rules' own primitives count too (transposes like scatter_add)
                # (the default binds this iteration's function, evaluated once when loss is defined)
                def loss(*d, f=_partial(op, args, pos)):  # noqa: B008
                    return sum(fnp.sum(fnp.real(fnp.asarray(o) * fnp.conj(o))) for o in trees.flatten(f(*d))[0])
                used.update(fgrad.make_graph(lambda *d: fgrad.grad(loss, argnums=tuple(range(len(d))))(*d))(
                    *[args[i] for i in pos]).primitives())
    # (the collectives of fgrad.distributed exchange data with other processes: tests/distributed
    # checks their rules, in a world of one and under mpiexec)
    missing = sorted(name for name in set(REGISTRY) - used if not REGISTRY[name].effectful)
    assert not missing, f"primitives without a row in tests/op_db.py: {missing}"


# ---- vmap: every row batched, against a stack of its slices -----------------------------
B = 3


def _batched(args, pos, rng):
    """For each float argument, a random batch axis (or None, unmapped) and the stacked value:
    B scaled copies (scaling keeps a sample in its domain, and its ties and zeros)."""
    axes = [None] * len(args)
    for i in pos:
        if rng.random() < 0.75 or (i == pos[-1] and all(axes[j] is None for j in pos)):
            axes[i] = int(rng.integers(0, np.ndim(args[i]) + 1))
    examples = [[a if axes[i] is None else a * (1.0 + 0.03 * b) for i, a in enumerate(args)] for b in range(B)]
    stacked = [a if axes[i] is None else np.stack([np.asarray(e[i]) for e in examples], axis=axes[i])
               for i, a in enumerate(args)]
    return axes, stacked, examples


def _out_axis(out_leaves, rng):
    """A random out_axes int valid for every output (a negative one half the time)."""
    top = min(np.ndim(o) for o in out_leaves)
    axis = int(rng.integers(0, top + 1))
    return axis - (top + 1) if rng.random() < 0.5 else axis


def _stack_outputs(results, axis):
    leaves = [trees.flatten(r)[0] for r in results]
    return [np.stack([np.asarray(concrete(x[k])) for x in leaves], axis=axis) for k in range(len(leaves[0]))]


@pytest.mark.parametrize("op", ROWS)
def test_vmap_matches_stacked_slices(op):
    """vmap(op) over random in_axes and out_axes equals op on each example, stacked. (A primitive
    with no batching rule fails here, naming it.)"""
    rng = np.random.default_rng(3)
    for args in op.samples(rng):
        pos = _split(args)
        if not pos:
            continue
        axes, stacked, examples = _batched(args, pos, rng)
        f = lambda *a: op.fn(*a, **op.kwargs)  # noqa: E731
        if not op.batchable:
            with pytest.raises(TypeError, match="batched by vmap"):
                fgrad.vmap(f, in_axes=tuple(axes))(*stacked)
            continue
        results = [f(*e) for e in examples]
        out_axis = _out_axis(trees.flatten(results[0])[0], rng)
        got = fgrad.vmap(f, in_axes=tuple(axes), out_axes=out_axis)(*stacked)
        _close(got, _stack_outputs(results, out_axis))


@pytest.mark.parametrize("op", [r for r in ROWS if r.values[0].differentiable and r.values[0].batchable])
def test_jvp_and_vjp_under_vmap(op):
    """vmap of jvp (batched primals and tangents) and of vjp (batched primals and cotangents)
    equal the per-example results, stacked."""
    rng = np.random.default_rng(4)
    for args in op.samples(rng):
        pos = _split(args)
        f = _partial(op, args, pos)
        primals = [np.stack([np.asarray(args[i]) * (1.0 + 0.03 * b) for b in range(B)]) for i in pos]
        tangents = [random_like(rng, p) for p in primals]
        got = fgrad.vmap(lambda p, t: fgrad.jvp(f, p, t))(primals, tangents)
        want = [fgrad.jvp(f, [p[b] for p in primals], [t[b] for t in tangents]) for b in range(B)]
        _close(got, _stack_outputs(want, 0), rtol=1e-10, atol=1e-10)
        outs = [f(*[p[b] for p in primals]) for b in range(B)]
        out_leaves, out_tree = trees.flatten(outs[0])
        cts = [np.stack([random_like(rng, o) for _ in range(B)]) for o in out_leaves]
        got = fgrad.vmap(lambda p, c: fgrad.vjp(f, *p)[1](trees.unflatten(out_tree, c)))(primals, cts)
        want = [fgrad.vjp(f, *[p[b] for p in primals])[1](trees.unflatten(out_tree, [c[b] for c in cts]))
                for b in range(B)]
        _close(got, _stack_outputs(want, 0), rtol=1e-10, atol=1e-10)


def test_every_primitive_declares_a_batching_rule():
    missing = sorted(name for name, prim in REGISTRY.items() if prim.batch is None)
    assert not missing, f"primitives without a batching rule (Primitive(..., batch=)): {missing}"


# ---- another device: values and derivatives stay there -------------------------------------
SECOND_DEVICES = [pytest.param(fgrad.backend.register_numpy_device(1), id="cpu:1"),
                  pytest.param("cuda:0", id="cuda:0", marks=pytest.mark.gpu)]


def _on_device(value, device):
    return device.send(value) if isinstance(value, np.ndarray) else value


@pytest.mark.parametrize("device", SECOND_DEVICES)
@pytest.mark.parametrize("op", [r for r in ROWS if r.values[0].differentiable and r.values[0].one_device])
def test_rows_on_another_device(op, device):
    """Each row's value, jvp and vjp on another device (the second NumPy device here, CUDA where
    a GPU is): the same numbers as on the CPU, and every result on that device. (The CPU is
    where values are made by default, so this finds every constant made on the wrong device.)"""
    if str(device) == "cuda:0" and not fgrad.backend.cupy_available():
        pytest.skip("no CUDA device")
    device = fgrad.device(device)
    rng = np.random.default_rng(5)
    for args in op.samples(rng):
        pos = _split(args)
        f = _partial(op, args, pos)
        primals = [args[i] for i in pos]
        moved = [_on_device(np.asarray(p), device) for p in primals]
        g = lambda *d: _partial(op, [_on_device(a, device) if i not in pos else a  # noqa: E731
                                     for i, a in enumerate(args)], pos)(*d)
        tangents = [random_like(rng, p) for p in primals]
        out, jv = fgrad.jvp(g, moved, [_on_device(t, device) for t in tangents])
        want_out, want_jv = fgrad.jvp(f, primals, tangents)
        for got, want in [(out, want_out), (jv, want_jv)]:
            for a, w in zip(trees.flatten(got)[0], trees.flatten(want)[0]):
                if np.issubdtype(np.asarray(w).dtype, np.inexact):
                    assert fgrad.backend.device_of(a) == device, op.name
                np.testing.assert_allclose(fgrad.device("cpu").send(a), fgrad.device("cpu").send(w), rtol=1e-12,
                                           atol=1e-12)
        out_leaves, out_tree = trees.flatten(want_out)
        cts = [random_like(rng, o) for o in out_leaves]
        got = fgrad.vjp(g, *moved)[1](trees.unflatten(out_tree, [_on_device(c, device) for c in cts]))
        want = fgrad.vjp(f, *primals)[1](trees.unflatten(out_tree, [fgrad.backend.device_of(o).send(c)
                                                                     for o, c in zip(out_leaves, cts)]))
        for a, w in zip(trees.flatten(got)[0], trees.flatten(want)[0]):
            assert fgrad.backend.device_of(a) == device, op.name
            np.testing.assert_allclose(fgrad.device("cpu").send(a), fgrad.device("cpu").send(w), rtol=1e-12,
                                       atol=1e-12)


def _samples_twice(op):
    """Two sample sets of the same shapes and different values: one traces, one replays."""
    return zip(op.samples(np.random.default_rng(6)), op.samples(np.random.default_rng(7)))


@pytest.mark.parametrize("op", ROWS)
def test_compiled_replay_matches_eager(op):
    """fgrad.compile of each row's value, jvp, vjp and (second order rows) hessian: traced on
    one sample, replayed on another of the same shapes, equal to the eager result there."""
    for traced_args, args in _samples_twice(op):
        pos = _split(args)
        f = _partial(op, args, pos)
        checks = [("value", f)]
        if op.differentiable and pos:
            def jvp(*p):
                return fgrad.jvp(f, p, [fnp.ones_like(x) for x in p])

            def vjp(*p):
                out, pull = fgrad.vjp(f, *p)
                return pull(optree.tree_map(fnp.ones_like, out))
            checks += [("jvp", jvp), ("vjp", vjp)]
            nums = tuple(range(len(pos)))
            if op.second_order and not any(np.iscomplexobj(args[i]) for i in pos):
                checks.append(("hessian", fgrad.hessian(lambda *p: fnp.sum(fnp.real(fnp.sin(_first(f(*p))))), nums)))
            elif op.second_order:  # (hessian takes real inputs: a gradient of a gradient, as JAX's)
                def loss(*p):
                    return fnp.sum(fnp.abs(fnp.sin(_first(f(*p)))) ** 2)

                def gradgrad(*p):
                    return fgrad.grad(lambda *q: sum(fnp.sum(fnp.real(g * g)) for g in fgrad.grad(loss, nums)(*q)),
                                      nums)(*p)
                checks.append(("gradgrad", gradgrad))
        for what, fn in checks:
            compiled = fgrad.compile(fn)
            compiled(*[traced_args[i] for i in pos])
            got = compiled(*[args[i] for i in pos])
            _close(got, fn(*[args[i] for i in pos]), rtol=1e-11, atol=1e-12)
            assert compiled.cache_info().misses == 1, what


def _first(out):
    return trees.flatten(out)[0][0]
