"""The course's one ordered manifest (labs.toml): labs, their exercises, hints and prerequisites.

Nothing else in the repository decides the order of the course or the ids of its exercises: the build,
the checks, hints, progress and the tests all read them from here.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from course.errors import CourseError

MANIFEST = Path(__file__).with_name("labs.toml")
EXERCISE_ID = re.compile(r"\d\d\.[a-z][a-z0-9_]*")


class UnknownExercise(CourseError, KeyError):
    def __str__(self) -> str:  # KeyError would print the message in quotes
        return self.args[0]


@dataclass(frozen=True)
class Rule:
    """One requirement an exercise states, and what proves the check holds a learner to it."""
    id: str  # "skip-leased": short and stable, unique within its exercise
    text: str  # the rule as the exercise states it; rendered into the notebook's statement
    checks: tuple[str, ...]  # fragments of the names of the checks that enforce it
    wrong_answers: tuple[str, ...]  # tests in tests/grading/checks/test_labNN.py that break it


@dataclass(frozen=True)
class Exercise:
    id: str  # "03.claim"
    title: str
    answers: tuple[str, ...]  # names the learner defines, read by the check
    hints: tuple[str, ...]
    kind: str = "code"  # "code" or "quiz"
    rules: tuple[Rule, ...] = ()
    free: str = ""  # what the rules leave to the learner (ties, order): the check never compares it

    @property
    def lab_id(self) -> str:
        return self.id.split(".")[0]


@dataclass(frozen=True)
class Lab:
    id: str  # "03"
    slug: str  # "postgres_queue"
    title: str
    minutes: int
    requires: tuple[str, ...] = ()
    exercises: tuple[Exercise, ...] = field(default_factory=tuple)
    # Every file the lab is made of (tests/authoring/test_layout.py computes them from the sources):
    modules: tuple[str, ...] = ()  # the course modules its notebook and checks import, its programs' too
    sql: tuple[str, ...] = ()  # the SQL files they show or run
    checks: str = ""  # course/grading/checks/labNN.py, or the package labNN/ when one module is not enough
    tests: tuple[str, ...] = ()  # its checks' wrong-answer tests, and its modules' tests

    @property
    def notebook(self) -> str:
        return f"{self.id}_{self.slug}.ipynb"


@dataclass(frozen=True)
class Manifest:
    labs: tuple[Lab, ...]

    @property
    def exercises(self) -> list[Exercise]:
        return [exercise for lab in self.labs for exercise in lab.exercises]

    def lab(self, lab_id: str) -> Lab:
        lab_id = str(lab_id).zfill(2)
        for lab in self.labs:
            if lab.id == lab_id:
                return lab
        raise UnknownExercise(f"There is no lab {lab_id!r}; the labs are {', '.join(l.id for l in self.labs)}.")

    def exercise(self, exercise_id: str) -> Exercise:
        for exercise in self.exercises:
            if exercise.id == exercise_id:
                return exercise
        ids = [e.id for e in self.exercises]
        close = difflib.get_close_matches(str(exercise_id), ids, n=1, cutoff=0.5)
        suggestion = f" Did you mean {close[0]!r}?" if close else ""
        raise UnknownExercise(f"There is no exercise {exercise_id!r}.{suggestion} "
                              f"(`python -m course progress` lists them all.)")


def _problem(where: str, message: str) -> CourseError:
    return CourseError(f"{MANIFEST.name}, {where}: {message}")


RULE_ID = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")


def _rules(entries: list[dict], where: str) -> tuple[Rule, ...]:
    rules = []
    for entry in entries:
        rule_id = entry.get("id", "")
        if not RULE_ID.fullmatch(rule_id):
            raise _problem(where, f"rule id {rule_id!r} must be lowercase words joined by '-', like 'skip-leased'")
        if rule_id in {rule.id for rule in rules}:
            raise _problem(where, f"rule id {rule_id!r} appears twice")
        if not entry.get("text") or not entry.get("checks"):
            raise _problem(where, f"rule {rule_id!r} needs a text and at least one check")
        rules.append(Rule(id=rule_id, text=entry["text"], checks=tuple(entry["checks"]),
                          wrong_answers=tuple(entry.get("wrong_answers", []))))
    return tuple(rules)


@cache
def load(path: Path = MANIFEST) -> Manifest:
    raw = tomllib.loads(path.read_text())
    labs, seen = [], set()
    for position, entry in enumerate(raw.get("lab", [])):
        lab_id = entry.get("id", "")
        where = f"lab {lab_id or position}"
        if not re.fullmatch(r"\d\d", lab_id):
            raise _problem(where, "id must be two digits, like '03'")
        exercises = []
        for item in entry.get("exercise", []):
            if not EXERCISE_ID.fullmatch(item.get("id", "")) or not item["id"].startswith(lab_id + "."):
                raise _problem(where, f"exercise id {item.get('id')!r} must look like '{lab_id}.name'")
            if item["id"] in seen:
                raise _problem(where, f"exercise id {item['id']!r} appears twice")
            if not item.get("hints"):
                raise _problem(where, f"exercise {item['id']} needs at least one hint")
            seen.add(item["id"])
            exercises.append(Exercise(
                id=item["id"], title=item["title"], answers=tuple(item.get("answers", [])),
                hints=tuple(item["hints"]), kind=item.get("kind", "code"),
                rules=_rules(item.get("rules", []), f"{where}, exercise {item['id']}"), free=item.get("free", ""),
            ))
        labs.append(Lab(id=lab_id, slug=entry["slug"], title=entry["title"], minutes=entry.get("minutes", 30),
                        requires=tuple(entry.get("requires", [])), exercises=tuple(exercises),
                        modules=tuple(entry.get("modules", [])), sql=tuple(entry.get("sql", [])),
                        checks=entry.get("checks", ""), tests=tuple(entry.get("tests", []))))
    ids = [lab.id for lab in labs]
    if ids != sorted(ids) or len(set(ids)) != len(ids):
        raise _problem("labs", f"ids must be unique and in order; found {ids}")
    for lab in labs:
        for required in lab.requires:
            if required not in ids or required >= lab.id:
                raise _problem(f"lab {lab.id}", f"requires {required!r}, which is not an earlier lab")
    return Manifest(tuple(labs))
