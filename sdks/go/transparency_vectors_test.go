package authority

import (
	"encoding/hex"
	"testing"
)

// The shared transparency vectors (sdks/test-vectors/transparency.json, contract §15); the
// TypeScript and Python SDKs check the same file.

type transparencyVectors struct {
	EntryHashes []string `json:"entryHashes"`
	LeafHashes  []string `json:"leafHashes"`
	Roots       []string `json:"roots"`
	Inclusion   []struct {
		Name     string      `json:"name"`
		Index    int64       `json:"index"`
		TreeSize int64       `json:"treeSize"`
		LeafHash string      `json:"leafHash"`
		Proof    []string    `json:"proof"`
		RootHash string      `json:"rootHash"`
		Expected expectation `json:"expected"`
	} `json:"inclusion"`
	Consistency []struct {
		Name     string      `json:"name"`
		FromSize int64       `json:"fromSize"`
		ToSize   int64       `json:"toSize"`
		FromRoot string      `json:"fromRoot"`
		ToRoot   string      `json:"toRoot"`
		Proof    []string    `json:"proof"`
		Expected expectation `json:"expected"`
	} `json:"consistency"`
	Checkpoints struct {
		LogKey      string `json:"logKey"`
		OtherLogKey string `json:"otherLogKey"`
		Vectors     []struct {
			Name       string      `json:"name"`
			Note       string      `json:"note"`
			Witnesses  []string    `json:"witnesses"`
			Quorum     int         `json:"quorum"`
			Expected   expectation `json:"expected"`
			Checkpoint *struct {
				Origin   string `json:"origin"`
				Size     int64  `json:"size"`
				RootHash string `json:"rootHash"`
			} `json:"checkpoint"`
			Cosigners []struct {
				Name string `json:"name"`
				Time int64  `json:"time"`
			} `json:"cosigners"`
		} `json:"vectors"`
	} `json:"checkpoints"`
}

func mustHex(t *testing.T, text string) []byte {
	t.Helper()
	raw, err := hex.DecodeString(text)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func hexList(t *testing.T, texts []string) [][]byte {
	out := make([][]byte, len(texts))
	for i, text := range texts {
		out[i] = mustHex(t, text)
	}
	return out
}

func referenceTreeHash(leaves [][]byte) []byte {
	switch len(leaves) {
	case 0:
		return EmptyTreeHash()
	case 1:
		return leaves[0]
	}
	k := 1
	for k*2 < len(leaves) {
		k *= 2
	}
	return NodeHash(referenceTreeHash(leaves[:k]), referenceTreeHash(leaves[k:]))
}

func checkOutcome(t *testing.T, valid bool, reason, detail string, expected expectation) {
	t.Helper()
	if valid != expected.Valid || reason != expected.reason() {
		t.Fatalf("got valid=%v reason=%q (%s), want valid=%v reason=%q", valid, reason, detail, expected.Valid, expected.reason())
	}
}

func TestTransparencyVectors(t *testing.T) {
	var file transparencyVectors
	loadVectors(t, "transparency.json", &file)

	t.Run("tree", func(t *testing.T) {
		var leaves [][]byte
		for i, entryHash := range file.EntryHashes {
			leaf, err := LeafHash(entryHash)
			if err != nil {
				t.Fatal(err)
			}
			if hex.EncodeToString(leaf) != file.LeafHashes[i] {
				t.Fatalf("leaf %d", i)
			}
			leaves = append(leaves, leaf)
		}
		for n, root := range file.Roots {
			if hex.EncodeToString(referenceTreeHash(leaves[:n])) != root {
				t.Fatalf("root of %d", n)
			}
		}
	})
	if len(file.Inclusion) < 100 || len(file.Consistency) < 90 {
		t.Fatalf("only %d inclusion and %d consistency vectors", len(file.Inclusion), len(file.Consistency))
	}
	for _, v := range file.Inclusion {
		v := v
		t.Run(v.Name, func(t *testing.T) {
			outcome := VerifyInclusionProof(v.Index, v.TreeSize, mustHex(t, v.LeafHash), hexList(t, v.Proof), mustHex(t, v.RootHash))
			checkOutcome(t, outcome.Valid, outcome.Reason, outcome.Detail, v.Expected)
		})
	}
	for _, v := range file.Consistency {
		v := v
		t.Run(v.Name, func(t *testing.T) {
			outcome := VerifyConsistencyProof(v.FromSize, v.ToSize, mustHex(t, v.FromRoot), mustHex(t, v.ToRoot), hexList(t, v.Proof))
			checkOutcome(t, outcome.Valid, outcome.Reason, outcome.Detail, v.Expected)
		})
	}
	for _, v := range file.Checkpoints.Vectors {
		v := v
		t.Run(v.Name, func(t *testing.T) {
			outcome, err := VerifyCheckpoint(v.Note, file.Checkpoints.LogKey, v.Witnesses, v.Quorum)
			if err != nil {
				t.Fatal(err)
			}
			checkOutcome(t, outcome.Valid, outcome.Reason, outcome.Detail, v.Expected)
			if !outcome.Valid {
				return
			}
			c := outcome.Checkpoint
			if c.Origin != v.Checkpoint.Origin || c.Size != v.Checkpoint.Size || hex.EncodeToString(c.RootHash) != v.Checkpoint.RootHash {
				t.Fatalf("checkpoint %+v", c)
			}
			if len(outcome.Cosignatures) != len(v.Cosigners) {
				t.Fatalf("%d cosignatures, want %d", len(outcome.Cosignatures), len(v.Cosigners))
			}
			for i, cosigner := range v.Cosigners {
				if outcome.Cosignatures[i].Name != cosigner.Name || outcome.Cosignatures[i].Time != cosigner.Time {
					t.Fatalf("cosignature %d: %+v", i, outcome.Cosignatures[i])
				}
			}
		})
	}
	t.Run("another tenant's key", func(t *testing.T) {
		outcome, err := VerifyCheckpoint(file.Checkpoints.Vectors[0].Note, file.Checkpoints.OtherLogKey, nil, 0)
		if err != nil || outcome.Reason != ReasonNoTrustedSignature {
			t.Fatalf("%+v %v", outcome, err)
		}
	})
}
