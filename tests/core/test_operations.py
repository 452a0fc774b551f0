"""The worker's contract for its queue operations (course.core.operations): every call the worker makes,
checked against an `ops` when the worker is built, and the reference's own operations with some replaced."""

from __future__ import annotations

import ast
import inspect
from types import SimpleNamespace

import pytest

from course.core import queue
from course.core import worker as worker_module
from course.core.operations import CALLS, QueueOperations, check_operations, reference_operations
from course.core.worker import Registry, Settings, Worker
from course.errors import InvalidArgument


def test_course_queue_itself_satisfies_the_contract():
    check_operations(queue)  # no error
    ops: QueueOperations = queue  # what a type checker accepts; course.core.queue is the default ops
    assert Worker("", Registry()).ops is ops


def test_a_fake_ops_missing_operations_is_refused_at_construction_naming_them():
    fake = SimpleNamespace(claim=queue.claim, ack_many=queue.ack_many)
    with pytest.raises(InvalidArgument) as refused:
        Worker("", Registry(), ops=fake)
    message = str(refused.value)
    assert "no where(); no listen(); no ack_and_claim(); no extend_leases(); no fail(); no bury(); no fate(); no gone()." in message
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
    made = set()
    for node in ast.walk(ast.parse(inspect.getsource(worker_module))):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Attribute) and node.func.value.attr == "ops"):
            assert not any(isinstance(a, ast.Starred) for a in node.args) and all(k.arg for k in node.keywords)
            made.add((node.func.attr, len(node.args), tuple(sorted(k.arg for k in node.keywords))))
    listed = {(name, len(call.args), tuple(sorted(call.keywords))) for name, calls in CALLS.items() for call in calls}
    assert made == listed
