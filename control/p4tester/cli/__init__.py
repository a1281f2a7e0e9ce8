"""The `p4tester` command line."""
