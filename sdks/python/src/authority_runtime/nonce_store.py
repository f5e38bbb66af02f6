"""Nonce stores: each Authority Decision Token executes once."""

from __future__ import annotations

import json
import threading
import time
import urllib.request
from collections.abc import Callable
from typing import Protocol, runtime_checkable

from ._canonical import parse_json
from ._http import exchange, service_url
from .errors import NonceStoreError

__all__ = ["InMemoryNonceStore", "NonceStore", "RemoteNonceStore", "TokenNonceStore"]

_SWEEP_INTERVAL = 10.0


@runtime_checkable
class NonceStore(Protocol):
    """Remembers used nonces. ``consume`` atomically records ``nonce`` and returns ``True`` the
    first time it is seen, ``False`` after. ``expires_at`` (unix seconds) is when the verifier
    rejects the token anyway (its ``exp`` plus the skew), so the nonce may be forgotten from then.

    When the store cannot tell, it must raise (preferably :class:`~authority_runtime.NonceStoreError`),
    never guess ``True``; the verifier then refuses the token.
    """

    def consume(self, nonce: str, expires_at: float) -> bool:
        ...


@runtime_checkable
class TokenNonceStore(Protocol):
    """A nonce store that needs the token itself, such as the service's consume endpoint
    (:class:`RemoteNonceStore`). The verifier calls ``consume_token`` instead of ``consume`` when a
    store has it."""

    def consume_token(self, token: str, *, nonce: str, expires_at: float, adapter_id: str, target_system: str) -> bool:
        ...


class InMemoryNonceStore:
    """A nonce store in this process's memory: right for one adapter process only. Several
    processes executing the same kind of token must share a store (:class:`RemoteNonceStore`).

    Expired nonces are forgotten (swept at most every 10 s, and when full). Unexpired nonces are
    never evicted: when ``max_entries`` of them are held, ``consume`` raises
    :class:`~authority_runtime.NonceStoreError` and the verifier refuses the token. Give it the
    verifier's clock (unix seconds). Thread-safe.

    >>> store = InMemoryNonceStore()
    >>> store.consume("n-1", time.time() + 300), store.consume("n-1", time.time() + 300)
    (True, False)
    """

    def __init__(self, *, max_entries: int = 100_000, clock: Callable[[], float] = time.time) -> None:
        if isinstance(max_entries, bool) or not isinstance(max_entries, int) or max_entries < 1:
            raise ValueError("max_entries must be a positive integer")
        self._max_entries = max_entries
        self._clock = clock
        self._expiries: dict[str, float] = {}
        self._next_sweep = float("-inf")
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._expiries)

    def consume(self, nonce: str, expires_at: float) -> bool:
        """Records ``nonce`` until ``expires_at``; ``True`` on first use, ``False`` on a replay."""
        if not isinstance(nonce, str) or nonce == "":
            raise TypeError("nonce must be a non-empty string")
        with self._lock:
            now = self._clock()
            if now >= self._next_sweep or len(self._expiries) >= self._max_entries:
                self._next_sweep = now + _SWEEP_INTERVAL
                for known in [n for n, expiry in self._expiries.items() if expiry <= now]:
                    del self._expiries[known]
            if nonce in self._expiries:
                return False
            if len(self._expiries) >= self._max_entries:
                raise NonceStoreError("unavailable", f"in-memory nonce store is full ({self._max_entries} live nonces)")
            self._expiries[nonce] = expires_at
            return True


class RemoteNonceStore:
    """The service's nonce store: ``POST <base_url>/authority/tokens/consume`` with ``{token,
    adapterId, targetSystem}``. The service verifies the token again and consumes its nonce
    atomically in its database, so any number of adapter processes can share it. Needs a key with
    the permission ``intent:token:consume``.

    Answers map as follows (fail closed): ``{valid: true}`` → ``True``;
    ``{valid: false, reason: NONCE_ALREADY_CONSUMED}`` → ``False``; ``{valid: false, reason}``
    otherwise → :class:`~authority_runtime.NonceStoreError` ``rejected`` with that reason (e.g.
    ``TENANT_KILL_SWITCH``); any other status or body, a network error or a timeout →
    ``NonceStoreError`` ``unavailable``. ``timeout`` bounds the whole exchange, the answer read to
    its end. It is not retried: a retry after a lost answer would see the nonce consumed and refuse
    a good token, which is the safe side but still wrong.
    """

    def __init__(self, base_url: str, tenant_id: str, api_key: str, *, timeout: float = 5.0) -> None:
        for name, value in (("base_url", base_url), ("tenant_id", tenant_id), ("api_key", api_key)):
            if not isinstance(value, str) or value == "":
                raise TypeError(f"RemoteNonceStore: {name} must be a non-empty string")
        self.endpoint = service_url(base_url, "/authority/tokens/consume")
        self._tenant_id = tenant_id
        self._api_key = api_key
        self._timeout = timeout

    def consume_token(self, token: str, *, nonce: str, expires_at: float, adapter_id: str, target_system: str) -> bool:
        """Asks the service to verify ``token`` and consume its nonce; see the class documentation.
        ``expires_at`` is not sent: the service reads the expiry from the token."""
        body = json.dumps({"token": token, "adapterId": adapter_id, "targetSystem": target_system})
        request = urllib.request.Request(
            self.endpoint,
            data=body.encode("utf-8"),
            method="POST",
            headers={
                "authorization": f"Bearer {self._api_key}",
                "x-tenant-id": self._tenant_id,
                "content-type": "application/json",
                "accept": "application/json",
            },
        )
        try:
            status, raw, _ = exchange(request, self._timeout)
        except (OSError, ValueError) as error:
            raise NonceStoreError("unavailable", f"nonce store unreachable: {error}") from error
        if status != 200:
            raise NonceStoreError("unavailable", f"nonce store answered HTTP {status}")
        try:
            answer = parse_json(raw)
        except ValueError as error:
            raise NonceStoreError("unavailable", f"nonce store answered HTTP {status} without JSON") from error
        if not isinstance(answer, dict):
            raise NonceStoreError("unavailable", f"nonce store answered HTTP {status}")
        if answer.get("valid") is True:
            claims = answer.get("claims")
            if isinstance(claims, dict) and claims.get("nonce", nonce) != nonce:
                raise NonceStoreError("unavailable", "nonce store confirmed a different nonce")
            return True
        reason = answer.get("reason")
        if answer.get("valid") is False and isinstance(reason, str):
            if reason == "NONCE_ALREADY_CONSUMED":
                return False
            raise NonceStoreError("rejected", f"nonce store rejected the token: {reason}", remote_reason=reason)
        raise NonceStoreError("unavailable", "nonce store answered an unexpected body")
