package redact

import "strings"

// flowListRule redacts the passwords in a flow list written over several
// lines (YAML's [a,\n b], JSON's array with one item per line): a
// command's (command: [mysql,\n  -pSECRET]) and the value after a flag
// naming a secret (args: [--password,\n  SECRET]), reading the list's
// items as an argv, as JSON's argv rules read an array. On one line a
// list is the line rules'. The items are the scalars between commas and
// brackets at any depth (a nested list's items continue the sequence),
// quoted ones as one word and, read again, split at spaces too (a plain
// scalar may hold a whole command line: [sh, -c, mysql -uroot\n -pX]).
// A list starts at any "[" (a plain scalar may hold one: run: foo
// [--password,\n  X]); it ends at its closing "]" or a line that cannot
// continue it (see readFlowList), and the text is read on after it, so
// each byte is read by one list. A quote running over lines is read both
// ways: as YAML reads it (up to its closing quote, or a blank line when
// never closed: a closing quote lost) and as ending at its line's end, the
// lines after it read as lists (a stray quote, or one closed far on: [" \n
// command: [mysql,\n -pX]\n " must not hide the list inside it), so a text
// holding one is read again from the first list holding one.
var flowListRule = rule{label: commandRule.label, find: findFlowLists, wholeText: true,
	hints: append(append([]string{}, commandHints...), flagHints...),
	pre:   func(s string) bool { return strings.IndexByte(s, '[') >= 0 }}

// findFlowLists returns the spans of the passwords in the flow lists of s
// written over several lines.
func findFlowLists(s string) [][]int {
	var q quoteReading
	locs := appendFlowListSpans(nil, s, 0, &q)
	if q.overLines {
		// The lists before the first one holding a quote over lines read
		// the same.
		q.toLineEnd = true
		locs = appendFlowListSpans(locs, s, q.firstList, &q)
	}
	return sortSpans(locs)
}

// appendFlowListSpans appends to locs the spans of the passwords in the
// flow lists of s[from:] written over several lines, reading quotes as q
// says.
func appendFlowListSpans(locs [][]int, s string, from int, q *quoteReading) [][]int {
	ls := strings.LastIndexByte(s[:from], '\n') + 1
	scanned := from // ls is the start of the line holding s[scanned]
	for i := from; i < len(s); {
		j := strings.IndexByte(s[i:], '[')
		if j < 0 {
			break
		}
		p := i + j
		if k := strings.LastIndexByte(s[scanned:p], '\n'); k >= 0 {
			ls = scanned + k + 1
		}
		scanned = p
		met := q.overLines
		items, end, multi := readFlowList(s, p, ls, q)
		if !met && q.overLines {
			q.firstList = p
		}
		if multi {
			locs = appendItemArgvSpans(locs, s, items)
		}
		i = max(end, p+1)
	}
	return locs
}

// quoteReading says how readFlowList reads a quote running over lines,
// and keeps whether it read one. Its zero value reads them as YAML does.
//
// Read as ending at its line's end, a quote running over lines has the
// lines after it read as a list's, its closing quote, if any, ending the
// item it follows there, or else opening one (a stray quote closed by the
// one opening an item of a list it hides: [" \ncommand: ["mysql",\n
// "-pX"]); the search for its end may cover those lines again, but not
// twice: a quote of the same kind opened there would have closed it (the
// closing quote's own search starts after it), and one that does not (an
// escaped " cannot open an item; a ' doubled opens one that closes at the
// end of its run of quotes) does not search far. So the searches of each
// kind of quote cover a text once, as when read as YAML does.
type quoteReading struct {
	toLineEnd bool   // a quote running over lines ends at its line's end
	closing   [2]int // then where its closing " and ' are, +1 (0: none)
	overLines bool   // a quote running over lines was read,
	firstList int    // in the list opened at s[firstList] first
}

// readFlowList reads the flow list whose "[" is at s[p], on the line
// starting at s[ls]: its items (the
// scalars between commas, brackets and braces at any depth, quoted ones
// without their quotes, a quoted one running over lines up to its closing
// quote before a blank line, one never closed there up to the blank line,
// or, as q says, up to its line's end, comments skipped), where the reading
// ended and whether the list ran past its first line. It ends after its
// closing "]", at the text's end, or before a line that cannot continue
// it: one indented no deeper than the "["'s line or a line it continued
// on, not starting with "]", "}" or ",", after a line that did not end in
// ",", "[" or ":" (a stray "[" in prose reads on to its paragraph's next
// line at the most; "  [\ncommand: [sh, -c, mysql -uroot\n  -pX]" reads
// on to -pX, indented deeper than the command line it continued on, and
// "[mysql, x:\n-pX]" to the value of x). Blank lines are skipped. q says how a quote running over lines is read, and keeps
// whether one was.
func readFlowList(s string, p, ls int, q *quoteReading) (items []splitItem, end int, multi bool) {
	openIndent := indentAt(s, ls)
	depth := 0
	itemStart := -1
	var last byte // the last byte read outside spaces and comments
	flush := func(e int) {
		if itemStart >= 0 {
			text := strings.TrimRight(s[itemStart:e], " \t\r\n")
			items = append(items, splitItem{text: text, at: itemStart})
			itemStart = -1
		}
	}
	for k := p; k < len(s); k++ {
		c := s[k]
		switch {
		case q.toLineEnd && itemStart >= 0 && (k+1 == q.closing[0] || k+1 == q.closing[1]):
			flush(k) // the closing quote of one read to its line's end
		case c == '\n':
			next := k + 1
			for next < len(s) && blankLineAt(s, next) {
				next = lineEnd(s, next) + 1
			}
			if next >= len(s) {
				flush(k)
				return items, len(s), multi
			}
			ind := indentAt(s, next)
			if f := s[next+ind]; ind <= openIndent && last != ',' && last != '[' && last != ':' && f != ']' && f != '}' && f != ',' {
				flush(k)
				return items, k + 1, multi
			}
			// A line it continues on is its least indented line so far:
			// the lines after it are read against it.
			openIndent = min(openIndent, ind)
			multi = true
			k = next - 1
			continue
		case c == '[' || c == '{':
			flush(k)
			depth++
		case c == ']' || c == '}':
			flush(k)
			depth--
			if depth == 0 {
				return items, k + 1, multi
			}
		case c == ',':
			flush(k)
		case (c == '"' || c == '\'') && itemStart < 0:
			e := quotedItemEnd(s, k+1, c)
			closed := e < len(s) && s[e] == c
			if nl := strings.IndexByte(s[k:min(e, len(s))], '\n'); nl >= 0 {
				q.overLines = true
				if q.toLineEnd {
					if closed {
						q.closing[quoteKind(c)] = e + 1
					}
					e = k + nl
					items = append(items, splitItem{text: strings.TrimRight(s[k+1:e], "\r"), at: k + 1, quoted: true})
					k = e - 1 // read on at its line's end
					break
				}
				multi = true
			}
			items = append(items, splitItem{text: s[k+1 : min(e, len(s))], at: k + 1, quoted: true})
			if closed {
				k = e // the closing quote
			} else {
				k = e - 1 // read on at the newline it ends before
			}
		case c == '#' && (k == ls || s[k-1] == ' ' || s[k-1] == '\t'):
			flush(k)
			for k+1 < len(s) && s[k+1] != '\n' {
				k++
			}
			continue
		case c == ' ' || c == '\t' || c == '\r':
			continue
		default:
			if itemStart < 0 {
				itemStart = k
			}
		}
		last = c
	}
	flush(len(s))
	return items, len(s), multi
}

// indentAt returns the spaces and tabs starting the line at s[i].
func indentAt(s string, i int) int {
	n := 0
	for i+n < len(s) && (s[i+n] == ' ' || s[i+n] == '\t') {
		n++
	}
	return n
}

// appendItemArgvSpans appends to locs the spans of the passwords in a
// list's items read as an argv: each item as one word, then the items
// split at spaces (a plain scalar holding a command line).
func appendItemArgvSpans(locs [][]int, s string, items []splitItem) [][]int {
	locs = appendWordSpans(locs, s, items)
	var words []splitItem
	for _, it := range items {
		for k := 0; k < len(it.text); {
			for k < len(it.text) && isShellSpace(it.text[k]) {
				k++
			}
			e := k
			for e < len(it.text) && !isShellSpace(it.text[e]) {
				e++
			}
			if e > k {
				words = append(words, splitItem{text: it.text[k:e], at: it.at + k})
			}
			k = e
		}
	}
	return appendWordSpans(locs, s, words)
}

// appendWordSpans appends the spans argvSecrets gives for words.
func appendWordSpans(locs [][]int, s string, words []splitItem) [][]int {
	texts := make([]string, len(words))
	for i, w := range words {
		texts[i] = w.text
	}
	for i, from := range argvSecrets(texts) {
		w := words[i]
		if from >= 0 && from < len(w.text) && !isMarkerAt(s, w.at+from) {
			locs = append(locs, []int{w.at + from, w.at + len(w.text)})
		}
	}
	return locs
}

// quoteKind returns 0 for a double quote, 1 for a single one.
func quoteKind(q byte) int {
	if q == '\'' {
		return 1
	}
	return 0
}

// quotedItemEnd returns where the quote q opened before s[i] closes (a
// backslash escapes in double quotes, a doubled quote in single quotes),
// or, unclosed, the "\n" before a blank line or the text's end.
func quotedItemEnd(s string, i int, q byte) int {
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case q == '"' && c == '\\':
			i++
		case c == q && q == '\'' && i+1 < len(s) && s[i+1] == '\'':
			i++
		case c == q:
			return i
		case c == '\n' && blankLineAt(s, i+1):
			return i
		}
	}
	return len(s)
}

// blankLineAt reports whether the line starting at s[i] is blank (only
// spaces, tabs and a CR) or s ends there.
func blankLineAt(s string, i int) bool {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r') {
		i++
	}
	return i >= len(s) || s[i] == '\n'
}
