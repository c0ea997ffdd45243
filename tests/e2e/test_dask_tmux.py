"""End to end: the explorer counts its corpus on a LocalCluster it starts (``--dask local``)."""

from __future__ import annotations

import bpe_tui
from tests.e2e.test_tmux import pytestmark, tmux, wait_exit  # noqa: F401  (the tmux fixture and skips)


def test_the_explorer_counts_on_a_local_dask_cluster(tmux):  # noqa: F811
    """Textual replaces sys.stderr; the cluster's worker processes still start (see
    corpus.start_resource_tracker), and their logs stay off the screen."""
    tmux.start(bpe_tui.demo_corpus_path(), "--dask", "local", "--workers", "1")
    screen = tmux.wait_for("step 0/744", timeout=120)  # starting a cluster on a busy machine takes a while
    assert "cannot open" not in screen and "distributed" not in screen
    tmux.keys("C-q")
    wait_exit(tmux, timeout=30)
