package index

import (
	"regexp"
	"strings"
	"unicode"
)

var (
	quotedRe = regexp.MustCompile("\"([^\"]{2,120})\"|`([^`]{2,120})`|'([^'\\s][^']{1,119})'")
	pathRe   = regexp.MustCompile(`(?:[\w.-]+/)+[\w.-]+|\b[\w-]+\.(?:go|py|js|jsx|ts|tsx|mjs|cjs|rs|java|md|json|ya?ml|toml|sh|c|h|cpp|hpp|cs|rb|php|kt|swift|sql|proto)\b`)
	identRe  = regexp.MustCompile(`\b[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*(?:\(\))?`)
)

// FocusedQueries derives 1–3 focused search queries from a request, most
// specific first: (1) the identifiers and paths it names (CamelCase,
// snake_case, dotted names, calls, file paths), (2) its first quoted
// string, (3) its remaining keywords. Empty queries are left out; a
// request naming nothing specific gives its keywords only.
func FocusedQueries(request string, maxQueries int) []string {
	if maxQueries <= 0 {
		maxQueries = 3
	}
	var specific []string
	seen := map[string]bool{}
	addSpecific := func(s string) {
		s = strings.TrimSuffix(strings.Trim(s, ".,;:"), "()")
		if s != "" && !seen[strings.ToLower(s)] {
			seen[strings.ToLower(s)] = true
			specific = append(specific, s)
		}
	}
	var quoted []string
	rest := request
	for _, m := range quotedRe.FindAllStringSubmatch(request, -1) {
		q := m[1] + m[2] + m[3]
		quoted = append(quoted, q)
		rest = strings.Replace(rest, m[0], " ", 1)
	}
	for _, p := range pathRe.FindAllString(rest, -1) {
		addSpecific(p)
	}
	rest = pathRe.ReplaceAllString(rest, " ")
	for _, loc := range identRe.FindAllStringIndex(rest, -1) {
		w := rest[loc[0]:loc[1]]
		before := strings.TrimRightFunc(rest[:loc[0]], unicode.IsSpace)
		sentenceStart := before == "" || strings.HasSuffix(before, ".") || strings.HasSuffix(before, ":") || strings.HasSuffix(before, "!") || strings.HasSuffix(before, "?")
		if isIdentifier(w, sentenceStart) {
			addSpecific(w)
		}
	}
	var out []string
	if len(specific) > 0 {
		out = append(out, strings.Join(cap8(specific), " "))
	}
	if len(quoted) > 0 {
		out = append(out, quoted[0])
	}
	for _, sp := range specific {
		for _, w := range words(sp) {
			seen[strings.ToLower(w)] = true
		}
	}
	var kw []string
	for _, t := range Terms(rest, 8) {
		if !seen[t] {
			kw = append(kw, t)
		}
	}
	if len(kw) > 0 {
		out = append(out, strings.Join(kw, " "))
	}
	if len(out) > maxQueries {
		out = out[:maxQueries]
	}
	return out
}

func cap8(s []string) []string {
	if len(s) > 8 {
		return s[:8]
	}
	return s
}

// isIdentifier reports whether a word looks like code: snake_case, a
// dotted name or call, mixed case, or a capitalised word that does not
// start a sentence.
func isIdentifier(w string, sentenceStart bool) bool {
	if strings.HasSuffix(w, "()") || strings.Contains(w, ".") {
		return true
	}
	if len(w) < 3 || stopwords[strings.ToLower(w)] {
		return false
	}
	if strings.Contains(strings.Trim(w, "_"), "_") {
		return true
	}
	upper, lower := 0, 0
	for i, r := range w {
		switch {
		case unicode.IsUpper(r):
			if i > 0 {
				upper++
			}
		case unicode.IsLower(r):
			lower++
		}
	}
	if upper > 0 && lower > 0 { // camelCase, PascalCase with inner capitals
		return true
	}
	if upper > 0 && lower == 0 && len(w) > 3 { // CONSTANT
		return true
	}
	return unicode.IsUpper([]rune(w)[0]) && !sentenceStart
}
