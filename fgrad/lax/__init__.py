"""fgrad.lax: jax.lax's structured control flow and implicit differentiation, on fgrad.

- carries.py: the types of carries and branch outputs, checked as JAX's; a batched predicate's truth.
- control_flow.py: cond, switch, while_loop, fori_loop, scan, map: Python loops every transform sees through.
- staged.py: under fgrad.compile, a loop or a branch as one step holding its body's program.
- staged_vjp.py: under compile(grad(...)), scan and fori_loop as a forward scan and a transposed one.
- implicit.py: custom_root and custom_linear_solve, differentiated implicitly; closure conversion.
- prefix.py: associative_scan, every prefix in O(log n) rounds.
- elementwise.py: select and stop_gradient.

docs/control-flow.md shows them.
"""
from .control_flow import cond, fori_loop, map, scan, switch, while_loop
from .elementwise import select, stop_gradient
from .implicit import custom_linear_solve, custom_root
from .prefix import associative_scan

__all__ = ["associative_scan", "cond", "custom_linear_solve", "custom_root", "fori_loop", "map", "scan", "select",
           "stop_gradient", "switch", "while_loop"]
