package authority

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
)

// The reasons VerifyInclusionProof and VerifyConsistencyProof report (contract §15), as the
// TypeScript and Python SDKs name them.
const (
	ReasonInvalidSizes  = "INVALID_SIZES"
	ReasonMalformedHash = "MALFORMED_HASH"
	ReasonProofTooLong  = "PROOF_TOO_LONG"
	ReasonProofTooShort = "PROOF_TOO_SHORT"
	ReasonRootMismatch  = "ROOT_MISMATCH"
)

// ProofVerification is the outcome of a Merkle proof check: Valid, or the Reason with a Detail.
type ProofVerification struct {
	Valid  bool
	Reason string
	Detail string
}

func proofFailed(reason, format string, args ...any) ProofVerification {
	return ProofVerification{Reason: reason, Detail: fmt.Sprintf(format, args...)}
}

// EmptyTreeHash is the root hash of the empty tree: SHA-256 of nothing.
func EmptyTreeHash() []byte {
	sum := sha256.Sum256(nil)
	return sum[:]
}

// LeafHash is SHA-256(0x00 ‖ the 32 bytes of an audit entry's entryHash), given as 64 hex digits.
func LeafHash(entryHash string) ([]byte, error) {
	raw, err := HashFromHex(entryHash)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(append([]byte{0x00}, raw...))
	return sum[:], nil
}

// HashFromHex decodes a hash written as 64 lower-case hex digits, as the proof routes answer them.
func HashFromHex(text string) ([]byte, error) {
	if len(text) != 64 {
		return nil, &TransparencyFormatError{Code: "HASH_MALFORMED", Message: "a hash must be 64 lower-case hex digits"}
	}
	for _, c := range text {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return nil, &TransparencyFormatError{Code: "HASH_MALFORMED", Message: "a hash must be 64 lower-case hex digits"}
		}
	}
	return hex.DecodeString(text)
}

// NodeHash is SHA-256(0x01 ‖ left ‖ right).
func NodeHash(left, right []byte) []byte {
	h := sha256.New()
	h.Write([]byte{0x01})
	h.Write(left)
	h.Write(right)
	return h.Sum(nil)
}

func malformedHash(hashes ...[]byte) string {
	for at, hash := range hashes {
		if len(hash) != sha256.Size {
			return fmt.Sprintf("element %d is not a 32-byte hash", at)
		}
	}
	return ""
}

func sameHash(a, b []byte) bool { return subtle.ConstantTimeCompare(a, b) == 1 }

func validSize(n int64) bool { return n >= -maxSafeInteger && n <= maxSafeInteger }

// VerifyInclusionProof checks a Merkle inclusion proof exactly as RFC 9162 §2.1.3.2 describes:
// that the leaf hash is at index in the tree of treeSize leaves whose root is rootHash.
func VerifyInclusionProof(index, treeSize int64, leafHash []byte, proof [][]byte, rootHash []byte) ProofVerification {
	if !validSize(index) || !validSize(treeSize) || index < 0 || index >= treeSize {
		return proofFailed(ReasonInvalidSizes, "index %d is not within a tree of size %d", index, treeSize)
	}
	if bad := malformedHash(leafHash, rootHash); bad != "" {
		return proofFailed(ReasonMalformedHash, "%s", bad)
	}
	if bad := malformedHash(proof...); bad != "" {
		return proofFailed(ReasonMalformedHash, "%s", bad)
	}
	fn, sn := index, treeSize-1
	r := leafHash
	for used, p := range proof {
		if sn == 0 {
			return proofFailed(ReasonProofTooLong, "%d elements where this index and size need %d", len(proof), used)
		}
		if fn%2 == 1 || fn == sn {
			r = NodeHash(p, r)
			for fn%2 == 0 && fn != 0 {
				fn, sn = fn/2, sn/2
			}
		} else {
			r = NodeHash(r, p)
		}
		fn, sn = fn/2, sn/2
	}
	if sn != 0 {
		return proofFailed(ReasonProofTooShort, "%d elements do not reach the root", len(proof))
	}
	if !sameHash(r, rootHash) {
		return proofFailed(ReasonRootMismatch, "the proof leads to another root hash")
	}
	return ProofVerification{Valid: true}
}

// VerifyConsistencyProof checks a Merkle consistency proof exactly as RFC 9162 §2.1.4.2 describes,
// for 0 < fromSize < toSize; for equal sizes the proof must be empty and the two roots equal.
func VerifyConsistencyProof(fromSize, toSize int64, fromRoot, toRoot []byte, proof [][]byte) ProofVerification {
	if !validSize(fromSize) || !validSize(toSize) || fromSize < 1 || fromSize > toSize {
		return proofFailed(ReasonInvalidSizes, "sizes %d and %d are not 1 ≤ from ≤ to", fromSize, toSize)
	}
	if bad := malformedHash(fromRoot, toRoot); bad != "" {
		return proofFailed(ReasonMalformedHash, "%s", bad)
	}
	if bad := malformedHash(proof...); bad != "" {
		return proofFailed(ReasonMalformedHash, "%s", bad)
	}
	if fromSize == toSize {
		if len(proof) > 0 {
			return proofFailed(ReasonProofTooLong, "a proof between equal sizes is empty")
		}
		if !sameHash(fromRoot, toRoot) {
			return proofFailed(ReasonRootMismatch, "two different roots for tree size %d", fromSize)
		}
		return ProofVerification{Valid: true}
	}
	if len(proof) == 0 {
		return proofFailed(ReasonProofTooShort, "the proof is empty")
	}
	path := proof
	if fromSize&(fromSize-1) == 0 {
		path = append([][]byte{fromRoot}, proof...)
	}
	fn, sn := fromSize-1, toSize-1
	for fn%2 == 1 {
		fn, sn = fn/2, sn/2
	}
	fr, sr := path[0], path[0]
	for _, c := range path[1:] {
		if sn == 0 {
			return proofFailed(ReasonProofTooLong, "the proof has more elements than the sizes allow")
		}
		if fn%2 == 1 || fn == sn {
			fr, sr = NodeHash(c, fr), NodeHash(c, sr)
			for fn%2 == 0 && fn != 0 {
				fn, sn = fn/2, sn/2
			}
		} else {
			sr = NodeHash(sr, c)
		}
		fn, sn = fn/2, sn/2
	}
	if sn != 0 {
		return proofFailed(ReasonProofTooShort, "the proof does not reach the new root")
	}
	if !sameHash(fr, fromRoot) {
		return proofFailed(ReasonRootMismatch, "the proof does not lead to the root of size %d", fromSize)
	}
	if !sameHash(sr, toRoot) {
		return proofFailed(ReasonRootMismatch, "the proof does not lead to the root of size %d", toSize)
	}
	return ProofVerification{Valid: true}
}
