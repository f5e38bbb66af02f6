package authority

import (
	"fmt"
	"sort"
)

// ReceiptSealTyp is the JWS typ of a receipt seal.
const ReceiptSealTyp = "authority-receipt-seal+jws"

// The reasons VerifyReceipt reports, in the order its checks run.
const (
	ReasonReceiptMalformed     = "RECEIPT_MALFORMED"
	ReasonTenantMismatch       = "TENANT_MISMATCH"
	ReasonEntryHashMismatch    = "ENTRY_HASH_MISMATCH"
	ReasonEntryMismatch        = "ENTRY_MISMATCH"
	ReasonSealMismatch         = "SEAL_MISMATCH"
	ReasonSealSignatureInvalid = "SEAL_SIGNATURE_INVALID"
	ReasonTokenInvalid         = "TOKEN_INVALID"
	ReasonEmbeddedJWKSMismatch = "EMBEDDED_JWKS_MISMATCH"
)

// ReceiptVerification is the outcome of VerifyReceipt: Valid with the parsed Receipt and its
// token's claims (nil without a token), or the Reason with a Detail for logs.
type ReceiptVerification struct {
	// Valid is true only when every check passed.
	Valid bool
	// Reason is one of the Reason constants of VerifyReceipt, "" when Valid.
	Reason string
	// Detail says more about a refusal, for logs only.
	Detail string
	// Receipt is the verified receipt, parsed.
	Receipt map[string]any
	// TokenClaims are the claims of the receipt's token, nil when it carries none.
	TokenClaims *TokenClaims
}

type refusal struct{ reason, detail string }

func refusedf(reason, format string, args ...any) *refusal {
	return &refusal{reason, fmt.Sprintf(format, args...)}
}

// receiptMembers lists the members of each receipt version this SDK verifies. Version 2 (a
// Merkle checkpoint and inclusion proofs, contract §15, verified against a pinned log key) is not
// verified yet and is refused with a detail saying so; its checks will build on version 1's.
var receiptMembers = map[int][]string{
	1: {"receiptVersion", "intentId", "tenantId", "decision", "token", "entries", "seal", "jwks"},
}

var sealMembers = []string{"tenantId", "intentId", "entryHashes", "headIndex", "headHash", "issuedAt", "signature"}

func unknownMember(object map[string]any, allowed []string) string {
	known := map[string]bool{}
	for _, name := range allowed {
		known[name] = true
	}
	var unknown []string
	for name := range object {
		if !known[name] {
			unknown = append(unknown, name)
		}
	}
	sort.Strings(unknown)
	if len(unknown) == 0 {
		return ""
	}
	return unknown[0]
}

func sealProblem(value any) string {
	seal, ok := value.(map[string]any)
	if !ok {
		return "seal is missing or not an object"
	}
	if name := unknownMember(seal, sealMembers); name != "" {
		return fmt.Sprintf("unknown seal member %q", name)
	}
	for _, name := range []string{"tenantId", "intentId", "signature"} {
		if !nonEmptyString(seal[name]) {
			return "seal." + name + " is missing or not a non-empty string"
		}
	}
	hashes, ok := seal["entryHashes"].([]any)
	if !ok {
		return "seal.entryHashes is not an array of 64 lower-case hex digits"
	}
	for _, hash := range hashes {
		if !isHash(hash) {
			return "seal.entryHashes is not an array of 64 lower-case hex digits"
		}
	}
	if !isChainIndex(seal["headIndex"]) {
		return "seal.headIndex is not a non-negative integer"
	}
	if !isHash(seal["headHash"]) {
		return "seal.headHash is not 64 lower-case hex digits"
	}
	if !isChainTimestamp(seal["issuedAt"]) {
		return "seal.issuedAt is not YYYY-MM-DDTHH:mm:ss.sssZ"
	}
	return ""
}

func shapeProblem(receipt map[string]any, version int) string {
	if name := unknownMember(receipt, receiptMembers[version]); name != "" {
		return fmt.Sprintf("unknown member %q", name)
	}
	for _, name := range []string{"intentId", "tenantId", "decision"} {
		if !nonEmptyString(receipt[name]) {
			return name + " is missing or not a non-empty string"
		}
	}
	if token, present := receipt["token"]; !present || (token != nil && !nonEmptyString(token)) {
		return "token is missing or neither a non-empty string nor null"
	}
	entries, ok := receipt["entries"].([]any)
	if !ok || len(entries) == 0 {
		return "entries is missing, not an array or empty"
	}
	for i, entry := range entries {
		if problem := checkEntryShape(entry); problem != "" {
			return fmt.Sprintf("entries[%d]: %s", i, problem)
		}
	}
	if problem := sealProblem(receipt["seal"]); problem != "" {
		return problem
	}
	jwks, ok := receipt["jwks"].(map[string]any)
	keys, hasKeys := jwks["keys"].([]any)
	if !ok || !hasKeys {
		return "jwks is missing or not {keys: [...]}"
	}
	for _, key := range keys {
		if _, ok := key.(map[string]any); !ok {
			return "jwks.keys holds a non-object"
		}
	}
	return ""
}

func entriesOf(receipt map[string]any) []map[string]any {
	raw := receipt["entries"].([]any)
	out := make([]map[string]any, len(raw))
	for i, entry := range raw {
		out[i] = entry.(map[string]any)
	}
	return out
}

func checkEntries(receipt map[string]any) *refusal {
	entries := entriesOf(receipt)
	for i, entry := range entries {
		if hash, ok := auditEntryHash(entry); !ok || hash != entry["entryHash"] {
			return refusedf(ReasonEntryHashMismatch, "entries[%d] (index %v) does not hash to its entryHash", i, entry["index"])
		}
	}
	for i, entry := range entries {
		if entry["tenantId"] != receipt["tenantId"] {
			return refusedf(ReasonEntryMismatch, "entries[%d] belongs to another tenant", i)
		}
		if entry["intentId"] != receipt["intentId"] {
			return refusedf(ReasonEntryMismatch, "entries[%d] belongs to another intent", i)
		}
		index := entry["index"].(float64)
		if index == 0 && entry["previousHash"] != GenesisHash {
			return refusedf(ReasonEntryMismatch, "entry 0 does not start from 64 zeros")
		}
		if i == 0 {
			continue
		}
		before := entries[i-1]
		if index <= before["index"].(float64) {
			return refusedf(ReasonEntryMismatch, "entries[%d] is not after entries[%d] in the chain", i, i-1)
		}
		if index == before["index"].(float64)+1 && entry["previousHash"] != before["entryHash"] {
			return refusedf(ReasonEntryMismatch, "entry %v does not link to entry %v", index, before["index"])
		}
	}
	return nil
}

func checkSeal(receipt map[string]any, keys KeySource) *refusal {
	seal, entries := receipt["seal"].(map[string]any), entriesOf(receipt)
	if seal["tenantId"] != receipt["tenantId"] {
		return refusedf(ReasonSealMismatch, "the seal names another tenant")
	}
	if seal["intentId"] != receipt["intentId"] {
		return refusedf(ReasonSealMismatch, "the seal names another intent")
	}
	hashes := seal["entryHashes"].([]any)
	if len(hashes) != len(entries) {
		return refusedf(ReasonSealMismatch, "seal.entryHashes is not the entries' hashes in order")
	}
	for i, entry := range entries {
		if hashes[i] != entry["entryHash"] {
			return refusedf(ReasonSealMismatch, "seal.entryHashes is not the entries' hashes in order")
		}
	}
	head := seal["headIndex"].(float64)
	for _, entry := range entries {
		index := entry["index"].(float64)
		if index > head {
			return refusedf(ReasonSealMismatch, "entry %v lies after the sealed head %v", index, head)
		}
		if index == head && entry["entryHash"] != seal["headHash"] {
			return refusedf(ReasonSealMismatch, "entry %v is the sealed head but not headHash", index)
		}
	}
	fields := map[string]any{}
	for name, value := range seal {
		if name != "signature" {
			fields[name] = value
		}
	}
	payload, err := canonicalJSON(fields)
	if err != nil {
		return refusedf(ReasonSealSignatureInvalid, "the seal has no canonical form")
	}
	problem, err := verifySignedStatement(seal["signature"].(string), ReceiptSealTyp, receipt["tenantId"].(string), payload, keys)
	if err != nil {
		return refusedf(ReasonKeySourceUnavailable, "key source failed: %v", err)
	}
	if problem != "" {
		return refusedf(ReasonSealSignatureInvalid, "%s", problem)
	}
	return nil
}

func checkToken(receipt map[string]any, keys KeySource) (*TokenClaims, *refusal) {
	token, _ := receipt["token"].(string)
	decision := receipt["decision"].(string)
	if token == "" {
		if decision == "APPROVED" {
			return nil, refusedf(ReasonTokenInvalid, "an APPROVED receipt carries no token")
		}
		return nil, nil
	}
	claims, failed := verifyTokenSignature(token, keys, receipt["tenantId"].(string), "")
	if claims == nil {
		if failed.Reason == ReasonKeySourceUnavailable {
			return nil, refusedf(ReasonKeySourceUnavailable, "%s", failed.Detail)
		}
		return nil, refusedf(ReasonTokenInvalid, "%s: %s", failed.Reason, failed.Detail)
	}
	switch {
	case claims.IntentID != receipt["intentId"]:
		return nil, refusedf(ReasonTokenInvalid, "the token names another intent")
	case claims.TenantID != receipt["tenantId"]:
		return nil, refusedf(ReasonTokenInvalid, "the token names another tenant")
	case claims.Decision != "APPROVED":
		return nil, refusedf(ReasonTokenInvalid, "the token decision is not APPROVED")
	case decision != "APPROVED":
		return nil, refusedf(ReasonTokenInvalid, "a token was issued but the receipt decision is %s", decision)
	}
	return claims, nil
}

func checkEmbeddedJWKS(receipt map[string]any, keys KeySource) *refusal {
	seen := map[string]bool{}
	for i, key := range receipt["jwks"].(map[string]any)["keys"].([]any) {
		jwk := JWK(key.(map[string]any))
		kid, ok := jwk["kid"].(string)
		if !ok || kid == "" {
			return refusedf(ReasonEmbeddedJWKSMismatch, "jwks.keys[%d] has no kid", i)
		}
		if seen[kid] {
			return refusedf(ReasonEmbeddedJWKSMismatch, "jwks lists kid %s twice", kid)
		}
		seen[kid] = true
		pinned, _, err := resolveKey(keys, kid)
		if err != nil {
			return refusedf(ReasonKeySourceUnavailable, "key source failed: %v", err)
		}
		if pinned == nil {
			return refusedf(ReasonEmbeddedJWKSMismatch, "embedded key %s is not pinned", kid)
		}
		if !sameJSON(pinned, jwk) {
			return refusedf(ReasonEmbeddedJWKSMismatch, "embedded key %s differs from the pinned key", kid)
		}
	}
	return nil
}

// VerifyReceipt verifies an intent's receipt (the JSON of GET /intent/:id/receipt) offline. Trust
// comes only from pinned, the keys you pin: the tenant's JWKS merged with its archive of RETIRED
// keys. The receipt's embedded jwks is only compared with them, never trusted.
//
// Checks, in order (the first failure is the Reason): RECEIPT_MALFORMED (version, members, types);
// TENANT_MISMATCH (when expectedTenantID is not empty); ENTRY_HASH_MISMATCH; ENTRY_MISMATCH
// (another tenant or intent, order, links of consecutive entries); SEAL_MISMATCH (the seal binds
// exactly these entries at or before its head); SEAL_SIGNATURE_INVALID; TOKEN_INVALID (signature
// under a pinned key, this intent and tenant, APPROVED; expiry is not checked and no nonce is
// consumed); EMBEDDED_JWKS_MISMATCH. The error is ErrInvalidArgument for a malformed pinned set.
func VerifyReceipt(receipt []byte, pinned JWKS, expectedTenantID string) (ReceiptVerification, error) {
	keys, err := pinnedKeys(pinned, true)
	if err != nil {
		return ReceiptVerification{Reason: "", Detail: "misuse"}, fmt.Errorf("%w: %v", ErrInvalidArgument, err)
	}
	refused := func(r *refusal) (ReceiptVerification, error) {
		return ReceiptVerification{Reason: r.reason, Detail: r.detail}, nil
	}
	parsed, err := parseJSON(receipt)
	if err != nil {
		return refused(refusedf(ReasonReceiptMalformed, "the receipt is not JSON"))
	}
	document, ok := parsed.(map[string]any)
	if !ok {
		return refused(refusedf(ReasonReceiptMalformed, "the receipt is not a JSON object"))
	}
	version, _ := document["receiptVersion"].(float64)
	if version == 2 {
		return refused(refusedf(ReasonReceiptMalformed, "receiptVersion 2 (Merkle proofs) is not supported by this SDK version yet"))
	}
	if _, supported := receiptMembers[int(version)]; !supported || version != float64(int(version)) {
		return refused(refusedf(ReasonReceiptMalformed, "receiptVersion %v is not supported", document["receiptVersion"]))
	}
	if problem := shapeProblem(document, int(version)); problem != "" {
		return refused(refusedf(ReasonReceiptMalformed, "%s", problem))
	}
	if expectedTenantID != "" && document["tenantId"] != expectedTenantID {
		return refused(refusedf(ReasonTenantMismatch, "the receipt belongs to another tenant"))
	}
	if r := checkEntries(document); r != nil {
		return refused(r)
	}
	if r := checkSeal(document, keys); r != nil {
		return refused(r)
	}
	claims, r := checkToken(document, keys)
	if r != nil {
		return refused(r)
	}
	if r := checkEmbeddedJWKS(document, keys); r != nil {
		return refused(r)
	}
	return ReceiptVerification{Valid: true, Receipt: document, TokenClaims: claims}, nil
}
