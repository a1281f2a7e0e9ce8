"""Target drivers: what differs between switches beyond P4Runtime."""
