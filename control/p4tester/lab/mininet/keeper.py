"""python -m p4tester.lab.mininet.keeper TOPOLOGY RUNDIR [--log]: the process that owns
a Mininet lab. Mininet's hosts live as long as the shells of the process that made
them, so this process builds the network, writes the lab's state, marks it ready and
waits; SIGTERM or SIGINT stops the network (net.stop() in `finally`) and exits."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import traceback
from pathlib import Path
from typing import Final

from mininet.log import setLogLevel

from p4tester.config.errors import ConfigError
from p4tester.config.topology import load_topology
from p4tester.lab.mininet.ready import READY_FILE
from p4tester.lab.netdev import LabError
from p4tester.lab.state import LabState

KIND: Final = "mininet"


class Stop(Exception):
    """A stop signal arrived."""


def _stop(signum: int, _frame: object) -> None:
    raise Stop(signal.Signals(signum).name)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m p4tester.lab.mininet.keeper")
    parser.add_argument("topology", type=Path)
    parser.add_argument("rundir", type=Path)
    parser.add_argument("--log", action="store_true")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    setLogLevel("warning")  # Mininet's own warnings (tc refusing a qdisc) reach the log
    from p4tester.lab.mininet.build import LabNetwork

    topology = load_topology(args.topology)
    state = LabState(topology.source or topology.name, pids=[os.getpid()], kind=KIND)
    state.save(args.rundir)
    lab = None
    try:
        lab = LabNetwork(topology, args.rundir, log=args.log)
        state.links = lab.root_links()
        state.save(args.rundir)
        lab.build()
        state.pids = [os.getpid(), *lab.pids()]
        state.save(args.rundir)
        state.notes = lab.start()
        state.pids = [os.getpid(), *lab.pids()]
        state.save(args.rundir)
        (args.rundir / READY_FILE).write_text(f"{os.getpid()}\n")
        print(f"mininet lab {state.topology} ready", flush=True)
        while True:
            signal.pause()
    except Stop as stop:
        print(f"stopping on {stop}", flush=True)
        return 0
    except (ConfigError, LabError) as exc:
        # What the user can fix, said as it is (`lab up` shows the end of this log).
        print(f"p4tester.lab: {exc}", flush=True)
        return 1
    except Exception:
        traceback.print_exc()
        return 1
    finally:
        if lab is not None:
            lab.stop()
        (args.rundir / READY_FILE).unlink(missing_ok=True)


if __name__ == "__main__":
    sys.exit(main())
