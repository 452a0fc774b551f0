"""constraints.txt: pin what is installed now, keep the pins made for other Pythons, check every Python.

    .venv/bin/python tools/lock.py            (make lock) write constraints.txt from this venv
    .venv/bin/python tools/lock.py --check    only resolve constraints.txt for every supported Python

A pin with an environment marker (`soupsieve==2.10; python_full_version < "3.11.5"`) stands for the
Pythons that the tested version cannot serve. Locking keeps such a line when its marker is false here,
and updates its version when its marker is true here. Then constraints.txt is resolved with uv for each
Python in SUPPORTED, wheels only (a learner has no compiler), so a pin that excludes a supported Python
fails here and in tests/test_constraints.py, not in a learner's first `make lab`.
"""
from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
CONSTRAINTS = PROJECT / "constraints.txt"
# The oldest Python pyproject.toml allows, each minor since, and the newest released one.
SUPPORTED = ["3.11.0", "3.11.4", "3.12.0", "3.13.0", "3.14.0", "3.15.0"]
# Linux x86_64 (glibc 2.28 and newer) and macOS on Apple silicon. Not Intel macOS: argon2-cffi-bindings
# (under jupyter_server) ships no wheel for it, so a Mac with Intel builds that one from source.
PLATFORMS = ["x86_64-manylinux_2_28", "aarch64-apple-darwin"]
NOT_LOCKED = {"course", "uv", "pip", "setuptools", "wheel"}


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def parse(line: str) -> tuple[str, str, str, str] | None:
    """(name, version, marker, comment) of a `name==version[; marker]  [# comment]` line, else None."""
    body, _, comment = line.partition(" #")
    requirement, _, marker = body.partition(";")
    name, sep, version = requirement.strip().partition("==")
    if not sep or not name or name.startswith("#"):
        return None
    return name.strip(), version.strip(), marker.strip(), comment.strip()


def merge(old_text: str, frozen: list[str], holds) -> str:
    """The new constraints: `frozen` pins, with the old file's header and its marked lines kept.

    `holds(marker)` says whether a marker is true for the Python that made `frozen`.
    """
    header = [line for line in old_text.splitlines() if line.startswith("#")]
    marked: dict[str, list[tuple[str, str, str, str]]] = {}
    for line in old_text.splitlines():
        pin = parse(line)
        if pin and pin[2]:
            marked.setdefault(canonical(pin[0]), []).append(pin)
    lines = list(header)
    for line in sorted(frozen, key=str.lower):  # as pip freeze orders them
        pin = parse(line)
        if pin is None or canonical(pin[0]) in NOT_LOCKED:
            continue
        name, version, _, _ = pin
        for old_name, old_version, marker, comment in marked.get(canonical(name), [(name, version, "", "")]):
            text = f"{name}=={version if not marker or holds(marker) else old_version}"
            text += f"; {marker}" if marker else ""
            text += f"  # {comment}" if comment else ""
            lines.append(text)
    return "\n".join(lines) + "\n"


def uv() -> str:
    mine = Path(sys.executable).parent / "uv"
    found = str(mine) if mine.exists() else shutil.which("uv")
    if not found:
        raise SystemExit("uv is needed to check the lock: .venv/bin/python -m pip install uv")
    return found


@functools.lru_cache(maxsize=1)
def uv_index_options():
    """The indexes pip is configured with, as uv options (tools/install.py)."""
    sys.path.insert(0, str(Path(__file__).parent))
    from install import pip_config, uv_options

    return uv_options(pip_config())


def resolve(python_version: str, platform: str = PLATFORMS[0], constraints: Path = CONSTRAINTS):
    """uv's resolution of the course with every extra under `constraints`, for one Python: wheels only."""
    args, env = uv_index_options()
    return subprocess.run(
        [uv(), "pip", "compile", "--quiet", "--no-header", "--no-annotate", str(PROJECT / "pyproject.toml"),
         "--all-extras", "--constraint", str(constraints), "--python-version", python_version,
         "--python-platform", platform, "--only-binary", ":all:", "--no-python-downloads",
         "--python", sys.executable,  # else uv searches the PATH for that Python, or downloads one
         *args],
        capture_output=True, text=True, timeout=300, env={**os.environ, **env}, cwd=PROJECT)


def check(constraints: Path = CONSTRAINTS) -> list[str]:
    """One line per Python and platform for which `constraints` cannot be installed from wheels."""
    targets = [(version, platform) for version in SUPPORTED for platform in PLATFORMS]
    # One after another: side by side, the uv processes wait on each other's cache locks and take longer.
    results = [resolve(version, platform, constraints) for version, platform in targets]
    failures = []
    for (version, platform), result in zip(targets, results):
        if result.returncode != 0:
            why = " ".join(line.strip() for line in result.stderr.strip().splitlines()[:4])
            failures.append(f"Python {version} on {platform}: {why}")
    return failures


def main(argv: list[str]) -> int:
    if argv == ["--check"]:
        failures = check()
        print("\n".join(failures) or f"constraints.txt resolves for Python {', '.join(SUPPORTED)}"
                                      f" on {' and '.join(PLATFORMS)}.")
        return 1 if failures else 0
    from packaging.markers import Marker

    frozen = subprocess.run([sys.executable, "-m", "pip", "freeze", "--exclude-editable",
                             "--disable-pip-version-check"], capture_output=True, text=True, check=True).stdout
    new = CONSTRAINTS.with_name("constraints.txt.new")
    new.write_text(merge(CONSTRAINTS.read_text(), frozen.splitlines(), lambda marker: Marker(marker).evaluate()))
    failures = check(new)
    if failures:
        print("Not locked: the new pins in constraints.txt.new exclude a supported Python; add a pin with a"
              " marker for it there, or keep the old version:\n" + "\n".join(failures))
        return 1
    new.replace(CONSTRAINTS)
    print(f"constraints.txt: the versions installed now, checked for Python {', '.join(SUPPORTED)}.")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
