package authority

// IntentRequest is what SubmitIntent sends (contract §4.1); the client fills tenantId.
type IntentRequest struct {
	// Actor is who asks.
	Actor Actor
	// TargetSystem is what the action touches, "<owner>/<repo>".
	TargetSystem string
	// ProposedAction says what the agent wants to do, in words (1 to 4000 characters).
	ProposedAction string
	// RiskContext is the caller's view of the risk.
	RiskContext RiskContext
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
	// ID names the actor (1 to 200 characters).
	ID string `json:"id"`
	// Type is service, agent, human or workflow.
	Type string `json:"type"`
}

// RiskContext is the caller's view of the action's risk (contract §4.1 and §4.3).
type RiskContext struct {
	// BaseRiskScore is the caller's score, 0 to 100.
	BaseRiskScore float64 `json:"baseRiskScore"`
	// PolicyCompliant is echoed; nil means true.
	PolicyCompliant *bool `json:"policyCompliant,omitempty"`
	// RequiresPrivilegedAccess adds the privileged modifier to the score.
	RequiresPrivilegedAccess bool `json:"requiresPrivilegedAccess,omitempty"`
	// TouchesProduction adds the production modifier to the score.
	TouchesProduction bool `json:"touchesProduction,omitempty"`
	// ContainsSensitiveData adds the sensitive modifier to the score.
	ContainsSensitiveData bool `json:"containsSensitiveData,omitempty"`
	// GitHub optionally names the repository; Owner/Repo must equal TargetSystem.
	GitHub *GitHubContext `json:"github,omitempty"`
}

// GitHubContext names the repository the action touches; Owner/Repo must equal the target system.
type GitHubContext struct {
	// Owner is the repository owner.
	Owner string `json:"owner"`
	// Repo is the repository name.
	Repo string `json:"repo"`
	// Ref is a branch, tag or commit, optional.
	Ref string `json:"ref,omitempty"`
	// PullRequest is a pull request number, optional.
	PullRequest *int `json:"pullRequest,omitempty"`
	// Path is a file path in the repository, optional.
	Path string `json:"path,omitempty"`
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
