"""fgrad.ir: the traced-graph IR, the layer every other one builds on.

- value.py: traced values (`Tracer`, `VJPTracer`, `JVPTracer`): one trace owns each, and
  each wraps its value one level down; conversions that would drop a derivative raise.
- node.py: tape nodes (`Node`, `Leaf`, `Edge`, `Aval`): what backward needs of one
  recorded primitive application, pointing only to the nodes that produced its inputs.
- graph.py: `Graph`, one traced call's tape for printing and networkx/DOT export.

It imports nothing of fgrad but fgrad.backend.
"""
