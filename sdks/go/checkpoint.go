package authority

import (
	"strings"
)

// The reasons VerifyCheckpoint reports, in the order its checks run (contract §15).
const (
	ReasonNoteMalformed       = "NOTE_MALFORMED"
	ReasonSignatureInvalid    = "SIGNATURE_INVALID"
	ReasonNoTrustedSignature  = "NO_TRUSTED_SIGNATURE"
	ReasonLogSignatureMissing = "LOG_SIGNATURE_MISSING"
	ReasonCheckpointMalformed = "CHECKPOINT_MALFORMED"
	ReasonOriginMismatch      = "ORIGIN_MISMATCH"
	ReasonQuorumNotMet        = "QUORUM_NOT_MET"
)

// Checkpoint is a tree head: the log's origin, its size and the RFC 9162 root hash.
type Checkpoint struct {
	Origin     string
	Size       int64
	RootHash   []byte
	Extensions []string
}

// Cosignature is a pinned witness's verified cosignature.
type Cosignature struct {
	Name  string
	KeyID uint32
	// Time is the unix time (seconds) at which the witness cosigned.
	Time int64
}

// CheckpointVerification is the outcome of VerifyCheckpoint: Valid with the Checkpoint, the signed
// body (NoteText) and the pinned witnesses that cosigned, or the Reason with a Detail.
type CheckpointVerification struct {
	Valid        bool
	Reason       string
	Detail       string
	Checkpoint   *Checkpoint
	NoteText     string
	Cosignatures []Cosignature
}

// ParseCheckpoint parses a checkpoint body: origin, size in decimal and root hash in base64, each
// line ending in a newline, then optional extension lines.
func ParseCheckpoint(body string) (*Checkpoint, error) {
	if !strings.HasSuffix(body, "\n") {
		return nil, formatErrorf(ReasonCheckpointMalformed, "a checkpoint body ends in a newline")
	}
	lines := strings.Split(body[:len(body)-1], "\n")
	if len(lines) < 3 {
		return nil, formatErrorf(ReasonCheckpointMalformed, "a checkpoint body has an origin, a size and a root hash")
	}
	for _, line := range lines {
		if line == "" {
			return nil, formatErrorf(ReasonCheckpointMalformed, "a checkpoint body has no empty line")
		}
	}
	root, err := decodeCanonicalBase64(lines[2], ReasonCheckpointMalformed, "the root hash")
	if err != nil {
		return nil, err
	}
	if len(root) != 32 {
		return nil, formatErrorf(ReasonCheckpointMalformed, "the root hash: a hash must be 32 bytes, not %d", len(root))
	}
	size, err := parseDecimal(lines[1], ReasonCheckpointMalformed, "the tree size")
	if err != nil {
		return nil, err
	}
	return &Checkpoint{Origin: lines[0], Size: size, RootHash: root, Extensions: lines[3:]}, nil
}

// VerifyCheckpoint verifies a checkpoint note against the pinned log key (type 0x01) and,
// optionally, a quorum of pinned witness keys (type 0x04). A bad note is a refusal; a malformed
// pinned key is an error.
func VerifyCheckpoint(note, logKey string, witnesses []string, quorum int) (CheckpointVerification, error) {
	log, err := ed25519NoteVerifier(logKey)
	if err != nil {
		return CheckpointVerification{}, err
	}
	verifiers := []*noteVerifier{log}
	for _, key := range witnesses {
		witness, err := cosignatureVerifier(key)
		if err != nil {
			return CheckpointVerification{}, err
		}
		verifiers = append(verifiers, witness)
	}
	refuse := func(r *refusal) (CheckpointVerification, error) {
		return CheckpointVerification{Reason: r.reason, Detail: r.detail}, nil
	}
	parsed, verified, refused := verifySignedNote(note, verifiers)
	if refused != nil {
		return refuse(refused)
	}
	isLog := func(s NoteSignature) bool { return s.Name == log.name && s.KeyID == log.keyID }
	signedByLog := false
	var cosignatures []Cosignature
	for _, s := range verified {
		if isLog(s) {
			signedByLog = true
			continue
		}
		time, _ := cosignatureTime(s.Signature)
		cosignatures = append(cosignatures, Cosignature{Name: s.Name, KeyID: s.KeyID, Time: time})
	}
	if !signedByLog {
		return refuse(refusedf(ReasonLogSignatureMissing, "%s did not sign this checkpoint", log.name))
	}
	checkpoint, err := ParseCheckpoint(parsed.Text)
	if err != nil {
		return refuse(&refusal{ReasonCheckpointMalformed, err.Error()})
	}
	if checkpoint.Origin != log.name {
		return refuse(refusedf(ReasonOriginMismatch, "origin %s is not %s", checkpoint.Origin, log.name))
	}
	if len(cosignatures) < quorum {
		return refuse(refusedf(ReasonQuorumNotMet, "%d of the %d witness cosignatures required", len(cosignatures), quorum))
	}
	return CheckpointVerification{
		Valid: true, Detail: "valid", Checkpoint: checkpoint, NoteText: parsed.Text, Cosignatures: cosignatures,
	}, nil
}
