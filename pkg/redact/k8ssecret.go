package redact

import (
	"regexp"
	"slices"
	"strings"
)

// k8sSecretRule redacts the values of a Kubernetes Secret's data and
// stringData maps in text (kubectl get secret -o yaml or -o json), whose
// keys are free names (DATABASE_URL, tls.key, config.json) the other
// rules cannot tell from ordinary settings. In YAML, a data: or
// stringData: block is redacted when a kind: Secret line stands at the
// same key column somewhere in the text; in JSON text, every "data" and
// "stringData" object's string values when "kind": "Secret" occurs in the
// text. A ConfigMap listed beside a Secret may lose its data too: the
// rule does not parse the documents.
var k8sSecretRule = rule{label: "secret", find: findK8sSecretData, hints: []string{"secret"}, wholeText: true,
	pre: func(s string) bool { return containsFold(s, "kind") }}

var (
	yamlSecretKind = regexp.MustCompile(`(?m)^([\t ]*(?:-[\t ]+)?)kind[\t ]*:[\t ]*["']?Secret["']?[\t ]*\r?$`)
	yamlDataKey    = regexp.MustCompile(`(?m)^([\t ]*(?:-[\t ]+)?)(?:data|stringData)[\t ]*:[\t ]*\r?$`)
	jsonSecretKind = regexp.MustCompile(`"kind"\s*:\s*"Secret"`)
	jsonDataObject = regexp.MustCompile(`"(?:data|stringData)"\s*:\s*\{`)
	jsonStringPair = regexp.MustCompile(`"(?:[^"\\]|\\.)*"\s*:\s*"((?:[^"\\]|\\.)*)"`)
)

// findK8sSecretData returns the spans of the values of Secrets' data maps
// in s, in order.
func findK8sSecretData(s string) [][]int {
	cols := map[int]bool{}
	for _, m := range yamlSecretKind.FindAllStringSubmatchIndex(s, -1) {
		cols[m[3]-m[2]] = true
	}
	locs, _ := yamlDataBlocks(s, cols)
	if jsonSecretKind.MatchString(s) {
		for _, seg := range jsonDataSegments(s) {
			for _, v := range jsonStringPair.FindAllStringSubmatchIndex(s[seg[0]:seg[1]], -1) {
				if v[2] < v[3] {
					locs = append(locs, []int{seg[0] + v[2], seg[0] + v[3]})
				}
			}
		}
	}
	return sortSpans(locs)
}

// yamlDataBlocks returns the spans of the values of the data and
// stringData blocks in YAML text whose key column is one of cols, and
// each block's extent, from its key line's end to its last line's end. A
// data line inside a block already read is part of it (its values are
// among that block's): reading each nested block again would take time
// quadratic in the text.
func yamlDataBlocks(s string, cols map[int]bool) (spans [][]int, blocks [][2]int) {
	end := -1
	for _, m := range yamlDataKey.FindAllStringSubmatchIndex(s, -1) {
		if col := m[3] - m[2]; cols[col] && m[0] > end {
			var block [][]int
			block, end = yamlBlockValues(s, m[1], col)
			spans = append(spans, block...)
			blocks = append(blocks, [2]int{m[1], end})
		}
	}
	return spans, blocks
}

// jsonDataSegments returns the spans of the members of the data and
// stringData objects in JSON text: from each object's "{" to the first "}" after it.
// A data object opened before that "}" (nested, or inside a string) is
// read with the first, so the spans never overlap: reading each one up to
// the same "}" again would take time quadratic in the text.
func jsonDataSegments(s string) [][2]int {
	var segs [][2]int
	end := 0
	for _, m := range jsonDataObject.FindAllStringIndex(s, -1) {
		if m[1] <= end {
			continue
		}
		end = len(s)
		if j := strings.IndexByte(s[m[1]:], '}'); j >= 0 {
			end = m[1] + j
		}
		segs = append(segs, [2]int{m[1], end})
	}
	return segs
}

// yamlBlockValues returns the spans of the values in the block of lines
// after s[end] indented deeper than col: an entry's value after its
// "key:", and the whole content of the lines deeper than the entries (a
// block scalar's lines); and the end of the block's last line.
func yamlBlockValues(s string, end, col int) ([][]int, int) {
	var spans [][]int
	entry := -1 // the entries' indentation
	end = deeperLines(s, end, col, func(start, indent int, line string) {
		if entry < 0 {
			entry = indent
		}
		if indent > entry {
			spans = append(spans, []int{start + indent, start + len(line)})
			return
		}
		if i := strings.Index(line, ":"); i >= 0 {
			v := strings.TrimLeft(line[i+1:], " \t")
			v = strings.Trim(v, `"'`)
			if v != "" && v[0] != '|' && v[0] != '>' {
				vs := start + strings.Index(line[i+1:], v) + i + 1
				spans = append(spans, []int{vs, vs + len(v)})
			}
		}
	})
	return spans, end
}

// sortSpans orders spans by start and joins overlapping ones into one
// span over both (they come from separate searches, which may find the
// same secret from two starts).
func sortSpans(spans [][]int) [][]int {
	slices.SortFunc(spans, func(a, b []int) int { return a[0] - b[0] })
	out := spans[:0]
	for _, sp := range spans {
		if n := len(out); n > 0 && sp[0] < out[n-1][1] {
			out[n-1] = []int{out[n-1][0], max(out[n-1][1], sp[1])} // overlapping: one span over both
			continue
		}
		out = append(out, sp)
	}
	return out
}
