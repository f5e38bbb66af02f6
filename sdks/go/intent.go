package authority

// IntentRequest is what SubmitIntent sends (contract §4.1); the client fills tenantId.
type IntentRequest struct {
	Actor          Actor
	TargetSystem   string
	ProposedAction string
	RiskContext    RiskContext
	// Args are the raw structural arguments of the action, read by policies and the
	// catastrophic floor (nil for none).
	Args map[string]any
	// IdempotencyKey is sent as the Idempotency-Key header; a random one when empty.
	IdempotencyKey string
	// Explain asks for the explanation of every candidate rule (?explain=true).
	Explain bool
}

// Actor is who asks: Type is one of service, agent, human, workflow.
type Actor struct {
	ID   string `json:"id"`
	Type string `json:"type"`
}

// RiskContext is the caller's view of the action's risk (contract §4.1 and §4.3).
type RiskContext struct {
	BaseRiskScore            float64        `json:"baseRiskScore"`
	PolicyCompliant          *bool          `json:"policyCompliant,omitempty"`
	RequiresPrivilegedAccess bool           `json:"requiresPrivilegedAccess,omitempty"`
	TouchesProduction        bool           `json:"touchesProduction,omitempty"`
	ContainsSensitiveData    bool           `json:"containsSensitiveData,omitempty"`
	GitHub                   *GitHubContext `json:"github,omitempty"`
}

// GitHubContext names the repository the action touches; Owner/Repo must equal the target system.
type GitHubContext struct {
	Owner       string `json:"owner"`
	Repo        string `json:"repo"`
	Ref         string `json:"ref,omitempty"`
	PullRequest *int   `json:"pullRequest,omitempty"`
	Path        string `json:"path,omitempty"`
}

type intentBody struct {
	TenantID       string         `json:"tenantId"`
	Actor          Actor          `json:"actor"`
	TargetSystem   string         `json:"targetSystem"`
	ProposedAction string         `json:"proposedAction"`
	Args           map[string]any `json:"args,omitempty"`
	RiskContext    RiskContext    `json:"riskContext"`
}

func (r IntentRequest) body(tenantID string) intentBody {
	return intentBody{
		TenantID: tenantID, Actor: r.Actor, TargetSystem: r.TargetSystem,
		ProposedAction: r.ProposedAction, Args: r.Args, RiskContext: r.RiskContext,
	}
}
