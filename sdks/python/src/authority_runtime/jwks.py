"""Where the verifiers find public keys: a pinned key set, or the service's JWKS endpoint."""

from __future__ import annotations

import json
import threading
import time
import urllib.request
from collections.abc import Callable, Mapping
from typing import Any, Protocol, runtime_checkable

from ._canonical import canonical_json, parse_json
from ._http import exchange

__all__ = ["KeySource", "KeySourceError", "RemoteJwks", "StaticJwks", "key_algorithm", "key_source"]

Jwk = Mapping[str, Any]


class KeySourceError(Exception):
    """A key source has no key set at all to consult (the verifier reports
    ``KEY_SOURCE_UNAVAILABLE``)."""


@runtime_checkable
class KeySource(Protocol):
    """Answers the public JWK published under a kid, or ``None`` when the kid is unknown.

    It raises (preferably :class:`KeySourceError`) only when it has no key set to consult.
    """

    def get_key(self, kid: str) -> Jwk | None:
        ...


def key_algorithm(jwk: Jwk) -> str:
    """The algorithm a public JWK is bound to, from its own ``alg`` member, which must match its
    type: ``EdDSA`` (OKP, Ed25519), ``ES256`` (EC, P-256) or ``RS256`` (RSA). Raises ``ValueError``
    for any other key; symmetric keys are never usable.

    >>> key_algorithm({"kty": "OKP", "crv": "Ed25519", "x": "...", "alg": "EdDSA"})
    'EdDSA'
    """
    alg, kty, crv = jwk.get("alg"), jwk.get("kty"), jwk.get("crv")
    if not isinstance(alg, str):
        raise ValueError("the key has no alg member")
    if alg == "EdDSA" and kty == "OKP" and crv == "Ed25519":
        return alg
    if alg == "ES256" and kty == "EC" and crv == "P-256":
        return alg
    if alg == "RS256" and kty == "RSA":
        return alg
    if alg in ("EdDSA", "ES256", "RS256"):
        raise ValueError(f"{alg} does not fit a key of type {kty!r} {crv!r}")
    raise ValueError(f"unsupported key algorithm {alg!r}")


def _check_key(jwk: Any, position: int) -> str:
    if not isinstance(jwk, Mapping):
        raise TypeError(f"keys[{position}] is not an object")
    kid = jwk.get("kid")
    if not isinstance(kid, str) or kid == "":
        raise TypeError(f"keys[{position}] has no kid")
    use = jwk.get("use")
    if use is not None and use != "sig":
        raise TypeError(f"key {kid} is not a signature key (use {use!r})")
    try:
        key_algorithm(jwk)
    except ValueError as error:
        raise TypeError(f"key {kid}: {error}") from error
    return kid


class StaticJwks:
    """A fixed key set, pinned in the verifier's configuration and never fetched.

    Every key needs a ``kid`` and an ``alg`` matching its type; a malformed key or a kid listed
    twice raises ``TypeError`` (with ``merge_identical``, a kid listed twice with identical keys is
    accepted once: the current JWKS and the archive fetched a moment apart may both list a key).

    >>> jwks = StaticJwks({"keys": []})
    >>> jwks.get_key("acme-1700000000-ABCDEFGH") is None
    True
    """

    def __init__(self, jwks: Mapping[str, Any], *, merge_identical: bool = False) -> None:
        keys = jwks.get("keys") if isinstance(jwks, Mapping) else None
        if not isinstance(keys, list):
            raise TypeError("expected a JWK set: {'keys': [...]}")
        self._keys: dict[str, dict[str, Any]] = {}
        for position, jwk in enumerate(keys):
            kid = _check_key(jwk, position)
            known = self._keys.get(kid)
            if known is not None:
                if merge_identical and canonical_json(known) == canonical_json(dict(jwk)):
                    continue
                raise TypeError(f"duplicate kid {kid}")
            self._keys[kid] = dict(jwk)

    def get_key(self, kid: str) -> Jwk | None:
        """The key published under ``kid``, or ``None``."""
        return self._keys.get(kid)


class RemoteJwks:
    """The service's key set, ``GET /.well-known/authority/<tenant>/jwks.json``, fetched and cached.

    The first lookup fetches the set; an unknown kid re-fetches it at most once per
    ``min_refetch_interval`` seconds (30), counted from the last re-fetch or failed fetch (a kid
    published just after the first load is fetched at once), so a rotation is picked up without a
    restart; a set older
    than ``max_age`` (300, the endpoint's ``max-age``) is refreshed on the next lookup; an outage
    keeps the cached set. With no set ever loaded, lookups raise :class:`KeySourceError`. Keys that
    are unusable or share a kid are left out. ``timeout`` bounds each fetch as a whole, the answer
    read to its end. Thread-safe.

    >>> jwks = RemoteJwks("https://authority.example.com/.well-known/authority/acme/jwks.json")
    """

    def __init__(
        self,
        url: str,
        *,
        min_refetch_interval: float = 30.0,
        max_age: float = 300.0,
        timeout: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not url.startswith(("https://", "http://")):
            raise ValueError("RemoteJwks needs an http(s) URL")
        self._url = url
        self._min_interval = min_refetch_interval
        self._max_age = max_age
        self._timeout = timeout
        self._clock = clock
        self._lock = threading.Lock()
        self._keys: dict[str, dict[str, Any]] | None = None
        self._loaded_at = float("-inf")
        self._attempted_at = float("-inf")
        self._last_error: Exception | None = None

    def _load(self) -> None:
        request = urllib.request.Request(self._url, headers={"accept": "application/json"})
        status, raw, _ = exchange(request, self._timeout, follow_redirects=True)
        if not 200 <= status < 300:
            raise KeySourceError(f"the JWKS endpoint answered HTTP {status}")
        body = parse_json(raw)
        keys = body.get("keys") if isinstance(body, dict) else None
        if not isinstance(keys, list):
            raise KeySourceError("the JWKS endpoint answered no key set")
        usable: dict[str, dict[str, Any]] = {}
        duplicated: set[str] = set()
        for position, jwk in enumerate(keys):
            try:
                kid = _check_key(jwk, position)
            except TypeError:
                continue
            if kid in usable:
                duplicated.add(kid)
            usable[kid] = dict(jwk)
        for kid in duplicated:  # a kid published twice is ambiguous: neither copy is trusted
            del usable[kid]
        self._keys = usable
        self._loaded_at = self._clock()
        self._last_error = None

    def _refresh(self, now: float, scheduled: bool) -> bool:
        """Fetches the set unless the rate limit forbids it; whether a set was loaded. The limit
        spaces re-fetches on an unknown kid and retries after a failure; a scheduled load that
        worked (the first, or one past ``max_age``) does not start it."""
        if now - self._attempted_at < self._min_interval:
            return False
        self._attempted_at = now
        try:
            self._load()
        except (OSError, ValueError, KeySourceError, json.JSONDecodeError) as error:
            self._last_error = error
            return False
        if scheduled:
            self._attempted_at = float("-inf")
        return True

    def get_key(self, kid: str) -> Jwk | None:
        """The key published under ``kid``, fetching the set when needed; ``None`` when unknown."""
        with self._lock:
            now = self._clock()
            just_loaded = False
            if self._keys is None or now - self._loaded_at >= self._max_age:
                just_loaded = self._refresh(now, scheduled=True)
            if self._keys is None:
                raise KeySourceError(f"no JWKS loaded from {self._url}: {self._last_error}")
            # An unknown kid in a set this call just loaded is not fetched again at once.
            if kid not in self._keys and not just_loaded:
                self._refresh(now, scheduled=False)
            return self._keys.get(kid)


def key_source(jwks: Mapping[str, Any] | KeySource, *, merge_identical: bool = False) -> KeySource:
    """A key set document becomes a :class:`StaticJwks`; a key source is used as it is."""
    if isinstance(jwks, KeySource) and not isinstance(jwks, Mapping):
        return jwks
    if isinstance(jwks, Mapping):
        return StaticJwks(jwks, merge_identical=merge_identical)
    raise TypeError("jwks must be a JWK set {'keys': [...]} or a key source with get_key(kid)")
