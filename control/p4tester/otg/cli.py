"""`p4tester otg`: the Open Traffic Generator API server (docs/otg.md)."""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path
from typing import Final

from p4tester.config.errors import ConfigError
from p4tester.config.serving import MIN_TOKEN_CHARS, parse_bind, read_token
from p4tester.config.topology import load_topology

HELP: Final = "Open Traffic Generator API server (snappi, the OTG conformance suite)"
DEFAULT_BIND: Final = "127.0.0.1:8443"


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    sub = commands.add_parser("otg", help=HELP)
    sub.add_argument("-t", "--topology", required=True, type=Path, help="topology YAML")
    sub.add_argument("--bind", default=DEFAULT_BIND,
                     help=f"HOST:PORT to listen on, plain HTTP (default {DEFAULT_BIND}); a "
                          "non-loopback address needs --token or --token-file")
    sub.add_argument("--push-pipeline", action="store_true",
                     help="load the tester program with the first config even if the switch "
                          "runs one")
    sub.add_argument("--tls-cert", type=Path,
                     help="serve HTTPS with this certificate (PEM; with --tls-key): for an "
                          "agent a controller reaches over a network (its topology's "
                          "tls_ca checks it)")
    sub.add_argument("--tls-key", type=Path, help="the certificate's private key (PEM)")
    tokens = sub.add_mutually_exclusive_group()
    tokens.add_argument("--token", help="bearer token POST /config and /control/state need")
    tokens.add_argument("--token-file", type=Path,
                        help="file whose first line is that token (keeps it out of ps)")


def run(args: argparse.Namespace) -> int:
    """Check the options, open nothing on the switch until a config arrives, serve
    until Ctrl-C."""
    import uvicorn

    from p4tester.otg.agent import TesterAgent
    from p4tester.otg.app import create_app
    from p4tester.otg.state import OtgState
    from p4tester.otg.switch_driver import SwitchDriver

    bind = parse_bind(args.bind)
    token: str | None = args.token if args.token is not None else read_token(args.token_file)
    if token is not None and len(token) < MIN_TOKEN_CHARS:
        raise ConfigError(f"--token: the token must be at least {MIN_TOKEN_CHARS} characters")
    if token is None and not bind.loopback:
        raise ConfigError(f"--bind {bind.host}:{bind.port} is not a loopback address: give "
                          "--token or --token-file so nobody else on the network can "
                          "configure or start traffic")
    if (args.tls_cert is None) != (args.tls_key is None):
        raise ConfigError("--tls-cert and --tls-key go together: give both (HTTPS) or "
                          "neither (plain HTTP)")
    for path in (args.tls_cert, args.tls_key):
        if path is not None and not path.is_file():
            raise ConfigError(f"{path}: no such file (a PEM certificate or key)")
    topology = load_topology(args.topology)
    state = OtgState(topology, SwitchDriver(topology, push_pipeline=args.push_pipeline))
    # Also a tester agent (otg.agent): a controller elsewhere runs this host's tester
    # as one of several.
    app = create_app(state, token, TesterAgent())
    host = f"[{bind.host}]" if ":" in bind.host else bind.host
    scheme = "http" if args.tls_cert is None else "https"
    sys.stderr.write(f"p4tester otg: OTG API on {scheme}://{host}:{bind.port} (ports "
                     f"{', '.join(str(p.number) for p in topology.ports)})\n")
    server = uvicorn.Server(uvicorn.Config(
        app, host=bind.host, port=bind.port, log_level="warning",
        ssl_certfile=None if args.tls_cert is None else str(args.tls_cert),
        ssl_keyfile=None if args.tls_key is None else str(args.tls_key)))
    # uvicorn handles Ctrl-C (graceful shutdown, which closes the tester: app.py), then
    # raises it again for the caller.
    with contextlib.suppress(KeyboardInterrupt):
        server.run()
    return 0
