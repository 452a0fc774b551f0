"""Lab 09's flash sale (course/programs/flash_sale.py): with the newsletter below the confirmations'
priority in one queue, no worker takes a newsletter job while two confirmations wait for it. Rates are
the lab's measurement; the claim order is what the queue guarantees."""

from __future__ import annotations

import pytest

from course.errors import InvalidArgument
from course.programs import flash_sale


@pytest.mark.slow
def test_no_newsletter_job_is_claimed_while_two_confirmations_wait(schema):
    sale = flash_sale.run(schema, bulk_jobs=150, confirmations_per_s=48, sale_begins_s=0.8, sale_s=1.0, after_s=0.5)
    assert len(sale.confirmations) == 48 and len(sale.newsletter_claims) > 0
    assert sale.claimed_while_waiting(at_least=2) == 0
    assert sale.sale[0] < sale.sale_done < sale.end


def test_claimed_while_waiting_counts_claims_made_past_waiting_confirmations():
    sale = flash_sale.FlashSale(sale=(1.0, 1.1), sale_done=2.0, newsletter_starts=[], confirmation_starts=[],
                                end=3.0, newsletter_claims=[0.5, 1.5, 2.5],
                                confirmations=[(1.0, 1.8), (1.0, 1.9), (1.1, 2.0)])
    assert sale.claimed_while_waiting(at_least=2) == 1  # the claim at 1.5, past three waiting
    assert sale.started("before") == 0 and sale.windows()["sale"] == (1.0, 2.0)


def test_a_sale_of_no_length_is_refused(schema):
    with pytest.raises(InvalidArgument):
        flash_sale.run(schema, sale_s=0)
