"""fgrad.ir: the tape's IR (traced values, tape nodes, the Graph), the layer every other one builds on.

The compiled program is not here: it is fgrad.compile's own (fgrad/compile/program.py).

- value.py: traced values (`Tracer`, `VJPTracer`, `JVPTracer`): one trace owns each, and
  each wraps its value one level down; conversions that would drop a derivative raise.
- node.py: tape nodes (`Node`, `Leaf`, `Edge`, `Aval`): what backward needs of one
  recorded primitive application, pointing only to the nodes that produced its inputs.
- graph.py: `Graph`, one traced call's tape for printing and networkx/DOT export.
- held.py: the arrays a tape, a pullback or a program keeps, read-only while it keeps them.
- pictures.py: `Pictured`: render() and the notebook picture of any graph with to_dot() (Graphviz).

It imports nothing of fgrad but fgrad.backend.
"""
