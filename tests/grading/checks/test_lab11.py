"""Lab 11's checks fail plausible wrong answers, for the reason a learner needs to hear: lateness from the
wrong jobs or the wrong column, alerts on depth or in minutes, and vacuum blockers found by the wrong
state or the wrong clock."""

import pytest

from course.grading import run_check

from .wrong_answers import assert_fails_with, failed


def assert_passes_except(report, *fragments: str, also: tuple[str, ...] = ()) -> None:
    """Fails for these reasons, and for no other (`also`: may fail for these too, the same rule seen again)."""
    assert_fails_with(report, *fragments)
    for name in failed(report):
        assert any(fragment in name for fragment in fragments + also), \
            f"unexpected failure {name!r}:\n{report.render()}"


def by_queue(sql):
    def oldest_waiting(conn):
        return {name: seconds for name, seconds in conn.execute(sql).fetchall()}
    return oldest_waiting


# -- 11.oldest_waiting ---------------------------------------------------------------------------------

# The differential part's checks (jobs tables drawn from every state the statement names).
IN_SECONDS = "each queue's value is the age of its oldest waited-for job, in seconds, however long ago"
WHO_WAITS = "every job someone waits for counts: ready, due exactly now, running, left by a dead worker, retrying"
LEFT_OUT = "a queue whose jobs are all scheduled for later is left out of the dict (not listed, not 0)"
FROM_DUE_AT = "measured from due_at: not from run_at, not from created_at"


def test_ready_jobs_only_miss_the_retrying_and_the_running():
    # What course.core.queue.stats() measures: lateness over ready jobs only.
    wrong = by_queue("SELECT queue, extract(epoch FROM now() - min(due_at))::float8 FROM jobs "
                     "WHERE run_at <= now() GROUP BY queue")
    assert_passes_except(run_check("11.oldest_waiting", oldest_waiting=wrong),
                         "emails: about 300 s", "invoices: about 200 s", WHO_WAITS)


def test_every_job_counts_the_reminder_for_tomorrow():
    wrong = by_queue("SELECT queue, extract(epoch FROM now() - min(due_at))::float8 FROM jobs GROUP BY queue")
    assert_passes_except(run_check("11.oldest_waiting", oldest_waiting=wrong), "reminders: left out", LEFT_OUT)


def test_unleased_jobs_only_miss_the_one_a_dead_worker_left():
    wrong = by_queue("SELECT queue, extract(epoch FROM now() - min(due_at))::float8 FROM jobs "
                     "WHERE (run_at <= now() AND lease_token IS NULL) OR (lease_token IS NULL AND attempts > 0) GROUP BY queue")
    assert_fails_with(run_check("11.oldest_waiting", oldest_waiting=wrong), "syncs: about 400 s")


def test_measuring_from_run_at_is_not_lateness():
    wrong = by_queue("SELECT queue, extract(epoch FROM now() - min(run_at))::float8 FROM jobs "
                     "WHERE run_at <= now() OR attempts > 0 GROUP BY queue")
    assert_fails_with(run_check("11.oldest_waiting", oldest_waiting=wrong),
                      "emails: about 300 s", "invoices: about 200 s", "syncs: about 400 s")


def test_one_number_for_all_queues_is_refused():
    def wrong(conn):
        return conn.execute("SELECT coalesce(extract(epoch FROM now() - min(due_at)), 0)::float8 "
                            "FROM jobs WHERE run_at <= now() OR attempts > 0").fetchone()[0]

    assert_fails_with(run_check("11.oldest_waiting", oldest_waiting=wrong), "returns a dict (queue name -> seconds)")


def test_measuring_from_created_at_counts_a_planned_delay_as_lateness():
    wrong = by_queue("SELECT queue, extract(epoch FROM now() - min(created_at))::float8 FROM jobs "
                     "WHERE run_at <= now() OR attempts > 0 GROUP BY queue")
    assert_passes_except(run_check("11.oldest_waiting", oldest_waiting=wrong), "wakeups: about 30 s", FROM_DUE_AT)


def test_a_queue_nobody_waits_for_is_left_out_not_zero():
    # blind red team (issue 22): passed the check that allowed "absent or 0"
    wrong = by_queue("SELECT queue, coalesce(extract(epoch FROM now() - min(due_at) FILTER (WHERE run_at <= now() "
                     "OR attempts > 0)), 0)::float8 FROM jobs GROUP BY queue")
    assert_passes_except(run_check("11.oldest_waiting", oldest_waiting=wrong), "reminders: left out", LEFT_OUT)


def test_the_later_of_due_at_and_created_at_misses_a_back_dated_job():
    # blind red team: equal to due_at for every job enqueued with a delay; a job given a run_at in the past
    # (enqueue(run_at=...)) was due before it was created
    wrong = by_queue("SELECT queue, extract(epoch FROM now() - min(greatest(due_at, created_at)))::float8 FROM jobs "
                     "WHERE run_at <= now() OR attempts > 0 GROUP BY queue")
    assert_passes_except(run_check("11.oldest_waiting", oldest_waiting=wrong), FROM_DUE_AT)


def test_a_timedeltas_seconds_drop_the_days():
    # blind red team: timedelta.seconds is the seconds within the last day
    def wrong(conn):
        rows = conn.execute("SELECT queue, now() - min(due_at) FROM jobs WHERE run_at <= now() OR attempts > 0 "
                            "GROUP BY queue").fetchall()
        return {q: age.seconds + age.microseconds / 1e6 for q, age in rows}

    assert_passes_except(run_check("11.oldest_waiting", oldest_waiting=wrong), IN_SECONDS)


def test_minutes_instead_of_seconds():
    wrong = by_queue("SELECT queue, extract(epoch FROM now() - min(due_at))::float8 / 60 FROM jobs "
                     "WHERE run_at <= now() OR attempts > 0 GROUP BY queue")
    assert_fails_with(run_check("11.oldest_waiting", oldest_waiting=wrong), "receipts: about 720 s")


# Blind round f3 (tests/grading/redteam/f3-f3b): every queue of the check held one job type, one priority,
# lower-case names, planned jobs alone in their queues, and the answer ran on a UTC clock. Each of these
# passed then.
ONE_PER_QUEUE = "one entry per queue, under its own name, whatever job types and priorities it holds"
ANY_ZONE = "the same seconds whatever the local time zone of the process that runs it"


def test_grouping_by_queue_and_type_keeps_whichever_type_came_last():
    def wrong(conn):
        rows = conn.execute("SELECT queue, type, extract(epoch FROM now() - min(due_at))::float8 FROM jobs "
                            "WHERE run_at <= now() OR attempts > 0 GROUP BY queue, type").fetchall()
        return {q: s for q, _type, s in rows}

    report = run_check("11.oldest_waiting", oldest_waiting=wrong)
    assert_passes_except(report, ONE_PER_QUEUE)
    assert "several types" in report.render()


def test_the_claims_next_job_is_not_the_oldest():
    wrong = by_queue("SELECT DISTINCT ON (queue) queue, extract(epoch FROM now() - due_at)::float8 FROM jobs "
                     "WHERE run_at <= now() OR attempts > 0 ORDER BY queue, priority DESC, due_at")
    report = run_check("11.oldest_waiting", oldest_waiting=wrong)
    assert_passes_except(report, IN_SECONDS)
    assert "whatever its priority" in report.render()


def test_a_put_off_job_beside_waiting_ones_is_not_waited_for():
    # the right queues (HAVING), the minimum over all their jobs, planned ones included
    wrong = by_queue("SELECT queue, extract(epoch FROM now() - min(due_at))::float8 FROM jobs GROUP BY queue "
                     "HAVING bool_or(run_at <= now() OR attempts > 0)")
    report = run_check("11.oldest_waiting", oldest_waiting=wrong)
    assert_passes_except(report, LEFT_OUT, also=("reminders: left out",))
    assert "WHERE before GROUP BY" in report.render()


def test_queue_names_are_case_sensitive():
    wrong = by_queue("SELECT lower(queue), extract(epoch FROM now() - min(due_at))::float8 FROM jobs "
                     "WHERE run_at <= now() OR attempts > 0 GROUP BY lower(queue)")
    report = run_check("11.oldest_waiting", oldest_waiting=wrong)
    assert_passes_except(report, ONE_PER_QUEUE)
    assert "case-sensitive" in report.render()


def test_utcnow_read_as_local_time_is_wrong_off_utc():
    # datetime.utcnow() is naive; .timestamp() reads it as local time: right only on a UTC clock
    import datetime

    def wrong(conn):
        rows = conn.execute("SELECT queue, min(due_at) FROM jobs WHERE run_at <= now() OR attempts > 0 "
                            "GROUP BY queue").fetchall()
        now = datetime.datetime.utcnow().timestamp()
        return {q: now - due.timestamp() for q, due in rows}

    report = run_check("11.oldest_waiting", oldest_waiting=wrong)
    assert_passes_except(report, ANY_ZONE)
    assert "datetime.utcnow()" in report.render()


WAITED_FOR = "(run_at <= now() OR attempts > 0)"


def queues_then_each_oldest(conn):
    """Two statements, racing: the queues first, then each queue's oldest job. A worker that finishes a
    queue's last job between them leaves {queue: None}: a state no single moment had."""
    queues = [q for (q,) in conn.execute(f"SELECT DISTINCT queue FROM jobs WHERE {WAITED_FOR}").fetchall()]
    return {q: conn.execute(f"SELECT extract(epoch FROM now() - min(due_at))::float8 FROM jobs "
                            f"WHERE queue = %s AND {WAITED_FOR}", [q]).fetchone()[0] for q in queues}


def test_two_racing_statements_fail_when_a_worker_acts_between_them():
    """It passed before: alone, each scenario gives the reference's dict; only another session between its
    statements shows the None."""
    report = run_check("11.oldest_waiting", oldest_waiting=queues_then_each_oldest)
    assert_passes_except(report, IN_SECONDS)
    text = report.render()
    assert "just before your statement 2" in text and "finished emails' only job" in text, text



def test_a_read_that_skips_locked_rows_misses_a_job_being_claimed():
    """Round f4: FOR UPDATE SKIP LOCKED, copied from the claim, leaves out a job another session has locked
    (and locks the jobs a dashboard looks at). Only another session holding a row lock while it reads shows it."""
    report = run_check("11.oldest_waiting", oldest_waiting=by_queue(
        "SELECT queue, extract(epoch FROM now() - min(due_at))::float8 FROM (SELECT queue, due_at FROM jobs "
        f"WHERE {WAITED_FOR} FOR UPDATE SKIP LOCKED) AS unlocked GROUP BY queue"))
    assert_passes_except(report, WHO_WAITS)
    text = report.render()
    assert "SKIP LOCKED" in text and "holds receipts' oldest job's row locked" in text, text


def test_reading_only_the_newest_jobs_misses_the_oldest_in_a_large_table():
    """Round f4: the 500 newest jobs only. Only a table of a thousand jobs and more shows it."""
    report = run_check("11.oldest_waiting", oldest_waiting=by_queue(
        "SELECT queue, extract(epoch FROM now() - min(due_at))::float8 FROM (SELECT * FROM jobs ORDER BY id DESC "
        f"LIMIT 500) AS recent WHERE {WAITED_FOR} GROUP BY queue"))
    assert_passes_except(report, WHO_WAITS)
    assert "not only the newest few hundred" in report.render(), report.render()


# -- 11.alerts ------------------------------------------------------------------------------------------


def depth_alerts(snapshot):
    messages = [f"{v.queue}: {v.depth} jobs queued" for v in snapshot.queues if v.depth > 1000]
    if snapshot.dead_letters:
        messages.append(f"{snapshot.dead_letters} dead letters")
    return messages


def minutes_alerts(snapshot):
    messages = [f"{v.queue} is late" for v in snapshot.queues if v.waiting_s > 2]  # meant 2 minutes
    if snapshot.dead_letters:
        messages.append(f"{snapshot.dead_letters} dead letters")
    return messages


def dead_tuples_alerts(snapshot):
    messages = [f"{v.queue} is late" for v in snapshot.queues if v.waiting_s > 120]
    if snapshot.dead_tuples:
        messages.append(f"{snapshot.dead_tuples} dead")
    return messages


def one_alert_per_dead_job(snapshot):
    messages = [f"{v.queue} is late" for v in snapshot.queues if v.waiting_s > 120]
    messages += [f"dead job {n + 1} of {snapshot.dead_letters}" for n in range(snapshot.dead_letters)]
    return messages


def default_queue_only(snapshot):
    view = snapshot.queue("default")
    messages = [f"{view.queue} is late"] if view.waiting_s > 120 else []
    if snapshot.dead_letters:
        messages.append(f"{snapshot.dead_letters} dead letters")
    return messages


def test_alerting_on_depth_fires_for_a_healthy_newsletter():
    # a deep queue at exactly 120 s is alerted on for its depth, not for the boundary (it is at 119 s too)
    assert_passes_except(run_check("11.alerts", alerts=depth_alerts), "depth is not lateness",
                         "each queue over 120 s raises one alert of its own", also=("exactly 120 s is not over",))


def test_two_seconds_is_not_two_minutes():
    assert_passes_except(run_check("11.alerts", alerts=minutes_alerts), "a queue at most 120 s behind raises none",
                         also=("exactly 120 s is not over the limit",))


def over_the_limit_or_deep(snapshot):
    """Blind round f3 (w03): the lateness rule right (>), and a depth rule beside it."""
    messages = []
    for v in snapshot.queues:
        if v.waiting_s > 120:
            messages.append(f"{v.queue}: oldest job {v.waiting_s:.0f} s old")
        elif v.depth > 1000:
            messages.append(f"{v.queue}: {v.depth} jobs queued")
    if snapshot.dead_letters:
        messages.append(f"dead-letter table: {snapshot.dead_letters} jobs")
    return messages


def test_an_extra_depth_alert_is_not_told_it_got_the_boundary_wrong():
    # it was failed first under "exactly 120 s is not over the limit ... not >=", a cause it does not have
    report = run_check("11.alerts", alerts=over_the_limit_or_deep)
    assert_passes_except(report, "depth is not lateness")
    assert "not >=" not in report.render(), report.render()


def test_dead_tuples_are_not_dead_letters():
    assert_passes_except(run_check("11.alerts", alerts=dead_tuples_alerts), "dead tuples are not dead letters",
                         "dead letters raise one alert that says how many")


def test_one_alert_per_dead_job_is_noise():
    assert_passes_except(run_check("11.alerts", alerts=one_alert_per_dead_job),
                         "dead letters raise one alert that says how many")


def test_watching_the_default_queue_only_misses_the_receipts():
    assert_passes_except(run_check("11.alerts", alerts=default_queue_only), "each queue over 120 s raises one alert")


def worst_queue_only(snapshot):
    """Issue 22: the worst late queue alerts, the others, as late, do not."""
    late = [v for v in snapshot.queues if v.waiting_s > 120]
    messages = [f"{max(late, key=lambda v: v.waiting_s).queue} is the latest"] if late else []
    if snapshot.dead_letters:
        messages.append(f"{snapshot.dead_letters} dead letters")
    return messages


def one_per_age(snapshot):
    """Late queues kept in a dict by their age: two queues exactly as late (a tie) give one alert."""
    late = {v.waiting_s: v.queue for v in snapshot.queues if v.waiting_s > 120}
    return [f"{queue}: {age:.0f} s" for age, queue in late.items()] + (
        [f"{snapshot.dead_letters} dead letters"] if snapshot.dead_letters else [])


def all_late_queues_in_one_message(snapshot):
    late = [v.queue for v in snapshot.queues if v.waiting_s > 120]
    return ([f"late: {', '.join(late)}"] if late else []) + (
        [f"{snapshot.dead_letters} dead letters"] if snapshot.dead_letters else [])


def ready_jobs_only(snapshot):
    """A queue with nothing ready (its late job is running, or waiting for its retry) is taken as fine."""
    return [f"{v.queue} is late" for v in snapshot.queues if v.ready and v.waiting_s > 120] + (
        [f"{snapshot.dead_letters} dead letters"] if snapshot.dead_letters else [])


def crashes_without_queues(snapshot):
    worst = max(snapshot.queues, key=lambda v: v.waiting_s)  # max() of nothing raises
    return [f"{v.queue} is late" for v in snapshot.queues if v.waiting_s > 120] + (
        [f"{snapshot.dead_letters} dead letters"] if snapshot.dead_letters and worst else [])


def whole_seconds(snapshot):
    """int() drops the half second: 120.5 s is over the limit, int(120.5) is not."""
    return [f"{v.queue} is late" for v in snapshot.queues if int(v.waiting_s) > 120] + (
        [f"{snapshot.dead_letters} dead letters"] if snapshot.dead_letters else [])


def without_the_count(snapshot):
    return [f"{v.queue} is late" for v in snapshot.queues if v.waiting_s > 120] + (
        ["jobs in the dead-letter table"] if snapshot.dead_letters else [])


def test_only_the_worst_late_queue_alerting_misses_the_others():
    assert_passes_except(run_check("11.alerts", alerts=worst_queue_only), "each queue over 120 s raises one alert")


def test_two_queues_equally_late_are_two_alerts():
    assert_passes_except(run_check("11.alerts", alerts=one_per_age), "each queue over 120 s raises one alert")


def test_one_message_for_all_late_queues_is_refused():
    assert_passes_except(run_check("11.alerts", alerts=all_late_queues_in_one_message),
                         "each queue over 120 s raises one alert")


def test_a_late_queue_with_nothing_ready_is_still_late():
    assert_passes_except(run_check("11.alerts", alerts=ready_jobs_only), "each queue over 120 s raises one alert")


def test_a_snapshot_with_no_queues_is_answered():
    assert_passes_except(run_check("11.alerts", alerts=crashes_without_queues), "returns a list of strings")


def test_half_a_second_over_the_limit_is_over_it():
    assert_passes_except(run_check("11.alerts", alerts=whole_seconds), "each queue over 120 s raises one alert")


def test_the_dead_letter_alert_says_how_many():
    assert_passes_except(run_check("11.alerts", alerts=without_the_count), "dead letters raise one alert that says")


def test_alert_objects_instead_of_strings_are_refused():
    from course.core import monitoring

    report = run_check("11.alerts", alerts=lambda snapshot: monitoring.evaluate(snapshot))
    assert_fails_with(report, "returns a list of strings")


# -- 11.vacuum_blockers -----------------------------------------------------------------------------------


def blockers(where: str, order: str = "xact_start", age_column: str = "xact_start"):
    def vacuum_blockers(conn, older_than_s):
        rows = conn.execute(f"""
            SELECT pid FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid() AND {where}
              AND {age_column} < now() - make_interval(secs => %s)
            ORDER BY {order}""", [older_than_s]).fetchall()
        return [pid for (pid,) in rows]
    return vacuum_blockers


RIGHT = "(backend_xmin IS NOT NULL OR backend_xid IS NOT NULL)"
# The stage on sessions drawn at random (round f2): every kind of session the statement names, in a drawn order
# of connections and of transactions' starts; it sees again what the fixed sessions showed.
DRAWN = "finds what the reference finds, oldest first, among sessions drawn at random"


def test_idle_in_transaction_is_not_the_whole_story():
    report = run_check("11.vacuum_blockers", vacuum_blockers=blockers("state = 'idle in transaction'"))
    assert_fails_with(report, "lists slow-export", "leaves out idle-reader")


def test_a_snapshot_is_not_the_only_thing_that_holds_back_vacuum():
    report = run_check("11.vacuum_blockers", vacuum_blockers=blockers("backend_xmin IS NOT NULL"))
    assert_fails_with(report, "lists forgotten-psql")


def test_the_last_query_is_not_the_transactions_age():
    report = run_check("11.vacuum_blockers", vacuum_blockers=blockers(RIGHT, age_column="query_start"))
    assert_fails_with(report, "lists monthly-report")


def every_database(conn, older_than_s):
    """The solution without `datname = current_database()`: another database's sessions are listed too."""
    rows = conn.execute("""
        SELECT pid FROM pg_stat_activity
        WHERE pid <> pg_backend_pid() AND (backend_xmin IS NOT NULL OR backend_xid IS NOT NULL)
          AND xact_start < now() - make_interval(secs => %s)
        ORDER BY xact_start""", [older_than_s]).fetchall()
    return [pid for (pid,) in rows]


def test_sessions_of_another_database_are_not_ours_to_chase():
    report = run_check("11.vacuum_blockers", vacuum_blockers=every_database)
    assert failed(report) == ["leaves out other-database"] + [name for name in failed(report) if DRAWN in name], \
        report.render()
    assert any(DRAWN in name for name in failed(report)), report.render()  # every drawn arrangement has one


def by_the_clock_and_itself_too(conn, older_than_s):
    """The solution by the clock (clock_timestamp()) and without `pid <> pg_backend_pid()`: called in a
    transaction older than the threshold, it lists its own session."""
    rows = conn.execute("""
        SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND (backend_xmin IS NOT NULL OR backend_xid IS NOT NULL)
          AND xact_start < clock_timestamp() - make_interval(secs => %s)
        ORDER BY xact_start""", [older_than_s]).fetchall()
    return [pid for (pid,) in rows]


def test_a_query_that_does_not_leave_out_its_own_session_lists_it():
    report = run_check("11.vacuum_blockers", vacuum_blockers=by_the_clock_and_itself_too)
    assert failed(report) == ["leaves out your own session (pg_backend_pid())"], report.render()
    assert "pid <> pg_backend_pid()" in report.render()


def test_youngest_first_is_the_wrong_order():
    report = run_check("11.vacuum_blockers", vacuum_blockers=blockers(RIGHT, order="xact_start DESC"))
    assert_passes_except(report, "oldest transaction first", DRAWN)


# -- 11.quiz ------------------------------------------------------------------------------------------------


def test_the_quiz_says_which_answer_to_reconsider():
    report = run_check("11.quiz", q1="a", q2="b", q3="c", q4="a", q5="b")
    assert_passes_except(report, "q1:", "q4:")


# -- boundaries (found by the mutation sweep: both passed every check) -------------------------------------


def test_a_job_due_exactly_now_is_waited_for():
    wrong = by_queue("SELECT queue, extract(epoch FROM now() - min(due_at))::float8 FROM jobs "
                     "WHERE run_at < now() OR attempts > 0 GROUP BY queue")
    assert_passes_except(run_check("11.oldest_waiting", oldest_waiting=wrong), "a job due exactly now", WHO_WAITS)


def at_or_over_the_limit(snapshot):
    messages = [f"{v.queue}: the oldest job has waited {v.waiting_s:.0f} s" for v in snapshot.queues
                if v.waiting_s >= 120]
    if snapshot.dead_letters > 0:
        messages.append(f"{snapshot.dead_letters} job(s) in the dead-letter table")
    return messages


def test_exactly_the_limit_is_not_over_it():
    assert_passes_except(run_check("11.alerts", alerts=at_or_over_the_limit), "exactly 120 s is not over the limit")


def the_demos_threshold(conn, older_than_s):
    """The demo's 1 s written into the query: older_than_s is ignored (found by the mutation sweep)."""
    return blockers(RIGHT)(conn, 1)


def test_a_threshold_written_into_the_query_fails():
    report = run_check("11.vacuum_blockers", vacuum_blockers=the_demos_threshold)
    assert_passes_except(report, "uses older_than_s", DRAWN)


# Blind red team (issue 22): these four passed the check before it connected its sessions in another order
# than their transactions began, asked for pids only, and called the answer with older_than_s=0 on a
# connection of its own.


def test_ordered_by_pid_is_not_oldest_first():
    report = run_check("11.vacuum_blockers", vacuum_blockers=blockers(RIGHT, order="pid"))
    assert_passes_except(report, "oldest transaction first", also=(DRAWN,))


def test_no_order_at_all_is_not_oldest_first():
    def wrong(conn, older_than_s):  # whatever order pg_stat_activity lists them in: by backend slot
        rows = conn.execute("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> "
                            "pg_backend_pid() AND (backend_xmin IS NOT NULL OR backend_xid IS NOT NULL) AND "
                            "xact_start < now() - make_interval(secs => %s)", [older_than_s]).fetchall()
        return [pid for (pid,) in rows]

    # pg_stat_activity's order is its backend slots', which other sessions of the server reshuffle: it can match
    # the transactions' order by chance in one arrangement, hardly in the fixed one and the drawn one together.
    report = run_check("11.vacuum_blockers", vacuum_blockers=wrong)
    assert any("oldest transaction first" in name or DRAWN in name for name in failed(report)), report.render()
    assert_passes_except(report, also=("oldest transaction first", DRAWN))


def test_rows_instead_of_pids_are_refused():
    def wrong(conn, older_than_s):
        return conn.execute("SELECT pid, now() - xact_start FROM pg_stat_activity WHERE datname = current_database() "
                            "AND pid <> pg_backend_pid() AND (backend_xmin IS NOT NULL OR backend_xid IS NOT NULL) "
                            "AND xact_start < now() - make_interval(secs => %s) ORDER BY xact_start",
                            [older_than_s]).fetchall()

    assert_fails_with(run_check("11.vacuum_blockers", vacuum_blockers=wrong), "returns a list of pids")


def test_at_least_as_old_without_leaving_itself_out_lists_itself():
    def wrong(conn, older_than_s):  # <= and no pid <> pg_backend_pid(): at 0 s its own transaction qualifies
        rows = conn.execute("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND (backend_xmin "
                            "IS NOT NULL OR backend_xid IS NOT NULL) AND xact_start <= now() - make_interval(secs => %s) "
                            "ORDER BY xact_start", [older_than_s]).fetchall()
        return [pid for (pid,) in rows]

    assert_passes_except(run_check("11.vacuum_blockers", vacuum_blockers=wrong), "leaves out your own session")


# Blind red team red10 (issue 22): both passed every check. The first left out a queue whose only job became
# due the instant it was asked (no job of the check was due exactly now with due_at = now() too); the second
# compared whole seconds, which the check's thresholds (1 s, 600 s) and ages (~1.7 s) never told apart.


def test_a_queue_whose_job_became_due_this_instant_is_waited_for():
    wrong = by_queue("SELECT queue, extract(epoch FROM now() - min(due_at))::float8 FROM jobs "
                     "WHERE run_at <= now() OR attempts > 0 GROUP BY queue HAVING min(due_at) < now()")
    assert_passes_except(run_check("11.oldest_waiting", oldest_waiting=wrong), WHO_WAITS)


def test_whole_seconds_are_not_the_transactions_age():
    def wrong(conn, older_than_s):
        rows = conn.execute("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> "
                            "pg_backend_pid() AND (backend_xmin IS NOT NULL OR backend_xid IS NOT NULL) AND "
                            "extract(epoch FROM now() - xact_start)::int > %s ORDER BY xact_start",
                            [int(older_than_s)]).fetchall()
        return [pid for (pid,) in rows]

    report = run_check("11.vacuum_blockers", vacuum_blockers=wrong)
    assert_passes_except(report, "uses older_than_s to the fraction of a second: a transaction 2.3 s old is older "
                         "than 2.05 s", also=(DRAWN,))


# Round f2 (f2e), phase 2: the sessions drawn at random. An answer fitted to the fixed sessions' names passes
# every fixed row; only the drawn arrangement shows it, and names just the sessions it got wrong.


def test_an_answer_fitted_to_the_fixed_sessions_fails_on_drawn_ones():
    def wrong(conn, older_than_s):
        rows = conn.execute("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> "
                            "pg_backend_pid() AND application_name IN ('monthly-report', 'forgotten-psql', "
                            "'slow-export') AND xact_start < now() - make_interval(secs => %s) ORDER BY xact_start",
                            [older_than_s]).fetchall()
        return [pid for (pid,) in rows]

    report = run_check("11.vacuum_blockers", vacuum_blockers=wrong)
    assert failed(report) == [name for name in failed(report) if DRAWN in name] != [], report.render()
    [drawn] = [r for r in report.results if DRAWN in r.name]
    assert "missed" in drawn.note and "other session(s)" in drawn.example, report.render()
    # the smallest arrangement: only the sessions it missed are told, not the ones it left out rightly
    assert "rc-reader" not in drawn.example and "idle #" not in drawn.example, report.render()


def test_the_drawn_arrangement_follows_the_seed():
    from course.grading.checks.lab11 import blockers_drawn

    first = blockers_drawn.draw(__import__("random").Random(5))
    assert first == blockers_drawn.draw(__import__("random").Random(5))
    assert {drawn.kind for drawn in first} == set(blockers_drawn.KINDS)  # every kind the statement names, each run


# Round f4's blind false passes: each a dimension the drawn stage did not draw.
def drawn_only(report, *told: str) -> None:
    assert_passes_except(report, DRAWN)
    [drawn] = [r for r in report.results if DRAWN in r.name]
    assert all(fragment in drawn.note + drawn.example for fragment in told), report.render()


def test_a_session_waiting_for_a_lock_still_holds_back_vacuum():
    report = run_check("11.vacuum_blockers", vacuum_blockers=blockers(
        f"{RIGHT} AND wait_event_type IS DISTINCT FROM 'Lock'"))
    drawn_only(report, "missed lock-waiter", "waits for a lock another session holds")


def test_a_naive_local_cutoff_is_off_when_the_local_clock_is_not_utc():
    from datetime import datetime, timedelta

    def naive(conn, older_than_s):
        rows = conn.execute("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> "
                            f"pg_backend_pid() AND {RIGHT} AND xact_start < %s ORDER BY xact_start",
                            [datetime.now() - timedelta(seconds=older_than_s)]).fetchall()
        return [pid for (pid,) in rows]

    drawn_only(run_check("11.vacuum_blockers", vacuum_blockers=naive), "at UTC it is right", "not with a naive")


def test_an_answer_cached_on_its_arguments_is_stale_on_the_next_sessions():
    import functools

    @functools.lru_cache(maxsize=None)
    def cached(conn, older_than_s):
        return tuple(blockers(RIGHT)(conn, older_than_s))

    drawn_only(run_check("11.vacuum_blockers", vacuum_blockers=lambda conn, s: list(cached(conn, s))),
               "asked again: the same arguments")


def test_leaving_out_the_callers_application_name_hides_a_pool_of_blockers():
    report = run_check("11.vacuum_blockers", vacuum_blockers=blockers(
        f"{RIGHT} AND application_name <> current_setting('application_name')"))
    drawn_only(report, "(shared)", "under your connection's own application_name")


def test_leaving_out_queries_that_read_pg_stat_activity_hides_a_monitoring_snapshot():
    report = run_check("11.vacuum_blockers", vacuum_blockers=blockers(
        f"{RIGHT} AND query NOT LIKE '%%pg_stat_activity%%'"))
    drawn_only(report, "missed monitor", "read pg_stat_activity")


# -- a do-nothing answer scores nothing --------------------------------------------------------------------


@pytest.mark.parametrize("exercise, answers", [("11.oldest_waiting", ("oldest_waiting",)), ("11.alerts", ("alerts",)), ("11.vacuum_blockers", ("vacuum_blockers",))])
def test_an_answer_that_does_nothing_passes_no_row(exercise, answers):
    """A stub returning None showed no rule: every row is failed or not judged. 09.route's stub used to pass
    the routing rows it never came near (2 of 5), and 10.pool's every row but the int (4 of 5): round f2."""
    report = run_check(exercise, seed=1, **{name: (lambda *args, **kwargs: None) for name in answers})
    assert not any(r.passed for r in report.results), report.render()
