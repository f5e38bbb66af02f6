"""The client's HTTP transport: urllib, the service's headers and the retry policy of §13.1."""

from __future__ import annotations

import json
import random
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ._canonical import parse_json
from .errors import AuthorityApiError
from .retry import RETRYABLE_STATUSES, backoff_delay, retry_after_seconds

__all__ = ["Response", "Transport", "no_redirects", "service_url"]

USER_AGENT = "authority-runtime-python/0.1.0"


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Redirects are answered as errors: the API key must never follow one to another host."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def no_redirects() -> urllib.request.OpenerDirector:
    """An opener that follows no redirect."""
    return urllib.request.build_opener(_NoRedirect())


def service_url(base_url: str, path: str, query: Mapping[str, str] | None = None) -> str:
    """``base_url`` (trailing slashes dropped; a ``/v1`` suffix is kept) joined with ``path``.

    >>> service_url("https://authority.example.com/v1/", "/intent/abc")
    'https://authority.example.com/v1/intent/abc'
    """
    if not base_url.startswith(("https://", "http://")):
        raise ValueError("base_url must be an http(s) URL")
    url = base_url.rstrip("/") + path
    return f"{url}?{urllib.parse.urlencode(query)}" if query else url


@dataclass(frozen=True)
class Response:
    """A parsed answer: the status, the JSON body (the text, for a ``text`` request) and the request id."""

    status: int
    body: Any
    request_id: str | None


def _envelope_error(status: int, body: Any, request_id: str | None, text: str) -> AuthorityApiError:
    retryable = status in RETRYABLE_STATUSES
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict) and isinstance(error.get("code"), str):
        details = error.get("details")
        return AuthorityApiError(
            status,
            error["code"],
            str(error.get("message", "")),
            details=details if isinstance(details, dict) else None,
            request_id=str(error.get("requestId") or request_id or "") or None,
            retryable=retryable,
        )
    return AuthorityApiError(
        status, f"HTTP_{status}", text[:200] or "no body", request_id=request_id, retryable=retryable
    )


class Transport:
    """Sends one logical request, retrying 429 (after ``retry-after``), 500, 502, 503, 504 and
    network errors with exponential backoff and full jitter, up to ``max_attempts`` attempts.
    Every attempt carries the same body and the same ``Idempotency-Key``."""

    def __init__(
        self,
        base_url: str,
        tenant_id: str,
        api_key: str,
        *,
        timeout: float,
        max_attempts: int,
        max_retry_after: float = 60.0,
        sleep: Callable[[float], None] = time.sleep,
        random_source: Callable[[], float] = random.random,
    ) -> None:
        service_url(base_url, "")
        for name, value in (("tenant_id", tenant_id), ("api_key", api_key)):
            if not isinstance(value, str) or value == "":
                raise TypeError(f"{name} must be a non-empty string")
        if isinstance(max_attempts, bool) or not isinstance(max_attempts, int) or max_attempts < 1:
            raise ValueError("max_attempts must be a positive integer")
        if not timeout > 0:
            raise ValueError("timeout must be positive")
        self.base_url = base_url
        self.tenant_id = tenant_id
        self._api_key = api_key
        self._timeout = timeout
        self._max_attempts = max_attempts
        self._max_retry_after = max_retry_after
        self._sleep = sleep
        self._random = random_source
        self._opener = no_redirects()

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        query: Mapping[str, str] | None = None,
        idempotency_key: str | None = None,
        results: frozenset[int] = frozenset(),
        authenticated: bool = True,
        text: bool = False,
    ) -> Response:
        """The answer of a 2xx, or of an error status listed in ``results`` whose body is not the
        error envelope (a DENIED decision, say); raises :class:`AuthorityApiError` otherwise. With
        ``text``, a 2xx body is returned as text rather than parsed as JSON (the log key)."""
        url = service_url(self.base_url, path, query)
        data = None if body is None else json.dumps(body, allow_nan=False).encode("utf-8")
        headers = {"accept": "text/plain" if text else "application/json", "user-agent": USER_AGENT}
        if authenticated:
            headers["authorization"] = f"Bearer {self._api_key}"
            headers["x-tenant-id"] = self.tenant_id
        if data is not None:
            headers["content-type"] = "application/json"
        if idempotency_key is not None:
            headers["idempotency-key"] = idempotency_key
        attempt = 0
        while True:
            attempt += 1
            try:
                return self._attempt(method, url, data, headers, results, text)
            except AuthorityApiError as error:
                if not error.retryable or attempt >= self._max_attempts:
                    raise
                wait = backoff_delay(attempt, self._random)
                if error.retry_after is not None:
                    if error.retry_after > self._max_retry_after:
                        raise
                    wait = error.retry_after
                self._sleep(wait)

    def _attempt(
        self,
        method: str,
        url: str,
        data: bytes | None,
        headers: dict[str, str],
        results: frozenset[int],
        text_answer: bool = False,
    ) -> Response:
        request = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            with self._opener.open(request, timeout=self._timeout) as answer:
                status, raw, answer_headers = answer.status, answer.read(), answer.headers
        except urllib.error.HTTPError as error:
            status, raw, answer_headers = error.code, error.read(), error.headers
        except (socket.timeout, TimeoutError) as error:
            raise AuthorityApiError(0, "TIMEOUT", f"no answer within {self._timeout} s", retryable=True) from error
        except (urllib.error.URLError, OSError) as error:
            raise AuthorityApiError(0, "NETWORK_ERROR", f"request failed: {error}", retryable=True) from error
        request_id = answer_headers.get("x-request-id") if answer_headers is not None else None
        text = raw.decode("utf-8", errors="replace")
        try:
            parsed: Any = parse_json(raw) if raw else None
        except ValueError:
            parsed = None
        if 200 <= status < 300:
            if text_answer:
                return Response(status, text, request_id)
            if parsed is None:
                raise AuthorityApiError(status, "INVALID_RESPONSE", "the answer is not JSON", request_id=request_id)
            return Response(status, parsed, request_id)
        is_envelope = isinstance(parsed, dict) and isinstance(parsed.get("error"), dict)
        if status in results and parsed is not None and not is_envelope:
            return Response(status, parsed, request_id)
        failure = _envelope_error(status, parsed, request_id, text)
        if status == 429 and answer_headers is not None:
            failure.retry_after = retry_after_seconds(answer_headers.get("retry-after"))
        raise failure
