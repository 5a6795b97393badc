"""Pictures of graphs: DOT text rendered by Graphviz (the `graphviz` package and its `dot`).

Every graph fgrad prints (a make_graph tape, a compiled program, a Tensor's grad_fn graph)
has `to_dot()`; `Pictured` gives it `render(path_or_format)` and the notebook hooks
(`_repr_svg_`, `_repr_mimebundle_`). Graphviz is imported only when a picture is asked for.
"""
import os

__all__ = ["Pictured", "render_dot"]

FORMATS = ("svg", "png", "pdf", "jpg", "jpeg", "gif", "ps", "eps", "dot", "json")
_INSTALL = ("Graphviz's `dot` program is needed to draw graphs: install it with your system's package manager "
            "(apt install graphviz, brew install graphviz, conda install graphviz)")


def render_dot(dot, path_or_format="svg"):
    """DOT text drawn by Graphviz: `path_or_format` a format name ("svg", "png", "pdf", ...)
    returns the picture's bytes; a path writes the picture there, in the format its suffix
    names, and returns the path."""
    try:
        import graphviz
    except ImportError:
        raise ImportError("fgrad: drawing a graph needs the graphviz package: pip install graphviz "
                          f"(and {_INSTALL.split(': ', 1)[1]})") from None
    if not isinstance(path_or_format, (str, os.PathLike)):
        raise TypeError(f"render: expected a format name or a path, got {type(path_or_format).__name__}")
    target = os.fspath(path_or_format)
    fmt = target.lower() if target.lower() in FORMATS else os.path.splitext(target)[1].lstrip(".").lower()
    if fmt not in FORMATS:
        raise ValueError(f"render: {target!r} is neither a format nor a path ending in one of "
                         f"{', '.join('.' + f for f in FORMATS)}")
    try:
        data = graphviz.Source(dot).pipe(format=fmt)
    except graphviz.ExecutableNotFound:
        raise RuntimeError(f"fgrad: {_INSTALL}") from None
    if target.lower() in FORMATS:
        return data
    with open(target, "wb") as f:
        f.write(data)
    return target


class Pictured:
    """A graph with `to_dot()`, drawn: `render(...)`, and as a picture in notebooks."""

    __slots__ = ()

    def render(self, path_or_format="svg"):
        """The graph drawn by Graphviz: a format name ("svg", "png", "pdf", ...) returns the
        picture's bytes, a path writes the picture there (its suffix names the format) and
        returns the path. Needs the graphviz package and Graphviz's `dot`."""
        return render_dot(self.to_dot(), path_or_format)

    def _repr_svg_(self):
        return self.render("svg").decode()

    def _repr_mimebundle_(self, include=None, exclude=None):
        """A notebook's picture of the graph (SVG), and its text; the text alone without Graphviz."""
        bundle = {"text/plain": str(self)}
        try:
            bundle["image/svg+xml"] = self._repr_svg_()
        except (ImportError, RuntimeError):
            pass
        return bundle
