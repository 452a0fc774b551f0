"""12.retry_policy: backoff with full jitter, capped, and a limit on attempts (the material's red flags:
retries forever, or immediately)."""

from __future__ import annotations

import random
import statistics

from course.grading.trial import Trial
from course.grading.checks import exercise_check, shared


# -- 12.retry_policy --------------------------------------------------------------------------------------


@exercise_check("12.retry_policy")
def retry_policy(t: Trial, MAX_ATTEMPTS, retry_delay):
    attempts = t.answer("MAX_ATTEMPTS", MAX_ATTEMPTS)
    t.expect("8 attempts, then the dead-letter table (a cap: not retries forever)", got=attempts, expected=8,
             example="MAX_ATTEMPTS", note="a job that can never succeed must stop somewhere: StayHub's policy is 8")
    random.seed(12)  # the learner's jitter, if it uses the random module, becomes repeatable
    # The backoff-and-jitter rule is 07.backoff's, judged by the same checker (checks/shared.py).
    shared.expect_backoff_with_full_jitter(
        t, lambda n: t.call_many(retry_delay, [((n,), {})] * shared.DRAWS, during=f"retry_delay({n}), {shared.DRAWS:,} times"),
        "retry_delay({n})", at_cap=shared.AT_CAP + (100, 1000))
    # The material's red flags, by name.
    means = {n: statistics.fmean(t.call_many(retry_delay, [((n,), {})] * 300, during=f"retry_delay({n}), 300 times"))
             for n in (1, 7)}
    t.expect("not immediately: the first retry waits a while on average", ok=means[1] > 0.1,
             got=f"mean of retry_delay(1): {means[1]:.3f} s", expected="about 0.5 s",
             example="retry_delay(1)", note="an instant retry hits a provider that is down again at once")
    t.expect("backoff: the waits grow (attempt 7 waits far longer than attempt 1)",
             ok=means[1] > 0 and means[7] > 10 * means[1], got=f"means: attempt 1 {means[1]:.2f} s, attempt 7 {means[7]:.2f} s",
             expected="attempt 7's mean more than 10x attempt 1's", example="retry_delay(1) vs retry_delay(7)",
             note="double the ceiling each time: 1, 2, 4, ... s")
