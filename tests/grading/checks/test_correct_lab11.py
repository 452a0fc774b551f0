"""Lab 11's checks pass correct answers written unlike the reference (issue 22): other wording, other
order, minutes instead of seconds done right, thousands separators, and the answer the hints spell out."""

import pytest

from course.grading import run_check

LIMIT_S = 120

# -- 11.alerts ------------------------------------------------------------------------------------------


def hints_spelled_out(snapshot):
    """The last hint, word for word."""
    messages = [f"{v.queue}: oldest job has waited {v.waiting_s:.0f} s" for v in snapshot.queues if v.waiting_s > LIMIT_S]
    if snapshot.dead_letters > 0: messages.append(f"{snapshot.dead_letters} job(s) in the dead-letter table")
    return messages


def in_minutes_done_right(snapshot):
    """Dead letters first, counted with a thousands separator; lateness compared in minutes, exactly."""
    out = []
    if snapshot.dead_letters:
        out.append(f"Dead-letter table holds {snapshot.dead_letters:,} job{'s' if snapshot.dead_letters != 1 else ''}")
    for view in sorted(snapshot.queues, key=lambda v: -v.waiting_s):
        minutes = view.waiting_s / 60
        if minutes > LIMIT_S / 60:
            out.append(f"[{view.queue}] oldest job {minutes:.1f} min old")
    return out


def by_name_lookup(snapshot):
    """Queue names first, then snapshot.queue(name) for each; the dead letters in words and digits."""
    names = [view.queue for view in snapshot.queues]
    late = [name for name in names if snapshot.queue(name).waiting_s - LIMIT_S > 0]
    alerts = ["Queue '%s' is late" % name for name in late]
    count = snapshot.dead_letters
    return alerts + (["there are %d dead letters to look at" % count] if count > 0 else [])


def a_generator(snapshot):
    def each():
        for view in snapshot.queues:
            if not view.waiting_s <= LIMIT_S:
                yield f"{view.queue} — waited {round(view.waiting_s)}s"
        if snapshot.dead_letters >= 1:
            yield f"DLQ={snapshot.dead_letters}"
    return list(each())


@pytest.mark.parametrize("alerts", [hints_spelled_out, in_minutes_done_right, by_name_lookup, a_generator],
                         ids=lambda f: f.__name__)
def test_correct_alerts_pass(alerts):
    report = run_check("11.alerts", alerts=alerts)
    assert report.passed, report.render()


def test_the_seed_replays_the_same_scenarios():
    """Another seed draws other snapshots; a correct answer passes them too."""
    for seed in (1, 2, 3):
        report = run_check("11.alerts", alerts=hints_spelled_out, seed=seed)
        assert report.passed, report.render()


def shouted_and_glued(snapshot):
    """The queue's name in capitals, glued to other words; the count with a thousands separator."""
    alerts = [f"LATE-{v.queue.upper()}-QUEUE ({v.waiting_s / 60:.1f} min)" for v in snapshot.queues if v.waiting_s > 120]
    return alerts + [f"dead_letters={snapshot.dead_letters:,}"] * (snapshot.dead_letters > 0)


def test_a_queue_named_in_capitals_glued_to_other_words_is_named():
    report = run_check("11.alerts", alerts=shouted_and_glued)
    assert report.passed, report.render()
