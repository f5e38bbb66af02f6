package authority

import (
	"fmt"
	"time"
)

// APIError is anything from the service that is not a decision: an error status or a transport
// failure. Its fields are those of the TypeScript SDK's AuthorityApiError.
type APIError struct {
	// Status is the HTTP status, or 0 when no answer arrived (network error, timeout).
	Status int
	// Code is the envelope's code (VALIDATION_ERROR, AUTHORITY_LOOP_FAILED, rate_limited, ...);
	// NETWORK_ERROR, TIMEOUT or ABORTED (the caller cancelled its context) when Status is 0;
	// INVALID_RESPONSE, with the answer's Status, for an answer that is not the documented shape,
	// an error answer without the envelope included (a proxy's page), as in the TypeScript SDK.
	Code string
	// Message is human-readable and never holds a secret.
	Message string
	// Details is the envelope's details object, or nil.
	Details map[string]any
	// RequestID is the x-request-id of the answer, when there was one.
	RequestID string
	// Retryable says whether the same request may succeed later (429, 500, 502, 503, 504,
	// network errors); the client already retried those up to its MaxAttempts.
	Retryable bool
	// RetryAfter is, on a 429, the wait the retry-after header asked for.
	RetryAfter time.Duration
	// cause is the transport's error when no complete answer arrived (Status 0).
	cause error
}

// Error gives the code, the status and the message.
func (e *APIError) Error() string {
	return fmt.Sprintf("%s (%d): %s", e.Code, e.Status, e.Message)
}

// Unwrap gives the transport's error behind a Status 0 APIError (so that errors.Is(err,
// context.DeadlineExceeded) or errors.As(err, *net.OpError) see it), nil otherwise.
func (e *APIError) Unwrap() error {
	return e.cause
}
