package redact

import (
	"regexp"
	"strings"
)

// flowMappingRule redacts a plain (unquoted) value under a secret-like
// name in a YAML flow mapping: db: {password: hunter2, user: app},
// - {token: abc123}. The mapping's "{" must open a YAML value: at the
// line's start (after spaces) or after ":", "-", "[", or after "," or
// another "{" inside such a mapping; a "{" after an identifier, "(",
// "=" or a word is code (a struct literal Config{Password: pw},
// []T{{Key: k}}, login({password: pw}), const o = {…}) and is kept, and
// so is a line starting with "{" and ending in "}," (a table's row in
// code: {name: "a", pwd: cwd},). Values that read as code are kept too: an expression
// holding "(" or ")", a dotted identifier (cfg.Password) and the name
// itself (JavaScript's {password: password}). Quoted values are the
// quoted value rules'.
var flowMappingRule = withPre(rule{label: "credential", find: findFlowSecrets, hints: secretHints}, hasSecretAssignment)

// flowMember matches a flow mapping member after its "{" or ",": the
// name (quoted or not), the colon, a space and a plain value up to the
// "," or "}" after it.
var flowMember = regexp.MustCompile(`^[\t ]*["']?([A-Za-z0-9_.-]+)["']?[\t ]*:[\t ]+([^\s"'{}\[\],#][^,{}\r\n]*?)[\t ]*[,}]`)

// dottedIdent matches an identifier path with a dot: code, not a secret.
var dottedIdent = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)+$`)

// findFlowSecrets returns the spans of plain values under secret-like
// names in the YAML flow mappings of a line.
func findFlowSecrets(line string) [][]int {
	if strings.IndexByte(line, '{') < 0 {
		return nil
	}
	var locs [][]int
	var open []bool // for each open "{": whether it opens a YAML flow mapping
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '{':
			open = append(open, opensFlowMapping(line[:i], open) && !isTableRow(line, i))
		case '}':
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
			continue
		case ',':
		default:
			continue
		}
		if len(open) == 0 || !open[len(open)-1] {
			continue
		}
		m := flowMember.FindStringSubmatchIndex(line[i+1:])
		if m == nil {
			continue
		}
		name, value := line[i+1+m[2]:i+1+m[3]], line[i+1+m[4]:i+1+m[5]]
		if !isSecretKey(name) || !nameRe.MatchString(shortNameRun(name)) || readsAsCode(name, value) {
			continue
		}
		locs = append(locs, []int{i + 1 + m[4], i + 1 + m[5]})
	}
	return locs
}

// opensFlowMapping reports whether a "{" after before opens a YAML flow
// mapping, open telling it of the "{"s open around it: before ends
// (past spaces) in nothing, ":", "-" or "[", or in "," or "{" inside a
// flow mapping or none (Go's []T{{Key: v}} is code).
func opensFlowMapping(before string, open []bool) bool {
	before = strings.TrimRight(before, " \t")
	if before == "" {
		return true
	}
	switch before[len(before)-1] {
	case ':', '-', '[':
		return true
	case ',', '{':
		return len(open) == 0 || open[len(open)-1]
	}
	return false
}

// isTableRow reports whether the "{" at line[i] starts the line and the
// line ends in "}," : a row of a table in code ({name: "a", pwd: cwd},),
// not a YAML document.
func isTableRow(line string, i int) bool {
	return strings.TrimLeft(line[:i], " \t") == "" && strings.HasSuffix(strings.TrimRight(line, " \t\r\n"), "},")
}

// readsAsCode reports whether a flow member's plain value reads as code:
// it holds a parenthesis, is a dotted identifier or is its own name.
func readsAsCode(name, value string) bool {
	return strings.ContainsAny(value, "()") || dottedIdent.MatchString(value) || strings.EqualFold(name, value)
}
