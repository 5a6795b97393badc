"""make_graph: the traced tape of one call, printed one line per node and exported."""
import re

import numpy as np
import pytest

import fgrad
import fgrad.numpy as fnp


def model(x, w):
    return fnp.sum(fnp.tanh(x @ w) * 2.0) + 1.0


X = np.ones((2, 3))
W = np.full((3, 4), 0.5)


@pytest.fixture
def graph():
    return fgrad.make_graph(model)(X, W)


def test_graph_records_nodes_in_execution_order(graph):
    assert isinstance(graph, fgrad.Graph)
    assert graph.primitives() == ["matmul", "tanh", "multiply", "sum", "add"]
    assert len(graph) == 5 and len(list(graph)) == 5
    assert len(graph.inputs) == 2
    assert len(graph.outputs) == 1


def test_graph_prints_one_readable_line_per_node(graph):
    text = str(graph)
    lines = text.splitlines()
    assert lines[0].startswith("graph(") and lines[-1] == "}" and lines[-2].strip().startswith("return")
    body = lines[1:-2]
    assert len(body) == len(graph)
    for line, prim in zip(body, graph.primitives()):
        assert re.match(rf"\s*%\d+:float64\[[\d,]*\] = {prim}\(", line), line
    # inputs with shapes and labels, the matmul's output shape, parameters of the reduction
    assert "float64[2,3]" in lines[0] and "float64[3,4]" in lines[0] and "args[0]" in lines[0]
    assert "float64[2,4] = matmul(%in0, %in1)" in text
    assert "axis=None" in text
    assert repr(graph) == text


def test_graph_to_networkx(graph):
    nx = pytest.importorskip("networkx")
    g = graph.to_networkx()
    assert isinstance(g, nx.DiGraph)
    assert nx.is_directed_acyclic_graph(g)
    kinds = [d["kind"] for _, d in g.nodes(data=True)]
    assert kinds.count("input") == 2 and kinds.count("op") == 5 and kinds.count("output") == 1
    ops = {d["prim"]: n for n, d in g.nodes(data=True) if d["kind"] == "op"}
    assert g.has_edge("%in0", ops["matmul"]) and g.has_edge("%in1", ops["matmul"])
    assert g.has_edge(ops["matmul"], ops["tanh"]) and g.has_edge(ops["sum"], ops["add"])
    assert [n for n in nx.topological_sort(g) if g.nodes[n]["kind"] == "op"] == \
        [ops[p] for p in graph.primitives()]


def test_graph_to_dot(graph):
    dot = graph.to_dot()
    assert dot.startswith("digraph") and dot.rstrip().endswith("}")
    assert dot.count("->") == graph.to_networkx().number_of_edges()
    for prim in graph.primitives():
        assert prim in dot


def test_graph_follows_python_control_flow_per_call():
    def f(x):
        return fnp.sin(x) if fnp.sum(x) > 0 else fnp.cos(x) * x

    pos = fgrad.make_graph(f)(np.ones(2))
    neg = fgrad.make_graph(f)(-np.ones(2))
    assert "sin" in pos.primitives() and "cos" not in pos.primitives()
    assert "cos" in neg.primitives() and "multiply" in neg.primitives()


def test_graph_of_pytree_arguments_and_non_float_leaves():
    g = fgrad.make_graph(lambda p, n: fnp.sum(p["w"] ** n) * p["s"])({"w": np.ones(3), "s": 2.0}, 3)
    assert len(g.inputs) == 2                     # the int n is not an input
    head = str(g).splitlines()[0]
    assert "['s']" in head and "['w']" in head


def test_graph_constant_output_and_graph_of_many_nodes():
    g = fgrad.make_graph(lambda x: np.ones(2))(np.ones(2))
    assert len(g) == 0 and "return const" in str(g)

    def long(x):
        for _ in range(300):
            x = fnp.sin(x)
        return x

    g = fgrad.make_graph(long)(0.5)
    assert len(g) == 300 and len(str(g).splitlines()) == 303
    assert g.to_networkx().number_of_nodes() == 302
