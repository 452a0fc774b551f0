"""Lab 10's widget where students see it: JupyterLab in a real headless browser.

The test starts its own JupyterLab (127.0.0.1, a token, config folders of its own) on a copy of
labs/10_littles_law.ipynb, opens it in Chromium driven by Playwright, runs every cell, and checks that
the saturation widget renders its sliders, its readout and its plot — and that moving the workers slider
redraws them. It saves a screenshot to artifacts/browser/lab10_widget.png.

Chromium comes from the operating system (`apt-get install -y chromium` on Debian/Ubuntu, as root):
no PyPI package ships a browser, and Playwright's own browser download is not used. Without it, the test
is skipped with one line saying so.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAB = ROOT / "labs" / "10_littles_law.ipynb"
ARTIFACTS = ROOT / "artifacts" / "browser"
CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
RUN_ALL_TIMEOUT_S = 480  # the lab runs real workers for ~20 s; a loaded machine may take several times that

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="browser test skipped: no Chromium (install it with `apt-get install -y chromium`)")
sync_api = pytest.importorskip("playwright.sync_api", reason="browser test skipped: playwright is not installed")

# What JupyterLab must not do in a test: ask about news, or detach cells that are out of view.
LAB_SETTINGS = {
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false",
                                                                        "checkForUpdates": False},
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
}

KERNEL_STATE = """() => {
  const panel = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  const kernel = panel && panel.sessionContext && panel.sessionContext.session
                 && panel.sessionContext.session.kernel;
  if (!kernel || !panel.content) return null;
  const cells = panel.content.widgets.filter(cell => cell.model.type === 'code');
  const errors = [];
  for (const cell of cells) {
    for (const output of cell.model.outputs.toJSON()) {
      if (output.output_type === 'error') errors.push(output.ename + ': ' + output.evalue);
    }
  }
  return {status: kernel.status, code: cells.length,
          executed: cells.filter(cell => cell.model.executionCount !== null).length, errors};
}"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def jupyterlab(tmp_path):
    """A JupyterLab of our own on a copy of lab 10; stopped (with everything it started) at the end."""
    work = tmp_path / "work"
    work.mkdir()
    shutil.copy(LAB, work / LAB.name)
    config = tmp_path / "config"
    for relative, values in LAB_SETTINGS.items():
        path = config / "lab-settings" / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    env = {**os.environ,
           "JUPYTER_CONFIG_DIR": str(config / "jupyter"), "JUPYTER_DATA_DIR": str(config / "data"),
           "JUPYTER_RUNTIME_DIR": str(config / "runtime"),
           "JUPYTERLAB_SETTINGS_DIR": str(config / "lab-settings"),
           "JUPYTERLAB_WORKSPACES_DIR": str(config / "workspaces"),
           "IPYTHONDIR": str(config / "ipython"), "MPLCONFIGDIR": str(config / "matplotlib"),
           "COURSE_PROGRESS_FILE": str(tmp_path / "progress.json")}
    port, token = free_port(), secrets.token_hex(16)
    argv = [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--expose-app-in-browser",
            "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={work}"]
    if os.geteuid() == 0:
        argv.append("--allow-root")
    log = tmp_path / "jupyterlab.log"
    with open(log, "wb") as log_file:
        # A session of its own: the kernel and the lab's workers are in its process group, so the
        # clean-up below can reach whatever the lab started, and nothing else.
        server = subprocess.Popen(argv, env=env, cwd=work, stdout=log_file, stderr=subprocess.STDOUT,
                                  stdin=subprocess.DEVNULL, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_for_server(server, f"{base}/api/status?token={token}", log)
        yield f"{base}/lab/tree/{LAB.name}?token={token}"
    finally:
        _stop(server)


def _wait_for_server(server: subprocess.Popen, url: str, log: Path, timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"JupyterLab exited with code {server.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2) as reply:
                if reply.status == 200:
                    return
        except OSError:
            time.sleep(0.25)
    pytest.fail(f"JupyterLab did not answer within {timeout:g} s:\n{log.read_text()[-3000:]}")


def _stop(server: subprocess.Popen) -> None:
    """SIGTERM to JupyterLab (it shuts its kernels down), then to anything left in its process group."""
    if server.poll() is None:
        server.send_signal(signal.SIGINT)  # jupyter's clean shutdown: kernels are asked to stop first
        try:
            server.wait(20)
        except subprocess.TimeoutExpired:
            server.terminate()
            try:
                server.wait(10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait(10)
    try:
        os.killpg(server.pid, signal.SIGKILL)  # a kernel or worker that outlived the server
    except ProcessLookupError:
        pass


def _run_all_and_wait(page) -> dict:
    page.wait_for_function(f"() => {{ const s = ({KERNEL_STATE})(); return s && s.status === 'idle'; }}",
                           timeout=120_000)
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
    deadline = time.monotonic() + RUN_ALL_TIMEOUT_S
    state = None
    while time.monotonic() < deadline:
        state = page.evaluate(KERNEL_STATE)
        assert not state["errors"], f"a cell raised in the browser: {state['errors']}"
        if state["status"] == "idle" and state["executed"] == state["code"]:
            return state
        time.sleep(1.0)
    pytest.fail(f"the lab did not finish running within {RUN_ALL_TIMEOUT_S} s: {state}")


@pytest.mark.timeout(900)
def test_lab_10_runs_in_jupyterlab_and_its_widget_renders_and_responds(jupyterlab):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1400})
            page.goto(jupyterlab, wait_until="domcontentloaded")
            state = _run_all_and_wait(page)
            assert state["code"] > 10

            # The widget: three sliders, the readout line, and a plot, all inside the widget's outputs.
            widget = page.locator(".jupyter-widgets.widget-vbox").filter(has=page.locator(".widget-slider")).first
            widget.scroll_into_view_if_needed()
            assert widget.locator(".widget-slider").count() == 3
            readout = widget.locator(".widget-output").filter(has_text="c = 50 workers")
            readout.wait_for(timeout=60_000)
            assert "ρ = 0.88" in readout.inner_text()
            picture = widget.locator(".widget-output .jp-RenderedImage img").first
            picture.wait_for(timeout=60_000)
            assert page.evaluate("(img) => img.naturalWidth > 300 && img.complete", picture.element_handle())
            before = picture.get_attribute("src")

            # Five workers fewer, from the keyboard: the readout and the plot follow the slider.
            handle = widget.locator(".widget-slider").nth(2).locator(".noUi-handle")
            handle.focus()
            for _ in range(5):
                handle.press("ArrowLeft")
            widget.locator(".widget-output").filter(has_text="c = 45 workers").wait_for(timeout=60_000)
            assert "ρ = 0.98" in widget.locator(".widget-output").filter(has_text="c = 45 workers").inner_text()
            # Each key press redraws; done when the kernel is idle and the last plot has loaded.
            page.wait_for_function(
                f"(old) => {{ const s = ({KERNEL_STATE})(); const img = document.querySelector("
                "'.widget-output .jp-RenderedImage img'); return s && s.status === 'idle' && img && "
                "img.src !== old && img.complete && img.naturalWidth > 300; }", arg=before, timeout=60_000)
            widget.scroll_into_view_if_needed()
            page.screenshot(path=str(ARTIFACTS / "lab10_widget.png"))
        finally:
            browser.close()
    assert (ARTIFACTS / "lab10_widget.png").stat().st_size > 10_000
