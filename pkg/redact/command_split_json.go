package redact

import "strings"

// A command split over two members of an object in JSON text, compact
// or not: a log line, a command's output, a string holding JSON, which
// reach the text rules rather than JSON's walk. findSplitCommandJSON
// reads the text's objects as JSON's walk does (see command_split.go):
//
//	{"command":["mysql"],"args":["-uroot","-pSECRET"]}
//	{"entrypoint":["psql"],"command":["--password","SECRET"]}
//
// Keys are quoted with " or ' (a Python dict's repr); a string in single
// quotes holding a " is read inside, as JSON in shell quotes (curl -d
// '{"command": …}'), not skipped as a Python string; a "command",
// "cmd" or "entrypoint" member is a string or an array of strings, an
// "args" ("arguments", "argv") or Compose "command" member an array of
// strings or a string (read as the rest of a command line). Members are
// siblings when they are in one object, whatever is between them;
// nested objects are read on their own. A string holding escaped JSON
// ("{\"command\":…}", a JSON event's message in a log line) is read
// too, its escapes \" and \\ undone, up to maxJSONTextNesting strings
// deep. Of objects nested deeper than maxJSONTextDepth, the innermost
// are tracked (an outer one's members are read when it is dropped: only
// those seen by then count), and an object the text leaves open is read
// at the text's end. The strings'
// escapes are not decoded otherwise: an argument spelled with \u
// escapes is not recognised (JSON's walk decodes them).

// maxJSONTextDepth bounds the objects open at once that
// findSplitCommandJSON tracks.
const maxJSONTextDepth = 1000

// maxJSONTextNesting bounds how many strings deep findSplitCommandJSON
// reads JSON held in a JSON string: each level reads the string again.
const maxJSONTextNesting = 3

// findSplitCommandJSON returns the spans of the passwords of commands
// split over two members of an object in JSON text.
func findSplitCommandJSON(s string) [][]int {
	return jsonTextCommands(s, 0)
}

// jsonTextCommands is findSplitCommandJSON at a nesting level.
func jsonTextCommands(s string, level int) [][]int {
	if strings.IndexByte(s, '{') < 0 {
		return nil
	}
	var locs [][]int
	var open []*splitMapping // nil: an object with no member of interest
	outer := 0               // objects open around open, no longer tracked
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '{':
			if len(open) == maxJSONTextDepth {
				// Keep the innermost half: the outer objects' members are
				// read at their close no more (amortized, each object is
				// moved once).
				for _, m := range open[:maxJSONTextDepth/2] {
					if m != nil {
						locs = m.appendSpans(locs, s)
					}
				}
				outer += maxJSONTextDepth / 2
				open = open[:copy(open, open[maxJSONTextDepth/2:])]
			}
			open = append(open, nil)
		case '}':
			if n := len(open); n > 0 {
				if m := open[n-1]; m != nil {
					locs = m.appendSpans(locs, s)
				}
				open = open[:n-1]
			} else if outer > 0 {
				outer--
			}
		case '"', '\'':
			if c == '\'' && !opensJSONTextString(s, i) || i > 0 && s[i-1] == '\\' {
				continue // an apostrophe, an escaped quote
			}
			end, ok := jsonTextString(s, i)
			if !ok && c == '\'' || ok && end+1 < len(s) && isNameByte(s[end+1]) {
				// Left open, or closed by a quote that opens a name (a stray
				// quote before {"command": …): the quote opens no string.
				continue
			}
			if n := len(open); ok && n > 0 {
				if role, v := jsonTextKey(s, i, end); role != pairNone {
					next, member, ok := jsonTextCommandMember(s, v)
					if ok {
						if open[n-1] == nil {
							open[n-1] = &splitMapping{}
						}
						open[n-1].note(role, member)
						i = next - 1
						continue
					}
				}
			}
			if c == '\'' && strings.IndexByte(s[i+1:end], '"') >= 0 {
				continue // JSON in shell quotes ('{"command": …}'): read inside
			}
			if level < maxJSONTextNesting && c == '"' && strings.Contains(s[i+1:end], `\"`) && strings.IndexByte(s[i+1:end], '{') >= 0 {
				locs = append(locs, nestedJSONTextCommands(s, i+1, end, level+1)...)
			}
			i = end
		}
	}
	for n := len(open); n > 0; n-- {
		if m := open[n-1]; m != nil {
			locs = m.appendSpans(locs, s)
		}
	}
	return sortSpans(locs)
}

// opensJSONTextString reports whether the single quote at s[i] opens a
// string: at the start of the text or after a space or "{", "[", ",",
// ":" (not the apostrophe of "don't").
func opensJSONTextString(s string, i int) bool {
	return i == 0 || strings.IndexByte(" \t\r\n{[,:", s[i-1]) >= 0
}

// jsonTextString returns where the string opening at s[i] closes; ok is
// false when its line ends first (JSON strings hold no line break), and
// the index is the line's end: a string left open (a line cut short) is
// read to it.
func jsonTextString(s string, i int) (int, bool) {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case q:
			return j, true
		case '\\':
			j++
		case '\n':
			return j, false
		}
	}
	return len(s), false
}

// jsonTextKey returns the pair role of the string s[i:end+1] (quotes
// included) when it is a key: followed by spaces and a colon; and where
// its value starts past spaces.
func jsonTextKey(s string, i, end int) (pairRole, int) {
	j := skipJSONTextSpace(s, end+1)
	if j >= len(s) || s[j] != ':' {
		return pairNone, 0
	}
	role := roleOf(s[i+1 : end])
	if role != pairCommand && role != pairArgs && role != pairEntrypoint {
		return pairNone, 0
	}
	return role, skipJSONTextSpace(s, j+1)
}

// skipJSONTextSpace returns the index of the first byte of s[i:] that is
// not JSON's white space.
func skipJSONTextSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n') {
		i++
	}
	return i
}

// jsonTextCommandMember reads the value at s[i] of a command or args member: a
// string, or an array of strings. It returns where the value ends, the
// member's items (scalar for a string) and ok; ok is false for any
// other value, which is left to be read on as text.
func jsonTextCommandMember(s string, i int) (int, splitArgs, bool) {
	if i >= len(s) {
		return 0, splitArgs{}, false
	}
	if q := s[i]; q == '"' || q == '\'' {
		end, ok := jsonTextString(s, i)
		if !ok {
			return 0, splitArgs{}, false
		}
		return end + 1, splitArgs{items: []splitItem{{text: s[i+1 : end], at: i + 1}}, scalar: true}, true
	}
	if s[i] != '[' {
		return 0, splitArgs{}, false
	}
	var items []splitItem
	for j := skipJSONTextSpace(s, i+1); j < len(s); {
		if s[j] == ']' && len(items) == 0 {
			return j + 1, splitArgs{}, true
		}
		if s[j] != '"' && s[j] != '\'' {
			return 0, splitArgs{}, false
		}
		end, ok := jsonTextString(s, j)
		if !ok {
			return 0, splitArgs{}, false
		}
		items = append(items, splitItem{text: s[j+1 : end], at: j + 1})
		j = skipJSONTextSpace(s, end+1)
		switch {
		case j < len(s) && s[j] == ']':
			return j + 1, splitArgs{items: items}, true
		case j < len(s) && s[j] == ',':
			j = skipJSONTextSpace(s, j+1)
		default:
			return 0, splitArgs{}, false
		}
	}
	return 0, splitArgs{}, false
}

// note records a command, args or entrypoint member of the object: a
// command names the program of the object's args (the first
// maxSplitCommands naming one) and holds a Compose service's arguments
// (the first maxSplitCommands members), an entrypoint names the program
// of those.
func (m *splitMapping) note(role pairRole, a splitArgs) {
	if !a.scalar && len(a.items) > 1 {
		m.lists = append(m.lists, a.items)
	}
	switch role {
	case pairCommand:
		m.commands = appendSplitCommand(m.commands, a.items)
		if len(m.cmdArgs) < maxSplitCommands && len(a.items) > 0 {
			m.cmdArgs = append(m.cmdArgs, a)
		}
	case pairEntrypoint:
		m.entrypoints = appendSplitCommand(m.entrypoints, a.items)
	case pairArgs:
		if len(a.items) > 0 {
			m.args = append(m.args, a)
		}
	}
}

// nestedJSONTextCommands returns the spans, in s, of the passwords in the
// JSON text a JSON string s[from:to] holds, read with its \" and \\
// escapes undone.
func nestedJSONTextCommands(s string, from, to, level int) [][]int {
	u := make([]byte, 0, to-from)
	at := make([]int, 0, to-from) // at[k] is where u[k] is in s
	for i := from; i < to; i++ {
		if s[i] == '\\' && i+1 < to && (s[i+1] == '"' || s[i+1] == '\\') {
			i++
		}
		u = append(u, s[i])
		at = append(at, i)
	}
	var locs [][]int
	for _, sp := range jsonTextCommands(string(u), level) {
		if sp[0] < sp[1] {
			locs = append(locs, []int{at[sp[0]], at[sp[1]-1] + 1})
		}
	}
	return locs
}
