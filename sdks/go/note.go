package authority

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// C2SP signed-note parsing and verification, and note verifier keys (contract §15), with the rules
// of the TypeScript SDK's transparency/note.ts and note-keys.ts, so that the three SDKs accept and
// refuse the same notes (sdks/test-vectors/transparency.json).

// Note key types: a log key signs with Ed25519 (0x01), a witness cosigns with cosignature v1 (0x04).
const (
	Ed25519KeyType       = 0x01
	CosignatureV1KeyType = 0x04
	maxNoteSignatures    = 100
	signaturePrefix      = "\u2014 "
)

// TransparencyFormatError is text that is not the format it claims to be; Code names which
// (NOTE_MALFORMED, KEY_MALFORMED, CHECKPOINT_MALFORMED, HASH_MALFORMED).
type TransparencyFormatError struct {
	Code    string
	Message string
}

func (e *TransparencyFormatError) Error() string { return e.Message }

func formatErrorf(code, format string, args ...any) *TransparencyFormatError {
	return &TransparencyFormatError{Code: code, Message: fmt.Sprintf(format, args...)}
}

var (
	base64Pattern  = regexp.MustCompile(`^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$`)
	decimalPattern = regexp.MustCompile(`^(?:0|[1-9][0-9]*)$`)
	keyIDPattern   = regexp.MustCompile(`^[0-9a-f]{8}$`)
)

// decodeCanonicalBase64 accepts standard, padded base64 that re-encodes to the same text.
func decodeCanonicalBase64(text, code, what string) ([]byte, error) {
	if !base64Pattern.MatchString(text) {
		return nil, formatErrorf(code, "%s is not standard base64", what)
	}
	data, err := base64.StdEncoding.DecodeString(text)
	if err != nil || base64.StdEncoding.EncodeToString(data) != text {
		return nil, formatErrorf(code, "%s is not the canonical base64 of its bytes", what)
	}
	return data, nil
}

func parseDecimal(text, code, what string) (int64, error) {
	if !decimalPattern.MatchString(text) {
		return 0, formatErrorf(code, "%s is not a decimal number without leading zeroes", what)
	}
	value, err := strconv.ParseInt(text, 10, 64)
	if err != nil || value > maxSafeInteger {
		return 0, formatErrorf(code, "%s exceeds 2^53 - 1, the largest size this verifier handles", what)
	}
	return value, nil
}

func hasControlCharacter(text string, allowNewline bool) bool {
	for i := 0; i < len(text); i++ {
		if text[i] < 0x20 && !(allowNewline && text[i] == '\n') {
			return true
		}
	}
	return false
}

// isValidKeyName: non-empty, without white space, control characters or plus.
func isValidKeyName(name string) bool {
	if name == "" || !utf8.ValidString(name) {
		return false
	}
	for _, r := range name {
		if r == '+' || unicode.IsSpace(r) || unicode.Is(unicode.Cc, r) {
			return false
		}
	}
	return true
}

func noteKeyID(name string, keyType byte, publicKey []byte) uint32 {
	h := sha256.New()
	h.Write([]byte(name))
	h.Write([]byte{0x0a, keyType})
	h.Write(publicKey)
	return binary.BigEndian.Uint32(h.Sum(nil)[:4])
}

// VerifierKey is a parsed verifier key `<name>+<key ID hex>+<base64(type ‖ public key)>`.
type VerifierKey struct {
	Name      string
	KeyID     uint32
	Type      byte
	PublicKey ed25519.PublicKey
}

// ParseVerifierKey parses a verifier key (one trailing newline allowed).
func ParseVerifierKey(text string) (*VerifierKey, error) {
	text = strings.TrimSuffix(text, "\n")
	parts := strings.Split(text, "+")
	name, hexID := parts[0], ""
	if len(parts) > 1 {
		hexID = parts[1]
	}
	if !isValidKeyName(name) {
		return nil, formatErrorf("KEY_MALFORMED", "a key name must be non-empty, without spaces or plus")
	}
	if !keyIDPattern.MatchString(hexID) {
		return nil, formatErrorf("KEY_MALFORMED", "the key ID must be 8 lower-case hex digits")
	}
	rest := ""
	if len(parts) > 2 {
		rest = strings.Join(parts[2:], "+")
	}
	data, err := decodeCanonicalBase64(rest, "KEY_MALFORMED", "the key data")
	if err != nil {
		return nil, err
	}
	if len(data) == 0 || (data[0] != Ed25519KeyType && data[0] != CosignatureV1KeyType) {
		return nil, formatErrorf("KEY_MALFORMED", "the signature type is not supported")
	}
	if len(data) != 1+ed25519.PublicKeySize {
		return nil, formatErrorf("KEY_MALFORMED", "an Ed25519 public key is 32 bytes")
	}
	keyID := noteKeyID(name, data[0], data[1:])
	if fmt.Sprintf("%08x", keyID) != hexID {
		return nil, formatErrorf("KEY_MALFORMED", "key ID %s does not match the name and key", hexID)
	}
	return &VerifierKey{Name: name, KeyID: keyID, Type: data[0], PublicKey: ed25519.PublicKey(data[1:])}, nil
}

// NoteSignature is one signature line of a note: the key's name and ID, and the signature bytes.
type NoteSignature struct {
	Name      string
	KeyID     uint32
	Signature []byte
}

// SignedNote is a note split into its text (ending in a newline) and its signatures.
type SignedNote struct {
	Text       string
	Signatures []NoteSignature
}

func parseSignatureLine(line string) (NoteSignature, error) {
	if !strings.HasPrefix(line, signaturePrefix) {
		return NoteSignature{}, formatErrorf("NOTE_MALFORMED", "a signature line starts with an em dash and a space")
	}
	rest := line[len(signaturePrefix):]
	space := strings.IndexByte(rest, ' ')
	if space < 0 {
		return NoteSignature{}, formatErrorf("NOTE_MALFORMED", "a signature line is a name, a space and a signature")
	}
	name := rest[:space]
	if !isValidKeyName(name) {
		return NoteSignature{}, formatErrorf("NOTE_MALFORMED", "a signature line names no valid key")
	}
	data, err := decodeCanonicalBase64(rest[space+1:], "NOTE_MALFORMED", "the signature of "+name)
	if err != nil {
		return NoteSignature{}, err
	}
	if len(data) < 5 {
		return NoteSignature{}, formatErrorf("NOTE_MALFORMED", "the signature of %s is too short", name)
	}
	return NoteSignature{Name: name, KeyID: binary.BigEndian.Uint32(data[:4]), Signature: data[4:]}, nil
}

// ParseSignedNote splits a note into its text and its signature lines.
func ParseSignedNote(note string) (*SignedNote, error) {
	if !utf8.ValidString(note) {
		return nil, formatErrorf("NOTE_MALFORMED", "the note is not valid UTF-8")
	}
	if hasControlCharacter(note, true) {
		return nil, formatErrorf("NOTE_MALFORMED", "the note holds a control character other than newline")
	}
	split := strings.LastIndex(note, "\n\n")
	if split < 0 {
		return nil, formatErrorf("NOTE_MALFORMED", "no empty line separates the text from the signatures")
	}
	block := note[split+2:]
	if block == "" || !strings.HasSuffix(block, "\n") {
		return nil, formatErrorf("NOTE_MALFORMED", "the signature lines must each end in a newline")
	}
	lines := strings.Split(block[:len(block)-1], "\n")
	if len(lines) > maxNoteSignatures {
		return nil, formatErrorf("NOTE_MALFORMED", "more than %d signatures", maxNoteSignatures)
	}
	parsed := &SignedNote{Text: note[:split+1]}
	for _, line := range lines {
		signature, err := parseSignatureLine(line)
		if err != nil {
			return nil, err
		}
		parsed.Signatures = append(parsed.Signatures, signature)
	}
	return parsed, nil
}

// noteVerifier is a trusted key: its name, key ID and a check of a signature over a note text.
type noteVerifier struct {
	name   string
	keyID  uint32
	verify func(text string, signature []byte) bool
}

func pinnedKey(key string, keyType byte, what string) (*VerifierKey, error) {
	parsed, err := ParseVerifierKey(key)
	if err != nil {
		return nil, err
	}
	if parsed.Type != keyType {
		return nil, formatErrorf("KEY_MALFORMED", "%s is not %s", parsed.Name, what)
	}
	return parsed, nil
}

func ed25519NoteVerifier(key string) (*noteVerifier, error) {
	parsed, err := pinnedKey(key, Ed25519KeyType, "an Ed25519 (0x01) note key")
	if err != nil {
		return nil, err
	}
	return &noteVerifier{parsed.Name, parsed.KeyID, func(text string, signature []byte) bool {
		return len(signature) == ed25519.SignatureSize && ed25519.Verify(parsed.PublicKey, []byte(text), signature)
	}}, nil
}

// cosignatureTime is the unix time a cosignature v1 (8-byte time ‖ 64-byte signature) states.
func cosignatureTime(signature []byte) (int64, bool) {
	if len(signature) != 8+ed25519.SignatureSize {
		return 0, false
	}
	time := binary.BigEndian.Uint64(signature[:8])
	return int64(time), time <= maxSafeInteger
}

func cosignatureVerifier(key string) (*noteVerifier, error) {
	parsed, err := pinnedKey(key, CosignatureV1KeyType, "a cosignature (0x04) key")
	if err != nil {
		return nil, err
	}
	return &noteVerifier{parsed.Name, parsed.KeyID, func(text string, signature []byte) bool {
		time, ok := cosignatureTime(signature)
		if !ok {
			return false
		}
		message := fmt.Sprintf("cosignature/v1\ntime %d\n%s", time, text)
		return ed25519.Verify(parsed.PublicKey, []byte(message), signature[8:])
	}}, nil
}

// verifySignedNote checks every signature of a trusted key (by name and key ID), ignores the
// others, and answers the trusted signatures, each key once, or a refusal.
func verifySignedNote(note string, verifiers []*noteVerifier) (*SignedNote, []NoteSignature, *refusal) {
	parsed, err := ParseSignedNote(note)
	if err != nil {
		return nil, nil, &refusal{"NOTE_MALFORMED", err.Error()}
	}
	var verified []NoteSignature
	for _, signature := range parsed.Signatures {
		matched, ok := false, false
		for _, v := range verifiers {
			if v.name == signature.Name && v.keyID == signature.KeyID {
				matched = true
				ok = ok || v.verify(parsed.Text, signature.Signature)
			}
		}
		if !matched {
			continue
		}
		if !ok {
			return nil, nil, refusedf("SIGNATURE_INVALID", "the signature of %s+%08x does not verify", signature.Name, signature.KeyID)
		}
		seen := false
		for _, v := range verified {
			seen = seen || (v.Name == signature.Name && v.KeyID == signature.KeyID)
		}
		if !seen {
			verified = append(verified, signature)
		}
	}
	if len(verified) == 0 {
		return nil, nil, &refusal{"NO_TRUSTED_SIGNATURE", "no signature of a trusted key"}
	}
	return parsed, verified, nil
}
