package authority

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// NonceUse tells a nonce store which token's nonce it consumes. The service's consume endpoint
// needs the token itself; a local store needs only the nonce and its expiry.
type NonceUse struct {
	// Token is the compact token, as received.
	Token string
	// AdapterID is the verifying adapter (equal to the token's adapterId, already checked).
	AdapterID string
	// TargetSystem is the target (equal to the token's targetSystem, already checked).
	TargetSystem string
}

// NonceStore remembers used nonces so that each Authority Decision Token executes once. Consume
// atomically records nonce and returns true the first time it is seen, false after. expiresAt is
// when the verifier rejects the token anyway (its exp plus the skew), so the nonce may be forgotten
// from then on. When the store cannot tell, it returns an error (preferably a *NonceStoreError),
// never a guessed true; the verifier then refuses the token.
type NonceStore interface {
	Consume(nonce string, expiresAt time.Time, use NonceUse) (bool, error)
}

// NonceStoreErrorKind says why a nonce store could not confirm a first use.
type NonceStoreErrorKind string

const (
	// NonceStoreUnavailable: the store could not answer (network, timeout, full, odd answer).
	NonceStoreUnavailable NonceStoreErrorKind = "unavailable"
	// NonceStoreRejected: the service refused the token for another reason, in RemoteReason.
	NonceStoreRejected NonceStoreErrorKind = "rejected"
)

// NonceStoreError is returned by a nonce store that cannot confirm whether a nonce was used
// before. The verifier reports NONCE_STORE_UNAVAILABLE, or RemoteReason when it is a known one
// (TENANT_KILL_SWITCH, say).
type NonceStoreError struct {
	// Kind says whether the store could not answer or the service refused the token.
	Kind NonceStoreErrorKind
	// Message is for logs.
	Message string
	// RemoteReason is the service's reason when Kind is NonceStoreRejected.
	RemoteReason string
}

// Error returns the message.
func (e *NonceStoreError) Error() string { return e.Message }

// MemoryNonceStore is a nonce store in this process's memory: right for one executor process
// only; several processes executing the same kind of token must share a store (RemoteNonceStore).
// Expired nonces are forgotten; live ones are never evicted, so a full store refuses (the verifier
// then refuses the token). Safe for concurrent use.
type MemoryNonceStore struct {
	mu         sync.Mutex
	maxEntries int
	clock      func() time.Time
	expiries   map[string]time.Time
	nextSweep  time.Time
}

// NewMemoryNonceStore returns a store holding at most maxEntries live nonces (100 000 when 0),
// reading time from clock (time.Now when nil; give it the verifier's clock).
func NewMemoryNonceStore(maxEntries int, clock func() time.Time) *MemoryNonceStore {
	if maxEntries <= 0 {
		maxEntries = 100_000
	}
	if clock == nil {
		clock = time.Now
	}
	return &MemoryNonceStore{maxEntries: maxEntries, clock: clock, expiries: map[string]time.Time{}}
}

// Len is the number of nonces remembered (expired ones may linger until the next sweep).
func (s *MemoryNonceStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.expiries)
}

// Consume records nonce until expiresAt: true on first use, false on a replay.
func (s *MemoryNonceStore) Consume(nonce string, expiresAt time.Time, _ NonceUse) (bool, error) {
	if nonce == "" {
		return false, &NonceStoreError{Kind: NonceStoreUnavailable, Message: "empty nonce"}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock()
	if !now.Before(s.nextSweep) || len(s.expiries) >= s.maxEntries {
		s.nextSweep = now.Add(10 * time.Second)
		for known, expiry := range s.expiries {
			if !expiry.After(now) {
				delete(s.expiries, known)
			}
		}
	}
	if _, used := s.expiries[nonce]; used {
		return false, nil
	}
	if len(s.expiries) >= s.maxEntries {
		return false, &NonceStoreError{Kind: NonceStoreUnavailable, Message: fmt.Sprintf("in-memory nonce store is full (%d live nonces)", s.maxEntries)}
	}
	s.expiries[nonce] = expiresAt
	return true, nil
}

// RemoteNonceStore is the service's nonce store: POST <base>/authority/tokens/consume with
// {token, adapterId, targetSystem}. The service verifies the token again and consumes its nonce
// atomically in its database, so any number of executors can share it. It needs a key with the
// permission intent:token:consume. It is not retried: a retry after a lost answer would see the
// nonce consumed and refuse a good token.
//
// Answers map as follows (fail closed): {valid: true} is a first use; {valid: false, reason:
// NONCE_ALREADY_CONSUMED} a replay; another reason a *NonceStoreError of kind rejected; any other
// status or body, a network error or a timeout a *NonceStoreError of kind unavailable.
type RemoteNonceStore struct {
	// Behind a pointer, so that printing the store (%v, %+v, %#v) never shows the API key.
	c *remoteConsumer
}

type remoteConsumer struct {
	endpoint   string
	tenantID   string
	apiKey     string
	httpClient *http.Client
}

// NewRemoteNonceStore returns the store of the service at baseURL (a /v1 suffix is fine).
func NewRemoteNonceStore(baseURL, tenantID, apiKey string) (*RemoteNonceStore, error) {
	endpoint, err := serviceURL(baseURL, "/authority/tokens/consume")
	if err != nil {
		return nil, err
	}
	if tenantID == "" || apiKey == "" {
		return nil, fmt.Errorf("%w: the tenant and the API key are required", ErrInvalidArgument)
	}
	consumer := &remoteConsumer{endpoint: endpoint, tenantID: tenantID, apiKey: apiKey, httpClient: noRedirectClient(5 * time.Second)}
	return &RemoteNonceStore{c: consumer}, nil
}

func unavailable(format string, args ...any) error {
	return &NonceStoreError{Kind: NonceStoreUnavailable, Message: fmt.Sprintf(format, args...)}
}

// Consume asks the service to verify use.Token and consume its nonce; expiresAt is not sent, the
// service reads the expiry from the token.
func (s *RemoteNonceStore) Consume(nonce string, _ time.Time, use NonceUse) (bool, error) {
	body, err := json.Marshal(map[string]string{"token": use.Token, "adapterId": use.AdapterID, "targetSystem": use.TargetSystem})
	if err != nil {
		return false, unavailable("cannot encode the request: %v", err)
	}
	request, err := http.NewRequestWithContext(context.Background(), http.MethodPost, s.c.endpoint, bytes.NewReader(body))
	if err != nil {
		return false, unavailable("cannot build the request: %v", err)
	}
	request.Header.Set("authorization", "Bearer "+s.c.apiKey)
	request.Header.Set("x-tenant-id", s.c.tenantID)
	request.Header.Set("content-type", "application/json")
	request.Header.Set("accept", "application/json")
	response, err := s.c.httpClient.Do(request)
	if err != nil {
		return false, unavailable("nonce store unreachable: %v", err)
	}
	defer response.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(response.Body, 1<<20))
	if err != nil {
		return false, unavailable("nonce store answer unreadable: %v", err)
	}
	parsed, err := parseJSON(raw)
	if err != nil {
		return false, unavailable("nonce store answered HTTP %d without JSON", response.StatusCode)
	}
	answer, ok := parsed.(map[string]any)
	if response.StatusCode != http.StatusOK || !ok {
		return false, unavailable("nonce store answered HTTP %d", response.StatusCode)
	}
	if answer["valid"] == true {
		if claims, ok := answer["claims"].(map[string]any); ok {
			if confirmed, present := claims["nonce"]; present && confirmed != nonce {
				return false, unavailable("nonce store confirmed a different nonce")
			}
		}
		return true, nil
	}
	if reason, ok := answer["reason"].(string); ok && answer["valid"] == false {
		if reason == ReasonNonceAlreadyConsumed {
			return false, nil
		}
		return false, &NonceStoreError{Kind: NonceStoreRejected, Message: "nonce store rejected the token: " + reason, RemoteReason: reason}
	}
	return false, unavailable("nonce store answered an unexpected body")
}
