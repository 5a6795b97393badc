"""The entry functions of elementwise primitives (fgrad/ops/entries.py).

An entry records inline what VJPTrace.process's fast path records, computes inline what
JVPTrace.process's fast path computes, runs the kernel when nothing is traced, and hands
everything else to the current trace."""
import numpy as np
import pytest

import fgrad
import fgrad.numpy as fnp
from fgrad.ops import elementwise as ew
from fgrad.ops.primitive import pop_trace, push_trace
from fgrad.transforms.forward import JVPTrace, dual
from fgrad.transforms.reverse import VJPTrace, trace_inputs


def _summary(node):
    """What a tape node holds: arrays and constants by identity, unread inputs by shape and dtype."""
    primals = [p if p is None or isinstance(p, (np.ndarray, float)) else (p.shape, p.dtype) for p in node.primals]
    return node.prim, node.params, tuple(node.inputs), [id(p) for p in primals if isinstance(p, np.ndarray)], \
        [p for p in primals if not isinstance(p, np.ndarray)], node.out is not None, node.meta


CASES = {
    "sin": (ew.sin, lambda x, y: (x,)),
    "tanh (reads its output)": (ew.tanh, lambda x, y: (x,)),
    "negative (reads nothing)": (ew.negative, lambda x, y: (x,)),
    "multiply by a float": (ew.multiply, lambda x, y: (x, 1.5)),
    "float times": (ew.multiply, lambda x, y: (1.5, x)),
    "float minus": (ew.subtract, lambda x, y: (3.0, x)),
    "square of one value": (ew.multiply, lambda x, y: (x, x)),
    "add, broadcast and float32": (ew.add, lambda x, y: (x, y)),
    "add a constant array": (ew.add, lambda x, y: (x, np.ones((2, 1)))),
    "divide (rules, no partials)": (ew.divide, lambda x, y: (x, y)),
}


@pytest.mark.parametrize("case", list(CASES))
def test_an_entry_records_the_node_process_records(case):
    entry, make_args = CASES[case]
    trace = push_trace(VJPTrace, "grad")
    try:
        x, y = trace_inputs(trace, [np.linspace(0.1, 0.9, 6), np.ones((2, 1), np.float32)], ["x", "y"], "grad")
        args = make_args(x, y)
        short = entry(*args)
        general = trace.process(entry.prim, args, {})
    finally:
        tape = pop_trace(trace)
    assert len(tape) == 2 and tape[0] is short.edge and tape[1] is general.edge
    assert _summary(tape[0]) == _summary(tape[1])
    np.testing.assert_array_equal(short.primal, general.primal)
    assert short.primal.dtype == general.primal.dtype


@pytest.mark.parametrize("case", list(CASES))
def test_an_entry_computes_the_tangent_process_computes(case):
    entry, make_args = CASES[case]
    trace = push_trace(JVPTrace, "jvp")
    try:
        x = dual(trace, np.linspace(0.1, 0.9, 6), np.linspace(1.0, -1.0, 6))
        y = dual(trace, np.ones((2, 1), np.float32), np.full((2, 1), 0.5, np.float32))
        args = make_args(x, y)
        short = entry(*args)
        general = trace.process(entry.prim, args, {})
    finally:
        pop_trace(trace)
    assert type(short) is type(general) and short._trace is trace
    for a, b in ((short.primal, general.primal), (short.tangent, general.tangent)):
        np.testing.assert_array_equal(a, b)
        assert a.shape == b.shape and a.dtype == b.dtype


def test_a_tangent_is_fitted_to_the_output():
    # x + c passes x's tangent on as it is: a (3,) float32 tangent of a (2, 3) float64
    # output takes the output's shape and dtype, as in JVPTrace.process.
    x, t = np.float32([0.5, 1.0, 2.0]), np.float32([1.0, 0.0, -1.0])
    out, tan = fgrad.jvp(lambda x: fnp.add(x, np.ones((2, 3))), (x,), (t,))
    assert out.dtype == tan.dtype == np.float64 and tan.shape == (2, 3)
    np.testing.assert_array_equal(tan, np.broadcast_to(t, (2, 3)))


def test_an_unread_input_of_an_elementwise_op_is_not_kept():
    # sqrt's rule reads only its output; its input has the output's shape and dtype.
    trace = push_trace(VJPTrace, "grad")
    try:
        x, = trace_inputs(trace, [np.linspace(0.1, 0.9, 6)], ["x"], "grad")
        y = ew.sqrt(x)
    finally:
        pop_trace(trace)
    assert y.edge.primals == (None,) and y.edge.out is y.primal
    np.testing.assert_allclose(fgrad.grad(lambda x: fnp.sum(fnp.sqrt(x)))(np.array([4.0, 9.0])), [0.25, 1 / 6])


def test_with_nothing_traced_an_entry_is_the_kernel():
    x = np.array([0.5, 1.0])
    assert type(ew.sin(x)) is np.ndarray and np.array_equal(ew.sin(x), np.sin(x))
    assert ew.multiply(2.0, 3.0) == 6.0
    assert np.array_equal(ew.less(x, 0.7), [True, False])  # an op without derivative


def test_an_entry_names_its_primitive():
    assert fnp.sin.prim is ew.sin.prim and fnp.sin.prim.name == "sin" and fnp.sin.__name__ == "sin"
    assert fnp.multiply.prim.partials == (ew.OTHER, ew.OTHER)


def test_an_escaped_value_raises_naming_the_op():
    leaked = []
    fgrad.grad(lambda x: leaked.append(x) or fnp.sum(x))(np.ones(3))
    with pytest.raises(TypeError, match=r"sin got a traced value of grad .* has already returned"):
        fnp.sin(leaked[0])
    with pytest.raises(TypeError, match=r"multiply got a traced value of grad"):
        leaked[0] * 2.0
    fgrad.jvp(lambda x: leaked.append(x) or fnp.sin(x), (np.ones(3),), (np.ones(3),))
    with pytest.raises(TypeError, match=r"tanh got a traced value of jvp .* has already returned"):
        fnp.tanh(leaked[1])
    with pytest.raises(TypeError, match=r"add got a traced value of jvp"):
        1.0 + leaked[1]


def test_values_of_other_traces_take_the_general_path():
    # Outer values are constants to the inner grad (fresh identities); forward mode and the
    # imperative face go through their trace's process.
    x0 = 0.7
    # x * d/dy sin(x y) at y = 1 is x^2 cos(x): its derivative is 2 x cos(x) - x^2 sin(x).
    assert np.isclose(fgrad.grad(lambda x: x * fgrad.grad(lambda y: fnp.sin(x * y))(1.0))(x0),
                      2 * x0 * np.cos(x0) - x0 ** 2 * np.sin(x0))
    assert np.isclose(fgrad.grad(fgrad.grad(lambda x: fnp.sin(x) * x))(x0), 2 * np.cos(x0) - x0 * np.sin(x0))
    _, t = fgrad.jvp(lambda x: fnp.tanh(x) * 2.0, (x0,), (1.0,))
    assert np.isclose(t, 2.0 * (1 - np.tanh(x0) ** 2))
    w = fgrad.tensor([0.5, 1.5], requires_grad=True)
    fnp.sum(fnp.sin(w) * 3.0).backward()
    np.testing.assert_allclose(w.grad.numpy(), 3.0 * np.cos([0.5, 1.5]))


def test_hvp_runs_the_primal_in_the_parent_trace():
    # Under forward over reverse the inner grad's primals are traced (trace.direct is False).
    v = np.array([1.0, -2.0])
    _, hv = fgrad.hvp(lambda x: fnp.sum(fnp.sin(x) * x), (np.array([0.3, 0.8]),), (v,))
    x = np.array([0.3, 0.8])
    np.testing.assert_allclose(hv, (2 * np.cos(x) - x * np.sin(x)) * v)


def test_a_full_tape_keeps_every_residual():
    # make_graph records a full tape (lean off): the entries hand it to process_general.
    graph = fgrad.make_graph(lambda x: fnp.sum(fnp.tanh(x) * 2.0))(np.ones(3))
    assert graph.primitives() == ["tanh", "multiply", "sum"]
    assert graph.nodes[0].primals[0] is not None and graph.nodes[0].out is not None
