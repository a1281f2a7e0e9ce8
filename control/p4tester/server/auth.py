"""Bearer-token check for every request that changes state (start, stop)."""

from __future__ import annotations

import secrets
from typing import Annotated, Final

from fastapi import Depends, HTTPException, Request, status
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

# auto_error=False: a missing or malformed header gets this module's 401 and message
# (HTTPBearer's own would be a bare 403). Declared as a security scheme, it also gives
# /docs its "Authorize" button.
_BEARER: Final = HTTPBearer(auto_error=False, description="the token `p4tester serve` printed "
                                                          "or read from --token-file")


def require_token(request: Request, credentials: Annotated[
        HTTPAuthorizationCredentials | None, Depends(_BEARER)]) -> None:
    """FastAPI dependency: 401 unless `Authorization: Bearer <the server's token>`."""
    expected: str = request.app.state.settings.token
    given = credentials.credentials if credentials is not None else ""
    # compare_digest: no timing hint about how much of a guess was right.
    if not secrets.compare_digest(given.encode(), expected.encode()):
        raise HTTPException(status.HTTP_401_UNAUTHORIZED,
                            detail="this request changes state: send 'Authorization: Bearer "
                                   "<token>' (the token `p4tester serve` printed or read from "
                                   "--token-file)",
                            headers={"WWW-Authenticate": "Bearer"})
