"""12.invoice_worker: one invoice per booking, none when cancelled — beside a second run held at its commit,
beside another session holding the booking's row, killed at each critical point, then seeded rounds."""

from __future__ import annotations

import contextlib
import shutil
import threading

import psycopg

from course.infra import processes
from course.infra.processes import wait_until
from course.core.queue import PermanentError
from course.programs import stayhub

from course.grading import differential as diff, faults
from course.grading.trial import Attempt, Trial
from course.grading.faults import killpoint
from course.grading.checks import exercise_check, shared
from course.grading.checks.lab12.stays import stayhub_box, store_bookings, booking_job, expect_started, MISSING_BOOKING, RUN_S


# -- 12.invoice_worker -------------------------------------------------------------------------------------


@exercise_check("12.invoice_worker")
def invoice_worker(t: Trial, render_invoice, seed=None):
    box = stayhub_box(t)
    expect_started(t, render_invoice, box)
    seeded = _invoices(box)  # whatever the box held before the answer ran
    theirs: set[int] = set()  # the reference's, in the story it is compared with
    try:
        _stages(t, box, render_invoice, seed, theirs)
    finally:
        # Doing nothing passes these: no error, nothing stored twice, nothing for a cancelled booking, the
        # queue emptied. They say something only once the answer has stored an invoice somewhere.
        with contextlib.suppress(psycopg.Error):  # a broken session: the rows stand as they were judged
            diff.judged_only_if(t, bool(_invoices(box) - seeded - theirs), VACUOUS,
                                "not judged: your render_invoice never stored an invoice, so doing nothing here "
                                "says nothing (store one for a confirmed booking: stayhub.store_invoice)")


def _stages(t: Trial, box, render_invoice, seed, theirs: set[int]) -> None:
    missing = shared.outcome(render_invoice, booking_job(MISSING_BOOKING), box.conn)
    t.expect("a job for a booking that does not exist ends at once: nothing to do (no error the queue would retry)",
             ok=missing is None or isinstance(missing, PermanentError), got=shared.said(missing),
             expected="returned (or raised PermanentError)",
             example=f"booking {MISSING_BOOKING}: stayhub.booking(conn, {MISSING_BOOKING}) is None",
             note="(A): no booking is nothing to do; any other error is retried 8 times, then dead-lettered")
    env = {stayhub.INVOICE_S_ENV: "0.3"}
    # 0. Two workers at once and a kill at each critical point, placed on purpose; then (1., 2.) seeded
    #    random rounds.
    _two_runs_at_once(t, box, render_invoice, env)
    before = _invoices(box)
    try:
        _another_session_holds_the_booking(t, box, render_invoice)
    finally:
        theirs |= _invoices(box) - before  # the reference runs there too: its invoices show nothing of yours
    _invoice_kills_on_cue(t, box, render_invoice, env)
    # 1. Two jobs for each booking, side by side: the two runs overlap.
    pairs = store_bookings(box.conn, [1, 2, 3])
    payloads = [{"booking_id": b} for b in pairs for _ in range(2)]
    result = faults.run(box, faults.Scenario(render_invoice, payloads, workers=2, concurrency=2, lease_s=2.0,
                                             env=env, timeout_s=RUN_S), seed=seed)
    t.seed = result.seed
    faults.expect_finished(t, result)
    counts = stayhub.invoices_by_booking(box.conn)
    t.expect("two runs at the same moment for one booking: still one invoice", got={b: counts[b] for b in pairs},
             expected={b: 1 for b in pairs}, example="render_invoice twice for each booking, both running at once",
             note="(B): checking first is not enough while another run is between its check and its insert: take "
                  "the booking's row lock (SELECT ... FOR NO KEY UPDATE) in the transaction, then check")
    # 2. Workers killed after the work and during it; one booking cancelled.
    singles = store_bookings(box.conn, [1, 2, 3, 1, 2], cancelled={4})
    env = {stayhub.INVOICE_S_ENV: "0.1"}
    result = faults.run(box, faults.Scenario(render_invoice, [{"booking_id": b} for b in singles], workers=2,
                                             concurrency=2, lease_s=1.0, env=env, timeout_s=RUN_S,
                                             faults=faults.Faults(kill_after_work=0.4, kill_mid_work=0.2,
                                                                  max_kills=3)),
                        seed=t.seed)
    faults.expect_finished(t, result)
    counts = stayhub.invoices_by_booking(box.conn)
    confirmed, cancelled = singles[:4], singles[4]
    t.expect("a run killed after its work is followed by one that does nothing: one invoice each",
             got={b: counts[b] for b in confirmed}, expected={b: 1 for b in confirmed},
             example=f"workers SIGKILLed after rendering, before the ack; {faults.fault_summary(result)}",
             note="(A): an invoice that exists already means there is nothing left to do")
    t.expect("a cancelled booking gets no invoice", got=counts[cancelled], expected=0,
             example=f"booking {cancelled}, cancelled before its job ran", note="(A): skip it")


VACUOUS = ("a job for a booking that does not exist ends at once", "that re-run returns normally",
           "the run finished", "a cancelled booking gets no invoice")


def _invoices(box) -> set[int]:
    return {number for (number,) in box.conn.execute("SELECT number FROM invoices")}


def _two_runs_at_once(t: Trial, box, render_invoice, env: dict[str, str]) -> None:
    """Two workers at once, placed on cue: a first run held at its COMMIT with every lock it took still
    held (faults/killpoint.py), while a second worker runs — for the same booking, then for another one;
    during that second hold another session asks for the held row FOR KEY SHARE, as a foreign-key check does."""
    same, held_other, other = store_bookings(box.conn, [1, 2, 3])

    def second_run(booking_id: int) -> dict:
        """Start the second worker's run on a session of its own; return once it finished or waits for a
        lock. The dict gets "thread", "waited" (it waited for a lock) and, once done, "outcome"."""
        run: dict = {"waited": False}
        started = threading.Event()

        def work():
            with box.connect() as conn:
                run["pid"] = conn.info.backend_pid
                started.set()
                run["outcome"] = shared.outcome(render_invoice, booking_job(booking_id), conn)

        run["thread"] = threading.Thread(target=work, daemon=True, name="check-12-second-worker")
        run["thread"].start()
        started.wait(killpoint.HANG_S)

        def done_or_waiting() -> bool:
            run["waited"] = run["waited"] or bool(box.conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE pid = %s AND wait_event_type = 'Lock'",
                [run.get("pid")]).fetchone()[0])
            return run["waited"] or not run["thread"].is_alive()

        with contextlib.suppress(TimeoutError):
            wait_until(done_or_waiting, killpoint.HANG_S, interval=0.02, what="the second run to finish or wait")
        return run

    with processes.environment(env):
        runs: dict[int, dict] = {}
        what = killpoint.run_and_hold(box, render_invoice, booking_job(same), table="invoices", env=env,
                                      meanwhile=lambda: runs.setdefault(same, second_run(same)))
        for run in runs.values():
            run["thread"].join(killpoint.HANG_S)
        counts = stayhub.invoices_by_booking(box.conn)
        second = runs.get(same, {})
        t.expect("a second run while the first waits at its commit, its lock held: still one invoice",
                 got=counts[same], expected=1,
                 example=f"booking {same}: run 1 {what}; run 2 started meanwhile "
                         f"({'waited for a lock, then ' if second.get('waited') else ''}{shared.said(second.get('outcome'))})",
                 note="(B): run 2 checked before run 1 committed, so both stored one: take the booking's row lock "
                      "(SELECT ... FOR NO KEY UPDATE) in the transaction, then check" if counts[same] > 1 else None)

        runs, key_share = {}, {}

        def meanwhile() -> None:
            key_share["refused"] = _key_share_refused(box, held_other)
            runs.setdefault(other, second_run(other))

        what = killpoint.run_and_hold(box, render_invoice, booking_job(held_other), table="invoices", env=env,
                                      meanwhile=meanwhile)
        for run in runs.values():
            run["thread"].join(killpoint.HANG_S)
        refused = key_share.get("refused", f"never tried: run 1 {what}")
        t.expect("while a run holds its booking's row, rows that reference the booking can still be inserted: "
                 "FOR NO KEY UPDATE, not FOR UPDATE", ok=not refused,
                 got=refused or "FOR KEY SHARE granted at once", expected="FOR KEY SHARE granted at once",
                 example=f"booking {held_other}: run 1 {what}; meanwhile another session runs SELECT 1 FROM bookings "
                         f"WHERE id = {held_other} FOR KEY SHARE NOWAIT (the lock every insert that references the "
                         "booking takes for its foreign-key check)",
                 note="FOR UPDATE also blocks the foreign-key check of every row that references the booking: the "
                      "confirmation email would wait the 1.5 s the invoice takes. Lock with FOR NO KEY UPDATE, "
                      "which blocks only another run of this job" if key_share.get("refused") else None)
        counts = stayhub.invoices_by_booking(box.conn)
        second = runs.get(other, {})
        t.expect("a run for another booking does not wait for this one: each run locks its own booking's row",
                 ok=not second.get("waited") and counts[other] == 1,
                 got=f"run 2 {'waited for a lock' if second.get('waited') else 'did not wait'}, "
                     f"{counts[other]} invoice(s) for booking {other}",
                 expected=f"did not wait, 1 invoice for booking {other}",
                 example=f"booking {held_other}: run 1 {what}; meanwhile run 2 for booking {other}",
                 note="lock the row of job.payload['booking_id'], not a fixed row or the whole table: invoices of "
                      "different bookings must not queue behind each other" if second.get("waited") else None)


# What another session may be doing to the booking while its invoice job runs: each holds a row lock the
# job's own lock (FOR NO KEY UPDATE) waits for, or (the last) one it does not; then it ends, as told.
HOLDERS = (
    ("a support agent's tool reads the booking FOR UPDATE, then commits without a change",
     "SELECT 1 FROM bookings WHERE id = %(b)s FOR UPDATE", "COMMIT"),
    ("a support agent corrects the booking's total (UPDATE bookings SET total_cents = ...), then commits",
     "UPDATE bookings SET total_cents = total_cents + 100 WHERE id = %(b)s", "COMMIT"),
    ("a report reads the booking FOR SHARE, then commits",
     "SELECT 1 FROM bookings WHERE id = %(b)s FOR SHARE", "COMMIT"),
    ("a support agent cancels the booking (UPDATE bookings SET status = 'cancelled'), then commits",
     "UPDATE bookings SET status = 'cancelled' WHERE id = %(b)s", "COMMIT"),
    ("a support agent cancels the booking, then thinks better of it (ROLLBACK)",
     "UPDATE bookings SET status = 'cancelled' WHERE id = %(b)s", "ROLLBACK"),
    ("the confirmation email's transaction has inserted its row (which references the booking: FOR KEY "
     "SHARE), not yet committed", "INSERT INTO confirmations (key, booking_id) VALUES ('confirm:' || %(b)s, %(b)s)",
     "COMMIT"),
)
RETRIES = 3  # attempts a job gets in this part once the other session has let go: every one should do


def _another_session_holds_the_booking(t: Trial, box, render_invoice) -> None:
    """Another session holds the booking's row while the job runs, on cue: its lock is taken first; the
    job's run starts; once that run has finished or waits for a lock (pg_stat_activity says which, no
    timer), the other session ends its transaction; a run that raised is run again (the queue's retry).
    Judged from rows: once an attempt returns (the job is acked), the booking must have exactly the
    invoices the reference leaves in the same story — one, or none if it was cancelled."""
    name = ("another session holds the booking's row while the job runs: it waits (or raises, to be retried), and "
            "the job ends with its invoice (none if the booking was cancelled meanwhile)")
    with processes.environment({stayhub.INVOICE_S_ENV: "0.05"}):
        for told, statement, end in HOLDERS:
            theirs = _while_held(box, lambda job, conn: stayhub.render_invoice(job, conn), statement, end)
            ours = _while_held(box, lambda job, conn: t.attempt(render_invoice, job, conn), statement, end)
            if not ours["acked"] or ours["invoices"] not in _allowed(ours, theirs):
                t.expect(name, ok=False, got=f"{ours['story']}; then {ours['invoices']} invoice(s)",
                         expected=f"{theirs['invoices']} invoice(s) once the job is acked (the reference: "
                                  f"{theirs['story']})",
                         example=f"booking {ours['booking']}: {told}, while render_invoice runs",
                         note=_held_note(ours, theirs))
                return
    t.expect(name, ok=True)


def _allowed(ours: dict, theirs: dict) -> set[int]:
    """The invoice counts the rules allow after this story. The reference waits for the other session, so
    its count is the one for the job run after it. An answer whose run ended before the other session did
    (it never waited) ran first: then a cancellation that commits afterwards cancels an invoiced booking,
    which is allowed too (as a cancellation a minute later would)."""
    if ours["cancelled"] and not ours["waited"]:
        return {0, 1}
    return {theirs["invoices"]}


def _held_note(ours: dict, theirs: dict) -> str:
    if ours["invoices"] < theirs["invoices"] and ours["acked"]:
        return ("the job returned, so the queue acked it, with no invoice: nobody will ever run it again. A row "
                "another session holds is not a reason to give up — lock it without SKIP LOCKED (SELECT ... FOR NO "
                "KEY UPDATE waits for the other transaction), or raise so the queue retries")
    if ours["invoices"] > theirs["invoices"]:
        return ("check the booking's status after taking its lock: a row read before the lock may be cancelled by "
                "the time you hold it")
    return "a run with no other session in its way must store the invoice and return"


def _while_held(box, run, statement: str, end: str) -> dict:
    """One story: a fresh confirmed booking, another session's `statement` on it, a run of the job in a
    thread of ours on its own session; the other session `end`s once the run is done or waits for a lock
    (pg_stat_activity says which: on cue, not by a timer); runs that raise are retried. Returns the
    booking, the story in words, whether an attempt returned (the queue acks it), whether the first one
    waited for the lock, whether the booking ended cancelled, and its invoices afterwards."""
    [booking_id] = store_bookings(box.conn, [2])
    story, acked, first_waited = [], False, False
    with box.connect() as other, box.connect() as conn:
        other.execute("BEGIN")
        other.execute(statement, {"b": booking_id})
        for attempt in range(1, RETRIES + 1):
            thread, done = _start_attempt(run, conn, booking_job(booking_id, attempts=attempt))
            waited = False
            if attempt == 1:
                waited = first_waited = _finished_or_waiting(box, thread, conn.info.backend_pid)
                other.execute(end)
            thread.join(killpoint.HANG_S)  # bounds a hang only
            said = "did not end" if "error" not in done else (
                "returned" if done["error"] is None else f"raised {done['error']}")
            story.append(f"attempt {attempt} {'waited for the lock, then ' if waited else ''}{said}")
            if "error" in done and done["error"] is None:
                acked = True
                break
    return {"booking": booking_id, "story": ", ".join(story), "acked": acked, "waited": first_waited,
            "cancelled": stayhub.booking(box.conn, booking_id).status == "cancelled",
            "invoices": stayhub.invoices_by_booking(box.conn)[booking_id]}


def _start_attempt(run, conn, job) -> tuple[threading.Thread, dict]:
    """One attempt on `conn`, in a thread of ours; the dict gets "error" (None: it returned) once it ends."""
    done: dict = {}

    def work():
        result = run(job, conn)
        done["error"] = result.error if isinstance(result, Attempt) else None
        with contextlib.suppress(psycopg.Error):
            if conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                conn.rollback()

    thread = threading.Thread(target=work, daemon=True, name="check-12-held-booking")
    thread.start()
    return thread, done


def _finished_or_waiting(box, thread: threading.Thread, pid: int) -> bool:
    """Wait until the attempt has ended or its session waits for a lock; whether it waited. The deadline
    only bounds a hang (a run that neither ends nor waits, for minutes)."""
    waited = False

    def either() -> bool:
        nonlocal waited
        waited = bool(box.conn.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s AND "
                                       "wait_event_type = 'Lock'", [pid]).fetchone()[0])
        return waited or not thread.is_alive()

    with contextlib.suppress(TimeoutError):
        wait_until(either, killpoint.HANG_S, interval=0.02, what="the run to end or wait for the lock")
    return waited


def _key_share_refused(box, booking_id: int) -> str | None:
    """Whether another session is refused the booking's row in FOR KEY SHARE mode right now, without
    waiting (NOWAIT): None when it gets the lock, else what PostgreSQL said."""
    with box.connect() as conn:
        try:
            conn.execute("SELECT 1 FROM bookings WHERE id = %s FOR KEY SHARE NOWAIT", [booking_id])
        except psycopg.errors.LockNotAvailable as error:
            return f"refused: {str(error).strip()}"
    return None


def _invoice_kills_on_cue(t: Trial, box, render_invoice, env: dict[str, str]) -> None:
    """A worker SIGKILLed at each critical point of the invoice job, each followed by a re-run (the next
    attempt): after the invoice is stored and before the commit, in the middle of rendering, after the commit
    and before the ack. Placed on cue (faults/killpoint.py), not at random, so no seed can miss one."""
    before_commit, mid_render, before_ack = store_bookings(box.conn, [3, 1, 2])

    def judge(name: str, booking_id: int, example: str) -> None:
        got = stayhub.invoices_by_booking(box.conn)[booking_id]
        t.expect(name, got=got, expected=1, example=example,
                 note="(A): an invoice that exists already means there is nothing left to do" if got > 1 else
                 "the re-run must render the invoice when the first run's work was lost" if got == 0 else None)

    def again(booking_id: int) -> BaseException | None:
        with processes.environment(env):
            return shared.outcome(render_invoice, booking_job(booking_id, attempts=2), box.conn)

    # After the invoice is stored, before the commit: a deferred trigger holds the commit until the kill.
    killpoint.hold_commit(box.conn, "invoices")
    try:
        what = killpoint.run_and_kill(box, render_invoice, booking_job(before_commit), when=killpoint.waiting_at_commit(box),
                                      env=env)
    finally:
        killpoint.release_commit(box.conn, "invoices")
    second = again(before_commit)
    judge("a worker killed after storing the invoice, before the commit, then the job runs again: one invoice",
          before_commit, f"booking {before_commit}: attempt 1 SIGKILLed while its transaction commits ({what}), "
                         f"then attempt 2 ({shared.said(second)})")

    # In the middle of rendering: the child marks the start of render_invoice_pdf, and is killed there.
    # The marker is in a folder the child may write: in class grading it runs sandboxed.
    folder = processes.exchange_folder("course-invoice-")
    try:
        marker = folder / "rendering"
        handler = killpoint.marked_at(render_invoice, stayhub.__name__, "render_invoice_pdf", marker)
        what = killpoint.run_and_kill(box, handler, booking_job(mid_render), when=killpoint.in_the_effect(marker), env=env)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    second = again(mid_render)
    judge("a worker killed while rendering the invoice, then the job runs again: one invoice", mid_render,
          f"booking {mid_render}: attempt 1 SIGKILLed in the middle of render_invoice_pdf ({what}), "
          f"then attempt 2 ({shared.said(second)})")

    # After the commit, before the ack: the whole first run happened, and the job comes back.
    with processes.environment(env):
        first = shared.outcome(render_invoice, booking_job(before_ack), box.conn)
    second = again(before_ack)
    example = (f"booking {before_ack}: attempt 1 ran to the end ({shared.said(first)}) but was never acked, "
               f"then attempt 2 ({shared.said(second)})")
    judge("a worker killed after the commit, before the ack, then the job runs again: one invoice", before_ack,
          example)
    t.expect("that re-run returns normally: nothing is left to do, so the job is acked", ok=first is None and
             second is None, got=f"attempt 1 {shared.said(first)}, attempt 2 {shared.said(second)}",
             expected="both returned", example=example,
             note="(A): an invoice that exists already is nothing to do: return, do not raise"
             if second is not None else None)
