package workspace

import (
	"os"
	"path/filepath"
)

// passThrough are the only environment variables commands in a workspace
// see: toolchain locations and locale, never credentials.
var passThrough = []string{"PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "GOPATH", "GOMODCACHE", "GOCACHE", "GOPROXY", "GOFLAGS", "GOTOOLCHAIN", "GONOSUMDB", "GOPRIVATE", "GOSUMDB"}

// CommandEnv returns the environment for commands run in workspaces: the
// pass-through variables that are set, with GOCACHE pinned to the user's
// cache so builds stay incremental across workspaces, and GOWORK=off so a
// go.work above the workspace is ignored. Everything else —
// tokens, API keys, NATS credentials — is withheld.
func CommandEnv(getenv func(string) string) []string {
	var env []string
	for _, k := range passThrough {
		if v := getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	if getenv("GOCACHE") == "" {
		if dir, err := os.UserCacheDir(); err == nil {
			env = append(env, "GOCACHE="+filepath.Join(dir, "go-build"))
		}
	}
	// A workspace may sit below a directory with a go.work (for instance
	// codali's own data directory); the repository must build on its own.
	env = append(env, "GOWORK=off")
	if getenv("PATH") == "" {
		env = append(env, "PATH=/usr/local/go/bin:/usr/local/bin:/usr/bin:/bin")
	}
	return env
}
