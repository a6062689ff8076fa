"""What the browser tests share: Debian's chromium driven by Playwright, a folder served
on 127.0.0.1, and JupyterLab started on 127.0.0.1 and stopped with every kernel it started.

Playwright cannot download its own browsers here, so every test launches the Debian
package's executable. Where chromium (or another prerequisite that ``./run test``
installs) is missing, a test is skipped on a developer's machine but fails in CI
(``CI`` set): a green CI must never hide a browser test that did not run.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import shutil
import socket
import subprocess
import threading
import time
import urllib.request
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import psutil

from tests.needs import require

CHROMIUM = "/usr/bin/chromium"
#: As root and on a closed network: no sandbox of chromium's own (the test's processes are
#: the sandbox), no GPU, and none of the background connections that the network refuses.
CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)


def launch_chromium(playwright: Any) -> Any:
    """Debian's chromium, launched headless by Playwright."""
    require(
        Path(CHROMIUM).exists() or shutil.which("chromium") is not None,
        "needs Debian's chromium",
    )
    executable = CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")
    return playwright.chromium.launch(executable_path=executable, args=list(CHROMIUM_ARGS))


@contextlib.contextmanager
def serve_folder(folder: Path) -> Iterator[str]:
    """Serve *folder* over HTTP on 127.0.0.1 (a free port, quietly); yield its URL."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

    handler = functools.partial(Quiet, directory=str(folder))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def stop_process_tree(process: subprocess.Popen) -> None:
    """Stop *process* and every process it started (JupyterLab's kernels included)."""
    try:
        family = [psutil.Process(process.pid), *psutil.Process(process.pid).children(True)]
    except psutil.NoSuchProcess:
        family = []
    for proc in family:
        with contextlib.suppress(psutil.NoSuchProcess):
            proc.terminate()
    _, alive = psutil.wait_procs(family, timeout=15)
    for proc in alive:
        with contextlib.suppress(psutil.NoSuchProcess):
            proc.kill()
    psutil.wait_procs(alive, timeout=5)


@contextlib.contextmanager
def jupyterlab_server(
    command: Sequence[str],
    *,
    cwd: Path,
    env: dict[str, str],
    log_path: Path,
    token: str = "",
    timeout: float = 180.0,
) -> Iterator[str]:
    """Run ``command`` (a JupyterLab start) on a free port of 127.0.0.1; yield its URL.

    The server is given ``--no-browser``, the address, the port and the token; its output
    goes to *log_path*. On exit it is stopped with every kernel it started.
    """
    port = free_port()
    arguments = [
        *command,
        "--no-browser",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        # CI runs as root; a student does not (JupyterLab refuses root without it).
        *(["--allow-root"] if os.geteuid() == 0 else []),
    ]
    with log_path.open("w") as log:
        process = subprocess.Popen(
            arguments,
            cwd=cwd,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=5):
                    break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(
                        f"JupyterLab did not start:\n{log_path.read_text()[-3000:]}"
                    ) from None
                time.sleep(0.5)
        yield url
    finally:
        stop_process_tree(process)
