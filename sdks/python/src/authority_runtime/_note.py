"""C2SP ``signed-note`` parsing and verification, and note verifier keys (contract §15).

The rules are those of the TypeScript SDK's ``transparency/note.ts`` and ``note-keys.ts``, so that the
three SDKs accept and refuse the same notes (sdks/test-vectors/transparency.json).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .errors import MissingDependencyError

ED25519_KEY_TYPE = 0x01
COSIGNATURE_V1_KEY_TYPE = 0x04
MAX_NOTE_SIGNATURES = 100
MAX_SAFE_INTEGER = 2**53 - 1

_BASE64 = re.compile(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")
_DECIMAL = re.compile(r"0|[1-9][0-9]*")
_KEY_ID_HEX = re.compile(r"[0-9a-f]{8}")
_SIGNATURE_PREFIX = "\u2014 "


class TransparencyFormatError(ValueError):
    """Text that is not the format it claims to be: ``code`` names which (``NOTE_MALFORMED``,
    ``KEY_MALFORMED``, ``CHECKPOINT_MALFORMED``, ``HASH_MALFORMED``)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def decode_base64(text: str, code: str, what: str) -> bytes:
    """Standard, padded, canonical base64 only (the bytes must re-encode to the same text)."""
    if not _BASE64.fullmatch(text):
        raise TransparencyFormatError(code, f"{what} is not standard base64")
    try:
        data = base64.b64decode(text, validate=True)
    except binascii.Error:
        raise TransparencyFormatError(code, f"{what} is not standard base64") from None
    if base64.b64encode(data).decode("ascii") != text:
        raise TransparencyFormatError(code, f"{what} is not the canonical base64 of its bytes")
    return data


def parse_decimal(text: str, code: str, what: str) -> int:
    """A decimal without leading zeroes, at most 2^53 - 1 (the largest size the verifiers handle)."""
    if not _DECIMAL.fullmatch(text):
        raise TransparencyFormatError(code, f"{what} is not a decimal number without leading zeroes")
    value = int(text)
    if value > MAX_SAFE_INTEGER:
        raise TransparencyFormatError(code, f"{what} exceeds 2^53 - 1, the largest size this verifier handles")
    return value


def has_control_character(text: str, allow_newline: bool) -> bool:
    return any(ord(c) < 0x20 and not (allow_newline and c == "\n") for c in text)


def is_valid_key_name(name: str) -> bool:
    """Non-empty, without white space, control characters, surrogates or ``+``."""
    if not isinstance(name, str) or name == "":
        return False
    return not any(c == "+" or c.isspace() or unicodedata.category(c) in ("Cc", "Cs") for c in name)


def note_key_id(name: str, key_type: int, public_key: bytes) -> int:
    """The first 4 bytes, big-endian, of SHA-256(name ‖ 0x0A ‖ type ‖ public key)."""
    digest = hashlib.sha256(name.encode("utf-8") + bytes([0x0A, key_type]) + public_key).digest()
    return int.from_bytes(digest[:4], "big")


@dataclass(frozen=True)
class VerifierKey:
    """A parsed verifier key ``<name>+<key ID hex>+<base64(type ‖ public key)>``."""

    name: str
    key_id: int
    type: int
    public_key: bytes


def parse_verifier_key(text: str) -> VerifierKey:
    """Parses a verifier key (one trailing newline allowed); raises :class:`TransparencyFormatError`."""
    if not isinstance(text, str):
        raise TransparencyFormatError("KEY_MALFORMED", "a verifier key is text")
    if text.endswith("\n"):
        text = text[:-1]
    parts = text.split("+")
    name = parts[0]
    hex_id = parts[1] if len(parts) > 1 else ""
    if not is_valid_key_name(name):
        raise TransparencyFormatError("KEY_MALFORMED", "a key name must be non-empty, without spaces or plus")
    if not _KEY_ID_HEX.fullmatch(hex_id):
        raise TransparencyFormatError("KEY_MALFORMED", "the key ID must be 8 lower-case hex digits")
    data = decode_base64("+".join(parts[2:]), "KEY_MALFORMED", "the key data")
    if len(data) == 0 or data[0] not in (ED25519_KEY_TYPE, COSIGNATURE_V1_KEY_TYPE):
        raise TransparencyFormatError("KEY_MALFORMED", "the signature type is not supported")
    public_key = data[1:]
    if len(public_key) != 32:
        raise TransparencyFormatError("KEY_MALFORMED", "an Ed25519 public key is 32 bytes")
    key_id = note_key_id(name, data[0], public_key)
    if f"{key_id:08x}" != hex_id:
        raise TransparencyFormatError("KEY_MALFORMED", f"key ID {hex_id} does not match the name and key")
    return VerifierKey(name, key_id, data[0], public_key)


@dataclass(frozen=True)
class NoteSignature:
    name: str
    key_id: int
    signature: bytes


@dataclass(frozen=True)
class SignedNote:
    text: str
    signatures: tuple[NoteSignature, ...]


def _malformed(message: str) -> TransparencyFormatError:
    return TransparencyFormatError("NOTE_MALFORMED", message)


def parse_signature_line(line: str) -> NoteSignature:
    if not line.startswith(_SIGNATURE_PREFIX):
        raise _malformed("a signature line starts with an em dash and a space")
    rest = line[len(_SIGNATURE_PREFIX) :]
    space = rest.find(" ")
    if space < 0:
        raise _malformed("a signature line is a name, a space and a signature")
    name = rest[:space]
    if not is_valid_key_name(name):
        raise _malformed("a signature line names no valid key")
    data = decode_base64(rest[space + 1 :], "NOTE_MALFORMED", f"the signature of {name}")
    if len(data) < 5:
        raise _malformed(f"the signature of {name} is too short")
    return NoteSignature(name, int.from_bytes(data[:4], "big"), data[4:])


def parse_signed_note(note: str | bytes) -> SignedNote:
    """Splits a note into its text (ending in a newline) and its signature lines."""
    if isinstance(note, (bytes, bytearray)):
        try:
            note = bytes(note).decode("utf-8")
        except UnicodeDecodeError:
            raise _malformed("the note is not valid UTF-8") from None
    if not isinstance(note, str):
        raise _malformed("a note is text")
    try:
        note.encode("utf-8")
    except UnicodeEncodeError:
        raise _malformed("the note is not valid Unicode text") from None
    if has_control_character(note, True):
        raise _malformed("the note holds a control character other than newline")
    split = note.rfind("\n\n")
    if split < 0:
        raise _malformed("no empty line separates the text from the signatures")
    block = note[split + 2 :]
    if block == "" or not block.endswith("\n"):
        raise _malformed("the signature lines must each end in a newline")
    lines = block[:-1].split("\n")
    if len(lines) > MAX_NOTE_SIGNATURES:
        raise _malformed(f"more than {MAX_NOTE_SIGNATURES} signatures")
    return SignedNote(note[: split + 1], tuple(parse_signature_line(line) for line in lines))


@dataclass(frozen=True)
class NoteVerifier:
    """A trusted key: its name, key ID and a check of a signature (the bytes after the key ID)."""

    name: str
    key_id: int
    verify: Callable[[str, bytes], bool]


def _ed25519_check(public_key: bytes) -> Callable[[bytes, bytes], bool]:
    try:
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    except ImportError as error:
        raise MissingDependencyError(
            "authority_runtime's transparency verifiers need cryptography: pip install 'authority-runtime[verify]' "
            "(Debian: apt-get install python3-cryptography)"
        ) from error
    key = Ed25519PublicKey.from_public_bytes(public_key)

    def check(message: bytes, signature: bytes) -> bool:
        if len(signature) != 64:
            return False
        try:
            key.verify(signature, message)
        except InvalidSignature:
            return False
        return True

    return check


def _parsed(key: str | VerifierKey, key_type: int, what: str) -> VerifierKey:
    parsed = parse_verifier_key(key) if isinstance(key, str) else key
    if parsed.type != key_type:
        raise TransparencyFormatError("KEY_MALFORMED", f"{parsed.name} is not {what}")
    return parsed


def ed25519_note_verifier(key: str | VerifierKey) -> NoteVerifier:
    """The verifier of a log key (type 0x01): Ed25519 over the note text."""
    parsed = _parsed(key, ED25519_KEY_TYPE, "an Ed25519 (0x01) note key")
    check = _ed25519_check(parsed.public_key)
    return NoteVerifier(parsed.name, parsed.key_id, lambda text, sig: check(text.encode("utf-8"), sig))


def cosignature_time(signature: bytes) -> int:
    """The unix time a cosignature v1 (8-byte time ‖ 64-byte signature) states."""
    if len(signature) != 72:
        raise TransparencyFormatError("COSIGNATURE_MALFORMED", "a cosignature is 72 bytes")
    time = int.from_bytes(signature[:8], "big")
    if time > MAX_SAFE_INTEGER:
        raise TransparencyFormatError("COSIGNATURE_MALFORMED", "the cosignature time is beyond 2^53 - 1 seconds")
    return time


def cosignature_message(body: str, time: int) -> str:
    return f"cosignature/v1\ntime {time}\n{body}"


def cosignature_verifier(key: str | VerifierKey) -> NoteVerifier:
    """The verifier of a witness key (type 0x04, ``tlog-cosignature`` v1)."""
    parsed = _parsed(key, COSIGNATURE_V1_KEY_TYPE, "a cosignature (0x04) key")
    check = _ed25519_check(parsed.public_key)

    def verify(text: str, signature: bytes) -> bool:
        try:
            time = cosignature_time(signature)
        except TransparencyFormatError:
            return False
        return check(cosignature_message(text, time).encode("utf-8"), signature[8:])

    return NoteVerifier(parsed.name, parsed.key_id, verify)


@dataclass(frozen=True)
class NoteVerification:
    valid: bool
    reason: str | None
    detail: str
    note: SignedNote | None = None
    verified: tuple[NoteSignature, ...] = ()


def verify_signed_note(note: str | bytes, verifiers: Sequence[NoteVerifier]) -> NoteVerification:
    """Checks every signature of a trusted key (name and key ID); others are ignored. Reasons:
    ``NOTE_MALFORMED``, ``SIGNATURE_INVALID``, ``NO_TRUSTED_SIGNATURE``."""
    try:
        parsed = parse_signed_note(note)
    except TransparencyFormatError as error:
        return NoteVerification(False, "NOTE_MALFORMED", str(error))
    verified: list[NoteSignature] = []
    for signature in parsed.signatures:
        keys = [v for v in verifiers if v.name == signature.name and v.key_id == signature.key_id]
        if not keys:
            continue
        if not any(key.verify(parsed.text, signature.signature) for key in keys):
            detail = f"the signature of {signature.name}+{signature.key_id:08x} does not verify"
            return NoteVerification(False, "SIGNATURE_INVALID", detail)
        if not any(v.name == signature.name and v.key_id == signature.key_id for v in verified):
            verified.append(signature)
    if not verified:
        return NoteVerification(False, "NO_TRUSTED_SIGNATURE", "no signature of a trusted key")
    return NoteVerification(True, None, "valid", parsed, tuple(verified))
