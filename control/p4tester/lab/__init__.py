"""Labs on one machine: veth pairs, namespaces and BMv2 processes that a topology
file describes, brought up and torn down by `python -m p4tester.lab up|down`."""
