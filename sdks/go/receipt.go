package authority

import (
	"fmt"
	"sort"
	"strings"
)

// ReceiptSealTyp is the JWS typ of a receipt seal.
const ReceiptSealTyp = "authority-receipt-seal+jws"

// The reasons VerifyReceipt reports, in the order its checks run. LOG_KEY_MISSING,
// CHECKPOINT_INVALID and INCLUSION_PROOF_INVALID concern version-2 receipts only.
const (
	ReasonReceiptMalformed      = "RECEIPT_MALFORMED"
	ReasonLogKeyMissing         = "LOG_KEY_MISSING"
	ReasonTenantMismatch        = "TENANT_MISMATCH"
	ReasonEntryHashMismatch     = "ENTRY_HASH_MISMATCH"
	ReasonEntryMismatch         = "ENTRY_MISMATCH"
	ReasonSealMismatch          = "SEAL_MISMATCH"
	ReasonSealSignatureInvalid  = "SEAL_SIGNATURE_INVALID"
	ReasonCheckpointInvalid     = "CHECKPOINT_INVALID"
	ReasonInclusionProofInvalid = "INCLUSION_PROOF_INVALID"
	ReasonTokenInvalid          = "TOKEN_INVALID"
	ReasonEmbeddedJWKSMismatch  = "EMBEDDED_JWKS_MISMATCH"
)

// ReceiptVerificationReasons lists the reasons of VerifyReceipt in the order its checks run;
// KEY_SOURCE_UNAVAILABLE, last, comes only from a key source that fails.
var ReceiptVerificationReasons = []string{
	ReasonReceiptMalformed,
	ReasonLogKeyMissing,
	ReasonTenantMismatch,
	ReasonEntryHashMismatch,
	ReasonEntryMismatch,
	ReasonSealMismatch,
	ReasonSealSignatureInvalid,
	ReasonCheckpointInvalid,
	ReasonInclusionProofInvalid,
	ReasonTokenInvalid,
	ReasonEmbeddedJWKSMismatch,
	ReasonKeySourceUnavailable,
}

// ReceiptOptions are what VerifyReceipt checks a receipt against besides the pinned key set.
type ReceiptOptions struct {
	// ExpectedTenantID, when not empty, makes a receipt of another tenant fail with TENANT_MISMATCH.
	ExpectedTenantID string
	// LogKey is the tenant's pinned log verifier key, the line served at
	// GET /.well-known/authority/:tenantId/log-key (`<origin>+<key ID>+<base64>`, a trailing
	// newline allowed). A version-2 receipt fails with LOG_KEY_MISSING without it; a version-1
	// receipt does not use it.
	LogKey string
}

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

// receiptMembers lists the members of each receipt version: version 2 (contract §15) adds the
// log's checkpoint and the entries' inclusion proofs to version 1 (contract §6).
var receiptMembers = map[int][]string{
	1: {"receiptVersion", "intentId", "tenantId", "decision", "token", "entries", "seal", "jwks"},
	2: {"receiptVersion", "intentId", "tenantId", "decision", "token", "entries", "seal", "jwks", "checkpoint", "inclusion"},
}

var inclusionMembers = []string{"index", "proof"}

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

func logProofProblem(receipt map[string]any) string {
	if !nonEmptyString(receipt["checkpoint"]) {
		return "checkpoint is missing or not a non-empty string"
	}
	inclusion, ok := receipt["inclusion"].([]any)
	if !ok {
		return "inclusion is missing or not an array"
	}
	entries := receipt["entries"].([]any)
	if len(inclusion) != len(entries) {
		return fmt.Sprintf("inclusion holds %d proofs for %d entries", len(inclusion), len(entries))
	}
	for i, value := range inclusion {
		item, ok := value.(map[string]any)
		if !ok {
			return fmt.Sprintf("inclusion[%d] is not an object", i)
		}
		if name := unknownMember(item, inclusionMembers); name != "" {
			return fmt.Sprintf("unknown inclusion[%d] member %q", i, name)
		}
		if !isChainIndex(item["index"]) || item["index"] != entries[i].(map[string]any)["index"] {
			return fmt.Sprintf("inclusion[%d].index is not the index of entries[%d]", i, i)
		}
		proof, ok := item["proof"].([]any)
		if !ok {
			return fmt.Sprintf("inclusion[%d].proof is not an array of 64 lower-case hex digits", i)
		}
		for _, hash := range proof {
			if !isHash(hash) {
				return fmt.Sprintf("inclusion[%d].proof is not an array of 64 lower-case hex digits", i)
			}
		}
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
	if version == 2 {
		return logProofProblem(receipt)
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

// checkLogProof checks a version-2 receipt's checkpoint against the pinned log key and each
// entry's inclusion proof against the checkpoint's root.
func checkLogProof(receipt map[string]any, logKey string) *refusal {
	outcome, err := VerifyCheckpoint(receipt["checkpoint"].(string), logKey, nil, 0)
	if err != nil {
		return refusedf(ReasonCheckpointInvalid, "%v", err)
	}
	if !outcome.Valid {
		return refusedf(ReasonCheckpointInvalid, "%s: %s", outcome.Reason, outcome.Detail)
	}
	checkpoint, tenant := outcome.Checkpoint, receipt["tenantId"].(string)
	if !strings.HasSuffix(checkpoint.Origin, "/audit/"+tenant) {
		return refusedf(ReasonCheckpointInvalid, "the checkpoint is of %s, not of tenant %s", checkpoint.Origin, tenant)
	}
	headSize := int64(receipt["seal"].(map[string]any)["headIndex"].(float64)) + 1
	if checkpoint.Size != headSize {
		return refusedf(ReasonCheckpointInvalid, "the checkpoint is for tree size %d, the seal's head for %d", checkpoint.Size, headSize)
	}
	inclusion := receipt["inclusion"].([]any)
	for i, entry := range entriesOf(receipt) {
		index := int64(entry["index"].(float64))
		leaf, err := LeafHash(entry["entryHash"].(string))
		if err != nil {
			return refusedf(ReasonInclusionProofInvalid, "entry %d: %v", index, err)
		}
		elements := inclusion[i].(map[string]any)["proof"].([]any)
		proof := make([][]byte, len(elements))
		for j, element := range elements {
			if proof[j], err = HashFromHex(element.(string)); err != nil {
				return refusedf(ReasonInclusionProofInvalid, "entry %d: %v", index, err)
			}
		}
		if verified := VerifyInclusionProof(index, checkpoint.Size, leaf, proof, checkpoint.RootHash); !verified.Valid {
			return refusedf(ReasonInclusionProofInvalid, "entry %d is not in the checkpoint's tree: %s: %s", index, verified.Reason, verified.Detail)
		}
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
// comes only from what you pin: pinned, the tenant's JWKS merged with its archive of RETIRED keys,
// and for a version-2 receipt options.LogKey, the tenant's log verifier key. The receipt's embedded
// jwks is only compared with them, never trusted.
//
// Checks, in order (the first failure is the Reason): RECEIPT_MALFORMED (version 1 or 2, members,
// types; for version 2 a non-empty checkpoint and one {index, proof} per entry, in order);
// LOG_KEY_MISSING (a version-2 receipt and no LogKey: nothing is skipped); TENANT_MISMATCH (when
// ExpectedTenantID is not empty); ENTRY_HASH_MISMATCH; ENTRY_MISMATCH (another tenant or intent,
// order, links of consecutive entries); SEAL_MISMATCH (the seal binds exactly these entries at or
// before its head); SEAL_SIGNATURE_INVALID; CHECKPOINT_INVALID (version 2: not a checkpoint note
// signed by the log key for its own origin, an origin not ending in /audit/<tenantId>, or a tree
// size other than seal.headIndex + 1; witness cosignature lines are ignored);
// INCLUSION_PROOF_INVALID (version 2: an entry's RFC 9162 proof does not lead to the checkpoint's
// root); TOKEN_INVALID (signature under a pinned key, this intent and tenant, APPROVED; expiry is
// not checked and no nonce is consumed); EMBEDDED_JWKS_MISMATCH. A version-1 receipt verifies the
// same with or without LogKey; a caller who needs the log's proof checks that
// Receipt["receiptVersion"] is 2.
//
// The error wraps ErrInvalidArgument for a malformed pinned set or a LogKey that is not an Ed25519
// log verifier key, whatever the receipt.
func VerifyReceipt(receipt []byte, pinned JWKS, options ReceiptOptions) (ReceiptVerification, error) {
	keys, err := pinnedKeys(pinned, true)
	if err != nil {
		return ReceiptVerification{Reason: "", Detail: "misuse"}, fmt.Errorf("%w: %v", ErrInvalidArgument, err)
	}
	if options.LogKey != "" {
		if _, err := ed25519NoteVerifier(options.LogKey); err != nil {
			return ReceiptVerification{Reason: "", Detail: "misuse"}, fmt.Errorf("%w: the log key is not an Ed25519 log verifier key: %v", ErrInvalidArgument, err)
		}
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
	number, _ := document["receiptVersion"].(float64)
	version := int(number)
	if _, supported := receiptMembers[version]; !supported || number != float64(version) {
		return refused(refusedf(ReasonReceiptMalformed, "receiptVersion %v is not 1 or 2", document["receiptVersion"]))
	}
	if problem := shapeProblem(document, version); problem != "" {
		return refused(refusedf(ReasonReceiptMalformed, "%s", problem))
	}
	if version == 2 && options.LogKey == "" {
		return refused(refusedf(ReasonLogKeyMissing, "a version-2 receipt verifies only against the tenant's pinned log key (ReceiptOptions.LogKey)"))
	}
	if options.ExpectedTenantID != "" && document["tenantId"] != options.ExpectedTenantID {
		return refused(refusedf(ReasonTenantMismatch, "the receipt belongs to another tenant"))
	}
	if r := checkEntries(document); r != nil {
		return refused(r)
	}
	if r := checkSeal(document, keys); r != nil {
		return refused(r)
	}
	if version == 2 {
		if r := checkLogProof(document, options.LogKey); r != nil {
			return refused(r)
		}
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
