"""A small profiler: per-op forward and backward counts and times, as a table.

While a `profile()` is recording, the bottom trace times every primitive it runs
(forward) and the engine times every node it applies (backward). Nothing is timed
outside a profile: the hot paths check one module variable.
"""
import collections
import time

from ..engine import backward as engine
from ..ir.node import Node
from ..ops import primitive
from ..typing import Any

__all__ = ["profile", "record_function"]


class FunctionEventAvg:
    """Totals for one key (op name, or its backward node's name)."""

    __slots__ = ("key", "count", "cpu_time_total")

    def __init__(self, key: str) -> None:
        self.key, self.count, self.cpu_time_total = key, 0, 0.0

    @property
    def cpu_time(self) -> float:
        return self.cpu_time_total / self.count if self.count else 0.0

    def __repr__(self):
        return f"<FunctionEventAvg key={self.key} count={self.count} cpu_time_total={self.cpu_time_total:.1f}us>"


class EventList(list):
    """key_averages() result; `.table()` formats it."""

    def table(self, sort_by: str = "cpu_time_total", row_limit: int = 100) -> str:
        keyfn = {"count": lambda e: e.count, "cpu_time": lambda e: e.cpu_time}.get(sort_by, lambda e: e.cpu_time_total)
        rows = sorted(self, key=keyfn, reverse=True)[:row_limit]
        total = sum(e.cpu_time_total for e in self) or 1.0
        width = max([len("Name")] + [len(e.key) for e in rows])
        lines = [f"{'Name':<{width}}  {'Calls':>7}  {'CPU total (us)':>15}  {'CPU avg (us)':>13}  {'CPU %':>6}",
                 "-" * (width + 52)]
        for e in rows:
            lines.append(f"{e.key:<{width}}  {e.count:>7}  {e.cpu_time_total:>15.1f}  {e.cpu_time:>13.2f}  "
                         f"{100 * e.cpu_time_total / total:>5.1f}%")
        lines.append(f"Self CPU time total: {total / 1000:.3f}ms")
        return "\n".join(lines)


class profile:
    """Context manager recording per-op forward and backward counts and times."""

    def __init__(self, enabled: bool = True, record_shapes: bool = False) -> None:
        self.enabled = enabled
        self.events = collections.OrderedDict()
        self.clock = time.perf_counter

    def _event(self, key):
        ev = self.events.get(key)
        if ev is None:
            ev = self.events[key] = FunctionEventAvg(key)
        return ev

    def _add(self, key, t0):
        ev = self._event(key)
        ev.count += 1
        ev.cpu_time_total += (time.perf_counter() - t0) * 1e6

    def record_backward(self, node: Node, t0: float) -> None:  # (the engine's call, per node)
        self._add(node.name() if node.meta is not None else f"{node.prim.name} (backward)", t0)

    def __enter__(self) -> "profile":
        if not self.enabled:
            return self
        self._prev_engine, engine.profiler = engine.profiler, self
        self._prev_process = primitive.EvalTrace.process
        inner, prof = self._prev_process, self

        def timed_process(trace, prim, args, params):
            t0 = time.perf_counter()
            try:
                return inner(trace, prim, args, params)
            finally:
                prof._add(prim.name, t0)
        primitive.EvalTrace.process = timed_process
        return self

    def __exit__(self, *exc: object) -> bool:
        if self.enabled:
            engine.profiler = self._prev_engine
            primitive.EvalTrace.process = self._prev_process
        return False

    def key_averages(self) -> EventList:
        return EventList(self.events.values())

    def table(self, **kwargs: Any) -> str:
        return self.key_averages().table(**kwargs)


class record_function:
    """Label a region: its wall time is reported under `name` in the current profile."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __enter__(self) -> "record_function":
        self.t0 = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> bool:
        if engine.profiler is not None:
            engine.profiler._add(self.name, self.t0)
        return False
