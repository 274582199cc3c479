package redact

import (
	"slices"
	"strings"
)

// netrcRule redacts the password of a .netrc entry, on one line or over
// several: machine HOST login USER password SECRET, and the default
// entry's (default login USER password SECRET).
var netrcRule = wholeText(withPre(rule{label: "password", find: findNetrcPasswords, hints: []string{"password"}},
	func(s string) bool { return strings.Contains(s, "machine") || strings.Contains(s, "default") }))

// findNetrcPasswords returns the spans of the values after "password" in
// the .netrc entries of s. The text is read as .netrc's tokens, words
// between white space: an entry starts at the word "machine" and its
// host (holding a dot, or followed by login, account or port), or at "default" before
// login or account, and goes on while the next word is one of the
// keywords login, password, account and port, each followed by its
// value; any other word ends it (so prose seldom makes one: "the machine
// learning login password page" is machine, learning, login password,
// then "page" ends it). A keyword may follow a quote ('machine …, an
// echo's argument); a value ends at white space, a quote or a backslash
// escape (\n, \t, \r, \" in JSON text), so the string holding it is
// kept.
func findNetrcPasswords(s string) [][]int {
	var locs [][]int
	inEntry := false
	for b, e := netrcToken(s, 0); b < len(s); b, e = netrcToken(s, e) {
		switch strings.TrimLeft(s[b:e], `"'`) {
		case "machine":
			// The host, then a keyword; a host without a dot only before
			// login, account or port ("each machine has password
			// protection" is prose).
			var hb int
			hb, e = netrcToken(s, e)
			nb, ne := netrcToken(s, e)
			next := s[nb:ne]
			// A host that is a type's name is a struct's field (machine
			// string / login string / password string), no entry.
			inEntry = !isTypeName(s[hb:e]) &&
				(strings.IndexByte(s[hb:e], '.') >= 0 || next == "login" || next == "account" || next == "port")
		case "default":
			// Only before login or account: prose's "the default
			// password is …" makes no entry.
			nb, ne := netrcToken(s, e)
			next := s[nb:ne]
			inEntry = next == "login" || next == "account"
		case "login", "account", "port":
			if inEntry {
				_, e = netrcToken(s, e)
			}
		case "password":
			if !inEntry {
				continue
			}
			var vb int
			vb, e = netrcToken(s, e)
			if ve := netrcValueEnd(s, vb, e); vb < ve {
				locs = append(locs, []int{vb, ve})
			}
		default:
			inEntry = false
		}
	}
	return locs
}

// typeNames are the names of Go's and C's basic types, which a struct
// declaring a .netrc entry's fields gives as their values.
var typeNames = []string{"string", "*string", "[]byte", "[]rune", "String", "str", "char", "*char", "char*",
	"int", "uint", "bool", "byte", "any", "error"}

// isTypeName reports whether w is one of typeNames, a ";" or "," after it
// allowed (char *password;).
func isTypeName(w string) bool {
	return slices.Contains(typeNames, strings.TrimRight(w, ";,"))
}

// netrcToken returns the bounds of the next word of s from i: a run of
// bytes other than spaces, tabs and line breaks ({len(s), len(s)} at the
// end).
func netrcToken(s string, i int) (b, e int) {
	for i < len(s) && isNetrcSpace(s[i]) {
		i++
	}
	e = i
	for e < len(s) && !isNetrcSpace(s[e]) {
		e++
	}
	return i, e
}

func isNetrcSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// netrcValueEnd returns where the value in the word s[b:e] ends: at a
// quote or a backslash escape (\n, \r, \t, \", \'), or at e.
func netrcValueEnd(s string, b, e int) int {
	for i := b; i < e; i++ {
		switch {
		case s[i] == '"' || s[i] == '\'':
			return i
		case s[i] == '\\' && i+1 < e && strings.IndexByte(`nrt"'`, s[i+1]) >= 0:
			return i
		}
	}
	return e
}
