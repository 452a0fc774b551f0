"""How a check's result reads in the notebook: short, specific, and honest about what it proves."""

from __future__ import annotations

from dataclasses import dataclass

from course.grading.trial import NOTHING, Result, short


@dataclass(frozen=True)
class Report:
    exercise_id: str
    results: tuple[Result, ...]
    not_started: str | None = None  # e.g. "`claim` still raises NotImplementedError"
    problem: str | None = None  # a misuse: undefined answer, database down, unknown id
    seed: int | None = None
    notes: tuple[str, ...] = ()  # what the check tried and how often it errs, said whatever it found

    @property
    def passed(self) -> bool:
        return not self.not_started and not self.problem and bool(self.results) and all(
            r.passed for r in self.results)

    @property
    def status(self) -> str:
        if self.problem:
            return "problem"
        if self.not_started:
            return "not started"
        return "passed" if self.passed else "failed"

    def render(self) -> str:
        if self.problem:
            return f"{self.exercise_id}: {self.problem}"
        if self.not_started:
            return (f"{self.exercise_id}: not started — {self.not_started}.\n"
                    f"Write your answer in the exercise cell above, run that cell, then run this check again.")
        failed = [r for r in self.results if not r.passed and r.reached]
        unreached = [r for r in self.results if not r.reached]
        if not failed and not unreached:
            head = (f"{self.exercise_id}: this check passed" if len(self.results) == 1
                    else f"{self.exercise_id}: these {len(self.results)} checks passed")
        else:
            head = f"{self.exercise_id}: {len(failed)} of {len(self.results)} checks failed"
            head += f", {len(unreached)} not reached" if unreached else ""
        lines = [head]
        for result in self.results:
            lines.append(f"  {_mark(result)} {result.name}")
            if result.reached and not result.passed:
                lines.extend(_details(result))
        for why in dict.fromkeys(r.note for r in unreached):  # each reason once, under the list
            lines.append(f"  · {why}; counted as not passed")
        lines.extend(self.notes)
        if not failed and self.seed is not None:  # a lucky pass can be replayed too
            lines.append(f"seed {self.seed} (replay with check({self.exercise_id!r}, seed={self.seed}))")
        if failed or unreached:
            if self.seed is not None:
                lines.append(f"Random seed {self.seed}: replay this exact run with "
                             f"check({self.exercise_id!r}, seed={self.seed}).")
            lines.append(f"Fix it and run this cell again, or ask for a hint: hint({self.exercise_id!r})")
        return "\n".join(lines)


def _mark(result: Result) -> str:
    """✓ passed, ✗ failed, · not reached (never judged: it counts as not passed, and is no failure of its own)."""
    return "·" if not result.reached else "✓" if result.passed else "✗"


def _details(result: Result) -> list[str]:
    lines = []
    if result.note:
        lines.extend("      " + line for line in result.note.splitlines())
    if result.expected is not NOTHING:
        lines.append(f"      expected: {short(result.expected)}")
    if result.got is not NOTHING:
        lines.append(f"      got:      {short(result.got)}")
    if result.example:
        lines.append(f"      smallest failing example: {result.example}")
    return lines
