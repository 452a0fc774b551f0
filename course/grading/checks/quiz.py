"""Checks for "check yourself" quizzes: multiple choice answered with letters.

A wrong answer is reported without the right one (that would end the quiz); the note says what to
reconsider instead.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import NamedTuple

from course.grading.checks import exercise_check
from course.grading.trial import Trial


def letters(value) -> frozenset[str]:
    """'b', 'B', ['b', 'd'], {'B', 'D'} and 'b, d' all mean the same choice."""
    if isinstance(value, str):
        value = value.replace(",", " ").split()
    if not isinstance(value, Iterable):
        return frozenset()
    return frozenset(str(v).strip().lower() for v in value)


def ask(t: Trial, name: str, value, correct: str | Iterable[str], question: str, reconsider: str) -> None:
    chosen = letters(t.answer(name, value))
    right = letters(correct)
    if chosen == right:
        t.expect(f"{name}: {question}", ok=True)
    elif chosen and chosen < right:  # every letter chosen is right, but some right ones are missing
        missing = len(right - chosen)
        t.expect(f"{name}: {question}", ok=False, got=value,
                 note=f"right, but not all of it — {missing} more option{'s are' if missing > 1 else ' is'} also "
                      f"true; {reconsider}")
    else:
        t.expect(f"{name}: {question}", ok=False, got=value, note=f"not this one — {reconsider}")


class Question(NamedTuple):
    correct: str | Iterable[str]  # the right letters
    question: str  # what it asks, as the report names it
    reconsider: str  # where to look again after a wrong answer (never the right one)


def multiple_choice(exercise_id: str, **questions: Question) -> Callable:
    """Register the check of an exercise whose every answer is letters (a prediction, a quiz): each
    keyword is the name of one answer and its question; they are asked in the order given."""
    @exercise_check(exercise_id)
    def check(t: Trial, **answers) -> None:
        for name, question in questions.items():
            ask(t, name, answers[name], *question)

    return check
