package authority

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// The approve-then-act loop against a real `authority serve` named by AUTHORITY_URL,
// AUTHORITY_TENANT and AUTHORITY_API_KEY (an admin key; scripts/sdk-live-tests.sh starts one).
// Without them these tests fail: they never skip.

type liveService struct {
	url, tenant, apiKey string
}

func live(t *testing.T) liveService {
	t.Helper()
	var missing []string
	for _, name := range []string{"AUTHORITY_URL", "AUTHORITY_TENANT", "AUTHORITY_API_KEY"} {
		if os.Getenv(name) == "" {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		t.Fatalf("the live tests need %s: run scripts/sdk-live-tests.sh, or point them at a running `authority serve`", strings.Join(missing, ", "))
	}
	return liveService{os.Getenv("AUTHORITY_URL"), os.Getenv("AUTHORITY_TENANT"), os.Getenv("AUTHORITY_API_KEY")}
}

func (s liveService) client(t *testing.T, apiKey string) *Client {
	t.Helper()
	if apiKey == "" {
		apiKey = s.apiKey
	}
	client, err := NewClient(s.url, s.tenant, apiKey, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return client
}

// logKey is the tenant's log verifier key, read through the client as a user would.
func (s liveService) logKey(t *testing.T) string {
	t.Helper()
	key, err := s.client(t, s.apiKey).LogKey(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return key
}

func (s liveService) verify(t *testing.T, token, target string, store NonceStore) VerificationResult {
	t.Helper()
	if store == nil {
		remote, err := NewRemoteNonceStore(s.url, s.tenant, s.apiKey)
		if err != nil {
			t.Fatal(err)
		}
		store = remote
	}
	jwks := NewRemoteJWKS(strings.TrimRight(s.url, "/") + "/.well-known/authority/" + s.tenant + "/jwks.json")
	result, err := VerifyAuthorityToken(token, jwks, Expected{TenantID: s.tenant, AdapterID: "external", TargetSystem: target, NonceStore: store}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return result
}

func (s liveService) approverKey(t *testing.T) string {
	t.Helper()
	created, err := s.client(t, "").CreateAPIKey(context.Background(), "approver-"+randomHex(4), "approver")
	if err != nil {
		t.Fatal(err)
	}
	return created["key"].(string)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func uniqueTarget() string { return "sdk-go/live-" + randomHex(6) }

func read(target, actor string) IntentRequest {
	return IntentRequest{
		Actor: Actor{ID: actor, Type: "agent"}, TargetSystem: target,
		ProposedAction: "list pull requests", RiskContext: RiskContext{BaseRiskScore: 10},
	}
}

func TestLiveApprovedTokenVerifiesAndExecutesOnce(t *testing.T) {
	s := live(t)
	target := uniqueTarget()
	decision, err := s.client(t, "").SubmitIntent(context.Background(), read(target, "reader-bot"))
	if err != nil {
		t.Fatal(err)
	}
	if decision.Verdict != VerdictAllow || !strings.HasPrefix(decision.Reason, "starter/allow-reads") {
		t.Fatalf("%+v", decision)
	}
	store, _ := NewRemoteNonceStore(s.url, s.tenant, s.apiKey)
	first := s.verify(t, decision.Token, target, store)
	if !first.Valid || first.Claims.IntentID != decision.IntentID || first.Claims.ProposedAction != "list pull requests" {
		t.Fatalf("%+v", first)
	}
	if replay := s.verify(t, decision.Token, target, store); replay.Reason != ReasonNonceAlreadyConsumed {
		t.Fatalf("replay: %q", replay.Reason)
	}
	if other := s.verify(t, decision.Token, "sdk-go/elsewhere", nil); other.Reason != ReasonTokenTargetMismatch {
		t.Fatalf("%q", other.Reason)
	}
}

func TestLiveEscalationApprovedByAnotherKeyThenTheToken(t *testing.T) {
	s := live(t)
	ctx := context.Background()
	client, approver := s.client(t, ""), s.client(t, s.approverKey(t))
	target := uniqueTarget()
	decision, err := client.SubmitIntent(ctx, IntentRequest{
		Actor: Actor{ID: "release-bot", Type: "agent"}, TargetSystem: target,
		ProposedAction: "merge pull request #7", RiskContext: RiskContext{BaseRiskScore: 20},
		Args: map[string]any{"pullNumber": 7},
	})
	if err != nil || decision.Verdict != VerdictEscalate || decision.EscalationID == "" || decision.Token != "" {
		t.Fatalf("%+v %v", decision, err)
	}
	_, err = client.DecideApproval(ctx, decision.IntentID, "approve", "approving my own intent")
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Status != 403 || apiErr.Details["reason"] != "separation_of_duties" {
		t.Fatalf("the requester cannot approve: %#v", err)
	}
	if status, _ := client.WaitForApproval(ctx, decision.IntentID, 300*time.Millisecond, 100*time.Millisecond); status != "ESCALATED" {
		t.Fatalf("still pending: %q", status)
	}
	approval, err := approver.DecideApproval(ctx, decision.IntentID, "approve", "reviewed by the Go live test")
	if err != nil || approval["status"] != "approved" {
		t.Fatalf("%v %v", approval, err)
	}
	if status, err := client.WaitForApproval(ctx, decision.IntentID, 30*time.Second, 200*time.Millisecond); err != nil || status != "APPROVED_AFTER_REVIEW" {
		t.Fatalf("%q %v", status, err)
	}
	key := "token-" + decision.IntentID
	granted, err := client.FetchTokenWithKey(ctx, decision.IntentID, key)
	if err != nil || granted.Verdict != VerdictAllow {
		t.Fatalf("%+v %v", granted, err)
	}
	// The answer was lost, say: the same key replays the same token; FetchToken's new key is 409.
	if replayed, err := client.FetchTokenWithKey(ctx, decision.IntentID, key); err != nil || replayed.Token != granted.Token {
		t.Fatalf("the same key replays the token: %+v %v", replayed, err)
	}
	if _, err := client.FetchToken(ctx, decision.IntentID); !errors.As(err, &apiErr) || apiErr.Status != 409 || apiErr.Code != "CONFLICT" {
		t.Fatalf("another key after the token was minted: %#v", err)
	}
	result := s.verify(t, granted.Token, target, nil)
	if !result.Valid || result.Claims.ProposedAction != "merge pull request #7" {
		t.Fatalf("%+v", result)
	}
	current, err := client.JWKS(ctx)
	if err != nil {
		t.Fatal(err)
	}
	archive, err := client.JWKSArchive(ctx)
	if err != nil {
		t.Fatal(err)
	}
	receipt, err := client.GetReceipt(ctx, decision.IntentID)
	if err != nil {
		t.Fatal(err)
	}
	pinned := JWKS{Keys: append(current.Keys, archive.Keys...)}
	verified, err := VerifyReceipt(receipt, pinned, ReceiptOptions{ExpectedTenantID: s.tenant, LogKey: s.logKey(t)})
	if err != nil || !verified.Valid || verified.TokenClaims.Nonce != result.Claims.Nonce {
		t.Fatalf("receipt: %+v %v", verified, err)
	}
	if verified.Receipt["receiptVersion"] != float64(2) {
		t.Fatalf("the service issues version-2 receipts, not %v", verified.Receipt["receiptVersion"])
	}
	if missing, err := VerifyReceipt(receipt, pinned, ReceiptOptions{ExpectedTenantID: s.tenant}); err != nil || missing.Reason != ReasonLogKeyMissing {
		t.Fatalf("without the log key: %+v %v", missing, err)
	}
}

func TestLiveDoDeletesWith204(t *testing.T) {
	s := live(t)
	ctx := context.Background()
	created, err := s.client(t, "").CreateAPIKey(ctx, "revoked-"+randomHex(4), "agent")
	if err != nil {
		t.Fatal(err)
	}
	id, _ := created["id"].(string)
	value, err := s.client(t, "").Do(ctx, http.MethodDelete, "/keys/"+id, nil)
	if err != nil || value != nil {
		t.Fatalf("DELETE /keys/%s: %#v, %v; want no value and no error", id, value, err)
	}
	_, err = s.client(t, created["key"].(string)).GetIntent(ctx, "0190f5c2-1111-7000-8000-000000000001")
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Status != 401 {
		t.Fatalf("the revoked key: %#v", err)
	}
}

func TestLiveDenialIsAResult(t *testing.T) {
	s := live(t)
	request := read(uniqueTarget(), "reader-bot")
	request.RiskContext.TouchesProduction = true
	decision, err := s.client(t, "").SubmitIntent(context.Background(), request)
	if err != nil || decision.Verdict != VerdictDeny || decision.Token != "" || decision.Reason == "" {
		t.Fatalf("%+v %v", decision, err)
	}
	if decision.Response["authorityDecision"].(map[string]any)["decision"] != "DENIED" {
		t.Fatal("the response is the service's")
	}
}

func TestLiveBadInputIsAnErrorWithTheEnvelope(t *testing.T) {
	s := live(t)
	_, err := s.client(t, "").SubmitIntent(context.Background(), read("not a repo", "a"))
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Status != 400 || apiErr.Code != "VALIDATION_ERROR" || apiErr.RequestID == "" || apiErr.Retryable {
		t.Fatalf("%#v", err)
	}
}

// TestLiveRetriesMakeOneDecision puts a proxy between the client and the service: it answers 503
// twice, forwards the third attempt but loses the answer (502), then forwards normally.
func TestLiveRetriesMakeOneDecision(t *testing.T) {
	s := live(t)
	var mu sync.Mutex
	var keys []string
	var lost []byte
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		keys = append(keys, r.Header.Get("idempotency-key"))
		attempt := len(keys)
		mu.Unlock()
		if attempt <= 2 {
			reply(503, envelope("SERVICE_UNAVAILABLE"))(w, r)
			return
		}
		forward, _ := http.NewRequest(r.Method, strings.TrimRight(s.url, "/")+r.URL.RequestURI(), bytes.NewReader(body))
		forward.Header = r.Header.Clone()
		answer, err := http.DefaultClient.Do(forward)
		if err != nil {
			reply(502, "upstream down")(w, r)
			return
		}
		raw, _ := io.ReadAll(answer.Body)
		answer.Body.Close()
		if attempt == 3 {
			mu.Lock()
			lost = raw
			mu.Unlock()
			reply(502, "<html>bad gateway</html>")(w, r)
			return
		}
		w.Header().Set("content-type", "application/json")
		w.WriteHeader(answer.StatusCode)
		_, _ = w.Write(raw)
	}))
	defer proxy.Close()
	client, _ := NewClient(proxy.URL, s.tenant, s.apiKey, Options{MaxAttempts: 4})
	actor := "retry-bot-" + randomHex(4)
	decision, err := client.SubmitIntent(context.Background(), read(uniqueTarget(), actor))
	if err != nil || decision.Verdict != VerdictAllow {
		t.Fatalf("%+v %v", decision, err)
	}
	if len(keys) != 4 || keys[0] != keys[3] || keys[0] == "" {
		t.Fatalf("attempts %v", keys)
	}
	lostDecision, _ := parseJSON(lost)
	if lostDecision.(map[string]any)["intentId"] != decision.IntentID {
		t.Fatal("the retry must replay the lost decision")
	}
	listed, err := s.client(t, "").Do(context.Background(), http.MethodGet, "/intents?actorId="+actor, nil)
	if err != nil {
		t.Fatal(err)
	}
	intents := listed.(map[string]any)["intents"].([]any)
	if len(intents) != 1 || intents[0].(map[string]any)["intentId"] != decision.IntentID {
		t.Fatalf("one decision, not %d", len(intents))
	}
}

// buildExample compiles one of the README's example programs.
func buildExample(t *testing.T, name string) string {
	t.Helper()
	binary := filepath.Join(t.TempDir(), name)
	if out, err := exec.Command("go", "build", "-o", binary, "./examples/"+name).CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return binary
}

// runAgent starts an agent program, approves its escalation with an approver key, and returns the
// token it prints.
func runAgent(t *testing.T, s liveService, agent *exec.Cmd) string {
	t.Helper()
	stderr, _ := agent.StderrPipe()
	var stdout bytes.Buffer
	agent.Stdout = &stdout
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(stderr).ReadString('\n')
	match := regexp.MustCompile(`^ESCALATED intent (\S+): waiting for a human`).FindStringSubmatch(line)
	if match == nil {
		_ = agent.Process.Kill()
		_ = agent.Wait()
		t.Fatalf("agent said %q", line)
	}
	if _, err := s.client(t, s.approverKey(t)).DecideApproval(context.Background(), match[1], "approve", "the README example may merge"); err != nil {
		_ = agent.Process.Kill()
		t.Fatal(err)
	}
	if err := agent.Wait(); err != nil {
		t.Fatalf("agent: %v", err)
	}
	token := strings.TrimSpace(stdout.String())
	if len(strings.Split(token, ".")) != 3 {
		t.Fatalf("agent printed %q", token)
	}
	return token
}

func runExecutor(t *testing.T, binary string, env []string, token string) (string, int) {
	t.Helper()
	executor := exec.Command(binary)
	executor.Env, executor.Stdin = env, strings.NewReader(token+"\n")
	out, err := executor.Output()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out)), executor.ProcessState.ExitCode()
}

func TestLiveReadmeExamples(t *testing.T) {
	s := live(t)
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"agent", "executor"} {
		source, err := os.ReadFile(filepath.Join("examples", name, "main.go"))
		if err != nil || !strings.Contains(string(readme), "```go\n"+string(source)+"```") {
			t.Fatalf("README.md must show examples/%s/main.go verbatim", name)
		}
	}
	target := uniqueTarget()
	env := append(os.Environ(), "AUTHORITY_TARGET_SYSTEM="+target)
	agent := exec.Command(buildExample(t, "agent"))
	agent.Env = env
	token := runAgent(t, s, agent)
	executor := buildExample(t, "executor")
	if out, code := runExecutor(t, executor, env, token); code != 0 || out != "VALID merge pull request #42 on "+target {
		t.Fatalf("%d %q", code, out)
	}
	if out, code := runExecutor(t, executor, env, token); code != 1 || out != "REFUSED NONCE_ALREADY_CONSUMED" {
		t.Fatalf("replay: %d %q", code, out)
	}
}

// TestLivePythonAgentGoExecutor is the loop across languages: the Python SDK's agent example asks
// and waits, a human approves, and the Go executor checks the token before acting.
func TestLivePythonAgentGoExecutor(t *testing.T) {
	s := live(t)
	python := os.Getenv("SDK_PYTHON")
	if python == "" {
		python = "/usr/bin/python3"
	}
	target := uniqueTarget()
	env := append(os.Environ(), "AUTHORITY_TARGET_SYSTEM="+target, "PYTHONPATH="+filepath.Join("..", "python", "src"))
	agent := exec.Command(python, filepath.Join("..", "python", "examples", "agent_loop.py"))
	agent.Env = env
	token := runAgent(t, s, agent)
	if out, code := runExecutor(t, buildExample(t, "executor"), env, token); code != 0 || out != "VALID merge pull request #42 on "+target {
		t.Fatalf("%d %q", code, out)
	}
}
