"""The SDK's HTTP: urllib with a deadline per exchange, and the client's transport (the service's
headers and the retry policy of §13.1)."""

from __future__ import annotations

import http.client
import json
import random
import re
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from email.message import Message
from typing import Any, Literal

from ._canonical import parse_json
from .errors import AuthorityApiError
from .retry import RETRYABLE_STATUSES, backoff_delay, retry_after_seconds

__all__ = ["Response", "Transport", "exchange", "service_url"]

USER_AGENT = "authority-runtime-python/0.1.0"


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Redirects are answered as errors: the API key must never follow one to another host."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


class _Watchdog:
    """Shuts down the connections of one exchange when its time is up, whatever they are waiting
    for (the TLS handshake, the headers, the next byte of a trickled body): urllib's own timeout
    bounds each socket operation only."""

    def __init__(self, seconds: float) -> None:
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        self._expired = False
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True
        self._timer.start()

    def watch(self, sock: socket.socket) -> None:
        """Watches a connected socket, through a duplicate that stays open until :meth:`stop`
        (shutting it down ends the connection for every descriptor of it, TLS included)."""
        duplicate = sock.dup()
        with self._lock:
            self._sockets.append(duplicate)
            if self._expired:
                self._shut(duplicate)

    def stop(self) -> bool:
        """Ends the watch; whether the time ran out first."""
        self._timer.cancel()
        with self._lock:
            for duplicate in self._sockets:
                duplicate.close()
            self._sockets.clear()
            return self._expired

    def _expire(self) -> None:
        with self._lock:
            self._expired = True
            for duplicate in self._sockets:
                self._shut(duplicate)

    @staticmethod
    def _shut(duplicate: socket.socket) -> None:
        try:
            duplicate.shutdown(socket.SHUT_RDWR)
        except OSError:  # already closed by the peer
            pass


class _WatchedConnection(http.client.HTTPConnection):
    """An HTTP connection that hands its socket to the exchange's watchdog once connected."""

    watchdog: _Watchdog | None = None

    def connect(self) -> None:
        super().connect()
        if self.watchdog is not None:
            self.watchdog.watch(self.sock)


class _WatchedTLSConnection(http.client.HTTPSConnection, _WatchedConnection):
    """An HTTPS connection whose TCP socket is watched before the handshake (the method order puts
    :class:`_WatchedConnection` between ``HTTPSConnection`` and ``HTTPConnection``)."""


class _Watched(urllib.request.AbstractHTTPHandler):
    """Opens watched connections instead of urllib's own."""

    def __init__(self, watchdog: _Watchdog) -> None:
        super().__init__()
        self._watchdog = watchdog

    def do_open(
        self, http_class: Any, req: urllib.request.Request, **http_conn_args: Any
    ) -> http.client.HTTPResponse:
        kind = _WatchedTLSConnection if issubclass(http_class, http.client.HTTPSConnection) else _WatchedConnection

        def connection(*args: Any, **kwargs: Any) -> http.client.HTTPConnection:
            opened = kind(*args, **kwargs)
            opened.watchdog = self._watchdog
            return opened

        return super().do_open(connection, req, **http_conn_args)


class _WatchedHTTPHandler(_Watched, urllib.request.HTTPHandler):
    pass


class _WatchedHTTPSHandler(_Watched, urllib.request.HTTPSHandler):
    pass


def _read(
    opener: urllib.request.OpenerDirector, request: urllib.request.Request, timeout: float
) -> tuple[int, bytes, Message]:
    try:
        with opener.open(request, timeout=timeout) as answer:
            return answer.status, answer.read(), answer.headers
    except urllib.error.HTTPError as error:
        return error.code, error.read(), error.headers


def exchange(
    request: urllib.request.Request, timeout: float, *, follow_redirects: bool = False
) -> tuple[int, bytes, Message]:
    """Sends ``request`` and reads its whole answer, whatever its status: ``(status, body, headers)``.

    ``timeout`` bounds the whole exchange, from the connection to the last byte of the body, not
    each read: a peer that trickles its answer is cut off when the time is up, with
    ``TimeoutError``. Any other failure to get a complete answer raises ``OSError``. Redirects are
    answered as they are (3xx) unless ``follow_redirects``. (Resolving the host name is not
    bounded: the standard library cannot interrupt it.)
    """
    watchdog = _Watchdog(timeout)
    handlers: list[urllib.request.BaseHandler] = [_WatchedHTTPHandler(watchdog), _WatchedHTTPSHandler(watchdog)]
    if not follow_redirects:
        handlers.append(_NoRedirect())
    try:
        try:
            answer = _read(urllib.request.build_opener(*handlers), request, timeout)
        finally:
            expired = watchdog.stop()
    except (OSError, http.client.HTTPException, ValueError) as error:
        if expired or isinstance(error, TimeoutError) or isinstance(getattr(error, "reason", None), TimeoutError):
            raise TimeoutError(f"no complete answer within {timeout} s") from error
        if isinstance(error, http.client.HTTPException):
            raise ConnectionError(f"broken answer: {error!r}") from error
        raise
    if expired:  # a body read to the end of a connection shut down at the deadline
        raise TimeoutError(f"no complete answer within {timeout} s")
    return answer


def service_url(base_url: str, path: str, query: Mapping[str, str] | None = None) -> str:
    """``base_url`` (trailing slashes dropped; a ``/v1`` suffix is kept) joined with ``path``. A
    path that starts with ``/v1`` does not repeat the suffix (the service strips one ``/v1``).

    >>> service_url("https://authority.example.com/v1/", "/intent/abc")
    'https://authority.example.com/v1/intent/abc'
    >>> service_url("https://authority.example.com/v1/", "/v1/physical/classify")
    'https://authority.example.com/v1/physical/classify'
    >>> service_url("https://authority.example.com", "/v1/physical/classify")
    'https://authority.example.com/v1/physical/classify'
    """
    if not base_url.startswith(("https://", "http://")):
        raise ValueError("base_url must be an http(s) URL")
    if path != "" and not path.startswith("/"):
        raise ValueError(f"a path starts with '/': {path!r}")
    root = base_url.rstrip("/")
    if urllib.parse.urlsplit(root).path.endswith("/v1") and (path == "/v1" or path.startswith("/v1/")):
        path = path.removeprefix("/v1")
    url = root + path
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
        status, "INVALID_RESPONSE", text[:200] or "no body", request_id=request_id, retryable=retryable
    )


Retry = Literal["safe", "unprocessed"]
"""Which failures a call may repeat. ``safe``: every retryable status, network failure and timeout
(reads, ``PUT`` and ``DELETE``, calls with an ``Idempotency-Key``, calls whose repetition changes
nothing). ``unprocessed``: only a 429 and a connection that could not be opened, the failures that
prove the request was not processed, for calls that would act twice (an approval, a new key)."""

_REPEATABLE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE"})
_IDEMPOTENCY_KEY = re.compile(r"[\x21-\x7e]{1,255}")
_VISIBLE_ASCII = re.compile(r"[\x21-\x7e]+")


def _not_sent(error: BaseException | None) -> bool:
    """Whether a transport failure proves the request never reached the service: the connection
    was refused, or the host name did not resolve."""
    reason = getattr(error, "reason", error)
    return isinstance(reason, (ConnectionRefusedError, socket.gaierror))


class Transport:
    """Sends one logical request, retrying 429 (after ``retry-after``), 500, 502, 503, 504 and
    network errors with exponential backoff and full jitter, up to ``max_attempts`` attempts, as
    its :data:`Retry` mode allows. Every attempt carries the same body and the same
    ``Idempotency-Key``."""

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
            if not _VISIBLE_ASCII.fullmatch(value):
                raise ValueError(f"{name} must be visible ASCII characters only (it travels in a header)")
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
        empty: bool = False,
        deadline: float | None = None,
        retry: Retry | None = None,
    ) -> Response:
        """The answer of a 2xx, or of an error status listed in ``results`` whose body is not the
        error envelope (a DENIED decision, say); raises :class:`AuthorityApiError` otherwise. With
        ``text``, a 2xx body is returned as text rather than parsed as JSON (the log key); with
        ``empty``, a 2xx without a body (``204 No Content``) has the body ``None`` rather than
        being ``INVALID_RESPONSE``. Each attempt, the whole answer read, takes at most ``timeout``
        seconds (``TIMEOUT`` otherwise). With ``deadline`` (a ``time.monotonic()`` instant), every
        attempt and wait ends by then: past it the call raises ``TIMEOUT`` rather than retry.
        ``retry`` defaults to ``safe`` for reads, ``PUT``, ``DELETE`` and calls with an
        ``idempotency_key``, and to ``unprocessed`` for any other ``POST`` or ``PATCH``."""
        if idempotency_key is not None and not _IDEMPOTENCY_KEY.fullmatch(idempotency_key):
            raise ValueError("idempotency_key must be 1 to 255 visible ASCII characters (the service refuses others)")
        if retry is None:
            retry = "safe" if method.upper() in _REPEATABLE_METHODS or idempotency_key is not None else "unprocessed"
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
            timeout = self._timeout
            if deadline is not None:
                timeout = min(timeout, deadline - time.monotonic())
                if timeout <= 0:
                    raise AuthorityApiError(0, "TIMEOUT", "no answer before the deadline", retryable=True)
            try:
                return self._attempt(method, url, data, headers, results, text, empty, timeout)
            except AuthorityApiError as error:
                if not error.retryable or attempt >= self._max_attempts:
                    raise
                if retry == "unprocessed" and error.status != 429 and not _not_sent(error.__cause__):
                    raise
                wait = backoff_delay(attempt, self._random)
                if error.retry_after is not None:
                    if error.retry_after > self._max_retry_after:
                        raise
                    wait = error.retry_after
                if deadline is not None:
                    wait = min(wait, max(0.0, deadline - time.monotonic()))
                self._sleep(wait)

    def _attempt(
        self,
        method: str,
        url: str,
        data: bytes | None,
        headers: dict[str, str],
        results: frozenset[int],
        text_answer: bool,
        empty_answer: bool,
        timeout: float,
    ) -> Response:
        request = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            status, raw, answer_headers = exchange(request, timeout)
        except TimeoutError as error:
            raise AuthorityApiError(
                0, "TIMEOUT", f"no complete answer within {round(timeout, 3)} s", retryable=True
            ) from error
        except OSError as error:
            raise AuthorityApiError(0, "NETWORK_ERROR", f"request failed: {error}", retryable=True) from error
        request_id = answer_headers.get("x-request-id")
        text = raw.decode("utf-8", errors="replace")
        try:
            parsed: Any = parse_json(raw) if raw else None
        except ValueError:
            parsed = None
        if 200 <= status < 300:
            if text_answer:
                return Response(status, text, request_id)
            if raw == b"" and empty_answer:
                return Response(status, None, request_id)
            if parsed is None:
                raise AuthorityApiError(status, "INVALID_RESPONSE", "the answer is not JSON", request_id=request_id)
            return Response(status, parsed, request_id)
        is_envelope = isinstance(parsed, dict) and isinstance(parsed.get("error"), dict)
        if status in results and parsed is not None and not is_envelope:
            return Response(status, parsed, request_id)
        failure = _envelope_error(status, parsed, request_id, text)
        if status == 429:
            failure.retry_after = retry_after_seconds(answer_headers.get("retry-after"))
        raise failure
