"""The approve-then-act loop against a real `authority serve` (see live.py)."""

from __future__ import annotations

import json
import threading
import time
import unittest
import urllib.error
import urllib.request
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

from authority_runtime import (
    AuthorityApiError,
    AuthorityClient,
    RemoteJwks,
    RemoteNonceStore,
    verify_authority_token,
    verify_receipt,
)

from .live import Service, service, unique_target

READ = {"baseRiskScore": 10}


class LiveLoop(unittest.TestCase):
    live: ClassVar[Service]
    client: ClassVar[AuthorityClient]

    @classmethod
    def setUpClass(cls) -> None:
        cls.live = service()
        cls.client = cls.live.client()

    def verify(self, token: str, target: str, store: Any = None) -> Any:
        return verify_authority_token(
            token,
            RemoteJwks(self.live.jwks_url),
            tenant_id=self.live.tenant,
            adapter_id="external",
            target_system=target,
            nonce_store=store or RemoteNonceStore(self.live.url, self.live.tenant, self.live.api_key),
        )

    def test_an_approved_intent_yields_a_token_that_verifies_and_executes_once(self) -> None:
        target = unique_target()
        decision = self.client.submit_intent("reader-bot", "agent", target, "list pull requests", READ)
        self.assertEqual(decision.verdict, "ALLOW", decision.reason)
        self.assertEqual(decision.reason.split(":")[0], "starter/allow-reads")
        assert decision.token is not None
        store = RemoteNonceStore(self.live.url, self.live.tenant, self.live.api_key)
        first = self.verify(decision.token, target, store)
        self.assertTrue(first.valid, first.detail)
        self.assertEqual(first.claims["intentId"], decision.intent_id)
        self.assertEqual(first.claims["proposedAction"], "list pull requests")
        replay = self.verify(decision.token, target, store)
        self.assertEqual(replay.reason, "NONCE_ALREADY_CONSUMED")
        self.assertEqual(self.verify(decision.token, "sdk-python/elsewhere").reason, "TOKEN_TARGET_MISMATCH")

    def test_an_escalation_approved_by_another_key_then_the_token(self) -> None:
        target = unique_target()
        approver_key = self.client.create_api_key(f"approver-{uuid.uuid4().hex[:8]}", "approver")["key"]
        approver = self.live.client(approver_key)
        decision = self.client.submit_intent(
            "release-bot", "agent", target, "merge pull request #7", {"baseRiskScore": 20}, args={"pullNumber": 7}
        )
        self.assertEqual(decision.verdict, "ESCALATE", decision.reason)
        self.assertIsNotNone(decision.escalation_id)
        self.assertIsNone(decision.token)
        with self.assertRaises(AuthorityApiError) as own:
            self.client.decide_approval(decision.intent_id, "approve", "approving my own intent")
        self.assertEqual((own.exception.status, own.exception.code), (403, "FORBIDDEN"))
        self.assertEqual((own.exception.details or {}).get("reason"), "separation_of_duties")
        self.assertEqual(self.client.wait_for_approval(decision.intent_id, timeout=0.5, poll_interval=0.1), "ESCALATED")

        approval = approver.decide_approval(decision.intent_id, "approve", "reviewed by the live test")
        self.assertEqual(approval["status"], "approved")
        self.assertEqual(self.client.wait_for_approval(decision.intent_id, timeout=30), "APPROVED_AFTER_REVIEW")
        with self.assertRaises(AuthorityApiError) as stranger:
            approver.fetch_token(decision.intent_id)
        self.assertEqual((stranger.exception.status, stranger.exception.code), (403, "FORBIDDEN"))
        granted = self.client.fetch_token(decision.intent_id)
        self.assertEqual(granted.verdict, "ALLOW")
        assert granted.token is not None
        result = self.verify(granted.token, target)
        self.assertTrue(result.valid, result.detail)
        self.assertEqual(result.claims["proposedAction"], "merge pull request #7")

        pinned = {"keys": self.client.jwks()["keys"] + self.client.jwks_archive()["keys"]}
        served = self.client.get_receipt(decision.intent_id)
        self.assertEqual(served["receiptVersion"], 2)
        receipt = verify_receipt(served, pinned, expected_tenant_id=self.live.tenant, log_key=self.client.log_key())
        self.assertTrue(receipt.valid, receipt.detail)
        self.assertEqual((receipt.token_claims or {}).get("nonce"), result.claims["nonce"])
        self.assertEqual(verify_receipt(served, pinned).reason, "LOG_KEY_MISSING")

    def test_a_denial_is_a_result(self) -> None:
        target = unique_target()
        production = {"baseRiskScore": 10, "touchesProduction": True}
        decision = self.client.submit_intent("reader-bot", "agent", target, "list pull requests", production)
        self.assertEqual(decision.verdict, "DENY")
        self.assertIsNone(decision.token)
        self.assertEqual(decision.response["authorityDecision"]["decision"], "DENIED")
        self.assertTrue(decision.reason)
        pinned = {"keys": self.client.jwks()["keys"]}
        receipt = verify_receipt(self.client.get_receipt(decision.intent_id), pinned, log_key=self.client.log_key())
        self.assertTrue(receipt.valid, receipt.detail)

    def test_bad_input_is_an_error_with_the_envelope(self) -> None:
        with self.assertRaises(AuthorityApiError) as caught:
            self.client.submit_intent("a", "agent", "not a repo", "list", READ)
        self.assertEqual((caught.exception.status, caught.exception.code), (400, "VALIDATION_ERROR"))
        self.assertIsNotNone(caught.exception.request_id)
        self.assertFalse(caught.exception.retryable)

    def test_a_deletion_answered_204_is_none(self) -> None:
        created = self.client.create_api_key(f"deleted-{uuid.uuid4().hex[:8]}", "agent")
        self.assertIsNone(self.client.request("DELETE", f"/keys/{created['id']}"))
        with self.assertRaises(AuthorityApiError) as revoked:
            self.live.client(created["key"]).get_intent(str(uuid.uuid4()))
        self.assertEqual(revoked.exception.status, 401)

    def test_the_chain_verifies(self) -> None:
        result = self.client.verify_chain()
        self.assertIs(result["valid"], True)
        self.assertGreater(result["length"], 0)


class FlakyProxy:
    """Between the client and the service: answers 503 twice, then forwards the third attempt but
    loses the service's answer (502 to the client), then forwards normally."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream.rstrip("/")
        self.attempts: list[dict[str, str]] = []
        self.lost: list[Any] = []

    def __enter__(self) -> FlakyProxy:
        proxy = self

        class Handle(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                return

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                headers = {k.lower(): v for k, v in self.headers.items() if k.lower() != "host"}
                proxy.attempts.append(headers)
                attempt = len(proxy.attempts)
                if attempt <= 2:
                    return self.answer(
                        503, b'{"error":{"code":"SERVICE_UNAVAILABLE","message":"flaky","requestId":"p"}}'
                    )
                request = urllib.request.Request(proxy.upstream + self.path, data=body, method="POST", headers=headers)
                try:
                    with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310
                        status, raw = response.status, response.read()
                except urllib.error.HTTPError as error:
                    status, raw = error.code, error.read()
                if attempt == 3:
                    proxy.lost.append(json.loads(raw))
                    return self.answer(502, b"<html>bad gateway</html>")
                return self.answer(status, raw)

            def answer(self, status: int, raw: bytes) -> None:
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handle)
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)
        self._thread.start()
        return self

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()


class LiveRetries(unittest.TestCase):
    def test_retries_after_failures_and_a_lost_answer_make_one_decision(self) -> None:
        live = service()
        target = unique_target()
        actor = f"retry-bot-{uuid.uuid4().hex[:8]}"
        with FlakyProxy(live.url) as proxy:
            client = AuthorityClient(proxy.url, live.tenant, live.api_key, max_attempts=4)
            decision = client.submit_intent(actor, "agent", target, "list pull requests", READ)
        self.assertEqual(len(proxy.attempts), 4)
        self.assertEqual(len({attempt["idempotency-key"] for attempt in proxy.attempts}), 1)
        self.assertEqual(decision.verdict, "ALLOW")
        self.assertEqual(decision.intent_id, proxy.lost[0]["intentId"], "the retry replayed the lost decision")
        self.assertEqual(decision.token, proxy.lost[0]["authorityDecisionToken"])
        listed = live.client().request("GET", "/intents", query={"actorId": actor})
        self.assertEqual([intent["intentId"] for intent in listed["intents"]], [decision.intent_id])


class LivePhysical(unittest.TestCase):
    def test_classify_and_issue_on_the_physical_surface(self) -> None:
        live = service()
        for suffix in ("", "/v1"):  # the physical routes are under /v1 either way
            with self.subTest(suffix):
                client = AuthorityClient(live.url.rstrip("/") + suffix, live.tenant, live.api_key)
                self.classify_and_issue(client)

    def classify_and_issue(self, client: AuthorityClient) -> None:
        robot = f"devid:arm-{uuid.uuid4().hex[:8]}"
        client.request("POST", "/v1/physical/actors", {"actorIdentity": robot, "actorKind": "robot"})
        goal = {
            "schema": "robot.manipulation",
            "verb": "pick",
            "object": "tote",
            "parameters": {"cell": 4},
            "actor": {"kind": "robot", "identifier": robot},
        }
        classification = client.classify(goal)
        self.assertEqual(classification["oiCode"], "OI-1502")

        def reading(value: bool) -> dict[str, Any]:
            return {
                "kind": "boolean",
                "value": value,
                "asOfTimestampMs": int(time.time() * 1000),
                "attestation": {"channel": "cell-4-safety-plc", "safetyRated": True, "protocol": "fsoe"},
            }

        def request(emergency_stop: bool) -> dict[str, Any]:
            return {
                "intent": {"structuredGoal": goal},
                "dagNode": {"nodeId": "pick-tote-17", "oiCode": "OI-1502", "deadlineMs": 5000, "safeDefault": "stop"},
                "claims": {"actorIdentity": robot, "deadlineMs": 5000, "safeDefault": "stop"},
                "physicalState": {
                    "safety/emergency-stop": reading(emergency_stop),
                    "safety/light-curtain-breached": reading(False),
                    "cell/human-present": reading(False),
                },
            }

        allowed = client.issue_physical_token(request(False))
        self.assertEqual(allowed.decision, "ALLOW")
        self.assertEqual(len((allowed.token or "").split(".")), 3)
        denied = client.issue_physical_token(request(True))
        self.assertEqual(denied.decision, "DENY")
        self.assertEqual((denied.details or {}).get("clauseId"), "deny-on-emergency-stop")


if __name__ == "__main__":
    unittest.main()
