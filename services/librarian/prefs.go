package librarian

import (
	"regexp"
	"strings"

	"github.com/codali-dev/codali/pkg/events"
)

// prefRe finds explicit preference statements: a clause starting with
// "always", "never", "prefer", "don't/do not use", "must use", "only use"
// or "from now on", up to the end of the sentence.
var prefRe = regexp.MustCompile(`(?i)\b(from now on,?\s+[^.;!?\n]+|always\s+[^.;!?\n]+|never\s+[^.;!?\n]+|prefer\s+[^.;!?\n]+|(?:don't|do not|must|only)\s+use\s+[^.;!?\n]+|use\s+[^.;!?\n]+\s+instead\s+of\s+[^.;!?\n]+)`)

var (
	styleWords    = []string{"style", "naming", "name ", "indent", "tabs", "spaces", "comment", "format", "camel", "snake", "quote"}
	toolingWords  = []string{"test", "lint", "npm", "yarn", "pnpm", "go ", "make", "pytest", "jest", "cargo", "maven", "gradle", "docker", "build tool"}
	workflowWords = []string{"commit", "pull request", " pr", "review", "branch", "changelog", "before", "after", "workflow"}
)

// DetectPreferences returns the preferences a request states explicitly,
// each with a category (style, tooling, constraint or workflow): the
// request's own words, trimmed. Prohibitions and "instead of" are
// constraints; otherwise the words decide, constraint by default.
func DetectPreferences(request string) []events.Preference {
	var out []events.Preference
	seen := map[string]bool{}
	for _, m := range prefRe.FindAllString(request, -1) {
		content := strings.TrimSpace(strings.TrimRight(m, ",:"))
		key := strings.ToLower(content)
		if len(content) < 8 || seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, events.Preference{Category: category(key), Content: content})
	}
	return out
}

func category(s string) string {
	s = " " + s + " "
	switch {
	case strings.Contains(s, "never") || strings.Contains(s, "don't") || strings.Contains(s, "do not") || strings.Contains(s, "instead of") || strings.Contains(s, "only use"):
		return "constraint"
	case containsAny(s, workflowWords):
		return "workflow"
	case containsAny(s, toolingWords):
		return "tooling"
	case containsAny(s, styleWords):
		return "style"
	}
	return "constraint"
}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}
