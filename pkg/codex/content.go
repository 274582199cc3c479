package codex

import "strings"

// Raw-content heuristics (validation step 6). They are deliberately simple
// and documented in docs/codex.md:
//   - a byte outside the token alphabet (letters, digits and _ - . + / # : =
//     ( ) , @ ~ %) — this rejects JSON, most code, quotes, non-ASCII;
//   - a run of base64 alphabet characters [A-Za-z0-9+/] of 24 or more
//     containing an upper-case letter, a lower-case letter and a digit;
//   - a YAML-style token "key:" with nothing after the colon, or a token made
//     only of dashes ("-", "---");
//   - a word (a run between + / ( ) , = : #) longer than maxWord;
//   - three or more bare words in a row separated only by spaces (prose).
const (
	minBase64Run = 24
	maxWord      = 96
	minProseRun  = 3
)

// isIdentifierKey reports whether key's value items must each be a hashed
// symbol.
func isIdentifierKey(key string) bool {
	switch lowerASCII(key) {
	case "proj", "project", "hotspots", "adr", "session", "checksum":
		return true
	default:
		return false
	}
}

// checkToken returns the blocking diagnostic for one token, if any.
func checkToken(t token) (Diagnostic, bool) {
	if !tokenAlphabet(t.text) {
		return errorDiag(CodeRawContent, t.text, "character outside the token alphabet"), true
	}
	if msg := hashProblem(t); msg != "" {
		return errorDiag(CodeHashViolation, t.text, msg), true
	}
	if msg := rawProblem(t); msg != "" {
		return errorDiag(CodeRawContent, t.text, msg), true
	}
	return Diagnostic{}, false
}

func tokenAlphabet(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isLetter(c) || (c >= '0' && c <= '9') {
			continue
		}
		switch c {
		case '_', '-', '.', '+', '/', '#', ':', '=', '(', ')', ',', '@', '~', '%':
			continue
		}
		return false
	}
	return true
}

// hashProblem applies the hash rule: every item containing '#' is a hashed
// symbol, every item of an identifier key is one, and no item looks like a
// path or filename. Keys (items followed by '=') count as paths only when
// they hold a '/', so ext.c=1 or kpi:readme.md=ok are legal.
func hashProblem(t token) string {
	for _, it := range splitItems(t.text) {
		item := it.text
		if strings.IndexByte(item, '#') >= 0 && !IsHashID(item) {
			return "identifier " + item + " is not namespace#hex"
		}
		if pathLike(item) && (!it.key || strings.IndexByte(item, '/') >= 0) {
			return "raw path or filename " + item
		}
	}
	if t.op != 0 && isIdentifierKey(t.key) {
		for _, item := range splitList(t.value) {
			if !IsHashID(item) {
				return t.key + " must hold hashed identifiers"
			}
		}
	}
	return ""
}

// item is a piece of a token between = : , + ( and ).
type item struct {
	text string
	key  bool // followed by '='
}

// splitItems cuts a token at = : , + ( ), dropping empty pieces.
func splitItems(s string) []item {
	var out []item
	start := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && !strings.ContainsRune("=:,+()", rune(s[i])) {
			continue
		}
		if i > start {
			out = append(out, item{text: s[start:i], key: i < len(s) && s[i] == '='})
		}
		start = i + 1
	}
	return out
}

// isSourceExtension reports whether ext marks a name.ext word as a filename.
func isSourceExtension(ext string) bool {
	switch lowerASCII(ext) {
	case "go", "ts", "tsx", "js", "jsx", "mjs", "cjs", "py", "rb", "rs", "java", "kt",
		"c", "h", "cc", "cpp", "cxx", "hpp", "cs", "php", "swift", "scala", "sh", "bash",
		"sql", "json", "yaml", "yml", "toml", "md", "txt", "html", "htm", "css", "scss",
		"xml", "proto", "vue", "svelte", "lua", "pl", "ex", "exs", "erl", "hs", "ml",
		"dart", "ipynb", "gradle", "lock", "cfg", "ini", "conf", "env", "log", "csv":
		return true
	}
	return false
}

// pathLike reports whether item looks like a raw path or filename: it starts
// with / ./ ../ or ~/, has two or more slashes, is a dotfile (.env), or its
// last segment (after any slash) is name.ext where name has a letter and ext
// is a known source or config extension (see isSourceExtension). A single
// slash alone is legal (devDNA=focus/iterative).
func pathLike(item string) bool {
	if item == "" {
		return false
	}
	for _, p := range []string{"/", "./", "../", "~/"} {
		if strings.HasPrefix(item, p) {
			return true
		}
	}
	if strings.Count(item, "/") >= 2 {
		return true
	}
	if len(item) > 1 && item[0] == '.' && isLetter(item[1]) {
		return true
	}
	seg := item
	if i := strings.LastIndexByte(item, '/'); i >= 0 {
		seg = item[i+1:]
	}
	base, ext, ok := cutLastDot(seg)
	return ok && fileBase(base) && isSourceExtension(ext)
}

func cutLastDot(s string) (string, string, bool) {
	i := strings.LastIndexByte(s, '.')
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+1:], true
}

// fileBase: non-empty [A-Za-z0-9_.-] with at least one letter.
func fileBase(s string) bool {
	letter := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isLetter(c):
			letter = true
		case (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.':
		default:
			return false
		}
	}
	return letter
}

// rawProblem applies the base64, YAML and long-word heuristics.
func rawProblem(t token) string {
	if t.op == ':' && t.value == "" {
		return "YAML-style key with no value"
	}
	if strings.Trim(t.text, "-") == "" {
		return "YAML-style list or document marker"
	}
	run, upper, lower, digit := 0, false, false, false
	word := 0
	for i := 0; i <= len(t.text); i++ {
		var c byte
		if i < len(t.text) {
			c = t.text[i]
		}
		isB64 := i < len(t.text) && (isLetter(c) || (c >= '0' && c <= '9') || c == '+' || c == '/')
		if isB64 {
			run++
			upper = upper || (c >= 'A' && c <= 'Z')
			lower = lower || (c >= 'a' && c <= 'z')
			digit = digit || (c >= '0' && c <= '9')
		} else {
			if run >= minBase64Run && upper && lower && digit {
				return "base64-like run"
			}
			run, upper, lower, digit = 0, false, false, false
		}
		if i < len(t.text) && !strings.ContainsRune("+/(),=:#", rune(c)) {
			word++
			if word > maxWord {
				return "word longer than 96 characters"
			}
		} else {
			word = 0
		}
	}
	return ""
}

// isPlainWord reports whether t is a bare word: no operator, '#' or '('.
func isPlainWord(t token) bool {
	return t.op == 0 && !strings.ContainsAny(t.text, "#(")
}

// proseRuns returns the index of the first token of every run of at least
// minProseRun plain words separated only by spaces, with the run length.
func proseRuns(tokens []token) [][2]int {
	var runs [][2]int
	start := -1
	for i := 0; i <= len(tokens); i++ {
		inRun := i < len(tokens) && isPlainWord(tokens[i]) && (start >= 0 && tokens[i].spaced)
		if inRun {
			continue
		}
		if start >= 0 && i-start >= minProseRun {
			runs = append(runs, [2]int{start, i - start})
		}
		start = -1
		if i < len(tokens) && isPlainWord(tokens[i]) {
			start = i
		}
	}
	return runs
}
