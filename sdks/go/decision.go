package authority

import "fmt"

// Verdict is the document's Python-SDK form of a decision: APPROVED is ALLOW, ESCALATED is
// ESCALATE, DENIED is DENY.
type Verdict string

// The three verdicts.
const (
	VerdictAllow    Verdict = "ALLOW"
	VerdictEscalate Verdict = "ESCALATE"
	VerdictDeny     Verdict = "DENY"
)

// Decision is the service's decision on an intent. A denial is a Decision, not an error.
type Decision struct {
	// Verdict is ALLOW (Token set), ESCALATE (EscalationID set: a human must approve) or DENY.
	Verdict Verdict
	// Reason is the deciding rule's id and the first rationale line.
	Reason string
	// IntentID identifies the intent (GetIntent, WaitForApproval, FetchToken, GetReceipt).
	IntentID string
	// EscalationID is set when Verdict is ESCALATE.
	EscalationID string
	// Token is the Authority Decision Token, only ever from a 200 APPROVED answer.
	Token string
	// RiskScore is the score the service computed (contract §4.3), nil when absent.
	RiskScore *float64
	// Response is the whole response body, parsed.
	Response map[string]any
}

var verdicts = map[string]struct {
	verdict Verdict
	status  int
}{
	"APPROVED":  {VerdictAllow, 200},
	"ESCALATED": {VerdictEscalate, 202},
	"DENIED":    {VerdictDeny, 403},
}

func invalidResponse(status int, requestID, format string, args ...any) *APIError {
	return &APIError{Status: status, Code: "INVALID_RESPONSE", Message: fmt.Sprintf(format, args...), RequestID: requestID}
}

// decisionFrom reads an intent response (POST /intent or POST /intent/:id/token); an answer that
// is not the documented shape, or whose decision does not go with its status, is INVALID_RESPONSE.
func decisionFrom(answer *response) (*Decision, error) {
	body, _ := answer.parsed.(map[string]any)
	outcome, _ := body["authorityDecision"].(map[string]any)
	intentID, _ := body["intentId"].(string)
	if outcome == nil || intentID == "" {
		return nil, invalidResponse(answer.status, answer.requestID, "the answer is not an intent response")
	}
	name, _ := outcome["decision"].(string)
	mapped, known := verdicts[name]
	if !known || mapped.status != answer.status {
		return nil, invalidResponse(answer.status, answer.requestID, "decision %q does not go with HTTP %d", name, answer.status)
	}
	decision := &Decision{Verdict: mapped.verdict, IntentID: intentID, Response: body}
	if mapped.verdict == VerdictAllow {
		token, _ := body["authorityDecisionToken"].(string)
		if token == "" {
			return nil, invalidResponse(answer.status, answer.requestID, "an APPROVED answer without a token")
		}
		decision.Token = token
	}
	if mapped.verdict == VerdictEscalate {
		decision.EscalationID, _ = body["escalationId"].(string)
	}
	if score, ok := outcome["riskScore"].(float64); ok {
		decision.RiskScore = &score
	}
	ruleID := ""
	if rule, ok := outcome["decidingRule"].(map[string]any); ok {
		ruleID, _ = rule["id"].(string)
	}
	firstLine := ""
	if rationale, ok := outcome["rationale"].([]any); ok && len(rationale) > 0 {
		firstLine, _ = rationale[0].(string)
	}
	switch {
	case ruleID != "" && firstLine != "":
		decision.Reason = ruleID + ": " + firstLine
	default:
		decision.Reason = ruleID + firstLine
	}
	return decision, nil
}
