"""`p4tester completion bash|zsh`: the script names every command and each command's
options, and bash completes with it (commands, options, choices, file names)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from p4tester.cli.completion import SHELLS, commands, script, words
from p4tester.program import build_parser, main

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("shell", SHELLS)
def test_script_names_every_command_and_its_options(shell: str) -> None:
    parser = build_parser()
    text = script(parser, shell)
    subs = commands(parser)
    assert {"validate", "serve", "throughput", "calibrate", "otg", "completion"} <= set(subs)
    for name, sub in subs.items():
        case = next(line for line in text.splitlines() if line.strip().startswith(f'"{name}")'))
        options = words(sub).options
        assert "--help" in options
        for option in options:
            assert f" {option} " in case.replace('"', " ").replace(";", " "), (name, option)
    assert "complete -o filenames -F _p4tester p4tester" in text
    if shell == "zsh":
        assert "bashcompinit" in text


def test_the_command_prints_the_script(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["completion", "bash"]) == 0
    assert capsys.readouterr().out == script(build_parser(), "bash")


def complete(script_path: Path, *words_typed: str) -> list[str]:
    """What bash offers after `p4tester WORDS...` (the last word being completed)."""
    program = ('source "$1"; shift; COMP_WORDS=(p4tester "$@"); '
               'COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _p4tester; printf "%s\\n" "${COMPREPLY[@]}"')
    done = subprocess.run(["bash", "-c", program, "bash", str(script_path), *words_typed],
                          capture_output=True, text=True, check=True, cwd=REPO)
    return [line for line in done.stdout.splitlines() if line]


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_bash_completes_commands_options_choices_and_files(tmp_path: Path) -> None:
    path = tmp_path / "p4tester.bash"
    path.write_text(script(build_parser(), "bash"))
    assert complete(path, "va") == ["validate"]
    assert set(complete(path, "")) == set(commands(build_parser()))
    assert complete(path, "validate", "--to") == ["--topology"]
    assert "--simulate" in complete(path, "serve", "-t", "x.yaml", "--")
    assert complete(path, "completion", "") == ["bash", "zsh"]
    assert complete(path, "throughput", "-t", "topologies/loop") == ["topologies/loopback.yaml"]
