"""Arrays fgrad keeps are read-only while it keeps them (Note [what fgrad keeps is read-only]).

Each case wrote into an array after fgrad read it and got a wrong derivative silently
(issue 27); now the write raises at the write, and the array is writable again once nothing
that will read it is alive."""
import gc

import numpy as np
import pytest

import fgrad
import fgrad.numpy as fnp

READ_ONLY = "read-only"


def writable(a):
    return a.flags.writeable


def test_a_closed_over_array_written_inside_grad_raises_and_is_writable_after():
    A = np.ones(3)

    def f(x):
        y = x * A
        A[:] = 2.0  # would make backward use the new A
        return fnp.sum(y * y)

    with pytest.raises(ValueError, match=READ_ONLY):
        fgrad.grad(f)(np.ones(3))
    assert writable(A)
    assert np.allclose(fgrad.grad(lambda x: fnp.sum((x * A) ** 2))(np.ones(3)), 2.0)


def test_an_argument_not_differentiated_is_held_too():
    def f(x, A):
        y = x * A
        A[:] = 2.0
        return fnp.sum(y * y)

    A = np.ones(3)
    with pytest.raises(ValueError, match=READ_ONLY):
        fgrad.grad(f)(np.ones(3), A)
    assert writable(A)


@pytest.mark.parametrize("transform", ["vjp", "linearize"])
def test_the_input_of_a_pullback_is_held_until_the_pullback_is_freed(transform):
    x = np.ones(3)
    if transform == "vjp":
        _, fun = fgrad.vjp(fnp.sin, x)
    else:
        _, fun = fgrad.linearize(fnp.sin, x)
    with pytest.raises(ValueError, match=READ_ONLY):
        x[:] = 5.0
    assert np.allclose(fun(np.ones(3))[0] if transform == "vjp" else fun(np.ones(3)), np.cos(1.0))
    del fun
    gc.collect()
    x[:] = 5.0


def test_a_returned_value_a_rule_reads_is_held_with_the_pullback():
    y, pull = fgrad.vjp(fnp.exp, np.ones(2))  # exp's rule reads its output
    with pytest.raises(ValueError, match=READ_ONLY):
        y[:] = 0.0
    assert np.allclose(pull(np.ones(2))[0], np.e)


def test_holds_count_two_pullbacks_of_one_array():
    x = np.ones(2)
    _, p1 = fgrad.vjp(fnp.sin, x)
    _, p2 = fgrad.vjp(fnp.cos, x)
    del p1
    assert not writable(x)
    del p2
    assert writable(x)


def test_an_array_read_only_before_stays_read_only():
    x = np.ones(2)
    x.flags.writeable = False
    fgrad.grad(lambda v: fnp.sum(fnp.sin(v)))(x)
    assert not writable(x)


def test_the_base_of_a_view_is_held_and_unlocked_in_order():
    D = np.ones((2, 3))
    v = D[0]
    _, p1 = fgrad.vjp(lambda x: fnp.sum(x * v), np.ones(3))
    with pytest.raises(ValueError, match=READ_ONLY):
        D[0, :] = 3.0  # through the base
    _, p2 = fgrad.vjp(lambda x: fnp.sum(x * D), np.ones((2, 3)))  # the base alone, held twice
    del p1
    assert writable(v) is False and writable(D) is False  # (v waits for its base)
    del p2
    assert writable(D) and writable(v)


def test_an_error_inside_the_function_releases_the_arrays():
    A = np.ones(2)

    def f(x):
        fnp.sum(x * A)
        raise KeyError("boom")

    for transform in (fgrad.grad, lambda f: lambda x: fgrad.vjp(f, x)):
        with pytest.raises(KeyError):
            transform(f)(np.ones(2))
        assert writable(A)


def test_checkpoint_holds_what_its_recomputation_reads():
    A = np.ones(3)

    def g(x):
        y = fgrad.checkpoint(lambda v: fnp.sin(v * A))(x)
        A[:] = 2.0  # the recomputation would read the new A
        return fnp.sum(y)

    with pytest.raises(ValueError, match=READ_ONLY):
        fgrad.grad(g)(np.ones(3))
    assert writable(A)
    A[:] = 2.0
    assert np.allclose(fgrad.grad(lambda x: fnp.sum(fgrad.checkpoint(lambda v: fnp.sin(v * A))(x)))(np.ones(3)),
                       np.cos(2.0) * 2.0)


def test_custom_vjp_residuals_and_custom_jvp_rules_are_held():
    A = np.ones(2)

    @fgrad.custom_vjp
    def f(x):
        return x * A

    f.defvjp(lambda x: (x * A, A), lambda a, g: (g * a,))

    def uses_f(x):
        y = f(x)
        A[:] = 3.0
        return fnp.sum(y)

    with pytest.raises(ValueError, match=READ_ONLY):
        fgrad.grad(uses_f)(np.ones(2))

    B = np.ones(2)

    @fgrad.custom_jvp
    def h(x):
        return x * B

    @h.defjvp
    def h_jvp(primals, tangents):
        return primals[0] * B, tangents[0] * B  # B is read again by the transposed rule

    def uses_h(x):
        y = h(x)
        B[:] = 3.0
        return fnp.sum(y)

    with pytest.raises(ValueError, match=READ_ONLY):
        fgrad.grad(uses_h)(np.ones(2))
    assert writable(A) and writable(B)
    B[:] = 3.0
    assert np.allclose(fgrad.grad(lambda x: fnp.sum(h(x)))(np.ones(2)), 3.0)


def test_a_compiled_program_holds_its_closed_over_arrays_while_cached():
    A = np.ones(3)
    c = fgrad.compile(lambda x: x * A)  # (x * ones folds to x: a change of A would go unseen)
    c(np.ones(3))
    with pytest.raises(ValueError, match=READ_ONLY):
        A[:] = 3.0
    g = fgrad.compile(fgrad.grad(lambda x: fnp.sum(x * A)))
    g(np.ones(3))
    c.cache_clear()
    assert not writable(A)  # (g still holds it)
    g.cache_clear()
    gc.collect()
    A[:] = 3.0
    assert np.allclose(c(np.ones(3)), 3.0) and np.allclose(g(np.ones(3)), 3.0)


@pytest.mark.parametrize("make", [lambda A: (lambda x: (x * 2.0, fnp.ones(3))),
                                  lambda A: (lambda x: (x * 2.0, A * 2.0))], ids=["made", "from-closure"])
def test_compiled_programs_never_hand_one_array_to_two_calls(make):
    c = fgrad.compile(make(np.ones(3)))
    first = c(np.ones(3))[1]
    expected = first.copy()
    first[:] = 7.0  # the caller owns what it was given
    second = c(np.ones(3))[1]
    third = c(np.ones(3))[1]
    assert second is not third and np.array_equal(second, expected) and np.array_equal(third, expected)


def test_a_numpy_array_in_a_tensor_op_is_held_until_backward():
    A = np.ones(3)
    x = fgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (x * A).sum()
    with pytest.raises(ValueError, match=READ_ONLY):
        A[:] = 5.0
    y.backward()
    assert x.grad.tolist() == [1.0, 1.0, 1.0]
    A[:] = 5.0  # backward has run: nothing reads it any more


@pytest.mark.parametrize("index_with", [lambda x, i: x[i], lambda x, i: fnp.take(x, i),
                                        lambda x, i: fnp.take_along_axis(x, i, axis=0)],
                         ids=["getitem", "take", "take_along_axis"])
def test_an_index_array_written_after_the_forward_pass_changes_nothing(index_with):
    # (an index is a node's parameter or an operand no rule declares it reads: fgrad keeps its own)
    idx, w = np.array([0, 1]), np.array([1.0, 10.0])
    _, pull = fgrad.vjp(lambda x: fnp.sum(index_with(x, idx) * w), np.zeros(3))
    try:
        idx[:] = 2
    except ValueError:  # (held instead of copied: also no wrong number)
        pass
    assert pull(1.0)[0].tolist() == [1.0, 10.0, 0.0]
