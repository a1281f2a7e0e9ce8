"""Bearer-token check for every request that changes state (start, stop)."""

from __future__ import annotations

import secrets

from fastapi import HTTPException, Request, status


def require_token(request: Request) -> None:
    """FastAPI dependency: 401 unless `Authorization: Bearer <the server's token>`."""
    expected: str = request.app.state.settings.token
    header = request.headers.get("authorization", "")
    scheme, _, given = header.partition(" ")
    # compare_digest: no timing hint about how much of a guess was right.
    if scheme.lower() != "bearer" or not secrets.compare_digest(given.strip(), expected):
        raise HTTPException(status.HTTP_401_UNAUTHORIZED,
                            detail="this request changes state: send 'Authorization: Bearer "
                                   "<token>' (the token `p4tester serve` printed or read from "
                                   "--token-file)",
                            headers={"WWW-Authenticate": "Bearer"})
