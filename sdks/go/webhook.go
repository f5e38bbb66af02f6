package authority

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"regexp"
	"strings"
	"time"
)

const (
	// WebhookSignatureHeader carries "sha256=<hex HMAC-SHA256(secret, raw body)>".
	WebhookSignatureHeader = "x-service-signature"
	// WebhookTolerance is how far the signed sentAt may be from the receiver's clock.
	WebhookTolerance = 300 * time.Second
)

// The reasons VerifyWebhookSignature reports, in the order its checks run.
const (
	ReasonSignatureMissing         = "SIGNATURE_MISSING"
	ReasonSignatureMismatch        = "SIGNATURE_MISMATCH"
	ReasonPayloadMalformed         = "PAYLOAD_MALFORMED"
	ReasonPayloadSignatureMismatch = "PAYLOAD_SIGNATURE_MISMATCH"
	ReasonTimestampOutOfTolerance  = "TIMESTAMP_OUT_OF_TOLERANCE"
)

var (
	webhookSignature = regexp.MustCompile(`^sha256=[0-9a-f]{64}$`)
	rfc3339          = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$`)
)

// WebhookVerification is the outcome of VerifyWebhookSignature: Valid with the parsed Payload, or
// the Reason.
type WebhookVerification struct {
	// Valid is true only when every check passed.
	Valid bool
	// Reason is one of the webhook Reason constants, "" when Valid.
	Reason string
	// Payload is the verified delivery, parsed (eventId, event, tenantId, intentId, ...).
	Payload map[string]any
}

func webhookMAC(secret string, data []byte) []byte {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(data)
	return mac.Sum(nil)
}

func signatureMatches(signature string, digest []byte) bool {
	expected, err := hex.DecodeString(strings.TrimPrefix(signature, "sha256="))
	return err == nil && hmac.Equal(expected, digest)
}

func isWebhookPayload(payload map[string]any) bool {
	for _, name := range []string{"eventId", "event", "tenantId", "timestamp", "sentAt", "signature"} {
		if _, ok := payload[name].(string); !ok {
			return false
		}
	}
	for _, name := range []string{"intentId", "decision"} {
		value, present := payload[name]
		if _, isString := value.(string); !present || (value != nil && !isString) {
			return false
		}
	}
	risk, present := payload["riskScore"]
	if _, isNumber := risk.(float64); !present || (risk != nil && !isNumber) {
		return false
	}
	return webhookSignature.MatchString(payload["signature"].(string))
}

// VerifyWebhookSignature checks a webhook delivery before you act on it, with constant-time
// comparisons, in this order: the x-service-signature header (signatureHeader) over the raw body
// exactly as received, under any of secrets (several while you rotate); the payload's own
// signature over the canonical JSON of the payload without it; and that the signed sentAt is
// within WebhookTolerance of now, so a captured delivery cannot be replayed later. Delivery is at
// least once: remember the eventId values you processed.
func VerifyWebhookSignature(rawBody []byte, signatureHeader string, now time.Time, secrets ...string) WebhookVerification {
	fail := func(reason string) WebhookVerification { return WebhookVerification{Reason: reason} }
	if !webhookSignature.MatchString(signatureHeader) {
		return fail(ReasonSignatureMissing)
	}
	matched := ""
	for _, secret := range secrets { // every secret is tried, so timing does not tell which one matched
		if secret != "" && signatureMatches(signatureHeader, webhookMAC(secret, rawBody)) && matched == "" {
			matched = secret
		}
	}
	if matched == "" {
		return fail(ReasonSignatureMismatch)
	}
	parsed, err := parseJSON([]byte(strings.ToValidUTF8(string(rawBody), "\uFFFD")))
	payload, ok := parsed.(map[string]any)
	if err != nil || !ok || !isWebhookPayload(payload) {
		return fail(ReasonPayloadMalformed)
	}
	unsigned := map[string]any{}
	for name, value := range payload {
		if name != "signature" {
			unsigned[name] = value
		}
	}
	canonical, err := canonicalJSON(unsigned)
	if err != nil {
		return fail(ReasonPayloadMalformed)
	}
	if !signatureMatches(payload["signature"].(string), webhookMAC(matched, []byte(canonical))) {
		return fail(ReasonPayloadSignatureMismatch)
	}
	sentAt := payload["sentAt"].(string)
	if !rfc3339.MatchString(sentAt) {
		return fail(ReasonPayloadMalformed)
	}
	sent, err := time.Parse(time.RFC3339Nano, sentAt)
	if err != nil {
		return fail(ReasonPayloadMalformed)
	}
	if math.Abs(float64(now.Sub(sent))) > float64(WebhookTolerance) {
		return fail(ReasonTimestampOutOfTolerance)
	}
	return WebhookVerification{Valid: true, Payload: payload}
}
