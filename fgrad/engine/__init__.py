"""fgrad.engine: the backward engine, one loop for tapes and graphs.

- backward.py: a tape walked in reverse, or a graph by dependency counts and a ready queue;
  rules applied, cotangents sent to the nodes that made the inputs.
- queue.py: `ReadyQueue`, the stack of nodes whose cotangents are complete.
- threads.py: worker threads, a CPU pool and one worker per device, that run heavy nodes.
- gc_pause.py: the pause of Python's cyclic collector while a transform runs.
"""
