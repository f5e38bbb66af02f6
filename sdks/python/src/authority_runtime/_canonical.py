"""RFC 8785 (JCS) canonical JSON, and JSON parsing with the rules of JavaScript's ``JSON.parse``.

The audit chain hashes entries as ``sha256_hex(JCS(entry without entryHash))`` and webhook payloads
are signed over their JCS form, so a verifier must produce exactly the bytes the service produced:
members sorted by their UTF-16 code units, numbers written as ECMAScript writes them, strings
escaped as ``JSON.stringify`` escapes them.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from typing import Any

__all__ = ["CanonicalJsonError", "canonical_json", "parse_json", "sha256_hex"]


class CanonicalJsonError(ValueError):
    """The value has no canonical form (a non-finite number, a lone surrogate, a non-JSON type)."""


_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_REPR = re.compile(r"(\d+)(?:\.(\d+))?(?:e([+-]\d+))?")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parse_json(text: str | bytes) -> Any:
    """Parses JSON as ``JSON.parse`` does: ``NaN`` and ``Infinity`` are refused, a leading BOM of
    bytes is dropped (as a UTF-8 decoder does). Raises ``ValueError`` for anything that is not JSON.

    >>> parse_json('{"a": [1, 2.5, null]}')
    {'a': [1, 2.5, None]}
    """
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8")
        if text.startswith("\ufeff"):
            text = text[1:]
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except RecursionError as error:
        raise ValueError("JSON nested too deeply") from error


def _number(value: int | float) -> str:
    try:
        number = float(value)
    except OverflowError as error:
        raise CanonicalJsonError("integer too large for a JSON number") from error
    if not math.isfinite(number):
        raise CanonicalJsonError("non-finite number")
    if number == 0:
        return "0"
    sign = "-" if number < 0 else ""
    match = _REPR.fullmatch(repr(abs(number)))
    if match is None:  # pragma: no cover - repr of a finite float always matches
        raise CanonicalJsonError(f"unexpected float form {number!r}")
    whole, fraction, exponent = match.group(1), match.group(2) or "", int(match.group(3) or 0)
    digits = whole + fraction
    point = len(whole) + exponent  # the decimal point sits after `point` digits of `digits`
    stripped = digits.lstrip("0")
    point -= len(digits) - len(stripped)
    digits = stripped.rstrip("0")
    k, n = len(digits), point
    # ECMAScript Number::toString, with s = digits and value = s * 10^(n - k).
    if k <= n <= 21:
        text = digits + "0" * (n - k)
    elif 0 < n <= 21:
        text = f"{digits[:n]}.{digits[n:]}"
    elif -6 < n <= 0:
        text = f"0.{'0' * -n}{digits}"
    else:
        power = n - 1
        mantissa = digits if k == 1 else f"{digits[0]}.{digits[1:]}"
        text = f"{mantissa}e{'+' if power > 0 else '-'}{abs(power)}"
    return sign + text


def _string(value: str) -> str:
    out = ['"']
    for char in value:
        code = ord(char)
        escaped = _ESCAPES.get(char)
        if escaped is not None:
            out.append(escaped)
        elif code < 0x20:
            out.append(f"\\u{code:04x}")
        elif 0xD800 <= code <= 0xDFFF:
            raise CanonicalJsonError("lone surrogate in a string")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def _utf16_key(name: str) -> bytes:
    return name.encode("utf-16-be")


def _write(value: Any, out: list[str]) -> None:
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, (int, float)):
        out.append(_number(value))
    elif isinstance(value, str):
        out.append(_string(value))
    elif isinstance(value, (list, tuple)):
        out.append("[")
        for position, item in enumerate(value):
            if position:
                out.append(",")
            _write(item, out)
        out.append("]")
    elif isinstance(value, dict):
        names = list(value.keys())
        if not all(isinstance(name, str) for name in names):
            raise CanonicalJsonError("object member names must be strings")
        try:
            names.sort(key=_utf16_key)
        except UnicodeEncodeError as error:
            raise CanonicalJsonError("lone surrogate in a member name") from error
        out.append("{")
        for position, name in enumerate(names):
            if position:
                out.append(",")
            out.append(_string(name))
            out.append(":")
            _write(value[name], out)
        out.append("}")
    else:
        raise CanonicalJsonError(f"{type(value).__name__} is not a JSON value")


def canonical_json(value: Any) -> str:
    """The RFC 8785 canonical text of a JSON value (as parsed by :func:`parse_json`).

    Raises :class:`CanonicalJsonError` when the value has none.

    >>> canonical_json({"b": 1, "a": [True, None, 1e21, 0.5]})
    '{"a":[true,null,1e+21,0.5],"b":1}'
    """
    out: list[str] = []
    try:
        _write(value, out)
    except RecursionError as error:
        raise CanonicalJsonError("value nested too deeply") from error
    return "".join(out)


def sha256_hex(text: str) -> str:
    """Lower-case hex SHA-256 of the UTF-8 bytes of ``text``.

    >>> sha256_hex("")
    'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'
    """
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
