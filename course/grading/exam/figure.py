"""The exam's run as a picture: throughput over time, jobs done, and when the faults fell."""

from __future__ import annotations

import matplotlib.pyplot as plt

from course.grading.exam.soak import Run
from course.grading.exam.speed import done_times

# the run's faults, as marks on the time axis: event kind -> (label, colour, marker)
MARKS = {"exited": ("worker killed", "tab:red", "x"), "frozen": ("worker frozen", "tab:purple", "v"),
         "thawed": ("worker thawed", "tab:green", "^"), "row_locked": ("row held by another session", "tab:gray", "s"),
         "cut": ("connections cut", "tab:orange", "|"), "restarted": ("PostgreSQL restarted", "black", "D")}
BIN_S = 1.0


def plot(run: Run, reference: Run | None = None):
    """Two panels sharing the time axis: jobs done per second (beside the reference's run on the same
    seed, when given) with the faults marked, and the jobs done so far."""
    fig, (rate, total) = plt.subplots(2, 1, figsize=(9, 5), sharex=True, height_ratios=[3, 2])
    for name, one, style in (("your queue", run, "-"), ("the reference", reference, ":")):
        if one is None:
            continue
        done = done_times(one)
        bins = int(max(done + [one.elapsed_s]) // BIN_S) + 1
        per_bin = [0] * bins
        for t in done:
            per_bin[int(t // BIN_S)] += 1
        rate.step([b * BIN_S for b in range(bins)], [n / BIN_S for n in per_bin], style, where="post", label=name)
        total.step(done, range(1, len(done) + 1), style, where="post", label=name)
    for kind, (label, colour, marker) in MARKS.items():
        times = [e.t for e in run.events if e.kind == kind]
        if times:
            rate.scatter(times, [0] * len(times), color=colour, marker=marker, label=label, zorder=3)
    rate.set_ylabel("jobs done per second")
    rate.set_title(f"the exam's run, seed {run.seed}: throughput, and the faults (marks on the axis)")
    rate.legend(loc="upper right", fontsize=7, ncol=2)
    total.set_ylabel("jobs done")
    total.set_xlabel("seconds from the start of the run")
    total.legend(loc="lower right", fontsize=7)
    fig.tight_layout()
    return fig
