"""fgrad.engine: the backward engine (backward.py: a tape walked in reverse, or a graph by
dependency counts and a ready queue, queue.py) and the collector pause (gc_pause.py)."""
