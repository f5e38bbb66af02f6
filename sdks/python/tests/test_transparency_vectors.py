"""The shared transparency vectors (sdks/test-vectors/transparency.json, contract §15), checked with
this SDK; the TypeScript and Go SDKs check the same file."""

from __future__ import annotations

import json
import unittest
from pathlib import Path
from typing import Any

from authority_runtime import (
    ProofVerification,
    leaf_hash,
    verify_checkpoint,
    verify_consistency_proof,
    verify_inclusion_proof,
)
from authority_runtime.transparency import CheckpointVerification, empty_tree_hash, node_hash

VECTORS: dict[str, Any] = json.loads(
    (Path(__file__).resolve().parents[2] / "test-vectors" / "transparency.json").read_text(encoding="utf-8")
)


def got(outcome: ProofVerification | CheckpointVerification) -> dict[str, Any]:
    return {"valid": outcome.valid, "reason": outcome.reason}


def tree_hash(leaves: list[bytes]) -> bytes:
    if not leaves:
        return empty_tree_hash()
    if len(leaves) == 1:
        return leaves[0]
    k = 1
    while k * 2 < len(leaves):
        k *= 2
    return node_hash(tree_hash(leaves[:k]), tree_hash(leaves[k:]))


class TreeVectors(unittest.TestCase):
    def test_leaf_hashes_and_roots(self) -> None:
        leaves = [leaf_hash(h) for h in VECTORS["entryHashes"]]
        self.assertEqual([leaf.hex() for leaf in leaves], VECTORS["leafHashes"])
        for n, root in enumerate(VECTORS["roots"]):
            self.assertEqual(tree_hash(leaves[:n]).hex(), root, f"root of {n}")


class InclusionVectors(unittest.TestCase):
    def test_every_inclusion_vector(self) -> None:
        self.assertGreater(len(VECTORS["inclusion"]), 100)
        for v in VECTORS["inclusion"]:
            with self.subTest(v["name"]):
                outcome = verify_inclusion_proof(
                    v["index"],
                    v["treeSize"],
                    bytes.fromhex(v["leafHash"]),
                    [bytes.fromhex(p) for p in v["proof"]],
                    bytes.fromhex(v["rootHash"]),
                )
                self.assertEqual(got(outcome), v["expected"], outcome.detail)


class ConsistencyVectors(unittest.TestCase):
    def test_every_consistency_vector(self) -> None:
        self.assertGreater(len(VECTORS["consistency"]), 90)
        for v in VECTORS["consistency"]:
            with self.subTest(v["name"]):
                outcome = verify_consistency_proof(
                    v["fromSize"],
                    v["toSize"],
                    bytes.fromhex(v["fromRoot"]),
                    bytes.fromhex(v["toRoot"]),
                    [bytes.fromhex(p) for p in v["proof"]],
                )
                self.assertEqual(got(outcome), v["expected"], outcome.detail)


class CheckpointVectors(unittest.TestCase):
    def test_every_checkpoint_vector(self) -> None:
        data = VECTORS["checkpoints"]
        for v in data["vectors"]:
            with self.subTest(v["name"]):
                outcome = verify_checkpoint(v["note"], data["logKey"], v["witnesses"], v["quorum"])
                self.assertEqual(got(outcome), v["expected"], outcome.detail)
                if outcome.checkpoint is not None:
                    checkpoint = outcome.checkpoint
                    self.assertEqual(
                        {"origin": checkpoint.origin, "size": checkpoint.size, "rootHash": checkpoint.root_hash.hex()},
                        v["checkpoint"],
                    )
                    self.assertEqual([{"name": c.name, "time": c.time} for c in outcome.cosignatures], v["cosigners"])

    def test_a_note_as_bytes_verifies_like_text(self) -> None:
        data = VECTORS["checkpoints"]
        first = data["vectors"][0]
        self.assertTrue(verify_checkpoint(first["note"].encode("utf-8"), data["logKey"]).valid)
        self.assertEqual(verify_checkpoint(b"\xff\n\n", data["logKey"]).reason, "NOTE_MALFORMED")

    def test_another_tenants_key_is_refused(self) -> None:
        data = VECTORS["checkpoints"]
        outcome = verify_checkpoint(data["vectors"][0]["note"], data["otherLogKey"])
        self.assertEqual(outcome.reason, "NO_TRUSTED_SIGNATURE")


if __name__ == "__main__":
    unittest.main()
