package redact

import (
	"regexp"
	"slices"
	"strings"
)

// splitCommandRule redacts the passwords of a command split over two
// members in text: YAML (a Kubernetes container, a Compose service) and
// JSON written over several lines, where a "command" or "cmd" member and
// an "args" (or "arguments", "argv") member are siblings, keys of one
// mapping at the same column:
//
//	containers:
//	- name: db
//	  command: ["mysql"]
//	  args: ["-uroot", "-pSECRET"]
//
// The command is a scalar (split at spaces) or a list, the arguments a
// list, each a flow list on the key's line ([…], one line) or a block
// list on the lines after it (- item, or JSON's items up to "]"). The
// arguments are read as an argv after the command's words (see
// command_split.go), after each command naming one when the key is
// repeated (the first four). A Compose service's "entrypoint" names the
// program whose arguments its "command" holds (a list, or a scalar read as
// the rest of a command line). On one line, JSON text is the command-line
// rule's.
var splitCommandRule = rule{label: commandRule.label, find: findSplitCommand, hints: commandHints, wholeText: true,
	pre: func(s string) bool { return containsFold(s, "arg") || containsFold(s, "entrypoint") }}

// splitCommandKey matches a line holding a command or args key: its
// groups are the indentation with any "- ", the key and the value.
var splitCommandKey = regexp.MustCompile(`(?i)^([\t ]*(?:-[\t ]+)?)["']?(command|cmd|args|arguments|argv|entrypoint)["']?[\t ]*:[\t ]*(.*?)[\t ]*$`)

// splitItem is an item of a list in text: its text, where it starts.
type splitItem struct {
	text   string
	at     int
	quoted bool
}

// splitMapping is an open mapping: its keys' column, the words of its
// commands naming one (the first maxSplitCommands) and its args lists;
// the same for a Compose service's entrypoints and its command members,
// a scalar one (scalar) read as the rest of a command line.
type splitMapping struct {
	col         int
	commands    [][]string
	args        []splitArgs
	entrypoints [][]string
	cmdArgs     []splitArgs
	// lists are the members' lists, whatever command they follow: a
	// flag naming a secret gives its value in the item after it.
	lists [][]splitItem
}

// appendSpans appends to locs the spans of the passwords in the
// mapping's args lists after each of its commands, and in its Compose
// command members after each of its entrypoints.
func (m *splitMapping) appendSpans(locs [][]int, s string) [][]int {
	locs = appendArgsSpans(locs, s, m.commands, m.args)
	locs = appendArgsSpans(locs, s, m.entrypoints, m.cmdArgs)
	for _, items := range m.lists {
		locs = appendFlagValueSpans(locs, s, items)
	}
	return locs
}

// appendFlagValueSpans appends to locs the spans of the items of a list
// that follow a flag naming a secret (["--password", "SECRET"],
// ["-api-key", "…"]) and are no flag themselves: the command-line rule's
// --password SECRET, in a list. A flag with its value (--password=…) is
// the NAME=value rule's.
func appendFlagValueSpans(locs [][]int, s string, items []splitItem) [][]int {
	for i := 0; i+1 < len(items); i++ {
		if !isSecretFlag(items[i].text) {
			continue
		}
		v := items[i+1]
		if isSecretFlagValue(v.text) && !isMarkerAt(s, v.at) {
			locs = append(locs, []int{v.at, v.at + len(v.text)})
		}
	}
	return locs
}

// appendArgsSpans appends to locs the spans of the passwords in args
// members read after each of commands: a list as an argv, a scalar as
// the rest of a command line.
func appendArgsSpans(locs [][]int, s string, commands [][]string, args []splitArgs) [][]int {
	for _, a := range args {
		if !a.scalar {
			locs = appendArgvSpans(locs, s, commands, a.items)
			continue
		}
		it := a.items[0]
		for _, command := range commands {
			for _, sp := range argsStringSpans(command, it.text) {
				if !isMarkerAt(s, it.at+sp[0]) {
					locs = append(locs, []int{it.at + sp[0], it.at + sp[1]})
				}
			}
		}
	}
	return locs
}

// splitArgs is a Compose command member: its items, or its scalar.
type splitArgs struct {
	items  []splitItem
	scalar bool
}

// maxSplitCommands bounds the commands of one mapping read (YAML has one;
// text may repeat the key, and each args list is read after each).
const maxSplitCommands = 4

// findSplitCommand returns the spans of the passwords in the args lists
// of mappings whose command member names a command.
func findSplitCommand(s string) [][]int {
	var q quoteReading
	locs := appendSplitCommandSpans(nil, s, &q)
	if q.overLines {
		// A quote running over lines in a list, read again as ending at
		// its line's end: a stray one must not hide the members after it.
		q.toLineEnd = true
		locs = appendSplitCommandSpans(locs, s, &q)
	}
	return sortSpans(append(locs, findSplitCommandJSON(s)...))
}

// appendSplitCommandSpans appends to locs the spans of the passwords in
// the args lists of the YAML mappings (or JSON objects over lines) in s
// whose command member names a command, reading the flow lists' quotes
// as q says.
func appendSplitCommandSpans(locs [][]int, s string, q *quoteReading) [][]int {
	var open []splitMapping
	closeFrom := func(col int) {
		for len(open) > 0 && open[len(open)-1].col >= col {
			locs = open[len(open)-1].appendSpans(locs, s)
			open = open[:len(open)-1]
		}
	}
	for start := 0; start < len(s); {
		end := strings.IndexByte(s[start:], '\n')
		if end < 0 {
			end = len(s)
		} else {
			end += start
		}
		line := strings.TrimRight(s[start:end], "\r")
		content := strings.TrimLeft(line, " \t")
		next := end + 1
		if content == "" || content[0] == '#' {
			start = next
			continue
		}
		// A line ends the mappings deeper than it; a list item ("- key:")
		// the mapping of the item before it too.
		closeFrom(len(line) - len(content) + 1)
		m := splitCommandKey.FindStringSubmatchIndex(line)
		if m == nil {
			start = next
			continue
		}
		col := m[3] - m[2]
		if len(open) == 0 || open[len(open)-1].col != col {
			open = append(open, splitMapping{col: col})
		}
		top := &open[len(open)-1]
		value := strings.TrimSuffix(line[m[6]:m[7]], ",")
		if k := strings.LastIndexByte(value, ']'); value != "" && value[0] == '[' && k >= 0 && strings.HasPrefix(strings.TrimLeft(value[k+1:], " \t"), "#") {
			value = value[:k+1] // a comment after a flow list
		}
		var items []splitItem
		unclosed := value != "" && value != "[" && value[0] == '[' && !strings.HasSuffix(value, "]")
		if unclosed {
			// A flow list over lines: command: [mysql,\n  -pX]; or one
			// left open on its line: command: [mysql, 'x.
			var end int
			var multi bool
			if items, end, multi = readFlowList(s, start+m[6], start, q); multi {
				next = end
				if end > 0 && s[end-1] != '\n' {
					next = lineEnd(s, end) + 1
				}
			}
		}
		switch {
		case unclosed:
		case value == "" || value == "[":
			items, next = splitBlockList(s, next, col, value == "[")
		case value[0] == '[' && strings.HasSuffix(value, "]"):
			items = splitFlowList(value[1:len(value)-1], start+m[6]+1)
		default:
			items = []splitItem{unquoteItem(value, start+m[6])}
		}
		key := line[m[4]:m[5]]
		if value == "" || value[0] == '[' {
			top.lists = append(top.lists, items)
		}
		if strings.EqualFold(key, "command") || strings.EqualFold(key, "cmd") {
			top.commands = appendSplitCommand(top.commands, items)
			if len(top.cmdArgs) < maxSplitCommands && len(items) > 0 {
				scalar := value != "" && value[0] != '['
				top.cmdArgs = append(top.cmdArgs, splitArgs{items: items, scalar: scalar})
			}
		} else if strings.EqualFold(key, "entrypoint") {
			top.entrypoints = appendSplitCommand(top.entrypoints, items)
		} else if value != "" && value[0] == '[' || value == "" {
			top.args = append(top.args, splitArgs{items: items})
		}
		start = next
	}
	closeFrom(0)
	return locs
}

// appendSplitCommand appends the words of a command or entrypoint
// member's items to commands when they name a command and commands has
// fewer than maxSplitCommands.
func appendSplitCommand(commands [][]string, items []splitItem) [][]string {
	var words []string
	for _, it := range items {
		words = append(words, strings.Fields(it.text)...)
		if len(words) >= maxCommandWords {
			break
		}
	}
	if words = capWords(words); len(commands) < maxSplitCommands && slices.ContainsFunc(words, func(w string) bool { return commandOf(w) != nil }) {
		commands = append(commands, words)
	}
	return commands
}

// appendArgvSpans appends to locs the spans of the passwords in an args
// list's items read after each of commands.
func appendArgvSpans(locs [][]int, s string, commands [][]string, items []splitItem) [][]int {
	if len(commands) == 0 {
		return locs
	}
	texts := make([]string, len(items))
	for i, it := range items {
		texts[i] = it.text
	}
	for _, command := range commands {
		for i, from := range splitArgvSecrets(command, texts) {
			if from >= 0 && !isMarkerAt(s, items[i].at+from) && from < len(items[i].text) {
				locs = append(locs, []int{items[i].at + from, items[i].at + len(items[i].text)})
			}
		}
	}
	return locs
}

// splitBlockList reads the list after a key with no value from s[at:]:
// the "- item" lines at col or deeper (comments and blank lines
// skipped), or for JSON (json) the item lines up to a "]". It returns
// the items and where the next line to read starts.
func splitBlockList(s string, at, col int, json bool) ([]splitItem, int) {
	var items []splitItem
	for at < len(s) {
		end := strings.IndexByte(s[at:], '\n')
		if end < 0 {
			end = len(s)
		} else {
			end += at
		}
		line := strings.TrimRight(s[at:end], "\r \t")
		content := strings.TrimLeft(line, " \t")
		indent := len(line) - len(content)
		switch {
		case content == "" || content[0] == '#' && !json:
		case json && content[0] == ']':
			return items, end + 1
		case json:
			items = append(items, unquoteItem(strings.TrimSuffix(content, ","), at+indent))
		case indent >= col && (content == "-" || strings.HasPrefix(content, "- ")):
			item := strings.TrimLeft(content[1:], " \t")
			if j := strings.Index(item, " #"); j >= 0 {
				item = strings.TrimRight(item[:j], " \t")
			}
			items = append(items, unquoteItem(item, at+len(line)-len(strings.TrimLeft(content[1:], " \t"))))
		default:
			return items, at
		}
		at = end + 1
	}
	return items, at
}

// splitFlowList returns the items of a flow list's inside (the text
// between its brackets, at offset at): split at commas outside quotes.
func splitFlowList(inner string, at int) []splitItem {
	var items []splitItem
	i := 0
	for i <= len(inner) {
		j := i
		for j < len(inner) && inner[j] != ',' {
			if inner[j] == '"' || inner[j] == '\'' {
				j = closingQuote(inner, j+1, inner[j])
			}
			j++
		}
		raw := inner[i:min(j, len(inner))]
		lead := len(raw) - len(strings.TrimLeft(raw, " \t"))
		items = append(items, unquoteItem(strings.TrimSpace(raw), at+i+lead))
		i = j + 1
	}
	return items
}

// unquoteItem returns a scalar at offset at without its quotes.
func unquoteItem(v string, at int) splitItem {
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		return splitItem{text: v[1 : len(v)-1], at: at + 1}
	}
	return splitItem{text: v, at: at}
}
