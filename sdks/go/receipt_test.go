package authority

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// What the shared receipt vectors cannot show: the log key option, and attacks on a version-2
// receipt's log proof beyond the vectors, with test-only note keys derived as the vector generator
// derives them (packages/sdk/test/vectors/test-note-keys.ts).

type receiptFile struct {
	PinnedJWKS   json.RawMessage `json:"pinnedJwks"`
	PinnedLogKey string          `json:"pinnedLogKey"`
	WitnessKey   string          `json:"witnessKey"`
	Vectors      []struct {
		Name    string          `json:"name"`
		Receipt json.RawMessage `json:"receipt"`
	} `json:"vectors"`
}

type testNoteKey struct {
	name    string
	private ed25519.PrivateKey
	keyID   []byte
}

func noteKeyFor(name, label string) testNoteKey {
	seed := sha256.Sum256([]byte("authority-runtime test vector key: " + label))
	private := ed25519.NewKeyFromSeed(seed[:])
	public := private.Public().(ed25519.PublicKey)
	id := sha256.Sum256(append(append([]byte(name), 0x0A, Ed25519KeyType), public...))
	return testNoteKey{name, private, id[:4]}
}

func (k testNoteKey) verifierKey() string {
	data := append([]byte{Ed25519KeyType}, k.private.Public().(ed25519.PublicKey)...)
	return fmt.Sprintf("%s+%s+%s", k.name, hex.EncodeToString(k.keyID), base64.StdEncoding.EncodeToString(data))
}

func (k testNoteKey) checkpoint(origin string, size int64, root []byte) string {
	body := fmt.Sprintf("%s\n%d\n%s\n", origin, size, base64.StdEncoding.EncodeToString(root))
	signature := append(append([]byte{}, k.keyID...), ed25519.Sign(k.private, []byte(body))...)
	return body + "\n\u2014 " + k.name + " " + base64.StdEncoding.EncodeToString(signature) + "\n"
}

var acmeLog = noteKeyFor("audit.example.com/audit/acme", "log acme")

type receiptFixture struct {
	t      *testing.T
	file   receiptFile
	pinned JWKS
	v2     map[string]any
}

func loadReceiptFixture(t *testing.T) receiptFixture {
	t.Helper()
	f := receiptFixture{t: t}
	loadVectors(t, "receipts.json", &f.file)
	pinned, err := ParseJWKS(f.file.PinnedJWKS)
	if err != nil {
		t.Fatal(err)
	}
	f.pinned = pinned
	f.v2 = f.receipt("v2-valid-EdDSA")
	return f
}

// receipt is a fresh copy of the named vector's receipt.
func (f receiptFixture) receipt(name string) map[string]any {
	for _, vector := range f.file.Vectors {
		if vector.Name == name {
			var out map[string]any
			if err := json.Unmarshal(vector.Receipt, &out); err != nil {
				f.t.Fatal(err)
			}
			return out
		}
	}
	f.t.Fatalf("no vector %s", name)
	return nil
}

func (f receiptFixture) with(name string, value any) map[string]any {
	receipt := f.receipt("v2-valid-EdDSA")
	receipt[name] = value
	return receipt
}

func (f receiptFixture) verify(receipt any, logKey string) ReceiptVerification {
	f.t.Helper()
	text, ok := receipt.([]byte)
	if !ok {
		var err error
		if text, err = json.Marshal(receipt); err != nil {
			f.t.Fatal(err)
		}
	}
	result, err := VerifyReceipt(text, f.pinned, ReceiptOptions{LogKey: logKey})
	if err != nil {
		f.t.Fatal(err)
	}
	return result
}

func (f receiptFixture) root() []byte {
	note := f.v2["checkpoint"].(string)
	checkpoint, err := ParseCheckpoint(note[:strings.Index(note, "\n\n")+1])
	if err != nil {
		f.t.Fatal(err)
	}
	return checkpoint.RootHash
}

func (f receiptFixture) inclusion() []any {
	var out []any
	text, _ := json.Marshal(f.v2["inclusion"])
	_ = json.Unmarshal(text, &out)
	return out
}

func TestReceiptLogKeyIsText(t *testing.T) {
	f := loadReceiptFixture(t)
	key := f.file.PinnedLogKey
	for _, logKey := range []string{key, key + "\n"} {
		if result := f.verify(f.v2, logKey); !result.Valid {
			t.Fatalf("%q: %+v", logKey, result)
		}
	}
	if result := f.verify([]byte("not json"), key); result.Reason != ReasonReceiptMalformed {
		t.Fatal(result.Reason)
	}
}

func TestReceiptBadLogKeyIsAnErrorWhateverTheReceipt(t *testing.T) {
	f := loadReceiptFixture(t)
	key := f.file.PinnedLogKey
	receipts := [][]byte{nil, []byte("not json")}
	receipts[0], _ = json.Marshal(f.v2)
	v1, _ := json.Marshal(f.receipt("valid-EdDSA"))
	receipts = append(receipts, v1)
	bad := []string{"not a key", f.file.WitnessKey, strings.Replace(key, "+", "+0", 1), key[:len(key)-4], key + "\n\n", " " + key}
	for _, receipt := range receipts {
		for _, logKey := range bad {
			result, err := VerifyReceipt(receipt, f.pinned, ReceiptOptions{LogKey: logKey})
			if !errors.Is(err, ErrInvalidArgument) || result.Valid || result.Reason != "" {
				t.Fatalf("%q: %+v %v", logKey, result, err)
			}
		}
	}
}

func TestReceiptCheckpointForAnyOtherSizeIsRefused(t *testing.T) {
	f := loadReceiptFixture(t)
	root := f.root()
	if result := f.verify(f.with("checkpoint", acmeLog.checkpoint(acmeLog.name, 12, root)), f.file.PinnedLogKey); !result.Valid {
		t.Fatalf("re-signed genuine checkpoint: %+v", result)
	}
	for _, size := range []int64{0, 1, 2, 5, 10, 11, 13, 24, 1<<53 - 1} {
		result := f.verify(f.with("checkpoint", acmeLog.checkpoint(acmeLog.name, size, root)), f.file.PinnedLogKey)
		if result.Reason != ReasonCheckpointInvalid || !strings.Contains(result.Detail, "tree size") {
			t.Fatalf("size %d: %+v", size, result)
		}
	}
}

func TestReceiptCheckpointReSignedOverAnotherRootFailsTheProofs(t *testing.T) {
	f := loadReceiptFixture(t)
	for seed := 0; seed < 16; seed++ {
		root := sha256.Sum256([]byte(fmt.Sprintf("rewritten history %d", seed)))
		result := f.verify(f.with("checkpoint", acmeLog.checkpoint(acmeLog.name, 12, root[:])), f.file.PinnedLogKey)
		if result.Reason != ReasonInclusionProofInvalid {
			t.Fatalf("root %d: %+v", seed, result)
		}
	}
}

func TestReceiptEveryChangedDroppedOrSwappedProofElementIsRefused(t *testing.T) {
	f := loadReceiptFixture(t)
	original := f.inclusion()
	proofOf := func(inclusion []any, position int) []any {
		return inclusion[position].(map[string]any)["proof"].([]any)
	}
	expectRefused := func(inclusion []any, what string) {
		t.Helper()
		if result := f.verify(f.with("inclusion", inclusion), f.file.PinnedLogKey); result.Reason != ReasonInclusionProofInvalid {
			t.Fatalf("%s: %+v", what, result)
		}
	}
	for position := range original {
		for at := range proofOf(original, position) {
			for _, bit := range []int{0, 7, 255} {
				changed := f.inclusion()
				element, _ := hex.DecodeString(proofOf(changed, position)[at].(string))
				element[bit/8] ^= 1 << (bit % 8)
				proofOf(changed, position)[at] = hex.EncodeToString(element)
				expectRefused(changed, fmt.Sprintf("entry %d element %d bit %d", position, at, bit))
			}
			dropped := f.inclusion()
			proof := proofOf(dropped, position)
			dropped[position].(map[string]any)["proof"] = append(append([]any{}, proof[:at]...), proof[at+1:]...)
			expectRefused(dropped, fmt.Sprintf("entry %d element %d dropped", position, at))
		}
		for other := range original {
			if other == position {
				continue
			}
			swapped := f.inclusion()
			swapped[position].(map[string]any)["proof"] = proofOf(f.inclusion(), other)
			expectRefused(swapped, fmt.Sprintf("entry %d with the proof of %d", position, other))
		}
	}
}

func TestReceiptCheckpointMustBeTheLogOfTheReceiptTenant(t *testing.T) {
	f := loadReceiptFixture(t)
	root := f.root()
	for _, origin := range []string{
		"audit.example.com/audit/xacme",
		"audit.example.com/audit/acme/more",
		"audit.example.com/audit/ACME",
		"audit.example.com/acme",
	} {
		key := noteKeyFor(origin, "log "+origin)
		result := f.verify(f.with("checkpoint", key.checkpoint(origin, 12, root)), key.verifierKey())
		if result.Reason != ReasonCheckpointInvalid || !strings.Contains(result.Detail, "not of tenant acme") {
			t.Fatalf("%s: %+v", origin, result)
		}
	}
	// The suffix binds the tenant; which host's log is trusted is the pinned key's business.
	mirror := noteKeyFor("mirror.example.org/audit/acme", "log acme mirror")
	note := mirror.checkpoint(mirror.name, 12, root)
	if result := f.verify(f.with("checkpoint", note), mirror.verifierKey()); !result.Valid {
		t.Fatalf("mirror: %+v", result)
	}
	if result := f.verify(f.with("checkpoint", note), f.file.PinnedLogKey); result.Reason != ReasonCheckpointInvalid {
		t.Fatalf("mirror under the acme key: %+v", result)
	}
}

func TestReceiptWitnessLinesAreIgnoredEvenWhenBroken(t *testing.T) {
	f := loadReceiptFixture(t)
	note := f.v2["checkpoint"].(string)
	stranger := base64.StdEncoding.EncodeToString(append([]byte{0, 1, 2, 3}, make([]byte, 72)...))
	if result := f.verify(f.with("checkpoint", note+"\u2014 witness.example/nobody "+stranger+"\n"), f.file.PinnedLogKey); !result.Valid {
		t.Fatalf("unknown witness: %+v", result)
	}
	cosigned := f.receipt("v2-valid-witness-cosigned")["checkpoint"].(string)
	lines := strings.Split(cosigned, "\n")
	line := lines[len(lines)-2]
	fields := strings.Fields(line)
	data, _ := base64.StdEncoding.DecodeString(fields[2])
	binary.BigEndian.PutUint64(data[4:12], binary.BigEndian.Uint64(data[4:12])+1)
	broken := strings.Replace(cosigned, line, fields[0]+" "+fields[1]+" "+base64.StdEncoding.EncodeToString(data), 1)
	if result := f.verify(f.with("checkpoint", broken), f.file.PinnedLogKey); !result.Valid {
		t.Fatalf("broken cosignature of an unpinned witness: %+v", result)
	}
}

func TestReceiptCheckpointThatIsNotExactlyTheNoteIsRefused(t *testing.T) {
	f := loadReceiptFixture(t)
	note := f.v2["checkpoint"].(string)
	for _, changed := range []string{
		strings.ReplaceAll(note, "\n", "\r\n"),
		note[:len(note)-1],
		" " + note,
		note + "\n",
		strings.Replace(note, "\u2014", "-", 1),
	} {
		if result := f.verify(f.with("checkpoint", changed), f.file.PinnedLogKey); result.Reason != ReasonCheckpointInvalid {
			t.Fatalf("%q: %+v", changed, result)
		}
	}
}

func TestReceiptReasonsAreInTheOrderOfTheChecks(t *testing.T) {
	want := "RECEIPT_MALFORMED LOG_KEY_MISSING TENANT_MISMATCH ENTRY_HASH_MISMATCH ENTRY_MISMATCH SEAL_MISMATCH " +
		"SEAL_SIGNATURE_INVALID CHECKPOINT_INVALID INCLUSION_PROOF_INVALID TOKEN_INVALID EMBEDDED_JWKS_MISMATCH KEY_SOURCE_UNAVAILABLE"
	if got := strings.Join(ReceiptVerificationReasons, " "); got != want {
		t.Fatal(got)
	}
}
