"""``python -m idlewise``: the command line, as the ``idlewise`` script runs it."""

import sys

from .cli import main

sys.exit(main())
