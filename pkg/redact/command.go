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
// a comma or colon after a quote, so ["mysql","-pX"] in text is three
// words and {"cmd":"docker","args":["login","-p","X"]} seven) and,
// after a word naming one of these commands, redacts the value of its
// password flags up to the end of the command (a |, ;, & or && word). In
// JSON and Value an array of strings is read as an argv the same way.
// The name may be glued after a quote, "(" or a backtick
// ({"cmd":"mysql -pX"}, CMD="mysql -pX", $(mysql -pX)); a path names the
// command only in a bin directory (/usr/bin/mysql, not find's
// /var/lib/mysql), and a name after a flag taking a name (--name mysql,
// sudo -u mysql, find -name mysql) names no command. sshpass's options
// end at the command it runs (sshpass -p X ssh -p 2222: the port stays).
// A login reading its password with --password-stdin has it from the
// arguments of an echo or printf piped into it (echo X | docker login
// --password-stdin) or from a here-string (<<< X).
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
	// operandEnds: the options end at the first word that is no option
	// nor an option's value (sshpass -p X ssh -p 2222 host: the second -p
	// is ssh's port); valued are the other options taking the next word.
	operandEnds bool
	valued      []string
}

var (
	mysqlSpec   = &commandSpec{attached: []string{"-p"}}
	loginSpec   = &commandSpec{sub: "login", attached: []string{"-p"}, separate: []string{"-p", "--password"}}
	sshpassSpec = &commandSpec{attached: []string{"-p"}, separate: []string{"-p"}, operandEnds: true, valued: []string{"-f", "-d", "-P"}}
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

// mayNameCommand reports whether JSON text may hold a command name or
// a flag naming a secret: it holds one of commandHints, an escape, or a
// string "-name" or "--name" with a secret-like name.
func mayNameCommand(raw []byte) bool {
	if bytes.IndexByte(raw, '\\') >= 0 || mayHoldSecretFlag(raw) {
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
// element, without ".exe", ignoring case: MYSQL.EXE), or nil. The name
// may follow a quote, "(" or a backtick glued before it
// ({"cmd":"mysql, CMD="mysql, $(mysql). A path names the command only
// when its directory is a bin directory (/usr/bin/mysql,
// C:\mysql\bin\MYSQL.EXE): /var/lib/mysql or a volume's
// /srv/mysql:/var/lib/mysql is data.
func commandOf(w string) *commandSpec {
	w = cutGlued(w)
	if i := strings.LastIndexAny(w, `/\`); i >= 0 {
		dir := strings.ToLower(strings.TrimRight(w[:i], `/\`))
		if j := strings.LastIndexAny(dir, `/\`); j >= 0 {
			dir = dir[j+1:]
		}
		if dir != "bin" && dir != "sbin" && dir != "macos" && dir != "." && dir != "" {
			return nil
		}
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

// cutGlued returns a word past a quote, "(" or backtick glued before a
// command's name ({"cmd":"mysql, CMD="mysql, $(mysql). Not past a bare
// "=": DB_HOST=mysql names a host (docker run -e DB_HOST=mysql -p8080:80).
func cutGlued(w string) string {
	if i := strings.LastIndexAny(w, "\"'(`"); i >= 0 {
		return w[i+1:]
	}
	return w
}

// isCommandEnd reports whether a word ends a command: a shell operator.
func isCommandEnd(w string) bool {
	switch w {
	case "|", "||", "&", "&&", ";", "(", ")":
		return true
	}
	return false
}

// namingFlags take a name as their value, which may be a command's name
// without naming the command (docker run --name mysql -p3306:3306, sudo
// -u mysql, find . -name mysql -print).
var namingFlags = map[string]bool{
	"--name": true, "--hostname": true, "-h": true, "--host": true, "--link": true,
	"--network": true, "--net": true, "-u": true, "--user": true, "-g": true, "--group": true,
	"-name": true, "-iname": true, "-path": true, "-user": true, "-group": true,
}

// commandSecrets calls visit for each argument in words holding a
// password: its index, where in it the password starts and the index of
// the word naming its command.
func commandSecrets(words iter.Seq2[int, string], visit func(i, from, cmd int)) {
	var spec *commandSpec
	active, skipNext, skipValue := false, false, false
	cmd, prev := -1, ""
	// A login reading its password from stdin: the arguments of an echo
	// or printf piped into it (echo X | docker login --password-stdin),
	// or a here-string (<<< X).
	var echo, piped []int // the current command's echo arguments, the piped ones
	echoCmd, pipedCmd := -1, -1
	for i, w := range words {
		p := prev
		prev = w
		name := cutGlued(w)
		switch name = strings.ToLower(name[strings.LastIndexAny(name, `/\`)+1:]); {
		case isCommandEnd(w):
			piped, pipedCmd = nil, -1
			if w == "|" {
				piped, pipedCmd = echo, echoCmd
			}
			echo, echoCmd = nil, -1
		case name == "echo" || name == "printf":
			echo, echoCmd = nil, i
		case echoCmd >= 0 && !isEchoOption(w, i == echoCmd+1):
			echo = append(echo, i)
		}
		if skipNext {
			skipNext = false
			if w != "" && !isCommandEnd(w) {
				visit(i, 0, cmd)
				continue
			}
		}
		if skipValue {
			skipValue = false
			if !isCommandEnd(w) {
				continue
			}
		}
		switch {
		case isCommandEnd(w):
			spec = nil
			continue
		case !namingFlags[p] && commandOf(w) != nil:
			spec, cmd = commandOf(w), i
			active = spec.sub == ""
			continue
		case spec == nil:
			continue
		case !active:
			active = w == spec.sub
			continue
		case spec.operandEnds && !strings.HasPrefix(w, "-"):
			spec = nil // the command sshpass runs: its options are its own
			continue
		}
		for _, f := range spec.separate {
			if w == f {
				skipNext = true
			}
		}
		for _, f := range spec.valued {
			if w == f {
				skipValue = true
			}
		}
		for _, f := range spec.attached {
			if len(w) > len(f) && strings.HasPrefix(w, f) {
				visit(i, len(f), cmd)
			}
		}
		if spec.sub == "login" {
			switch {
			case w == "--password-stdin":
				for _, k := range piped {
					visit(k, 0, pipedCmd)
				}
				piped = nil
			case w == "<<<":
				skipNext = true
			case len(w) > 3 && strings.HasPrefix(w, "<<<"):
				visit(i, 3, cmd)
			}
		}
	}
}

// isEchoOption reports whether an echo or printf argument is no text it
// prints: echo's -n, -e and -E, and printf's format when it has a %
// (printf '%s' X prints X).
func isEchoOption(w string, first bool) bool {
	switch w {
	case "-n", "-e", "-E", "-ne", "-en":
		return true
	}
	return first && strings.Contains(w, "%")
}

// commandRule redacts the passwords of command lines in text.
var commandRule = rule{label: "password", find: findCommandSecrets, hints: commandHints}

// textWord is a shell word of a line: its text without surrounding
// quotes, brackets and punctuation, and where that text starts.
type textWord struct {
	text string
	at   int
	// flowEnd, when above 0, is the comma of a flow list ending it.
	flowEnd int
	// literal: it is in a flow list read with a quote inside an item as
	// a character of it (see lineWords).
	literal bool
}

// wordTrimLeft and wordTrimRight are the characters around a word that
// are not part of it: quotes, escapes, brackets, backticks and a
// trailing comma or semicolon.
const (
	wordTrimLeft  = "\"'`\\[({"
	wordTrimRight = "\"'`\\])},;"
)

// lineWords splits a line into words: at spaces and tabs (and CR, LF),
// at a comma or colon just after a quote (a JSON array or object, a
// Python list), and at a comma between the brackets of a flow list
// outside its quoted items ([mysql,-pX], [a, "b,c"]): a list opens at a
// "[" starting a word or an item of a list. A quote inside an item holds
// its commas as in a shell word (-pa'b,c'), or, with literal, is a
// character of the item as YAML reads it ([it's,mysql,-pX]); inQuote
// reports whether the line has such a quote in a list. A shell word
// holding a comma in such brackets ([sh, -c, mysql -pa,b]) is split there
// as YAML splits it.
func lineWords(line string, literal bool) (words []textWord, inQuote bool) {
	fl := flowTracker{literal: literal}
	add := func(start, end int) {
		raw := line[start:end]
		flowEnd := 0
		if end < len(line) && line[end] == ',' && fl.depth > 0 {
			flowEnd = end
		}
		text := strings.TrimLeft(raw, wordTrimLeft)
		at := start + len(raw) - len(text)
		if w := strings.TrimRight(text, wordTrimRight); w != "" || text == "" {
			text = w
		}
		if raw != "" {
			words = append(words, textWord{text: text, at: at, flowEnd: flowEnd, literal: fl.literal && fl.depth > 0})
			// A word ending in ";" or "|" ends its command too (x| pipes).
			if last := raw[len(raw)-1]; !isCommandEnd(raw) && (last == ';' || last == '|') {
				words = append(words, textWord{text: raw[len(raw)-1:], at: end})
			}
		}
	}
	start := 0
	for i := 0; i < len(line); i++ {
		c := line[i]
		split := fl.read(line, i, start)
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			add(start, i)
			start = i + 1
		case (c == ',' || c == ':') && i > 0 && (line[i-1] == '"' || line[i-1] == '\''):
			add(start, i)
			start = i + 1
		case split:
			add(start, i)
			start = i + 1
		}
	}
	add(start, len(line))
	return words, fl.inQuote
}

// flowTracker follows the flow lists of a line read byte by byte: how
// deep in brackets it is and the quote of the item it is in, if any.
type flowTracker struct {
	depth   int
	quote   byte
	literal bool // a quote inside an item is a character of it
	inQuote bool // a quote inside an item was read
}

// read reads line[i], in the word starting at line[start], and reports
// whether it is a comma separating the items of a flow list.
func (f *flowTracker) read(line string, i, start int) bool {
	c := line[i]
	itemStart := i == start || line[i-1] == '[' || f.depth > 0 && line[i-1] == ','
	switch {
	case f.quote != 0:
		if c == f.quote {
			f.quote = 0
		}
	case c == '[' && itemStart:
		f.depth++
	case f.depth == 0:
	case c == ']':
		f.depth--
	case c == '"' || c == '\'':
		if !itemStart {
			f.inQuote = true
			if f.literal {
				break // YAML's it's
			}
		}
		f.quote = c // in a word too: -pa'b,c' is one word
	case c == ',':
		return true
	}
	return false
}

// findCommandSecrets returns the spans of the command-line passwords in a
// line. A password given as a quoted word ("SECRET" after -p, an argv's
// "-pSECRET") or opening a quote (-p'pa ss') runs to the closing quote,
// across spaces; otherwise it is a shell word: it ends at a space or a
// shell operator (|, ;, &, <, >) outside quotes, and quoted parts
// (-pa'b c', -p\"a b\" in JSON text) and backslash escapes (a\ b) are
// parts of it. Inside a string holding the command ({"cmd":"mysql -pX"},
// bash -c "mysql -pX") the string's closing quote ends it too.
//
// A quote inside an item of a flow list has the line read twice, as a
// shell quote holding its commas and as a character of the item (YAML's
// [it's,mysql,-pX]): the passwords either reading finds, one span over
// both where they overlap.
func findCommandSecrets(line string) [][]int {
	words, inQuote := lineWords(line, false)
	locs := appendCommandSecrets(nil, line, words)
	if inQuote {
		words, _ = lineWords(line, true)
		locs = appendCommandSecrets(locs, line, words)
	}
	if len(locs) < 2 {
		return locs
	}
	// A quoted password may run over later words, piped echo arguments
	// come after the login's own, and the two readings find the same
	// ones: in order, without overlaps.
	return sortSpans(locs)
}

// appendCommandSecrets appends to locs the spans of the command-line
// passwords in line's words (see findCommandSecrets).
func appendCommandSecrets(locs [][]int, line string, words []textWord) [][]int {
	commandSecrets(func(yield func(int, string) bool) {
		for i, w := range words {
			if !yield(i, w.text) {
				return
			}
		}
	}, func(i, from, cmd int) {
		w := words[i]
		start := w.at + from
		if isMarkerAt(line, start) {
			return
		}
		encl := enclosingQuote(line, words[cmd])
		var stop int
		q := quoteBefore(line, w.at)
		if q == "" && !w.literal {
			if q = quoteAt(line, start); q != "" {
				start += len(q)
			}
		}
		if q != "" {
			stop = quoteEnd(line, start, q)
			if c := stop + len(q); c < len(line) && !isArgEnd(line[c:], encl) {
				// A quoted part glued to more of the word ('SEC'"RET"): to
				// the word's end.
				stop = shellWordEnd(line, c, encl)
			}
		} else if w.flowEnd > 0 {
			// An item of a flow list, up to its comma.
			stop = min(shellWordEnd(line[:w.flowEnd], start, encl), w.at+len(w.text))
		} else {
			stop = shellWordEnd(line, start, encl)
			rawEnd := len(line)
			if j := strings.IndexAny(line[w.at:], " \t\r\n"); j >= 0 {
				rawEnd = w.at + j
			}
			if stop <= rawEnd {
				// Within its word: not the ) or ] after it.
				stop = min(stop, w.at+len(w.text))
			}
		}
		if end := w.at + len(w.text); w.literal && q == "" && stop < end && (line[stop] == '"' || line[stop] == '\'') {
			// A quote shellWordEnd finds unclosed in the item is a
			// character of it: to its end, or, read as a shell quote
			// holding commas (-pa'b,c'), further.
			stop = max(end, shellQuoteEnd(line, stop))
		}
		if stop > start {
			locs = append(locs, []int{start, stop})
		}
	})
	return locs
}

// shellQuoteEnd returns where a password read on past a flow list's comma
// ends when the quote at line[i] is a shell quote holding commas: at its
// next quote of its kind (no escapes, as lineWords reads one holding
// commas), or, with more of the word glued to it, before the next comma,
// bracket, space or quote; 0 when it never closes. Each search stops at
// the next quote of its kind and then at the next quote, so the searches
// from the quotes of a line's words cover it about three times.
func shellQuoteEnd(line string, i int) int {
	k := strings.IndexByte(line[i+1:], line[i])
	if k < 0 {
		return 0
	}
	j := i + 1 + k
	e := j + 1
	for e < len(line) && strings.IndexByte(",[]{} \t\r\n'\"", line[e]) < 0 {
		e++
	}
	if e == j+1 {
		return j
	}
	return e
}

// isMarkerAt reports whether a marker starts at line[i] or just before
// it (a word's text starts past its "["): the password is redacted.
func isMarkerAt(line string, i int) bool {
	return strings.HasPrefix(line[i:], "[REDACTED:") || i > 0 && line[i-1] == '[' && strings.HasPrefix(line[i:], "REDACTED:")
}

// quoteAt returns the quote opening at line[i]: ", ' or \" (JSON text),
// or "".
func quoteAt(line string, i int) string {
	switch {
	case i >= len(line):
		return ""
	case line[i] == '"' || line[i] == '\'':
		return line[i : i+1]
	case strings.HasPrefix(line[i:], `\"`):
		return `\"`
	}
	return ""
}

// quoteBefore returns the quote just before line[i] ("…", '…' or \"…\"),
// or "".
func quoteBefore(line string, i int) string {
	switch {
	case i >= 2 && line[i-2:i] == `\"`:
		return `\"`
	case i >= 1 && (line[i-1] == '"' || line[i-1] == '\''):
		return line[i-1 : i]
	}
	return ""
}

// enclosingQuote returns the quote opening the string that holds a
// command, just before its name (bash -c "mysql, {"cmd":"mysql,
// {\"cmd\":\"mysql), or "".
func enclosingQuote(line string, cmd textWord) string {
	if k := strings.LastIndexAny(cmd.text, "\"'"); k >= 0 {
		return quoteBefore(line, cmd.at+k+1)
	}
	return quoteBefore(line, cmd.at)
}

// quoteEnd returns where the quote q opened before line[start] closes,
// or the end of the line.
func quoteEnd(line string, start int, q string) int {
	if q == `\"` {
		if j := strings.Index(line[start:], q); j >= 0 {
			return start + j
		}
		return len(strings.TrimRight(line, "\r\n"))
	}
	return closingQuote(line, start, q[0])
}

// isArgEnd reports whether rest, the text after a quoted part, ends the
// argument: a space, a shell operator, a JSON or list separator or the
// closing quote encl of the string holding the command.
func isArgEnd(rest, encl string) bool {
	return isShellSpace(rest[0]) || strings.IndexByte("|;&<>,)]}", rest[0]) >= 0 || encl != "" && strings.HasPrefix(rest, encl)
}

// shellWordEnd returns where the shell word continuing at line[i] ends
// (see findCommandSecrets); encl is the quote of the string holding the
// command, or "".
func shellWordEnd(line string, i int, encl string) int {
	for i < len(line) {
		c := line[i]
		switch {
		case isShellSpace(c) || strings.IndexByte("|;&<>", c) >= 0:
			return i
		case encl != "" && strings.HasPrefix(line[i:], encl):
			return i
		case strings.HasPrefix(line[i:], `\"`):
			j := strings.Index(line[i+2:], `\"`)
			if j < 0 {
				return i
			}
			i += 2 + j + 2
		case c == '\\':
			i += 2
		case c == '"' || c == '\'':
			j := closingQuote(line, i+1, c)
			if j == len(line) {
				return i // no closing quote: it closes something else
			}
			i = j + 1
		default:
			i++
		}
	}
	return min(i, len(line))
}

// mayHoldSecretFlag reports whether JSON text holds a string that is a
// flag naming a secret ("--password", "-api-key").
func mayHoldSecretFlag(raw []byte) bool {
	for i := 0; ; {
		j := bytes.Index(raw[i:], []byte(`"-`))
		if j < 0 {
			return false
		}
		i += j + 1
		e := i
		for e < len(raw) && isNameByte(raw[e]) {
			e++
		}
		if e < len(raw) && raw[e] == '"' && isSecretFlag(string(raw[i:e])) {
			return true
		}
	}
}

// isSecretFlag reports whether an argument is a flag naming a secret:
// one or two dashes and a name for which IsSecretKey holds (--password,
// -api-key, --db-token); with its value (--password=…) it is not.
func isSecretFlag(arg string) bool {
	name := strings.TrimLeft(arg, "-")
	n := len(arg) - len(name)
	return n >= 1 && n <= 2 && name != "" && !strings.ContainsAny(name, "= \t") && isSecretKey(name)
}

// isSecretFlagValue reports whether the argument after a flag naming a
// secret is its value: anything but nothing, "-" (stdin) and a word
// starting with two dashes (a long option: --password --verbose). A
// value starting with one dash is the secret (--password -Xy9): such a
// flag takes a value, so a short option after it (--password -h host)
// is over-redacted. A secret starting with "--" is kept.
func isSecretFlagValue(v string) bool {
	return v != "" && v != "-" && !strings.HasPrefix(v, "--")
}

// argvSecrets returns, for an argv (the strings of an array), where in
// each argument its password starts (-1: none), or nil when none holds
// one: the passwords of the commands it runs, and the whole argument
// after a flag naming a secret that is no flag itself (["psql",
// "--password", "SECRET"], whatever the program, as the text rules read
// --password SECRET).
func argvSecrets(args []string) []int {
	var from []int
	commandSecrets(func(yield func(int, string) bool) {
		for i, a := range args {
			if !yield(i, a) {
				return
			}
		}
	}, func(i, f, _ int) {
		if from == nil {
			from = make([]int, len(args))
			for j := range from {
				from[j] = -1
			}
		}
		from[i] = f
	})
	for i := 0; i+1 < len(args); i++ {
		if v := args[i+1]; isSecretFlag(args[i]) && isSecretFlagValue(v) && (from == nil || from[i] < 0) {
			if from == nil {
				from = make([]int, len(args))
				for j := range from {
					from[j] = -1
				}
			}
			from[i+1] = 0
		}
	}
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
