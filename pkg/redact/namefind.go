package redact

import (
	"io"
	"regexp"
	"strings"
	"unicode/utf8"
)

// The name rules (NAME=value, "name": "value", name: value lines, --name
// value, the quoted forms, the YAML block and later-line forms) are
// expressions holding secretName, whose lazy prefix and word alternation
// cost the regexp engine dozens of threads per byte inside a name: a
// line packed with secret-like names (36 KB of password_ before one "=",
// or of "password": or secret:) took 16 to 50 ms per rule, and five or
// six rules read each such line.
//
// They are found from the names instead, in one pass and time linear in
// the text, with the same matches as their expressions (left to right,
// not overlapping; TestNameFindersMatchTheirExpressions holds them to
// it). secretName always matches a whole run of name bytes
// ([A-Za-z0-9_.-], see isNameByte) bounded by other bytes, so the pass
// lists the runs followed by the rule's operator for which IsSecretKey
// holds (every name secretName matches is one). Then
//
//   - the rules within a line (splitRule) test their short head by hand,
//     the run with nameRe, and run only their tail's expression, anchored
//     just after the run;
//   - the line rules (nameFinder: name: value lines, YAML blocks) run
//     their whole expression anchored at the start of the run's line,
//     for the one run that can be a name there.
//
// A run longer than longNameRun is given to an expression shortened: its
// first two bytes, the last 40 before its trailing separators and two of
// those. Whether secretName matches a run depends only on those (the lazy
// prefix takes the rest), so the cost per run is bounded and the matches
// are the same.

// longNameRun is the length past which a run is shortened.
const longNameRun = 96

// nameFinder finds the matches of a line rule's expression: it starts
// at a line's start ((?m)^), and its name is the first run of the line
// after the indentation, a list item's "- ", an "export " and a quote.
type nameFinder struct {
	re *regexp.Regexp // the expression, anchored at the start
	// follows reports whether what follows a name run at s[e] may
	// continue a match (the operator after the name), a cheap test
	// before the expression runs.
	follows func(s string, e int) bool
}

// followedBy returns a follows test: after an optional quote (quote),
// the characters of skip, then one of ops.
func followedBy(quote bool, skip, ops string) func(s string, e int) bool {
	return func(s string, e int) bool {
		if quote && e < len(s) && (s[e] == '"' || s[e] == '\'') {
			e++
		}
		for e < len(s) && strings.IndexByte(skip, s[e]) >= 0 {
			e++
		}
		return e < len(s) && strings.IndexByte(ops, s[e]) >= 0
	}
}

// reSpace is the characters of RE2's \s.
const reSpace = "\t\n\f\r "

// newNameFinder returns the finder of a line rule's expression holding
// secretName.
func newNameFinder(pattern string, follows func(s string, e int) bool) *nameFinder {
	return &nameFinder{re: regexp.MustCompile(`^(?:` + pattern + `)`), follows: follows}
}

// each calls visit with each match's submatch indexes, in s, as
// FindAllStringSubmatchIndex would give them (the indexes of groups
// inside the name are not exact for shortened runs; no rule uses them).
func (f *nameFinder) each(s string, visit func(m []int)) {
	last := 0                   // the end of the last match
	lineStart, lineEnd := 0, -1 // the current run's line
	lineName := 0               // where the name may start on it
	for b, e := nextNameRun(s, 0); b < len(s); b, e = nextNameRun(s, e) {
		if b >= lineEnd {
			lineStart = strings.LastIndexByte(s[:b], '\n') + 1
			lineEnd = len(s)
			if j := strings.IndexByte(s[e:], '\n'); j >= 0 {
				lineEnd = e + j + 1
			}
			lineName = lineNameStart(s, lineStart)
		}
		if b == lineName && lineStart >= last && f.follows(s, e) && isSecretKey(s[b:e]) {
			if m := f.matchAt(s, lineStart, b, e, lineEnd); m != nil {
				visit(m)
				last = max(m[1], e)
			}
		}
	}
}

// nextNameRun returns the next run of name bytes (isNameByte) in s at
// or after i, as s[b:e]; b is len(s) when there is none.
func nextNameRun(s string, i int) (b, e int) {
	for i < len(s) && !isNameByte(s[i]) {
		i++
	}
	e = i
	for e < len(s) && isNameByte(s[e]) {
		e++
	}
	return i, e
}

// lineNameStart returns where the name of a line rule may start on the
// line starting at s[i]: after the indentation, a list item's "- ", an
// "export " and a quote (the line rules' expressions allow no more).
func lineNameStart(s string, i int) int {
	skip := func(set string) {
		for i < len(s) && strings.IndexByte(set, s[i]) >= 0 {
			i++
		}
	}
	skip(" \t")
	if i+1 < len(s) && s[i] == '-' && (s[i+1] == ' ' || s[i+1] == '\t') {
		i++
		skip(" \t")
	}
	if i+6 < len(s) && strings.EqualFold(s[i:i+6], "export") && (s[i+6] == ' ' || s[i+6] == '\t') {
		i += 6
		skip(" \t")
	}
	if i < len(s) && (s[i] == '"' || s[i] == '\'') {
		i++
	}
	return i
}

// matchAt tries the anchored expression on s[st:lineEnd] with the name
// run s[b:e] shortened, and returns the match mapped back to s, or nil.
func (f *nameFinder) matchAt(s string, st, b, e, lineEnd int) []int {
	short := shortNameRun(s[b:e])
	if len(short) == e-b {
		m := f.re.FindStringSubmatchIndex(s[st:lineEnd])
		for i := range m {
			if m[i] >= 0 {
				m[i] += st
			}
		}
		return m
	}
	head, tail := s[st:b], s[e:lineEnd]
	m := f.re.FindReaderSubmatchIndex(&partsReader{parts: [3]string{head, short, tail}})
	for i, x := range m {
		switch {
		case x < 0:
		case x <= len(head):
			m[i] = st + x
		case x >= len(head)+len(short):
			m[i] = e + x - len(head) - len(short)
		case x < len(head)+2:
			m[i] = b + x - len(head)
		default:
			m[i] = e - (len(head) + len(short) - x)
		}
	}
	return m
}

// shortNameRun returns a name run, shortened if it is longer than
// longNameRun: its first two bytes, the 40 before its trailing
// separators and two of those.
func shortNameRun(run string) string {
	if len(run) <= longNameRun {
		return run
	}
	t := len(strings.TrimRight(run, "_.-"))
	if t <= 42 {
		return run[:min(len(run), t+2)]
	}
	return run[:2] + run[t-40:min(len(run), t+2)]
}

// partsReader reads three strings one after the other, rune by rune.
type partsReader struct {
	parts [3]string
	i     int
}

func (r *partsReader) ReadRune() (rune, int, error) {
	for r.i < len(r.parts) && r.parts[r.i] == "" {
		r.i++
	}
	if r.i == len(r.parts) {
		return 0, 0, io.EOF
	}
	c, n := utf8.DecodeRuneInString(r.parts[r.i])
	r.parts[r.i] = r.parts[r.i][n:]
	return c, n, nil
}

// splitRule is a name rule whose expression is a head, secretName and a
// tail: the head is tested by hand, the name by nameRe on the (shortened)
// run, and the tail's expression runs anchored just after the run, so the
// large name alternation never runs on the text. TestNameFindersMatch
// TheirExpressions holds it to the whole expression.
type splitRule struct {
	// dash: the head is (?:^|\s)--? and the name follows the run's first
	// dash (the flag rule); otherwise the head may take one boundary
	// character and, with quote, a quote before the run.
	dash bool
	// quotedDash: the head is ["']--? and the name follows the run's
	// first dash (a flag as a list's quoted item).
	quotedDash bool
	// flowDash: the head is [\[,][\t ]*["']?--? and the name follows the
	// run's first dash (a flag as an item of a flow list, [x, --token, v]).
	flowDash bool
	quote    bool // the head is a quote just before the run ("name":)
	// flagEq: the name may also be a flag naming a secret as a whole
	// (--auth=…, see secretEqName).
	flagEq bool
	tail   *regexp.Regexp
	group  int
}

// nameRe matches a whole name secretName matches, flagNameRe one
// secretFlagName matches.
var (
	nameRe     = regexp.MustCompile(`(?i)^(?:` + secretName + `)$`)
	flagNameRe = regexp.MustCompile(`(?i)^(?:` + secretFlagName + `)$`)
	eqNameRe   = regexp.MustCompile(`(?i)^(?:` + secretEqName + `)$`)
)

// isFlag reports whether the rule's name is a flag's, after its dash.
func (sr *splitRule) isFlag() bool { return sr.dash || sr.quotedDash || sr.flowDash }

// splitNamedRule builds a line rule around head + secretName + tail (the
// expression kept for reference), found by a splitRule.
func splitNamedRule(label, head, tail string, sr splitRule, follows func(string, int) bool, hints ...string) rule {
	name := secretName
	switch {
	case sr.isFlag():
		name = secretFlagName
	case sr.flagEq:
		name = secretEqName
	}
	r := newRule(label, regexp.MustCompile(head+name+tail), hints...)
	sr.tail = regexp.MustCompile(`^(?:` + tail + `)`)
	sr.group = sr.tail.SubexpIndex("secret")
	r.find = func(s string) [][]int { return sr.find(s, follows) }
	return r
}

// find returns the spans of the rule's secret group in the line s, as the
// whole expression's FindAllStringSubmatchIndex gives them.
func (sr *splitRule) find(s string, follows func(string, int) bool) [][]int {
	var locs [][]int
	last := 0
	for b, e := nextNameRun(s, 0); b < len(s); b, e = nextNameRun(s, e) {
		if sr.headOK(s, b, last) && follows(s, e) && isSecretKey(s[b:e]) && sr.nameOK(s[b:e]) {
			if m := sr.tail.FindStringSubmatchIndex(s[e:]); m != nil {
				if m[2*sr.group] >= 0 {
					locs = append(locs, []int{e + m[2*sr.group], e + m[2*sr.group+1]})
				}
				last = e + m[1]
			}
		}
	}
	return locs
}

// headOK reports whether a match with its name at the run s[b:] may start
// at or after last.
func (sr *splitRule) headOK(s string, b, last int) bool {
	switch {
	case sr.dash:
		// (?:^|\s)--?: the run starts with a dash after a space or at 0.
		return s[b] == '-' && (b == 0 || b-1 >= last && strings.IndexByte(reSpace, s[b-1]) >= 0)
	case sr.quotedDash:
		return s[b] == '-' && b-1 >= last && (s[b-1] == '"' || s[b-1] == '\'')
	case sr.flowDash:
		return s[b] == '-' && flowItemStart(s, b, last)
	case sr.quote:
		return b-1 >= last && s[b-1] == '"'
	}
	// (?:^|[^A-Za-z0-9_.-])["']?: the byte before a run is no name byte.
	return b == 0 || b-1 >= last
}

// flowItemStart reports whether s[b] starts an item of a flow list, at
// or after last: after "[" or ",", spaces and tabs and a quote.
func flowItemStart(s string, b, last int) bool {
	j := b - 1
	if j >= last && (s[j] == '"' || s[j] == '\'') {
		j--
	}
	for j >= last && (s[j] == ' ' || s[j] == '\t') {
		j--
	}
	return j >= last && (s[j] == '[' || s[j] == ',')
}

// nameOK reports whether secretName matches the run (after the flag's
// dash).
func (sr *splitRule) nameOK(run string) bool {
	if sr.isFlag() {
		run = run[1:]
		return run != "" && flagNameRe.MatchString(shortNameRun(run))
	}
	if sr.flagEq {
		return eqNameRe.MatchString(shortNameRun(run))
	}
	return run != "" && nameRe.MatchString(shortNameRun(run))
}
