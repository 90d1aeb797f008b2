"""``DLQHANDLER_HOME`` naming a regular file (or a home whose ``qmgrs`` is one): every
command that uses the home says so, with the fix, and exits non-zero; nothing is made
and the file is left as it was (issue 33: ``qm create`` raised FileExistsError, ``qm
list`` printed nothing and exited 0)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dlqhandler.cli import main

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "rules" / "demo.rul"

COMMANDS = [
    ["qm", "create", "QT"],
    ["qm", "list"],
    ["qm", "delete", "QT"],
    ["qm", "browse", "-m", "QT", "-q", "Q"],
    ["qm", "put", "-m", "QT", "-q", "Q", "--data", "x"],
    ["qm", "dmpmqmsg", "-m", "QT", "-i", "Q", "-f", "{tmp}/out.dmp"],
    ["qm", "runmqtrm", "-m", "QT", "--once"],
    ["check", "QT"],
    ["check"],
    ["audit"],
    ["audit", "QT"],
    ["run", "Q", "QT", "--rules", str(RULES), "--no-watch"],
    ["run", " ", "QT", "--match", "REASON(MQRC_Q_FULL)", "--action", "discard", "--reason", "x"],
]


@pytest.mark.parametrize("layout", ["home-is-a-file", "qmgrs-is-a-file"])
@pytest.mark.parametrize("argv", COMMANDS, ids=" ".join)
def test_a_home_that_is_a_file_is_refused_by_every_command(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    layout: str,
) -> None:
    """Non-zero exit, no traceback, a message naming DLQHANDLER_HOME, the file that is in
    the way and the fix; the file keeps its bytes and nothing is created beside it."""
    if layout == "home-is-a-file":
        home = tmp_path / "home"
        blocker = home
    else:
        home = tmp_path / "home"
        home.mkdir()
        blocker = home / "qmgrs"
    blocker.write_bytes(b"not a directory\n")
    monkeypatch.setenv("DLQHANDLER_HOME", str(home))
    monkeypatch.delenv("DLQHANDLER_QMGR", raising=False)
    before = sorted(tmp_path.rglob("*"))
    code = main([a.replace("{tmp}", str(tmp_path)) for a in argv])
    err = capsys.readouterr().err
    assert code != 0
    assert f"DLQHANDLER_HOME={home}" in err
    assert f"{blocker} is a file, not a directory" in err
    assert "set DLQHANDLER_HOME to a directory (it is created if missing)" in err
    assert "Traceback" not in err
    assert blocker.read_bytes() == b"not a directory\n"
    assert sorted(tmp_path.rglob("*")) == before


def test_a_home_under_a_missing_directory_is_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The check refuses only what is in the way: a home whose folders do not exist yet
    is created by qm create, as before, and listed."""
    home = tmp_path / "a" / "b" / "home"
    monkeypatch.setenv("DLQHANDLER_HOME", str(home))
    assert main(["qm", "list"]) == 0
    assert main(["qm", "create", "QT"]) == 0
    capsys.readouterr()
    assert main(["qm", "list"]) == 0
    assert "QMNAME(QT)" in capsys.readouterr().out
