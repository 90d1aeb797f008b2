"""Open a page in headless Chromium and watch it through the DevTools protocol.

Chromium is started with ``--remote-debugging-pipe``: it reads protocol commands on
file descriptor 3 and writes replies and events on 4, NUL-terminated JSON, so no
websocket client and no TCP port is needed. :func:`load_page` records every network
request, console message, log entry and exception of the page, evaluates an
expression, and takes a full-page screenshot.
"""

from __future__ import annotations

import base64
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.required import CHROMIUM

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-default-apps",
    "--mute-audio",
    "--hide-scrollbars",
)


def chromium() -> str | None:
    """The Chromium executable on PATH (Debian's ``chromium``), or None."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


def require_chromium() -> None:
    """Skip when chromium is missing, unless ``$DLQHANDLER_REQUIRE_CHROMIUM`` is set (as
    ``.ci/run`` does after installing it): then the test fails."""
    CHROMIUM.tool("chromium", "chromium-browser")  # see tests.required


@dataclass
class PageLoad:
    """What the browser saw while loading one page."""

    requests: list[str] = field(default_factory=list)
    console: list[str] = field(default_factory=list)  # console errors and warnings
    errors: list[str] = field(default_factory=list)  # exceptions, error log entries
    value: Any = None
    screenshot: bytes = b""


class _Pipe:
    def __init__(self, proc: subprocess.Popen[bytes], write_fd: int, read_fd: int) -> None:
        self.proc, self.write_fd, self.read_fd = proc, write_fd, read_fd
        self.buffer = b""
        self.next_id = 0
        self.events: list[dict[str, Any]] = []

    def _read_message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no answer from chromium")
            ready, _, _ = select.select([self.read_fd], [], [], left)
            if ready:
                chunk = os.read(self.read_fd, 1 << 16)
                if not chunk:
                    raise RuntimeError("chromium closed the debugging pipe")
                self.buffer += chunk
        raw, self.buffer = self.buffer.split(b"\0", 1)
        message: dict[str, Any] = json.loads(raw)
        return message

    def call(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        session: str | None = None,
        timeout: float = 60,
    ) -> dict[str, Any]:
        self.next_id += 1
        msg: dict[str, Any] = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.write_fd, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                result: dict[str, Any] = reply.get("result", {})
                return result
            self.events.append(reply)

    def wait_for(self, method: str, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while not any(e.get("method") == method for e in self.events):
            self.events.append(self._read_message(deadline))


def _dup_pipes(read_end: int, write_end: int) -> None:  # runs in the child
    high_r, high_w = os.dup(read_end), os.dup(write_end)  # out of the way of 3 and 4
    os.dup2(high_r, 3)
    os.dup2(high_w, 4)


def load_page(
    url: str, expression: str, *, width: int = 1100, top: int = 0, max_height: int = 20000
) -> PageLoad:
    """Load ``url`` in a fresh headless Chromium profile and report what happened; the
    screenshot shows the page from ``top`` down, at most ``max_height`` pixels."""
    exe = chromium()
    assert exe is not None, "chromium is not installed"
    to_child_r, to_child_w = os.pipe()
    from_child_r, from_child_w = os.pipe()
    with tempfile.TemporaryDirectory(prefix="cdp-profile-") as profile:
        proc = subprocess.Popen(
            [exe, *FLAGS, f"--user-data-dir={profile}", "--remote-debugging-pipe", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            close_fds=False,
            preexec_fn=lambda: _dup_pipes(to_child_r, from_child_w),  # noqa: PLW1509
        )
        os.close(to_child_r)
        os.close(from_child_w)
        pipe = _Pipe(proc, to_child_w, from_child_r)
        try:
            return _drive(pipe, url, expression, (width, top, max_height))
        finally:
            try:
                pipe.call("Browser.close", timeout=10)
            except (RuntimeError, TimeoutError, OSError):
                proc.kill()
            proc.wait(timeout=30)
            os.close(to_child_w)
            os.close(from_child_r)


def _drive(pipe: _Pipe, url: str, expression: str, box: tuple[int, int, int]) -> PageLoad:
    width, top, max_height = box
    target = pipe.call("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = pipe.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    for domain in ("Page", "Runtime", "Log", "Network"):
        pipe.call(f"{domain}.enable", session=session)
    pipe.call(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": False},
        session=session,
    )
    pipe.events.clear()
    pipe.call("Page.navigate", {"url": url}, session=session)
    pipe.wait_for("Page.loadEventFired")
    load = PageLoad()
    load.value = pipe.call(
        "Runtime.evaluate", {"expression": expression, "returnByValue": True}, session=session
    )["result"].get("value")
    size = pipe.call("Page.getLayoutMetrics", session=session)["cssContentSize"]
    shot = pipe.call(
        "Page.captureScreenshot",
        {
            "format": "png",
            "captureBeyondViewport": True,
            "clip": {
                "x": 0,
                "y": top,
                "width": width,
                "height": min(size["height"] - top, max_height),
                "scale": 1,
            },
        },
        session=session,
    )
    load.screenshot = base64.b64decode(shot["data"])
    for e in pipe.events:
        method, params = e.get("method"), e.get("params", {})
        if method == "Network.requestWillBeSent":
            load.requests.append(params["request"]["url"])
        elif method == "Runtime.consoleAPICalled" and params["type"] in (
            "error",
            "warning",
            "assert",
        ):
            load.console.append(
                " ".join(str(a.get("value", a.get("description", ""))) for a in params["args"])
            )
        elif method == "Runtime.exceptionThrown":
            load.errors.append(json.dumps(params["exceptionDetails"])[:500])
        elif method == "Log.entryAdded" and params["entry"]["level"] in ("error", "warning"):
            load.errors.append(params["entry"]["text"])
        elif method == "Network.loadingFailed":
            load.errors.append(f"request failed: {params.get('errorText')}")
    return load


def save_screenshot(load: PageLoad, path: Path) -> Path:
    """Write the screenshot; also to ``$DLQHANDLER_SCREENSHOT_DIR`` when set."""
    path.write_bytes(load.screenshot)
    extra = os.environ.get("DLQHANDLER_SCREENSHOT_DIR")
    if extra:
        Path(extra).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, Path(extra) / path.name)
    return path
