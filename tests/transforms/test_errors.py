"""What users get wrong, and the messages they get back: each names the transform or op,
the argument and the shapes/dtypes involved (API.md, "Errors")."""
import numpy as np
import pytest

import fgrad
import fgrad.numpy as fnp


# ---- what is differentiated ------------------------------------------------------------------
def test_grad_of_non_scalar_output():
    with pytest.raises(TypeError) as e:
        fgrad.grad(lambda x: x * 2.0)(np.ones(3))
    msg = str(e.value)
    assert "grad" in msg and "scalar" in msg and "(3,)" in msg


def test_value_and_grad_of_non_scalar_output():
    with pytest.raises(TypeError, match=r"value_and_grad.*scalar.*\(2, 2\)"):
        fgrad.value_and_grad(lambda x: x * 2.0)(np.ones((2, 2)))


def test_grad_of_integer_output():
    with pytest.raises(TypeError, match=r"grad.*floating.*int"):
        fgrad.grad(lambda x: fnp.argmax(x))(np.ones(3))


def test_grad_of_non_array_output():
    with pytest.raises(TypeError, match=r"grad.*list"):
        fgrad.grad(lambda x: [x])(1.0)


@pytest.mark.parametrize("arg,what", [
    (3, "int"),
    (True, "bool"),
    (np.arange(3), "int64"),
    (np.array([True, False]), "bool"),
    (np.int32(4), "int32"),
])
def test_grad_with_respect_to_integer_or_boolean_input(arg, what):
    with pytest.raises(TypeError) as e:
        fgrad.grad(lambda x: fnp.sum(x * 2.0))(arg)
    msg = str(e.value)
    assert "grad" in msg and "args[0]" in msg and what in msg and "float" in msg


def test_integer_input_named_inside_pytree_and_by_other_transforms():
    with pytest.raises(TypeError, match=r"grad.*args\[0\]\['n'\].*int"):
        fgrad.grad(lambda p: p["x"] * 2.0)({"x": 1.0, "n": 3})
    for run in (lambda: fgrad.jvp(lambda x: x, (np.arange(2),), (np.ones(2),)),
                lambda: fgrad.vjp(lambda x: x, np.arange(2)),
                lambda: fgrad.jacfwd(lambda x: x)(np.arange(2)),
                lambda: fgrad.jacrev(lambda x: x)(np.arange(2))):
        with pytest.raises(TypeError, match=r"int64"):
            run()


def test_integer_argument_not_differentiated_is_fine():
    assert fgrad.grad(lambda x, n: x ** n)(2.0, 3) == pytest.approx(12.0)


# ---- unsupported NumPy functions -------------------------------------------------------------
@pytest.mark.parametrize("name,call", [
    ("numpy.polynomial.polynomial.polyval", lambda x: np.polynomial.polynomial.polyval(2.0, x)),
    ("numpy.copyto", lambda x: np.copyto(np.zeros(4), x) or x),
    ("numpy.array_repr", lambda x: len(np.array_repr(x)) * x),
])
def test_unsupported_numpy_function_is_named(name, call):
    with pytest.raises(TypeError) as e:
        fgrad.grad(lambda x: fnp.sum(call(x)))(np.ones(4))
    assert name in str(e.value)


def test_converting_a_traced_value_to_an_ndarray_is_refused():
    with pytest.raises(TypeError, match=r"grad.*shape \(2,\).*stop_gradient"):
        fgrad.grad(lambda x: fnp.sum(np.asarray(x)))(np.ones(2))


# ---- cotangents and tangents -----------------------------------------------------------------
def test_vjp_cotangent_of_wrong_shape():
    _, pull = fgrad.vjp(lambda x: x * 2.0, np.ones(3))
    with pytest.raises(TypeError) as e:
        pull(np.ones(4))
    msg = str(e.value)
    assert "vjp" in msg and "(4,)" in msg and "(3,)" in msg


def test_vjp_cotangent_of_wrong_dtype():
    _, pull = fgrad.vjp(lambda x: x * 2.0, np.ones(3))
    with pytest.raises(TypeError) as e:
        pull(np.ones(3, np.float32))
    msg = str(e.value)
    assert "vjp" in msg and "float32" in msg and "float64" in msg
    with pytest.raises(TypeError, match="int64"):
        pull(np.ones(3, np.int64))


def test_vjp_cotangent_of_wrong_structure():
    _, pull = fgrad.vjp(lambda x: (x, x * 2.0), np.ones(2))
    with pytest.raises(TypeError, match=r"vjp.*structure"):
        pull(np.ones(2))


def test_jvp_tangent_of_wrong_shape_and_dtype():
    with pytest.raises(TypeError) as e:
        fgrad.jvp(lambda x: x * 2.0, (np.ones(3),), (np.ones(2),))
    msg = str(e.value)
    assert "jvp" in msg and "tangent" in msg and "(2,)" in msg and "(3,)" in msg
    with pytest.raises(TypeError, match=r"jvp.*float32.*float64"):
        fgrad.jvp(lambda x: x * 2.0, (np.ones(3),), (np.ones(3, np.float32),))


def test_jvp_tangent_message_names_the_primal_not_an_output():
    with pytest.raises(TypeError) as e:
        fgrad.jvp(lambda x: x * 2.0, (np.ones(3),), (np.ones(2),))
    assert "output" not in str(e.value)


def test_jvp_primals_and_tangents_must_be_sequences_of_equal_length():
    with pytest.raises(TypeError, match="jvp"):
        fgrad.jvp(lambda x: x, np.ones(2), np.ones(2))
    with pytest.raises(TypeError, match="jvp"):
        fgrad.jvp(lambda x, y: x, (np.ones(2), np.ones(2)), (np.ones(2),))


def test_linearize_tangent_of_wrong_shape():
    _, f_jvp = fgrad.linearize(lambda x: x * 2.0, np.ones(3))
    with pytest.raises(TypeError, match=r"linearize.*\(2,\)"):
        f_jvp(np.ones(2))


# ---- argnums ---------------------------------------------------------------------------------
@pytest.mark.parametrize("transform", ["grad", "value_and_grad", "jacfwd", "jacrev"])
@pytest.mark.parametrize("argnums,exc", [(2, ValueError), (-3, ValueError), ((0, 5), ValueError),
                                          (1.0, TypeError), ("0", TypeError), ((), ValueError)])
def test_bad_argnums(transform, argnums, exc):
    fn = getattr(fgrad, transform)(lambda x, y: x * y, argnums=argnums)
    with pytest.raises(exc) as e:
        fn(1.0, 2.0)
    msg = str(e.value)
    assert transform in msg and "argnums" in msg


def test_bad_argnums_hessian_names_hessian():
    with pytest.raises(ValueError, match="hessian"):
        fgrad.hessian(lambda x, y: x * y, argnums=5)(1.0, 2.0)


# ---- traced values that escape their transform -----------------------------------------------
LEAK = []


def leaky(x):
    LEAK.append(x)
    return fnp.sum(x * 2.0)


X = np.ones(2)
RUNS = {
    "grad": lambda: fgrad.grad(leaky)(X),
    "value_and_grad": lambda: fgrad.value_and_grad(leaky)(X),
    "vjp": lambda: fgrad.vjp(leaky, X),
    "jvp": lambda: fgrad.jvp(leaky, (X,), (X,)),
    "linearize": lambda: fgrad.linearize(leaky, X),
    "make_graph": lambda: fgrad.make_graph(leaky)(X),
    "jacfwd": lambda: fgrad.jacfwd(leaky)(X),
    "jacrev": lambda: fgrad.jacrev(leaky)(X),
    "hessian": lambda: fgrad.hessian(leaky)(X),
    "hvp": lambda: fgrad.hvp(leaky, (X,), (X,)),
}
USES = {
    "fnp.sin": lambda v: fnp.sin(v),
    "np.sum": lambda v: np.sum(v),
    "operator": lambda v: v + 1.0,
    "method": lambda v: v.sum(),
    "in_new_grad": lambda v: fgrad.grad(lambda y: fnp.sum(y * v))(np.ones(2)),
}


def _leak_params():
    out = []
    for name in RUNS:
        for use in USES:
            out.append(pytest.param(name, use, id=f"{name}-{use}"))
    return out


@pytest.mark.parametrize("name,use", _leak_params())
def test_leaked_tracer_raises_type_error_naming_the_transform(name, use):
    LEAK.clear()
    RUNS[name]()
    leaked = LEAK[0]
    LEAK.clear()
    with pytest.raises(TypeError) as e:
        USES[use](leaked)
    msg = str(e.value)
    assert "already returned" in msg
    assert f"of {name} " in msg, msg


def test_leaked_tracer_of_outer_transform_used_inside_a_later_call():
    """A value leaked from one grad call, fed into a later call of the same function."""
    stash = []

    def f(x):
        if stash:
            return x * stash[0]
        stash.append(x)
        return x * 2.0

    fgrad.grad(f)(1.0)
    with pytest.raises(TypeError, match="grad"):
        fgrad.grad(f)(3.0)


def test_custom_rule_errors_are_clear():
    @fgrad.custom_vjp
    def f(x):
        return x * 2.0

    with pytest.raises(TypeError, match=r"custom_vjp.*defvjp"):
        fgrad.grad(f)(1.0)
    f.defvjp(lambda x: (x * 2.0, None), lambda res, g: g * 2.0)  # not a tuple
    with pytest.raises(TypeError, match=r"custom_vjp.*tuple"):
        fgrad.grad(f)(1.0)

    @fgrad.custom_jvp
    def h(x):
        return x * 2.0

    with pytest.raises(TypeError, match=r"custom_jvp.*defjvp"):
        fgrad.jvp(h, (1.0,), (1.0,))


def test_jacrev_of_integer_output_names_jacrev():
    with pytest.raises(TypeError, match=r"jacrev.*(float|real)"):
        fgrad.jacrev(lambda x: fnp.argmax(x))(np.ones(2))


def test_a_forgotten_has_aux_is_named():
    with pytest.raises(TypeError, match="has_aux=True"):
        fgrad.grad(lambda x: (fnp.sum(x), x))(np.ones(3))


def test_np_vectorize_points_to_fgrad_numpy_vectorize():
    with pytest.raises(TypeError, match=r"numpy\.vectorize.*fgrad\.numpy\.vectorize"):
        fgrad.grad(lambda x: np.vectorize(lambda a: a * 2.0)(x).sum())(np.ones(3))
