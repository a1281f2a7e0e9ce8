"""The file a Mininet lab's keeper writes in its rundir once the network is up: shared
by the keeper (which writes it, under Mininet) and the lab's controller side (which
waits for it, without importing Mininet)."""

from __future__ import annotations

from typing import Final

READY_FILE: Final = "mininet.ready"
