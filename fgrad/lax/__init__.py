"""fgrad.lax: jax.lax's structured control flow and implicit differentiation, on fgrad.

cond, switch, while_loop, fori_loop, scan and map (control_flow.py) run as Python loops on
any values, so every transform composes with them; under fgrad.compile a loop or a branch
is one step holding its body's program (staged.py). associative_scan (prefix.py), select
and stop_gradient (elementwise.py); custom_root and custom_linear_solve (implicit.py)
differentiate a solution implicitly, not through its solver. docs/control-flow.md shows them.
"""
from .control_flow import cond, fori_loop, map, scan, switch, while_loop
from .elementwise import select, stop_gradient
from .implicit import custom_linear_solve, custom_root
from .prefix import associative_scan

__all__ = ["associative_scan", "cond", "custom_linear_solve", "custom_root", "fori_loop", "map", "scan", "select",
           "stop_gradient", "switch", "while_loop"]
