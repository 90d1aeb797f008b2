"""Paths and URIs for the drain, checked on the driver before Spark starts."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from dlqhandler.errors import ConfigError
from dlqhandler.spark.files import (
    check_output_dir,
    is_local,
    local_path,
    resolve_uri,
    scheme_of,
)


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("backlog.dmp", "file:///srv/dir/backlog.dmp"),
        ("./in/../backlog.dmp", "file:///srv/dir/backlog.dmp"),
        ("/data/x.dmp", "file:///data/x.dmp"),
        ("file:rel/x.dmp", "file:///srv/dir/rel/x.dmp"),
        ("file:/abs/x.dmp", "file:///abs/x.dmp"),
        ("file:///abs/x.dmp", "file:///abs/x.dmp"),
        ("file://localhost/abs/x.dmp", "file:///abs/x.dmp"),
        ("dir with space/x*.dmp", "file:///srv/dir/dir with space/x*.dmp"),
        ("hdfs://nn:8020/dlq/x.dmp", "hdfs://nn:8020/dlq/x.dmp"),
        ("s3a://bucket/dlq/", "s3a://bucket/dlq/"),
    ],
)
def test_resolve_uri_makes_paths_absolute_on_the_driver(typed: str, expected: str) -> None:
    """Relative paths and file: URIs become absolute file:/// URIs against the driver's
    working directory (executors elsewhere see the same file); other schemes pass."""
    assert resolve_uri(typed, cwd=Path("/srv/dir")) == expected


def test_resolve_uri_expands_home_and_refuses_hosts(monkeypatch: pytest.MonkeyPatch) -> None:
    """`~` is the user's home; a file: URI naming a host or an empty path is refused."""
    monkeypatch.setenv("HOME", "/home/admin")
    assert resolve_uri("~/dlq.dmp") == "file:///home/admin/dlq.dmp"
    with pytest.raises(ConfigError, match="names no host"):
        resolve_uri("file://otherhost/x")
    with pytest.raises(ConfigError, match="empty"):
        resolve_uri("  ")


def test_scheme_and_local_path() -> None:
    """The scheme decides where a path lives; local_path undoes a file: URI."""
    assert scheme_of("S3A://b/x") == "s3a"
    assert scheme_of("/x") == "file"
    assert is_local("file:/x")
    assert not is_local("hdfs://nn/x")
    assert local_path("file:///a/b c") == Path("/a/b c")
    with pytest.raises(ConfigError):
        local_path("hdfs://nn/x")


def test_output_dir_new_is_staged_then_committed(tmp_path: Path) -> None:
    """A new directory: the run writes into a hidden sibling that commit renames."""
    out = check_output_dir(str(tmp_path / "a" / "out"))
    assert not out.replaces
    assert out.staging_path.parent == tmp_path / "a"
    assert out.staging_path.name.startswith(".out.dlqhandler-")
    (out.staging_path / "manifest.json").write_text("{}")
    out.commit()
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["out"]
    assert (tmp_path / "a" / "out" / "manifest.json").read_text() == "{}"


def test_output_dir_non_empty_is_refused_unless_overwrite(tmp_path: Path) -> None:
    """A non-empty directory is refused with what to do; --overwrite replaces it
    whole (no file of the old run survives), an empty one is reused."""
    target = tmp_path / "out"
    target.mkdir()
    (target / "q-OLD@LOCAL.dmp").write_text("old")
    with pytest.raises(ConfigError, match=r"not empty.*--overwrite"):
        check_output_dir(str(target))
    assert not [p for p in tmp_path.iterdir() if p.name != "out"]  # nothing staged
    out = check_output_dir(str(target), overwrite=True)
    assert out.replaces
    (out.staging_path / "q-NEW@LOCAL.dmp").write_text("new")
    out.commit()
    assert sorted(p.name for p in target.iterdir()) == ["q-NEW@LOCAL.dmp"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    empty = tmp_path / "empty"
    empty.mkdir()
    check_output_dir(str(empty)).commit()
    assert empty.is_dir()


def test_output_dir_refuses_files_and_uncreatable_paths(tmp_path: Path) -> None:
    """An existing file, a file on the way and an uncreatable path are refused."""
    file = tmp_path / "f"
    file.write_text("x")
    with pytest.raises(ConfigError, match="exists and is not a directory"):
        check_output_dir(str(file))
    with pytest.raises(ConfigError, match="is not a directory"):
        check_output_dir(str(file / "sub" / "out"))
    with pytest.raises(ConfigError, match="cannot create"):
        check_output_dir("/proc/dlqhandler-test/out")
    with pytest.raises(ConfigError, match="below /"):
        check_output_dir("/")


def test_output_dir_discard_removes_the_staging(tmp_path: Path) -> None:
    """discard (an interrupted run) leaves no trace beside the target."""
    out = check_output_dir(str(tmp_path / "out"))
    (out.staging_path / "_snapshot").mkdir()
    out.discard()
    assert os.listdir(tmp_path) == []


def test_local_join_writes_each_target_whole_in_part_order_and_consumes_the_parts(
    tmp_path: Path,
) -> None:
    """The local join (parts copied to their offsets by a thread per core, largest first)
    gives each target dmpmqmsg's header and its parts in the order given, whatever order
    the copies finish in; a CRLF part gets a CRLF header; every part is removed once
    copied, no temporary file is left, and the sizes returned are the files' own."""
    from dlqhandler.formats import read_dump
    from dlqhandler.spark.files import LocalFiles

    parts_dir = tmp_path / "parts"
    parts_dir.mkdir()
    contents: dict[str, list[bytes]] = {
        "q-A@LOCAL.dmp": [b"A0" * 10, b"A1" * 300_000, b"", b"A3" * 7],
        "q-B@LOCAL.dmp": [b"B0" * 5_000_000],
        "q-C@LOCAL.dmp": [b"C0\r\n" * 3, b"C1" * 2],
    }
    targets = []
    for name, chunks in contents.items():
        paths = []
        for i, chunk in enumerate(chunks):
            part = parts_dir / f"{name}.{i}"
            part.write_bytes(chunk)
            paths.append(str(part))
        targets.append((name, paths))
    out = LocalFiles(tmp_path / "out")
    out.mkdirs()
    sizes = out.join(targets)
    header_lf = b""
    for (name, chunks), size in zip(contents.items(), sizes, strict=True):
        data = (tmp_path / "out" / name).read_bytes()
        assert size == len(data)
        body = b"".join(chunks)
        assert data.endswith(body)
        header = data[: len(data) - len(body)]
        assert header.startswith(b"*")
        assert (b"\r\n" in header) == name.startswith("q-C")
        header_lf = header_lf or header
    assert not list(parts_dir.iterdir())
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(contents)
    (tmp_path / "h.dmp").write_bytes(header_lf)
    assert list(read_dump(tmp_path / "h.dmp")) == []  # the header alone is an empty dump
