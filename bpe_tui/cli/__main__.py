"""``python -m bpe_tui.cli`` is the same as the ``bpe-tui`` command."""

import sys

from ..launch import main

sys.exit(main())
