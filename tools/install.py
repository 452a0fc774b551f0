"""Install the course into the venv whose Python runs this: with uv when it can, else with pip.

    .venv/bin/python tools/install.py [EXTRAS]        (make runs it; EXTRAS defaults to "test")

Both installers read constraints.txt, so the versions we test are the versions a learner gets. uv is
taken from the venv, else from the PATH, else UV_VERSION's binary is taken from its wheel on PyPI (hash
checked), else pip installs `uv==UV_VERSION` into the venv (through the indexes pip is configured with).
The venv is made --without-pip (ensurepip's compiling is slow); it gets pip from uv, or, when uv is not
to be had, from the Python's bundled pip wheel.
uv does not read pip's configuration, so the indexes, find-links, constraints and certificate that pip
is configured with (pip.conf, PIP_* variables) are handed to uv as options. When uv cannot run, or
fails, one line says so and pip installs the same things. COURSE_INSTALLER=pip skips uv.
"""
from __future__ import annotations

import hashlib
import importlib.util
import io
import json
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
import urllib.request
import zipfile
from pathlib import Path

UV_VERSION = "0.13.8"
PROJECT = Path(__file__).resolve().parent.parent
CONSTRAINTS = PROJECT / "constraints.txt"
BIN = Path(sys.executable).parent


def pip_config() -> dict[str, str]:
    """pip's settings as `pip config list` shows them: the environment beats [install] beats [global]."""
    try:
        out = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True,
                             timeout=60, env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}).stdout
    except (OSError, subprocess.TimeoutExpired):
        return {}
    rank = {"global": 0, "install": 1, ":env:": 2}
    found: dict[str, tuple[int, str]] = {}
    for line in out.splitlines():
        key, sep, value = line.partition("=")
        section, _, name = key.rpartition(".")
        if not sep or section not in rank:
            continue
        value = value.strip().strip("'\"")
        if name not in found or rank[section] >= found[name][0]:
            found[name] = (rank[section], value)
    return {name: value for name, (_, value) in found.items()}


def uv_options(config: dict[str, str]) -> tuple[list[str], dict[str, str]]:
    """The uv options and environment that make uv see the packages pip is configured to see."""
    args: list[str] = []
    env: dict[str, str] = {}
    many = lambda name: config.get(name, "").split()  # noqa: E731 - pip lists are whitespace-separated
    if config.get("index-url"):
        args += ["--default-index", config["index-url"]]
    for url in many("extra-index-url"):
        args += ["--index", url]
    if many("extra-index-url"):
        # pip takes the best version from all its indexes together; uv's default stops at the first
        # index that has the package, which a partial local mirror would turn into "not found".
        args += ["--index-strategy", "unsafe-best-match"]
    for where in many("find-links"):
        args += ["--find-links", where]
    for path in many("constraint"):
        args += ["--constraint", path]
    for host in many("trusted-host"):
        args += ["--allow-insecure-host", host]
    if config.get("no-index", "").lower() in {"1", "true", "yes", "on"}:
        args.append("--no-index")
    if config.get("cert") and "SSL_CERT_FILE" not in os.environ:
        env["SSL_CERT_FILE"] = config["cert"]
    if config.get("timeout") or config.get("default-timeout"):
        env.setdefault("UV_HTTP_TIMEOUT", config.get("timeout") or config["default-timeout"])
    return args, env


def runs(uv: str) -> bool:
    try:
        return subprocess.run([uv, "--version"], capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def has_pip() -> bool:
    importlib.invalidate_caches()  # pip may have been installed since this process looked
    return importlib.util.find_spec("pip") is not None


def bundled_pip_wheel() -> Path | None:
    """The pip wheel this Python's ensurepip would install (its own, or the OS's, as on Debian)."""
    try:
        import ensurepip
    except ImportError:
        return None
    places = [Path(ensurepip.__file__).parent / "_bundled", Path(sysconfig.get_config_var("WHEEL_PKG_DIR") or "/-")]
    wheels = [wheel for place in places if place.is_dir() for wheel in place.glob("pip-*-py3-none-any.whl")]
    version = lambda wheel: tuple(int(part) for part in re.findall(r"\d+", wheel.name.split("-")[1]))  # noqa: E731
    return max(wheels, key=version, default=None)


def pip_into_venv(*extra: str) -> subprocess.CompletedProcess:
    """pip (and `extra`) into a venv made --without-pip, by the pip of the bundled wheel.

    `python -m venv` would do the same through ensurepip, but it compiles every file of pip (and, on 3.11,
    setuptools) first: 4 s on an idle 2-core machine, 10 s on a busy one. Unzipped, the wheel's pip runs
    as it is and installs itself (and uv) without compiling. Without a bundled wheel: ensurepip.
    """
    wheel = bundled_pip_wheel()
    if wheel is None:
        return subprocess.run([sys.executable, "-m", "ensurepip", "--default-pip"], capture_output=True, text=True)
    with tempfile.TemporaryDirectory() as unpacked:
        with zipfile.ZipFile(wheel) as archive:  # pip/ only: beside its .dist-info it would skip itself
            archive.extractall(unpacked, [name for name in archive.namelist() if name.startswith("pip/")])
        return subprocess.run(
            [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-compile",
             str(wheel), *extra], capture_output=True, text=True,
            env={**os.environ, "PYTHONPATH": unpacked, "PYTHONDONTWRITEBYTECODE": "1"})


def uv_version(uv: str) -> tuple[int, ...]:
    out = subprocess.run([uv, "--version"], capture_output=True, text=True, timeout=30).stdout
    found = re.search(r"(\d+)\.(\d+)\.(\d+)", out)
    return tuple(int(part) for part in found.groups()) if found else (0,)


def wheel_fits(name: str) -> bool:
    """Whether a uv wheel's platform tag runs on this machine (Linux with glibc, or macOS)."""
    machine = platform.machine().lower()
    arch = {"amd64": "x86_64", "arm64": "aarch64" if sys.platform.startswith("linux") else "arm64"}.get(machine,
                                                                                                     machine)
    if sys.platform.startswith("linux"):
        libc, version = platform.libc_ver()
        found = re.search(rf"manylinux_(\d+)_(\d+)_{arch}\b", name)
        have = tuple(int(part) for part in version.split(".")[:2]) if libc == "glibc" and version else None
        return bool(found and have and (int(found.group(1)), int(found.group(2))) <= have)
    if sys.platform == "darwin":
        return bool(re.search(rf"macosx_\d+_\d+_({arch}|universal2)\b", name))
    return False


def download_uv(timeout: float = 60) -> bool:
    """uv's binary from PyPI's wheel, hash checked, into the venv's bin/, without pip: a pip that must
    first be put into the venv costs 2 s on an idle machine and 7-9 s on a busy one. False if anything
    is missing or fails (no such wheel, PyPI unreachable): then pip installs uv as usual."""
    try:
        request = urllib.request.Request("https://pypi.org/simple/uv/",
                                         headers={"Accept": "application/vnd.pypi.simple.v1+json"})
        with urllib.request.urlopen(request, timeout=timeout) as response:
            files = json.load(response)["files"]
        wheel = next(file for file in files if file["filename"].startswith(f"uv-{UV_VERSION}-")
                     and file["filename"].endswith(".whl") and wheel_fits(file["filename"])
                     and not file.get("yanked"))
        with urllib.request.urlopen(wheel["url"], timeout=timeout) as response:
            data = response.read()
        if hashlib.sha256(data).hexdigest() != wheel["hashes"]["sha256"]:
            return False
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            binary = archive.read(f"uv-{UV_VERSION}.data/scripts/uv")
        partial = BIN / "uv.partial"
        partial.write_bytes(binary)
        partial.chmod(0o755)
        partial.replace(BIN / "uv")
        return runs(str(BIN / "uv"))
    except (OSError, ValueError, KeyError, StopIteration, zipfile.BadZipFile):
        return False


def find_uv() -> tuple[str | None, str]:
    """A uv that runs, and if there is none, why."""
    mine = BIN / "uv"
    if mine.exists() and runs(str(mine)):
        return str(mine), ""
    on_path = shutil.which("uv")
    if on_path and runs(on_path) and uv_version(on_path) >= (0, 5):  # older ones lack options we pass
        return on_path, ""
    started = time.monotonic()
    if not has_pip() and download_uv():
        print(f"uv {UV_VERSION} put into the venv from its wheel on PyPI ({time.monotonic() - started:.0f} s).")
        return str(mine), ""
    if has_pip():
        result = subprocess.run(
            [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", f"uv=={UV_VERSION}"],
            capture_output=True, text=True)
    else:
        result = pip_into_venv(f"uv=={UV_VERSION}")
    if result.returncode == 0 and mine.exists() and runs(str(mine)):
        print(f"uv {UV_VERSION} installed into the venv with pip ({time.monotonic() - started:.0f} s).")
        return str(mine), ""
    lines = (result.stderr or result.stdout).strip().splitlines()
    why = lines[-1] if lines else "it was installed but does not run here"
    return None, f"no uv runs here: none on the PATH, and uv {UV_VERSION} from pip: {why}"


def main(argv: list[str]) -> int:
    target = f"{PROJECT}[{argv[0] if argv else 'test'}]"
    started = time.monotonic()
    if os.environ.get("COURSE_INSTALLER", "").lower() == "pip":
        uv, why = None, "COURSE_INSTALLER=pip"
    else:
        uv, why = find_uv()
    if uv:
        args, env = uv_options(pip_config())
        command = [uv, "pip", "install", "--quiet", "--python", sys.executable, "--constraint", str(CONSTRAINTS),
                   *args, "--editable", target]
        result = subprocess.run(command, env={**os.environ, **env})
        if result.returncode == 0 and not has_pip():
            # The venv was made without pip: give it one (for `%pip` in a notebook, and for `make lock`).
            result = subprocess.run([uv, "pip", "install", "--quiet", "--python", sys.executable, "pip", *args],
                                    env={**os.environ, **env})
        if result.returncode == 0:
            print(f"Installed with uv in {time.monotonic() - started:.0f} s (versions from constraints.txt).")
            return 0
        why = f"`{shlex.join(command[:3])} ...` failed with exit code {result.returncode}"
    print(f"Installing with pip instead of uv ({why}); this can take a few minutes.", flush=True)
    started = time.monotonic()
    if not has_pip():
        made = pip_into_venv()
        if made.returncode != 0:
            print((made.stderr or made.stdout).strip(), file=sys.stderr)
            print("No pip for the venv either: on Debian or Ubuntu, `apt-get install python3-venv` gives one.")
            return made.returncode
    result = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                             "--constraint", str(CONSTRAINTS), "--editable", target])
    if result.returncode == 0:
        print(f"Installed with pip in {time.monotonic() - started:.0f} s (versions from constraints.txt).")
    return result.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
