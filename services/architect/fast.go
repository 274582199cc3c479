package architect

import (
	"path"
	"regexp"
	"strings"

	"github.com/codali-dev/codali/pkg/events"
)

// MaxFastRequestBytes bounds a request the fast path takes without being
// asked: longer requests are not "a small edit".
const MaxFastRequestBytes = 200

// notSmall are words that make a request more than a small edit of one
// existing file.
var notSmall = regexp.MustCompile(`(?i)\b(create|new file|add (a |the )?file|delete|remove (the )?file|rename|move|refactor|rewrite|across|every|all files)\b`)

// pathLike finds words that look like file paths (a name with an
// extension, optionally with directories).
var pathLike = regexp.MustCompile(`[A-Za-z0-9_.\-/]+\.[A-Za-z0-9]+`)

// FastPath decides the fast path (spec §2: trivial edits skip Phase 2's
// model call) and makes its plan. The rule:
//
//   - options.fast is true and the request names one existing file, or
//   - the request is at most MaxFastRequestBytes on one line, names
//     exactly one file, which exists in the repository (the bundle's file
//     list), and does not ask to create, delete, rename or move files or
//     to refactor.
//
// The repository must also have default checks (DefaultChecks). The plan
// has one step whose target is that file, and those checks. It reports
// false when the fast path does not apply.
func FastPath(req events.Requested, bundle *events.ContextBundle) (events.Plan, bool) {
	if bundle == nil {
		return events.Plan{}, false
	}
	text := strings.TrimSpace(req.Request)
	if !req.Options.Fast && (len(text) > MaxFastRequestBytes || strings.ContainsAny(text, "\n\r") || notSmall.MatchString(text)) {
		return events.Plan{}, false
	}
	file, ok := oneExistingFile(text, bundle.Files)
	if !ok {
		return events.Plan{}, false
	}
	checks := DefaultChecks(bundle.Files)
	if len(checks) == 0 {
		return events.Plan{}, false
	}
	return events.Plan{
		Summary:     "Fast path: " + text,
		Steps:       []events.PlanStep{{ID: "s1", Description: text, Files: []string{file}}},
		TargetFiles: []string{file},
		Verify:      checks,
	}, true
}

// oneExistingFile returns the one existing file the request names: by its
// repository path, or by a base name only one file has.
func oneExistingFile(text string, files []events.FileInfo) (string, bool) {
	byPath := map[string]bool{}
	byBase := map[string][]string{}
	for _, f := range files {
		byPath[f.Path] = true
		b := path.Base(f.Path)
		byBase[b] = append(byBase[b], f.Path)
	}
	found := map[string]bool{}
	for _, w := range pathLike.FindAllString(text, -1) {
		w = strings.TrimPrefix(strings.TrimRight(w, "."), "./")
		switch {
		case byPath[w]:
			found[w] = true
		case len(byBase[w]) == 1:
			found[byBase[w][0]] = true
		case len(byBase[w]) > 1:
			return "", false // ambiguous
		case strings.Contains(w, "/") || looksLikeFile(w):
			return "", false // names a file that does not exist
		}
	}
	if len(found) != 1 {
		return "", false
	}
	for f := range found {
		return f, true
	}
	return "", false
}

// looksLikeFile reports whether w has a common source file extension
// (so "v1.2" or "e.g" are not taken for files).
func looksLikeFile(w string) bool {
	switch strings.ToLower(path.Ext(w)) {
	case ".go", ".py", ".js", ".ts", ".tsx", ".jsx", ".rs", ".java", ".c", ".h", ".cc", ".cpp", ".rb", ".md", ".json", ".yaml", ".yml", ".toml", ".txt", ".sh", ".css", ".html":
		return true
	}
	return false
}

// DefaultChecks are the repository's default verification commands,
// chosen by its build files at the root: go.mod → go build and go test;
// Cargo.toml → cargo test; package.json → npm test; pyproject.toml,
// setup.py or pytest.ini → python -m pytest; else a Makefile → make test.
// None when the repository has none of these.
func DefaultChecks(files []events.FileInfo) []events.VerifyCommand {
	has := map[string]bool{}
	for _, f := range files {
		has[f.Path] = true
	}
	switch {
	case has["go.mod"]:
		return []events.VerifyCommand{
			{Name: "go build", Command: []string{"go", "build", "./..."}},
			{Name: "go test", Command: []string{"go", "test", "./..."}},
		}
	case has["Cargo.toml"]:
		return []events.VerifyCommand{{Name: "cargo test", Command: []string{"cargo", "test"}}}
	case has["package.json"]:
		return []events.VerifyCommand{{Name: "npm test", Command: []string{"npm", "test"}}}
	case has["pyproject.toml"], has["setup.py"], has["pytest.ini"]:
		return []events.VerifyCommand{{Name: "pytest", Command: []string{"python", "-m", "pytest"}}}
	case has["Makefile"]:
		return []events.VerifyCommand{{Name: "make test", Command: []string{"make", "test"}}}
	}
	return nil
}
