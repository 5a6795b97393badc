"""vmap: axes specs, sizes and errors, chunking, and composition with every transform, each
checked against a Python loop over the examples."""
import numpy as np
import pytest

import fgrad
import fgrad.numpy as fnp
from fgrad import nn
from fgrad.func import functional_call, grad_and_value

rng = np.random.default_rng(0)


def loop(f, *args, in_axes=0):
    """f on each example, stacked along 0: the reference vmap must equal."""
    axes = in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(args)
    size = next(np.shape(a)[ax] for a, ax in zip(args, axes) if ax is not None)
    outs = [f(*[a if ax is None else np.take(a, b, axis=ax) for a, ax in zip(args, axes)]) for b in range(size)]
    return fgrad.transforms.trees.unflatten(
        fgrad.transforms.trees.flatten(outs[0])[1],
        [np.stack(parts) for parts in zip(*[fgrad.transforms.trees.flatten(o)[0] for o in outs])])


def close(a, b, tol=1e-12):
    la, lb = fgrad.transforms.trees.flatten(a)[0], fgrad.transforms.trees.flatten(b)[0]
    assert len(la) == len(lb)
    for x, y in zip(la, lb):
        assert np.shape(x) == np.shape(y)
        np.testing.assert_allclose(x, y, rtol=tol, atol=tol)


# ---- per-example gradients ----------------------------------------------------------------
def mlp_loss(params, x, y):
    w1, b1, w2, b2 = params
    h = fnp.tanh(x @ w1 + b1)
    z = h @ w2 + b2
    logp = z - fnp.log(fnp.sum(fnp.exp(z - fnp.max(z)))) - fnp.max(z)
    return -logp[y]


def test_per_example_gradients_of_an_mlp_equal_the_loop():
    params = [rng.standard_normal(s) * 0.5 for s in [(6, 8), (8,), (8, 3), (3,)]]
    x, y = rng.standard_normal((10, 6)), rng.integers(0, 3, 10)
    per_example = fgrad.vmap(fgrad.grad(mlp_loss), in_axes=(None, 0, 0))(params, x, y)
    close(per_example, loop(lambda xi, yi: fgrad.grad(mlp_loss)(params, xi, yi), x, y))
    assert [g.shape for g in per_example] == [(10, 6, 8), (10, 8), (10, 8, 3), (10, 3)]


@pytest.mark.parametrize("as_tensors", [False, True])
def test_per_example_gradients_of_an_nn_model_with_functional_call(as_tensors):
    """The torch.func tutorial's form: parameters as detached Tensors (or as arrays)."""
    fgrad.manual_seed(0)
    model = nn.Sequential(nn.Linear(5, 7), nn.Tanh(), nn.Linear(7, 3))
    params = {k: v.detach() if as_tensors else v.detach().numpy() for k, v in model.named_parameters()}
    x, y = rng.standard_normal((6, 5)), rng.integers(0, 3, 6)

    def loss(p, xi, yi):
        return nn.functional.cross_entropy(functional_call(model, p, (xi[None],)), yi[None])
    got = fgrad.func.vmap(fgrad.func.grad(loss), in_dims=(None, 0, 0))(params, x, y)
    want = loop(lambda xi, yi: fgrad.grad(loss)(params, xi, yi), x, y)
    assert all(isinstance(g, fgrad.Tensor) == as_tensors for g in got.values())
    close({k: np.asarray(g.detach().numpy() if as_tensors else g) for k, g in got.items()},
          {k: np.asarray(g.detach().numpy() if as_tensors else g) for k, g in want.items()})
    assert isinstance(dict(model.named_parameters())["0.weight"], nn.Parameter)  # the module is unchanged after
    w = params["0.weight"]
    assert np.array_equal(dict(model.named_parameters())["0.weight"].detach().numpy(),
                          w.numpy() if as_tensors else w)


def test_grad_and_value_is_torch_funcs_order():
    g, v = grad_and_value(lambda x: fnp.sum(x ** 2))(np.array([1.0, 2.0]))
    assert v == 5.0 and np.allclose(g, [2.0, 4.0])


# ---- in_axes and out_axes ------------------------------------------------------------------
X = rng.standard_normal((3, 4))
Y = rng.standard_normal((4, 3))


@pytest.mark.parametrize("in_axes, args", [
    (0, (X, X)), ((0, 1), (X, Y)), ((-2, -1), (X, Y)), ((0, None), (X, Y[:, 0])),
    ([1, 0], (Y, X)),
])
def test_in_axes_forms(in_axes, args):
    f = lambda a, b: fnp.sin(a) * b  # noqa: E731
    close(fgrad.vmap(f, in_axes=in_axes)(*args), loop(f, *args, in_axes=tuple(in_axes) if isinstance(
        in_axes, list) else in_axes))


def test_in_axes_pytree_prefixes_and_kwargs():
    tree = {"w": X, "b": Y[0]}
    f = lambda t, s, scale=1.0: fnp.sum(t["w"] * t["b"]) * s * scale  # noqa: E731
    got = fgrad.vmap(f, in_axes=({"w": 1, "b": None}, 0))(tree, np.arange(4.0), scale=np.ones(4) * 2)
    want = [f({"w": X[:, i], "b": Y[0]}, float(i), 2.0) for i in range(4)]
    close(got, np.array(want))


@pytest.mark.parametrize("out_axes", [0, -1, (1, 0), (-1, None)])
def test_out_axes(out_axes):
    f = lambda a: (fnp.sin(a), fnp.sum(X))  # noqa: E731  (the second output is the same for every example)
    got = fgrad.vmap(f, out_axes=out_axes)(X)
    ax0, ax1 = (out_axes, out_axes) if isinstance(out_axes, int) else out_axes
    close(got[0], np.moveaxis(np.sin(X), 0, ax0))
    close(got[1], np.sum(X) if ax1 is None else np.full(3, np.sum(X)))  # (an unbatched output is broadcast)


def test_axis_size_maps_nothing_and_broadcasts():
    got = fgrad.vmap(lambda a: a * 2.0, in_axes=None, axis_size=5)(np.ones(2))
    close(got, np.full((5, 2), 2.0))


def test_python_scalars_and_unmapped_arguments_pass_through():
    got = fgrad.vmap(lambda a, k, s: a * k + s, in_axes=(0, None, None))(X, 3.0, 1.0)
    close(got, X * 3.0 + 1.0)


@pytest.mark.parametrize("chunk", [1, 2, 3, 10])
def test_chunk_size_gives_the_same_result(chunk):
    f = fgrad.grad(lambda a, b: fnp.sum(fnp.tanh(a @ b)))
    got = fgrad.vmap(f, in_axes=(1, None), out_axes=1, chunk_size=chunk)(Y, X.T)
    close(got, fgrad.vmap(f, in_axes=(1, None), out_axes=1)(Y, X.T))


# ---- errors ---------------------------------------------------------------------------------
def test_inconsistent_sizes_name_both_arguments():
    with pytest.raises(ValueError, match=r"inconsistent sizes.*args\[0\] has size 3 along axis 0; args\[1\]\['b'\] "
                                         r"has size 4 along axis 0"):
        fgrad.vmap(lambda a, t: a)(X, {"b": Y})


def test_bad_in_axes_structure_is_named():
    with pytest.raises(ValueError, match=r"in_axes has 1 entries, but the function was called with 2"):
        fgrad.vmap(lambda a, b: a, in_axes=(0,))(X, X)
    with pytest.raises(ValueError, match=r"in_axes=\(\{'w': 0\},\) does not match the structure"):
        fgrad.vmap(lambda t: t["w"], in_axes=({"w": 0},))({"w": X, "b": X})
    with pytest.raises(TypeError, match="in_axes must be an int, None, or a tuple/list/dict of them"):
        fgrad.vmap(lambda a: a, in_axes="0")(X)
    with pytest.raises(ValueError, match=r"maps args\[0\] along axis 2, but it has shape \(3, 4\)"):
        fgrad.vmap(lambda a: a, in_axes=2)(X)
    with pytest.raises(ValueError, match="maps no argument"):
        fgrad.vmap(lambda a: a, in_axes=None)(X)
    with pytest.raises(ValueError, match="chunk_size must be a positive int"):
        fgrad.vmap(lambda a: a, chunk_size=0)


@pytest.mark.parametrize("out_axes, batched", [(3, True), (-4, True), (3, False), (-4, False)])
def test_out_axes_out_of_range_raises_as_in_jax(out_axes, batched):
    """A rank-2 example has batched rank 3: out_axes in [-3, 2] (NumPy's moveaxis would wrap 3 to 0)."""
    f = (lambda a: a) if batched else (lambda a: fnp.ones((4, 5)))
    with pytest.raises(ValueError, match=rf"out_axes gives output\[0\] axis {out_axes}, but its batched rank is 3 "
                                         r"\(one example's rank is 2\)"):
        fgrad.vmap(f, out_axes=out_axes)(np.ones((3, 4, 5)))
    with pytest.raises(ValueError, match=r"out_axes gives output\[1\]\['w'\] axis 2"):
        fgrad.vmap(lambda a: (a, {"w": a[0]}), out_axes=(0, {"w": 2}))(np.ones((3, 4)))
    for axis in (2, -1, -3):  # in range, as JAX
        assert fgrad.vmap(f, out_axes=axis)(np.ones((3, 4, 5))).shape == {2: (4, 5, 3), -1: (4, 5, 3),
                                                                         -3: (3, 4, 5)}[axis]


def test_out_axes_none_for_a_batched_output_raises():
    with pytest.raises(ValueError, match=r"out_axes is None for output\[0\]"):
        fgrad.vmap(lambda a: fnp.sin(a), out_axes=None)(X)


def test_python_control_flow_on_a_batched_value_raises():
    with pytest.raises(TypeError, match=r"bool\(\) needs a value that is the same for every example"):
        fgrad.vmap(lambda a: a if fnp.sum(a) > 0 else -a)(X)
    with pytest.raises(TypeError, match="batched by vmap"):
        fgrad.vmap(lambda a: fnp.nonzero(a))(X)


# ---- composition, in every order ------------------------------------------------------------
def f(x):
    return fnp.sum(fnp.sin(x) * x ** 2)


def test_vmap_of_grad_and_grad_of_vmap():
    close(fgrad.vmap(fgrad.grad(f))(X), loop(fgrad.grad(f), X))
    close(fgrad.grad(lambda a: fnp.sum(fgrad.vmap(f)(a)))(X), loop(fgrad.grad(f), X))


def test_vmap_of_jvp_and_vjp():
    t = rng.standard_normal(X.shape)
    got = fgrad.vmap(lambda a, b: fgrad.jvp(f, (a,), (b,)))(X, t)
    close(got, loop(lambda a, b: fgrad.jvp(f, (a,), (b,)), X, t))
    got = fgrad.vmap(lambda a: fgrad.vjp(f, a)[1](1.0))(X)
    close(got, loop(lambda a: fgrad.vjp(f, a)[1](1.0), X))


def test_vmap_of_hessian_jacfwd_and_jacrev():
    for transform in (fgrad.hessian, lambda g: fgrad.jacfwd(fgrad.grad(g)), lambda g: fgrad.jacrev(fgrad.grad(g))):
        close(fgrad.vmap(transform(f))(X), loop(transform(f), X), tol=1e-10)


def test_nested_vmap_of_grad():
    Z = rng.standard_normal((2, 3, 4))
    close(fgrad.vmap(fgrad.vmap(fgrad.grad(f)))(Z), np.stack([loop(fgrad.grad(f), z) for z in Z]))
    close(fgrad.vmap(fgrad.vmap(fgrad.grad(f), in_axes=1), in_axes=2)(Z),
          np.stack([np.stack([fgrad.grad(f)(Z[:, j, i]) for j in range(3)]) for i in range(4)]))


def test_jacfwd_of_vmap():
    g = lambda a: fgrad.vmap(lambda r: fnp.sin(r) * fnp.sum(r))(a)  # noqa: E731
    jac = fgrad.jacfwd(g)(X)
    assert jac.shape == (3, 4, 3, 4)
    close(jac, fgrad.jacrev(g)(X), tol=1e-12)
    for b in range(3):  # examples do not mix: the Jacobian is block diagonal
        close(jac[b, :, b], fgrad.jacfwd(lambda r: fnp.sin(r) * fnp.sum(r))(X[b]))


def test_closures_over_outer_values():
    """An outer grad's value closed over inside vmap is a constant there, and the outer grad
    differentiates through it (no perturbation or batch-axis confusion)."""
    def outer(s):
        return fnp.sum(fgrad.vmap(lambda r: fnp.sum(r * s) ** 2)(X))
    close(fgrad.grad(outer)(1.5), sum(2 * np.sum(r * 1.5) * np.sum(r) for r in X))
    w = rng.standard_normal(4)

    def inner(v):  # an outer vmap's value closed over by an inner vmap
        return fgrad.vmap(lambda r: fnp.sum(r * v))(X)
    close(fgrad.vmap(inner)(np.stack([w, 2 * w])), np.stack([X @ w, X @ (2 * w)]))


def _custom_pair():
    @fgrad.custom_vjp
    def sq(x):
        return x ** 2

    sq.defvjp(lambda x: (x ** 2, x), lambda x, g: (3.0 * x * g,))  # not 2x: the rule must be the one used

    @fgrad.custom_jvp
    def cube(x):
        return x ** 3

    cube.defjvp(lambda p, t: (cube(p[0]), 5.0 * p[0] ** 2 * t[0]))  # not 3x^2
    return sq, cube


def test_vmap_of_custom_rules_batches_the_rule():
    sq, cube = _custom_pair()
    close(fgrad.vmap(fgrad.grad(lambda a: fnp.sum(sq(a))))(X), 3.0 * X)
    close(fgrad.grad(lambda a: fnp.sum(fgrad.vmap(sq)(a)))(X), 3.0 * X)
    close(fgrad.jvp(fgrad.vmap(sq), (X,), (np.ones_like(X),))[1], 3.0 * X)
    close(fgrad.grad(lambda a: fnp.sum(fgrad.vmap(cube)(a)))(X), 5.0 * X ** 2)
    close(fgrad.jvp(fgrad.vmap(cube), (X,), (np.ones_like(X),))[1], 5.0 * X ** 2)
    close(fgrad.vmap(fgrad.grad(lambda a: fnp.sum(cube(a))))(X), 5.0 * X ** 2)


def test_vmap_inside_and_around_checkpoint():
    body = lambda a: fnp.sin(a) ** 2  # noqa: E731
    want = 2 * np.sin(X) * np.cos(X)
    close(fgrad.grad(lambda a: fnp.sum(fgrad.checkpoint(fgrad.vmap(body))(a)))(X), want)
    close(fgrad.grad(lambda a: fnp.sum(fgrad.vmap(fgrad.checkpoint(body))(a)))(X), want)
    close(fgrad.vmap(fgrad.grad(lambda a: fnp.sum(fgrad.checkpoint(body)(a))))(X), want)


# ---- Jacobians on vmap ----------------------------------------------------------------------
def test_jacobian_modes_agree_and_chunking_does_not_change_them():
    g = lambda a, b: fnp.tanh(a @ b)  # noqa: E731
    a, b = rng.standard_normal((5, 4)), rng.standard_normal(4)
    full = fgrad.jacfwd(g, argnums=(0, 1))(a, b)
    for jac in (fgrad.jacrev(g, argnums=(0, 1))(a, b), fgrad.jacobian(g, argnums=(0, 1))(a, b),
                fgrad.jacobian(g, argnums=(0, 1), mode="reverse")(a, b),
                fgrad.jacfwd(g, argnums=(0, 1), chunk_size=3)(a, b),
                fgrad.jacrev(g, argnums=(0, 1), chunk_size=2)(a, b)):
        close(jac, full)
    close(fgrad.hessian(f, chunk_size=5)(X), fgrad.hessian(f)(X), tol=1e-10)
    with pytest.raises(ValueError, match="mode must be"):
        fgrad.jacobian(g, mode="sideways")


def test_custom_vjp_residuals_that_are_not_arrays_or_not_batched():
    @fgrad.custom_vjp
    def scale(x, w):
        return x * w

    scale.defvjp(lambda x, w: (x * w, ("a label", 2.0, w, x)),
                 lambda res, g: (res[1] * res[2] * g, fnp.sum(res[3] * g) * 0.0 + res[3] * g))
    w = rng.standard_normal(4)
    got = fgrad.grad(lambda a: fnp.sum(fgrad.vmap(scale, in_axes=(0, None))(a, w)))(X)
    close(got, np.broadcast_to(2.0 * w, X.shape))  # the rule's 2w, not the function's w
    gw = fgrad.grad(lambda v: fnp.sum(fgrad.vmap(scale, in_axes=(0, None))(X, v)))(w)
    close(gw, X.sum(0))


def test_autograd_function_under_vmap_uses_its_backward():
    class Cube(fgrad.autograd.Function):
        """x^3, whose backward is 5x^2 (not 3x^2: the rule must be the one used), with the
        factor kept on ctx (a plain attribute beside the saved tensor)."""

        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            ctx.factor = 5.0
            return x * x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return ctx.factor * x * x * g

    close(fgrad.vmap(Cube.apply)(X), X ** 3)
    close(fgrad.vmap(fgrad.grad(lambda a: Cube.apply(a).sum()))(X), 5 * X ** 2)
    close(fgrad.grad(lambda a: fgrad.vmap(Cube.apply)(a).sum())(X), 5 * X ** 2)


@pytest.mark.parametrize("convert", [float, lambda a: a.item(), lambda a: np.ones(3)[a.astype(int)]])
def test_conversions_of_a_batched_value_say_it_differs_between_examples(convert):
    with pytest.raises(TypeError, match="needs a value that is the same for every example"):
        fgrad.vmap(convert)(np.ones(2))


def test_vmap_of_tensors_records_on_the_imperative_tape():
    x = fgrad.tensor(X, requires_grad=True)
    y = fgrad.vmap(lambda r: (r * r).sum())(x)
    assert isinstance(y, fgrad.Tensor) and y.grad_fn is not None
    y.sum().backward()
    close(x.grad.numpy(), 2 * X)


@pytest.mark.parametrize("fn", [fnp.any, fnp.all, fnp.count_nonzero])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_any_all_and_count_nonzero_are_per_example(fn, axis):
    Z = np.array([[[0.0, 1.0], [0.0, 0.0]], [[1.0, 1.0], [2.0, 3.0]], [[0.0, 0.0], [0.0, 0.0]]])
    got = fgrad.vmap(lambda z: fn(z, axis=axis))(Z)
    want = np.stack([fn(z, axis=axis) for z in Z])
    assert np.array_equal(got, want) and np.asarray(got).dtype == want.dtype
