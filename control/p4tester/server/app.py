"""The FastAPI application: REST API under /api, the dashboard pages, /metrics.

Docs: FastAPI's default /docs page loads Swagger UI from a CDN. fastapi-offline
(PyPI) ships the Swagger UI and ReDoc assets in its wheel and serves them from this
server, so /docs and /redoc work on a lab machine without internet access and the
browser fetches nothing from elsewhere.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any, Final

from fastapi import Depends, FastAPI, Request, status
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi_offline import FastAPIOffline
from pydantic import BaseModel, Field
from starlette.responses import StreamingResponse

from p4tester.config.errors import ConfigError
from p4tester.config.profile import Profile
from p4tester.config.topology import Topology
from p4tester.results.jsonl import tool_version
from p4tester.runs.catalog import RequestError
from p4tester.runs.outputs import to_jsonable

from . import pages
from .auth import TokenRequiredError, require_token
from .backend import Backend, BackendUnavailableError
from .jobs import BusyError, JobManager, NothingRunningError
from .live import event_stream, live_document
from .metrics import CONTENT_TYPE, exposition
from .options import describe_experiments
from .progress import bounds_of, search_points
from .runs import RunInfo, RunNotFoundError, list_runs, run_file, run_info, run_trials
from .settings import ServerSettings
from .simulated import describe_dut
from .validate import InvalidConfigError, validate_texts

STATIC_DIR: Final = Path(__file__).parent / "static"
# How long a stopping run may take to end when the server shuts down.
SHUTDOWN_WAIT_S: Final = 30.0


class StartRequest(BaseModel):
    experiment: str = Field(description="a `p4tester` experiment subcommand, e.g. throughput")
    options: dict[str, str | int | float | bool] = Field(
        default_factory=dict,
        description="the subcommand's options without dashes, as on the command line: "
                    '{"frame-sizes": "64,512", "method": "binary", "duration": 1}')


class ValidateRequest(BaseModel):
    topology: str = Field("", description="topology YAML text; empty: the server's topology")
    profile: str | None = Field(None, description="profile YAML text (optional)")


def _error(code: int, message: str, **extra: str) -> JSONResponse:
    return JSONResponse({"detail": message, **extra}, status_code=code)


def create_app(settings: ServerSettings, topology: Topology, profile: Profile,
               backend: Backend) -> FastAPI:
    jobs = JobManager(topology, profile, backend, settings.results_dir)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        yield
        if jobs.busy:
            jobs.stop()
            jobs.wait(SHUTDOWN_WAIT_S)
        backend.close()

    app = FastAPIOffline(title="p4tester", version=tool_version(), lifespan=lifespan,
                         description="Run RFC 2544 experiments on a P4 tester switch, watch "
                                     "its counters, fetch results. Requests that change state "
                                     "need `Authorization: Bearer <token>`.")
    app.state.settings = settings
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")

    for exc_type, code in ((RequestError, 400), (ConfigError, 400), (BusyError, 409),
                           (NothingRunningError, 409), (RunNotFoundError, 404),
                           (BackendUnavailableError, 503)):
        def handler(_request: Request, exc: Exception, code: int = code) -> JSONResponse:
            # The option a bad value was given to (RequestError, OptionConfigError), for
            # the page to say the message next to that field.
            option = getattr(exc, "option", None)
            return _error(code, str(exc), **({"option": option} if option else {}))

        app.add_exception_handler(exc_type, handler)

    def invalid_config(_request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, InvalidConfigError)
        return _error(422, exc.error.message, file=exc.error.file, path=exc.error.path)

    app.add_exception_handler(InvalidConfigError, invalid_config)

    def token_required(_request: Request, _exc: Exception) -> JSONResponse:
        answer = _error(401, TokenRequiredError.detail, browser=TokenRequiredError.browser)
        answer.headers["WWW-Authenticate"] = "Bearer"
        return answer

    app.add_exception_handler(TokenRequiredError, token_required)

    def info_of(run_id: str) -> RunInfo:
        info = run_info(settings.results_dir, run_id)
        progress = jobs.progress()
        if progress is not None and progress.run_id == run_id and jobs.busy:
            return replace(info, state=progress.state)
        return info

    def read_live() -> dict[str, Any]:
        try:
            reading, error = backend.read(), None
        except BackendUnavailableError as exc:
            reading, error = None, str(exc)
        return live_document(reading, error, jobs.progress(), jobs.scope())

    # ---- pages --------------------------------------------------------------------
    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def dashboard() -> str:
        return pages.dashboard(topology, profile, settings.simulate,
                               describe_dut(topology, profile) if settings.simulate else None)

    @app.get("/runs/{run_id}", response_class=HTMLResponse, include_in_schema=False)
    def run_page(run_id: str) -> str:
        info = info_of(run_id)
        text_file = settings.results_dir / run_id / "result.txt"
        csv_file = settings.results_dir / run_id / "trials.csv"
        return pages.run_page(info, text_file.read_text() if text_file.is_file() else "",
                              csv_file.read_text() if csv_file.is_file() else "")

    # ---- API ----------------------------------------------------------------------
    @app.get("/api/info", tags=["switch"])
    def server_info() -> dict[str, Any]:
        """The topology, profile and switch this server drives."""
        return {"topology": topology.name, "profile": profile.name,
                "target": topology.switch.target, "switch": topology.switch.grpc,
                "simulated": settings.simulate, "version": tool_version(),
                # tester: the one of several testers the port belongs to (else null).
                "ports": [{"port": p.number, "line_rate_bps": p.line_rate_bps,
                           "tester": p.tester or None} for p in topology.ports],
                "testers": [t.name for t in topology.testers],
                # rx_ports: every port a stream comes back on (rx_port first); receive:
                # what the DUT does with a stream received on several, else null.
                "streams": [{"stream": s.id, "tx_port": s.tx_port, "rx_port": s.rx_port,
                             "rx_ports": list(s.rx_ports),
                             "receive": s.receive.mode if s.receive else None,
                             "share": s.share} for s in profile.streams],
                "services": [{"name": s.name, "stream": s.stream_id, "cir_bps": s.cir_bps,
                              "eir_bps": s.eir_bps} for s in profile.services],
                "frame_sizes": list(profile.frame_sizes),
                "pdr_loss_ratio": profile.search.pdr_loss_ratio,
                "latency_bins_us": list(backend.latency_edges_us)}

    @app.post("/api/validate", tags=["config"])
    def validate(body: ValidateRequest) -> dict[str, Any]:
        """`p4tester validate` on YAML texts: 422 with file, field path and message."""
        return validate_texts(body.topology, body.profile, topology)

    @app.get("/api/experiments", tags=["runs"])
    def experiments() -> list[dict[str, Any]]:
        """Every experiment the CLI has, with its options (names without dashes)."""
        return [to_jsonable(e) for e in describe_experiments()]

    @app.post("/api/runs", status_code=status.HTTP_201_CREATED, tags=["runs"],
              dependencies=[Depends(require_token)])
    def start_run(body: StartRequest) -> dict[str, Any]:
        """Start an experiment (400 bad options, 409 while another runs)."""
        return {"progress": to_jsonable(jobs.start(body.experiment, body.options))}

    @app.get("/api/runs", tags=["runs"])
    def runs() -> list[dict[str, Any]]:
        """Past and current runs, newest first (directories under the results dir)."""
        return [to_jsonable(info_of(r.run_id)) for r in list_runs(settings.results_dir)]

    @app.get("/api/runs/{run_id}", tags=["runs"])
    def run(run_id: str) -> dict[str, Any]:
        return to_jsonable(info_of(run_id))  # type: ignore[no-any-return]

    @app.get("/api/runs/{run_id}/trials", tags=["runs"])
    def trials(run_id: str) -> list[dict[str, Any]]:
        """The run's trials.jsonl as a JSON list, each trial and each of its streams
        with its loss and loss_ratio (as the reports judge them), and the streams that
        lost frames, worst first."""
        return [{**to_jsonable(t), "loss_ratio": t.loss_ratio, "lost": t.lost,
                 "losing_streams": to_jsonable(t.losing_streams),
                 "streams": [{**to_jsonable(s), "lost": s.lost, "loss_ratio": s.loss_ratio}
                             for s in t.streams]}
                for t in run_trials(settings.results_dir, run_id)]

    @app.get("/api/runs/{run_id}/search", tags=["runs"])
    def search(run_id: str) -> dict[str, Any]:
        """The run's trials as a search sees them (load, loss ratio, valid) and the NDR
        and PDR bounds they imply per frame size, read from its trials.jsonl."""
        points = search_points(run_trials(settings.results_dir, run_id))
        return {"points": to_jsonable(points),
                "bounds": to_jsonable(bounds_of(points, profile.search.pdr_loss_ratio))}

    @app.get("/api/runs/{run_id}/files/{name}", tags=["runs"])
    def file(run_id: str, name: str) -> FileResponse:
        """One file the run wrote (trials.jsonl, summary.json, trials.csv, plots)."""
        path, media_type = run_file(settings.results_dir, run_id, name)
        return FileResponse(path, media_type=media_type, filename=name,
                            content_disposition_type="inline")

    @app.get("/api/current", tags=["runs"])
    def current() -> dict[str, Any]:
        """Progress of the running (or last) run: trials, current load, search bounds."""
        busy, progress = jobs.current()
        return {"busy": busy, "progress": to_jsonable(progress) if progress else None}

    @app.post("/api/current/stop", status_code=status.HTTP_202_ACCEPTED, tags=["runs"],
              dependencies=[Depends(require_token)])
    def stop() -> dict[str, Any]:
        """Stop the running experiment after its current trial (409 when none runs);
        the finished trials stay in its results."""
        return {"progress": to_jsonable(jobs.stop())}

    @app.get("/api/stats", tags=["switch"])
    def stats() -> dict[str, Any]:
        """One reading of the live counters (the `stats` figures, per port and stream)."""
        return read_live()

    @app.get("/api/live", tags=["switch"], response_class=StreamingResponse)
    def live(request: Request, interval: float = 1.0, limit: int | None = None) -> Response:
        """The live counters and progress as Server-Sent Events, one per `interval`
        seconds (clamped to 0.25..10); `limit` events, or until the client goes."""
        if limit is not None and limit < 1:
            return _error(400, "limit must be at least 1")
        exiting = getattr(request.app.state, "exiting", lambda: False)
        return StreamingResponse(event_stream(request, read_live, interval, limit, exiting),
                                 media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache"})

    @app.get("/metrics", tags=["switch"], response_class=Response)
    def metrics() -> Response:
        """Prometheus text exposition of the live counters and the experiment state."""
        try:
            reading = backend.read()
        except BackendUnavailableError:
            reading = None  # build info and experiment state still say something
        progress = jobs.progress()
        return Response(exposition(reading, progress, topology.switch.target,
                                   settings.simulate), media_type=CONTENT_TYPE)

    app.state.jobs = jobs
    return app
