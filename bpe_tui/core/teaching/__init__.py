"""BPE taught: the algorithm as the tutorials write it (``educational``, the tests' oracle)
and the guided tour's stops (``lessons``).
"""
