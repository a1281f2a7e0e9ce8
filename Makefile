# The P4 data-plane tester. `make help` lists the targets.
SHELL := /bin/bash
.DEFAULT_GOAL := help

VENV     ?= .venv
PYTHON   := $(VENV)/bin/python
BUILD    := p4src/build

.PHONY: help setup setup-ebpf setup-tofino calibrate build build-tna p4info-check test unit ebpf-test build-ebpf ptf e2e demo lint bench bench-ebpf bench-ebpf-sender bench-search bench-dataplane lab-up lab-down clean docs

help:  ## list the targets
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/' | expand -t 18

setup:  ## Debian and Python dependencies (.venv), and the P4 toolchain (P4_TOOLCHAIN_DIR=archives, else a source build)
	bash scripts/setup.sh $(VENV)

setup-ebpf:  ## p4c-ebpf, p4c's eBPF backend, under /opt/p4c-ebpf, with clang and bpftool (archives or a ~60 min source build)
	bash scripts/install-p4-toolchain.sh ebpf

setup-tofino:  ## bf-p4c, p4c's Tofino backend, under /opt/p4tofino (archives or a ~100 min source build)
	bash scripts/install-p4-toolchain.sh tofino

build:  ## compile p4src into the committed BMv2 JSON and P4Info (needs p4c)
	bash scripts/p4-compile.sh $(BUILD)

build-tna:  ## Tofino program: p4test type-check, bf-p4c for Tofino 1 and 2, resource table, stage budget, bfrt.json freshness
	bash scripts/p4-build-tna.sh

p4info-check:  ## recompile and fail if the committed build outputs are stale
	bash scripts/p4info-check.sh

test:  ## every suite: build freshness, Tofino compile, PTF on BMv2, eBPF target, end-to-end on BMv2, unit; a summary line each
	bash scripts/run-tests.sh $(VENV)

unit:  ## unit tests of the controller (no switch needed)
	$(PYTHON) -m pytest -q control/tests

e2e:  ## end-to-end on BMv2 labs: the CLI's experiments (skipped, saying so, without toolchain/root)
	$(PYTHON) -m pytest -q -p no:cacheprovider control/tests_e2e

ebpf-test:  ## the checker and generator on the eBPF target (p4c-ebpf, tc), on veth pairs (root)
	$(PYTHON) -m pytest -q -p no:cacheprovider control/tests_ebpf

build-ebpf:  ## eBPF program: p4c-ebpf (PSA) and clang into build/ebpf/tester.o
	bash scripts/p4-build-ebpf.sh build/ebpf

ptf:  ## PTF suite on BMv2 (skipped, saying so, when the toolchain is absent)
	bash scripts/run-ptf.sh $(VENV)

docs:  ## docs/configuration.md, the reference of every topology and profile key, from the loaders' key tables
	$(PYTHON) -m p4tester.config.reference docs/configuration.md

lint:  ## ruff and mypy --strict on the controller
	$(VENV)/bin/ruff check control ptf-tests
	$(PYTHON) -m mypy --strict control/p4tester control/tests_ebpf

bench: bench-search bench-dataplane  ## benchmarks: print measured ratios

bench-ebpf:  ## the eBPF tester's loopback loss-free rate vs the host's plain replicate+redirect (root)
	$(PYTHON) -m p4tester.bench.ebpf_loopback

bench-ebpf-sender: build-ebpf  ## the eBPF sender's rate at 26 000 and 200 000 frames/s through the trial loop (root)
	$(PYTHON) -m p4tester.bench.ebpf_sender

bench-search:  ## trial-seconds of MLRsearch vs the RFC 2544 binary search on simulated DUTs
	$(PYTHON) -m p4tester.bench.search

bench-dataplane:  ## BMv2: checker vs plain forwarding rate; generator rate accuracy; the eBPF loopback
	bash scripts/run-bench-dataplane.sh $(VENV)

TOPO ?= topologies/loopback.yaml

DEMO_OUT ?= results/demo

demo:  ## the main job: lab up, NDR/PDR at 3 frame sizes, table + results + plots, lab down
	bash scripts/demo.sh $(VENV) $(DEMO_OUT)

calibrate:  ## the tester's own loss-free rate on this host (loopback lab), stored in results/calibration.json
	$(PYTHON) -m p4tester.lab --rundir run/calibrate up topologies/loopback.yaml
	$(PYTHON) -m p4tester calibrate -t topologies/loopback.yaml; s=$$?; \
	  $(PYTHON) -m p4tester.lab --rundir run/calibrate down; exit $$s

lab-up:  ## bring a lab up: make lab-up TOPO=topologies/bmv2-dut.yaml
	$(PYTHON) -m p4tester.lab up $(TOPO)

lab-down:  ## stop the lab's switches, remove its links and namespaces
	$(PYTHON) -m p4tester.lab down

clean:  ## remove caches and run leftovers (not the committed build outputs)
	rm -rf .pytest_cache .mypy_cache .ruff_cache ptf.log ptf.pcap results/tmp
	find . -name __pycache__ -type d -prune -exec rm -rf {} +

.PHONY: demo-mininet
demo-mininet:  ## a Mininet network (tutorials-format) as the DUT: up, NDR/PDR + latency, tables + plots, down, checked clean
	bash scripts/demo-mininet.sh $(VENV) results/demo-mininet
