"""The one home of argument checks (course.core.arguments)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from course.core import arguments, queue
from course.errors import InvalidArgument, InvalidJob

# -- whole -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [1, 5, 10])
def test_whole_returns_a_plain_int_in_range(value):
    got = arguments.whole("limit", value, low=1, high=10)
    assert got == value and type(got) is int


@pytest.mark.parametrize("value", [0, 11, -1, 2.0, "3", True, None, float("nan")])
def test_whole_refuses_what_is_not_a_whole_number_in_range(value):
    with pytest.raises(InvalidArgument, match=r"^limit must be a whole number from 1 to 10; got "):
        arguments.whole("limit", value, low=1, high=10)


def test_whole_without_a_ceiling_says_or_more_and_what_to_pass():
    with pytest.raises(InvalidArgument) as refused:
        arguments.whole("runs", 0, "how many times to replay the job, e.g. 10_000", then="Nothing ran.")
    assert str(refused.value) == ("runs must be a whole number, 1 or more; got 0. "
                                  "Pass how many times to replay the job, e.g. 10_000. Nothing ran.")


# -- positive and seconds ------------------------------------------------------------------------------


def test_positive_takes_any_real_number_and_returns_a_float():
    assert arguments.positive("rate", Fraction(1, 2)) == 0.5
    assert type(arguments.positive("rate", 3)) is float
    assert arguments.positive("rate", 0, allow_zero=True) == 0.0


@pytest.mark.parametrize("value", [0, -1, float("inf"), float("nan"), True, "1", None])
def test_positive_refuses_zero_negatives_non_finite_and_non_numbers(value):
    with pytest.raises(InvalidArgument, match=r"^rate must be a finite number, more than 0; got"):
        arguments.positive("rate", value)


def test_seconds_bounds_zero_negative_and_a_century():
    assert arguments.seconds("lease_s", 30) == 30.0
    assert arguments.seconds("delay_s", 0, allow_zero=True) == 0.0
    assert arguments.seconds("start", -300, allow_negative=True) == -300.0
    with pytest.raises(InvalidArgument, match=r"^lease_s is in seconds and must be more than 0; got 0\."):
        arguments.seconds("lease_s", 0)
    with pytest.raises(InvalidArgument, match=r"^delay_s is in seconds and must be 0 or more; got -1\."):
        arguments.seconds("delay_s", -1, allow_zero=True)
    with pytest.raises(InvalidArgument, match=r"at most a century; got 10000000000\.0\. Nothing was written\.$"):
        arguments.seconds("delay_s", 1e10, allow_zero=True, then="Nothing was written.")
    with pytest.raises(InvalidArgument, match=r"must be a finite number; got inf"):
        arguments.seconds("start", float("inf"), allow_negative=True)


@pytest.mark.parametrize("value", [True, "30", None, float("nan"), [30]])
def test_seconds_refuses_what_is_not_a_number(value):
    with pytest.raises(InvalidArgument, match="lease_s is in seconds"):
        arguments.seconds("lease_s", value)


# -- name -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["send_receipt", "emails", "_x", "a.b:c-d", "x" * 100])
def test_name_accepts_the_documented_alphabet(value):
    assert arguments.name("queue", value) == value


@pytest.mark.parametrize("value", ["", "1st", "with space", "x" * 101, "a\x00b", None, 7])
def test_name_refuses_others_with_an_example_and_says_nothing_was_written(value):
    with pytest.raises(InvalidJob, match=r"is not a valid name: .*e\.g\. 'send_receipt'\)\. Nothing was written\.$"):
        arguments.name("queue", value)


# -- names in seconds end in _s, on the command line too ----------------------------------------------------


def float_flags(parser) -> list[str]:
    """Every option taking a number with a fraction, in `parser` and its subcommands."""
    import argparse

    flags = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                flags += float_flags(sub)
        elif action.type is float:
            flags += [option for option in action.option_strings if option.startswith("--")]
    return flags


def test_the_queue_programs_number_flags_are_all_in_seconds_and_say_so():
    """The worker command, the outbox relay and the scheduler: every fractional flag is a duration in
    seconds, and its name ends in -s as the keyword's does in _s (--pace was a pause of seconds)."""
    from course import cli
    from course.core import outbox, scheduler

    flags = {name: float_flags(parser()) for name, parser in
             [("worker", cli.parser), ("relay", outbox.parser), ("scheduler", scheduler.parser)]}
    assert all(flags.values()), flags  # each has some: the check looks where the flags are
    assert {name: [f for f in found if not f.endswith("-s")] for name, found in flags.items()} == \
        {"worker": [], "relay": [], "scheduler": []}


def test_the_relays_spawn_takes_its_durations_in_seconds_by_name():
    import inspect

    from course.core import outbox

    durations = {"poll_interval_s", "pace_s", "duplicate_window_s", "publish_timeout_s"}
    assert durations <= set(inspect.signature(outbox.spawn).parameters)
    assert outbox.parser().parse_args(["relay", "--pace-s", "0.5", "--publish-timeout-s", "2"]).pace_s == 0.5
