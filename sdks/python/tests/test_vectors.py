"""The shared vectors of sdks/test-vectors, checked with this SDK (the TypeScript and Go SDKs check
the same files)."""

from __future__ import annotations

import json
import unittest
from pathlib import Path
from typing import Any

from authority_runtime import InMemoryNonceStore, verify_authority_token, verify_receipt, verify_webhook_signature
from authority_runtime._canonical import CanonicalJsonError, canonical_json, parse_json, sha256_hex

VECTORS = Path(__file__).resolve().parents[2] / "test-vectors"


def load(name: str) -> Any:
    return json.loads((VECTORS / name).read_text(encoding="utf-8"))


class TokenVectors(unittest.TestCase):
    def test_every_token_vector(self) -> None:
        data = load("tokens.json")
        now = float(data["now"])
        expected = data["expected"]
        self.assertGreater(len(data["vectors"]), 100)
        for vector in data["vectors"]:
            with self.subTest(vector["name"]):
                store = InMemoryNonceStore(clock=lambda: now)
                for nonce in vector["consumedNonces"]:
                    self.assertTrue(store.consume(nonce, now + 3600))

                def verify() -> Any:
                    return verify_authority_token(
                        vector["token"],
                        data["jwks"],
                        tenant_id=expected["tenantId"],
                        adapter_id=expected["adapterId"],
                        target_system=expected["targetSystem"],
                        nonce_store=store,
                        now=now,
                        clock_skew_seconds=data["clockSkewSeconds"],
                    )

                result = verify()
                self.assertEqual({"valid": result.valid, "reason": result.reason}, vector["expected"], result.detail)
                if result.valid:
                    self.assertEqual(len(store), len(vector["consumedNonces"]) + 1)
                    self.assertEqual(verify().reason, "NONCE_ALREADY_CONSUMED")
                else:
                    self.assertEqual(len(store), len(vector["consumedNonces"]), "a refused token consumes nothing")


class WebhookVectors(unittest.TestCase):
    def test_every_webhook_vector(self) -> None:
        data = load("webhooks.json")
        for vector in data["vectors"]:
            with self.subTest(vector["name"]):
                result = verify_webhook_signature(
                    data["secret"],
                    vector["rawBody"].encode("utf-8"),
                    vector["signatureHeader"],
                    now=data["nowMs"] / 1000,
                    tolerance_seconds=data["toleranceSeconds"],
                )
                self.assertEqual({"valid": result.valid, "reason": result.reason}, vector["expected"])


class ReceiptVectors(unittest.TestCase):
    def test_every_receipt_vector(self) -> None:
        data = load("receipts.json")
        self.assertTrue(any(v["receipt"].get("receiptVersion") == 2 for v in data["vectors"]))
        for vector in data["vectors"]:
            log_keys = [vector["logKey"]]
            if vector["receipt"].get("receiptVersion") != 2 and vector["logKey"] is None:
                log_keys.append(data["pinnedLogKey"])  # the same result with the log key given
            for log_key in log_keys:
                with self.subTest(vector["name"], log_key=log_key):
                    result = verify_receipt(
                        vector["receipt"],
                        data["pinnedJwks"],
                        expected_tenant_id=vector["expectedTenantId"],
                        log_key=log_key,
                    )
                    self.assertEqual(
                        {"valid": result.valid, "reason": result.reason}, vector["expected"], result.detail
                    )


class CanonicalJsonVectors(unittest.TestCase):
    def test_every_canonical_vector(self) -> None:
        for vector in load("canonical-json.json")["vectors"]:
            with self.subTest(vector["name"]):
                try:
                    text: str | None = canonical_json(parse_json(vector["json"]))
                except CanonicalJsonError:
                    text = None
                self.assertEqual(text, vector["canonical"])
                self.assertEqual(None if text is None else sha256_hex(text), vector["sha256"])


if __name__ == "__main__":
    unittest.main()
