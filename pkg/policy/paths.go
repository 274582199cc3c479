package policy

import (
	"path"
	"strings"
)

// pathProblem classifies a tool-call path that cannot be evaluated.
type pathProblem int

const (
	pathOK pathProblem = iota
	pathEscapes
	pathInvalid
)

// cleanPath cleans a workspace-relative, slash-separated path. Absolute
// paths and paths whose cleaned form leaves the workspace report
// pathEscapes; empty paths and paths containing NUL report pathInvalid.
func cleanPath(p string) (string, pathProblem) {
	if p == "" || strings.IndexByte(p, 0) >= 0 {
		return "", pathInvalid
	}
	if p[0] == '/' {
		return "", pathEscapes
	}
	c := path.Clean(p)
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", pathEscapes
	}
	return c, pathOK
}
