"""The one rule for what a job or an event carries: a JSON object of ids and a few facts, at most 64 KiB of
UTF-8 and 100 levels deep.

Shared by the queue, the outbox and the scheduler, so a payload refused by one is refused by all, with
the same words. Everything is checked in Python, before a statement is sent: a payload PostgreSQL would
refuse (a NUL, a lone surrogate) would otherwise abort the caller's whole transaction with it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

MAX_PAYLOAD_BYTES = 64 * 1024  # of UTF-8, as stored: an "é" counts 2, a "中" 3, an emoji 4
MAX_PAYLOAD_DEPTH = 100  # objects and arrays inside each other; Python's json reads ~1,000 at most


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

    too_deep = (f"payload is nested deeper than {MAX_PAYLOAD_DEPTH} levels of dicts and lists: pass ids and a "
                f"few facts, not a tree. {nothing_done}")
    try:
        # ensure_ascii=False: the text as PostgreSQL stores it (UTF-8), not six characters per "中"
        text = json.dumps(payload, ensure_ascii=False, allow_nan=False, default=refuse, separators=(",", ":"))
    except RecursionError:
        raise error(too_deep) from None
    except (TypeError, ValueError) as problem:
        raise error(f"payload cannot be stored as JSON ({problem}): keep to str, int, float, bool, None, "
                    f"lists and dicts; pass an id or an ISO date string instead. {nothing_done}") from None
    if "\\u0000" in text and _holds_nul(payload):  # the fast test first; a backslash-u0000 string passes it
        raise error(f"payload holds a NUL character (\\u0000), which PostgreSQL's jsonb cannot store: remove it "
                    f"(it is almost always a bug upstream). {nothing_done}")
    try:
        size = len(text.encode())
    except UnicodeEncodeError as problem:
        bad = text[problem.start:problem.end].encode("utf-8", "backslashreplace").decode()
        raise error(f"payload holds a lone surrogate ({bad}), which is not Unicode and cannot be stored: it is "
                    f"what decoding bytes with errors='surrogateescape' leaves behind; decode them as UTF-8 "
                    f"(or with errors='replace') first. {nothing_done}") from None
    if size > MAX_PAYLOAD_BYTES:
        raise error(f"payload is {size:,} bytes of UTF-8; the limit is {MAX_PAYLOAD_BYTES:,} "
                    f"({MAX_PAYLOAD_BYTES // 1024} KiB). {advice} {nothing_done}")
    if text.count("{") + text.count("[") > MAX_PAYLOAD_DEPTH and depth(payload) > MAX_PAYLOAD_DEPTH:
        raise error(too_deep)  # (the count, which strings can inflate, only decides whether to measure)
    return text


def depth(value: object) -> int:
    """How many dicts and lists are nested inside each other at the deepest point (0 for a number)."""
    deepest, todo = 0, [(value, 1)]
    while todo:  # a loop, not recursion: the value may be deeper than Python's recursion limit
        item, level = todo.pop()
        children = item.values() if isinstance(item, Mapping) else item if isinstance(item, (list, tuple)) else None
        if children is not None:
            deepest = max(deepest, level)
            todo.extend((child, level + 1) for child in children)
    return deepest


def _holds_nul(value: object) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, Mapping):
        return any(_holds_nul(k) or _holds_nul(v) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return any(_holds_nul(v) for v in value)
    return False
