"""Counting memory in tests: what a call keeps and peaks at in live Python objects
(tracemalloc), the counted bounds issue 32's tests judge by (never wall time)."""
import tracemalloc


def traced(fn, *args):
    """(fn(*args), bytes still live after it over what was live before, peak bytes while it
    ran over the same)."""
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        result = fn(*args)
        live, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return result, live - start, peak - start
