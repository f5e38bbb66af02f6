package authority

// The verification reasons of contract §5, in the order the checks run: the first failing check
// is the one reported. They are wire names: the service's consume endpoint reports the same.
const (
	ReasonTokenMalformed              = "TOKEN_MALFORMED"
	ReasonKidMismatch                 = "KID_MISMATCH"
	ReasonSignatureVerificationFailed = "SIGNATURE_VERIFICATION_FAILED"
	ReasonTokenTTLExceedsLimit        = "TOKEN_TTL_EXCEEDS_LIMIT"
	ReasonTokenExpired                = "TOKEN_EXPIRED"
	ReasonTokenNotYetValid            = "TOKEN_NOT_YET_VALID"
	ReasonTokenDecisionInvalid        = "TOKEN_DECISION_INVALID"
	ReasonTokenTenantMismatch         = "TOKEN_TENANT_MISMATCH"
	ReasonTokenAdapterMismatch        = "TOKEN_ADAPTER_MISMATCH"
	ReasonTokenTargetMismatch         = "TOKEN_TARGET_MISMATCH"
	ReasonNonceAlreadyConsumed        = "NONCE_ALREADY_CONSUMED"
)

// Reasons outside the ordered list: TENANT_KILL_SWITCH comes from the service's consume endpoint;
// KEY_SOURCE_UNAVAILABLE (no key set could be loaded) and NONCE_STORE_UNAVAILABLE (the store could
// not confirm first use, so the token is refused) are the SDK's own.
const (
	ReasonTenantKillSwitch      = "TENANT_KILL_SWITCH"
	ReasonKeySourceUnavailable  = "KEY_SOURCE_UNAVAILABLE"
	ReasonNonceStoreUnavailable = "NONCE_STORE_UNAVAILABLE"
)

// TokenVerificationReasons lists the reasons of contract §5 in their order.
var TokenVerificationReasons = []string{
	ReasonTokenMalformed,
	ReasonKidMismatch,
	ReasonSignatureVerificationFailed,
	ReasonTokenTTLExceedsLimit,
	ReasonTokenExpired,
	ReasonTokenNotYetValid,
	ReasonTokenDecisionInvalid,
	ReasonTokenTenantMismatch,
	ReasonTokenAdapterMismatch,
	ReasonTokenTargetMismatch,
	ReasonNonceAlreadyConsumed,
}

func isRemoteReason(reason string) bool {
	if reason == ReasonTenantKillSwitch {
		return true
	}
	for _, known := range TokenVerificationReasons {
		if known == reason {
			return true
		}
	}
	return false
}
