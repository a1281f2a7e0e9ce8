"""What `p4tester serve` was started with, checked before anything listens."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Final

from p4tester.config.errors import ConfigError
from p4tester.config.serving import Bind, new_token

DEFAULT_BIND: Final = "127.0.0.1:8080"
# A simulated trial of duration d takes d x this in wall time, so a browser sees a
# run progress (a 2-s trial shows for 0.4 s), within these bounds per trial.
DEFAULT_SIM_TIME_SCALE: Final = 0.2
MAX_SIM_TRIAL_WALL_S: Final = 5.0


@dataclass(frozen=True, slots=True)
class ServerSettings:
    """results_dir holds one directory per run (they outlive the server).
    token: None only on a loopback bind (then one is made up and printed: state
    changes always need a token, so a web page on another origin cannot start runs)."""

    bind: Bind
    token: str
    results_dir: Path
    simulate: bool = False
    sim_time_scale: float = DEFAULT_SIM_TIME_SCALE

    @classmethod
    def checked(cls, bind: Bind, token: str | None, results_dir: Path, *, simulate: bool,
                sim_time_scale: float = DEFAULT_SIM_TIME_SCALE) -> ServerSettings:
        if token is None and not bind.loopback:
            raise ConfigError(f"--bind {bind.host}:{bind.port} is not a loopback address: "
                              "give --token-file so nobody else on the network can start "
                              "or stop experiments")
        if sim_time_scale < 0:
            raise ConfigError(f"simulated time scale {sim_time_scale} must be >= 0")
        return cls(bind, token or new_token(), results_dir, simulate, sim_time_scale)
