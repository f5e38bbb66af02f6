package authority

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// JWK is one JSON Web Key, as the service publishes it: "kid", "alg" (EdDSA, ES256 or RS256),
// "kty", "crv", "x", "y", "n", "e", "use". Only its public members are ever used.
type JWK map[string]any

// JWKS is a JSON Web Key Set, {"keys": [...]}.
type JWKS struct {
	// Keys are the set's keys, in the published order.
	Keys []JWK
}

// ParseJWKS reads a key set document, such as the body of
// GET /.well-known/authority/<tenant>/jwks.json.
func ParseJWKS(data []byte) (JWKS, error) {
	value, err := parseJSON(data)
	if err != nil {
		return JWKS{}, err
	}
	document, ok := value.(map[string]any)
	if !ok {
		return JWKS{}, errors.New("a JWK set is a JSON object")
	}
	keys, ok := document["keys"].([]any)
	if !ok {
		return JWKS{}, errors.New(`a JWK set has a "keys" array`)
	}
	out := JWKS{Keys: make([]JWK, 0, len(keys))}
	for i, key := range keys {
		jwk, ok := key.(map[string]any)
		if !ok {
			return JWKS{}, fmt.Errorf("keys[%d] is not an object", i)
		}
		out.Keys = append(out.Keys, JWK(jwk))
	}
	return out, nil
}

// KeySource finds the public key published under a kid. Key returns (nil, nil) when the kid is
// unknown (the verifier reports KID_MISMATCH) and an error only when it has no key set at all to
// consult (KEY_SOURCE_UNAVAILABLE).
type KeySource interface {
	Key(kid string) (JWK, error)
}

// keyAlgorithm is the algorithm a public JWK is bound to, from its own "alg", which must match its
// type: EdDSA (OKP, Ed25519), ES256 (EC, P-256) or RS256 (RSA). Symmetric keys never qualify.
func keyAlgorithm(jwk JWK) (string, error) {
	alg, ok := jwk["alg"].(string)
	if !ok {
		return "", errors.New("the key has no alg member")
	}
	kty, crv := jwk["kty"], jwk["crv"]
	switch {
	case alg == "EdDSA" && kty == "OKP" && crv == "Ed25519",
		alg == "ES256" && kty == "EC" && crv == "P-256",
		alg == "RS256" && kty == "RSA":
		return alg, nil
	case alg == "EdDSA" || alg == "ES256" || alg == "RS256":
		return "", fmt.Errorf("%s does not fit a key of type %v %v", alg, kty, crv)
	default:
		return "", fmt.Errorf("unsupported key algorithm %q", alg)
	}
}

func checkKey(jwk JWK, position int) (string, error) {
	kid, ok := jwk["kid"].(string)
	if !ok || kid == "" {
		return "", fmt.Errorf("keys[%d] has no kid", position)
	}
	if use, present := jwk["use"]; present && use != "sig" {
		return "", fmt.Errorf("key %s is not a signature key (use %v)", kid, use)
	}
	if _, err := keyAlgorithm(jwk); err != nil {
		return "", fmt.Errorf("key %s: %w", kid, err)
	}
	return kid, nil
}

type staticJWKS map[string]JWK

// Key returns the pinned key of kid, nil when there is none.
func (s staticJWKS) Key(kid string) (JWK, error) { return s[kid], nil }

// StaticJWKS is a fixed, pinned key set that is never fetched. Every key needs a kid and an alg
// that fits its type; a malformed key or a kid listed twice is an error.
func StaticJWKS(jwks JWKS) (KeySource, error) { return pinnedKeys(jwks, false) }

func pinnedKeys(jwks JWKS, mergeIdentical bool) (staticJWKS, error) {
	out := staticJWKS{}
	for i, jwk := range jwks.Keys {
		kid, err := checkKey(jwk, i)
		if err != nil {
			return nil, err
		}
		if known, dup := out[kid]; dup {
			if mergeIdentical && sameJSON(known, jwk) {
				continue
			}
			return nil, fmt.Errorf("duplicate kid %s", kid)
		}
		out[kid] = jwk
	}
	return out, nil
}

func sameJSON(a, b JWK) bool {
	left, err := canonicalJSON(map[string]any(a))
	if err != nil {
		return false
	}
	right, err := canonicalJSON(map[string]any(b))
	return err == nil && left == right
}

// RemoteJWKS is the service's key set, fetched and cached: the first lookup fetches it, an
// unknown kid re-fetches it at most once per MinRefetchInterval (30 s), counted from the last
// re-fetch or failed fetch (a kid published just after the first load is fetched at once), a set older than MaxAge
// (300 s) is refreshed on the next lookup, an outage keeps the cached set, and with no set ever
// loaded lookups fail (KEY_SOURCE_UNAVAILABLE). Unusable keys and kids published twice are left
// out. Safe for concurrent use.
type RemoteJWKS struct {
	// URL is the tenant's jwks.json address.
	URL string
	// MinRefetchInterval is the least time between two re-fetches on an unknown kid, or after a
	// failed fetch (30 s from NewRemoteJWKS); a scheduled load that worked does not count.
	MinRefetchInterval time.Duration
	// MaxAge is the age after which the cached set is refreshed (300 s from NewRemoteJWKS).
	MaxAge time.Duration
	// HTTPClient fetches the set (a 5 s timeout from NewRemoteJWKS).
	HTTPClient *http.Client
	// Clock defaults to time.Now.
	Clock func() time.Time

	mu          sync.Mutex
	keys        map[string]JWK
	loadedAt    time.Time
	attemptedAt time.Time
	lastErr     error
}

// NewRemoteJWKS returns a RemoteJWKS for the tenant key set at url, with the default intervals.
func NewRemoteJWKS(url string) *RemoteJWKS {
	return &RemoteJWKS{
		URL:                url,
		MinRefetchInterval: 30 * time.Second,
		MaxAge:             300 * time.Second,
		HTTPClient:         &http.Client{Timeout: 5 * time.Second},
	}
}

func (r *RemoteJWKS) now() time.Time {
	if r.Clock != nil {
		return r.Clock()
	}
	return time.Now()
}

func (r *RemoteJWKS) load() error {
	request, err := http.NewRequestWithContext(context.Background(), http.MethodGet, r.URL, nil)
	if err != nil {
		return err
	}
	request.Header.Set("accept", "application/json")
	client := r.HTTPClient
	if client == nil {
		client = &http.Client{Timeout: 5 * time.Second}
	}
	response, err := client.Do(request)
	if err != nil {
		return err
	}
	defer response.Body.Close()
	body, err := io.ReadAll(io.LimitReader(response.Body, 1<<20))
	if err != nil {
		return err
	}
	if response.StatusCode != http.StatusOK {
		return fmt.Errorf("the JWKS endpoint answered HTTP %d", response.StatusCode)
	}
	set, err := ParseJWKS(body)
	if err != nil {
		return err
	}
	usable := map[string]JWK{}
	duplicated := map[string]bool{}
	for i, jwk := range set.Keys {
		kid, err := checkKey(jwk, i)
		if err != nil {
			continue
		}
		if _, dup := usable[kid]; dup {
			duplicated[kid] = true
		}
		usable[kid] = jwk
	}
	for kid := range duplicated { // a kid published twice is ambiguous: neither copy is trusted
		delete(usable, kid)
	}
	r.keys, r.loadedAt, r.lastErr = usable, r.now(), nil
	return nil
}

// refresh fetches the set unless the rate limit forbids it, and says whether a set was loaded. The
// limit spaces re-fetches on an unknown kid and retries after a failure; a scheduled load that
// worked (the first, or one past MaxAge) does not start it.
func (r *RemoteJWKS) refresh(now time.Time, scheduled bool) bool {
	if !r.attemptedAt.IsZero() && now.Sub(r.attemptedAt) < r.MinRefetchInterval {
		return false
	}
	r.attemptedAt = now
	if err := r.load(); err != nil {
		r.lastErr = err
		return false
	}
	if scheduled {
		r.attemptedAt = time.Time{}
	}
	return true
}

// Key returns the key published under kid, fetching the set when needed; nil when unknown.
func (r *RemoteJWKS) Key(kid string) (JWK, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	justLoaded := false
	if r.keys == nil || now.Sub(r.loadedAt) >= r.MaxAge {
		justLoaded = r.refresh(now, true)
	}
	if r.keys == nil {
		return nil, fmt.Errorf("no JWKS loaded from %s: %v", r.URL, r.lastErr)
	}
	// An unknown kid in a set this call just loaded is not fetched again at once.
	if _, known := r.keys[kid]; !known && !justLoaded {
		r.refresh(now, false)
	}
	return r.keys[kid], nil
}
