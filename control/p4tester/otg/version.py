"""The OTG models version this server implements.

snappi's `version_check=True` compares its own models version with the
`api_spec_version` of GET /capabilities/version, so this must equal the version
of the snappi client the project pins (scripts/otg-requirements.txt).
"""

from __future__ import annotations

from typing import Final

API_SPEC_VERSION: Final = "1.58.0"
APP_NAME: Final = "p4tester"


def version_document(app_version: str) -> dict[str, str]:
    """The body of GET /capabilities/version (the models' Version object)."""
    return {"api_spec_version": API_SPEC_VERSION, "sdk_version": API_SPEC_VERSION,
            "app_version": app_version}
