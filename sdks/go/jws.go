package authority

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"strings"
	"unicode/utf8"
)

// minRSABits is the smallest RSA modulus accepted, as the TypeScript SDK (jose) does.
const minRSABits = 2048

// p256HalfOrder is n/2 for the order n of the P-256 group. For every ECDSA signature (r, s),
// (r, n - s) verifies too; the service mints only the one with s <= n/2, so a token has exactly
// one valid encoding, and the verifiers refuse the other (docs/decisions.md, "Hardening").
var p256HalfOrder = new(big.Int).Rsh(elliptic.P256().Params().N, 1)

var (
	base64URL = regexp.MustCompile(`^[A-Za-z0-9_-]*$`)
	// The tenant part may contain "-", so the fixed-shape parts are anchored at the end; like
	// JavaScript's ".", the tenant part never spans a line terminator.
	kidPattern = regexp.MustCompile(`^([^\n\r\x{2028}\x{2029}]+)-([0-9]{1,12})-([A-Z2-7]{8})$`)
	utf8BOM    = []byte{0xEF, 0xBB, 0xBF}
)

// decodeBase64URL decodes canonical unpadded base64url only: several texts decoding to the same
// bytes would let a modified JWS still verify.
func decodeBase64URL(part string) ([]byte, bool) {
	if !base64URL.MatchString(part) || len(part)%4 == 1 {
		return nil, false
	}
	raw, err := base64.RawURLEncoding.Strict().DecodeString(part)
	if err != nil || base64.RawURLEncoding.EncodeToString(raw) != part {
		return nil, false
	}
	return raw, true
}

// parseJSONText parses bytes that must be valid UTF-8 (a leading BOM is dropped, as a UTF-8
// decoder does).
func parseJSONText(data []byte) (any, error) {
	if !utf8.Valid(data) {
		return nil, errors.New("not UTF-8")
	}
	return parseJSON(bytes.TrimPrefix(data, utf8BOM))
}

type compactJWS struct {
	header    map[string]any
	alg, kid  string
	input     string
	payload   []byte
	signature []byte
}

// splitCompactJWS returns the parts of a compact JWS, or why the value is not one.
func splitCompactJWS(value string, maxLength int, subject string) (*compactJWS, string) {
	if utf16Length(value) > maxLength {
		return nil, subject + " is too long"
	}
	parts := strings.Split(value, ".")
	if len(parts) != 3 {
		return nil, subject + " does not have three parts"
	}
	if parts[0] == "" || parts[1] == "" {
		return nil, "empty header or payload"
	}
	decoded := make([][]byte, 3)
	for i, part := range parts {
		raw, ok := decodeBase64URL(part)
		if !ok {
			return nil, "a part is not canonical base64url"
		}
		decoded[i] = raw
	}
	parsed, err := parseJSONText(decoded[0])
	if err != nil {
		return nil, "the header is not JSON"
	}
	header, ok := parsed.(map[string]any)
	if !ok {
		return nil, "the header is not a JSON object"
	}
	alg, ok := header["alg"].(string)
	if !ok {
		return nil, "the header has no alg"
	}
	kid, ok := header["kid"].(string)
	if !ok || kid == "" {
		return nil, "the header has no kid"
	}
	return &compactJWS{
		header: header, alg: alg, kid: kid,
		input:   parts[0] + "." + parts[1],
		payload: decoded[1], signature: decoded[2],
	}, ""
}

// utf16Length counts a string as JavaScript does (its length limits are in UTF-16 code units).
func utf16Length(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// kidTenant is the tenant of a kid "<tenantId>-<unix seconds>-<8 base32 chars>", or "".
func kidTenant(kid string) string {
	match := kidPattern.FindStringSubmatch(kid)
	if match == nil {
		return ""
	}
	return match[1]
}

// resolveKey looks kid up: the key, why it is unknown, or the source's error.
func resolveKey(source KeySource, kid string) (JWK, string, error) {
	jwk, err := source.Key(kid)
	if err != nil {
		return nil, "", err
	}
	if jwk == nil {
		return nil, "kid is not in the key set", nil
	}
	if other, present := jwk["kid"]; present && other != kid {
		return nil, "the key source returned a key of another kid", nil
	}
	return jwk, "", nil
}

func keyBytes(jwk JWK, member string, size int) ([]byte, error) {
	text, ok := jwk[member].(string)
	if !ok {
		return nil, fmt.Errorf("the key has no %s", member)
	}
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(text, "="))
	if err != nil {
		return nil, fmt.Errorf("the key's %s is not base64url", member)
	}
	if size > 0 && len(raw) != size {
		return nil, fmt.Errorf("the key's %s is not %d bytes", member, size)
	}
	return raw, nil
}

func publicKey(jwk JWK, alg string) (crypto.PublicKey, error) {
	switch alg {
	case "EdDSA":
		x, err := keyBytes(jwk, "x", ed25519.PublicKeySize)
		if err != nil {
			return nil, err
		}
		return ed25519.PublicKey(x), nil
	case "ES256":
		x, err := keyBytes(jwk, "x", 32)
		if err != nil {
			return nil, err
		}
		y, err := keyBytes(jwk, "y", 32)
		if err != nil {
			return nil, err
		}
		key := &ecdsa.PublicKey{Curve: elliptic.P256(), X: new(big.Int).SetBytes(x), Y: new(big.Int).SetBytes(y)}
		if !key.Curve.IsOnCurve(key.X, key.Y) {
			return nil, errors.New("the key is not a point of P-256")
		}
		return key, nil
	default: // RS256
		n, err := keyBytes(jwk, "n", 0)
		if err != nil {
			return nil, err
		}
		e, err := keyBytes(jwk, "e", 0)
		if err != nil {
			return nil, err
		}
		modulus, exponent := new(big.Int).SetBytes(n), new(big.Int).SetBytes(e)
		if modulus.BitLen() < minRSABits {
			return nil, fmt.Errorf("RSA keys below %d bits are refused", minRSABits)
		}
		if !exponent.IsInt64() || exponent.Int64() < 3 || exponent.Int64() > 1<<31-1 {
			return nil, errors.New("unusable RSA exponent")
		}
		return &rsa.PublicKey{N: modulus, E: int(exponent.Int64())}, nil
	}
}

// verifyCompactJWS checks the signature with the key's own algorithm, which the header must name,
// so "alg": "none", HS256 keyed with the public key and every other algorithm confusion fail; an
// ES256 signature must be low-S. It returns "" when the signature verifies, else the problem.
func verifyCompactJWS(parts *compactJWS, jwk JWK) string {
	alg, err := keyAlgorithm(jwk)
	if err != nil {
		return "unusable key: " + err.Error()
	}
	if parts.alg != alg {
		return fmt.Sprintf("header alg %q is not the key's %s", parts.alg, alg)
	}
	if _, present := parts.header["crit"]; present {
		return "critical header extensions are not supported"
	}
	key, err := publicKey(jwk, alg)
	if err != nil {
		return "unusable key: " + err.Error()
	}
	input := []byte(parts.input)
	digest := sha256.Sum256(input)
	ok := false
	switch k := key.(type) {
	case ed25519.PublicKey:
		ok = len(parts.signature) == ed25519.SignatureSize && ed25519.Verify(k, input, parts.signature)
	case *ecdsa.PublicKey:
		if len(parts.signature) == 64 {
			r := new(big.Int).SetBytes(parts.signature[:32])
			s := new(big.Int).SetBytes(parts.signature[32:])
			if s.Cmp(p256HalfOrder) > 0 {
				return "the ES256 signature is not in low-S form"
			}
			ok = ecdsa.Verify(k, digest[:], r, s)
		}
	case *rsa.PublicKey:
		ok = rsa.VerifyPKCS1v15(k, crypto.SHA256, digest[:], parts.signature) == nil
	}
	if !ok {
		return "signature check failed"
	}
	return ""
}

// verifySignedStatement checks a signed statement of the service (a receipt seal): header typ,
// a kid of tenantID found in keys, a signature under that key's algorithm, and exactly payload as
// its content. It returns "" when it verifies, the problem, or the error of a failing key source.
func verifySignedStatement(jws, typ, tenantID, payload string, keys KeySource) (string, error) {
	parts, problem := splitCompactJWS(jws, 1<<53, "the signature")
	if parts == nil {
		return problem, nil
	}
	if parts.header["typ"] != typ {
		return fmt.Sprintf("header typ %v is not %s", parts.header["typ"], typ), nil
	}
	tenant := kidTenant(parts.kid)
	if tenant == "" {
		return "kid is not of the form <tenantId>-<seconds>-<base32>", nil
	}
	if tenant != tenantID {
		return "kid belongs to another tenant", nil
	}
	jwk, unknown, err := resolveKey(keys, parts.kid)
	if err != nil {
		return "", err
	}
	if jwk == nil {
		return fmt.Sprintf("%s (kid %s)", unknown, parts.kid), nil
	}
	if problem := verifyCompactJWS(parts, jwk); problem != "" {
		return problem, nil
	}
	if !utf8.Valid(parts.payload) {
		return "the signed payload is not UTF-8", nil
	}
	if string(bytes.TrimPrefix(parts.payload, utf8BOM)) != payload {
		return "the signed payload is not the JCS of the other fields", nil
	}
	return "", nil
}
