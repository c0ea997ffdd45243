"""``python -m bpe_tui.cli`` is the same as the ``bpe-tui`` command."""

import sys

from .main import main

sys.exit(main())
