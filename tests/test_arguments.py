"""The one home of argument checks (course.core.arguments), and the worker's contract for its queue operations."""

from __future__ import annotations

import inspect
from fractions import Fraction
from types import SimpleNamespace

import pytest

from course.core import arguments, queue
from course.errors import InvalidArgument, InvalidJob
from course.core.operations import CALLS, QueueOperations, check_operations, reference_operations
from course.core.worker import Registry, Settings, Worker

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
    assert "no where(); no listen(); no extend_leases(); no fail(); no bury(); no fate(); no gone()." in message
    assert "Pass course.core.queue" in message and "reference_operations(name=yours)" in message
    assert "QueueOperations" in message and "Nothing was started." in message and "\n" not in message


def test_a_fake_ops_with_a_mis_shaped_operation_is_refused_at_construction():
    def claim(conn, queue, *, limit, lease, worker):  # the old keyword: the worker passes lease_s=
        return []

    with pytest.raises(InvalidArgument, match=r"claim\(conn, queue, \*, limit, lease, worker\) cannot take the "
                                              r"worker's call claim\(conn, queue, limit=\.\.\., lease_s=\.\.\., "):
        Worker("", Registry(), ops=reference_operations(claim=claim))


def test_an_operation_that_is_not_callable_is_refused():
    with pytest.raises(InvalidArgument, match=r"no fail\(\)"):
        Worker("", Registry(), ops=reference_operations(fail="queue.fail"))


def test_a_fail_without_a_backoff_keyword_is_refused_only_where_the_worker_passes_one():
    """The worker passes fail() its own backoff when its settings choose one, and only then."""
    def fail(conn, job, error):
        return None

    ops = reference_operations(fail=fail)
    Worker("", Registry(), ops=ops)  # the default backoff: fail(conn, job, error)
    with pytest.raises(InvalidArgument, match=r"cannot take the worker's call fail\(conn, job, error, backoff=\.\.\.\)"):
        Worker("", Registry(), Settings(retry_base_s=0.1), ops=ops)


def test_reference_operations_are_the_queues_own_with_the_ones_given_replaced():
    def extend_leases(conn, jobs, lease_s):
        return set()

    ops = reference_operations(extend_leases=extend_leases)
    assert ops.extend_leases is extend_leases and ops.claim is queue.claim and ops.gone is queue.gone
    with pytest.raises(InvalidArgument, match="not extend_lease"):
        reference_operations(extend_lease=extend_leases)


def test_the_calls_check_operations_checks_are_the_calls_the_worker_makes():
    """Every `self.ops.<name>(...)` in worker.py, by its positional count and keywords, is one of CALLS, and
    every one of CALLS is made somewhere: the contract checked at start cannot drift from the code."""
    import ast

    from course.core import worker as worker_module

    made = set()
    for node in ast.walk(ast.parse(inspect.getsource(worker_module))):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Attribute) and node.func.value.attr == "ops"):
            assert not any(isinstance(a, ast.Starred) for a in node.args) and all(k.arg for k in node.keywords)
            made.add((node.func.attr, len(node.args), tuple(sorted(k.arg for k in node.keywords))))
    listed = {(name, len(call.args), tuple(sorted(call.keywords))) for name, calls in CALLS.items() for call in calls}
    assert made == listed
