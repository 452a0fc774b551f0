"""Time what a learner waits for: `git clone` -> `make lab` -> JupyterLab answering with lab 00.

    python3 tools/time_first_run.py                  cold (fresh clone, new venv) and warm (second run)
    python3 tools/time_first_run.py --installer pip  the same with the pip fallback (COURSE_INSTALLER=pip)
    python3 tools/time_first_run.py --empty-uv-cache uv with an empty cache of its own (every wheel fetched)
    python3 tools/time_first_run.py --install-only   clone -> the install step that `make test` runs first

(`make time-first-run` runs the first.) It clones this checkout's HEAD into a temporary folder, runs
`make lab` there, and stops the clock when an HTTP GET of the URL `make lab` prints (lab 00) returns 200.
Then it stops that JupyterLab and its database, and removes the clone unless --keep.
"""
from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
URL = re.compile(r"JupyterLab at lab 00 = (http://\S+)")


def answers(url: str) -> bool:
    try:
        with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(url, timeout=5) as response:
            return response.status == 200 and b"JupyterLab" in response.read()
    except OSError:
        return False


def lab(clone: Path, env: dict[str, str], python: str, log: Path, timeout: float) -> float:
    """Seconds from `make lab` to lab 00 answering 200; the lab is stopped before returning."""
    started = time.monotonic()
    with log.open("w") as out:
        make = subprocess.Popen(["make", "lab", f"PYTHON={python}"], cwd=clone, env=env, stdout=out,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        while time.monotonic() - started < timeout:
            found = URL.search(log.read_text())
            if found and answers(found.group(1)):
                return time.monotonic() - started
            if make.poll() is not None:
                raise SystemExit(f"make lab stopped (exit {make.returncode}) before lab 00 answered:\n"
                                 + log.read_text()[-3000:])
            time.sleep(0.2)
        raise SystemExit(f"lab 00 did not answer in {timeout:.0f} s:\n" + log.read_text()[-3000:])
    finally:
        if make.poll() is None:
            os.killpg(make.pid, signal.SIGTERM)  # the group we started: make, python -m course lab, JupyterLab
            try:
                make.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(make.pid, signal.SIGKILL)
                make.wait()


def main(argv: list[str] | None = None) -> int:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--installer", choices=["uv", "pip"], default="uv")
    options.add_argument("--empty-uv-cache", action="store_true")
    options.add_argument("--install-only", action="store_true", help="time clone -> the install step only")
    options.add_argument("--python", default=os.environ.get("PYTHON", "python3"))
    options.add_argument("--source", default=str(PROJECT), help="the repository to clone (its HEAD)")
    options.add_argument("--keep", action="store_true", help="keep the clone")
    options.add_argument("--timeout", type=float, default=900)
    args = options.parse_args(argv)

    workdir = Path(tempfile.mkdtemp(prefix="course-first-run-"))
    clone = workdir / "course"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "COURSE_"))}
    env.pop("DATABASE_URL", None)
    if args.installer == "pip":
        env["COURSE_INSTALLER"] = "pip"
    if args.empty_uv_cache:
        env["UV_CACHE_DIR"] = str(workdir / "uv-cache")
    label = f"{args.installer}{', empty uv cache' if args.empty_uv_cache else ''}, {args.python}"
    started = time.monotonic()
    try:
        subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", args.source, str(clone)], check=True)
        cloned = time.monotonic() - started
        if args.install_only:
            subprocess.run(["make", ".venv/.installed", f"PYTHON={args.python}"], cwd=clone, env=env, check=True,
                           stdin=subprocess.DEVNULL)
            print(f"clone {cloned:.1f} s + install step of make test {time.monotonic() - started - cloned:.1f} s "
                  f"({label})")
            return 0
        cold = lab(clone, env, args.python, workdir / "cold.log", args.timeout)
        print(f"cold: clone {cloned:.1f} s + make lab {cold:.1f} s = {cloned + cold:.1f} s until lab 00 answered "
              f"({label})", flush=True)
        warm = lab(clone, env, args.python, workdir / "warm.log", args.timeout)
        print(f"warm: make lab {warm:.1f} s until lab 00 answered (second run, nothing installed)")
        if "Installed with" in (workdir / "warm.log").read_text():
            print("but the second run installed again:\n" + (workdir / "warm.log").read_text())
            return 1
        return 0
    finally:
        if (clone / ".venv" / "bin" / "python").exists():
            subprocess.run([str(clone / ".venv" / "bin" / "python"), "-m", "course", "db", "stop"], cwd=clone,
                           env=env, capture_output=True, timeout=120)
        if args.keep:
            print(f"kept: {workdir}")
        else:
            subprocess.run(["rm", "-rf", str(workdir)])


if __name__ == "__main__":
    sys.exit(main())
