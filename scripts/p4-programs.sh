# The P4 programs of the project: "name source" per line. Sourced by the compile
# and freshness scripts so both build the same set.
P4_PROGRAMS="tester p4src/v1model/tester.p4
dut p4src/dut/dut.p4
forward p4src/bench/forward.p4"
