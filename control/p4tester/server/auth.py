"""Bearer-token check for every request that changes state (start, stop)."""

from __future__ import annotations

import secrets
from typing import Annotated, Final

from fastapi import Depends, Request
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
        raise TokenRequiredError


class TokenRequiredError(PermissionError):
    """A request that changes state came without the server's token: 401, with a word
    for an API client (`detail`) and one for the person at the dashboard (`browser`)."""

    detail: Final = ("this request changes state: send 'Authorization: Bearer <token>' (the "
                     "token `p4tester serve` printed or read from --token-file)")
    browser: Final = ("401: this needs the server's token: paste the token `p4tester serve` "
                      "printed (or the contents of its --token-file) into the token field "
                      "of 'Run an experiment', then try again")
