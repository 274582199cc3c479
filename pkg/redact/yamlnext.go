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
// blank lines skipped, up to a mapping entry ("key: value") or a list
// item ("- x"); when the first of them is one, the name is over settings
// (password: / min_length: 12) or a list (a Compose service's secrets: /
// - db_password) and holds no secret itself: the rule keeps the lines. A
// line indented with a tab is no YAML (a Makefile target's recipe): the
// rule stops there too.
var yamlSecretNextRule = rule{label: "credential", find: findYAMLSecretNext, hints: secretHints, wholeText: true, pre: hasSecretAssignment}

// yamlSecretEmpty matches a line holding a secret-like name, a colon and
// nothing else but a comment; its first group is the indentation before
// the name.
var (
	yamlSecretEmptyPattern = `(?im)^((?: *)(?:-[\t ]+)?)["']?` + secretName + `["']?[\t ]*:[\t ]*(?:#.*)?\r?$`
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
		structure, done := false, false
		end = deeperLines(s, m[1], m[3]-m[2], func(start, indent int, line string) {
			content := line[indent:]
			quoted := (content[0] == '"' || content[0] == '\'') && len(content) >= 2 && content[len(content)-1] == content[0]
			switch {
			case structure || done || content[0] == '#':
			case strings.ContainsRune(line[:indent], '\t') || !quoted && isYAMLStructure(content):
				// A mapping or list under the name holds no secret itself; a
				// structure line after the scalar ends it.
				structure, done = len(spans) == 0, true
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
		})
		if !structure {
			locs = append(locs, spans...)
		}
	})
	return locs
}

// isYAMLStructure reports whether a line's content (after its
// indentation) is a list item or a mapping entry: it starts with "- " or
// is "-", or holds ": " or ends in ":" (a plain scalar holds neither).
func isYAMLStructure(content string) bool {
	return content == "-" || strings.HasPrefix(content, "- ") || strings.HasPrefix(content, "-\t") ||
		strings.Contains(content, ": ") || strings.Contains(content, ":\t") || strings.HasSuffix(content, ":")
}
