"""``python -m idlewise.cli``: the command line, as the ``idlewise`` script runs it."""

import sys

from . import main

sys.exit(main())
