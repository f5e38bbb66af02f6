"""What the shared vectors cannot show: refusing to run without PyJWT, misuse, key sources and
nonce stores that fail, the remote stores, the webhook timestamp header, receipt versions."""

from __future__ import annotations

import json
import subprocess
import sys
import unittest
from pathlib import Path
from typing import Any

from authority_runtime import (
    InMemoryNonceStore,
    KeySourceError,
    NonceStoreError,
    RemoteJwks,
    RemoteNonceStore,
    verify_authority_token,
    verify_receipt,
    verify_webhook_signature,
)

from .stub_server import Seen, StubServer

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
        script: list[Any] = [(200, {}, keys), (200, {}, keys), (503, {}, {}), (200, {}, keys)]
        unknown = next(v["token"] for v in TOKENS["vectors"] if v["name"] == "EdDSA/kid-unknown")
        with StubServer(script) as server:
            jwks = RemoteJwks(server.url + "/jwks.json", clock=lambda: now[0])
            self.assertTrue(verify(jwks=jwks).valid)
            self.assertEqual(verify(unknown, jwks=jwks).reason, "KID_MISMATCH")  # rate limited: no fetch
            self.assertEqual(len(server.seen), 1)
            now[0] = 31
            self.assertEqual(verify(unknown, jwks=jwks).reason, "KID_MISMATCH")  # re-fetched once
            self.assertEqual(verify(unknown, jwks=jwks).reason, "KID_MISMATCH")  # rate limited again
            self.assertEqual(len(server.seen), 2)
            now[0] = 62
            self.assertEqual(verify(unknown, jwks=jwks).reason, "KID_MISMATCH")  # the 503: cache kept
            self.assertTrue(verify(jwks=jwks).valid)
            now[0] = 400  # older than max-age: refreshed
            self.assertTrue(verify(jwks=jwks).valid)
            self.assertEqual(len(server.seen), 4)
        cold = RemoteJwks(server.url + "/jwks.json")
        self.assertEqual(verify(jwks=cold).reason, "KEY_SOURCE_UNAVAILABLE")


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


class Receipts(unittest.TestCase):
    def test_version_2_is_refused_with_a_clear_detail(self) -> None:
        data = json.loads((VECTORS / "receipts.json").read_text(encoding="utf-8"))
        receipt = dict(data["vectors"][0]["receipt"], receiptVersion=2)
        result = verify_receipt(receipt, data["pinnedJwks"])
        self.assertEqual(result.reason, "RECEIPT_MALFORMED")
        self.assertIn("receiptVersion 2", result.detail)
        text = json.dumps(data["vectors"][0]["receipt"])
        self.assertTrue(verify_receipt(text, data["pinnedJwks"]).valid, "JSON text is accepted too")
        self.assertEqual(verify_receipt("not json", data["pinnedJwks"]).reason, "RECEIPT_MALFORMED")


if __name__ == "__main__":
    unittest.main()
