"""`p4tester serve`: options, checks, then uvicorn. Also `python -m p4tester.server`."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from p4tester.config.errors import ConfigError
from p4tester.config.profile import Profile, load_profile, profile_from_dict
from p4tester.config.serving import parse_bind, read_token
from p4tester.config.topology import Topology, load_topology

from .settings import DEFAULT_BIND, DEFAULT_SIM_TIME_SCALE, ServerSettings

DEFAULT_RESULTS: Final = Path("results")
HELP: Final = "web dashboard, REST API and Prometheus /metrics"
SHUTDOWN_GRACE_S: Final = 5


def add_options(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("-t", "--topology", required=True, type=Path, help="topology YAML")
    sub.add_argument("-p", "--profile", type=Path,
                     help="profile YAML (default: one stream from the first port to its peer)")
    sub.add_argument("--bind", default=DEFAULT_BIND,
                     help=f"HOST:PORT to listen on (default {DEFAULT_BIND}); a non-loopback "
                          "address needs --token-file")
    sub.add_argument("--token-file", type=Path,
                     help="file whose first line is the bearer token for start/stop "
                          "(default: a new token, printed at start)")
    sub.add_argument("--results", type=Path, default=DEFAULT_RESULTS,
                     help="directory of run directories (kept across restarts)")
    sub.add_argument("--simulate", action="store_true",
                     help="a simulated switch and DUT: no P4 toolchain needed")
    sub.add_argument("--sim-time-scale", type=float, default=DEFAULT_SIM_TIME_SCALE,
                     help="with --simulate: wall seconds per simulated trial second")


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    add_options(commands.add_parser("serve", help=HELP))


def default_profile(topology: Topology) -> Profile:
    first = topology.ports[0]
    peer = next((p.number for p in topology.ports if str(p.number) == first.peer),
                topology.ports[-1].number)
    return profile_from_dict({"name": "default-one-stream",
                              "trial": {"duration_s": 2, "drain_s": 0.5, "settle_s": 0.5,
                                        "initial_duration_s": 0.5},
                              "streams": [{"id": 0, "tx_port": first.number, "rx_port": peer}]},
                             "<built-in default profile>")


def serve(args: argparse.Namespace) -> int:
    """Check everything, print where to go and the token, then serve until Ctrl-C."""
    import uvicorn

    from .app import create_app
    from .backend import Backend
    from .simulated import SimulatedBackend
    from .switch_backend import SwitchBackend

    bind = parse_bind(args.bind)
    topology = load_topology(args.topology)
    profile = (load_profile(args.profile, topology) if args.profile is not None
               else default_profile(topology))
    settings = ServerSettings.checked(bind, read_token(args.token_file), args.results,
                                      simulate=args.simulate,
                                      sim_time_scale=args.sim_time_scale)
    settings.results_dir.mkdir(parents=True, exist_ok=True)
    backend: Backend = (SimulatedBackend(topology, profile, settings.sim_time_scale)
                        if settings.simulate else SwitchBackend(topology, profile))
    app = create_app(settings, topology, profile, backend)
    host = f"[{bind.host}]" if ":" in bind.host else bind.host
    sys.stderr.write(f"p4tester serve: dashboard http://{host}:{bind.port}/ , API docs /docs, "
                     f"metrics /metrics; results in {settings.results_dir}/\n")
    if args.token_file is None:
        sys.stderr.write(f"p4tester serve: token for start/stop: {settings.token}\n")
    # An open dashboard holds a live event stream: the streams end when the server is
    # asked to exit (app.state.exiting), and the grace period bounds the rest.
    server = uvicorn.Server(uvicorn.Config(app, host=bind.host, port=bind.port,
                                           log_level="warning",
                                           timeout_graceful_shutdown=SHUTDOWN_GRACE_S))
    app.state.exiting = lambda: server.should_exit
    # uvicorn handles Ctrl-C (graceful shutdown), then raises it again for the caller.
    with contextlib.suppress(KeyboardInterrupt):
        server.run()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="p4tester serve", description=HELP)
    add_options(parser)
    args = parser.parse_args(argv)
    try:
        return serve(args)
    except ConfigError as exc:
        sys.stderr.write(f"p4tester: {exc}\n")
        return 2
