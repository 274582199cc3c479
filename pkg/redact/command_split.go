package redact

import (
	"encoding/json"
	"slices"
	"strings"
)

// A command split over two members: a Kubernetes container or a Compose
// service gives the command in "command" and its arguments in "args"
// ({"command": ["mysql"], "args": ["-uroot", "-pSECRET"]}), a tool call
// its program in "cmd" ({"cmd": "docker", "args": ["login", "-p", "X"]}).
// In JSON and Value an object's "args" (or "arguments", "argv") array of
// strings is read as an argv after the words of its "command" or "cmd"
// member (a string, split at spaces, or an array of strings; the last
// such member of the object; its first 32 words), so its passwords are
// redacted as in one argv array (see JointElements). PairedMembers
// reports such an object.

// commandWords returns the words of a command member's valid JSON value:
// a string split at spaces, or the strings of an array of strings; nil
// for anything else or no word.
func commandWords(raw string) []string {
	if raw == "" {
		return nil
	}
	var v any
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		return nil
	}
	switch x := v.(type) {
	case string:
		if words := strings.Fields(x); len(words) > 0 {
			return capWords(words)
		}
	case []any:
		if len(x) == 0 {
			return nil
		}
		words := make([]string, 0, len(x))
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil
			}
			words = append(words, s)
		}
		return capWords(words)
	}
	return nil
}

// maxCommandWords bounds the words of a command member read before its
// arguments: a command names its program first, and an object may have
// many args members (duplicate keys), each read after them.
const maxCommandWords = 32

// capWords returns the first maxCommandWords words.
func capWords(words []string) []string {
	return words[:min(len(words), maxCommandWords)]
}

// splitArgvSecrets returns, for the arguments of an args member after
// the command words prefix, where in each its password starts (-1:
// none), or nil when none holds one.
func splitArgvSecrets(prefix, args []string) []int {
	if len(prefix) == 0 {
		return argvSecrets(args)
	}
	from := argvSecrets(append(slices.Clip(prefix), args...))
	if from == nil {
		return nil
	}
	from = from[len(prefix):]
	for _, f := range from {
		if f >= 0 {
			return from
		}
	}
	return nil
}

// argsStringSpans returns the spans of the passwords in an args string,
// read as the rest of a command line after the command words prefix.
func argsStringSpans(prefix []string, text string) [][]int {
	head := strings.Join(prefix, " ") + " "
	var spans [][]int
	for _, sp := range findCommandSecrets(head + text) {
		if sp[0] >= len(head) {
			spans = append(spans, []int{sp[0] - len(head), sp[1] - len(head)})
		}
	}
	return spans
}

// argsString redacts an args string after the command words prefix: its
// command-line passwords, then the rules of String.
func (r *Redactor) argsString(prefix []string, text string) string {
	spans := argsStringSpans(prefix, text)
	if spans != nil {
		found := rule{label: commandRule.label, find: func(string) [][]int { return spans }}
		text, _ = found.apply(text, true)
	}
	return r.String(text)
}

// splitCommandPaired reports whether an args member (its valid JSON
// value) redacts otherwise after the command member's words than alone.
func splitCommandPaired(command, args []byte) bool {
	prefix := commandWords(string(command))
	if len(prefix) == 0 || len(args) == 0 {
		return false
	}
	if args[0] == '"' {
		text, _ := decodeJSONString(nil, args, 1)
		return argsStringSpans(prefix, string(text)) != nil
	}
	if args[0] != '[' {
		return false
	}
	var list []any
	if err := json.Unmarshal(args, &list); err != nil {
		return false
	}
	strs := make([]string, len(list))
	for i, e := range list {
		s, ok := e.(string)
		if !ok {
			return false
		}
		strs[i] = s
	}
	return !slices.Equal(splitArgvSecrets(prefix, strs), argvSecrets(strs))
}
