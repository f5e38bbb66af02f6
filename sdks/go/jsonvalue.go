package authority

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// maxJSONDepth bounds the nesting of parsed JSON, so hostile input cannot exhaust the stack.
const maxJSONDepth = 512

// parseJSON parses a JSON text exactly as JavaScript's JSON.parse reads it, which is what the
// service and the TypeScript SDK do: numbers become float64 (out of range: ±Inf), the last of
// duplicate members wins, and a lone surrogate escape is kept (as its WTF-8 bytes, which are not
// valid UTF-8), so that it can be refused where a canonical form is needed instead of being
// silently replaced as encoding/json does. Values are nil, bool, float64, string, []any and
// map[string]any.
func parseJSON(data []byte) (any, error) {
	p := &jsonParser{data: data}
	p.space()
	value, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.pos != len(p.data) {
		return nil, p.fail("unexpected data after the JSON value")
	}
	return value, nil
}

type jsonParser struct {
	data []byte
	pos  int
}

func (p *jsonParser) fail(message string) error {
	return fmt.Errorf("invalid JSON at byte %d: %s", p.pos, message)
}

func (p *jsonParser) space() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *jsonParser) literal(text string, value any) (any, error) {
	if len(p.data)-p.pos < len(text) || string(p.data[p.pos:p.pos+len(text)]) != text {
		return nil, p.fail("unknown literal")
	}
	p.pos += len(text)
	return value, nil
}

func (p *jsonParser) value(depth int) (any, error) {
	if depth > maxJSONDepth {
		return nil, p.fail("nested too deeply")
	}
	if p.pos >= len(p.data) {
		return nil, p.fail("unexpected end")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		return p.str()
	case c == 't':
		return p.literal("true", true)
	case c == 'f':
		return p.literal("false", false)
	case c == 'n':
		return p.literal("null", nil)
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	default:
		return nil, p.fail("unexpected character")
	}
}

func (p *jsonParser) object(depth int) (any, error) {
	p.pos++
	out := map[string]any{}
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return out, nil
	}
	for {
		p.space()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil, p.fail("expected a member name")
		}
		name, err := p.str()
		if err != nil {
			return nil, err
		}
		p.space()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.fail("expected ':'")
		}
		p.pos++
		p.space()
		member, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		out[name] = member
		p.space()
		if p.pos < len(p.data) && p.data[p.pos] == ',' {
			p.pos++
			continue
		}
		if p.pos < len(p.data) && p.data[p.pos] == '}' {
			p.pos++
			return out, nil
		}
		return nil, p.fail("expected ',' or '}'")
	}
}

func (p *jsonParser) array(depth int) (any, error) {
	p.pos++
	out := []any{}
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return out, nil
	}
	for {
		p.space()
		item, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		out = append(out, item)
		p.space()
		if p.pos < len(p.data) && p.data[p.pos] == ',' {
			p.pos++
			continue
		}
		if p.pos < len(p.data) && p.data[p.pos] == ']' {
			p.pos++
			return out, nil
		}
		return nil, p.fail("expected ',' or ']'")
	}
}

func (p *jsonParser) number() (any, error) {
	start := p.pos
	digits := func() int {
		n := 0
		for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
			p.pos++
			n++
		}
		return n
	}
	if p.data[p.pos] == '-' {
		p.pos++
	}
	if p.pos < len(p.data) && p.data[p.pos] == '0' {
		p.pos++
	} else if digits() == 0 {
		return nil, p.fail("expected a digit")
	}
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return nil, p.fail("expected a digit after '.'")
		}
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return nil, p.fail("expected a digit in the exponent")
		}
	}
	value, err := strconv.ParseFloat(string(p.data[start:p.pos]), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return nil, p.fail("malformed number")
	}
	return value, nil // out of range: ±Inf (or 0), as JSON.parse gives
}

func (p *jsonParser) hex4() (rune, error) {
	if len(p.data)-p.pos < 4 {
		return 0, p.fail("short \\u escape")
	}
	value, err := strconv.ParseUint(string(p.data[p.pos:p.pos+4]), 16, 32)
	if err != nil {
		return 0, p.fail("malformed \\u escape")
	}
	p.pos += 4
	return rune(value), nil
}

// wtf8 appends a code point that may be a lone surrogate (which UTF-8 cannot hold).
func wtf8(out []byte, r rune) []byte {
	if r >= 0xD800 && r <= 0xDFFF {
		return append(out, byte(0xE0|r>>12), byte(0x80|(r>>6)&0x3F), byte(0x80|r&0x3F))
	}
	return utf8.AppendRune(out, r)
}

func (p *jsonParser) str() (string, error) {
	p.pos++
	var out []byte
	for {
		if p.pos >= len(p.data) {
			return "", p.fail("unterminated string")
		}
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			return string(out), nil
		case c < 0x20:
			return "", p.fail("control character in a string")
		case c != '\\':
			out = append(out, c)
			p.pos++
			continue
		}
		p.pos++
		if p.pos >= len(p.data) {
			return "", p.fail("unterminated escape")
		}
		escape := p.data[p.pos]
		p.pos++
		switch escape {
		case '"', '\\', '/':
			out = append(out, escape)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, err := p.hex4()
			if err != nil {
				return "", err
			}
			if utf16.IsSurrogate(r) && r < 0xDC00 && len(p.data)-p.pos >= 6 && p.data[p.pos] == '\\' && p.data[p.pos+1] == 'u' {
				saved := p.pos
				p.pos += 2
				low, err := p.hex4()
				if err == nil && low >= 0xDC00 && low <= 0xDFFF {
					out = utf8.AppendRune(out, utf16.DecodeRune(r, low))
					continue
				}
				p.pos = saved
			}
			out = wtf8(out, r)
		default:
			return "", p.fail("unknown escape")
		}
	}
}

// isFiniteNumber reports whether v is a JSON number that is finite.
func isFiniteNumber(v any) bool {
	f, ok := v.(float64)
	return ok && !math.IsInf(f, 0) && !math.IsNaN(f)
}
