package authority

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	mathrand "math/rand"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Options tune a Client; the zero value gives the defaults.
type Options struct {
	// Timeout of one attempt (default 10 s).
	Timeout time.Duration
	// MaxAttempts in all, retries included (default 4).
	MaxAttempts int
	// MaxRetryAfter is the longest retry-after wait honoured; a longer one is returned at once
	// (default 60 s).
	MaxRetryAfter time.Duration
	// HTTPClient replaces the default client (which follows no redirect).
	HTTPClient *http.Client
}

// Client is a client of one tenant of an Authority Runtime service. Every call retries 429
// (honouring retry-after), 500, 502, 503, 504 and network errors with exponential backoff and full
// jitter, up to MaxAttempts attempts in all; 400, 401, 403, 404 and 409 are final. SubmitIntent
// and FetchToken send one Idempotency-Key per call that every retry reuses, so retries never make
// two decisions; a call that would act twice without one (DecideApproval, CreateAPIKey, a POST or
// PATCH through Do) is retried only after a 429 or a connection that could not be opened.
// Anything that is not a decision is an *APIError; AUTHORITY_LOOP_FAILED and every
// other failure never yield a token. Safe for concurrent use.
type Client struct {
	// BaseURL is the service's address, as given to NewClient.
	BaseURL string
	// TenantID is the tenant every call is made for (the x-tenant-id header).
	TenantID string
	t        *transport
}

// NewClient returns a client of tenantID at baseURL (a /v1 suffix is fine) with apiKey.
func NewClient(baseURL, tenantID, apiKey string, options Options) (*Client, error) {
	if _, err := serviceURL(baseURL, ""); err != nil {
		return nil, err
	}
	if tenantID == "" || apiKey == "" {
		return nil, fmt.Errorf("%w: the tenant and the API key are required", ErrInvalidArgument)
	}
	if !visibleASCII(tenantID) || !visibleASCII(apiKey) {
		return nil, fmt.Errorf("%w: the tenant and the API key are visible ASCII characters only (they travel in headers)", ErrInvalidArgument)
	}
	if options.Timeout <= 0 {
		options.Timeout = 10 * time.Second
	}
	if options.MaxAttempts <= 0 {
		options.MaxAttempts = 4
	}
	if options.MaxRetryAfter <= 0 {
		options.MaxRetryAfter = 60 * time.Second
	}
	httpClient := options.HTTPClient
	if httpClient == nil {
		httpClient = noRedirectClient(options.Timeout)
	}
	return &Client{
		BaseURL:  baseURL,
		TenantID: tenantID,
		t: &transport{
			baseURL: baseURL, tenantID: tenantID, apiKey: apiKey,
			maxAttempts: options.MaxAttempts, maxRetryAfter: options.MaxRetryAfter,
			timeout: options.Timeout, http: httpClient, sleep: sleepContext,
			random: mathrand.New(mathrand.NewSource(time.Now().UnixNano())),
		},
	}, nil
}

// newIdempotencyKey is a random UUID (version 4).
func newIdempotencyKey() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("authority: no randomness: " + err.Error())
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// Do calls any other route of the API with the client's headers, retries and errors, and returns
// the parsed JSON of a 2xx answer (nil, bool, float64, string, []any or map[string]any), or nil
// for a 2xx answer without a body (the 204 No Content of DELETE /keys/:id, say); a 2xx body that
// is not JSON is an INVALID_RESPONSE error. path starts with "/"; body is encoded with
// encoding/json (nil for none).
func (c *Client) Do(ctx context.Context, method, path string, body any) (any, error) {
	answer, err := c.t.do(ctx, call{method: method, path: path, body: body, authenticated: true, anyJSON: true})
	if err != nil {
		return nil, err
	}
	return answer.parsed, nil
}

func (c *Client) object(ctx context.Context, method, path string, body any) (map[string]any, error) {
	answer, err := c.t.do(ctx, call{method: method, path: path, body: body, authenticated: true})
	if err != nil {
		return nil, err
	}
	object, ok := answer.parsed.(map[string]any)
	if !ok {
		return nil, invalidResponse(answer.status, answer.requestID, "the answer is not a JSON object")
	}
	return object, nil
}

// SubmitIntent asks for a decision on an action (POST /intent). It returns the Decision: ALLOW
// with a token, ESCALATE with an escalation id, or DENY (a result, not an error).
func (c *Client) SubmitIntent(ctx context.Context, request IntentRequest) (*Decision, error) {
	key := request.IdempotencyKey
	if key == "" {
		key = newIdempotencyKey()
	}
	path := "/intent"
	if request.Explain {
		path += "?explain=true"
	}
	answer, err := c.t.do(ctx, call{
		method: http.MethodPost, path: path, body: request.body(c.TenantID),
		idempotencyKey: key, results: []int{403}, authenticated: true,
	})
	if err != nil {
		return nil, err
	}
	return decisionFrom(answer)
}

// GetIntent reads the intent record (GET /intent/:id), with its "status".
func (c *Client) GetIntent(ctx context.Context, intentID string) (map[string]any, error) {
	path, err := intentPath(intentID, "")
	if err != nil {
		return nil, err
	}
	return c.object(ctx, http.MethodGet, path, nil)
}

// intentPath is the path of an intent's route: /intent/<id><suffix>. An empty id is an argument
// error, not a request for another route.
func intentPath(intentID, suffix string) (string, error) {
	if intentID == "" {
		return "", fmt.Errorf("%w: the intent id is required", ErrInvalidArgument)
	}
	return "/intent/" + url.PathEscape(intentID) + suffix, nil
}

// WaitForApproval polls the intent every pollInterval (1 s when 0) until it leaves ESCALATED and
// returns its status (APPROVED_AFTER_REVIEW, DENIED_AFTER_REVIEW, EXPIRED, ...), or ESCALATED once
// timeout passed, also while a read is still waiting for the service. A read that fails with a
// retryable error after all its retries (the service unavailable for a while) does not end the
// wait: polling goes on until the timeout. Other errors (404, 401, 403) end it. A cancelled ctx
// ends the wait with its error.
func (c *Client) WaitForApproval(ctx context.Context, intentID string, timeout, pollInterval time.Duration) (string, error) {
	if pollInterval <= 0 {
		pollInterval = time.Second
	}
	deadline := time.Now().Add(timeout)
	for {
		// Each read, its retries included, ends at the deadline: a service that does not answer
		// leaves the intent ESCALATED as far as the caller can know, when the time is up.
		readCtx, cancel := context.WithDeadline(ctx, deadline)
		record, err := c.GetIntent(readCtx, intentID)
		timeUp := readCtx.Err() != nil && ctx.Err() == nil
		cancel()
		status := "ESCALATED"
		if err != nil {
			if timeUp {
				return "ESCALATED", nil
			}
			var apiErr *APIError
			if !errors.As(err, &apiErr) || !apiErr.Retryable || ctx.Err() != nil {
				return "", err
			}
		} else {
			read, ok := record["status"].(string)
			if !ok {
				return "", invalidResponse(200, "", "the intent record has no status")
			}
			status = read
		}
		remaining := time.Until(deadline)
		if status != "ESCALATED" || remaining <= 0 {
			return status, nil
		}
		if remaining > pollInterval {
			remaining = pollInterval
		}
		if err := sleepContext(ctx, remaining); err != nil {
			return "", err
		}
	}
}

// FetchToken collects the token of an approved escalation (POST /intent/:id/token), for the
// principal that submitted the intent. It always sends an Idempotency-Key, a random one per call
// that every retry of the call reuses, so a retry after a lost answer gets the same token back. To
// call again after a call whose every attempt lost its answer, use FetchTokenWithKey.
func (c *Client) FetchToken(ctx context.Context, intentID string) (*Decision, error) {
	return c.FetchTokenWithKey(ctx, intentID, "")
}

// FetchTokenWithKey is FetchToken with the caller's Idempotency-Key (a random one when
// idempotencyKey is empty; the service takes 1 to 255 visible ASCII characters). The service mints
// the token once: a later call with another key gets 409 CONFLICT, while one with the key of the
// call that minted it replays that 200 with the same token (for 24 hours). So keep one key per
// intent, stored with its ID or derived from it, and pass it to every call for that intent: when
// all the attempts of a call lost their answers, the next call still gets the token.
func (c *Client) FetchTokenWithKey(ctx context.Context, intentID, idempotencyKey string) (*Decision, error) {
	if idempotencyKey == "" {
		idempotencyKey = newIdempotencyKey()
	}
	path, err := intentPath(intentID, "/token")
	if err != nil {
		return nil, err
	}
	answer, err := c.t.do(ctx, call{
		method: http.MethodPost, path: path,
		idempotencyKey: idempotencyKey, authenticated: true,
	})
	if err != nil {
		return nil, err
	}
	return decisionFrom(answer)
}

// DecideApproval approves ("approve") or denies ("deny") an escalated intent (POST
// /authority/approval; permission authority:approve; the requester may not decide its own).
func (c *Client) DecideApproval(ctx context.Context, intentID, decision, rationale string) (map[string]any, error) {
	body := map[string]string{"intentId": intentID, "decision": decision, "rationale": rationale}
	return c.object(ctx, http.MethodPost, "/authority/approval", body)
}

// GetReceipt returns the intent's receipt (GET /intent/:id/receipt) as JSON, for VerifyReceipt.
// While the intent's token can still be consumed, only the principal that submitted the intent
// gets it; anyone else gets 409 CONFLICT (details.reason "token_live").
func (c *Client) GetReceipt(ctx context.Context, intentID string) ([]byte, error) {
	path, err := intentPath(intentID, "/receipt")
	if err != nil {
		return nil, err
	}
	answer, err := c.t.do(ctx, call{method: http.MethodGet, path: path, authenticated: true})
	if err != nil {
		return nil, err
	}
	return answer.body, nil
}

// CreateAPIKey creates an API key (POST /keys); its secret, "key", is in this answer only.
func (c *Client) CreateAPIKey(ctx context.Context, name, role string) (map[string]any, error) {
	return c.object(ctx, http.MethodPost, "/keys", map[string]string{"name": name, "role": role})
}

// JWKS returns the tenant's public key set (ACTIVE and PREVIOUS keys).
func (c *Client) JWKS(ctx context.Context) (JWKS, error) {
	return c.keySet(ctx, "jwks.json")
}

// JWKSArchive returns the tenant's RETIRED public keys, which still verify receipts.
func (c *Client) JWKSArchive(ctx context.Context) (JWKS, error) {
	return c.keySet(ctx, "jwks-archive.json")
}

// LogKey returns the tenant's log verifier key, `<origin>+<key ID>+<base64>` as
// GET /.well-known/authority/:tenantId/log-key serves it (without its newline): the key that
// VerifyCheckpoint and a version-2 VerifyReceipt check against. Pin it once, out of band; an
// answer that is not an Ed25519 (0x01) verifier key is an INVALID_RESPONSE error.
func (c *Client) LogKey(ctx context.Context) (string, error) {
	path := "/.well-known/authority/" + url.PathEscape(c.TenantID) + "/log-key"
	answer, err := c.t.do(ctx, call{method: http.MethodGet, path: path, text: true})
	if err != nil {
		return "", err
	}
	key := strings.TrimSuffix(string(answer.body), "\n")
	parsed, err := ParseVerifierKey(key)
	if err != nil || parsed.Type != Ed25519KeyType {
		return "", &APIError{Status: answer.status, Code: "INVALID_RESPONSE", Message: "the answer is not a log verifier key", RequestID: answer.requestID}
	}
	return key, nil
}

func (c *Client) keySet(ctx context.Context, name string) (JWKS, error) {
	path := "/.well-known/authority/" + url.PathEscape(c.TenantID) + "/" + name
	answer, err := c.t.do(ctx, call{method: http.MethodGet, path: path})
	if err != nil {
		return JWKS{}, err
	}
	return ParseJWKS(answer.body)
}
