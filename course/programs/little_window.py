"""Lab 10: Little's law on a window of a run — exact when you count what lies inside the window.

Over a whole run that starts and ends with nothing in the system, L = λ × W is an identity: the area
under "jobs in the system" is the sum of every job's whole stay. On a window that cuts stays short it is
not, unless the stays are clipped to the window:

    whole stays   (jobs arriving in the window / its length) × their mean whole stay: counts time that
                  lies outside the window (stays that end after it), and misses jobs that arrived before
    clipped       each job's stay cut to the window, summed, over the window's length (10.in_progress)
    counted       the time average of the jobs-table count over the window

The last two measure the same thing; the first only agrees with them on a window where the system
starts and ends empty, or is steady enough that what it adds at one end it misses at the other.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from course.errors import InvalidArgument
from course.programs import rush


@dataclass(frozen=True)
class Window:
    start: float
    end: float
    arrivals: int  # jobs that arrived inside the window
    whole_stays: float  # λ (arrivals in the window / its length) × the mean whole stay of those jobs
    clipped: float  # stays cut to the window: the time-average number in the system
    counted: float  # the jobs-table count, averaged over the window


def on_window(run: rush.Rush, start: float, end: float) -> Window:
    """The three ways of getting L on [start, end] of a measured rush."""
    if not end > start:
        raise InvalidArgument(f"the window must have end > start; got [{start!r}, {end!r}].")
    arrived = [job for job in run.jobs if start <= job.enqueued < end]
    whole = len(arrived) / (end - start) * statistics.fmean(j.in_system for j in arrived) if arrived else 0.0
    clipped = rush.average_in_system([(j.enqueued, j.finished) for j in run.jobs], start, end)
    return Window(start, end, len(arrived), whole, clipped, rush.counted_average(run.samples, start, end))
