package authority

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// What the shared vectors cannot show: misuse, key sources and nonce stores that fail, the remote
// stores, receipt versions, rotated webhook secrets.

type tokenFixture struct {
	keys  KeySource
	set   JWKS
	now   time.Time
	token map[string]string
}

func loadTokenFixture(t *testing.T) tokenFixture {
	t.Helper()
	var file struct {
		Now     int64           `json:"now"`
		JWKS    json.RawMessage `json:"jwks"`
		Vectors []struct{ Name, Token string }
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
	tokens := map[string]string{}
	for _, v := range file.Vectors {
		tokens[v.Name] = v.Token
	}
	return tokenFixture{keys: keys, set: set, now: time.Unix(file.Now, 0), token: tokens}
}

var acme = Expected{TenantID: "acme", AdapterID: "github-main", TargetSystem: "acme/api"}

type storeFunc func(string, time.Time, NonceUse) (bool, error)

func (f storeFunc) Consume(nonce string, expiresAt time.Time, use NonceUse) (bool, error) {
	return f(nonce, expiresAt, use)
}

type keySourceFunc func(string) (JWK, error)

func (f keySourceFunc) Key(kid string) (JWK, error) { return f(kid) }

func TestMisuseIsAnError(t *testing.T) {
	f := loadTokenFixture(t)
	for _, expected := range []Expected{{AdapterID: "a", TargetSystem: "t"}, {TenantID: "acme", AdapterID: "a", TargetSystem: "t", ClockSkew: time.Hour}} {
		if _, err := VerifyAuthorityToken(f.token["EdDSA/valid"], f.keys, expected, f.now); !errors.Is(err, ErrInvalidArgument) {
			t.Fatalf("%+v: %v", expected, err)
		}
	}
	if _, err := VerifyAuthorityToken(f.token["EdDSA/valid"], nil, acme, f.now); !errors.Is(err, ErrInvalidArgument) {
		t.Fatal(err)
	}
	duplicate := JWKS{Keys: []JWK{f.set.Keys[0], f.set.Keys[0]}}
	if _, err := StaticJWKS(duplicate); err == nil {
		t.Fatal("a duplicate kid must be refused")
	}
	if _, err := StaticJWKS(JWKS{Keys: []JWK{{"kid": "k", "kty": "oct", "alg": "HS256"}}}); err == nil {
		t.Fatal("a symmetric key must be refused")
	}
	result, err := VerifyAuthorityToken(f.token["EdDSA/valid"], f.keys, Expected{TenantID: "acme", AdapterID: "github-main", TargetSystem: "acme/api", PinnedKid: "acme-1700000001-ESACTIVE"}, f.now)
	if err != nil || result.Reason != ReasonKidMismatch {
		t.Fatalf("pinned kid: %+v %v", result, err)
	}
}

func TestFailingKeySourcesAndNonceStores(t *testing.T) {
	f := loadTokenFixture(t)
	down := keySourceFunc(func(string) (JWK, error) { return nil, errors.New("down") })
	if result, _ := VerifyAuthorityToken(f.token["EdDSA/valid"], down, acme, f.now); result.Reason != ReasonKeySourceUnavailable {
		t.Fatalf("%+v", result)
	}
	cases := []struct {
		store  storeFunc
		reason string
	}{
		{func(string, time.Time, NonceUse) (bool, error) { return false, errors.New("boom") }, ReasonNonceStoreUnavailable},
		{func(string, time.Time, NonceUse) (bool, error) {
			return false, &NonceStoreError{Kind: NonceStoreRejected, RemoteReason: ReasonTenantKillSwitch}
		}, ReasonTenantKillSwitch},
		{func(string, time.Time, NonceUse) (bool, error) {
			return false, &NonceStoreError{Kind: NonceStoreRejected, RemoteReason: "SOMETHING_ELSE"}
		}, ReasonNonceStoreUnavailable},
		{func(string, time.Time, NonceUse) (bool, error) { return false, nil }, ReasonNonceAlreadyConsumed},
	}
	for _, c := range cases {
		expected := acme
		expected.NonceStore = c.store
		if result, _ := VerifyAuthorityToken(f.token["EdDSA/valid"], f.keys, expected, f.now); result.Reason != c.reason {
			t.Fatalf("got %q, want %q", result.Reason, c.reason)
		}
	}
	var got time.Time
	var use NonceUse
	expected := acme
	expected.NonceStore = storeFunc(func(_ string, at time.Time, u NonceUse) (bool, error) { got, use = at, u; return true, nil })
	result, _ := VerifyAuthorityToken(f.token["EdDSA/valid"], f.keys, expected, f.now)
	if !result.Valid || !got.Equal(time.Unix(int64(result.Claims.ExpiresAtUnix)+5, 0)) || use.Token != f.token["EdDSA/valid"] || use.TargetSystem != "acme/api" {
		t.Fatalf("the store gets exp + skew and the token: %v %+v", got, use)
	}
}

func TestMemoryNonceStoreForgetsExpiredAndNeverEvictsLive(t *testing.T) {
	now := time.Unix(1000, 0)
	store := NewMemoryNonceStore(2, func() time.Time { return now })
	consume := func(nonce string, expires int64) (bool, error) {
		return store.Consume(nonce, time.Unix(expires, 0), NonceUse{})
	}
	if first, _ := consume("a", 1001); !first {
		t.Fatal("a")
	}
	if first, _ := consume("b", 2000); !first {
		t.Fatal("b")
	}
	if _, err := consume("c", 2000); err == nil {
		t.Fatal("full of live nonces: refuse rather than evict")
	}
	if first, _ := consume("a", 1001); first {
		t.Fatal("replay")
	}
	now = time.Unix(1002, 0)
	if first, err := consume("c", 2000); !first || err != nil || store.Len() != 2 {
		t.Fatalf("after a's expiry: %v %v %d", first, err, store.Len())
	}
}

func TestRemoteNonceStoreMapsTheServiceAnswers(t *testing.T) {
	f := loadTokenFixture(t)
	token := f.token["EdDSA/valid"]
	valid, _ := VerifyAuthorityToken(token, f.keys, acme, f.now)
	s := newScripted(t,
		reply(200, map[string]any{"valid": true, "claims": map[string]any{"nonce": valid.Claims.Nonce}}),
		reply(200, map[string]any{"valid": false, "reason": "NONCE_ALREADY_CONSUMED"}),
		reply(200, map[string]any{"valid": false, "reason": "TENANT_KILL_SWITCH"}),
		reply(503, envelope("SERVICE_UNAVAILABLE")),
		reply(200, map[string]any{"valid": true, "claims": map[string]any{"nonce": "other"}}),
		reply(200, "not json"),
	)
	store, err := NewRemoteNonceStore(s.server.URL+"/v1/", "acme", "service_live_x")
	if err != nil {
		t.Fatal(err)
	}
	expected := acme
	expected.NonceStore = store
	var reasons []string
	for i := 0; i < 6; i++ {
		result, _ := VerifyAuthorityToken(token, f.keys, expected, f.now)
		reasons = append(reasons, result.Reason)
	}
	want := []string{"", ReasonNonceAlreadyConsumed, ReasonTenantKillSwitch, ReasonNonceStoreUnavailable, ReasonNonceStoreUnavailable, ReasonNonceStoreUnavailable}
	if strings.Join(reasons, ",") != strings.Join(want, ",") {
		t.Fatalf("%v", reasons)
	}
	first := s.seen[0]
	var body map[string]string
	_ = json.Unmarshal([]byte(s.bodies[0]), &body)
	if first.Method != http.MethodPost || first.URL.Path != "/v1/authority/tokens/consume" || body["token"] != token ||
		body["adapterId"] != "github-main" || first.Header.Get("x-tenant-id") != "acme" {
		t.Fatalf("%s %s %v", first.Method, first.URL.Path, body)
	}
	untouched := newScripted(t)
	store, _ = NewRemoteNonceStore(untouched.server.URL, "acme", "k")
	expected = Expected{TenantID: "acme", AdapterID: "github-main", TargetSystem: "acme/web", NonceStore: store}
	if result, _ := VerifyAuthorityToken(token, f.keys, expected, f.now); result.Reason != ReasonTokenTargetMismatch || len(untouched.seen) != 0 {
		t.Fatal("the remote store is called only when every other check passed")
	}
}

func TestRemoteNonceStorePrintsWithoutItsKey(t *testing.T) {
	const key = "service_live_PRINTEDKEYPRINTEDKEYPRINTEDKEYPRINTEDKEY0123456"
	store, err := NewRemoteNonceStore("http://127.0.0.1:9", "acme", key)
	if err != nil {
		t.Fatal(err)
	}
	for _, printed := range []string{
		fmt.Sprintf("%v", store), fmt.Sprintf("%+v", store), fmt.Sprintf("%#v", store),
		fmt.Sprintf("%v", *store), fmt.Sprintf("%+v", *store), fmt.Sprintf("%#v", *store),
	} {
		if strings.Contains(printed, key) || strings.Contains(printed, "PRINTEDKEY") {
			t.Fatalf("the key is printed: %s", printed)
		}
	}
}

func TestRemoteJWKSRefetchesAtMostEvery30sAndSurvivesAnOutage(t *testing.T) {
	f := loadTokenFixture(t)
	keys := map[string]any{"keys": f.set.Keys}
	s := newScripted(t, reply(200, keys), reply(200, keys), reply(503, "{}"), reply(200, keys), reply(200, keys))
	now := time.Unix(0, 0)
	jwks := NewRemoteJWKS(s.server.URL + "/jwks.json")
	jwks.Clock = func() time.Time { return now }
	check := func(name, reason string) {
		t.Helper()
		if result, _ := VerifyAuthorityToken(f.token[name], jwks, acme, f.now); result.Reason != reason {
			t.Fatalf("%s: got %q, want %q", name, result.Reason, reason)
		}
	}
	check("EdDSA/valid", "")
	// The first load starts no cooldown: a kid published just after it is fetched at once.
	check("EdDSA/kid-unknown", ReasonKidMismatch) // re-fetched
	check("EdDSA/kid-unknown", ReasonKidMismatch) // rate limited: no fetch
	if len(s.seen) != 2 {
		t.Fatalf("%d fetches", len(s.seen))
	}
	now = now.Add(31 * time.Second)
	check("EdDSA/kid-unknown", ReasonKidMismatch) // the 503: the cached set stays
	check("EdDSA/valid", "")
	check("EdDSA/kid-unknown", ReasonKidMismatch) // a failure counts: no fetch
	if len(s.seen) != 3 {
		t.Fatalf("%d fetches", len(s.seen))
	}
	now = now.Add(31 * time.Second)
	check("EdDSA/kid-unknown", ReasonKidMismatch) // re-fetched once more
	now = now.Add(400 * time.Second)              // older than max-age: refreshed
	check("EdDSA/valid", "")
	if len(s.seen) != 5 {
		t.Fatalf("%d fetches", len(s.seen))
	}
	s.server.Close()
	cold := NewRemoteJWKS(s.server.URL + "/jwks.json")
	if result, _ := VerifyAuthorityToken(f.token["EdDSA/valid"], cold, acme, f.now); result.Reason != ReasonKeySourceUnavailable {
		t.Fatalf("%+v", result)
	}
}

func TestWebhookRotatedSecrets(t *testing.T) {
	var file struct {
		Secret  string `json:"secret"`
		NowMs   int64  `json:"nowMs"`
		Vectors []struct{ Name, RawBody, SignatureHeader string }
	}
	raw, _ := os.ReadFile(filepath.Join("..", "test-vectors", "webhooks.json"))
	_ = json.Unmarshal(raw, &file)
	valid := file.Vectors[0]
	now := time.UnixMilli(file.NowMs)
	if !VerifyWebhookSignature([]byte(valid.RawBody), valid.SignatureHeader, now, "whsec_old", file.Secret).Valid {
		t.Fatal("any of the secrets")
	}
	if r := VerifyWebhookSignature([]byte(valid.RawBody), valid.SignatureHeader, now, "whsec_old"); r.Reason != ReasonSignatureMismatch {
		t.Fatal(r.Reason)
	}
	if r := VerifyWebhookSignature([]byte(valid.RawBody), valid.SignatureHeader, now); r.Reason != ReasonSignatureMismatch {
		t.Fatal("no secret, no match")
	}
}
