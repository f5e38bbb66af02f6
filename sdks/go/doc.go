// Package authority is the Go SDK of Authority Runtime (contract §13.3), standard library only.
//
// An agent asks the service before acting with a [Client]: [Client.SubmitIntent] returns a
// [Decision] (ALLOW with an Authority Decision Token, ESCALATE when a human must approve, DENY),
// [Client.WaitForApproval] waits for that human, and [Client.FetchToken] collects the token of an
// approved escalation. Every call retries 429, 500, 502, 503, 504 and network errors with
// exponential backoff and full jitter, reusing one Idempotency-Key per submission.
//
// An executor checks the token before any side effect with [VerifyAuthorityToken] (EdDSA, ES256
// and RS256, the reasons of contract §5 in their order) and a [NonceStore], so that each token
// acts once. [VerifyWebhookSignature] checks the service's webhook deliveries and [VerifyReceipt]
// the receipts of past decisions, offline.
package authority
