"""Exit codes scripts can rely on."""

from typing import Final

OK: Final = 0
# The experiment ran, but some trials were invalid (switch died, read failed):
# their figures were not used; the results say which.
INVALID_TRIALS: Final = 1
BAD_INPUT: Final = 2  # invalid topology, profile or option
SWITCH_UNAVAILABLE: Final = 3  # unreachable, not primary, or running another program
INTERRUPTED: Final = 130  # Ctrl-C; every finished trial is in the results
