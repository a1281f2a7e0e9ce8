"""`python -m p4tester`: the p4tester program (p4tester.program)."""

import sys

from p4tester.program import main

sys.exit(main())
