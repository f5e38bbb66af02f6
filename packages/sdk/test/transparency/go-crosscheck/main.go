// Command crosscheck is the second implementation the SDK's transparency tests check against: it
// reads a JSON job on standard input, runs it with Go's golang.org/x/mod/sumdb/note and
// golang.org/x/mod/sumdb/tlog (as Debian packages them), and writes the JSON results. It is built
// and run only by go-crosscheck.test.ts, with GOPATH pointing at Debian's copy and no network.
//
// Go's tlog hashes records as SHA-256(0x00 || data), so a record's data here is the 32 bytes of an
// audit entry's entryHash, which gives the leaf hash of contract section 15. Its TreeHash of size
// 0 is all zeros rather than SHA-256 of nothing, so the job never asks for size 0.
package main

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

type inclusion struct {
	Index int64    `json:"index"`
	Size  int64    `json:"size"`
	Proof []string `json:"proof"`
}

type consistency struct {
	From  int64    `json:"from"`
	To    int64    `json:"to"`
	Proof []string `json:"proof"`
}

type noteJob struct {
	Note        string   `json:"note"`
	LogKey      string   `json:"logKey"`
	WitnessKeys []string `json:"witnessKeys"`
}

type signJob struct {
	Skey string `json:"skey"`
	Text string `json:"text"`
	// When Time is set, the key cosigns (tlog-cosignature v1) at that unix time.
	Time uint64 `json:"time"`
}

type job struct {
	Leaves           []string      `json:"leaves"`
	Inclusion        []inclusion   `json:"inclusion"`
	Consistency      []consistency `json:"consistency"`
	ProveInclusion   []inclusion   `json:"proveInclusion"`
	ProveConsistency []consistency `json:"proveConsistency"`
	Notes            []noteJob     `json:"notes"`
	Sign             []signJob     `json:"sign"`
	Generate         []string      `json:"generate"`
}

type outcome struct {
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
}

type noteOutcome struct {
	OK       bool     `json:"ok"`
	Error    string   `json:"error,omitempty"`
	Verified []string `json:"verified"`
	Origin   string   `json:"origin"`
	Size     int64    `json:"size"`
	Root     string   `json:"root"`
}

type result struct {
	TreeHashes       []string      `json:"treeHashes"`
	Inclusion        []outcome     `json:"inclusion"`
	Consistency      []outcome     `json:"consistency"`
	ProveInclusion   []inclusion   `json:"proveInclusion"`
	ProveConsistency []consistency `json:"proveConsistency"`
	Notes            []noteOutcome `json:"notes"`
	Signed           []string      `json:"signed"`
	Generated        [][2]string   `json:"generated"`
}

// cosigV1 verifies and makes timestamped Ed25519 cosignatures (type 0x04), from the text of C2SP
// tlog-cosignature: key ID over name, newline, 0x04 and the key; signature over
// "cosignature/v1\ntime <t>\n" and the note text; 8-byte big-endian time before the signature.
type cosigV1 struct {
	name string
	hash uint32
	pub  ed25519.PublicKey
	priv ed25519.PrivateKey
	time uint64
}

func cosigKeyHash(name string, pub []byte) uint32 {
	sum := sha256.Sum256(append(append([]byte(name+"\n"), 0x04), pub...))
	return binary.BigEndian.Uint32(sum[:4])
}

func cosigMessage(t uint64, text []byte) []byte {
	return append([]byte(fmt.Sprintf("cosignature/v1\ntime %d\n", t)), text...)
}

func (c *cosigV1) Name() string    { return c.name }
func (c *cosigV1) KeyHash() uint32 { return c.hash }
func (c *cosigV1) Verify(msg, sig []byte) bool {
	if len(sig) != 8+ed25519.SignatureSize {
		return false
	}
	return ed25519.Verify(c.pub, cosigMessage(binary.BigEndian.Uint64(sig[:8]), msg), sig[8:])
}
func (c *cosigV1) Sign(msg []byte) ([]byte, error) {
	out := make([]byte, 8, 8+ed25519.SignatureSize)
	binary.BigEndian.PutUint64(out, c.time)
	return append(out, ed25519.Sign(c.priv, cosigMessage(c.time, msg))...), nil
}

func cosigVerifier(vkey string) (*cosigV1, error) {
	parts := strings.SplitN(vkey, "+", 3)
	if len(parts) != 3 {
		return nil, errors.New("malformed cosignature key")
	}
	data, err := base64.StdEncoding.DecodeString(parts[2])
	if err != nil || len(data) != 33 || data[0] != 0x04 {
		return nil, errors.New("not a 0x04 key")
	}
	c := &cosigV1{name: parts[0], pub: data[1:], hash: cosigKeyHash(parts[0], data[1:])}
	if fmt.Sprintf("%08x", c.hash) != parts[1] {
		return nil, errors.New("cosignature key ID mismatch")
	}
	return c, nil
}

// cosigSigner derives a cosigner from a note signer key, as the key file of a witness holds one.
func cosigSigner(skey string, t uint64) (*cosigV1, error) {
	parts := strings.SplitN(skey, "+", 5)
	if len(parts) != 5 || parts[0] != "PRIVATE" || parts[1] != "KEY" {
		return nil, errors.New("malformed signer key")
	}
	data, err := base64.StdEncoding.DecodeString(parts[4])
	if err != nil || len(data) != 33 || data[0] != 0x01 {
		return nil, errors.New("not an Ed25519 signer key")
	}
	priv := ed25519.NewKeyFromSeed(data[1:])
	pub := priv.Public().(ed25519.PublicKey)
	return &cosigV1{name: parts[2], pub: pub, priv: priv, hash: cosigKeyHash(parts[2], pub), time: t}, nil
}

func hashes(list []string) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(list))
	for i, s := range list {
		h, err := tlog.ParseHash(s)
		if err != nil {
			return nil, err
		}
		out[i] = h
	}
	return out, nil
}

func encode(list []tlog.Hash) []string {
	out := make([]string, len(list))
	for i, h := range list {
		out[i] = h.String()
	}
	return out
}

func errText(err error) outcome {
	if err != nil {
		return outcome{Error: err.Error()}
	}
	return outcome{OK: true}
}

// checkpoint reads a tlog-checkpoint body: origin, decimal size, base64 root hash.
func checkpoint(text string) (string, int64, tlog.Hash, error) {
	lines := strings.Split(text, "\n")
	if len(lines) < 4 || lines[len(lines)-1] != "" {
		return "", 0, tlog.Hash{}, errors.New("malformed checkpoint")
	}
	size, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil || size < 0 || strconv.FormatInt(size, 10) != lines[1] {
		return "", 0, tlog.Hash{}, errors.New("malformed checkpoint size")
	}
	root, err := tlog.ParseHash(lines[2])
	return lines[0], size, root, err
}

func run(j job) (result, error) {
	var r result
	var storage []tlog.Hash
	reader := tlog.HashReaderFunc(func(indexes []int64) ([]tlog.Hash, error) {
		out := make([]tlog.Hash, len(indexes))
		for i, x := range indexes {
			out[i] = storage[x]
		}
		return out, nil
	})
	for i, leaf := range j.Leaves {
		data, err := hex.DecodeString(leaf)
		if err != nil {
			return r, err
		}
		stored, err := tlog.StoredHashes(int64(i), data, reader)
		if err != nil {
			return r, err
		}
		storage = append(storage, stored...)
		root, err := tlog.TreeHash(int64(i+1), reader)
		if err != nil {
			return r, err
		}
		r.TreeHashes = append(r.TreeHashes, root.String())
	}
	treeHash := func(n int64) tlog.Hash {
		h, _ := tlog.TreeHash(n, reader)
		return h
	}
	known := func(sizes ...int64) error {
		for _, n := range sizes {
			if n < 1 || n > int64(len(j.Leaves)) {
				return fmt.Errorf("size %d is not a tree of this job", n)
			}
		}
		return nil
	}
	for _, c := range j.Inclusion {
		proof, err := hashes(c.Proof)
		if err == nil {
			err = known(c.Size, c.Index+1)
		}
		if err == nil {
			data, _ := hex.DecodeString(j.Leaves[c.Index])
			err = tlog.CheckRecord(proof, c.Size, treeHash(c.Size), c.Index, tlog.RecordHash(data))
		}
		r.Inclusion = append(r.Inclusion, errText(err))
	}
	for _, c := range j.Consistency {
		proof, err := hashes(c.Proof)
		if err == nil {
			err = known(c.From, c.To)
		}
		if err == nil {
			err = tlog.CheckTree(proof, c.To, treeHash(c.To), c.From, treeHash(c.From))
		}
		r.Consistency = append(r.Consistency, errText(err))
	}
	for _, c := range j.ProveInclusion {
		proof, err := tlog.ProveRecord(c.Size, c.Index, reader)
		if err != nil {
			return r, err
		}
		r.ProveInclusion = append(r.ProveInclusion, inclusion{c.Index, c.Size, encode(proof)})
	}
	for _, c := range j.ProveConsistency {
		proof, err := tlog.ProveTree(c.To, c.From, reader)
		if err != nil {
			return r, err
		}
		r.ProveConsistency = append(r.ProveConsistency, consistency{c.From, c.To, encode(proof)})
	}
	for _, n := range j.Notes {
		r.Notes = append(r.Notes, openNote(n))
	}
	for _, s := range j.Sign {
		var signer note.Signer
		var err error
		if s.Time != 0 {
			signer, err = cosigSigner(s.Skey, s.Time)
		} else {
			signer, err = note.NewSigner(s.Skey)
		}
		if err != nil {
			return r, err
		}
		msg, err := note.Sign(&note.Note{Text: s.Text}, signer)
		if err != nil {
			return r, err
		}
		r.Signed = append(r.Signed, string(msg))
	}
	for _, name := range j.Generate {
		skey, vkey, err := note.GenerateKey(nil, name)
		if err != nil {
			return r, err
		}
		r.Generated = append(r.Generated, [2]string{skey, vkey})
	}
	return r, nil
}

func openNote(n noteJob) noteOutcome {
	var verifiers []note.Verifier
	v, err := note.NewVerifier(n.LogKey)
	if err != nil {
		return noteOutcome{Error: err.Error()}
	}
	verifiers = append(verifiers, v)
	for _, key := range n.WitnessKeys {
		c, err := cosigVerifier(key)
		if err != nil {
			return noteOutcome{Error: err.Error()}
		}
		verifiers = append(verifiers, c)
	}
	opened, err := note.Open([]byte(n.Note), note.VerifierList(verifiers...))
	if err != nil {
		return noteOutcome{Error: err.Error()}
	}
	out := noteOutcome{OK: true}
	for _, sig := range opened.Sigs {
		out.Verified = append(out.Verified, fmt.Sprintf("%s+%08x", sig.Name, sig.Hash))
	}
	origin, size, root, err := checkpoint(opened.Text)
	if err != nil {
		return noteOutcome{Error: err.Error()}
	}
	out.Origin, out.Size, out.Root = origin, size, root.String()
	return out
}

func main() {
	var j job
	if err := json.NewDecoder(os.Stdin).Decode(&j); err != nil {
		fmt.Fprintln(os.Stderr, "crosscheck:", err)
		os.Exit(2)
	}
	r, err := run(j)
	if err != nil {
		fmt.Fprintln(os.Stderr, "crosscheck:", err)
		os.Exit(1)
	}
	if err := json.NewEncoder(os.Stdout).Encode(r); err != nil {
		fmt.Fprintln(os.Stderr, "crosscheck:", err)
		os.Exit(1)
	}
}
