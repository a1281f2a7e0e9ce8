"""Intel Tofino 1 (TNA) target: the tester program driven over BfRt gRPC."""
