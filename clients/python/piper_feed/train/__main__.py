"""``python3 -m piper_feed.train``: the online training loop (``loop``)."""

import sys

from .loop import main

sys.exit(main())
