"""The email provider (course.programs.email_provider), as a real process: slow, flaky or down when asked to be,
and the client that sends through it. (Tiffin's checkout app is tests/programs/test_checkout.py's.)

Every server and worker a test starts is killed at the end of the test, also when it fails (fixtures).
"""

from __future__ import annotations

import threading

import pytest

from course.errors import InvalidArgument
from course.infra.processes import wait_until
from course.core.queue import PermanentError
from course.programs.email_provider import (
    EmailProvider,
    EmailRejected,
    ProviderTimeout,
    ProviderUnavailable,
    ProviderUnreachable,
    TransientEmailError,
    send_email,
)
from course.programs.http import call

pytestmark = pytest.mark.slow  # every test here starts worker processes or servers

GENEROUS_S = 30  # a loaded 2-core machine may be slow; nothing here should take this long


@pytest.fixture
def provider():
    started = EmailProvider.start(latency_s=0.0, seed=1)
    yield started
    started.kill()


def send(provider, to="ana@example.com", subject="Your receipt", body="Total: 12.50", key=None, **options):
    return send_email(provider.url, to, subject, body, idempotency_key=key, **options)


def test_an_accepted_email_is_delivered_and_every_request_counted(provider):
    message_id = send(provider, key="receipt:9812")

    [delivery] = provider.deliveries()
    assert (delivery.id, delivery.to, delivery.subject, delivery.body, delivery.idempotency_key) == (
        message_id, "ana@example.com", "Your receipt", "Total: 12.50", "receipt:9812")
    assert [r.outcome for r in provider.requests()] == ["delivered"]
    provider.reset()
    assert provider.deliveries() == [] and provider.stats()["requests"] == 0


def test_a_client_that_stops_waiting_does_not_stop_the_delivery(provider):
    provider.configure(latency_s=2.0)

    with pytest.raises(ProviderTimeout) as timed_out:
        send(provider, timeout=0.2)

    assert isinstance(timed_out.value, TransientEmailError)
    # A timeout says nothing about whether the email went: here it did, a moment later.
    wait_until(provider.deliveries, GENEROUS_S, what="the timed-out email delivered anyway")


def test_random_failures_are_transient_and_repeat_with_the_seed(provider):
    provider.configure(failure_rate=0.5, seed=7)

    def outcomes() -> list[bool]:
        accepted = []
        for n in range(16):
            try:
                send(provider, subject=f"email {n}")
                accepted.append(True)
            except ProviderUnavailable as error:
                assert error.status == 503
                accepted.append(False)
        return accepted

    first = outcomes()
    assert True in first and False in first
    assert len(provider.requests()) == 16  # failed requests are counted too
    assert len(provider.deliveries()) == first.count(True)
    provider.reset()  # forgets, and restarts the random sequence from the seed
    assert outcomes() == first


def test_an_outage_answers_503_until_it_ends(provider):
    provider.configure(down=True)
    with pytest.raises(ProviderUnavailable):
        send(provider)
    provider.configure(down=False)
    send(provider)

    provider.outage(600)
    with pytest.raises(ProviderUnavailable) as during_window:
        send(provider)
    assert during_window.value.retry_after_s > 0
    provider.outage(600, starting_in=3600)  # a window in the future: up now
    send(provider)

    assert provider.stats()["by_outcome"] == {"down": 2, "delivered": 2}
    assert len(provider.deliveries()) == 2


@pytest.mark.parametrize("address", ["nobody@invalid", "ana@mail.invalid", "no-at-sign.example.com"])
def test_an_impossible_address_is_rejected_for_good(provider, address):
    with pytest.raises(EmailRejected) as rejected:
        send(provider, to=address)

    assert isinstance(rejected.value, PermanentError)  # the worker dead-letters it without retrying
    assert rejected.value.status == 422 and address in str(rejected.value)
    assert provider.deliveries() == []


def test_a_malformed_request_is_refused_with_a_reason(provider):
    reply = call("POST", f"{provider.url}/emails", {"to": "ana@example.com", "body": "no subject"})

    assert reply.status == 400 and "subject" in reply.error
    assert [r.outcome for r in provider.requests()] == ["bad_request"]


def test_the_same_idempotency_key_delivers_once(provider):
    first = send(provider, key="receipt:9812")
    again = send(provider, key="receipt:9812")

    assert again == first and len(provider.deliveries()) == 1
    assert [r.outcome for r in provider.requests()] == ["delivered", "replayed"]
    with pytest.raises(EmailRejected) as reused:
        send(provider, key="receipt:9812", subject="a different email")
    assert reused.value.status == 409


def test_a_failed_attempt_does_not_use_up_the_key(provider):
    provider.configure(down=True)
    with pytest.raises(ProviderUnavailable):
        send(provider, key="receipt:9813")
    provider.configure(down=False)

    send(provider, key="receipt:9813")

    assert len(provider.deliveries()) == 1


def test_two_sends_with_one_key_at_the_same_moment_deliver_once(provider):
    provider.configure(latency_s=0.3)  # both requests are inside the provider at the same time
    ids = []
    senders = [threading.Thread(target=lambda: ids.append(send(provider, key="receipt:9814"))) for _ in range(2)]
    for sender in senders:
        sender.start()
    for sender in senders:
        sender.join(GENEROUS_S)

    assert len(ids) == 2 and ids[0] == ids[1]
    assert len(provider.deliveries()) == 1


def test_bad_settings_are_refused_and_change_nothing(provider):
    before = provider.settings()
    with pytest.raises(InvalidArgument, match="failure_rate"):
        provider.configure(failure_rate=2)
    with pytest.raises(InvalidArgument, match="latncy_s"):
        provider.configure(latncy_s=1)
    assert provider.settings() == before
    with pytest.raises(InvalidArgument, match="latency_s"):
        EmailProvider.start(latency_s=-1)


def test_sigterm_lets_the_requests_in_flight_finish(provider):
    provider.configure(latency_s=2.0)
    answers = []
    sender = threading.Thread(target=lambda: answers.append(send(provider)))
    sender.start()
    wait_until(lambda: provider.health()["requests_in_flight"] == 1, GENEROUS_S, what="a send in flight")

    assert provider.terminate() == 0
    sender.join(GENEROUS_S)

    assert answers == ["msg_000001"]  # answered before the provider exited, not cut off


def test_a_provider_that_is_gone_is_a_transient_error(provider):
    provider.kill()

    with pytest.raises(ProviderUnreachable) as unreachable:
        send(provider)

    assert isinstance(unreachable.value, TransientEmailError)

