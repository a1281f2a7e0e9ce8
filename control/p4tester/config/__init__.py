"""Topology and profile files (YAML): loaded into typed, validated objects."""
