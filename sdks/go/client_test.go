package authority

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// scripted is a local HTTP server answering each request with the next step of a script; the
// service itself is exercised by the live tests.
type scripted struct {
	mu     sync.Mutex
	steps  []func(http.ResponseWriter, *http.Request)
	seen   []*http.Request
	bodies []string
	server *httptest.Server
}

func newScripted(t *testing.T, steps ...func(http.ResponseWriter, *http.Request)) *scripted {
	s := &scripted{steps: steps}
	s.server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.seen = append(s.seen, r)
		s.bodies = append(s.bodies, string(body))
		var step func(http.ResponseWriter, *http.Request)
		if len(s.steps) > 0 {
			step, s.steps = s.steps[0], s.steps[1:]
		}
		s.mu.Unlock()
		if step == nil {
			t.Errorf("unexpected request %s %s", r.Method, r.URL)
			w.WriteHeader(500)
			return
		}
		step(w, r)
	}))
	t.Cleanup(s.server.Close)
	return s
}

func reply(status int, body any, headers ...string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, _ *http.Request) {
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Set(headers[i], headers[i+1])
		}
		w.Header().Set("content-type", "application/json")
		w.WriteHeader(status)
		if text, ok := body.(string); ok {
			_, _ = io.WriteString(w, text)
			return
		}
		_ = json.NewEncoder(w).Encode(body)
	}
}

func hangUp(w http.ResponseWriter, _ *http.Request) {
	connection, _, err := w.(http.Hijacker).Hijack()
	if err == nil {
		connection.Close()
	}
}

func intentAnswer(decision string, extra map[string]any) map[string]any {
	out := map[string]any{
		"intentId": "0190f5c2-1111-7000-8000-000000000001",
		"authorityDecision": map[string]any{
			"decision":     decision,
			"riskScore":    20,
			"rationale":    []string{"rule starter/escalate-writes matched: ESCALATE"},
			"decidingRule": map[string]any{"id": "starter/escalate-writes", "effect": "ESCALATE", "priority": 100},
		},
	}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

func envelope(code string) map[string]any {
	return map[string]any{"error": map[string]any{"code": code, "message": "no", "requestId": "req-1"}}
}

func submitTo(t *testing.T, url string, options Options) (*Decision, error) {
	t.Helper()
	client, err := NewClient(url, "acme", "service_live_x", options)
	if err != nil {
		t.Fatal(err)
	}
	return client.SubmitIntent(context.Background(), IntentRequest{
		Actor: Actor{ID: "agent-7", Type: "agent"}, TargetSystem: "acme/api",
		ProposedAction: "merge pull request #42", RiskContext: RiskContext{BaseRiskScore: 20},
	})
}

func TestRetriesWithOneIdempotencyKey(t *testing.T) {
	s := newScripted(t,
		reply(503, envelope("SERVICE_UNAVAILABLE")),
		reply(502, "<html>bad gateway</html>"),
		hangUp,
		reply(202, intentAnswer("ESCALATED", map[string]any{"escalationId": "esc-1"})),
	)
	decision, err := submitTo(t, s.server.URL, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if decision.Verdict != VerdictEscalate || decision.EscalationID != "esc-1" || decision.Token != "" {
		t.Fatalf("decision %+v", decision)
	}
	if decision.Reason != "starter/escalate-writes: rule starter/escalate-writes matched: ESCALATE" {
		t.Fatalf("reason %q", decision.Reason)
	}
	keys := map[string]bool{}
	for _, r := range s.seen {
		keys[r.Header.Get("idempotency-key")] = true
		if r.Header.Get("authorization") != "Bearer service_live_x" || r.Header.Get("x-tenant-id") != "acme" {
			t.Fatal("credentials missing")
		}
	}
	if len(s.seen) != 4 || len(keys) != 1 {
		t.Fatalf("%d attempts, %d keys", len(s.seen), len(keys))
	}
	var body map[string]any
	_ = json.Unmarshal([]byte(s.bodies[0]), &body)
	if body["tenantId"] != "acme" || body["riskContext"].(map[string]any)["baseRiskScore"] != 20.0 {
		t.Fatalf("body %s", s.bodies[0])
	}
}

func TestGivesUpAndNeverYieldsAToken(t *testing.T) {
	failed := reply(500, envelope("AUTHORITY_LOOP_FAILED"))
	s := newScripted(t, failed, failed, failed)
	_, err := submitTo(t, s.server.URL, Options{MaxAttempts: 3})
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Status != 500 || apiErr.Code != "AUTHORITY_LOOP_FAILED" || !apiErr.Retryable || apiErr.RequestID != "req-1" {
		t.Fatalf("error %#v", err)
	}
	if len(s.seen) != 3 {
		t.Fatalf("%d attempts", len(s.seen))
	}
}

func TestTerminalStatusesAreNotRetried(t *testing.T) {
	for status, code := range map[int]string{400: "VALIDATION_ERROR", 401: "UNAUTHORIZED", 403: "FORBIDDEN", 404: "NOT_FOUND", 409: "CONFLICT"} {
		s := newScripted(t, reply(status, envelope(code)))
		_, err := submitTo(t, s.server.URL, Options{})
		var apiErr *APIError
		if !errors.As(err, &apiErr) || apiErr.Status != status || apiErr.Code != code || apiErr.Retryable || len(s.seen) != 1 {
			t.Fatalf("%d: %#v after %d attempts", status, err, len(s.seen))
		}
	}
}

func TestHonoursRetryAfter(t *testing.T) {
	s := newScripted(t,
		reply(429, envelope("RATE_LIMITED"), "retry-after", "1"),
		reply(202, intentAnswer("ESCALATED", map[string]any{"escalationId": "e"})),
	)
	started := time.Now()
	if _, err := submitTo(t, s.server.URL, Options{}); err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(started); waited < time.Second || len(s.seen) != 2 {
		t.Fatalf("waited %s over %d attempts", waited, len(s.seen))
	}
	long := newScripted(t, reply(429, envelope("RATE_LIMITED"), "retry-after", "3600"))
	_, err := submitTo(t, long.server.URL, Options{})
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.RetryAfter != time.Hour || len(long.seen) != 1 {
		t.Fatalf("a wait beyond MaxRetryAfter must come back at once: %#v", err)
	}
}

func TestNetworkErrorsHaveStatus0(t *testing.T) {
	s := newScripted(t)
	url := s.server.URL
	s.server.Close()
	_, err := submitTo(t, url, Options{MaxAttempts: 2})
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Status != 0 || apiErr.Code != "NETWORK_ERROR" || !apiErr.Retryable {
		t.Fatalf("%#v", err)
	}
}

func TestRedirectsAreNotFollowed(t *testing.T) {
	s := newScripted(t, reply(307, "", "location", "http://127.0.0.1:9/steal"))
	_, err := submitTo(t, s.server.URL, Options{})
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Status != 307 {
		t.Fatalf("%#v", err)
	}
}

func TestDecisionMapping(t *testing.T) {
	approved := intentAnswer("APPROVED", map[string]any{"authorityDecisionToken": "a.b.c"})
	s := newScripted(t,
		reply(403, intentAnswer("DENIED", nil)),
		reply(200, approved),
		reply(202, approved),
		reply(200, intentAnswer("APPROVED", nil)),
		reply(403, envelope("FORBIDDEN")),
	)
	denied, err := submitTo(t, s.server.URL, Options{})
	if err != nil || denied.Verdict != VerdictDeny || denied.Token != "" || *denied.RiskScore != 20 {
		t.Fatalf("a denial is a result: %+v %v", denied, err)
	}
	allowed, err := submitTo(t, s.server.URL, Options{})
	if err != nil || allowed.Verdict != VerdictAllow || allowed.Token != "a.b.c" {
		t.Fatalf("%+v %v", allowed, err)
	}
	for i := 0; i < 2; i++ { // APPROVED under 202, and APPROVED without a token, are refused
		var apiErr *APIError
		if _, err := submitTo(t, s.server.URL, Options{}); !errors.As(err, &apiErr) || apiErr.Code != "INVALID_RESPONSE" {
			t.Fatalf("%#v", err)
		}
	}
	var apiErr *APIError
	if _, err := submitTo(t, s.server.URL, Options{}); !errors.As(err, &apiErr) || apiErr.Code != "FORBIDDEN" {
		t.Fatalf("a 403 envelope is an error: %#v", err)
	}
}

func TestFetchTokenAndWaitForApproval(t *testing.T) {
	approved := intentAnswer("APPROVED", map[string]any{"authorityDecisionToken": "a.b.c"})
	s := newScripted(t,
		reply(503, envelope("SERVICE_UNAVAILABLE")),
		reply(200, approved),
		reply(200, map[string]any{"status": "ESCALATED"}),
		reply(200, map[string]any{"status": "APPROVED_AFTER_REVIEW"}),
	)
	client, _ := NewClient(s.server.URL+"/v1/", "acme", "k", Options{})
	decision, err := client.FetchToken(context.Background(), "i/1")
	if err != nil || decision.Token != "a.b.c" {
		t.Fatalf("%+v %v", decision, err)
	}
	if s.seen[0].URL.EscapedPath() != "/v1/intent/i%2F1/token" || s.seen[0].Header.Get("idempotency-key") == "" ||
		s.seen[0].Header.Get("idempotency-key") != s.seen[1].Header.Get("idempotency-key") {
		t.Fatalf("path %s, keys %q %q", s.seen[0].URL.EscapedPath(), s.seen[0].Header.Get("idempotency-key"), s.seen[1].Header.Get("idempotency-key"))
	}
	status, err := client.WaitForApproval(context.Background(), "i-1", 10*time.Second, 10*time.Millisecond)
	if err != nil || status != "APPROVED_AFTER_REVIEW" {
		t.Fatalf("%q %v", status, err)
	}
	pending := newScripted(t, reply(200, map[string]any{"status": "ESCALATED"}), reply(200, map[string]any{"status": "ESCALATED"}),
		reply(200, map[string]any{"status": "ESCALATED"}), reply(200, map[string]any{"status": "ESCALATED"}))
	client, _ = NewClient(pending.server.URL, "acme", "k", Options{})
	status, err = client.WaitForApproval(context.Background(), "i-1", 50*time.Millisecond, 20*time.Millisecond)
	if err != nil || status != "ESCALATED" {
		t.Fatalf("at the timeout: %q %v", status, err)
	}
}

func TestBackoffIsExponentialWithFullJitter(t *testing.T) {
	var got []string
	for attempt := 1; attempt <= 7; attempt++ {
		got = append(got, backoffDelay(attempt, 0.9999999).Round(100*time.Millisecond).String())
	}
	if strings.Join(got, " ") != "200ms 400ms 800ms 1.6s 3.2s 5s 5s" || backoffDelay(3, 0) != 0 {
		t.Fatalf("%v", got)
	}
	if wait, ok := retryAfter("Wed, 21 Oct 2015 07:28:00 GMT", time.Now()); !ok || wait != 0 {
		t.Fatal("a past date means no wait")
	}
	if _, ok := retryAfter("soon", time.Now()); ok {
		t.Fatal("unreadable")
	}
}

func TestNewClientRefusesBadSettings(t *testing.T) {
	for _, base := range []string{"", "ftp://x", "not a url"} {
		if _, err := NewClient(base, "acme", "k", Options{}); !errors.Is(err, ErrInvalidArgument) {
			t.Fatalf("%q: %v", base, err)
		}
	}
	if _, err := NewClient("http://x", "", "k", Options{}); !errors.Is(err, ErrInvalidArgument) {
		t.Fatal(err)
	}
	for _, pair := range [][2]string{{"demo\n", "k"}, {"demo", "key with space"}, {"démo", "k"}, {"demo", "k\r\nx-evil: 1"}} {
		if _, err := NewClient("http://x", pair[0], pair[1], Options{}); !errors.Is(err, ErrInvalidArgument) {
			t.Fatalf("%q: %v", pair, err)
		}
	}
}

func TestArgumentErrorsAreNeitherSentNorRetried(t *testing.T) {
	s := newScripted(t)
	client, err := NewClient(s.server.URL, "acme", "k", Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	calls := map[string]func() error{
		"a path without its leading slash": func() error { _, err := client.Do(ctx, http.MethodGet, "intent", nil); return err },
		"a method that is not a token":     func() error { _, err := client.Do(ctx, "GE T", "/intent", nil); return err },
		"GetIntent with no id":             func() error { _, err := client.GetIntent(ctx, ""); return err },
		"FetchToken with no id":            func() error { _, err := client.FetchToken(ctx, ""); return err },
		"GetReceipt with no id":            func() error { _, err := client.GetReceipt(ctx, ""); return err },
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, ErrInvalidArgument) {
			t.Fatalf("%s: %v, want ErrInvalidArgument", name, err)
		}
	}
	// WaitForApproval reports the argument error instead of waiting it out as ESCALATED.
	if status, err := client.WaitForApproval(ctx, "", time.Second, 0); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("WaitForApproval: %q, %v", status, err)
	}
	if len(s.seen) != 0 {
		t.Fatalf("%d requests sent", len(s.seen))
	}
}

func TestLogKeyReadsTheTextAndRefusesAnythingElse(t *testing.T) {
	key := acmeLog.verifierKey()
	text := func(status int, body string) func(http.ResponseWriter, *http.Request) {
		return func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("authorization") != "" || r.Header.Get("accept") != "text/plain" {
				t.Errorf("the log key is public and text: authorization %q, accept %q", r.Header.Get("authorization"), r.Header.Get("accept"))
			}
			w.Header().Set("content-type", "text/plain; charset=utf-8")
			w.WriteHeader(status)
			_, _ = io.WriteString(w, body)
		}
	}
	server := newScripted(t,
		text(200, key+"\n"),
		text(200, "not a key\n"),
		text(200, noteKeyFor("witness.example", "w").verifierKey()[:10]+"\n"),
		reply(404, envelope("NOT_FOUND")),
	)
	client, err := NewClient(server.server.URL, "acme", "service_live_x", Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := client.LogKey(context.Background())
	if err != nil || got != key {
		t.Fatalf("LogKey = %q, %v; want %q", got, err, key)
	}
	if !strings.HasSuffix(server.seen[0].URL.Path, "/.well-known/authority/acme/log-key") {
		t.Fatalf("path %s", server.seen[0].URL.Path)
	}
	for _, want := range []string{"INVALID_RESPONSE", "INVALID_RESPONSE", "NOT_FOUND"} {
		_, err := client.LogKey(context.Background())
		var apiErr *APIError
		if !errors.As(err, &apiErr) || apiErr.Code != want {
			t.Fatalf("LogKey error = %v, want %s", err, want)
		}
	}
}

// empty answers a status without a body, as a 204 No Content does.
func empty(status int) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(status) }
}

func TestAnErrorAnswerWithoutTheEnvelopeIsInvalidResponseWithItsStatus(t *testing.T) {
	page := func(status int) func(http.ResponseWriter, *http.Request) {
		return func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("content-type", "text/html")
			w.WriteHeader(status)
			_, _ = w.Write([]byte("<html>not here</html>"))
		}
	}
	s := newScripted(t, page(404), page(302), reply(409, []any{}))
	client, _ := NewClient(s.server.URL, "acme", "k", Options{})
	for _, status := range []int{404, 302, 409} {
		var apiErr *APIError
		_, err := client.GetIntent(context.Background(), "i-1")
		if !errors.As(err, &apiErr) || apiErr.Code != "INVALID_RESPONSE" || apiErr.Status != status || apiErr.Retryable {
			t.Fatalf("status %d: %#v", status, err)
		}
	}
	if len(s.seen) != 3 {
		t.Fatalf("%d requests, want 3 (none retried)", len(s.seen))
	}
}

func TestDoSucceedsWithoutAValueOnAnEmpty2xx(t *testing.T) {
	s := newScripted(t,
		empty(204),
		empty(200),
		reply(200, "null"),
		reply(200, map[string]any{"deleted": true}),
		reply(200, "<html>not JSON</html>"),
		empty(204),
		empty(200),
	)
	client, _ := NewClient(s.server.URL, "acme", "k", Options{})
	ctx := context.Background()
	for _, route := range []string{"/keys/k-1", "/webhooks/w-1", "/connectors/c-1"} {
		value, err := client.Do(ctx, http.MethodDelete, route, nil)
		if err != nil || value != nil {
			t.Fatalf("DELETE %s: %#v, %v; want no value and no error", route, value, err)
		}
	}
	if value, err := client.Do(ctx, http.MethodGet, "/x", nil); err != nil || value.(map[string]any)["deleted"] != true {
		t.Fatalf("a JSON answer is parsed: %#v, %v", value, err)
	}
	var apiErr *APIError
	if _, err := client.Do(ctx, http.MethodGet, "/x", nil); !errors.As(err, &apiErr) || apiErr.Code != "INVALID_RESPONSE" || apiErr.Status != 200 {
		t.Fatalf("a 2xx body that is not JSON: %#v", err)
	}
	// The typed calls still need their documented body.
	if _, err := client.GetIntent(ctx, "i-1"); !errors.As(err, &apiErr) || apiErr.Code != "INVALID_RESPONSE" || apiErr.Status != 204 {
		t.Fatalf("GetIntent on a 204: %#v", err)
	}
	if _, err := client.FetchToken(ctx, "i-1"); !errors.As(err, &apiErr) || apiErr.Code != "INVALID_RESPONSE" || apiErr.Status != 200 {
		t.Fatalf("FetchToken on an empty 200: %#v", err)
	}
	if len(s.seen) != 7 || s.seen[0].Method != http.MethodDelete || s.seen[0].URL.Path != "/keys/k-1" {
		t.Fatalf("%d requests", len(s.seen))
	}
}

// trickle sends the headers and the start of a JSON body at once, then one byte every 20 ms until
// the client goes away (at most 5 s).
func trickle(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("content-type", "application/json")
	w.WriteHeader(200)
	_, _ = io.WriteString(w, `{"padding":"`)
	w.(http.Flusher).Flush()
	give := time.After(5 * time.Second)
	for {
		select {
		case <-r.Context().Done():
			return
		case <-give:
			return
		case <-time.After(20 * time.Millisecond):
			if _, err := io.WriteString(w, "x"); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
	}
}

func TestTimeoutWhileReadingTheBodyIsTIMEOUT(t *testing.T) {
	s := newScripted(t, trickle, trickle)
	client, _ := NewClient(s.server.URL, "acme", "k", Options{Timeout: 300 * time.Millisecond, MaxAttempts: 2})
	started := time.Now()
	_, err := client.Do(context.Background(), http.MethodGet, "/slow", nil)
	elapsed := time.Since(started)
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Code != "TIMEOUT" || apiErr.Status != 0 || !apiErr.Retryable ||
		apiErr.Message != "no complete answer within 300ms" {
		t.Fatalf("a body that does not arrive within the timeout: %#v", err)
	}
	if len(s.seen) != 2 || elapsed > 3*time.Second {
		t.Fatalf("%d attempts in %s; want 2 attempts of 300 ms", len(s.seen), elapsed)
	}
	silent := newScripted(t, func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	client, _ = NewClient(silent.server.URL, "acme", "k", Options{Timeout: 300 * time.Millisecond, MaxAttempts: 1})
	_, err = client.Do(context.Background(), http.MethodGet, "/slow", nil)
	if !errors.As(err, &apiErr) || apiErr.Code != "TIMEOUT" || apiErr.Status != 0 || apiErr.Message != "no answer within 300ms" {
		t.Fatalf("no headers within the timeout: %#v", err)
	}
}

func TestCallersDeadlineIsTIMEOUTAndCancellationIsNot(t *testing.T) {
	s := newScripted(t, trickle, trickle, trickle)
	client, _ := NewClient(s.server.URL, "acme", "k", Options{Timeout: 10 * time.Second})
	var apiErr *APIError

	// The caller's deadline passes while the body trickles: a timeout, not retried.
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := client.Do(ctx, http.MethodGet, "/slow", nil); !errors.As(err, &apiErr) || apiErr.Code != "TIMEOUT" || apiErr.Status != 0 ||
		apiErr.Message != "no complete answer before the context's deadline" {
		t.Fatalf("the caller's deadline: %#v", err)
	}

	// The caller cancels while the body trickles: ABORTED saying so, not retryable nor retried.
	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	_, err := client.Do(ctx, http.MethodGet, "/slow", nil)
	if !errors.As(err, &apiErr) || apiErr.Code != "ABORTED" || apiErr.Retryable || apiErr.Status != 0 || !strings.Contains(apiErr.Message, "context canceled") {
		t.Fatalf("the caller's cancellation while reading: %#v", err)
	}

	// The caller cancels before the answer's headers: the same.
	waiting := make(chan struct{})
	headersLater := func(w http.ResponseWriter, r *http.Request) {
		close(waiting)
		<-r.Context().Done()
	}
	s.mu.Lock()
	s.steps = []func(http.ResponseWriter, *http.Request){headersLater}
	s.mu.Unlock()
	ctx, cancel = context.WithCancel(context.Background())
	go func() { <-waiting; cancel() }()
	_, err = client.Do(ctx, http.MethodGet, "/slow", nil)
	if !errors.As(err, &apiErr) || apiErr.Code != "ABORTED" || apiErr.Retryable || apiErr.Status != 0 || !strings.Contains(apiErr.Message, "context canceled") {
		t.Fatalf("the caller's cancellation before the headers: %#v", err)
	}
	if len(s.seen) != 3 {
		t.Fatalf("%d attempts; a caller's deadline or cancellation is not retried", len(s.seen))
	}
}

func TestFetchTokenWithKeyReplaysAfterLostAnswers(t *testing.T) {
	approved := intentAnswer("APPROVED", map[string]any{"authorityDecisionToken": "a.b.c"})
	s := newScripted(t,
		reply(502, "<html>bad gateway</html>"),
		reply(504, "<html>gateway timeout</html>"),
		reply(200, approved),
		reply(200, approved),
	)
	client, _ := NewClient(s.server.URL, "acme", "k", Options{MaxAttempts: 2})
	ctx := context.Background()
	if _, err := client.FetchTokenWithKey(ctx, "i-1", "token-i-1"); err == nil {
		t.Fatal("every attempt lost its answer")
	}
	decision, err := client.FetchTokenWithKey(ctx, "i-1", "token-i-1")
	if err != nil || decision.Verdict != VerdictAllow || decision.Token != "a.b.c" {
		t.Fatalf("the second call with the same key: %+v %v", decision, err)
	}
	for i, r := range s.seen[:3] {
		if got := r.Header.Get("idempotency-key"); got != "token-i-1" || r.URL.Path != "/intent/i-1/token" || r.Method != http.MethodPost {
			t.Fatalf("request %d: %s %s with key %q", i, r.Method, r.URL.Path, got)
		}
	}
	if _, err := client.FetchTokenWithKey(ctx, "i-1", ""); err != nil {
		t.Fatal(err)
	}
	if generated := s.seen[3].Header.Get("idempotency-key"); len(generated) != 36 || generated == "token-i-1" {
		t.Fatalf("an empty key is a random one, not %q", generated)
	}
}

func TestTimeoutHoldsWithTheCallersHTTPClient(t *testing.T) {
	s := newScripted(t, trickle)
	// A client of the caller's own without any timeout: the attempt still ends at Options.Timeout.
	client, _ := NewClient(s.server.URL, "acme", "k", Options{Timeout: 300 * time.Millisecond, MaxAttempts: 1, HTTPClient: &http.Client{}})
	started := time.Now()
	_, err := client.Do(context.Background(), http.MethodGet, "/slow", nil)
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Code != "TIMEOUT" || apiErr.Message != "no complete answer within 300ms" {
		t.Fatalf("the caller's http.Client: %#v", err)
	}
	if elapsed := time.Since(started); elapsed > 3*time.Second {
		t.Fatalf("the attempt took %s; want about 300 ms", elapsed)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a TIMEOUT unwraps to the deadline: %v", err)
	}
}

func TestNetworkErrorUnwrapsToItsCause(t *testing.T) {
	s := newScripted(t)
	base := s.server.URL
	s.server.Close()
	client, _ := NewClient(base, "acme", "k", Options{MaxAttempts: 1})
	_, err := client.Do(context.Background(), http.MethodGet, "/health", nil)
	var apiErr *APIError
	var opErr *net.OpError
	if !errors.As(err, &apiErr) || apiErr.Code != "NETWORK_ERROR" || !errors.As(err, &opErr) {
		t.Fatalf("a refused connection: %#v", err)
	}
	if (&APIError{Status: 400, Code: "VALIDATION_ERROR"}).Unwrap() != nil {
		t.Fatal("an answer from the service has no transport cause")
	}
}

func TestMalformedIdempotencyKeyIsRefusedBeforeAnyRequest(t *testing.T) {
	s := newScripted(t)
	client, _ := NewClient(s.server.URL, "acme", "k", Options{})
	for _, key := range []string{"has space", "line\nbreak", "caf\u00e9", strings.Repeat("k", 256)} {
		if _, err := client.FetchTokenWithKey(context.Background(), "i-1", key); !errors.Is(err, ErrInvalidArgument) {
			t.Fatalf("FetchTokenWithKey(%q): %v", key, err)
		}
		request := IntentRequest{IdempotencyKey: key}
		if _, err := client.SubmitIntent(context.Background(), request); !errors.Is(err, ErrInvalidArgument) {
			t.Fatalf("SubmitIntent with key %q: %v", key, err)
		}
	}
	if len(s.seen) != 0 {
		t.Fatalf("%d requests sent with a key the service refuses", len(s.seen))
	}
}

func TestWaitForApprovalAnswersEscalatedAtItsTimeoutWhileTheServiceHangs(t *testing.T) {
	hang := func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() }
	s := newScripted(t, hang, hang, hang, hang)
	client, _ := NewClient(s.server.URL, "acme", "k", Options{Timeout: time.Second, MaxAttempts: 4})
	started := time.Now()
	status, err := client.WaitForApproval(context.Background(), "i-1", 300*time.Millisecond, 50*time.Millisecond)
	if err != nil || status != "ESCALATED" {
		t.Fatalf("at the timeout: %q %v", status, err)
	}
	if took := time.Since(started); took > 2*time.Second {
		t.Fatalf("answered after %s, not at the 300 ms timeout", took)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	blocked := newScripted(t, hang)
	client, _ = NewClient(blocked.server.URL, "acme", "k", Options{Timeout: time.Second, MaxAttempts: 1})
	if _, err := client.WaitForApproval(ctx, "i-1", 10*time.Second, 50*time.Millisecond); err == nil {
		t.Fatal("the caller's cancellation is an error, not ESCALATED")
	}
}

func TestWaitForApprovalWaitsOutAnOutageUntilItsTimeout(t *testing.T) {
	unavailable := reply(503, envelope("SERVICE_UNAVAILABLE"))
	s := newScripted(t, unavailable, unavailable, unavailable, reply(200, map[string]any{"status": "APPROVED_AFTER_REVIEW"}))
	client, _ := NewClient(s.server.URL, "acme", "k", Options{MaxAttempts: 2})
	status, err := client.WaitForApproval(context.Background(), "i-1", 30*time.Second, 20*time.Millisecond)
	if err != nil || status != "APPROVED_AFTER_REVIEW" || len(s.seen) != 4 {
		t.Fatalf("two reads of two attempts failed, the wait polled on: %q %v after %d requests", status, err, len(s.seen))
	}
	outage := make([]func(http.ResponseWriter, *http.Request), 200)
	for i := range outage {
		outage[i] = unavailable
	}
	down := newScripted(t, outage...)
	client, _ = NewClient(down.server.URL, "acme", "k", Options{MaxAttempts: 1})
	started := time.Now()
	status, err = client.WaitForApproval(context.Background(), "i-1", 300*time.Millisecond, 20*time.Millisecond)
	if err != nil || status != "ESCALATED" || time.Since(started) < 300*time.Millisecond {
		t.Fatalf("an outage past the timeout ends the wait with ESCALATED at the timeout: %q %v", status, err)
	}
	missing := newScripted(t, reply(404, envelope("NOT_FOUND")))
	client, _ = NewClient(missing.server.URL, "acme", "k", Options{})
	var apiErr *APIError
	if _, err := client.WaitForApproval(context.Background(), "i-1", 30*time.Second, 20*time.Millisecond); !errors.As(err, &apiErr) || apiErr.Status != 404 {
		t.Fatalf("a refusal ends the wait: %v", err)
	}
}

func TestServiceURLKeepsOneV1(t *testing.T) {
	cases := [][3]string{
		{"https://authority.example.com/v1/", "/intent/abc", "https://authority.example.com/v1/intent/abc"},
		{"https://authority.example.com/v1", "/v1/physical/classify", "https://authority.example.com/v1/physical/classify"},
		{"https://authority.example.com/v1/", "/v1/physical/classify", "https://authority.example.com/v1/physical/classify"},
		{"https://authority.example.com", "/v1/physical/classify", "https://authority.example.com/v1/physical/classify"},
		{"https://authority.example.com/", "/intent/abc", "https://authority.example.com/intent/abc"},
		{"https://authority.example.com/v1", "/v10/x", "https://authority.example.com/v1/v10/x"},
	}
	for _, c := range cases {
		got, err := serviceURL(c[0], c[1])
		if err != nil || got != c[2] {
			t.Errorf("serviceURL(%q, %q) = %q, %v; want %q", c[0], c[1], got, err, c[2])
		}
	}
}

// An approval or a new key after a lost answer or a 5xx may already have happened: repeating it
// would answer 409 for an approval that took effect, or make a second key.
func TestCallsThatWouldActTwiceAreRepeatedOnlyWhenNotProcessed(t *testing.T) {
	for _, failure := range []func(http.ResponseWriter, *http.Request){
		hangUp, reply(503, envelope("SERVICE_UNAVAILABLE")), reply(500, envelope("INTERNAL")),
	} {
		s := newScripted(t, failure, failure, failure)
		client, err := NewClient(s.server.URL, "acme", "service_live_x", Options{})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		_, approveErr := client.DecideApproval(ctx, "i-1", "approve", "reviewed the diff")
		_, keyErr := client.CreateAPIKey(ctx, "ci", "auditor")
		_, doErr := client.Do(ctx, http.MethodPost, "/webhooks", map[string]any{"url": "https://x.example"})
		var apiErr *APIError
		for _, got := range []error{approveErr, keyErr, doErr} {
			if !errors.As(got, &apiErr) || !apiErr.Retryable {
				t.Fatalf("%#v", got)
			}
		}
		if len(s.seen) != 3 {
			t.Fatalf("%d requests for 3 calls", len(s.seen))
		}
	}
	limited := reply(429, envelope("rate_limited"), "retry-after", "0")
	s := newScripted(t, limited, reply(200, map[string]any{"status": "APPROVED_AFTER_REVIEW"}))
	client, err := NewClient(s.server.URL, "acme", "service_live_x", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.DecideApproval(context.Background(), "i-1", "approve", "ok"); err != nil || len(s.seen) != 2 {
		t.Fatalf("%v after %d requests: a 429 proves the call was not processed", err, len(s.seen))
	}
}

func TestARefusedConnectionIsRetriedForAnyCall(t *testing.T) {
	s := newScripted(t)
	url := s.server.URL
	s.server.Close()
	client, err := NewClient(url, "acme", "service_live_x", Options{MaxAttempts: 3})
	if err != nil {
		t.Fatal(err)
	}
	waits := 0
	client.t.sleep = func(context.Context, time.Duration) error {
		waits++
		return nil
	}
	_, err = client.DecideApproval(context.Background(), "i-1", "approve", "ok")
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Code != "NETWORK_ERROR" || waits != 2 {
		t.Fatalf("%#v after %d waits; want three attempts", err, waits)
	}
}
