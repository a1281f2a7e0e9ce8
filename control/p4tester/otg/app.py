"""The OTG HTTP API (the models' OpenAPI paths) over OtgState.

Authorisation as `p4tester serve` has it for state changes: with a token (needed
on a non-loopback bind), POST /config and POST /control/state need
`Authorization: Bearer <token>`. On a loopback bind without a token they need
none (OTG clients such as snappi send no such header), and every POST must be
`Content-Type: application/json`: a web page of another origin can only send
that after a CORS preflight this server never grants.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException

from p4tester.config.errors import ConfigError

from .agent import AGENT_PATH, AgentError, TesterAgent
from .errors import OtgError, validation
from .state import OtgState
from .version import APP_NAME, version_document


def _warnings(warnings: list[str]) -> dict[str, Any]:
    return {"warnings": warnings}


def create_app(state: OtgState, token: str | None,
               agent: TesterAgent | None = None) -> FastAPI:
    """The OTG API; with `agent`, also a tester agent's (otg.agent) under AGENT_PATH."""
    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        # The server's shutdown (Ctrl-C, SIGTERM) stops the flows and closes the tester:
        # an eBPF tester's program, BPF mount and generator link go with it.
        yield
        await run_in_threadpool(state.close)
        if agent is not None:
            await run_in_threadpool(agent.close)

    app = FastAPI(title=f"{APP_NAME} Open Traffic Generator API", docs_url=None,
                  redoc_url=None, openapi_url=None, lifespan=lifespan)
    app.state.otg = state

    @app.exception_handler(OtgError)
    async def otg_error(_request: Request, exc: OtgError) -> JSONResponse:
        return JSONResponse(exc.document(), status_code=exc.status)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        kind = "validation" if exc.status_code < 500 else "internal"
        return JSONResponse({"code": exc.status_code, "kind": kind, "errors": [str(exc.detail)]},
                            status_code=exc.status_code, headers=exc.headers)

    async def body(request: Request, *, changes_state: bool) -> object:
        if changes_state and token is not None:
            given = request.headers.get("authorization", "")
            scheme, _, value = given.partition(" ")
            if scheme.lower() != "bearer" or not secrets.compare_digest(
                    value.strip().encode(), token.encode()):
                return _unauthorised()
        content_type = request.headers.get("content-type", "")
        if not content_type.split(";")[0].strip().lower() == "application/json":
            raise validation(f"Content-Type {content_type!r}: send application/json")
        try:
            return json.loads(await request.body())
        except (ValueError, UnicodeDecodeError) as exc:
            raise validation(f"request body is not JSON: {exc}") from exc

    def _unauthorised() -> JSONResponse:
        return JSONResponse({"code": 401, "kind": "validation",
                             "errors": ["this request changes state: send 'Authorization: "
                                        "Bearer <token>' (the token p4tester otg was given)"]},
                            status_code=401, headers={"WWW-Authenticate": "Bearer"})

    @app.post("/config", response_model=None)
    async def set_config(request: Request) -> dict[str, Any] | JSONResponse:
        document = await body(request, changes_state=True)
        if isinstance(document, JSONResponse):
            return document
        return _warnings(await run_in_threadpool(state.set_config, document))

    @app.get("/config")
    async def get_config() -> dict[str, Any]:
        return state.get_config()

    @app.post("/control/state", response_model=None)
    async def set_control_state(request: Request) -> dict[str, Any] | JSONResponse:
        document = await body(request, changes_state=True)
        if isinstance(document, JSONResponse):
            return document
        return _warnings(await run_in_threadpool(state.set_control_state, document))

    @app.post("/monitor/metrics", response_model=None)
    async def get_metrics(request: Request) -> dict[str, Any] | JSONResponse:
        document = await body(request, changes_state=False)
        return await run_in_threadpool(state.metrics, document)

    @app.post("/monitor/capture", response_model=None)
    async def get_capture(request: Request) -> Response:
        document = await body(request, changes_state=False)
        pcap = await run_in_threadpool(state.capture, document)
        return Response(pcap, media_type="application/octet-stream")

    @app.get("/capabilities/version")
    async def get_version() -> dict[str, str]:
        return version_document(APP_NAME)

    if agent is not None:
        _agent_routes(app, agent, body)
    return app


def _agent_routes(app: FastAPI, agent: TesterAgent,
                  body: Callable[..., Awaitable[object]]) -> None:
    """Every agent request changes the tester's state (or reads a run's): each needs
    the token where the server has one."""
    def refused(exc: AgentError) -> JSONResponse:
        return JSONResponse({"code": exc.status, "kind": "validation", "errors": [str(exc)]},
                            status_code=exc.status)

    async def serve(request: Request, work: Callable[[object], object]) -> object:
        document = await body(request, changes_state=True)
        if isinstance(document, JSONResponse):
            return document
        try:
            return {"result": await run_in_threadpool(work, document)}
        except AgentError as exc:
            return refused(exc)
        except ConfigError as exc:
            return refused(AgentError(str(exc)))
        except Exception as exc:  # the tester's host failed it: say what, never a trace
            return JSONResponse({"code": 500, "kind": "internal",
                                 "errors": [f"{type(exc).__name__}: {exc}"]}, status_code=500)

    @app.post(f"{AGENT_PATH}/open", response_model=None)
    async def agent_open(request: Request) -> object:
        return await serve(request, agent.open)

    @app.post(f"{AGENT_PATH}/close", response_model=None)
    async def agent_close(request: Request) -> object:
        return await serve(request, lambda _document: agent.close())

    @app.post(f"{AGENT_PATH}/call/{{method}}", response_model=None)
    async def agent_call(method: str, request: Request) -> object:
        def call(document: object) -> object:
            args = document.get("args") if isinstance(document, dict) else None
            if not isinstance(args, list):
                raise AgentError('a call\'s body is {"args": [...]}')
            return agent.call(method, args)

        return await serve(request, call)
