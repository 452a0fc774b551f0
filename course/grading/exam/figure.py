"""The exam's run as a picture: jobs done over time, and when workers were killed, frozen and thawed."""

from __future__ import annotations

import matplotlib.pyplot as plt

from course.grading.exam.soak import Run


def plot(run: Run):
    """One figure: completed jobs (booked or dead-lettered) over the run, the faults as marks."""
    done = sorted(e.t for e in run.events if e.kind in ("acked", "buried") and e.facts.get("deleted", e.facts.get("applied")))
    fig, ax = plt.subplots(figsize=(9, 3.2))
    ax.step(done, range(1, len(done) + 1), where="post", label="jobs done (booked or dead-lettered)")
    marks = {"exited": ("worker killed", "tab:red", "x"), "frozen": ("worker frozen", "tab:purple", "v"),
             "thawed": ("worker thawed", "tab:green", "^"), "row_locked": ("row held by another session", "tab:gray", "s")}
    for kind, (label, colour, marker) in marks.items():
        times = [e.t for e in run.events if e.kind == kind]
        if times:
            ax.scatter(times, [0] * len(times), color=colour, marker=marker, label=label, zorder=3)
    ax.set_xlabel("seconds from the start of the run")
    ax.set_ylabel("jobs")
    ax.set_title(f"the exam's run, seed {run.seed}")
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    return fig
