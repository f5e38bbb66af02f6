package authority

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

const (
	// baseDelay is the first backoff ceiling; it doubles with each attempt, up to maxDelay.
	baseDelay = 200 * time.Millisecond
	maxDelay  = 5 * time.Second
)

// retryableStatus reports the answers worth another attempt; every other error status is final.
func retryableStatus(status int) bool {
	switch status {
	case 429, 500, 502, 503, 504:
		return true
	}
	return false
}

// backoffDelay is exponential backoff with full jitter: a uniform draw (random in [0, 1)) below
// min(maxDelay, baseDelay × 2^(attempt-1)) after failed attempt number attempt (from 1).
func backoffDelay(attempt int, random float64) time.Duration {
	ceiling := maxDelay
	if attempt < 16 {
		if grown := baseDelay << (attempt - 1); grown < maxDelay {
			ceiling = grown
		}
	}
	return time.Duration(random * float64(ceiling))
}

// retryAfter reads a retry-after header (delay seconds or an HTTP date); ok is false when it is
// absent or unreadable.
func retryAfter(value string, now time.Time) (time.Duration, bool) {
	text := strings.TrimSpace(value)
	if text == "" {
		return 0, false
	}
	if seconds, err := strconv.ParseUint(text, 10, 32); err == nil {
		return time.Duration(seconds) * time.Second, true
	}
	when, err := http.ParseTime(text)
	if err != nil {
		return 0, false
	}
	if wait := when.Sub(now); wait > 0 {
		return wait, true
	}
	return 0, true
}
