"""``python -m bpe_tui`` is the same as the ``bpe-tui`` command."""

import sys

from .cli import main

sys.exit(main())
