"""The one thing pyproject.toml cannot say: bpe-tui's optional compiled merge core.

``bpe_tui/core/engine/_merge_core.c`` (CPython's C API, no other dependency) is built by the
machine's C compiler when there is one. It is optional: where it does not build (no compiler,
no Python headers), the install still succeeds and bpe-tui runs its pure-Python path, the
reference the core mirrors (``bpe-tui --version`` says which path runs). Everything else about
the package is in pyproject.toml.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "bpe_tui.core.engine._merge_core",
            sources=["bpe_tui/core/engine/_merge_core.c"],
            extra_compile_args=["-O2"],
            optional=True,
        )
    ]
)
