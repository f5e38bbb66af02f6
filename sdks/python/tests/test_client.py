"""The client's retry policy and result mapping, against a scripted local server."""

from __future__ import annotations

import time
import unittest
from typing import Any

from authority_runtime import AuthorityApiError, AuthorityClient
from authority_runtime._http import Transport
from authority_runtime.retry import backoff_delay, retry_after_seconds

from .stub_server import StubServer, Trickle


def intent_response(decision: str, **extra: Any) -> dict[str, Any]:
    return {
        "intentId": "0190f5c2-1111-7000-8000-000000000001",
        "correlationId": "0190f5c2-1111-7000-8000-0000000000cc",
        "authorityDecision": {
            "decision": decision,
            "riskScore": 20,
            "rationale": [
                "interpreted as OI-105 (write, confidence 0.9)",
                "rule starter/escalate-writes matched: ESCALATE",
                "most severe wins: ESCALATE (deciding rule starter/escalate-writes)",
            ],
            "decidingRule": {"id": "starter/escalate-writes", "effect": "ESCALATE", "priority": 100},
        },
        **extra,
    }


def envelope(code: str, message: str = "no") -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "requestId": "req-1"}}


def submit(client: AuthorityClient, **extra: Any) -> Any:
    return client.submit_intent(
        "agent-7", "agent", "acme/api", "merge pull request #42", {"baseRiskScore": 20}, **extra
    )


class RetryPolicy(unittest.TestCase):
    def test_retries_503_twice_with_one_idempotency_key(self) -> None:
        script: list[Any] = [
            (503, {}, envelope("SERVICE_UNAVAILABLE")),
            (502, {}, b"<html>bad gateway</html>"),
            (202, {}, intent_response("ESCALATED", escalationId="esc-1")),
        ]
        with StubServer(script) as server:
            decision = submit(AuthorityClient(server.url, "acme", "service_live_x"))
        self.assertEqual(decision.verdict, "ESCALATE")
        self.assertEqual(decision.escalation_id, "esc-1")
        self.assertIsNone(decision.token)
        self.assertEqual(decision.reason, "starter/escalate-writes: interpreted as OI-105 (write, confidence 0.9)")
        keys = {seen.headers["idempotency-key"] for seen in server.seen}
        self.assertEqual(len(server.seen), 3)
        self.assertEqual(len(keys), 1, "every retry reuses the submission's key")
        self.assertEqual({seen.body["tenantId"] for seen in server.seen}, {"acme"})
        self.assertEqual(server.seen[0].headers["authorization"], "Bearer service_live_x")
        self.assertEqual(server.seen[0].headers["x-tenant-id"], "acme")

    def test_uses_the_given_idempotency_key_and_a_new_one_per_submission(self) -> None:
        script: list[Any] = [(202, {}, intent_response("ESCALATED", escalationId="e"))] * 3
        with StubServer(list(script)) as server:
            client = AuthorityClient(server.url, "acme", "k")
            submit(client, idempotency_key="order-17")
            submit(client)
            submit(client)
        keys = [seen.headers["idempotency-key"] for seen in server.seen]
        self.assertEqual(keys[0], "order-17")
        self.assertNotEqual(keys[1], keys[2])

    def test_gives_up_after_max_attempts_and_never_yields_a_token(self) -> None:
        loop_failed: Any = (500, {}, envelope("AUTHORITY_LOOP_FAILED", "signer down"))
        with StubServer([loop_failed] * 3) as server:
            with self.assertRaises(AuthorityApiError) as caught:
                submit(AuthorityClient(server.url, "acme", "k", max_attempts=3))
        self.assertEqual(len(server.seen), 3)
        error = caught.exception
        self.assertEqual((error.status, error.code, error.retryable), (500, "AUTHORITY_LOOP_FAILED", True))
        self.assertEqual(error.request_id, "req-1")

    def test_terminal_statuses_are_not_retried(self) -> None:
        for status, code in (
            (400, "VALIDATION_ERROR"),
            (401, "UNAUTHORIZED"),
            (403, "FORBIDDEN"),
            (404, "NOT_FOUND"),
            (409, "CONFLICT"),
        ):
            with self.subTest(status), StubServer([(status, {}, envelope(code))]) as server:
                with self.assertRaises(AuthorityApiError) as caught:
                    submit(AuthorityClient(server.url, "acme", "k"))
                self.assertEqual(len(server.seen), 1)
                self.assertEqual((caught.exception.status, caught.exception.code), (status, code))
                self.assertFalse(caught.exception.retryable)

    def test_honours_retry_after_on_429(self) -> None:
        script = [
            (429, {"retry-after": "1"}, envelope("RATE_LIMITED")),
            (202, {}, intent_response("ESCALATED", escalationId="e")),
        ]
        with StubServer(script) as server:
            started = time.monotonic()
            submit(AuthorityClient(server.url, "acme", "k"))
            waited = time.monotonic() - started
        self.assertEqual(len(server.seen), 2)
        self.assertGreaterEqual(waited, 1.0)

    def test_a_retry_after_beyond_the_limit_is_returned_at_once(self) -> None:
        with StubServer([(429, {"retry-after": "3600"}, envelope("RATE_LIMITED"))]) as server:
            with self.assertRaises(AuthorityApiError) as caught:
                submit(AuthorityClient(server.url, "acme", "k"))
        self.assertEqual(len(server.seen), 1)
        self.assertEqual((caught.exception.status, caught.exception.retry_after), (429, 3600.0))

    def test_settings_and_paths_that_cannot_travel_are_refused_before_sending(self) -> None:
        with StubServer([]) as server:
            for tenant, key in (("demo\n", "k"), ("demo", "key with space"), ("démo", "k"), ("demo", "clé")):
                with self.subTest(tenant=tenant, key=key), self.assertRaises(ValueError):
                    AuthorityClient(server.url, tenant, key)
            client = AuthorityClient(server.url, "acme", "k")
            with self.assertRaises(ValueError):
                client.request("GET", "intent")
            self.assertEqual(server.seen, [], "nothing was sent")

    def test_an_idempotency_key_the_service_would_refuse_is_refused_before_sending(self) -> None:
        with StubServer([]) as server:
            client = AuthorityClient(server.url, "acme", "k")
            for key in ("", "with space", "line\nbreak", "k" * 256, "clé"):
                with self.subTest(key=key), self.assertRaises(ValueError):
                    submit(client, idempotency_key=key)
            for call in (
                lambda: client.fetch_token("i-1", idempotency_key=""),
                lambda: client.issue_physical_token({"intent": {}}, idempotency_key=""),
            ):
                with self.assertRaises(ValueError):
                    call()
            self.assertEqual(server.seen, [], "nothing was sent")

    def test_network_errors_are_retried_then_reported_with_status_0(self) -> None:
        with StubServer([None, (202, {}, intent_response("ESCALATED", escalationId="e"))]) as server:
            self.assertEqual(submit(AuthorityClient(server.url, "acme", "k")).verdict, "ESCALATE")
        self.assertEqual(len(server.seen), 2)
        with StubServer([]) as server:
            url = server.url
        with self.assertRaises(AuthorityApiError) as caught:
            submit(AuthorityClient(url, "acme", "k", max_attempts=2, timeout=2))
        self.assertEqual((caught.exception.status, caught.exception.code), (0, "NETWORK_ERROR"))
        self.assertTrue(caught.exception.retryable)

    def test_a_call_that_would_act_twice_is_repeated_only_when_it_was_not_processed(self) -> None:
        # An approval or a new key after a lost answer or a 5xx may already have happened: repeating
        # it would answer 409 for an approval that took effect, or make a second key.
        approved = {"intentId": "i-1", "status": "APPROVED_AFTER_REVIEW"}
        for failure in (None, (503, {}, envelope("SERVICE_UNAVAILABLE")), (500, {}, envelope("INTERNAL"))):
            with StubServer([failure, failure]) as server:
                client = AuthorityClient(server.url, "acme", "k")
                with self.assertRaises(AuthorityApiError) as caught:
                    client.decide_approval("i-1", "approve", "reviewed the diff")
                self.assertTrue(caught.exception.retryable)
                with self.assertRaises(AuthorityApiError):
                    client.create_api_key("ci", "auditor")
            self.assertEqual(len(server.seen), 2, f"one request each after {failure!r}")
        limited = (429, {"retry-after": "0"}, envelope("rate_limited"))
        with StubServer([limited, (200, {}, approved), limited, (201, {}, {"id": "k-1", "key": "s"})]) as server:
            client = AuthorityClient(server.url, "acme", "k")
            self.assertEqual(client.decide_approval("i-1", "approve", "ok")["status"], "APPROVED_AFTER_REVIEW")
            self.assertEqual(client.create_api_key("ci", "auditor")["id"], "k-1")
        self.assertEqual(len(server.seen), 4, "a 429 proves the call was not processed")
        with StubServer([]) as server:
            url = server.url
        with self.assertRaises(AuthorityApiError) as refused:
            AuthorityClient(url, "acme", "k", max_attempts=3).decide_approval("i-1", "approve", "ok")
        self.assertEqual(refused.exception.code, "NETWORK_ERROR")

    def test_a_connection_that_could_not_be_opened_is_retried_for_any_call(self) -> None:
        waits: list[float] = []
        with StubServer([]) as server:
            url = server.url
        transport = Transport(url, "acme", "k", timeout=2, max_attempts=3, sleep=waits.append)
        with self.assertRaises(AuthorityApiError) as caught:
            transport.request("POST", "/authority/approval", {"intentId": "i-1"})
        self.assertEqual(caught.exception.code, "NETWORK_ERROR")
        self.assertEqual(len(waits), 2, "refused three times, nothing was sent: three attempts")

    def test_reads_and_calls_that_change_nothing_when_repeated_are_retried_after_a_5xx(self) -> None:
        report = {"valid": True, "length": 3}
        goal = {"schema": "robot.manipulation", "verb": "move", "parameters": {}}
        classified = {"oiCode": "OI-1502"}
        with StubServer(
            [None, (200, {}, report), (503, {}, envelope("SERVICE_UNAVAILABLE")), (200, {}, classified)]
        ) as server:
            client = AuthorityClient(server.url, "acme", "k")
            self.assertEqual(client.verify_chain()["valid"], True)
            self.assertEqual(client.classify(goal), classified)
        self.assertEqual(len(server.seen), 4)

    def test_a_truncated_answer_is_a_network_error_and_retried(self) -> None:
        truncated = (200, {"content-length": "500"}, {"status": "ESCALATED"})
        with StubServer([truncated, (200, {}, {"status": "EXPIRED"}), truncated]) as server:
            client = AuthorityClient(server.url, "acme", "k", max_attempts=2)
            self.assertEqual(client.get_intent("i-1")["status"], "EXPIRED")
            with self.assertRaises(AuthorityApiError) as caught:
                AuthorityClient(server.url, "acme", "k", max_attempts=1).get_intent("i-1")
        self.assertEqual((caught.exception.status, caught.exception.code), (0, "NETWORK_ERROR"))

    def test_redirects_are_not_followed(self) -> None:
        with StubServer([(307, {"location": "http://127.0.0.1:9/steal"}, b"")]) as server:
            with self.assertRaises(AuthorityApiError) as caught:
                submit(AuthorityClient(server.url, "acme", "k"))
        self.assertEqual(caught.exception.status, 307)

    def test_backoff_is_exponential_with_full_jitter(self) -> None:
        self.assertEqual([backoff_delay(n, lambda: 1.0) for n in range(1, 8)], [0.2, 0.4, 0.8, 1.6, 3.2, 5.0, 5.0])
        self.assertEqual(backoff_delay(3, lambda: 0.0), 0.0)
        self.assertEqual(retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT"), 0.0)
        self.assertIsNone(retry_after_seconds(None))


class DecisionMapping(unittest.TestCase):
    def test_denied_is_a_result(self) -> None:
        denied = intent_response("DENIED")
        with StubServer([(403, {}, denied)]) as server:
            decision = submit(AuthorityClient(server.url, "acme", "k"))
        self.assertEqual((decision.verdict, decision.token, decision.escalation_id), ("DENY", None, None))
        self.assertEqual(decision.risk_score, 20.0)
        self.assertEqual(decision.response, denied)

    def test_allow_carries_the_token_of_a_200_only(self) -> None:
        approved = intent_response("APPROVED", authorityDecisionToken="a.b.c")
        with StubServer([(200, {}, approved), (202, {}, approved), (200, {}, intent_response("APPROVED"))]) as server:
            client = AuthorityClient(server.url, "acme", "k")
            self.assertEqual(submit(client).token, "a.b.c")
            for _ in range(2):  # APPROVED under 202, and APPROVED without a token, are refused
                with self.assertRaises(AuthorityApiError) as caught:
                    submit(client)
                self.assertEqual(caught.exception.code, "INVALID_RESPONSE")

    def test_a_403_envelope_is_an_error(self) -> None:
        with StubServer([(403, {}, envelope("FORBIDDEN"))]) as server:
            with self.assertRaises(AuthorityApiError) as caught:
                submit(AuthorityClient(server.url, "acme", "k"))
        self.assertEqual(caught.exception.code, "FORBIDDEN")

    def test_fetch_token_always_sends_an_idempotency_key(self) -> None:
        approved = intent_response("APPROVED", authorityDecisionToken="a.b.c")
        with StubServer([(503, {}, envelope("SERVICE_UNAVAILABLE")), (200, {}, approved)]) as server:
            decision = AuthorityClient(server.url, "acme", "k").fetch_token("0190f5c2/x")
        self.assertEqual(decision.token, "a.b.c")
        self.assertEqual(server.seen[0].path, "/intent/0190f5c2%2Fx/token")
        self.assertEqual(len({seen.headers["idempotency-key"] for seen in server.seen}), 1)

    def test_wait_for_approval_polls_until_the_status_changes(self) -> None:
        statuses = ["ESCALATED", "ESCALATED", "APPROVED_AFTER_REVIEW"]
        with StubServer([(200, {}, {"status": s}) for s in statuses]) as server:
            status = AuthorityClient(server.url, "acme", "k").wait_for_approval("i-1", timeout=10, poll_interval=0.05)
        self.assertEqual(status, "APPROVED_AFTER_REVIEW")
        self.assertEqual(len(server.seen), 3)
        with StubServer([(200, {}, {"status": "ESCALATED"})] * 50) as server:
            status = AuthorityClient(server.url, "acme", "k").wait_for_approval("i-1", timeout=0.2, poll_interval=0.05)
        self.assertEqual(status, "ESCALATED")

    def test_wait_for_approval_answers_escalated_at_its_timeout_while_the_service_hangs(self) -> None:
        stalled = Trickle(200, b'{"status": "APPROVED_AFTER_REVIEW"}', 1.0, headers=True)
        with StubServer([stalled] * 4) as server:
            client = AuthorityClient(server.url, "acme", "k", timeout=2.0, max_attempts=4)
            started = time.monotonic()
            status = client.wait_for_approval("i-1", timeout=0.5, poll_interval=0.05)
            elapsed = time.monotonic() - started
        self.assertEqual(status, "ESCALATED")
        self.assertLess(elapsed, 1.5, "the wait ends at its timeout, not after 4 attempts of 2 s")

    def test_wait_for_approval_waits_out_an_outage_until_its_deadline(self) -> None:
        unavailable = (503, {}, envelope("SERVICE_UNAVAILABLE"))
        approved = (200, {}, {"status": "APPROVED_AFTER_REVIEW"})
        with StubServer([unavailable] * 3 + [approved]) as server:
            client = AuthorityClient(server.url, "acme", "k", max_attempts=2)
            status = client.wait_for_approval("i-1", timeout=30, poll_interval=0.05)
        self.assertEqual(status, "APPROVED_AFTER_REVIEW")
        self.assertEqual(len(server.seen), 4, "two reads of two attempts failed; the wait polled on")
        with StubServer([unavailable] * 200) as server:
            client = AuthorityClient(server.url, "acme", "k", max_attempts=1)
            started = time.monotonic()
            status = client.wait_for_approval("i-1", timeout=0.3, poll_interval=0.05)
        self.assertEqual(status, "ESCALATED")
        self.assertGreaterEqual(time.monotonic() - started, 0.3)
        with StubServer([(404, {}, envelope("NOT_FOUND"))]) as server:
            with self.assertRaises(AuthorityApiError) as raised:
                AuthorityClient(server.url, "acme", "k").wait_for_approval("i-1", timeout=30)
        self.assertEqual(raised.exception.status, 404)

    def test_physical_denial_is_a_result(self) -> None:
        denied = {
            "error": {
                "code": "policy_denied",
                "message": "no",
                "requestId": "r",
                "details": {"decision": "DENY", "clauseId": "deny-on-emergency-stop"},
            }
        }
        with StubServer([(422, {}, denied)]) as server:
            decision = AuthorityClient(server.url, "acme", "k").issue_physical_token({"intent": {}})
        self.assertEqual(decision.decision, "DENY")
        self.assertEqual((decision.details or {}).get("clauseId"), "deny-on-emergency-stop")
        self.assertIn("idempotency-key", server.seen[0].headers)



class LogKey(unittest.TestCase):
    KEY = "audit.example.com/audit/acme+730c79dd+AcLr7trNFADB60EYPAQoGCoZEL1HjgiLW84cXB+duvZ7"
    # Well-formed text whose key ID does not match its name and key.
    WRONG_ID = "audit.example.com/audit/acme+0a1b2c3d+AcLr7trNFADB60EYPAQoGCoZEL1HjgiLW84cXB+duvZ7"

    def test_reads_the_public_text_and_refuses_anything_else(self) -> None:
        text = {"content-type": "text/plain; charset=utf-8"}
        script: list[Any] = [
            (200, text, f"{self.KEY}\n".encode()),
            (200, text, b"not a key\n"),
            (200, text, f"{self.WRONG_ID}\n".encode()),
            (200, text, b"\xff\xfe"),
            (404, {}, envelope("NOT_FOUND")),
        ]
        with StubServer(script) as server:
            client = AuthorityClient(server.url, "acme", "service_live_x")
            self.assertEqual(client.log_key(), self.KEY)
            for code in ("INVALID_RESPONSE", "INVALID_RESPONSE", "INVALID_RESPONSE", "NOT_FOUND"):
                with self.assertRaises(AuthorityApiError) as raised:
                    client.log_key()
                self.assertEqual(raised.exception.code, code)
        self.assertEqual(server.seen[0].path, "/.well-known/authority/acme/log-key")
        self.assertNotIn("authorization", server.seen[0].headers)
        self.assertEqual(server.seen[0].headers["accept"], "text/plain")


class GenericRequests(unittest.TestCase):
    def test_a_typed_call_refuses_json_of_another_shape(self) -> None:
        script: list[Any] = [(200, {}, b"[1, 2]"), (200, {}, b'"text"'), (200, {}, b"[]"), (200, {}, b"null")]
        with StubServer(script) as server:
            client = AuthorityClient(server.url, "acme", "k")
            for call in (
                lambda: client.get_intent("i-1"),
                lambda: client.verify_chain(),
                lambda: client.jwks(),
                lambda: client.decide_approval("i-1", "approve", "ok"),
            ):
                with self.assertRaises(AuthorityApiError) as raised:
                    call()
                self.assertEqual((raised.exception.status, raised.exception.code), (200, "INVALID_RESPONSE"))

    def test_an_error_answer_without_the_envelope_is_invalid_response_with_its_status(self) -> None:
        html = {"content-type": "text/html"}
        script: list[Any] = [(404, html, b"<html>not here</html>"), (302, {"location": "/x"}, b""), (409, {}, b"[]")]
        with StubServer(script) as server:
            client = AuthorityClient(server.url, "acme", "k")
            for status in (404, 302, 409):
                with self.assertRaises(AuthorityApiError) as raised:
                    client.get_intent("i-1")
                self.assertEqual((raised.exception.status, raised.exception.code), (status, "INVALID_RESPONSE"))
                self.assertFalse(raised.exception.retryable)
        self.assertEqual(len(server.seen), 3)

    def test_an_empty_2xx_is_none_and_a_body_that_is_not_json_is_invalid(self) -> None:
        script: list[Any] = [
            (204, {}, b""),
            (204, {}, b""),
            (200, {}, b""),
            (200, {}, b"<html>deleted</html>"),
            (200, {}, b""),
        ]
        with StubServer(script) as server:
            client = AuthorityClient(server.url, "acme", "k")
            self.assertIsNone(client.request("DELETE", "/keys/key-1"))
            self.assertIsNone(client.request("DELETE", "/v1/webhooks/wh-1"))
            self.assertIsNone(client.request("POST", "/connectors/c-1/test"))
            with self.assertRaises(AuthorityApiError) as not_json:
                client.request("DELETE", "/connectors/c-1")
            with self.assertRaises(AuthorityApiError) as empty:  # a typed call needs its JSON
                client.get_intent("i-1")
        self.assertEqual((not_json.exception.status, not_json.exception.code), (200, "INVALID_RESPONSE"))
        self.assertEqual((empty.exception.status, empty.exception.code), (200, "INVALID_RESPONSE"))
        self.assertEqual(
            [(seen.method, seen.path) for seen in server.seen],
            [
                ("DELETE", "/keys/key-1"),
                ("DELETE", "/v1/webhooks/wh-1"),
                ("POST", "/connectors/c-1/test"),
                ("DELETE", "/connectors/c-1"),
                ("GET", "/intent/i-1"),
            ],
        )


class BaseUrls(unittest.TestCase):
    def test_physical_calls_and_v1_paths_work_with_and_without_a_v1_base_url(self) -> None:
        classified: Any = (200, {}, {"oiCode": "OI-1502"})
        allowed: Any = (200, {}, {"decision": "ALLOW", "token": "a.b.c"})
        listed: Any = (200, {}, {"intents": []})
        for suffix in ("", "/", "/v1", "/v1/"):
            with self.subTest(suffix), StubServer([classified, allowed, listed, listed]) as server:
                client = AuthorityClient(server.url + suffix, "acme", "k")
                self.assertEqual(client.classify({"verb": "pick"})["oiCode"], "OI-1502")
                self.assertEqual(client.issue_physical_token({"intent": {}}).token, "a.b.c")
                client.request("GET", "/v1/intents")
                client.request("GET", "/intents")
                prefix = "/v1" if suffix.startswith("/v1") else ""
                self.assertEqual(
                    [seen.path for seen in server.seen],
                    ["/v1/physical/classify", "/v1/physical/authority-tokens", "/v1/intents", f"{prefix}/intents"],
                )


class Timeouts(unittest.TestCase):
    def test_the_timeout_bounds_the_whole_attempt_against_a_trickling_peer(self) -> None:
        body = b'{"status": "ESCALATED", "padding": "...................."}'
        for headers in (False, True):
            with self.subTest(headers=headers), StubServer([Trickle(200, body, 0.2, headers)]) as server:
                client = AuthorityClient(server.url, "acme", "k", timeout=1.0, max_attempts=1)
                started = time.monotonic()
                with self.assertRaises(AuthorityApiError) as caught:
                    client.get_intent("i-1")
                elapsed = time.monotonic() - started
                error = caught.exception
                self.assertEqual((error.status, error.code, error.retryable), (0, "TIMEOUT", True))
                self.assertGreaterEqual(elapsed, 0.9)
                self.assertLess(elapsed, 2.0, "one byte every 0.2 s must not hold a 1 s call for the whole answer")

    def test_a_timed_out_attempt_is_retried_and_an_answer_in_time_is_kept(self) -> None:
        slow = Trickle(200, b'{"status": "ESCALATED", "padding": "..........."}', 0.2)
        with StubServer([slow, (200, {}, {"status": "EXPIRED"})]) as server:
            status = AuthorityClient(server.url, "acme", "k", timeout=1.0).get_intent("i-1")["status"]
        self.assertEqual(status, "EXPIRED")
        self.assertEqual(len(server.seen), 2)


if __name__ == "__main__":
    unittest.main()
