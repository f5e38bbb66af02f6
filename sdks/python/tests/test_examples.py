"""The README's examples are the files in examples/, and they run: the agent loop through a human
approval, then the executor's check, live (see live.py)."""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import io
import json
import os
import re
import runpy
import subprocess
import sys
import unittest
import uuid
from datetime import datetime, timezone
from pathlib import Path

from .live import service, unique_target

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


def hmac_hex(secret: str, data: bytes) -> str:
    return hmac.new(secret.encode(), data, hashlib.sha256).hexdigest()


def run_example(name: str, env: dict[str, str], stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(EXAMPLES / name)], input=stdin, env=env, capture_output=True, text=True, timeout=120
    )


class ReadmeExamples(unittest.TestCase):
    def test_the_readme_shows_the_example_files_verbatim(self) -> None:
        readme = (ROOT / "README.md").read_text(encoding="utf-8")
        for name in ("agent_loop.py", "executor.py", "webhook_check.py"):
            with self.subTest(name):
                self.assertIn(f"```python\n{(EXAMPLES / name).read_text(encoding='utf-8')}```", readme)

    def test_the_webhook_check_accepts_a_signed_delivery_once_and_refuses_a_tampered_one(self) -> None:
        secret = "whsec_" + uuid.uuid4().hex
        os.environ["AUTHORITY_WEBHOOK_SECRET"] = secret
        try:
            example = runpy.run_path(str(EXAMPLES / "webhook_check.py"))
        finally:
            del os.environ["AUTHORITY_WEBHOOK_SECRET"]
        handle, seen = example["handle"], example["seen_event_ids"]
        sent = datetime.now(timezone.utc)
        unsigned = {
            "eventId": str(uuid.uuid4()),
            "event": "decision.approved",
            "tenantId": "acme",
            "intentId": str(uuid.uuid4()),
            "decision": "APPROVED",
            "riskScore": 20,
            "timestamp": sent.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "sentAt": sent.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        }
        # Signed as contract §7 says: the payload over its JCS, the header over the raw body.
        canonical = json.dumps(unsigned, sort_keys=True, separators=(",", ":"))
        body = json.dumps({**unsigned, "signature": "sha256=" + hmac_hex(secret, canonical.encode())}).encode()
        headers = {
            "x-service-signature": "sha256=" + hmac_hex(secret, body),
            "x-service-timestamp": str(int(sent.timestamp())),
        }
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            self.assertEqual(handle(body, headers), 204)
            self.assertEqual(handle(body, headers), 204)
            self.assertEqual(handle(body.replace(b'"riskScore": 20', b'"riskScore": 2'), headers), 400)
            self.assertEqual(handle(body, {**headers, "x-service-timestamp": "1"}), 400)
        self.assertEqual(seen, {unsigned["eventId"]})
        self.assertEqual(
            printed.getvalue().splitlines(),
            [
                f"decision.approved for intent {unsigned['intentId']}",
                "refused delivery: SIGNATURE_MISMATCH",
                "refused delivery: TIMESTAMP_MISMATCH",
            ],
        )

    def test_the_readme_shows_the_reason_the_service_gives_for_the_agent_loop(self) -> None:
        readme = (ROOT / "README.md").read_text(encoding="utf-8")
        shown = re.search(r"`reason` is the deciding rule's id .*?\(`\"([^\"]+)\"`", readme, re.S)
        self.assertIsNotNone(shown)
        assert shown is not None
        decision = service().client().submit_intent(  # what examples/agent_loop.py submits
            actor_id="release-bot",
            actor_type="agent",
            target_system=unique_target(),
            proposed_action="merge pull request #42",
            risk_context={"baseRiskScore": 20},
            args={"operation": "merge_pr", "pullNumber": 42},
        )
        self.assertEqual(decision.reason, shown.group(1))

    def test_the_agent_loop_and_the_executor_run_against_the_service(self) -> None:
        live = service()
        env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "AUTHORITY_TARGET_SYSTEM": unique_target()}
        agent = subprocess.Popen(
            [sys.executable, str(EXAMPLES / "agent_loop.py")],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert agent.stderr is not None
            line = agent.stderr.readline()
            match = re.match(r"ESCALATED intent (\S+): waiting for a human", line)
            self.assertIsNotNone(match, line)
            assert match is not None
            approver_key = live.client().create_api_key(f"approver-{uuid.uuid4().hex[:8]}", "approver")["key"]
            live.client(approver_key).decide_approval(match.group(1), "approve", "the README example may merge")
            out, err = agent.communicate(timeout=60)
        finally:
            if agent.poll() is None:
                agent.kill()
                agent.wait()
        self.assertEqual(agent.returncode, 0, err)
        token = out.strip()
        self.assertEqual(len(token.split(".")), 3)

        first = run_example("executor.py", env, token + "\n")
        self.assertEqual(
            (first.returncode, first.stdout.strip()),
            (0, f"VALID merge pull request #42 on {env['AUTHORITY_TARGET_SYSTEM']}"),
            first.stderr,
        )
        replay = run_example("executor.py", env, token + "\n")
        self.assertEqual(
            (replay.returncode, replay.stdout.strip()), (1, "REFUSED NONCE_ALREADY_CONSUMED"), replay.stderr
        )


if __name__ == "__main__":
    unittest.main()
