"""The client's retry policy (contract §13.1), as pure functions."""

from __future__ import annotations

import email.utils
import math
from collections.abc import Callable
from datetime import datetime, timezone

__all__ = ["RETRYABLE_STATUSES", "backoff_delay", "retry_after_seconds"]

#: Answers worth another attempt; every other error status is final.
RETRYABLE_STATUSES = frozenset({429, 500, 502, 503, 504})
#: First backoff ceiling and its cap, in seconds.
BASE_DELAY = 0.2
MAX_DELAY = 5.0


def backoff_delay(
    attempt: int, random: Callable[[], float], *, base: float = BASE_DELAY, cap: float = MAX_DELAY
) -> float:
    """Exponential backoff with full jitter: a uniform draw in ``[0, min(cap, base * 2^(attempt-1)))``
    after failed attempt number ``attempt`` (from 1).

    >>> backoff_delay(1, lambda: 0.5)
    0.1
    >>> backoff_delay(10, lambda: 0.5)
    2.5
    """
    if attempt < 1:
        raise ValueError("attempt counts from 1")
    return float(random() * min(cap, base * 2 ** (attempt - 1)))


def retry_after_seconds(
    value: str | None, now: Callable[[], datetime] = lambda: datetime.now(timezone.utc)
) -> float | None:
    """The wait a ``retry-after`` header asks for (delay seconds or an HTTP date), ``None`` when
    absent or unreadable.

    >>> retry_after_seconds("3")
    3.0
    >>> retry_after_seconds("soon") is None
    True
    """
    if value is None:
        return None
    text = value.strip()
    if text.isdigit():
        return float(text)
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        return None
    seconds = (when - now()).total_seconds()
    return max(0.0, seconds) if math.isfinite(seconds) else None
