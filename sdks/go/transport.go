package authority

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"time"
)

const userAgent = "authority-runtime-go/0.1.0"

// serviceURL joins the base URL (trailing slashes dropped, a /v1 suffix kept) and a path. A path
// that starts with /v1 does not repeat the suffix: the service strips one /v1, so a base URL
// ending in /v1 and a documented /v1/physical/... path would otherwise meet as /v1/v1/... (404).
func serviceURL(base, path string) (string, error) {
	parsed, err := url.Parse(base)
	if err != nil || (parsed.Scheme != "http" && parsed.Scheme != "https") || parsed.Host == "" {
		return "", fmt.Errorf("%w: the base URL must be an http(s) URL", ErrInvalidArgument)
	}
	if path != "" && !strings.HasPrefix(path, "/") {
		return "", fmt.Errorf("%w: a path starts with /: %q", ErrInvalidArgument, path)
	}
	root := strings.TrimRight(base, "/")
	if strings.HasSuffix(strings.TrimRight(parsed.Path, "/"), "/v1") && (path == "/v1" || strings.HasPrefix(path, "/v1/")) {
		path = strings.TrimPrefix(path, "/v1")
	}
	return root + path, nil
}

// noRedirectClient follows no redirect: the API key must never go to another host.
func noRedirectClient(timeout time.Duration) *http.Client {
	return &http.Client{
		Timeout: timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

type response struct {
	status    int
	body      []byte
	parsed    any
	requestID string
}

type transport struct {
	baseURL       string
	tenantID      string
	apiKey        string
	maxAttempts   int
	maxRetryAfter time.Duration
	timeout       time.Duration
	http          *http.Client
	sleep         func(context.Context, time.Duration) error

	randomMu sync.Mutex
	random   *rand.Rand
}

func sleepContext(ctx context.Context, wait time.Duration) error {
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

func (t *transport) jitter() float64 {
	t.randomMu.Lock()
	defer t.randomMu.Unlock()
	return t.random.Float64()
}

type call struct {
	method, path   string
	body           any
	idempotencyKey string
	// results are error statuses whose non-envelope body is a result (a DENIED decision).
	results       []int
	authenticated bool
	// text asks for a text/plain answer (the log key), returned as it is rather than as JSON.
	text bool
	// anyJSON accepts any JSON value, and a 2xx answer without a body (a 204 No Content) as a
	// success without a value (Do); the typed calls need a body.
	anyJSON bool
}

// repeatable says whether a call may be sent again after any retryable failure: a read, a PUT or
// a DELETE, or a call with an Idempotency-Key. Any other call (an approval, a new API key) might
// act twice, so it is sent again only after a failure that proves it was not processed.
func (c call) repeatable() bool {
	switch c.method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodPut, http.MethodDelete:
		return true
	}
	return c.idempotencyKey != ""
}

// unprocessed says whether a failure proves the service did not process the request: a 429, or
// a connection that could not be opened (refused, or a host name that does not resolve).
func unprocessed(failure *APIError) bool {
	var dnsErr *net.DNSError
	return failure.Status == http.StatusTooManyRequests ||
		errors.Is(failure.cause, syscall.ECONNREFUSED) || errors.As(failure.cause, &dnsErr)
}

// do sends one logical request, retrying 429 (after retry-after), 500, 502, 503, 504 and network
// errors with exponential backoff and full jitter, up to maxAttempts attempts; every attempt
// carries the same body and Idempotency-Key. A call that is not repeatable is retried only after
// a failure that proves it was not processed.
func (t *transport) do(ctx context.Context, c call) (*response, error) {
	target, err := serviceURL(t.baseURL, c.path)
	if err != nil {
		return nil, err
	}
	var payload []byte
	if c.body != nil {
		if payload, err = json.Marshal(c.body); err != nil {
			return nil, fmt.Errorf("%w: the body cannot be encoded: %v", ErrInvalidArgument, err)
		}
	}
	if c.idempotencyKey != "" && !validIdempotencyKey(c.idempotencyKey) {
		return nil, fmt.Errorf("%w: an Idempotency-Key is 1 to 255 visible ASCII characters", ErrInvalidArgument)
	}
	if _, err := http.NewRequest(c.method, target, nil); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidArgument, err)
	}
	for attempt := 1; ; attempt++ {
		answer, apiErr := t.attempt(ctx, c, target, payload)
		if apiErr == nil {
			return answer, nil
		}
		if !apiErr.Retryable || attempt >= t.maxAttempts || ctx.Err() != nil {
			return nil, apiErr
		}
		if !c.repeatable() && !unprocessed(apiErr) {
			return nil, apiErr
		}
		wait := backoffDelay(attempt, t.jitter())
		if apiErr.Status == 429 && apiErr.RetryAfter > 0 {
			if apiErr.RetryAfter > t.maxRetryAfter {
				return nil, apiErr
			}
			wait = apiErr.RetryAfter
		}
		if err := t.sleep(ctx, wait); err != nil {
			return nil, apiErr
		}
	}
}

// validIdempotencyKey says whether the service takes key: 1 to 255 visible ASCII characters.
func validIdempotencyKey(key string) bool {
	return len(key) <= 255 && visibleASCII(key)
}

// visibleASCII says whether s is one or more visible ASCII characters: a header value that needs
// no quoting and holds no line break.
func visibleASCII(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// attempt makes one attempt within the client's Timeout, the answer read to its end, whatever
// http.Client the caller gave (its own Timeout may only shorten it).
func (t *transport) attempt(ctx context.Context, c call, target string, payload []byte) (*response, *APIError) {
	attemptCtx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	var body io.Reader
	if payload != nil {
		body = bytes.NewReader(payload)
	}
	request, err := http.NewRequestWithContext(attemptCtx, c.method, target, body)
	if err != nil {
		return nil, &APIError{Code: "NETWORK_ERROR", Message: err.Error(), cause: err}
	}
	request.Header.Set("accept", "application/json")
	if c.text {
		request.Header.Set("accept", "text/plain")
	}
	request.Header.Set("user-agent", userAgent)
	if c.authenticated {
		request.Header.Set("authorization", "Bearer "+t.apiKey)
		request.Header.Set("x-tenant-id", t.tenantID)
	}
	if payload != nil {
		request.Header.Set("content-type", "application/json")
	}
	if c.idempotencyKey != "" {
		request.Header.Set("idempotency-key", c.idempotencyKey)
	}
	answer, err := t.http.Do(request)
	if err != nil {
		return nil, t.failure(ctx, err, "request failed", "no answer")
	}
	defer answer.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(answer.Body, 16<<20))
	if err != nil {
		return nil, t.failure(ctx, err, "answer unreadable", "no complete answer")
	}
	out := &response{status: answer.StatusCode, body: raw, requestID: answer.Header.Get("x-request-id")}
	var parseErr error
	if len(raw) > 0 {
		out.parsed, parseErr = parseJSON(raw)
	}
	if answer.StatusCode >= 200 && answer.StatusCode < 300 {
		switch {
		case c.text, c.anyJSON && parseErr == nil: // parseErr is nil for an empty body too
		case out.parsed == nil:
			return nil, &APIError{Status: answer.StatusCode, Code: "INVALID_RESPONSE", Message: "the answer is not JSON", RequestID: out.requestID}
		}
		return out, nil
	}
	envelope, isEnvelope := errorEnvelope(out.parsed)
	for _, status := range c.results {
		if status == answer.StatusCode && out.parsed != nil && !isEnvelope {
			return out, nil
		}
	}
	apiErr := &APIError{Status: answer.StatusCode, Retryable: retryableStatus(answer.StatusCode), RequestID: out.requestID}
	if isEnvelope {
		apiErr.Code, _ = envelope["code"].(string)
		apiErr.Message, _ = envelope["message"].(string)
		apiErr.Details, _ = envelope["details"].(map[string]any)
		if id, ok := envelope["requestId"].(string); ok && id != "" {
			apiErr.RequestID = id
		}
	} else {
		apiErr.Code = "INVALID_RESPONSE"
		apiErr.Message = truncate(string(raw), 200)
	}
	if answer.StatusCode == 429 {
		apiErr.RetryAfter, _ = retryAfter(answer.Header.Get("retry-after"), time.Now())
	}
	return nil, apiErr
}

// failure is the error of an attempt that got no complete answer, at status 0: TIMEOUT when a
// deadline passed, the client's Timeout or the caller's context deadline, whether before the
// answer's headers or while reading its body; ABORTED, not retryable, when the caller cancelled
// its context (the message then ends with "context canceled"), as the TypeScript SDK's aborted
// signal; NETWORK_ERROR otherwise.
func (t *transport) failure(ctx context.Context, err error, prefix, missing string) *APIError {
	if errors.Is(ctx.Err(), context.Canceled) {
		return &APIError{Code: "ABORTED", Message: prefix + ": " + err.Error(), cause: err}
	}
	var netErr net.Error
	timedOut := errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &netErr) && netErr.Timeout())
	if !timedOut {
		return &APIError{Code: "NETWORK_ERROR", Message: prefix + ": " + err.Error(), Retryable: true, cause: err}
	}
	message := fmt.Sprintf("%s within %s", missing, t.timeout)
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		message = missing + " before the context's deadline"
	}
	return &APIError{Code: "TIMEOUT", Message: message, Retryable: true, cause: err}
}

func errorEnvelope(parsed any) (map[string]any, bool) {
	object, ok := parsed.(map[string]any)
	if !ok {
		return nil, false
	}
	envelope, ok := object["error"].(map[string]any)
	if !ok {
		return nil, false
	}
	_, hasCode := envelope["code"].(string)
	return envelope, hasCode
}

func truncate(text string, limit int) string {
	if text == "" {
		return "no body"
	}
	if len(text) > limit {
		return text[:limit]
	}
	return text
}
