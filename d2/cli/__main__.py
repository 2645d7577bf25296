"""`python -m d2.cli`: the `d2` command without the installed script."""

import sys

from d2.cli import main

sys.exit(main())
