package redact

import "strings"

// secretContainerRule redacts the values inside a JSON array or object
// (or a YAML flow collection) held under a secret-like key in text ({"secrets": ["…"]},
// "password": [\n "…"\n], a Python dict's {'api_key': {'v': '…'}}), as
// JSON and Value redact every value under such a key: the strings and
// bare scalars (numbers, words) inside, at any depth, but the keys of
// the objects inside. A container its text leaves open runs to the
// text's end. The text is read on after each container, so each byte is
// read once.
var secretContainerRule = rule{label: "credential", find: findSecretContainers, hints: quotedNameHints, wholeText: true, pre: mayHoldContainer}

// mayHoldContainer reports whether s may hold a container under a
// secret-like key: a ":" followed by spaces and a "[" or "{" (cheap,
// read first), and hasSecretAssignment.
func mayHoldContainer(s string) bool {
	for i := 0; ; i++ {
		j := strings.IndexByte(s[i:], ':')
		if j < 0 {
			return false
		}
		i += j
		k := i + 1
		for k < len(s) && isShellSpace(s[k]) {
			k++
		}
		if k < len(s) && (s[k] == '[' || s[k] == '{') {
			return hasSecretAssignment(s)
		}
	}
}

// findSecretContainers returns the spans of the values in the
// containers under quoted secret-like keys in s.
func findSecretContainers(s string) [][]int {
	var locs [][]int
	for i := 0; i < len(s); {
		j := strings.IndexAny(s[i:], "[{")
		if j < 0 {
			break
		}
		p := i + j
		if strings.HasPrefix(s[p:], "[REDACTED:") || !secretKeyBefore(s, p) {
			i = p + 1
			continue
		}
		var end int
		locs, end = appendContainerValues(locs, s, p)
		i = max(end, p+1)
	}
	return locs
}

// maxKeyLen bounds the quoted key read back from a container's opening.
const maxKeyLen = 128

// secretKeyBefore reports whether the "[" or "{" at s[p] is the value of
// a key naming a secret, quoted (" or ': IsSecretKey, as JSON reads it)
// or a YAML key's name (secretName, as the name: value rules read it, so
// auth: {user: a} keeps its members): the key, spaces, ":" and spaces
// before it.
func secretKeyBefore(s string, p int) bool {
	k := p - 1
	newline := false // a line break between the key and the container
	for k >= 0 && isShellSpace(s[k]) {
		newline = newline || s[k] == '\n'
		k--
	}
	if k < 0 || s[k] != ':' {
		return false
	}
	k--
	for k >= 0 && (s[k] == ' ' || s[k] == '\t') {
		k--
	}
	if k >= 0 && isNameByte(s[k]) {
		if newline {
			return false // a YAML key's collection on its line only (not a comment's "password:")
		}
		// A YAML key (password: [\n  …\n]).
		e := k + 1
		for k >= 0 && e-k <= maxKeyLen && isNameByte(s[k]) {
			k--
		}
		name := s[k+1 : e]
		return isSecretKey(name) && nameRe.MatchString(shortNameRun(name)) // as the name: value rules read it
	}
	if k < 0 || s[k] != '"' && s[k] != '\'' {
		return false
	}
	q, e := s[k], k
	for k--; k >= 0 && e-k <= maxKeyLen && s[k] != q && s[k] != '\n'; k-- {
	}
	return k >= 0 && s[k] == q && k+1 < e && isSecretKey(s[k+1:e])
}

// appendContainerValues appends to locs the spans of the values in the
// container opening at s[p] and returns them with where it ends (after
// its closing bracket, or the end of s).
func appendContainerValues(locs [][]int, s string, p int) ([][]int, int) {
	depth := 0
	for k := p; k < len(s); k++ {
		switch c := s[k]; {
		case strings.HasPrefix(s[k:], "[REDACTED:"):
			k += strings.IndexByte(s[k:], ']') // a marker: redacted already
		case c == '[' || c == '{':
			depth++
		case c == ']' || c == '}':
			if depth--; depth == 0 {
				return locs, k + 1
			}
		case c == ',' || c == ':' || isShellSpace(c):
		case c == '"' || c == '\'':
			e := closingQuote(s, k+1, c)
			if c == '\'' {
				e = closingSingle(s, k+1)
			}
			if e > k+1 && !isKeyAt(s, e+1) {
				locs = append(locs, []int{k + 1, e})
			}
			k = e
		default:
			e := k
			for e < len(s) && !isShellSpace(s[e]) && strings.IndexByte("[]{},:\"'", s[e]) < 0 {
				e++
			}
			if !isKeyAt(s, e) {
				locs = append(locs, []int{k, e})
			}
			k = e - 1
		}
	}
	return locs, len(s)
}

// isKeyAt reports whether a scalar ending just before s[i] is an object
// key: a ":" follows it after spaces.
func isKeyAt(s string, i int) bool {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i < len(s) && s[i] == ':'
}

// closingSingle returns the index of the ' closing a Python string that
// starts at s[start] (a backslash escapes the next character), or the
// end of s.
func closingSingle(s string, start int) int {
	for i := start; i < len(s); i++ {
		switch s[i] {
		case '\'':
			return i
		case '\\':
			i++
		}
	}
	return len(s)
}
