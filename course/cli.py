"""`python -m course ...`: the course's command line.

    db start|stop|status|url|psql   the database
    lab                             JupyterLab on the course
    worker                          run jobs (see course/core/worker.py)

and, each with a `main(argv)` of its own in the module named in MODULE_COMMANDS:
    build, map, progress, check, compare, grade, scheduler, broker, bench, chaos, doctor

`python -m course --help` lists them all; `python -m course COMMAND --help` says more about one.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import logging
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from course.core import backoff
from course.errors import CourseError


def load_object(spec: str):
    """'package.module:name' or 'path/to/file.py:name' -> the object."""
    module_name, sep, attribute = spec.partition(":")
    if not sep or not attribute:
        raise CourseError(f"--app {spec!r}: write it as module:registry (e.g. myjobs:handlers).")
    if module_name.endswith(".py"):
        path = Path(module_name).resolve()
        module_spec = importlib.util.spec_from_file_location(path.stem, path)
        if module_spec is None or not path.exists():
            raise CourseError(f"--app {spec!r}: there is no file {path}.")
        module = importlib.util.module_from_spec(module_spec)
        try:
            module_spec.loader.exec_module(module)
        except Exception as error:  # a bug in the learner's module: say which, in one line
            raise CourseError(f"--app {spec!r}: importing {path} failed: {type(error).__name__}: {error}") from None
    else:
        sys.path.insert(0, os.getcwd())
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as error:
            raise CourseError(f"--app {spec!r}: there is no module {error.name!r} to import (run the worker "
                              f"from the folder that holds it, or give a path: path/to/{module_name}.py:"
                              f"{attribute}).") from None
        except Exception as error:
            raise CourseError(f"--app {spec!r}: importing {module_name} failed: {type(error).__name__}: "
                              f"{error}") from None
    try:
        return getattr(module, attribute)
    except AttributeError:
        raise CourseError(f"--app {spec!r}: {module_name} has no {attribute!r}.") from None


def cmd_db(args) -> int:
    from course.infra import db, pgserver

    if args.action == "start":
        print(db.describe())
    elif args.action == "stop":
        print(db.stop())
    elif args.action == "status":
        print(db.status())
    elif args.action == "url":
        print(db.conninfo())
    elif args.action == "psql":
        psql = str(pgserver.binary("psql"))
        os.execv(psql, [psql, db.conninfo(), *args.rest])
    return 0


def cmd_worker(args) -> int:
    from course.core.worker_process import StoppedWhileStarting, stopping_while_starting

    stopping_while_starting()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s", stream=sys.stderr)
    try:
        return _run_worker(args)
    except StoppedWhileStarting:
        logging.getLogger("course.core.worker").info("worker: stopped while starting; nothing was claimed")
        return 0


def _run_worker(args) -> int:
    from course.core.worker import Registry, Settings, Worker
    from course.core.worker_process import conninfo

    registry = load_object(args.app)
    if not isinstance(registry, Registry):
        raise CourseError(f"--app {args.app!r} is a {type(registry).__name__}, not a Registry (course.core.handlers).")
    try:
        settings = Settings(queue=args.queue, concurrency=args.concurrency, lease_s=args.lease_s,
                            poll_interval_s=args.poll_interval_s, listen=not args.no_listen,
                            retry_base_s=args.retry_base_s, retry_cap_s=args.retry_cap_s)
    except CourseError as error:  # InvalidArgument: --poll-interval-s
        raise CourseError(f"--poll-interval-s: {error}") from None
    except ValueError as error:
        raise CourseError(f"--retry-base-s/--retry-cap-s: {error}.") from None
    return Worker(conninfo(args.dsn, args.schema), registry, settings).run()


LAB_00 = "lab/tree/labs/00_start_here.ipynb"


def free_port(first: int = 8888, tries: int = 50) -> int:
    """The first port from `first` on that nothing listens on at 127.0.0.1."""
    for port in range(first, first + tries):
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise CourseError(f"ports {first}-{first + tries - 1} are all taken: try `python -m course lab --port N`.")


def answers(url: str) -> bool:
    """Whether `url` (on 127.0.0.1) answers 200; never through an http_proxy the environment names."""
    try:
        with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(url, timeout=5) as response:
            return response.status == 200
    except (OSError, ValueError):
        return False


def cmd_lab(args) -> int:
    """The database, then JupyterLab opened at lab 00; one line says what runs where once both answer."""
    from course.infra import db

    description = db.describe()  # starts the embedded PostgreSQL unless DATABASE_URL or COURSE_DB say otherwise
    project = Path(__file__).resolve().parent.parent
    port = args.port or free_port()
    token = os.environ.get("JUPYTER_TOKEN") or secrets.token_hex(16)
    url = f"http://127.0.0.1:{port}/{LAB_00}?token={token}"
    argv = [sys.executable, "-m", "jupyter", "lab", f"--ServerApp.root_dir={project}", "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={port}", "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}",
            f"--LabApp.default_url=/{LAB_00}", "--ServerApp.log_level=WARN", "--LabApp.log_level=WARN"]
    if os.geteuid() == 0:
        argv.append("--allow-root")
    headless = sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    if headless or args.no_browser:
        argv.append("--no-browser")
    # Ctrl-C is JupyterLab's to answer (it asks before it stops); a SIGTERM to us is passed on to it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    server = subprocess.Popen(argv, cwd=project, start_new_session=False)
    signal.signal(signal.SIGTERM, lambda *_: server.terminate())
    deadline = time.monotonic() + 180
    while server.poll() is None and time.monotonic() < deadline and not answers(url):
        time.sleep(0.25)
    if server.poll() is None and not answers(url):
        print(f"JupyterLab has not answered {url} in 180 s; it is still starting.", flush=True)
    elif server.poll() is None:
        where = "open it in your browser" if "--no-browser" in argv else "your browser opens it"
        print(f"Started: database = {description}; JupyterLab at lab 00 = {url} ({where}; "
              "Ctrl-C stops JupyterLab, `make db-stop` the database).", flush=True)
    return server.wait()


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="python -m course", description="Background jobs in PostgreSQL: the course.")
    commands = top.add_subparsers(dest="command", required=True)

    p = commands.add_parser("db", help="start, stop or inspect the course database")
    p.add_argument("action", choices=["start", "stop", "status", "url", "psql"])
    p.add_argument("rest", nargs=argparse.REMAINDER, help="extra arguments for psql")
    p.set_defaults(run=cmd_db)

    p = commands.add_parser("lab", help="open the course in JupyterLab")
    p.add_argument("--no-browser", action="store_true")
    p.add_argument("--port", type=int, default=0, help="JupyterLab's port (default: the first free one from 8888)")
    p.set_defaults(run=cmd_lab)

    p = commands.add_parser("worker", help="run jobs from a queue")
    p.add_argument("--app", required=True, help="where the handlers are: module:registry or file.py:registry")
    p.add_argument("--queue", default="default")
    p.add_argument("--concurrency", type=int, default=4, help="jobs run at once (threads)")
    p.add_argument("--lease-s", type=float, default=30.0, help="seconds a claimed job stays hidden")
    p.add_argument("--poll-interval-s", type=float, default=1.0, help="seconds between polls without NOTIFY")
    p.add_argument("--no-listen", action="store_true", help="poll only (no LISTEN/NOTIFY)")
    p.add_argument("--retry-base-s", type=float, default=backoff.BASE_S,
                   help="a failed job waits a random time up to base * 2**(attempt-1) s (default %(default)g)")
    p.add_argument("--retry-cap-s", type=float, default=backoff.CAP_S,
                   help="the longest wait before a retry, in s (default %(default)g)")
    p.add_argument("--schema", help="the schema holding the jobs table (default: public)")
    p.add_argument("--dsn", help="connection string (default: the course database)")
    p.set_defaults(run=cmd_worker)

    for name, (_, what) in MODULE_COMMANDS.items():  # listed here; main() hands them to their module
        p = commands.add_parser(name, help=what, add_help=False)
        p.add_argument("rest", nargs=argparse.REMAINDER)
    return top


# Commands that live with the code they drive ("module" runs module.main, "module:name" module.name);
# imported only when asked for.
MODULE_COMMANDS = {
    "build": ("course.authoring.build", "write labs/ from solutions/"),
    "map": ("course.authoring.layout", "the package's layers, and every file each lab is made of"),
    "progress": ("course.grading.progress_file", "which exercises you have passed"),
    "check": ("course.grading.compare:check_main", "run a lab's checks on your saved notebook, from the terminal"),
    "compare": ("course.grading.compare", "your lab's code beside the solution's, and the checks on it"),
    "grade": ("course.grading.grade", "grade a folder of students' notebooks: a CSV gradebook and a summary"),
    "scheduler": ("course.core.scheduler", "enqueue recurring jobs, once per slot"),
    "broker": ("course.infra.broker", "start, stop or inspect the NATS JetStream server (labs 05 and 13)"),
    "bench": ("course.evidence.bench", "measure the queue against its peers"),
    "chaos": ("course.evidence.chaos", "kill workers and the database at random; count what was lost"),
    "doctor": ("course.infra.doctor", "what this machine has: Python, the database, the broker, the sandbox"),
}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        if argv and argv[0] in MODULE_COMMANDS:
            module_name, _, function = MODULE_COMMANDS[argv[0]][0].partition(":")
            return getattr(importlib.import_module(module_name), function or "main")(argv[1:])
        top = parser()
        top.epilog = "`python -m course COMMAND --help` says more about one command."
        args = top.parse_args(argv)
        return args.run(args)
    except CourseError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
