"""What the shared vectors cannot show: refusing to run without PyJWT, misuse, key sources and
nonce stores that fail, the remote stores, the webhook timestamp header, the log key of receipts
and attacks on their log proofs beyond the vectors (test-only keys derived as the generator does)."""

from __future__ import annotations

import base64
import copy
import dataclasses
import hashlib
import json
import subprocess
import sys
import time
import unittest
from pathlib import Path
from typing import Any

from authority_runtime import (
    RECEIPT_VERIFICATION_REASONS,
    InMemoryNonceStore,
    KeySourceError,
    NonceStoreError,
    RemoteJwks,
    RemoteNonceStore,
    verify_authority_token,
    verify_receipt,
    verify_webhook_signature,
)
from authority_runtime.transparency import parse_checkpoint, parse_verifier_key

from .stub_server import Seen, StubServer, Trickle

VECTORS = Path(__file__).resolve().parents[2] / "test-vectors"
TOKENS = json.loads((VECTORS / "tokens.json").read_text(encoding="utf-8"))
NOW = float(TOKENS["now"])
VALID = next(v["token"] for v in TOKENS["vectors"] if v["name"] == "EdDSA/valid")
EXPECTED = {"tenant_id": "acme", "adapter_id": "github-main", "target_system": "acme/api"}


def verify(token: str = VALID, jwks: Any = None, **extra: Any) -> Any:
    options: dict[str, Any] = {**EXPECTED, "now": NOW, **extra}
    return verify_authority_token(token, TOKENS["jwks"] if jwks is None else jwks, **options)


class Dependencies(unittest.TestCase):
    def test_the_verifiers_refuse_to_run_without_pyjwt(self) -> None:
        source = Path(__file__).resolve().parents[1] / "src"
        program = (
            "import sys\n"
            "sys.modules['jwt'] = None\n"
            f"sys.path.insert(0, {str(source)!r})\n"
            "import authority_runtime as a\n"
            "expected = {'tenant_id': 't', 'adapter_id': 'a', 'target_system': 'o/r'}\n"
            "token = lambda: a.verify_authority_token('x', {'keys': []}, **expected)\n"
            "for call in (token, lambda: a.verify_receipt({}, {'keys': []})):\n"
            "    try:\n"
            "        call()\n"
            "    except a.MissingDependencyError as error:\n"
            "        print('refused:', error)\n"
            "print(a.AuthorityClient('http://127.0.0.1:1', 't', 'k').tenant_id)\n"
        )
        run = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
        lines = run.stdout.splitlines()
        self.assertEqual(len(lines), 3, run.stdout + run.stderr)
        self.assertTrue(all(line.startswith("refused: authority_runtime's verifiers need PyJWT") for line in lines[:2]))
        self.assertEqual(lines[2], "t", "the client itself needs only the standard library")


class Misuse(unittest.TestCase):
    def test_bad_options_raise(self) -> None:
        with self.assertRaises(TypeError):
            verify_authority_token(VALID, TOKENS["jwks"], tenant_id="", adapter_id="a", target_system="t")
        with self.assertRaises(TypeError):
            verify(jwks={"keys": [{"kid": "k", "kty": "oct", "alg": "HS256"}]})
        with self.assertRaises(TypeError):
            verify(jwks={"keys": [TOKENS["jwks"]["keys"][0], TOKENS["jwks"]["keys"][0]]})
        with self.assertRaises(ValueError):
            verify(clock_skew_seconds=301)

    def test_bad_tokens_never_raise(self) -> None:
        for token in (None, 42, b"a.b.c", ["a.b.c"], "\ud800.a.b"):
            self.assertEqual(verify(token).reason, "TOKEN_MALFORMED")  # type: ignore[arg-type]

    def test_pinned_kid(self) -> None:
        self.assertTrue(verify(pinned_kid="acme-1700000000-EDACTIVE").valid)
        self.assertEqual(verify(pinned_kid="acme-1700000001-ESACTIVE").reason, "KID_MISMATCH")


class FailingParts(unittest.TestCase):
    def test_a_key_source_that_raises_is_key_source_unavailable(self) -> None:
        class Down:
            def get_key(self, kid: str) -> None:
                raise KeySourceError("down")

        self.assertEqual(verify(jwks=Down()).reason, "KEY_SOURCE_UNAVAILABLE")

    def test_a_nonce_store_that_cannot_confirm_refuses_the_token(self) -> None:
        class Store:
            def __init__(self, outcome: Any) -> None:
                self.outcome = outcome

            def consume(self, nonce: str, expires_at: float) -> Any:
                if isinstance(self.outcome, Exception):
                    raise self.outcome
                return self.outcome

        cases = [
            (RuntimeError("boom"), "NONCE_STORE_UNAVAILABLE"),
            (NonceStoreError("unavailable", "down"), "NONCE_STORE_UNAVAILABLE"),
            (NonceStoreError("rejected", "off", remote_reason="TENANT_KILL_SWITCH"), "TENANT_KILL_SWITCH"),
            (NonceStoreError("rejected", "odd", remote_reason="SOMETHING_ELSE"), "NONCE_STORE_UNAVAILABLE"),
            ("yes", "NONCE_ALREADY_CONSUMED"),
            (False, "NONCE_ALREADY_CONSUMED"),
        ]
        for outcome, reason in cases:
            with self.subTest(reason=reason, outcome=repr(outcome)):
                self.assertEqual(verify(nonce_store=Store(outcome)).reason, reason)

    def test_the_store_gets_exp_plus_skew(self) -> None:
        calls: list[tuple[str, float]] = []

        class Store:
            def consume(self, nonce: str, expires_at: float) -> bool:
                calls.append((nonce, expires_at))
                return True

        result = verify(nonce_store=Store())
        self.assertTrue(result.valid)
        self.assertEqual(calls, [(result.claims["nonce"], result.claims["exp"] + 5)])

    def test_in_memory_store_forgets_expired_nonces_and_never_evicts_live_ones(self) -> None:
        now = [1000.0]
        store = InMemoryNonceStore(max_entries=2, clock=lambda: now[0])
        self.assertTrue(store.consume("a", 1001))
        self.assertTrue(store.consume("b", 2000))
        with self.assertRaises(NonceStoreError):
            store.consume("c", 2000)
        self.assertFalse(store.consume("a", 1001))
        now[0] = 1002
        self.assertTrue(store.consume("c", 2000))
        self.assertEqual(len(store), 2)


class RemoteStores(unittest.TestCase):
    def test_remote_nonce_store_maps_the_service_answers(self) -> None:
        claims = verify().claims
        answers: list[Any] = [
            (200, {}, {"valid": True, "claims": claims}),
            (200, {}, {"valid": False, "reason": "NONCE_ALREADY_CONSUMED"}),
            (200, {}, {"valid": False, "reason": "TENANT_KILL_SWITCH"}),
            (503, {}, {"error": {"code": "SERVICE_UNAVAILABLE"}}),
            (200, {}, {"valid": True, "claims": {**claims, "nonce": "other"}}),
            (200, {}, b"not json"),
        ]
        with StubServer(answers) as server:
            store = RemoteNonceStore(server.url + "/v1/", "acme", "service_live_x")
            reasons = [verify(nonce_store=store).reason for _ in range(6)]
        self.assertEqual(
            reasons,
            [
                None,
                "NONCE_ALREADY_CONSUMED",
                "TENANT_KILL_SWITCH",
                "NONCE_STORE_UNAVAILABLE",
                "NONCE_STORE_UNAVAILABLE",
                "NONCE_STORE_UNAVAILABLE",
            ],
        )
        first: Seen = server.seen[0]
        self.assertEqual((first.method, first.path), ("POST", "/v1/authority/tokens/consume"))
        self.assertEqual(first.body, {"token": VALID, "adapterId": "github-main", "targetSystem": "acme/api"})
        self.assertEqual(
            (first.headers["authorization"], first.headers["x-tenant-id"]), ("Bearer service_live_x", "acme")
        )

    def test_remote_nonce_store_is_not_called_when_a_local_check_fails(self) -> None:
        with StubServer([]) as server:
            store = RemoteNonceStore(server.url, "acme", "k")
            self.assertEqual(verify(nonce_store=store, target_system="acme/web").reason, "TOKEN_TARGET_MISMATCH")
        self.assertEqual(server.seen, [])

    def test_remote_jwks_fetches_refetches_at_most_every_30_s_and_survives_an_outage(self) -> None:
        now = [0.0]
        keys = {"keys": TOKENS["jwks"]["keys"]}
        script: list[Any] = [(200, {}, keys), (200, {}, keys), (503, {}, {}), (200, {}, keys), (200, {}, keys)]
        unknown = next(v["token"] for v in TOKENS["vectors"] if v["name"] == "EdDSA/kid-unknown")
        with StubServer(script) as server:
            jwks = RemoteJwks(server.url + "/jwks.json", clock=lambda: now[0])
            self.assertTrue(verify(jwks=jwks).valid)
            # The first load starts no cooldown: a kid published just after it is fetched at once.
            self.assertEqual(verify(unknown, jwks=jwks).reason, "KID_MISMATCH")  # re-fetched
            self.assertEqual(verify(unknown, jwks=jwks).reason, "KID_MISMATCH")  # rate limited: no fetch
            self.assertEqual(len(server.seen), 2)
            now[0] = 31
            self.assertEqual(verify(unknown, jwks=jwks).reason, "KID_MISMATCH")  # the 503: cache kept
            self.assertTrue(verify(jwks=jwks).valid)
            self.assertEqual(verify(unknown, jwks=jwks).reason, "KID_MISMATCH")  # a failure counts: no fetch
            self.assertEqual(len(server.seen), 3)
            now[0] = 62
            self.assertEqual(verify(unknown, jwks=jwks).reason, "KID_MISMATCH")  # re-fetched once more
            now[0] = 400  # older than max-age: refreshed
            self.assertTrue(verify(jwks=jwks).valid)
            self.assertEqual(len(server.seen), 5)
        cold = RemoteJwks(server.url + "/jwks.json")
        self.assertEqual(verify(jwks=cold).reason, "KEY_SOURCE_UNAVAILABLE")

    def test_remote_stores_give_up_on_a_trickled_answer_at_their_timeout(self) -> None:
        consumed = Trickle(200, b'{"valid": true, "claims": {}, "padding": "........"}', 0.2)
        keys = Trickle(200, json.dumps({"keys": TOKENS["jwks"]["keys"]}).encode(), 0.2)
        with StubServer([consumed, keys]) as server:
            store = RemoteNonceStore(server.url, "acme", "k", timeout=1.0)
            started = time.monotonic()
            with self.assertRaises(NonceStoreError) as refused:
                store.consume_token(
                    VALID, nonce="n", expires_at=NOW, adapter_id="github-main", target_system="acme/api"
                )
            self.assertLess(time.monotonic() - started, 2.0)
            self.assertEqual(refused.exception.kind, "unavailable")
            jwks = RemoteJwks(server.url + "/jwks.json", timeout=1.0)
            started = time.monotonic()
            with self.assertRaises(KeySourceError):
                jwks.get_key("acme-1700000000-ABCDEFGH")
            self.assertLess(time.monotonic() - started, 2.0)


class Webhooks(unittest.TestCase):
    def test_the_timestamp_header_must_name_the_signed_second(self) -> None:
        data = json.loads((VECTORS / "webhooks.json").read_text(encoding="utf-8"))
        vector = next(v for v in data["vectors"] if v["name"] == "valid")
        sent = json.loads(vector["rawBody"])["sentAt"]
        seconds = int(data["nowMs"] / 1000) - 1
        self.assertTrue(sent.startswith("2023-11-14T22:14:59"))

        def check(header: Any, secret: Any = data["secret"]) -> Any:
            return verify_webhook_signature(
                secret, vector["rawBody"], vector["signatureHeader"], header, now=data["nowMs"] / 1000
            )

        self.assertTrue(check(str(seconds)).valid)
        self.assertTrue(check(seconds).valid)
        self.assertEqual(check(str(seconds - 400)).reason, "TIMESTAMP_MISMATCH")
        self.assertTrue(check(None, ["whsec_old", data["secret"]]).valid)
        self.assertEqual(check(None, ["whsec_old"]).reason, "SIGNATURE_MISMATCH")
        self.assertEqual(
            verify_webhook_signature(data["secret"], vector["rawBody"], [vector["signatureHeader"]] * 2).reason,
            "SIGNATURE_MISSING",
        )
        with self.assertRaises(TypeError):
            check(None, [])


RECEIPTS = json.loads((VECTORS / "receipts.json").read_text(encoding="utf-8"))
RECEIPT_VECTORS = {v["name"]: v for v in RECEIPTS["vectors"]}
V2 = RECEIPT_VECTORS["v2-valid-EdDSA"]["receipt"]
LOG_KEY: str = RECEIPTS["pinnedLogKey"]


def note_key(name: str, label: str, key_type: int = 0x01) -> tuple[str, Any, bytes]:
    """A test-only note key derived as the vector generator derives it: (name, private key, key ID)."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    seed = hashlib.sha256(f"authority-runtime test vector key: {label}".encode()).digest()
    private = Ed25519PrivateKey.from_private_bytes(seed)
    public = private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    key_id = hashlib.sha256(name.encode() + bytes([0x0A, key_type]) + public).digest()[:4]
    return name, private, key_id


def verifier_key(key: tuple[str, Any, bytes]) -> str:
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    name, private, key_id = key
    public = private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    return f"{name}+{key_id.hex()}+{base64.b64encode(bytes([0x01]) + public).decode()}"


ACME_LOG = note_key("audit.example.com/audit/acme", "log acme")


def sign_checkpoint(key: tuple[str, Any, bytes], origin: str, size: int, root: bytes) -> str:
    name, private, key_id = key
    body = f"{origin}\n{size}\n{base64.b64encode(root).decode()}\n"
    line = base64.b64encode(key_id + private.sign(body.encode())).decode()
    return f"{body}\n\u2014 {name} {line}\n"


def genuine_root() -> bytes:
    checkpoint = parse_checkpoint(str(V2["checkpoint"]).split("\n\n")[0] + "\n")
    return checkpoint.root_hash


def receipt_with(**members: Any) -> dict[str, Any]:
    receipt = copy.deepcopy(V2)
    receipt.update(members)
    return receipt


def check(receipt: Any, log_key: Any = LOG_KEY, **options: Any) -> Any:
    return verify_receipt(receipt, RECEIPTS["pinnedJwks"], log_key=log_key, **options)


class Receipts(unittest.TestCase):
    def test_the_log_key_is_text_or_a_parsed_key(self) -> None:
        self.assertTrue(check(V2).valid)
        self.assertTrue(check(V2, LOG_KEY + "\n").valid, "the well-known route ends the key with a newline")
        self.assertTrue(check(V2, parse_verifier_key(LOG_KEY)).valid)
        self.assertTrue(check(json.dumps(V2)).valid, "JSON text is accepted too")
        self.assertEqual(check("not json").reason, "RECEIPT_MALFORMED")

    def test_a_bad_log_key_is_a_usage_error_whatever_the_receipt(self) -> None:
        v1 = RECEIPT_VECTORS["valid-EdDSA"]["receipt"]
        parsed = parse_verifier_key(LOG_KEY)
        witness = RECEIPTS["witnessKey"]
        for receipt in (V2, v1, "not json"):
            for bad in ("", "not a key", witness, LOG_KEY.replace("+", "+0", 1), LOG_KEY[:-4]):
                with self.subTest(bad), self.assertRaises(ValueError):
                    check(receipt, bad)
            with self.assertRaises(ValueError):
                check(receipt, dataclasses.replace(parsed, key_id=parsed.key_id ^ 1))
            with self.assertRaises(ValueError):
                check(receipt, parse_verifier_key(witness))
            for wrong_type in (123, b"bytes", {"name": parsed.name}):
                with self.subTest(wrong_type), self.assertRaises(TypeError):
                    check(receipt, wrong_type)
            with self.assertRaises(TypeError):
                check(receipt, dataclasses.replace(parsed, key_id="730c79dd"))

    def test_a_checkpoint_signed_by_the_log_for_any_other_size_is_refused(self) -> None:
        root = genuine_root()
        self.assertTrue(check(receipt_with(checkpoint=sign_checkpoint(ACME_LOG, ACME_LOG[0], 12, root))).valid)
        for size in [*range(0, 12), 13, 24, 2**53 - 1]:
            with self.subTest(size):
                result = check(receipt_with(checkpoint=sign_checkpoint(ACME_LOG, ACME_LOG[0], size, root)))
                self.assertEqual(result.reason, "CHECKPOINT_INVALID")
                self.assertIn("tree size", result.detail)

    def test_a_checkpoint_re_signed_over_any_other_root_fails_the_proofs(self) -> None:
        for seed in range(16):
            root = hashlib.sha256(f"rewritten history {seed}".encode()).digest()
            with self.subTest(seed):
                result = check(receipt_with(checkpoint=sign_checkpoint(ACME_LOG, ACME_LOG[0], 12, root)))
                self.assertEqual(result.reason, "INCLUSION_PROOF_INVALID")

    def test_every_changed_dropped_or_swapped_proof_element_is_refused(self) -> None:
        inclusion = V2["inclusion"]
        for position, item in enumerate(inclusion):
            for at in range(len(item["proof"])):
                for bit in (0, 7, 255):
                    changed = copy.deepcopy(inclusion)
                    element = bytearray(bytes.fromhex(changed[position]["proof"][at]))
                    element[bit // 8] ^= 1 << (bit % 8)
                    changed[position]["proof"][at] = element.hex()
                    with self.subTest(entry=item["index"], element=at, bit=bit):
                        self.assertEqual(check(receipt_with(inclusion=changed)).reason, "INCLUSION_PROOF_INVALID")
                dropped = copy.deepcopy(inclusion)
                del dropped[position]["proof"][at]
                with self.subTest(entry=item["index"], dropped=at):
                    self.assertEqual(check(receipt_with(inclusion=dropped)).reason, "INCLUSION_PROOF_INVALID")
            for other in range(len(inclusion)):
                if other == position:
                    continue
                swapped = copy.deepcopy(inclusion)
                swapped[position]["proof"] = list(inclusion[other]["proof"])
                with self.subTest(entry=item["index"], proof_of=inclusion[other]["index"]):
                    self.assertEqual(check(receipt_with(inclusion=swapped)).reason, "INCLUSION_PROOF_INVALID")

    def test_the_checkpoint_must_be_the_log_of_the_receipt_tenant(self) -> None:
        root = genuine_root()
        for origin, label in (
            ("audit.example.com/audit/xacme", "log xacme"),
            ("audit.example.com/audit/acme/more", "log acme more"),
            ("audit.example.com/audit/ACME", "log ACME"),
            ("audit.example.com/acme", "log acme no audit"),
        ):
            key = note_key(origin, label)
            with self.subTest(origin):
                result = check(receipt_with(checkpoint=sign_checkpoint(key, origin, 12, root)), verifier_key(key))
                self.assertEqual(result.reason, "CHECKPOINT_INVALID")
                self.assertIn("not of tenant acme", result.detail)
        # The suffix binds the tenant; which host's log is trusted is the pinned key's business.
        mirror = note_key("mirror.example.org/audit/acme", "log acme mirror")
        note = sign_checkpoint(mirror, mirror[0], 12, root)
        self.assertTrue(check(receipt_with(checkpoint=note), verifier_key(mirror)).valid)
        self.assertEqual(check(receipt_with(checkpoint=note)).reason, "CHECKPOINT_INVALID")

    def test_witness_lines_are_ignored_even_when_broken(self) -> None:
        note = str(V2["checkpoint"])
        stranger = base64.b64encode(b"\x00\x01\x02\x03" + bytes(72)).decode()
        self.assertTrue(check(receipt_with(checkpoint=f"{note}\u2014 witness.example/nobody {stranger}\n")).valid)
        cosigned = RECEIPT_VECTORS["v2-valid-witness-cosigned"]["receipt"]["checkpoint"]
        line = cosigned.split("\n")[-2]
        broken = line[:-6] + ("AAAA" if line[-6:-2] != "AAAA" else "BBBB") + line[-2:]
        self.assertTrue(check(receipt_with(checkpoint=cosigned.replace(line, broken))).valid)

    def test_a_checkpoint_that_is_not_exactly_the_note_is_refused(self) -> None:
        note = str(V2["checkpoint"])
        for changed in (note.replace("\n", "\r\n"), note[:-1], " " + note, note + "\n", note.replace("\u2014", "-")):
            with self.subTest(repr(changed[:20])):
                self.assertEqual(check(receipt_with(checkpoint=changed)).reason, "CHECKPOINT_INVALID")

    def test_the_reasons_are_listed_in_the_order_of_the_checks(self) -> None:
        self.assertEqual(
            RECEIPT_VERIFICATION_REASONS[:9],
            (
                "RECEIPT_MALFORMED",
                "LOG_KEY_MISSING",
                "TENANT_MISMATCH",
                "ENTRY_HASH_MISMATCH",
                "ENTRY_MISMATCH",
                "SEAL_MISMATCH",
                "SEAL_SIGNATURE_INVALID",
                "CHECKPOINT_INVALID",
                "INCLUSION_PROOF_INVALID",
            ),
        )


if __name__ == "__main__":
    unittest.main()
