package policy

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Hash returns the hex SHA-256 of [Policy.StableJSON]. Two policies that
// differ only in syntax (YAML or JSON), key order, list order, duplicate
// list entries or an omitted "destructive" hash the same. It never fails;
// a nil policy hashes as the zero Policy.
func (p *Policy) Hash() string {
	sum := sha256.Sum256(p.StableJSON())
	return hex.EncodeToString(sum[:])
}

// StableJSON returns the canonical JSON form of the policy: every key
// present and sorted, no insignificant whitespace, "destructive" defaulted
// to "block", and every list (tools, globs, command prefixes) sorted with
// duplicates removed, since their order does not change any decision. A
// nil policy renders as the zero Policy.
func (p *Policy) StableJSON() []byte {
	var q Policy
	if p != nil {
		q = *p
	}
	var b strings.Builder
	b.WriteString(`{"always_allow":`)
	writeScope(&b, q.AlwaysAllow)
	b.WriteString(`,"commands":{"allow":[`)
	for i, prefix := range canonicalPrefixes(q.Commands.Allow) {
		if i > 0 {
			b.WriteByte(',')
		}
		writeStrings(&b, prefix)
	}
	b.WriteString(`],"flags":{`)
	keys := slices.Sorted(maps.Keys(q.Commands.Flags))
	for i, key := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		writeString(&b, key)
		b.WriteByte(':')
		writeStrings(&b, canonicalSet(q.Commands.Flags[key]))
	}
	b.WriteString(`}`)
	writeNetwork(&b, q.Commands.Network)
	b.WriteString(`},"destructive":`)
	writeString(&b, string(q.Destructive.effective()))
	b.WriteString(`,"max_changed_lines":`)
	b.WriteString(strconv.Itoa(q.MaxChangedLines))
	b.WriteString(`,"never_touch":`)
	writeStrings(&b, canonicalSet(q.NeverTouch))
	b.WriteString(`,"require_approval_for":`)
	writeScope(&b, q.RequireApprovalFor)
	b.WriteByte('}')
	return []byte(b.String())
}

// ContractHash returns the hex SHA-256 of the output-contract file bytes.
func ContractHash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// ContractHashFile reads the contract file at path and returns
// [ContractHash] of its bytes, or the wrapped os error if it cannot be
// read.
func ContractHashFile(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("could not read contract file: %w", err)
	}
	return ContractHash(data), nil
}

func writeScope(b *strings.Builder, s Scope) {
	b.WriteString(`{"paths":`)
	writeStrings(b, canonicalSet(s.Paths))
	b.WriteString(`,"tools":`)
	writeStrings(b, canonicalSet(s.Tools))
	b.WriteByte('}')
}

// canonicalSet returns a sorted copy of s without duplicates.
func canonicalSet(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return slices.Compact(out)
}

// canonicalPrefixes returns the prefixes sorted element-wise, without
// duplicates.
func canonicalPrefixes(prefixes [][]string) [][]string {
	out := slices.Clone(prefixes)
	slices.SortFunc(out, slices.Compare)
	return slices.CompactFunc(out, slices.Equal)
}

func writeStrings(b *strings.Builder, s []string) {
	b.WriteByte('[')
	for i, v := range s {
		if i > 0 {
			b.WriteByte(',')
		}
		writeString(b, v)
	}
	b.WriteByte(']')
}

// writeString writes s as a JSON string: quotes, backslashes and control
// characters escaped, invalid UTF-8 replaced by U+FFFD, nothing else
// escaped.
func writeString(b *strings.Builder, s string) {
	const hexDigits = "0123456789abcdef"
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		i += w
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20:
			b.WriteString(`\u00`)
			b.WriteByte(hexDigits[r>>4])
			b.WriteByte(hexDigits[r&0xf])
		default:
			b.WriteRune(r) // RuneError for invalid bytes writes U+FFFD
		}
	}
	b.WriteByte('"')
}
