package index

import (
	"strings"
)

// safeGitConfig reports whether a repository's own configuration (the
// output of `git config --local --list --no-includes`, "key=value" lines)
// holds only keys that make git run nothing: git honours a repository's
// own configuration, and a repository can be hostile. core.fsmonitor runs
// a command on every `git status`, a filter driver runs on files whose
// stat data changed, an include pulls in any other file. Only keys known
// to be inert are allowed; a repository with any other key gets its state
// from its content, with no git process run in it.
func safeGitConfig(list string) bool {
	for _, line := range strings.Split(strings.TrimSpace(list), "\n") {
		if line == "" {
			continue
		}
		key, _, _ := strings.Cut(line, "=")
		if !inertGitKey(strings.ToLower(key)) {
			return false
		}
	}
	return true
}

// inertGitKeys are configuration keys that run no program and point git at
// no other file or directory.
var inertGitKeys = map[string]bool{
	"core.repositoryformatversion": true, "core.filemode": true, "core.bare": true,
	"core.logallrefupdates": true, "core.ignorecase": true, "core.precomposeunicode": true,
	"core.symlinks": true, "core.autocrlf": true, "core.eol": true, "core.safecrlf": true,
	"core.checkstat": true, "core.trustctime": true, "core.untrackedcache": true,
	"extensions.objectformat": true, "init.defaultbranch": true, "pull.rebase": true, "pull.ff": true,
	"user.name": true, "user.email": true, "gc.auto": true, "index.version": true,
}

func inertGitKey(key string) bool {
	if inertGitKeys[key] {
		return true
	}
	// remote.<name>.url/fetch and branch.<name>.remote/merge/rebase name
	// refs and places to fetch from; status and rev-parse use none of them.
	section, rest, ok := strings.Cut(key, ".")
	if !ok {
		return false
	}
	i := strings.LastIndexByte(rest, '.')
	if i < 0 {
		return false
	}
	switch name := rest[i+1:]; section {
	case "remote":
		return name == "url" || name == "fetch" || name == "pushurl"
	case "branch":
		return name == "remote" || name == "merge" || name == "rebase"
	}
	return false
}
