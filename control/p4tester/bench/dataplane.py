"""`make bench`, data-plane part, on BMv2 (run by scripts/run-bench-dataplane.sh).

1. Checker path vs plain forwarding: the same frames are offered (by a separate
   process) above what BMv2 can take; the forwarding baseline (p4src/bench/forward.p4)
   is measured by the kernel's RX count of the egress veth, the checker (which
   drops what it checked) by its rx_kind counter, both over the same middle
   window of the offered interval. No receiver runs, so neither competes with a
   capture for the two cores.
2. Generator accuracy: a stream runs at each configured rate; the rate achieved
   is measured on the wire from kernel receive timestamps (least-squares fit of
   arrival time against frame index), and every frame of the budget must arrive.
Each measurement is repeated; every repetition and the median are printed.
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from p4tester.bench.wire import Receiver, send_paced
from p4tester.dataplane import names
from p4tester.dataplane.constants import RX_KIND_STREAM
from p4tester.dataplane.headers import TesterHeader
from p4tester.dataplane.program import TesterDataplane, seeds_for_rate
from p4tester.p4rt import Exact, P4InfoSchema, P4RuntimeClient, build_table_entry
from p4tester.streams.frame_sizes import Encapsulation
from p4tester.streams.template import FrameSpec, build_template, offset_of_tester_header
from p4tester.targets.bmv2 import Bmv2Target
from p4tester.targets.bmv2_thrift import Bmv2Thrift

SWITCH_PORT_IN = 1
SWITCH_PORT_OUT = 2
WARMUP_S = 1.0
TAIL_S = 0.5


@dataclass(frozen=True, slots=True)
class Setup:
    grpc: str
    thrift_port: int
    build: Path
    iface_in: str   # host end cabled to switch port 1
    iface_out: str  # host end cabled to switch port 2


TESTER_OFFSET = offset_of_tester_header(Encapsulation())


def checker_frames(count: int) -> list[bytes]:
    base = bytearray(build_template(FrameSpec(stream_id=0, frame_size=64)))
    frames = []
    for seq in range(count):
        base[TESTER_OFFSET:TESTER_OFFSET + 18] = TesterHeader(stream_id=0, seq=seq).pack()
        frames.append(bytes(base))
    return frames


def push(client: P4RuntimeClient, build: Path, program: str) -> P4InfoSchema:
    schema = P4InfoSchema.from_text_file(build / f"{program}.p4info.txt")
    client.set_pipeline(schema, build / f"{program}.json")
    return schema


def kernel_rx_packets(iface: str) -> int:
    return int(Path(f"/sys/class/net/{iface}/statistics/rx_packets").read_text())


def offered_window(setup: Setup, frames: list[bytes], offered_pps: float, duration_s: float,
                   count: Callable[[], int]) -> float:
    """Frames/s that `count` grows by in the middle of an offered interval."""
    sender = multiprocessing.Process(
        target=send_paced, args=(setup.iface_in, frames, offered_pps, duration_s)
    )
    sender.start()
    try:
        time.sleep(WARMUP_S)
        first, t_first = count(), time.monotonic()
        time.sleep(duration_s - WARMUP_S - TAIL_S)
        last, t_last = count(), time.monotonic()
    finally:
        sender.join(timeout=duration_s + 5)
        if sender.is_alive():
            sender.kill()
    return (last - first) / (t_last - t_first)


def measure_forwarding(client: P4RuntimeClient, setup: Setup, frames: list[bytes],
                       offered_pps: float, duration_s: float) -> float:
    schema = push(client, setup.build, "forward")
    client.insert(build_table_entry(schema, "BaselineIngress.port_forward",
                                    {"ingress_port": Exact(SWITCH_PORT_IN)},
                                    "BaselineIngress.forward", {"port": SWITCH_PORT_OUT}))
    return offered_window(setup, frames, offered_pps, duration_s,
                          lambda: kernel_rx_packets(setup.iface_out))


def measure_checker(client: P4RuntimeClient, setup: Setup, frames: list[bytes],
                    offered_pps: float, duration_s: float) -> float:
    schema = push(client, setup.build, "tester")
    tester = TesterDataplane(client, schema)
    tester.clear_stream(0)
    return offered_window(setup, frames, offered_pps, duration_s,
                          lambda: tester.read_counter(names.RX_KIND)[RX_KIND_STREAM].packets)


@dataclass(frozen=True, slots=True)
class RateResult:
    configured_pps: int
    budget: int
    received: int
    achieved_pps: float

    @property
    def error(self) -> float:
        return self.achieved_pps / self.configured_pps - 1.0


def measure_generator(client: P4RuntimeClient, setup: Setup, rate_pps: int,
                      duration_s: float) -> RateResult:
    schema = push(client, setup.build, "tester")
    tester = TesterDataplane(client, schema)
    target = Bmv2Target(Bmv2Thrift(setup.thrift_port))
    budget = int(rate_pps * duration_s)
    tester.configure_stream(0, SWITCH_PORT_IN)
    target.prepare([0], [SWITCH_PORT_IN])
    target.set_stream_rates({0: rate_pps})
    tester.clear_stream(0)
    tester.start_stream(0, budget)
    receiver = Receiver(setup.iface_in)
    receiver.start()
    template = build_template(FrameSpec(stream_id=0, frame_size=64))
    tester.seed_stream(0, template, seeds_for_rate(rate_pps))
    deadline = time.monotonic() + 2 * duration_s + 5
    while len(receiver.stamps) < budget and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(0.3)
    receiver.stop()
    target.clear_stream_rates([0])
    seqs = [TesterHeader.unpack(head[TESTER_OFFSET:]).seq for head in receiver.heads]
    return RateResult(rate_pps, budget, len(receiver.stamps), fitted_rate(seqs, receiver.stamps))


def fitted_rate(seqs: list[int], stamps: list[float]) -> float:
    """Frames/s from the least-squares slope of arrival time against sequence number.

    Unlike (N - 1) / (t_last - t_first), one late first or last frame (the
    capture thread waking up) does not move it, and indexing by the frame's own
    sequence number keeps a frame the capture missed from stretching the rest.
    """
    if len(stamps) < 3:
        return 0.0
    origin = stamps[0]
    fit = statistics.linear_regression(seqs, [t - origin for t in stamps])
    return 1.0 / fit.slope


def run(setup: Setup, rates: list[int], repeat: int, duration_s: float, offered_pps: float) -> int:
    frames = checker_frames(int(offered_pps * duration_s) + 1)
    ratios: list[float] = []
    with P4RuntimeClient(setup.grpc, timeout_s=10.0) as client:
        print(f"checker path vs plain forwarding (64 B frames offered at {offered_pps:.0f} pps, "
              f"{duration_s:.0f} s, middle {duration_s - WARMUP_S - TAIL_S:.1f} s measured)")
        for i in range(repeat):
            forward = measure_forwarding(client, setup, frames, offered_pps, duration_s)
            checker = measure_checker(client, setup, frames, offered_pps, duration_s)
            ratios.append(checker / forward)
            print(f"  run {i + 1}: forwarding {forward:9.0f} pps  checker {checker:9.0f} pps  "
                  f"ratio {checker / forward:6.3f}")
        print(f"  median ratio {statistics.median(ratios):.3f} (target >= 0.70)")

        print("generator rate on the wire (64 B frames, kernel RX timestamps)")
        worst: dict[int, float] = {}
        for rate in rates:
            errors = []
            for i in range(repeat):
                result = measure_generator(client, setup, rate, duration_s)
                errors.append(result.error)
                print(f"  {rate:6d} pps run {i + 1}: sent {result.received}/{result.budget}  "
                      f"achieved {result.achieved_pps:10.2f} pps  error {100 * result.error:+.3f}%")
                if result.received != result.budget:
                    print(f"    lost {result.budget - result.received} frames on the wire")
            worst[rate] = max(abs(e) for e in errors)
            print(f"  {rate:6d} pps median error {100 * statistics.median(errors):+.3f}%  "
                  f"worst |error| {100 * worst[rate]:.3f}% (target <= 0.1%)")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--grpc", default="127.0.0.1:59559")
    parser.add_argument("--thrift-port", type=int, default=59090)
    parser.add_argument("--build", type=Path, default=Path("p4src/build"))
    parser.add_argument("--iface-in", required=True)
    parser.add_argument("--iface-out", required=True)
    parser.add_argument("--rates", default="1000,5000,10000")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--duration", type=float, default=4.0)
    parser.add_argument("--offered", type=float, default=40000.0)
    args = parser.parse_args(argv)
    setup = Setup(args.grpc, args.thrift_port, args.build, args.iface_in, args.iface_out)
    rates = [int(r) for r in args.rates.split(",")]
    return run(setup, rates, args.repeat, args.duration, args.offered)


if __name__ == "__main__":
    sys.exit(main())
