package authority

import (
	"errors"
	"fmt"
	"math"
	"time"
)

const (
	// AuthorityIssuer is the issuer every Authority Decision Token carries ("iss").
	AuthorityIssuer = "service-authority"
	// MaxTokenTTLSeconds is the longest lifetime a token may declare, exp - iat.
	MaxTokenTTLSeconds = 300
	// DefaultClockSkew is the tolerated clock difference between the service and the verifier.
	DefaultClockSkew = 5 * time.Second
	// MaxTokenLength bounds a token before any decoding work (TOKEN_MALFORMED beyond it).
	MaxTokenLength = 65536
)

// ErrInvalidArgument reports a misuse of the verifier (an empty expected tenant, no key source):
// a programming error, never the verdict on a token.
var ErrInvalidArgument = errors.New("authority: invalid argument")

// Expected is the verifying adapter's identity, which the token must have been minted for, and
// how to check it.
type Expected struct {
	// TenantID is the tenant the adapter serves; every acceptable kid carries it as its prefix.
	TenantID string
	// AdapterID is the verifying adapter's id (the token's adapterId and aud), "external" for an
	// executor that is not a connector of the service.
	AdapterID string
	// TargetSystem is the system the adapter is about to act on.
	TargetSystem string
	// NonceStore consumes the token's nonce once every other check passed. Without one the nonce
	// is not checked: an adapter that executes must set it.
	NonceStore NonceStore
	// PinnedKid, when set, is the only kid accepted.
	PinnedKid string
	// ClockSkew is the tolerated clock difference, 0 to 300 s; zero means DefaultClockSkew.
	ClockSkew time.Duration
}

// TokenClaims are the claims of a verified Authority Decision Token (contract §5).
type TokenClaims struct {
	// IntentID is the intent the token was minted for.
	IntentID string
	// TenantID is the tenant of the intent.
	TenantID string
	// AdapterID is the connector serving the target, or "external"; equal to Audience.
	AdapterID string
	// AdapterTarget is what the adapter acts on (the target system for "external").
	AdapterTarget string
	// TargetSystem is the system the action is about, "<owner>/<repo>".
	TargetSystem string
	// ProposedAction is the action approved, as the agent wrote it: act on exactly this.
	ProposedAction string
	// Decision is always APPROVED in a verified token.
	Decision string
	// IssuedAt and ExpiresAt are ISO 8601 forms of iat and exp, informational.
	IssuedAt, ExpiresAt string
	// Nonce is 128 random bits, base64url, consumed once.
	Nonce string
	// Issuer is "service-authority".
	Issuer string
	// Audience is the token's aud, equal to AdapterID.
	Audience string
	// IssuedAtUnix is iat, in unix seconds.
	IssuedAtUnix float64
	// ExpiresAtUnix is exp, in unix seconds.
	ExpiresAtUnix float64
	// NotBeforeUnix is nbf in unix seconds, nil when the token has none.
	NotBeforeUnix *float64
	// Raw holds every claim as parsed.
	Raw map[string]any
}

// VerificationResult is the outcome of VerifyAuthorityToken: Valid with the Claims, or the Reason
// (one of the Reason constants) with a Detail for logs.
type VerificationResult struct {
	// Valid is true only when every check passed (and the nonce store, when set, recorded the
	// first use).
	Valid bool
	// Reason is one of the Reason constants, "" when Valid.
	Reason string
	// Detail says more about a refusal, for logs only.
	Detail string
	// Claims are the verified claims, nil unless Valid.
	Claims *TokenClaims
}

func refuse(reason, detail string) VerificationResult {
	return VerificationResult{Reason: reason, Detail: detail}
}

var stringClaims = []string{
	"intentId", "tenantId", "adapterId", "adapterTarget", "targetSystem",
	"proposedAction", "decision", "issuedAt", "expiresAt", "nonce",
}

func decodeClaims(payload []byte) (*TokenClaims, string) {
	parsed, err := parseJSONText(payload)
	if err != nil {
		return nil, "the payload is not JSON"
	}
	raw, ok := parsed.(map[string]any)
	if !ok {
		return nil, "the payload is not a JSON object"
	}
	text := map[string]string{}
	for _, name := range stringClaims {
		value, ok := raw[name].(string)
		if !ok {
			return nil, fmt.Sprintf("claim %s is missing or not a string", name)
		}
		text[name] = value
	}
	if text["nonce"] == "" {
		return nil, "claim nonce is empty"
	}
	for _, name := range []string{"iat", "exp"} {
		if !isFiniteNumber(raw[name]) {
			return nil, fmt.Sprintf("claim %s is missing or not a number", name)
		}
	}
	claims := &TokenClaims{
		IntentID: text["intentId"], TenantID: text["tenantId"], AdapterID: text["adapterId"],
		AdapterTarget: text["adapterTarget"], TargetSystem: text["targetSystem"],
		ProposedAction: text["proposedAction"], Decision: text["decision"],
		IssuedAt: text["issuedAt"], ExpiresAt: text["expiresAt"], Nonce: text["nonce"],
		IssuedAtUnix: raw["iat"].(float64), ExpiresAtUnix: raw["exp"].(float64), Raw: raw,
	}
	if nbf, present := raw["nbf"]; present {
		if !isFiniteNumber(nbf) {
			return nil, "claim nbf is not a number"
		}
		value := nbf.(float64)
		claims.NotBeforeUnix = &value
	}
	return claims, ""
}

// verifyTokenSignature runs checks 1 to 3 (structure, kid, signature, claim types, iss, aud),
// shared with VerifyReceipt. It returns the type-checked claims, or the failed result.
func verifyTokenSignature(token string, keys KeySource, tenantID, pinnedKid string) (*TokenClaims, VerificationResult) {
	parts, problem := splitCompactJWS(token, MaxTokenLength, "the token")
	if parts == nil {
		return nil, refuse(ReasonTokenMalformed, problem)
	}
	tenant := kidTenant(parts.kid)
	if tenant == "" {
		return nil, refuse(ReasonKidMismatch, "kid is not of the form <tenantId>-<seconds>-<base32>")
	}
	if tenant != tenantID {
		return nil, refuse(ReasonKidMismatch, "kid belongs to another tenant")
	}
	if pinnedKid != "" && parts.kid != pinnedKid {
		return nil, refuse(ReasonKidMismatch, "kid is not the pinned kid")
	}
	jwk, unknown, err := resolveKey(keys, parts.kid)
	if err != nil {
		return nil, refuse(ReasonKeySourceUnavailable, "key source failed: "+err.Error())
	}
	if jwk == nil {
		return nil, refuse(ReasonKidMismatch, unknown)
	}
	if problem := verifyCompactJWS(parts, jwk); problem != "" {
		return nil, refuse(ReasonSignatureVerificationFailed, problem)
	}
	claims, problem := decodeClaims(parts.payload)
	if claims == nil {
		return nil, refuse(ReasonTokenMalformed, problem)
	}
	if iss, ok := claims.Raw["iss"].(string); !ok || iss != AuthorityIssuer {
		return nil, refuse(ReasonSignatureVerificationFailed, "iss is not service-authority")
	}
	if aud, ok := claims.Raw["aud"].(string); !ok || aud != claims.AdapterID {
		return nil, refuse(ReasonSignatureVerificationFailed, "aud is not the token adapterId")
	}
	claims.Issuer, claims.Audience = AuthorityIssuer, claims.AdapterID
	return claims, VerificationResult{}
}

// VerifyAuthorityToken verifies an Authority Decision Token offline, as an adapter must before any
// side effect, at the instant now. jwks is the tenant's key set (StaticJWKS, or RemoteJWKS).
//
// Checks run in the order of contract §5 and the first failure is the Reason: TOKEN_MALFORMED,
// KID_MISMATCH, SIGNATURE_VERIFICATION_FAILED (the algorithm is the key's own, EdDSA, ES256 or
// RS256, never the header's; iss; aud equal to the token's adapterId), TOKEN_TTL_EXCEEDS_LIMIT
// (exp - iat > 300), TOKEN_EXPIRED (now ≥ exp + skew), TOKEN_NOT_YET_VALID (iat, or nbf, later
// than now + skew), TOKEN_DECISION_INVALID, TOKEN_TENANT_MISMATCH, TOKEN_ADAPTER_MISMATCH,
// TOKEN_TARGET_MISMATCH, and last, with a nonce store, NONCE_ALREADY_CONSUMED: the nonce is
// consumed only when everything else passed.
//
// A bad token is never an error, only a result with Valid false. The error is ErrInvalidArgument
// for a misuse (an empty expected field, no key source, a skew beyond 300 s).
func VerifyAuthorityToken(token string, jwks KeySource, expected Expected, now time.Time) (VerificationResult, error) {
	if jwks == nil || expected.TenantID == "" || expected.AdapterID == "" || expected.TargetSystem == "" {
		return refuse("", "misuse"), fmt.Errorf("%w: a key source and the expected tenant, adapter and target are required", ErrInvalidArgument)
	}
	skew := expected.ClockSkew
	if skew == 0 {
		skew = DefaultClockSkew
	}
	if skew < 0 || skew > MaxTokenTTLSeconds*time.Second {
		return refuse("", "misuse"), fmt.Errorf("%w: the clock skew must be between 0 and 300 s", ErrInvalidArgument)
	}
	claims, failed := verifyTokenSignature(token, jwks, expected.TenantID, expected.PinnedKid)
	if claims == nil {
		return failed, nil
	}
	current := float64(now.Unix()) + float64(now.Nanosecond())/1e9
	skewSeconds := skew.Seconds()
	iat, exp := claims.IssuedAtUnix, claims.ExpiresAtUnix
	switch {
	case exp-iat > MaxTokenTTLSeconds:
		return refuse(ReasonTokenTTLExceedsLimit, fmt.Sprintf("exp - iat is %v s", exp-iat)), nil
	case current >= exp+skewSeconds:
		return refuse(ReasonTokenExpired, "the token expired"), nil
	case iat > current+skewSeconds:
		return refuse(ReasonTokenNotYetValid, "iat lies in the future beyond the allowed skew"), nil
	case claims.NotBeforeUnix != nil && *claims.NotBeforeUnix > current+skewSeconds:
		return refuse(ReasonTokenNotYetValid, "nbf lies in the future beyond the allowed skew"), nil
	case claims.Decision != "APPROVED":
		return refuse(ReasonTokenDecisionInvalid, "decision is not APPROVED"), nil
	case claims.TenantID != expected.TenantID:
		return refuse(ReasonTokenTenantMismatch, "token tenantId differs"), nil
	case claims.AdapterID != expected.AdapterID:
		return refuse(ReasonTokenAdapterMismatch, "token adapterId differs"), nil
	case claims.TargetSystem != expected.TargetSystem:
		return refuse(ReasonTokenTargetMismatch, "token targetSystem differs"), nil
	}
	if expected.NonceStore != nil {
		expiresAt := time.Unix(0, int64(math.Round((exp+skewSeconds)*1e9)))
		use := NonceUse{Token: token, AdapterID: expected.AdapterID, TargetSystem: expected.TargetSystem}
		first, err := expected.NonceStore.Consume(claims.Nonce, expiresAt, use)
		if err != nil {
			var storeErr *NonceStoreError
			if errors.As(err, &storeErr) && storeErr.Kind == NonceStoreRejected && isRemoteReason(storeErr.RemoteReason) {
				return refuse(storeErr.RemoteReason, err.Error()), nil
			}
			return refuse(ReasonNonceStoreUnavailable, "nonce store could not confirm: "+err.Error()), nil
		}
		if !first {
			return refuse(ReasonNonceAlreadyConsumed, "the nonce was already consumed"), nil
		}
	}
	return VerificationResult{Valid: true, Claims: claims}, nil
}
