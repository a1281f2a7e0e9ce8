"""`python -m p4tester.server -t TOPOLOGY ...` = `p4tester serve -t TOPOLOGY ...`."""

import sys

from p4tester.server.cli import main

sys.exit(main())
