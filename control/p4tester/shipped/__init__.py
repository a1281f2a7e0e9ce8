"""The files the controller ships beside its code, found through importlib.resources and
never through the working directory, so that `pip install .` runs from anywhere:

    build/      the committed P4 build outputs (p4src/build): BMv2 JSON and P4Info of the
                tester, the reference DUT and the forwarder; build/tna/*.bfrt.json (Tofino)
    profiles/   the example traffic profiles (topologies/profiles)

In the repository both are symlinks to those directories, so an editable install reads the
very files the scripts build and check (make build, the P4Info freshness checks); a wheel
carries copies of them (pyproject.toml, package-data).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def program_file(name: str) -> Path:
    """A P4 build output, e.g. "tester.p4info.txt" or "tna/tofino.bfrt.json"."""
    return _shipped("build", name)


def profile_file(name: str) -> Path:
    """An example traffic profile, e.g. "one-stream.yaml"."""
    return _shipped("profiles", name)


def _shipped(folder: str, name: str) -> Path:
    resource = resources.files(__name__).joinpath(folder)
    for part in name.split("/"):
        resource = resource.joinpath(part)
    if not isinstance(resource, Path):
        # A zipped install (zipimport): the files have no path of their own to hand to
        # the switch or the compiler's tools.
        raise FileNotFoundError(f"p4tester's {folder}/{name} is inside an archive "
                                f"({resource}); install p4tester as a directory (pip install)")
    # resolve(): in a checkout, the path through the symlink is p4src/build/... itself.
    return resource.resolve()
