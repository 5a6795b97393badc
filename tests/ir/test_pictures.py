"""Pictures (fgrad/ir/pictures.py): a make_graph tape, a compiled program and a Tensor's grad_fn
graph (fgrad.autograd.viz) drawn by Graphviz; the errors where Graphviz is missing."""
import shutil
import sys

import numpy as np
import pytest

import fgrad
import fgrad.numpy as fnp
from fgrad.autograd import viz

pytest.importorskip("graphviz", reason="the graphviz package draws graphs (pip install graphviz)")
needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed (apt install "
                                                                    "graphviz; .ci/run installs it)")


def _tape():
    return fgrad.make_graph(lambda x: fnp.sum(fnp.sin(x) * 2.0))(np.ones(3))


@needs_dot
def test_each_graph_renders_as_svg_png_and_a_file(tmp_path):
    svg = _tape().render("svg").decode()
    assert svg.startswith("<?xml") and "sin" in svg and "%in0" in svg
    lowered = fgrad.compile(lambda x: fnp.sin(x) * 2.0).lower(np.ones(3))
    assert b"sin" in lowered.render("svg") and lowered.program.render("png").startswith(b"\x89PNG")
    path = tmp_path / "tape.pdf"
    assert _tape().render(path) == str(path) and path.read_bytes().startswith(b"%PDF")
    bundle = _tape()._repr_mimebundle_()
    assert bundle["image/svg+xml"].startswith("<?xml") and "sin(" in bundle["text/plain"]


def test_a_target_that_is_no_format_is_refused_by_name():
    with pytest.raises(ValueError, match=r"'picture.txt' is neither a format nor a path ending in one of \.svg"):
        _tape().render("picture.txt")
    with pytest.raises(TypeError, match="expected a format name or a path, got int"):
        _tape().render(3)


def test_without_dot_the_error_names_the_install_and_notebooks_get_text(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # (no dot on it)
    with pytest.raises(RuntimeError, match=r"Graphviz's `dot` program is needed.*apt install graphviz"):
        _tape().render("svg")
    assert list(_tape()._repr_mimebundle_()) == ["text/plain"]


def test_without_the_package_the_error_names_pip_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "graphviz", None)
    with pytest.raises(ImportError, match="pip install graphviz"):
        _tape().render("svg")


@needs_dot
def test_a_tensor_graph_names_leaves_saved_sizes_and_paints_non_finite_nodes_red():
    w = fgrad.tensor([1.0, 2.0], requires_grad=True)
    x = fgrad.tensor([3.0, 4.0])
    loss = (w * x).sin().sum()
    graph = viz.make_dot(loss, params={"w": w})
    assert str(graph).splitlines() == ["SumBackward0", "SinBackward0 saved: 16 B", "MulBackward0 saved: 32 B",
                                       "w float64[2]"]
    dot = graph.to_dot()
    assert dot.count("->") == 4 and "#ff9999" not in dot  # (three edges between nodes, one to the output)
    assert b"SinBackward0" in graph.render("svg")
    v = fgrad.tensor([-1.0, 4.0], requires_grad=True)
    with np.errstate(all="ignore"):
        bad = fgrad.sqrt(v).sum()  # (sqrt(-1): nan, in the output sqrt's node keeps)
    assert '"n1" [label="SqrtBackward0\\nsaved: 16 B", fillcolor="#ff9999"]' in viz.make_dot(bad).to_dot()
    loss.backward()
    assert "saved: released" in str(viz.make_dot(loss))


def test_a_nonfinite_error_of_backward_carries_the_node_to_highlight():
    with fgrad.config.overriding(debug_nans="cheap", nan_safe_zeros=False), np.errstate(all="ignore"):
        x = fgrad.tensor([0.0, 1.0], requires_grad=True)
        y = fgrad.where(x > 0, fgrad.sqrt(x), fgrad.zeros(2)).sum()
        with pytest.raises(fgrad.errors.NonFiniteError) as info:
            y.backward(retain_graph=True)
    assert info.value.node.name() == "SqrtBackward0"
    assert "#ff9999" in viz.make_dot(y, highlight=[info.value.node]).to_dot()
