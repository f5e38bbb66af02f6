"""Offline verification of the transparency log (contract §15): RFC 9162 Merkle proofs and
``tlog-checkpoint`` notes with ``tlog-cosignature`` witness cosignatures.

The Merkle functions need only the standard library; the checkpoint verifier needs cryptography
(Ed25519) and raises :class:`MissingDependencyError` without it rather than skip a check. The rules
and reasons are those of the TypeScript SDK (sdks/test-vectors/transparency.json holds the shared
vectors).
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Sequence
from dataclasses import dataclass

from ._note import (
    MAX_SAFE_INTEGER,
    NoteSignature,
    TransparencyFormatError,
    VerifierKey,
    cosignature_time,
    cosignature_verifier,
    decode_base64,
    ed25519_note_verifier,
    parse_decimal,
    parse_signed_note,
    parse_verifier_key,
    verify_signed_note,
)

__all__ = [
    "CHECKPOINT_VERIFICATION_REASONS",
    "PROOF_FAILURE_REASONS",
    "Checkpoint",
    "CheckpointVerification",
    "Cosignature",
    "ProofVerification",
    "TransparencyFormatError",
    "VerifierKey",
    "empty_tree_hash",
    "hash_from_hex",
    "leaf_hash",
    "node_hash",
    "parse_checkpoint",
    "parse_signed_note",
    "parse_verifier_key",
    "verify_checkpoint",
    "verify_consistency_proof",
    "verify_inclusion_proof",
]

#: Why a Merkle proof was refused, as the TypeScript SDK names it.
PROOF_FAILURE_REASONS: tuple[str, ...] = (
    "INVALID_SIZES",
    "MALFORMED_HASH",
    "PROOF_TOO_LONG",
    "PROOF_TOO_SHORT",
    "ROOT_MISMATCH",
)

#: Why a checkpoint note was refused, in the order the checks run.
CHECKPOINT_VERIFICATION_REASONS: tuple[str, ...] = (
    "NOTE_MALFORMED",
    "SIGNATURE_INVALID",
    "NO_TRUSTED_SIGNATURE",
    "LOG_SIGNATURE_MISSING",
    "CHECKPOINT_MALFORMED",
    "ORIGIN_MISMATCH",
    "QUORUM_NOT_MET",
)

_HEX_HASH = re.compile(r"[0-9a-f]{64}")


def empty_tree_hash() -> bytes:
    """The root hash of the empty tree: SHA-256 of nothing."""
    return hashlib.sha256(b"").digest()


def leaf_hash(entry_hash: str | bytes) -> bytes:
    """SHA-256(0x00 ‖ the 32 bytes of an audit entry's ``entryHash``), hex text or bytes."""
    if isinstance(entry_hash, str):
        if not _HEX_HASH.fullmatch(entry_hash):
            raise TransparencyFormatError("HASH_MALFORMED", "a hash must be 64 lower-case hex digits")
        entry_hash = bytes.fromhex(entry_hash)
    if not isinstance(entry_hash, (bytes, bytearray)) or len(entry_hash) != 32:
        raise TransparencyFormatError("HASH_MALFORMED", "an entry hash must be 32 bytes")
    return hashlib.sha256(b"\x00" + bytes(entry_hash)).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """SHA-256(0x01 ‖ left ‖ right)."""
    return hashlib.sha256(b"\x01" + left + right).digest()


@dataclass(frozen=True)
class ProofVerification:
    """The outcome of a proof check: ``valid``, or ``reason`` (one of :data:`PROOF_FAILURE_REASONS`)
    and ``detail``."""

    valid: bool
    reason: str | None = None
    detail: str = "valid"


def _fail(reason: str, detail: str) -> ProofVerification:
    return ProofVerification(False, reason, detail)


def _is_size(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER


def _malformed(hashes: Sequence[object]) -> str | None:
    for at, value in enumerate(hashes):
        if not isinstance(value, (bytes, bytearray)) or len(value) != 32:
            return f"element {at} is not a 32-byte hash"
    return None


def verify_inclusion_proof(
    index: int, tree_size: int, leaf: bytes, proof: Sequence[bytes], root_hash: bytes
) -> ProofVerification:
    """Checks an inclusion proof exactly as RFC 9162 §2.1.3.2 describes. Never raises."""
    if not _is_size(index) or not _is_size(tree_size) or index < 0 or index >= tree_size:
        return _fail("INVALID_SIZES", f"index {index} is not within a tree of size {tree_size}")
    bad = _malformed([leaf, root_hash]) or _malformed(proof)
    if bad is not None:
        return _fail("MALFORMED_HASH", bad)
    fn, sn, r = index, tree_size - 1, bytes(leaf)
    for used, p in enumerate(proof):
        if sn == 0:
            return _fail("PROOF_TOO_LONG", f"{len(proof)} elements where this index and size need {used}")
        if fn % 2 == 1 or fn == sn:
            r = node_hash(p, r)
            while fn % 2 == 0 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            r = node_hash(r, p)
        fn >>= 1
        sn >>= 1
    if sn != 0:
        return _fail("PROOF_TOO_SHORT", f"{len(proof)} elements do not reach the root")
    if not hmac.compare_digest(r, bytes(root_hash)):
        return _fail("ROOT_MISMATCH", "the proof leads to another root hash")
    return ProofVerification(True)


def verify_consistency_proof(
    from_size: int, to_size: int, from_root: bytes, to_root: bytes, proof: Sequence[bytes]
) -> ProofVerification:
    """Checks a consistency proof exactly as RFC 9162 §2.1.4.2 describes, for 0 < from_size <
    to_size; for equal sizes the proof must be empty and the roots equal. Never raises."""
    first, second = from_size, to_size
    if not _is_size(first) or not _is_size(second) or first < 1 or first > second:
        return _fail("INVALID_SIZES", f"sizes {first} and {second} are not 1 ≤ from ≤ to")
    bad = _malformed([from_root, to_root]) or _malformed(proof)
    if bad is not None:
        return _fail("MALFORMED_HASH", bad)
    if first == second:
        if proof:
            return _fail("PROOF_TOO_LONG", "a proof between equal sizes is empty")
        if not hmac.compare_digest(bytes(from_root), bytes(to_root)):
            return _fail("ROOT_MISMATCH", f"two different roots for tree size {first}")
        return ProofVerification(True)
    if not proof:
        return _fail("PROOF_TOO_SHORT", "the proof is empty")
    path = [bytes(from_root), *proof] if first & (first - 1) == 0 else list(proof)
    fn, sn = first - 1, second - 1
    while fn % 2 == 1:
        fn >>= 1
        sn >>= 1
    fr = sr = bytes(path[0])
    for c in path[1:]:
        if sn == 0:
            return _fail("PROOF_TOO_LONG", "the proof has more elements than the sizes allow")
        if fn % 2 == 1 or fn == sn:
            fr = node_hash(c, fr)
            sr = node_hash(c, sr)
            while fn % 2 == 0 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            sr = node_hash(sr, c)
        fn >>= 1
        sn >>= 1
    if sn != 0:
        return _fail("PROOF_TOO_SHORT", "the proof does not reach the new root")
    if not hmac.compare_digest(fr, bytes(from_root)):
        return _fail("ROOT_MISMATCH", f"the proof does not lead to the root of size {first}")
    if not hmac.compare_digest(sr, bytes(to_root)):
        return _fail("ROOT_MISMATCH", f"the proof does not lead to the root of size {second}")
    return ProofVerification(True)


@dataclass(frozen=True)
class Checkpoint:
    """A tree head: the log's origin, the tree size and the RFC 9162 root hash."""

    origin: str
    size: int
    root_hash: bytes
    extensions: tuple[str, ...] = ()


def parse_checkpoint(body: str) -> Checkpoint:
    """Parses a checkpoint body: origin, size (decimal) and root hash (base64), each line ending in
    a newline, then optional extension lines; raises :class:`TransparencyFormatError`."""

    def malformed(message: str) -> TransparencyFormatError:
        return TransparencyFormatError("CHECKPOINT_MALFORMED", message)

    if not isinstance(body, str) or not body.endswith("\n"):
        raise malformed("a checkpoint body ends in a newline")
    lines = body[:-1].split("\n")
    if len(lines) < 3:
        raise malformed("a checkpoint body has an origin, a size and a root hash")
    if "" in lines:
        raise malformed("a checkpoint body has no empty line")
    origin, size, root, *extensions = lines
    try:
        root_hash = decode_base64(root, "HASH_MALFORMED", "a hash")
    except TransparencyFormatError as error:
        raise malformed(f"the root hash: {error}") from None
    if len(root_hash) != 32:
        raise malformed(f"the root hash: a hash must be 32 bytes, not {len(root_hash)}")
    return Checkpoint(origin, parse_decimal(size, "CHECKPOINT_MALFORMED", "the tree size"), root_hash, tuple(extensions))


@dataclass(frozen=True)
class Cosignature:
    """A pinned witness's verified cosignature: its name, key ID and unix time."""

    name: str
    key_id: int
    time: int


@dataclass(frozen=True)
class CheckpointVerification:
    """The outcome of :func:`verify_checkpoint`: ``valid`` with the ``checkpoint``, the ``note_text``
    (the signed body) and the pinned witnesses that cosigned, or ``reason`` and ``detail``."""

    valid: bool
    reason: str | None
    detail: str
    checkpoint: Checkpoint | None = None
    note_text: str | None = None
    cosignatures: tuple[Cosignature, ...] = ()


def verify_checkpoint(
    note: str | bytes,
    log_key: str | VerifierKey,
    witnesses: Sequence[str | VerifierKey] = (),
    quorum: int = 0,
) -> CheckpointVerification:
    """Verifies a checkpoint note against the pinned log key (type 0x01) and, optionally, a quorum
    of pinned witness keys (type 0x04). Never raises on a bad note; a malformed pinned key raises
    :class:`TransparencyFormatError`."""
    log = ed25519_note_verifier(log_key)
    verifiers = [log, *(cosignature_verifier(key) for key in witnesses)]
    outcome = verify_signed_note(note, verifiers)
    if not outcome.valid or outcome.note is None:
        return CheckpointVerification(False, outcome.reason, outcome.detail)

    def is_log(s: NoteSignature) -> bool:
        return s.name == log.name and s.key_id == log.key_id

    if not any(is_log(s) for s in outcome.verified):
        return CheckpointVerification(False, "LOG_SIGNATURE_MISSING", f"{log.name} did not sign this checkpoint")
    try:
        checkpoint = parse_checkpoint(outcome.note.text)
    except TransparencyFormatError as error:
        return CheckpointVerification(False, "CHECKPOINT_MALFORMED", str(error))
    if checkpoint.origin != log.name:
        return CheckpointVerification(False, "ORIGIN_MISMATCH", f"origin {checkpoint.origin} is not {log.name}")
    cosignatures = tuple(
        Cosignature(s.name, s.key_id, cosignature_time(s.signature)) for s in outcome.verified if not is_log(s)
    )
    if len(cosignatures) < quorum:
        detail = f"{len(cosignatures)} of the {quorum} witness cosignatures required"
        return CheckpointVerification(False, "QUORUM_NOT_MET", detail)
    return CheckpointVerification(True, None, "valid", checkpoint, outcome.note.text, cosignatures)


def hash_from_hex(text: str) -> bytes:
    """A hash from 64 lower-case hex digits (as the proof routes answer them)."""
    if not isinstance(text, str) or not _HEX_HASH.fullmatch(text):
        raise TransparencyFormatError("HASH_MALFORMED", "a hash must be 64 lower-case hex digits")
    return bytes.fromhex(text)
