"""Hints, one at a time, in the manifest's order."""

from __future__ import annotations

from course.grading import manifest

_shown: dict[str, int] = {}  # per kernel: a fresh kernel starts again from the first hint


def hint(exercise_id: str, number: int | None = None) -> str:
    """The next hint for an exercise (or hint `number`, counting from 1)."""
    exercise = manifest.load().exercise(exercise_id)
    total = len(exercise.hints)
    if number is None:
        number = min(_shown.get(exercise_id, 0) + 1, total)
    if not 1 <= number <= total:
        return f"{exercise_id} has hints 1 to {total}."
    _shown[exercise_id] = max(_shown.get(exercise_id, 0), number)
    more = f" Run hint({exercise_id!r}) again for the next." if number < total else " That was the last one."
    return f"Hint {number} of {total} for {exercise_id}: {exercise.hints[number - 1]}\n{more.strip()}"
