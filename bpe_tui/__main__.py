"""``python -m bpe_tui`` is the same as the ``bpe-tui`` command."""

import sys

from .launch import main

sys.exit(main())
