"""ffind.frontends.flags: the one table the command, completions and man page come from."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import click
import pytest
from conftest import need

from ffind.frontends import cli
from ffind.frontends.flags import FLAGS, Flag, command_limit, parse_type, split_values
from ffind.options import DEFAULT_LIMIT, SearchOptions

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import generate_docs  # noqa: E402


def test_the_command_has_exactly_the_table_s_flags() -> None:
    cmd = cli.build_command()
    options = [p for p in cmd.params if isinstance(p, click.Option)]
    by_name = {p.name: p for p in options}
    assert set(by_name) == {f.param for f in FLAGS} | {"version"}  # -h is added by click
    for flag in FLAGS:
        assert by_name[flag.param].opts + by_name[flag.param].secondary_opts == flag.names


def test_every_flag_has_a_destination() -> None:
    option_fields = set(SearchOptions.__dataclass_fields__)
    invocation_fields = set(cli.Invocation.__dataclass_fields__)
    for flag in FLAGS:
        fields = option_fields if flag.target == "options" else invocation_fields
        assert flag.dest in fields, flag.long
    assert len({f.long for f in FLAGS}) == len(FLAGS)
    shorts = [f.short for f in FLAGS if f.short]
    assert len(set(shorts)) == len(shorts)


def test_adding_a_row_adds_the_flag_everywhere(monkeypatch: pytest.MonkeyPatch) -> None:
    extra = Flag("frobnicate", "F", "int", 3, "Frobnicate N times, for a test.", dest="x",
                 target="invocation", metavar="N", show_default=True, picker=False)
    monkeypatch.setattr(cli, "FLAGS", (*FLAGS, extra))
    monkeypatch.setitem(generate_docs.BY_DEST, extra.param, extra)
    help_text = cli.build_command().get_help(click.Context(cli.build_command(), info_name="x"))
    assert "-F, --frobnicate N" in help_text and "Frobnicate N times" in help_text
    man = generate_docs.man_page()
    assert "\\fB\\-F\\fR, \\fB\\-\\-frobnicate\\fR \\fIN\\fR" in man
    assert "Not used by the picker (\\-i)" in man.split("frobnicate", 1)[1]


def test_split_values_and_limit() -> None:
    values = {f.long: f.default for f in FLAGS}
    values.update({"no-ignore": True, "type": ("d", "f", "d"), "exclude": ("*.o",)})
    options, inv = split_values(values)
    assert options["respect_ignore"] is False and options["types"] == ("d", "f")
    assert options["exclude"] == ("*.o",) and inv["root"] == "."
    assert command_limit(None, "prom") == DEFAULT_LIMIT
    assert command_limit(None, "") is None  # no pattern: every file, as fd
    assert command_limit(0, "prom") is None and command_limit(5, "") == 5
    assert parse_type("Directory") == "d"
    with pytest.raises(ValueError, match="not one of"):
        parse_type("x")


def _ffind_shim(tmp_path: Path) -> Path:
    """A ``ffind`` on PATH that runs this checkout with this interpreter."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "ffind"
    shim.write_text(f'#!/bin/sh\nexec {sys.executable} -m ffind "$@"\n')
    shim.chmod(0o755)
    return bin_dir


def test_fish_completion_keeps_descriptions_with_commas(tmp_path: Path) -> None:
    script = (ROOT / "completions" / "ffind.fish").read_text()
    assert 'string split --max 1 ","' in script
    fish = need("fish")  # (the script's text is checked above in any case)
    env = {**os.environ, "PATH": f"{_ffind_shim(tmp_path)}:{os.environ['PATH']}",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
           "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_DATA_HOME": str(tmp_path / "data"),
           "XDG_CACHE_HOME": str(tmp_path / "cache")}
    proc = subprocess.run(
        [fish, "--no-config", "-c",
         f"source {ROOT / 'completions' / 'ffind.fish'}; complete -C 'ffind --js'"],
        capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "--json\tPrint JSON lines: {score, path[, indices, typo]} per match.\n"
