package config

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/codali-dev/codali/pkg/events"
)

// ErrProjectNotAllowed: a request names a project that is not configured
// for its repository.
var ErrProjectNotAllowed = errors.New("project not allowed for this repository")

// DerivedProject is the project of a repository: "repo-" and the first 16
// hex digits of the SHA-256 of the reference (path, url or url@ref), so
// runs on one repository share state.
func DerivedProject(repo events.RepoRef) string {
	sum := sha256.Sum256([]byte(repo.String()))
	return "repo-" + hex.EncodeToString(sum[:8])
}

// Project resolves a request's project, never trusting the request alone:
// without options.project it is DerivedProject; a named project is
// accepted only when it is the derived one or when the configuration's
// projects lists the request's repository under that name (a directory
// entry covers the repositories inside it; a URL entry matches the URL
// whatever the ref). Otherwise it returns an error wrapping
// ErrProjectNotAllowed, so a run cannot read or write another project's
// goals and memory.
func (c *Config) Project(req events.Requested) (string, error) {
	derived := DerivedProject(req.Repo)
	name := req.Options.Project
	if name == "" || name == derived {
		return derived, nil
	}
	for _, entry := range c.Projects[name] {
		if repoMatches(entry, req.Repo) {
			return name, nil
		}
	}
	return "", fmt.Errorf("%w: options.project %q is not configured for repository %s (configure it under \"projects\", or leave options.project out to use %s)",
		ErrProjectNotAllowed, name, req.Repo.String(), derived)
}

func repoMatches(entry string, repo events.RepoRef) bool {
	if repo.URL != "" {
		return strings.TrimSuffix(entry, "/") == strings.TrimSuffix(repo.URL, "/")
	}
	if !filepath.IsAbs(entry) {
		return false
	}
	rel, err := filepath.Rel(filepath.Clean(entry), filepath.Clean(repo.Path))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}
