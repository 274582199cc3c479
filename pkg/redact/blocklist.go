package redact

import "strings"

// blockListRule redacts the value after a flag naming a secret and a
// command's password in a YAML block list, whatever its key (args: /
// - --password / - SECRET, a list at the text's root, an alias as the
// value: - *pw, whose anchor is then redacted): the items, consecutive
// "- " lines at one column (comments and blank lines between), are read
// as an argv, each as one word. An item holding a mapping or a nested
// list ends the list.
var blockListRule = rule{label: commandRule.label, find: findBlockLists, wholeText: true,
	hints: flowListRule.hints, pre: func(s string) bool { return strings.Contains(s, "- ") || strings.Contains(s, "-\t") }}

// findBlockLists returns the spans of the passwords in the block lists
// of s.
func findBlockLists(s string) [][]int {
	var locs [][]int
	var items []splitItem
	col := -1
	continued := false // an item is a plain scalar continued on deeper lines
	flush := func() {
		if len(items) > 1 {
			locs = appendWordSpans(locs, s, items)
		}
		if continued {
			locs = appendItemArgvSpans(locs, s, items)
		}
		items, col, continued = items[:0], -1, false
	}
	for ls := 0; ls < len(s); ls = lineEnd(s, ls) + 1 {
		le := lineEnd(s, ls)
		line := strings.TrimRight(s[ls:le], " \t\r")
		ind := indentAt(line, 0)
		if ind == len(line) || line[ind] == '#' {
			continue
		}
		if n := len(items); n > 0 && ind > col && !isBlockItem(line[ind:]) {
			// A plain scalar continued (- --password /   SECRET: YAML
			// reads "--password SECRET").
			if last := &items[n-1]; last.text != "" && !isQuoteByte(s[last.at-1]) && !isMappingEntry(line[ind:]) {
				last.text = s[last.at : ls+len(line)]
				continued = true
				continue
			}
		}
		if ind != col && col >= 0 || !isBlockItem(line[ind:]) {
			flush()
		}
		if !isBlockItem(line[ind:]) {
			continue
		}
		item := strings.TrimLeft(line[ind+1:], " \t")
		at := ls + len(line) - len(item)
		if j := strings.Index(item, " #"); j >= 0 {
			item = strings.TrimRight(item[:j], " \t")
		}
		if item == "" || strings.HasPrefix(item, "- ") || isMappingEntry(item) {
			flush()
			continue
		}
		col = ind
		items = append(items, unquoteItem(item, at))
	}
	flush()
	return sortSpans(locs)
}

// isBlockItem reports whether a line's content is a block list's item:
// a dash and a space or a tab.
func isBlockItem(content string) bool {
	return len(content) > 1 && content[0] == '-' && (content[1] == ' ' || content[1] == '\t')
}

// isMappingEntry reports whether an item's scalar is a mapping entry
// (key: value, key:): a ": " or a final ":" outside quotes.
func isMappingEntry(item string) bool {
	if item[0] == '"' || item[0] == '\'' {
		return false
	}
	return strings.Contains(item, ": ") || strings.Contains(item, ":\t") || strings.HasSuffix(item, ":")
}

// isQuoteByte reports whether c is a double or single quote.
func isQuoteByte(c byte) bool { return c == '"' || c == '\'' }
