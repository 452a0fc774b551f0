"""The one rule for what a job or an event carries: a JSON object of ids and a few facts, at most 64 KiB.

Shared by the queue, the outbox and the scheduler, so a payload refused by one is refused by all, with
the same words.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

MAX_PAYLOAD_BYTES = 64 * 1024


def to_json(payload: object, *, error: type[Exception], nothing_done: str, advice: str) -> str:
    """`payload` as compact JSON text; `error(...)` saying what is wrong and what to do instead.

    `nothing_done` ends every message ("Nothing was enqueued."); `advice` is what to carry instead of a
    payload that is too big.
    """
    if payload is None:
        payload = {}
    if isinstance(payload, (str, bytes)):
        raise error(f"payload must be a dict, not {type(payload).__name__} ({str(payload)[:40]!r}...): "
                    f"pass ids as a dict, e.g. {{'order_id': 9812}}. {nothing_done}")
    if not isinstance(payload, Mapping):
        raise error(f"payload must be a dict (a JSON object), not {type(payload).__name__}. {nothing_done}")

    def refuse(value: object):
        raise TypeError(f"{type(value).__name__} {value!r:.40}")

    try:
        text = json.dumps(payload, allow_nan=False, default=refuse, separators=(",", ":"))
    except (TypeError, ValueError) as problem:
        raise error(f"payload cannot be stored as JSON ({problem}): keep to str, int, float, bool, None, "
                    f"lists and dicts; pass an id or an ISO date string instead. {nothing_done}") from None
    if "\\u0000" in text and _holds_nul(payload):  # the fast test first; a backslash-u0000 string passes it
        raise error(f"payload holds a NUL character (\\u0000), which PostgreSQL's jsonb cannot store: remove it "
                    f"(it is almost always a bug upstream). {nothing_done}")
    size = len(text.encode())
    if size > MAX_PAYLOAD_BYTES:
        raise error(f"payload is {size / 1024:.0f} KiB; the limit is {MAX_PAYLOAD_BYTES // 1024} KiB. "
                    f"{advice} {nothing_done}")
    return text


def _holds_nul(value: object) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, Mapping):
        return any(_holds_nul(k) or _holds_nul(v) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return any(_holds_nul(v) for v in value)
    return False
