package redact

import (
	"regexp"
	"strings"
)

// pgpassRule redacts the password of a PostgreSQL password file line,
// hostname:port:database:username:password, in a file's content or a
// command's output (cat ~/.pgpass, echo '…' >> ~/.pgpass). Plenty of
// text has colons, so the line must clearly have that shape: exactly
// five fields (a colon inside one is escaped, \:), standing alone or
// after a space, quote, "=" or "(" and followed by the end of the line, a
// space or a quote; a port of one to five digits or "*"; a host that is
// "*" or holds a letter, dot, "-" or "_" besides digits (so a timestamp
// 2024:01:02:03:04 is no host) and is no date and hour (2006-01-02T15); non-empty fields without spaces or
// quotes. A password with a space runs to the end of the line when the
// line is the .pgpass line (only spaces before it); elsewhere (echo
// '…' >> ~/.pgpass) it ends at the space, but for a line that opens a
// quoted shell word (see quotedPasswordEnd). In JSON text (a tool call's
// {"content":"h:5432:d:u:pw1\nh2:5432:d:u:pw2\n"} written out) the
// escapes \n, \r, \t and \" end a line or a field as their characters
// do: .pgpass itself escapes only \: and \\.
var pgpassRule = rule{label: "password", find: findPgpass, colonWords: true}

// pgpassLine matches a candidate; the character after it is checked by
// findPgpass (RE2 has no look-ahead).
var pgpassLine = regexp.MustCompile(`(?:^|[\s"'=(]|\\[nrt])` +
	`(?:\*|(?:[A-Za-z0-9_.-]|\\:)*[A-Za-z_.-](?:[A-Za-z0-9_.-]|\\:)*|\[[0-9A-Fa-f:.]+\])` + // host
	`:(?:\*|[0-9]{1,5})` + // port
	`:(?:[^\s:"'\\]|\\[^nrt"])+:(?:[^\s:"'\\]|\\[^nrt"])+` + // database, username
	`:(?P<secret>(?:[^\s:"'\\]|\\[^nrt"])+)`)

// dateHour matches a candidate whose host is a date and an hour
// (…2010-02-04T21:…): a timestamp, not a .pgpass line.
var dateHour = regexp.MustCompile(`^(?:\\[nrt]|\D)?\d{4}-\d{2}-\d{2}[Tt]\d{2}:`)

// findPgpass returns the spans of the passwords of .pgpass lines. It is
// linear in s however many candidates a line holds: the start of the
// current line and its first non-blank byte are found once per line.
func findPgpass(s string) [][]int {
	var locs [][]int
	last := 0
	scanned, lineStart, lineText := 0, 0, 0 // lineText: the line's first non-blank byte
	for _, m := range pgpassLine.FindAllStringSubmatchIndex(s, -1) {
		if m[2] < last {
			continue // inside a password already extended to its line's end
		}
		end := m[3]
		if end < len(s) && strings.IndexByte(" \t\r\n\"'", s[end]) < 0 && !isJSONTextBreak(s, end) {
			continue // a sixth field, or more text: not a .pgpass line
		}
		hostStart := m[0]
		if dateHour.MatchString(s[m[0]:m[2]]) {
			continue // a timestamp with seconds in its offset: 2010-02-04T21:00:57+08:00:00
		}
		switch {
		case isJSONTextBreak(s, hostStart):
			hostStart += 2 // the escape before the host
		case strings.IndexByte(" \t\r\n\f\v\"'=(", s[hostStart]) >= 0:
			hostStart++ // the boundary before the host
		}
		if j := strings.LastIndexByte(s[scanned:hostStart], '\n'); j >= 0 || scanned == 0 {
			lineStart = scanned + j + 1
			lineText = lineStart
			for lineText < len(s) && (s[lineText] == ' ' || s[lineText] == '\t') {
				lineText++
			}
		}
		scanned = hostStart
		if hostStart == lineText {
			// The line is the .pgpass line (the file's content): its
			// password runs to the line's end, spaces included.
			lineEnd := len(s)
			if j := strings.IndexByte(s[end:], '\n'); j >= 0 {
				lineEnd = end + j
			}
			end = max(end, len(strings.TrimRight(s[:lineEnd], " \t\r")))
		}
		if hostStart > 0 && end < len(s) && strings.IndexByte(` \t'"\`, s[end]) >= 0 {
			end = quotedPasswordEnd(s, hostStart-1, end)
		}
		locs = append(locs, []int{m[2], end})
		last = end
	}
	return locs
}

// isJSONTextBreak reports whether s[i:] starts with an escape that JSON
// text has for a line break, a tab or a quote: \n, \r, \t or \".
func isJSONTextBreak(s string, i int) bool {
	return i+1 < len(s) && s[i] == '\\' && strings.IndexByte(`nrt"`, s[i+1]) >= 0
}

// maxQuotedPassword bounds how far past the end of the password the
// pgpass line pattern found quotedPasswordEnd reads: a few times the
// longest password a .pgpass line plausibly holds, so a long line of
// candidates stays linear.
const maxQuotedPassword = 512

// quotedPasswordEnd returns where the password of a .pgpass line ends
// when the line is inside a quoted shell word opened by the quote at
// s[open] and the pattern stopped it at s[end] (a quote, a space or an
// escaped quote): at the quote closing the word's quoted parts, through
// the quoting a password holding a quote needs ('pa'"'"'ss', an escaped
// quote between single-quoted parts, "pa'ss", "pa\"ss"). Only quoted parts and backslash escapes continue
// the word after a closing quote, so a JSON member after the line's
// string ("h:1:d:u:pw","x":1) is not read. end is returned when s[open]
// is no unescaped quote, or the word's quoted part does not close on
// the line within maxQuotedPassword bytes.
func quotedPasswordEnd(s string, open, end int) int {
	q := s[open]
	if q != '\'' && q != '"' || open > 0 && s[open-1] == '\\' {
		return end
	}
	limit := min(len(s), end+maxQuotedPassword)
	last, i := end, end
	for {
		j := closingShellQuote(s, i, limit, q)
		if j < 0 {
			return last
		}
		last, i = j, j+1
		for i+1 < limit && s[i] == '\\' && s[i+1] != '\n' && s[i+1] != '\r' {
			i += 2 // an escaped character between quoted parts
			last = i
		}
		if i >= limit || s[i] != '\'' && s[i] != '"' {
			return last
		}
		q, i = s[i], i+1
	}
}

// closingShellQuote returns the index of the quote q closing a quoted
// part from s[i:limit] (in double quotes, after backslash escapes; a
// JSON text's \n, \r and \t end the line), or -1 when the line or the
// limit comes first.
func closingShellQuote(s string, i, limit int, q byte) int {
	for ; i < limit; i++ {
		switch c := s[i]; {
		case c == q:
			return i
		case c == '\n' || c == '\r':
			return -1
		case c == '\\' && q == '"':
			if isJSONTextBreak(s, i) && s[i+1] != '"' {
				return -1
			}
			i++
		}
	}
	return -1
}
