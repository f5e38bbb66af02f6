package authority

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// errNoCanonicalForm is returned for a value RFC 8785 cannot write: a non-finite number, a string
// that is not valid Unicode (a lone surrogate), a type that is not JSON.
var errNoCanonicalForm = errors.New("the value has no canonical JSON form")

// canonicalJSON is the RFC 8785 (JCS) text of a value as parseJSON returns it: members sorted by
// their UTF-16 code units, numbers written as ECMAScript writes them, strings escaped as
// JSON.stringify escapes them. The audit chain hashes entries over it and webhooks are signed over
// it, so it must be byte for byte what the service writes.
func canonicalJSON(value any) (string, error) {
	var b strings.Builder
	if err := writeCanonical(&b, value); err != nil {
		return "", err
	}
	return b.String(), nil
}

func sha256Hex(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

func writeCanonical(b *strings.Builder, value any) error {
	switch v := value.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case float64:
		text, err := ecmaNumber(v)
		if err != nil {
			return err
		}
		b.WriteString(text)
	case string:
		return writeCanonicalString(b, v)
	case []any:
		b.WriteByte('[')
		for i, item := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeCanonical(b, item); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case map[string]any:
		names := make([]string, 0, len(v))
		for name := range v {
			if !utf8.ValidString(name) {
				return errNoCanonicalForm
			}
			names = append(names, name)
		}
		sort.Slice(names, func(i, j int) bool { return utf16Less(names[i], names[j]) })
		b.WriteByte('{')
		for i, name := range names {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeCanonicalString(b, name); err != nil {
				return err
			}
			b.WriteByte(':')
			if err := writeCanonical(b, v[name]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	default:
		return fmt.Errorf("%w: %T", errNoCanonicalForm, value)
	}
	return nil
}

func utf16Less(a, b string) bool {
	ua, ub := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	for i := 0; i < len(ua) && i < len(ub); i++ {
		if ua[i] != ub[i] {
			return ua[i] < ub[i]
		}
	}
	return len(ua) < len(ub)
}

func writeCanonicalString(b *strings.Builder, s string) error {
	if !utf8.ValidString(s) {
		return errNoCanonicalForm
	}
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				fmt.Fprintf(b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return nil
}

// ecmaNumber writes a float64 as ECMAScript's Number::toString does.
func ecmaNumber(f float64) (string, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return "", errNoCanonicalForm
	}
	if f == 0 {
		return "0", nil
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	// Shortest round-trip digits: "d.ddde±x".
	shortest := strconv.FormatFloat(f, 'e', -1, 64)
	mantissa, exponentText, _ := strings.Cut(shortest, "e")
	exponent, err := strconv.Atoi(exponentText)
	if err != nil {
		return "", err
	}
	digits := strings.Replace(mantissa, ".", "", 1)
	digits = strings.TrimRight(digits, "0")
	if digits == "" {
		digits = "0"
	}
	k, n := len(digits), exponent+1 // value = 0.digits × 10^n
	var text string
	switch {
	case k <= n && n <= 21:
		text = digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		text = digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		text = "0." + strings.Repeat("0", -n) + digits
	default:
		power := n - 1
		signText := "+"
		if power < 0 {
			signText, power = "-", -power
		}
		if k == 1 {
			text = digits + "e" + signText + strconv.Itoa(power)
		} else {
			text = digits[:1] + "." + digits[1:] + "e" + signText + strconv.Itoa(power)
		}
	}
	return sign + text, nil
}
