"""Every command the README and docs/ show is run: each `p4tester ...` line of a fenced
block (and each inline `p4tester ...` that is a whole command) is parsed by the
program's parser as written and its subcommand's --help is run; a `validate` naming
shipped files is run exactly as written; each `make ...` names a target `make help`
lists; each `python -m p4tester.X` names a module that answers --help. A sample output
of a command that needs no switch (validate, --help, --version, completion) is the
command's real output."""

from __future__ import annotations

import functools
import importlib
import importlib.util
import re
import shlex
import subprocess
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from p4tester.program import build_parser, main
from p4tester.runs.catalog import EXPERIMENTS

REPO = Path(__file__).resolve().parents[2]

# A placeholder for a subcommand, and the subcommands it stands for.
PLACEHOLDERS = {"EXPERIMENT": tuple(EXPERIMENTS)}
# Syntax of a synopsis, not of a command line: its options are not parsed as written.
SYNOPSIS = re.compile(r"[\[\]|]|\.\.\.")
# Subcommands whose output needs no switch: a sample of theirs must be their output.
NO_SWITCH = {"validate", "--help", "-h", "--version", "completion"}


def user_documents() -> list[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


@dataclass(frozen=True)
class Shown:
    """One command a document shows, and the output shown under it (fenced only)."""

    document: str
    line: int
    words: tuple[str, ...]
    text: str
    sample: tuple[str, ...] = ()
    inline: bool = False

    def __str__(self) -> str:
        return f"{self.document}:{self.line}: {self.text}"


def _words(text: str) -> tuple[str, ...]:
    """The command's words without a prompt, environment assignments, sudo or a
    trailing comment; () when the text is not a shell command."""
    try:
        words = shlex.split(text, comments=True)
    except ValueError:
        return ()
    while words and (words[0] in ("$", "sudo") or re.fullmatch(r"[A-Z_][A-Z0-9_]*=\S*",
                                                               words[0])):
        words = words[1:]
    return tuple(words)


def _is_command(words: tuple[str, ...]) -> bool:
    if not words:
        return False
    program = Path(words[0]).name
    return (program in ("p4tester", "make")
            or (program.startswith("python") and len(words) > 2 and words[1] == "-m"
                and words[2].startswith("p4tester")))


def _fenced(document: str, start: int, indented: list[str]) -> Iterator[Shown]:
    block = textwrap.dedent("\n".join(indented)).splitlines()
    prompted = any(line.startswith("$ ") for line in block)
    index = 0
    while index < len(block):
        first = index
        text = block[index]
        while text.endswith("\\") and index + 1 < len(block):
            index += 1
            text = text[:-1] + " " + block[index].strip()
        index += 1
        if prompted and not text.startswith("$ "):
            continue
        words = _words(text)
        if not _is_command(words):
            continue
        end = index
        while end < len(block) and not block[end].startswith("$ ") and (
                prompted or not _is_command(_words(block[end]))):
            end += 1
        yield Shown(document, start + first + 1, words, text.removeprefix("$ ").strip(),
                    tuple(block[index:end]))


def shown_commands(path: Path) -> Iterator[Shown]:
    lines = path.read_text().splitlines()
    prose: list[tuple[int, str]] = []
    block: list[str] | None = None
    start = 0
    for number, line in enumerate(lines, 1):
        if line.lstrip().startswith("```"):
            if block is None:
                block, start = [], number
            else:
                yield from _fenced(path.name, start, block)
                block = None
            continue
        if block is None:
            prose.append((number, line))
        else:
            block.append(line)
    # Inline code may wrap across lines of a paragraph.
    text = "\n".join(line for _, line in prose)
    numbers = [number for number, _ in prose]
    for match in re.finditer(r"`([^`]+)`", text):
        code = " ".join(match.group(1).split())
        words = _words(code)
        # A whole command: the code starts with it (or with its environment).
        if _is_command(words) and (code.split()[0] == words[0]
                                   or re.match(r"[A-Z_]+=\S* ", code)):
            yield Shown(path.name, numbers[text.count("\n", 0, match.start())], words, code,
                        inline=True)


def every_shown() -> list[Shown]:
    return [shown for path in user_documents() for shown in shown_commands(path)]


@functools.cache
def make_targets() -> frozenset[str]:
    listing = subprocess.run(["make", "-s", "-C", str(REPO), "help"], capture_output=True,
                             text=True, check=True).stdout
    return frozenset(line.split()[0] for line in listing.splitlines() if line.strip())


def _files_exist(words: tuple[str, ...]) -> bool:
    paths = [words[i + 1] for i, word in enumerate(words[:-1]) if word in ("-t", "-p")]
    return bool(paths) and all((REPO / path).is_file() for path in paths)


def _exit_code(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as stop:
        return int(stop.code or 0)


def _program_help(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert _exit_code(argv) == 0, capsys.readouterr().err
    assert "usage: p4tester" in capsys.readouterr().out


def check_p4tester(shown: Shown, capsys: pytest.CaptureFixture[str],
                   monkeypatch: pytest.MonkeyPatch) -> None:
    argv = list(shown.words[1:])
    if not argv or argv[0].startswith("-"):
        _program_help(argv or ["--help"], capsys)
        return
    for command in PLACEHOLDERS.get(argv[0], (argv[0],)):
        _program_help([command, "--help"], capsys)
    if argv[0] in PLACEHOLDERS or SYNOPSIS.search(shown.text) or (
            len(argv) == 1 and not shown.sample and shown.inline):
        return  # a synopsis, or prose naming a command: its --help is enough
    if argv[0] == "validate" and _files_exist(shown.words):
        monkeypatch.chdir(REPO)
        assert main(argv) == 0, capsys.readouterr().err
        capsys.readouterr()
        return
    # Options, values and their types as written (nothing runs: parsing only).
    try:
        build_parser().parse_args(argv)
    except SystemExit as stop:
        pytest.fail(f"{shown}: the parser refuses it ({capsys.readouterr().err.strip()})"
                    f", exit {stop.code}")


def check_module(shown: Shown, capsys: pytest.CaptureFixture[str]) -> None:
    """The module exists; a package run with -m (its __main__) answers --help."""
    name = shown.words[2]
    spec = importlib.util.find_spec(name)
    assert spec is not None, f"{shown}: no module {name}"
    if spec.submodule_search_locations is None:
        return
    module = importlib.import_module(f"{name}.__main__")
    try:
        module.main(["--help"])
    except SystemExit as stop:
        assert stop.code in (0, None)
    assert "usage:" in capsys.readouterr().out


SHOWN = every_shown()


@pytest.mark.parametrize("shown", SHOWN, ids=str)
def test_every_shown_command_runs(shown: Shown, capsys: pytest.CaptureFixture[str],
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    program = Path(shown.words[0]).name
    if program == "make":
        targets = [word for word in shown.words[1:]
                   if not word.startswith("-") and "=" not in word] or ["help"]
        assert set(targets) <= make_targets(), f"{shown}: not a target of `make help`"
    elif program == "p4tester":
        check_p4tester(shown, capsys, monkeypatch)
    else:
        check_module(shown, capsys)


def _normal(lines: list[str] | tuple[str, ...]) -> list[str]:
    text = "\n".join(line.rstrip() for line in lines).strip()
    return text.replace(str(REPO) + "/", "").splitlines()


def _needs_no_switch(words: tuple[str, ...]) -> bool:
    return len(words) > 1 and (words[1] in NO_SWITCH
                               or (words[1] in EXPERIMENTS and "--simulate" in words))


SAMPLES = [shown for shown in SHOWN if Path(shown.words[0]).name == "p4tester"
           and shown.sample and _needs_no_switch(shown.words)]


def run_as_shown(shown: Shown, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                 tmp_path: Path) -> tuple[list[str], Path | None]:
    """The command's output, run from the repository; an output directory it names is
    made under tmp_path instead, and given back under its written name."""
    monkeypatch.chdir(REPO)
    argv = list(shown.words[1:])
    written = output = None
    for option in ("-o", "--output"):
        if option in argv:
            index = argv.index(option) + 1
            written, output = argv[index], tmp_path / "output"
            argv[index] = str(output)
    capsys.readouterr()
    assert _exit_code(argv) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    if written is not None:
        out = out.replace(str(output), written)
    return _normal(out.splitlines()), output


@pytest.mark.parametrize("shown", SAMPLES, ids=str)
def test_samples_of_commands_without_a_switch_are_their_real_output(
        shown: Shown, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path) -> None:
    out, _ = run_as_shown(shown, capsys, monkeypatch, tmp_path)
    assert _normal(shown.sample) == out


def test_the_readmes_simulated_search_took_the_trials_it_says(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path) -> None:
    readme = " ".join((REPO / "README.md").read_text().split())
    [shown] = [shown for shown in SAMPLES
               if shown.document == "README.md" and "--simulate" in shown.words]
    _, output = run_as_shown(shown, capsys, monkeypatch, tmp_path)
    assert output is not None
    trials = sum(line.startswith('{"trial"')
                 for line in (output / "trials.jsonl").read_text().splitlines())
    assert f"The search took {trials} simulated trials" in readme
    assert f"it says `{trials} of {trials} trials without a self-check" in readme


def test_commands_and_samples_are_found() -> None:
    texts = {shown.text for shown in SHOWN}
    assert ".venv/bin/p4tester --help" in texts
    assert "make lab-down" in texts
    assert any(text.startswith("p4tester calibrate") for text in texts)  # inline, wrapped
    assert any(shown.words[1] == "validate" for shown in SAMPLES)
    # Output lines are not commands, in a block with prompts or without.
    assert not any(shown.words[1].endswith(":") for shown in SHOWN if len(shown.words) > 1)


def test_a_wrong_option_is_caught(capsys: pytest.CaptureFixture[str],
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    wrong = Shown("x.md", 1, ("p4tester", "throughput", "-t", "t.yaml", "-p", "p.yaml",
                              "-o", "out", "--frame-size-list", "64"), "p4tester throughput")
    with pytest.raises(pytest.fail.Exception):
        check_p4tester(wrong, capsys, monkeypatch)
