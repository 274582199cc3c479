package redact

import (
	"encoding/json"
	"regexp"
	"strings"
)

// The text forms of name/value pairs (see pair.go): a Kubernetes env list
// in YAML, a name line and a value line at the same indentation,
//
//	- name: DB_PASSWORD
//	  value: hunter2
//
// and JSON in text (a command's output, a file, a string holding JSON),
// where a "name" or "key" member and a "value" member of one object are
// next to each other or separated only by members with scalar values
// ({"Name": "/db/password", "Type": "SecureString", "Value": "…"}),
// compact or pretty-printed. The value is redacted when the name names a
// secret (IsSecretKey).

// pairHints are the hints of the pair rules: every spelling of the secret
// names, suffixes and pass, without those that contain another. A name
// for which IsSecretKey holds holds one of them unless it has separators
// inside a word (p_assword).
var pairHints = func() []string {
	var all []string
	for _, s := range append(append([]string{passWord}, secretNames...), secretSuffixes...) {
		all = append(all, spellings(s)...)
	}
	return minimalFragments(all)
}()

// yamlPairRule redacts the value line of a YAML name/value pair.
var yamlPairRule = rule{label: "credential", find: findYAMLPairs, hints: pairHints, wholeText: true}

// jsonTextPairRule redacts the value member of a name/value pair in JSON
// text.
var jsonTextPairRule = rule{label: "credential", find: findJSONTextPairs, hints: pairHints, wholeText: true,
	pre: func(s string) bool { return containsFold(s, `"value"`) || containsFold(s, `value\"`) }}

// yamlEntry is one "key: value" line of YAML.
type yamlEntry struct {
	col        int // the key's column (after the indentation and any "- ")
	item       bool
	role       pairRole
	value      string // unquoted
	start, end int    // the value's span in the text, quotes excluded
	block      bool   // the value is a block scalar (| or >) on the lines below
}

// parseYAMLEntry reads the line s[start:end] as "[indent][- ]key: value";
// ok is false for any other line, an empty value, or a key with no pair
// role. A block scalar's value is empty, with block set.
func parseYAMLEntry(s string, start, end int) (e yamlEntry, ok bool) {
	line := strings.TrimSuffix(s[start:end], "\r")
	i := 0
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	if i+1 < len(line) && line[i] == '-' && (line[i+1] == ' ' || line[i+1] == '\t') {
		e.item = true
		for i++; i < len(line) && (line[i] == ' ' || line[i] == '\t'); i++ {
		}
	}
	e.col = i
	q := byte(0)
	if i < len(line) && (line[i] == '"' || line[i] == '\'') {
		q = line[i]
		i++
	}
	k := i
	for i < len(line) && isNameByte(line[i]) {
		i++
	}
	key := line[k:i]
	if q != 0 {
		if i >= len(line) || line[i] != q {
			return e, false
		}
		i++
	}
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	if key == "" || i >= len(line) || line[i] != ':' {
		return e, false
	}
	for i++; i < len(line) && (line[i] == ' ' || line[i] == '\t'); i++ {
	}
	v := line[i:]
	vs := i
	switch {
	case v == "":
		return e, false
	case v[0] == '"' || v[0] == '\'':
		j := strings.IndexByte(v[1:], v[0])
		if j < 0 {
			return e, false
		}
		v, vs = v[1:1+j], vs+1
	default:
		if j := strings.Index(v, " #"); j >= 0 {
			v = v[:j]
		}
		v = strings.TrimRight(v, " \t")
		if v == "" || v[0] == '#' {
			return e, false
		}
		if v[0] == '|' || v[0] == '>' {
			e.role, e.block, e.start, e.end = roleOf(key), true, start+vs+len(v), start+vs+len(v)
			return e, e.role != pairNone
		}
	}
	e.role, e.value, e.start, e.end = roleOf(key), v, start+vs, start+vs+len(v)
	return e, e.role != pairNone && v != ""
}

// findYAMLPairs returns the spans of the values of YAML name/value pairs
// whose name names a secret: a "name"/"key" line and a "value" line, in
// either order, the second at the first's key column and not a new list
// item.
func findYAMLPairs(s string) [][]int {
	var locs [][]int
	var prev yamlEntry
	havePrev := false
	for start := 0; start < len(s); {
		end := len(s)
		if j := strings.IndexByte(s[start:], '\n'); j >= 0 {
			end = start + j
		}
		e, ok := parseYAMLEntry(s, start, end)
		if ok && havePrev && !e.item && e.col == prev.col {
			switch {
			case prev.role == pairName && e.role == pairValue && IsSecretKey(prev.value):
				if e.block {
					var block [][]int
					block, end = blockLines(s, end, e.col)
					locs = append(locs, block...)
					ok = false
				} else {
					locs = append(locs, []int{e.start, e.end})
				}
			case prev.role == pairValue && e.role == pairName && IsSecretKey(e.value) && !prev.block:
				locs = append(locs, []int{prev.start, prev.end})
			}
		}
		prev, havePrev = e, ok
		start = end + 1
	}
	return locs
}

// yamlSecretBlockRule redacts the lines of a YAML block scalar under a
// secret-like name (password: |, client_secret: >-).
var yamlSecretBlockRule = rule{label: "credential", find: findYAMLSecretBlocks, hints: secretHints, wholeText: true,
	pre: func(s string) bool { return hasBlockIndicator(s) && hasSecretAssignment(s) }}

// hasBlockIndicator reports whether s has a ":" followed, after spaces or
// tabs, by "|" or ">": where a YAML block scalar may start.
func hasBlockIndicator(s string) bool {
	for i := strings.IndexByte(s, ':'); i >= 0; {
		j := i + 1
		for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
			j++
		}
		if j < len(s) && s[j] == '!' { // a tag: !vault |
			for j < len(s) && s[j] != ' ' && s[j] != '\t' && s[j] != '\n' {
				j++
			}
			for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
				j++
			}
		}
		if j < len(s) && (s[j] == '|' || s[j] == '>') {
			return true
		}
		k := strings.IndexByte(s[j:], ':')
		if k < 0 {
			return false
		}
		i = j + k
	}
	return false
}

// yamlSecretBlock matches a line holding a secret-like name and a block
// scalar's indicator; its first group is the indentation before the name.
var (
	yamlSecretBlockPattern = `(?im)^([\t ]*(?:-[\t ]+)?)["']?` + secretName + `["']?[\t ]*:[\t ]*(?:![^\s]*[\t ]+)?[|>][0-9+-]*[\t ]*(?:#.*)?\r?$`
	yamlSecretBlock        = regexp.MustCompile(yamlSecretBlockPattern)
	yamlSecretBlockFinder  = newNameFinder(yamlSecretBlockPattern, followedBy(true, " \t", ":"))
)

// findYAMLSecretBlocks returns the spans of the lines of the block
// scalars under secret-like names. A name line inside a block already
// found is part of it.
func findYAMLSecretBlocks(s string) [][]int {
	var locs [][]int
	end := -1
	yamlSecretBlockFinder.each(s, func(m []int) {
		if m[0] <= end {
			return
		}
		var block [][]int
		block, end = blockLines(s, m[1], m[3]-m[2])
		locs = append(locs, block...)
	})
	return locs
}

// blockLines returns the spans of the non-blank lines of a block scalar,
// the lines after s[end] ('\n' or the end of s) indented deeper than
// col or blank, and the end of the last of them.
func blockLines(s string, end, col int) ([][]int, int) {
	var spans [][]int
	end = deeperLines(s, end, col, func(start, indent int, line string) {
		spans = append(spans, []int{start + indent, start + len(line)})
	})
	return spans, end
}

// deeperLines calls visit for each non-blank line after s[end] ('\n' or
// the end of s), as long as the lines are indented deeper than col or
// blank, with the line's start in s, its indentation and the line without
// trailing space; it returns the end of the last of those lines.
func deeperLines(s string, end, col int, visit func(start, indent int, line string)) int {
	return deeperLinesWhile(s, end, col, func(start, indent int, line string) bool {
		visit(start, indent, line)
		return true
	})
}

// deeperLinesWhile is deeperLines stopping before the line for which
// visit returns false: it returns the end of the line before it.
func deeperLinesWhile(s string, end, col int, visit func(start, indent int, line string) bool) int {
	for end < len(s) {
		start := end + 1
		next := len(s)
		if j := strings.IndexByte(s[start:], '\n'); j >= 0 {
			next = start + j
		}
		line := strings.TrimRight(s[start:next], "\r \t")
		indent := len(line) - len(strings.TrimLeft(line, " \t"))
		if line != "" && indent <= col {
			break
		}
		if line != "" && !visit(start, indent, line) {
			break
		}
		end = next
	}
	return end
}

// jsonTextMember is a JSON member with a scalar value, in text.
const jsonTextMember = `"(?:[^"\\]|\\.)*"\s*:\s*(?:"(?:[^"\\]|\\.)*"|-?[0-9][0-9.eE+-]*|true|false|null)`

// jsonTextPair finds a "name"/"key" member and a "value" member with a
// string or number value, either order, with only scalar members between.
var jsonTextPair = regexp.MustCompile(`(?i)"(?:name|key)"\s*:\s*"(?P<name>(?:[^"\\]|\\.)*)"(?:\s*,\s*` + jsonTextMember + `)*\s*,\s*"value"\s*:\s*(?:"(?P<v1>(?:[^"\\]|\\.)*)"|(?P<n1>-?[0-9][0-9.eE+-]*))` +
	`|"value"\s*:\s*(?:"(?P<v2>(?:[^"\\]|\\.)*)"|(?P<n2>-?[0-9][0-9.eE+-]*))(?:\s*,\s*` + jsonTextMember + `)*\s*,\s*"(?:name|key)"\s*:\s*"(?P<name2>(?:[^"\\]|\\.)*)"`)

// flowPair finds a name/value pair written as a YAML flow mapping or a
// Python dict, adjacent members with the keys quoted or not:
// {name: DB_PASSWORD, value: hunter2}, {'name': 'DB_PASSWORD', 'value': '…'}.
var flowPair = regexp.MustCompile(`(?i)[{,]\s*["']?(?:name|key)["']?\s*:\s*["']?(?P<name>[^"',{}\s]+)["']?\s*,\s*["']?value["']?\s*:\s*(?:"(?P<dq1>[^"\r\n]+)"|'(?P<sq1>[^'\r\n]+)'|(?P<bare1>[^,{}\s"'\[][^,{}\r\n]*?))\s*[,}]` +
	`|[{,]\s*["']?value["']?\s*:\s*(?:"(?P<dq2>[^"\r\n]+)"|'(?P<sq2>[^'\r\n]+)'|(?P<bare2>[^,{}\s"'\[][^,{}\r\n]*?))\s*,\s*["']?(?:name|key)["']?\s*:\s*["']?(?P<name2>[^"',{}\s]+)["']?\s*[,}]`)

// flowPairRule redacts the value of a flow-style name/value pair.
var flowPairRule = rule{label: "credential", find: func(s string) [][]int { return findPairs(flowPair, s) }, hints: pairHints,
	pre: func(s string) bool { return containsFold(s, "value") }}

// findJSONTextPairs returns the spans of the values of JSON name/value
// pairs in text whose name names a secret.
func findJSONTextPairs(s string) [][]int { return findPairs(jsonTextPair, s) }

// findPairs returns the spans of the values re finds (every named group
// but name and name2) where its name or name2 group names a secret.
func findPairs(re *regexp.Regexp, s string) [][]int {
	var locs [][]int
	for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
		name := ""
		for g, sub := range re.SubexpNames() {
			if (sub == "name" || sub == "name2") && m[2*g] >= 0 {
				name = unquoteJSONText(s[m[2*g]:m[2*g+1]])
			}
		}
		if !IsSecretKey(name) {
			continue
		}
		for g, sub := range re.SubexpNames() {
			if sub != "" && sub != "name" && sub != "name2" && m[2*g] >= 0 && m[2*g] < m[2*g+1] {
				locs = append(locs, []int{m[2*g], m[2*g+1]})
			}
		}
	}
	return locs
}

// unquoteJSONText decodes the content of a JSON string found in text; a
// content that is not valid JSON is taken as it is.
func unquoteJSONText(content string) string {
	var v string
	if err := json.Unmarshal([]byte(`"`+content+`"`), &v); err != nil {
		return content
	}
	return v
}

// containsFold reports whether s contains the lower-case ASCII sub,
// ignoring ASCII case (sub's first byte too: "Value" holds "value").
func containsFold[T string | []byte](s T, sub string) bool {
	return indexFold(s, sub) >= 0
}

// indexFold is the index of the first lower-case ASCII sub in s,
// ignoring ASCII case, or -1.
func indexFold[T string | []byte](s T, sub string) int {
	lo, up := sub[0], upper(sub[0])
	for i := 0; i+len(sub) <= len(s); i++ {
		if c := s[i]; (c == lo || c == up) && equalFoldTail(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}
