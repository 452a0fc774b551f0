"""The one home of argument checks (course.core.arguments), and the worker's contract for its queue operations."""

from __future__ import annotations

from fractions import Fraction
from types import SimpleNamespace

import pytest

from course.core import arguments, queue
from course.errors import InvalidArgument, InvalidJob
from course.core.worker import QueueOperations, Registry, Worker, check_operations

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


# -- renamed ---------------------------------------------------------------------------------------------


def test_renamed_refuses_the_old_keyword_naming_the_new_one_and_lets_the_new_one_through():
    calls = []

    @arguments.renamed(lease="lease_s")
    def claim(conn, *, lease_s=30.0):
        calls.append(lease_s)
        return lease_s

    assert claim("conn", lease_s=5) == 5
    with pytest.raises(InvalidArgument) as refused:
        claim("conn", lease=5)
    assert str(refused.value) == "claim() takes lease_s= now, not lease=: pass claim(..., lease_s=5). Nothing was done."
    assert calls == [5], "the refused call did not run"


def test_renamed_keeps_the_signature_for_help_and_for_the_workers_contract_check():
    import inspect

    assert list(inspect.signature(queue.claim).parameters) == ["conn", "queue", "limit", "lease_s", "worker"]
    assert queue.claim.__doc__.startswith("Lease up to")


# -- the worker's contract: QueueOperations ----------------------------------------------------------------


def test_course_queue_itself_satisfies_the_contract():
    check_operations(queue)  # no error
    ops: QueueOperations = queue  # what a type checker accepts; course.core.queue is the default ops
    assert Worker("", Registry()).ops is ops


def test_a_fake_ops_missing_operations_is_refused_at_construction_naming_them():
    fake = SimpleNamespace(claim=queue.claim, ack_many=queue.ack_many)
    with pytest.raises(InvalidArgument) as refused:
        Worker("", Registry(), ops=fake)
    message = str(refused.value)
    assert "no extend_leases(); no fail(); no bury()" in message
    assert "Pass course.core.queue" in message and "QueueOperations" in message and "Nothing was started." in message
    assert "\n" not in message


def test_a_fake_ops_with_a_mis_shaped_operation_is_refused_at_construction():
    def claim(conn, queue, *, limit, lease, worker):  # the old keyword: the worker passes lease_s=
        return []

    fake = SimpleNamespace(claim=claim, ack_many=queue.ack_many, extend_leases=queue.extend_leases,
                           fail=queue.fail, bury=queue.bury)
    with pytest.raises(InvalidArgument, match=r"claim\(conn, queue, \*, limit, lease, worker\) cannot take the "
                                              r"worker's call"):
        Worker("", Registry(), ops=fake)


def test_an_operation_that_is_not_callable_is_refused():
    fake = SimpleNamespace(claim=queue.claim, ack_many=queue.ack_many, extend_leases=queue.extend_leases,
                           fail="queue.fail", bury=queue.bury)
    with pytest.raises(InvalidArgument, match=r"no fail\(\)"):
        Worker("", Registry(), ops=fake)
