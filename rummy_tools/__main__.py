"""``python -m rummy_tools ...`` is ``rummy ...``."""

import sys

from .main import main

sys.exit(main())
