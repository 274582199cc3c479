package redact

import (
	"regexp"
	"strings"
)

// quotedLinesRule redacts a quoted scalar under a secret-like name that
// its line does not close, continued on the lines after it (a YAML
// double- or single-quoted scalar folded over lines, JSON-ish text
// wrapped):
//
//	password: "hun
//	  ter2"
//
// Each line of the scalar is redacted, from its indentation up to the
// closing quote (\" escapes in double quotes, a doubled quote in single
// quotes). The scalar's later lines are indented deeper than the name's
// line (blank lines are part of it); a line that is not ends the rule
// without its closing quote, and that line is kept.
var quotedLinesRule = rule{label: "credential", find: findQuotedLines, hints: secretHints, wholeText: true, pre: hasSecretAssignment}

// quotedOpen matches a line holding a secret-like name (checked by
// hand), a colon and an opening quote: its groups are the indentation,
// the name, and the quote.
var quotedOpen = regexp.MustCompile(`^([\t ]*)(?:-[\t ]+|\{[\t ]*)?["']?([A-Za-z0-9_.-]+)["']?[\t ]*:[\t ]*(["'])`)

// findQuotedLines returns the spans of the quoted scalars' lines.
func findQuotedLines(s string) [][]int {
	var locs [][]int
	for start := 0; start < len(s); {
		end := lineEnd(s, start)
		line := s[start:end]
		m := quotedOpen.FindStringSubmatchIndex(line)
		if m == nil || !isSecretKey(line[m[4]:m[5]]) || !nameRe.MatchString(shortNameRun(line[m[4]:m[5]])) {
			start = end + 1
			continue
		}
		q := line[m[6]]
		from := m[7]
		if _, closed := quotedEnd(line, from, q); closed {
			start = end + 1
			continue
		}
		if to := len(strings.TrimRight(line, " \t\r")); to > from {
			locs = append(locs, []int{start + from, start + to})
		}
		var rest [][]int
		rest, start = quotedRest(s, end, m[3]-m[2], q)
		locs = append(locs, rest...)
		start++
	}
	return locs
}

// quotedRest returns the spans of the lines after s[end] ('\n' or the
// end of s) continuing a quoted scalar left open (quote q) on a line
// indented by indent: the lines indented deeper (blank lines included),
// each from its indentation up to the closing quote, which ends them;
// and the end of the last of them.
func quotedRest(s string, end, indent int, q byte) ([][]int, int) {
	var spans [][]int
	for end < len(s) {
		start := end + 1
		next := lineEnd(s, start)
		line := strings.TrimRight(s[start:next], "\r")
		content := strings.TrimLeft(line, " \t")
		if content == "" {
			end = next
			continue
		}
		if len(line)-len(content) <= indent {
			break
		}
		stop, closed := quotedEnd(line, len(line)-len(content), q)
		if !closed {
			stop = len(strings.TrimRight(line, " \t"))
		}
		if from := len(line) - len(content); stop > from {
			spans = append(spans, []int{start + from, start + stop})
		}
		end = next
		if closed {
			break
		}
	}
	return spans, end
}

// lineEnd returns where the line starting at s[start] ends (its "\n" or
// the end of s).
func lineEnd(s string, start int) int {
	if j := strings.IndexByte(s[start:], '\n'); j >= 0 {
		return start + j
	}
	return len(s)
}

// quotedEnd returns where the quote q closes in line from i on (a
// backslash escapes in double quotes, a doubled quote in single quotes)
// and true, or the line's length and false.
func quotedEnd(line string, i int, q byte) (int, bool) {
	for ; i < len(line); i++ {
		switch {
		case q == '"' && line[i] == '\\':
			i++
		case line[i] == q && q == '\'' && i+1 < len(line) && line[i+1] == '\'':
			i++
		case line[i] == q:
			return i, true
		}
	}
	return len(line), false
}
