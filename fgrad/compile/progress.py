"""A progress bar for a long trace: a first call that traces a million steps takes half a minute.

The bar appears only when stderr is a terminal, tqdm is installed (an optional extra:
`pip install fgrad[progress]`), and the trace has run for `DELAY` seconds; a thread draws
it, reading how many steps are recorded, so the trace itself pays nothing. Short traces,
pipes and test runs see no bar and start no thread.
"""
import importlib.util
import sys
import threading

__all__ = ["DELAY", "TraceProgress"]

DELAY = 2.0     # seconds a trace runs before its bar appears
REFRESH = 0.25  # seconds between the bar's updates

_HAS_TQDM = importlib.util.find_spec("tqdm") is not None


def _terminal():
    stream = sys.stderr
    try:
        return stream is not None and stream.isatty()
    except (AttributeError, ValueError):  # (a replaced or closed stream)
        return False


class TraceProgress:
    """`with TraceProgress(name, count) as p:` around a trace; `count()` says how many steps
    are recorded so far, `p.phase = "optimizing"` names what runs now."""

    def __init__(self, name, count):
        self.name, self.count, self.phase = name, count, "tracing"
        self._done = self._thread = None

    def __enter__(self):
        if _HAS_TQDM and _terminal():
            self._done = threading.Event()
            self._thread = threading.Thread(target=self._draw, name="fgrad.compile progress", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc):
        if self._thread is not None:
            self._done.set()
            self._thread.join()
        return False

    def _draw(self):
        if self._done.wait(DELAY):
            return
        from tqdm import tqdm  # (imported only when a bar is drawn: tqdm is optional)
        bar = tqdm(desc=f"fgrad.compile {self.name} ({self.phase})", unit=" steps", file=sys.stderr, leave=False)
        try:
            while True:
                bar.set_description(f"fgrad.compile {self.name} ({self.phase})", refresh=False)
                bar.update(max(self.count() - bar.n, 0))
                if self._done.wait(REFRESH):
                    return
        finally:
            bar.close()
