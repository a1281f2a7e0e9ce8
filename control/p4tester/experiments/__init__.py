"""The standard benchmarks (RFC 2544 and the project's own), each written against
the TrialRunner protocol so that it runs on a switch or on a simulated DUT."""
