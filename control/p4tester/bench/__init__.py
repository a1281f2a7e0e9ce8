"""Benchmarks run by `make bench`: measured figures printed as ratios."""
