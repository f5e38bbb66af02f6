package authority

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The shared vectors of sdks/test-vectors, checked with this SDK (the TypeScript and Python SDKs
// check the same files).

type expectation struct {
	Valid  bool    `json:"valid"`
	Reason *string `json:"reason"`
}

func (e expectation) reason() string {
	if e.Reason == nil {
		return ""
	}
	return *e.Reason
}

func loadVectors(t *testing.T, name string, into any) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "test-vectors", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, into); err != nil {
		t.Fatal(err)
	}
	return raw
}

func TestTokenVectors(t *testing.T) {
	var file struct {
		Now              float64 `json:"now"`
		ClockSkewSeconds float64 `json:"clockSkewSeconds"`
		Expected         struct{ TenantID, AdapterID, TargetSystem string }
		JWKS             json.RawMessage `json:"jwks"`
		Vectors          []struct {
			Name           string      `json:"name"`
			Token          string      `json:"token"`
			ConsumedNonces []string    `json:"consumedNonces"`
			Expected       expectation `json:"expected"`
		} `json:"vectors"`
	}
	loadVectors(t, "tokens.json", &file)
	set, err := ParseJWKS(file.JWKS)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := StaticJWKS(set)
	if err != nil {
		t.Fatal(err)
	}
	if len(file.Vectors) < 100 {
		t.Fatalf("only %d token vectors", len(file.Vectors))
	}
	now := time.Unix(int64(file.Now), 0)
	for _, vector := range file.Vectors {
		vector := vector
		t.Run(vector.Name, func(t *testing.T) {
			store := NewMemoryNonceStore(0, func() time.Time { return now })
			for _, nonce := range vector.ConsumedNonces {
				if first, err := store.Consume(nonce, now.Add(time.Hour), NonceUse{}); err != nil || !first {
					t.Fatalf("pre-consuming %s: %v %v", nonce, first, err)
				}
			}
			expected := Expected{
				TenantID: file.Expected.TenantID, AdapterID: file.Expected.AdapterID, TargetSystem: file.Expected.TargetSystem,
				NonceStore: store, ClockSkew: time.Duration(file.ClockSkewSeconds * float64(time.Second)),
			}
			result, err := VerifyAuthorityToken(vector.Token, keys, expected, now)
			if err != nil {
				t.Fatal(err)
			}
			if result.Valid != vector.Expected.Valid || result.Reason != vector.Expected.reason() {
				t.Fatalf("got valid=%v reason=%q (%s), want valid=%v reason=%q", result.Valid, result.Reason, result.Detail, vector.Expected.Valid, vector.Expected.reason())
			}
			if result.Valid {
				if store.Len() != len(vector.ConsumedNonces)+1 {
					t.Fatal("a valid token must consume its nonce")
				}
				replay, _ := VerifyAuthorityToken(vector.Token, keys, expected, now)
				if replay.Reason != ReasonNonceAlreadyConsumed {
					t.Fatalf("replay: got %q", replay.Reason)
				}
			} else if store.Len() != len(vector.ConsumedNonces) {
				t.Fatal("a refused token must consume nothing")
			}
		})
	}
}

func TestWebhookVectors(t *testing.T) {
	var file struct {
		Secret  string `json:"secret"`
		NowMs   int64  `json:"nowMs"`
		Vectors []struct {
			Name            string      `json:"name"`
			RawBody         string      `json:"rawBody"`
			SignatureHeader *string     `json:"signatureHeader"`
			Expected        expectation `json:"expected"`
		} `json:"vectors"`
	}
	loadVectors(t, "webhooks.json", &file)
	now := time.UnixMilli(file.NowMs)
	for _, vector := range file.Vectors {
		vector := vector
		t.Run(vector.Name, func(t *testing.T) {
			header := ""
			if vector.SignatureHeader != nil {
				header = *vector.SignatureHeader
			}
			result := VerifyWebhookSignature([]byte(vector.RawBody), header, now, file.Secret)
			if result.Valid != vector.Expected.Valid || result.Reason != vector.Expected.reason() {
				t.Fatalf("got valid=%v reason=%q, want %+v", result.Valid, result.Reason, vector.Expected)
			}
		})
	}
}

func TestReceiptVectors(t *testing.T) {
	var file struct {
		PinnedJWKS   json.RawMessage `json:"pinnedJwks"`
		PinnedLogKey string          `json:"pinnedLogKey"`
		Vectors      []struct {
			Name             string          `json:"name"`
			ExpectedTenantID *string         `json:"expectedTenantId"`
			LogKey           *string         `json:"logKey"`
			Receipt          json.RawMessage `json:"receipt"`
			Expected         expectation     `json:"expected"`
		} `json:"vectors"`
	}
	loadVectors(t, "receipts.json", &file)
	pinned, err := ParseJWKS(file.PinnedJWKS)
	if err != nil {
		t.Fatal(err)
	}
	versions := map[float64]int{}
	for _, vector := range file.Vectors {
		vector := vector
		var version struct {
			ReceiptVersion float64 `json:"receiptVersion"`
		}
		_ = json.Unmarshal(vector.Receipt, &version)
		versions[version.ReceiptVersion]++
		options := ReceiptOptions{}
		if vector.ExpectedTenantID != nil {
			options.ExpectedTenantID = *vector.ExpectedTenantID
		}
		runs := []ReceiptOptions{options}
		if vector.LogKey != nil {
			runs[0].LogKey = *vector.LogKey
		} else if version.ReceiptVersion != 2 {
			// A receipt that is not version 2 gives the same result with the log key given.
			withKey := options
			withKey.LogKey = file.PinnedLogKey
			runs = append(runs, withKey)
		}
		t.Run(vector.Name, func(t *testing.T) {
			for _, run := range runs {
				result, err := VerifyReceipt(vector.Receipt, pinned, run)
				if err != nil {
					t.Fatal(err)
				}
				if result.Valid != vector.Expected.Valid || result.Reason != vector.Expected.reason() {
					t.Fatalf("log key %q: got valid=%v reason=%q (%s), want %+v", run.LogKey, result.Valid, result.Reason, result.Detail, vector.Expected)
				}
			}
		})
	}
	if versions[1] == 0 || versions[2] == 0 {
		t.Fatalf("receipts of both versions: %v", versions)
	}
}

func TestCanonicalJSONVectors(t *testing.T) {
	var file struct {
		Vectors []struct {
			Name      string  `json:"name"`
			JSON      string  `json:"json"`
			Canonical *string `json:"canonical"`
			SHA256    *string `json:"sha256"`
		} `json:"vectors"`
	}
	loadVectors(t, "canonical-json.json", &file)
	for _, vector := range file.Vectors {
		value, err := parseJSON([]byte(vector.JSON))
		if err != nil {
			t.Fatalf("%s: %v", vector.Name, err)
		}
		text, err := canonicalJSON(value)
		switch {
		case vector.Canonical == nil && err == nil:
			t.Errorf("%s: got %s, want no canonical form", vector.Name, text)
		case vector.Canonical != nil && (err != nil || text != *vector.Canonical):
			t.Errorf("%s: got %q (%v), want %q", vector.Name, text, err, *vector.Canonical)
		case vector.Canonical != nil && sha256Hex(text) != *vector.SHA256:
			t.Errorf("%s: hash differs", vector.Name)
		}
	}
}
