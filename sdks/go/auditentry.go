package authority

import (
	"math"
	"regexp"
	"strconv"
)

// GenesisHash is the previousHash of entry 0 of every chain.
const GenesisHash = "0000000000000000000000000000000000000000000000000000000000000000"

var (
	hashPattern      = regexp.MustCompile(`^[0-9a-f]{64}$`)
	chainTimePattern = regexp.MustCompile(`^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.\d{3}Z$`)
	daysInMonth      = [12]int{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}
)

const maxSafeInteger = 1<<53 - 1

// isChainTimestamp reports whether v is YYYY-MM-DDTHH:mm:ss.sssZ naming a real instant (no
// 30 February, no hour 24, no leap second), the chain's only form.
func isChainTimestamp(v any) bool {
	text, ok := v.(string)
	if !ok {
		return false
	}
	match := chainTimePattern.FindStringSubmatch(text)
	if match == nil {
		return false
	}
	field := func(i int) int { n, _ := strconv.Atoi(match[i]); return n }
	year, month, day, hour, minute, second := field(1), field(2), field(3), field(4), field(5), field(6)
	if month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59 {
		return false
	}
	days := daysInMonth[month-1]
	if month == 2 && year%4 == 0 && (year%100 != 0 || year%400 == 0) {
		days = 29
	}
	return day >= 1 && day <= days
}

// isChainIndex reports whether v is an integer index of the chain, 0 to 2^53 - 1.
func isChainIndex(v any) bool {
	f, ok := v.(float64)
	return ok && f >= 0 && f <= maxSafeInteger && f == math.Trunc(f)
}

func isHash(v any) bool {
	text, ok := v.(string)
	return ok && hashPattern.MatchString(text)
}

func nonEmptyString(v any) bool {
	text, ok := v.(string)
	return ok && text != ""
}

// checkEntryShape returns "" when value has the documented members of an audit entry with their
// types, else what is wrong. Other members are allowed: entryHash covers them like the rest.
func checkEntryShape(value any) string {
	entry, ok := value.(map[string]any)
	if !ok {
		return "the entry is not a JSON object"
	}
	if !isChainIndex(entry["index"]) {
		return "index is not a non-negative integer"
	}
	for _, name := range []string{"tenantId", "actorId", "actorType", "eventType"} {
		if !nonEmptyString(entry[name]) {
			return name + " is missing or not a non-empty string"
		}
	}
	for _, name := range []string{"correlationId", "intentId"} {
		member, present := entry[name]
		if !present || (member != nil && !nonEmptyString(member)) {
			return name + " is missing or neither a non-empty string nor null"
		}
	}
	if _, present := entry["payload"]; !present {
		return "payload is missing"
	}
	for _, name := range []string{"previousHash", "entryHash"} {
		if !isHash(entry[name]) {
			return name + " is not 64 lower-case hex digits"
		}
	}
	if !isChainTimestamp(entry["createdAt"]) {
		return "createdAt is not YYYY-MM-DDTHH:mm:ss.sssZ"
	}
	return ""
}

// auditEntryHash is sha256_hex(JCS(entry without entryHash)); ok is false when the entry has no
// canonical form.
func auditEntryHash(entry map[string]any) (string, bool) {
	rest := make(map[string]any, len(entry))
	for name, value := range entry {
		if name != "entryHash" {
			rest[name] = value
		}
	}
	text, err := canonicalJSON(rest)
	if err != nil {
		return "", false
	}
	return sha256Hex(text), true
}
