package redact

import (
	"bytes"
	"iter"
	"strings"
)

// Command-line passwords: a few clients take a password as a flag whose
// name says nothing of a secret, so the name rules cannot see it:
//
//	mysql -u root -phunter2 db            (the mysql and mariadb tools)
//	docker login -u me -p hunter2 ghcr.io (and podman, nerdctl, buildah,
//	                                       skopeo, oras, helm registry login)
//	sshpass -p hunter2 ssh host
//	redis-cli -a hunter2 ping
//
// The rule reads a line as shell words (split at spaces and tabs, and at
// a comma after a quote, so ["mysql","-pX"] in text is three words) and,
// after a word naming one of these commands, redacts the value of its
// password flags up to the end of the command (a |, ;, & or && word). In
// JSON and Value an array of strings is read as an argv the same way.
//
// mysql's "-p hunter2" (a space) prompts for the password and takes the
// next word as the database, so only the attached form is redacted there.

// commandSpec describes a command's password flags.
type commandSpec struct {
	// sub is a word that must come first (docker's login), or "".
	sub string
	// attached are flags whose value may be attached (-pSECRET).
	attached []string
	// separate are flags whose value is the next word (-p SECRET).
	separate []string
}

var (
	mysqlSpec   = &commandSpec{attached: []string{"-p"}}
	loginSpec   = &commandSpec{sub: "login", attached: []string{"-p"}, separate: []string{"-p", "--password"}}
	sshpassSpec = &commandSpec{attached: []string{"-p"}, separate: []string{"-p"}}
	redisSpec   = &commandSpec{separate: []string{"-a", "--pass"}}
)

// commandNames are the commands commandOf knows but the mysql family.
var commandNames = map[string]*commandSpec{
	"docker": loginSpec, "podman": loginSpec, "nerdctl": loginSpec, "buildah": loginSpec,
	"skopeo": loginSpec, "oras": loginSpec, "helm": loginSpec,
	"sshpass": sshpassSpec, "redis-cli": redisSpec,
}

// commandHints are the hints of the command rule: every command name
// holds one.
var commandHints = []string{"mysql", "mariadb", "docker", "podman", "nerdctl", "buildah", "skopeo", "oras", "helm", "sshpass", "redis-cli"}

// mayNameCommand reports whether JSON text may hold a command name: it
// holds one of commandHints or an escape.
func mayNameCommand(raw []byte) bool {
	if bytes.IndexByte(raw, '\\') >= 0 {
		return true
	}
	for _, h := range commandHints {
		if containsFold(raw, h) {
			return true
		}
	}
	return false
}

// commandOf returns the spec of the command a word names (its last path
// element, without ".exe", ignoring case: MYSQL.EXE), or nil.
func commandOf(w string) *commandSpec {
	if i := strings.LastIndexAny(w, `/\`); i >= 0 {
		w = w[i+1:]
	}
	w = strings.TrimSuffix(strings.ToLower(w), ".exe")
	for _, family := range []string{"mysql", "mariadb"} {
		if rest, ok := strings.CutPrefix(w, family); ok && strings.Trim(rest, "abcdefghijklmnopqrstuvwxyz_-") == "" {
			return mysqlSpec // mysql, mysqldump, mariadb-dump, mysql_upgrade, not mysql:8.0
		}
	}
	return commandNames[w]
}

// isCommandEnd reports whether a word ends a command: a shell operator.
func isCommandEnd(w string) bool {
	switch w {
	case "|", "||", "&", "&&", ";", "(", ")":
		return true
	}
	return false
}

// commandSecrets calls visit for each argument in words holding a
// password: its index and where in it the password starts.
func commandSecrets(words iter.Seq2[int, string], visit func(i, from int)) {
	var spec *commandSpec
	active, skipNext := false, false
	for i, w := range words {
		if skipNext {
			skipNext = false
			if w != "" && !isCommandEnd(w) {
				visit(i, 0)
				continue
			}
		}
		switch {
		case isCommandEnd(w):
			spec = nil
			continue
		case commandOf(w) != nil:
			spec = commandOf(w)
			active = spec.sub == ""
			continue
		case spec == nil:
			continue
		case !active:
			active = w == spec.sub
			continue
		}
		for _, f := range spec.separate {
			if w == f {
				skipNext = true
			}
		}
		for _, f := range spec.attached {
			if len(w) > len(f) && strings.HasPrefix(w, f) {
				visit(i, len(f))
			}
		}
	}
}

// commandRule redacts the passwords of command lines in text.
var commandRule = rule{label: "password", find: findCommandSecrets, hints: commandHints}

// textWord is a shell word of a line: its text without surrounding
// quotes, brackets and punctuation, and where that text starts.
type textWord struct {
	text string
	at   int
}

// wordTrimLeft and wordTrimRight are the characters around a word that
// are not part of it: quotes, escapes, brackets, backticks and a
// trailing comma or semicolon.
const (
	wordTrimLeft  = "\"'`\\[({"
	wordTrimRight = "\"'`\\])},;"
)

// lineWords splits a line into words: at spaces and tabs (and CR, LF),
// and at a comma just after a quote (a JSON array or a Python list).
func lineWords(line string) []textWord {
	var words []textWord
	add := func(start, end int) {
		raw := line[start:end]
		text := strings.TrimLeft(raw, wordTrimLeft)
		at := start + len(raw) - len(text)
		if w := strings.TrimRight(text, wordTrimRight); w != "" || text == "" {
			text = w
		}
		if raw != "" {
			words = append(words, textWord{text: text, at: at})
			// A word ending in ";" or "|" ends its command too.
			if last := raw[len(raw)-1]; raw != ";" && (last == ';' || last == '|') {
				words = append(words, textWord{text: ";", at: end})
			}
		}
	}
	start := 0
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			add(start, i)
			start = i + 1
		case c == ',' && i > 0 && (line[i-1] == '"' || line[i-1] == '\''):
			add(start, i)
			start = i + 1
		}
	}
	add(start, len(line))
	return words
}

// findCommandSecrets returns the spans of the command-line passwords in a
// line. A password that opens a quote runs to its closing quote, across
// spaces; one that does not ends at a shell operator (|, ;, &, <, >).
func findCommandSecrets(line string) [][]int {
	words := lineWords(line)
	var locs [][]int
	end := -1
	commandSecrets(func(yield func(int, string) bool) {
		for i, w := range words {
			if !yield(i, w.text) {
				return
			}
		}
	}, func(i, from int) {
		w := words[i]
		start, stop := w.at+from, w.at+len(w.text)
		if start < end {
			return
		}
		q := byte(0)
		switch {
		case start < len(line) && (line[start] == '"' || line[start] == '\''):
			q, start = line[start], start+1
		case from == 0 && start > 0 && (line[start-1] == '"' || line[start-1] == '\''):
			q = line[start-1]
		}
		if q != 0 {
			stop = closingQuote(line, start, q)
			// A quoted part glued to more of the word ('SEC'"RET"): to the
			// word's end.
			if c := stop + 1; c < len(line) && !isShellSpace(line[c]) {
				stop = len(strings.TrimRight(line, "\r\n"))
				if j := strings.IndexFunc(line[c:], func(r rune) bool { return r < 0x80 && isShellSpace(byte(r)) }); j >= 0 {
					stop = c + j
				}
			}
		} else if j := strings.IndexAny(line[start:stop], "|;&<>"); j >= 0 {
			stop = start + j // a shell operator glued to the password ends it
		}
		if stop > start {
			locs = append(locs, []int{start, stop})
			end = stop
		}
	})
	return locs
}

// argvSecrets returns, for an argv (the strings of an array), where in
// each argument its password starts (-1: none), or nil when none holds
// one.
func argvSecrets(args []string) []int {
	var from []int
	commandSecrets(func(yield func(int, string) bool) {
		for i, a := range args {
			if !yield(i, a) {
				return
			}
		}
	}, func(i, f int) {
		if from == nil {
			from = make([]int, len(args))
			for j := range from {
				from[j] = -1
			}
		}
		from[i] = f
	})
	return from
}

// redactArg returns an argument with its password from offset from
// replaced by the marker.
func redactArg(arg string, from int) string {
	return arg[:from] + marker(commandRule.label)
}

// JointElements reports whether the redaction of an array with these
// elements (each valid JSON) depends on its elements together: its
// elements are all strings and read as a command line give a password as
// an argument (["mysql", "-pSECRET"], ["docker", "login", "-p",
// "SECRET"]). Otherwise each element redacts inside the array exactly as
// alone. It may read elems twice; an array naming no command is read
// without decoding its strings.
func JointElements(elems iter.Seq[[]byte]) bool {
	// Most arrays name no command: they are read without decoding.
	may := false
	for raw := range elems {
		if len(raw) == 0 || raw[0] != '"' {
			return false
		}
		may = may || mayNameCommand(raw)
	}
	if !may {
		return false
	}
	var args []string
	for raw := range elems {
		text, _ := decodeJSONString(nil, raw, 1)
		args = append(args, string(text))
	}
	return argvSecrets(args) != nil
}

// closingQuote returns the index of the quote q closing a string that
// starts at line[start] (inside double quotes a backslash escapes the
// next character), or the end of the line.
func closingQuote(line string, start int, q byte) int {
	for i := start; i < len(line); i++ {
		switch {
		case line[i] == q:
			return i
		case line[i] == '\\' && q == '"':
			i++
		}
	}
	return len(line)
}

// isShellSpace reports whether c separates shell words.
func isShellSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n'
}
