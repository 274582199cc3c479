package redact

import (
	"encoding/base64"
	"regexp"
	"strings"
)

// base64PEMRule redacts a PEM private key encoded in base64, as in a
// Kubernetes Secret's data (tls.key: LS0tLS1CRUdJTi…) or a CI variable:
// a base64 run starting with the encoding of "-----BEGIN", with the
// continuation lines of wrapped output, whose decoded start names a
// private key or an nkey seed (a certificate is kept).
var base64PEMRule = rule{label: "private-key", find: findBase64PEM, hints: []string{"ls0tls1crudjt"}, wholeText: true}

// base64PEM matches the candidates: "LS0tLS1CRUdJTi" is "-----BEGIN" in
// base64.
var base64PEM = regexp.MustCompile(`LS0tLS1CRUdJTi[A-Za-z0-9+/]*={0,2}(?:\r?\n[A-Za-z0-9+/]{20,}={0,2})*`)

// findBase64PEM returns the spans of the base64-encoded private keys in s.
func findBase64PEM(s string) [][]int {
	var locs [][]int
	for _, m := range base64PEM.FindAllStringIndex(s, -1) {
		head := s[m[0]:m[1]]
		if i := strings.IndexAny(head, "\r\n="); i >= 0 {
			head = head[:i]
		}
		head = head[:min(len(head), 96)/4*4]
		text, err := base64.StdEncoding.DecodeString(head)
		if err != nil {
			continue
		}
		if t := string(text); strings.Contains(t, "PRIVATE KEY") || strings.Contains(t, "NKEY SEED") {
			locs = append(locs, m)
		}
	}
	return locs
}
