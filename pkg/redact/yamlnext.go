package redact

import (
	"regexp"
	"strings"
)

// yamlSecretNextRule redacts a YAML scalar under a secret-like name given
// on the lines after the name's, which holds no value (or only a
// comment):
//
//	password:
//	  # rotated monthly
//	  hunter2
//
// The value is the lines indented deeper than the name, comments and
// blank lines skipped, up to a mapping entry ("key: value"), or the
// scalars of a list's items (passwords: / - hunter2). When the first line
// is a mapping entry or an item holding one, the name is over settings
// (password: / min_length: 12) and holds no secret itself: the rule keeps
// the lines; so it does for a list under "secrets" (a Compose service's
// secrets: / - db_password names its secrets). A line indented with a
// tab is no YAML (a Makefile target's recipe): the rule stops there too.
var yamlSecretNextRule = rule{label: "credential", find: findYAMLSecretNext, hints: secretHints, wholeText: true, pre: hasSecretAssignment}

// yamlSecretEmpty matches a line holding a secret-like name, a colon and
// nothing else but tags, anchors (!!str, &pw) and a comment; its first
// group is the indentation before the name.
var (
	yamlSecretEmptyPattern = `(?im)^((?: *)(?:-[\t ]+)?)["']?` + secretName + `["']?[\t ]*:[\t ]*(?:[!&][^\s#]*[\t ]*)*(?:#.*)?\r?$`
	yamlSecretEmpty        = regexp.MustCompile(yamlSecretEmptyPattern)
	yamlSecretEmptyFinder  = newNameFinder(yamlSecretEmptyPattern, followedBy(true, " \t", ":"))
)

// findYAMLSecretNext returns the spans of the values on the lines after
// a secret-like name with no value.
func findYAMLSecretNext(s string) [][]int {
	var locs [][]int
	end := -1
	yamlSecretEmptyFinder.each(s, func(m []int) {
		if m[0] <= end {
			return
		}
		var spans [][]int
		col := compactListCol(s, m[1], m[3]-m[2])
		spans, end = nextLinesValue(s, m[1], col, isSecretsName(s[m[3]:m[1]]))
		locs = append(locs, spans...)
	})
	return locs
}

// nextLinesValue returns the spans of the YAML value given on the lines
// after s[end] ('\n' or the end of s) indented deeper than col (see
// yamlSecretNextRule), none when the lines are a mapping (or a list
// under a name holding names, names), and the end of the last line
// read.
func nextLinesValue(s string, end, col int, names bool) ([][]int, int) {
	var spans [][]int
	structure, list := false, false
	end = deeperLinesWhile(s, end, col, func(start, indent int, line string) bool {
		content := line[indent:]
		if item := strings.TrimLeft(strings.TrimPrefix(content, "-"), " \t"); !names && len(item) < len(content) &&
			item != "" && item[0] != '#' && (len(spans) == 0 || list) && !isYAMLStructure(item) {
			// A list of secrets (passwords: / - hunter2): each item's
			// scalar, as if on its own line.
			list, indent, content = true, indent+len(content)-len(item), item
		}
		quoted := (content[0] == '"' || content[0] == '\'') && len(content) >= 2 && content[len(content)-1] == content[0]
		switch {
		case content[0] == '#':
		case strings.ContainsRune(line[:indent], '\t') || !quoted && isYAMLStructure(content):
			// A mapping or list under the name holds no secret itself (its
			// lines are read again by the rules, for the secrets in them);
			// a structure line after the scalar ends it.
			structure = len(spans) == 0
			return false
		default:
			from, to := start+indent, start+len(line)
			if quoted {
				from, to = from+1, to-1
			} else if j := strings.Index(content, " #"); j >= 0 {
				to = from + len(strings.TrimRight(content[:j], " "))
			}
			if from < to {
				spans = append(spans, []int{from, to})
			}
		}
		return true
	})
	if structure {
		return nil, end
	}
	return spans, end
}

// isSecretsName reports whether a YAML name (the text from the name to
// its colon) is "secrets", whose list holds the names of secrets (a
// Compose service's secrets: / - db_password), not secrets.
func isSecretsName(head string) bool {
	name := strings.Trim(head[:strings.IndexByte(head, ':')], " \t\"'")
	return strings.EqualFold(name, "secrets")
}

// isYAMLStructure reports whether a line's content (after its
// indentation) is a list item or a mapping entry: it starts with "- " or
// is "-", or holds ": " or ends in ":" (a plain scalar holds neither).
func isYAMLStructure(content string) bool {
	return content == "-" || strings.HasPrefix(content, "- ") || strings.HasPrefix(content, "-\t") ||
		strings.Contains(content, ": ") || strings.Contains(content, ":\t") || strings.HasSuffix(content, ":")
}

// compactListCol returns col less one when the first line after s[end]
// that is neither blank nor a comment is a list item indented as deep as
// col, a key's column (a compact sequence: passwords: / - hunter2, the
// items at their key's column), so that nextLinesValue reads its items;
// else col.
func compactListCol(s string, end, col int) int {
	for end < len(s) {
		start := end + 1
		next := len(s)
		if j := strings.IndexByte(s[start:], '\n'); j >= 0 {
			next = start + j
		}
		line := strings.TrimRight(s[start:next], "\r \t")
		content := strings.TrimLeft(line, " ")
		if content != "" && content[0] != '#' {
			if len(line)-len(content) == col && content[0] == '-' && (len(content) == 1 || content[1] == ' ' || content[1] == '\t') {
				return col - 1
			}
			return col
		}
		end = next
	}
	return col
}
