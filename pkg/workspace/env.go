package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// passThrough are the only host environment variables commands in a
// workspace see: toolchain settings and locale, never credentials. HOME,
// TMPDIR and the Go caches are the workspace's own (see Command).
var passThrough = []string{"PATH", "LANG", "LC_ALL", "GOPROXY", "GOFLAGS", "GOTOOLCHAIN", "GONOSUMDB", "GONOSUMCHECK", "GONOPROXY", "GOPRIVATE", "GOSUMDB"}

// CommandEnv returns the pass-through variables that are set, GOWORK=off
// (a go.work above the workspace, for instance in codali's data directory,
// must not apply) and a default PATH when none is set. Everything else —
// tokens, API keys, NATS credentials, HOME — is withheld.
func CommandEnv(getenv func(string) string) []string {
	var env []string
	for _, k := range passThrough {
		if v := getenv(k); v != "" {
			env = append(env, k+"="+withoutURLCredentials(v))
		}
	}
	env = append(env, "GOWORK=off")
	if getenv("PATH") == "" {
		env = append(env, "PATH=/usr/local/go/bin:/usr/local/bin:/usr/bin:/bin")
	}
	return env
}

// Command is what a command run in the workspace needs besides its argv.
type Command struct {
	// Env is the whole environment: CommandEnv plus HOME, TMPDIR and the
	// Go build and module caches, all in the workspace's CacheDir.
	Env []string
	// Writable are the host paths besides the work tree the command may
	// write: the workspace's CacheDir.
	Writable []string
	// ReadOnly are host paths the command may read: the host's Go module
	// download cache, when there is one, served as a read-only GOPROXY.
	ReadOnly []string
}

// Command returns the environment and binds for a command in the
// workspace. Caches are private to the workspace (run, attempt and role),
// so nothing a command writes reaches another run. The host's module
// cache, when present, is only read: it becomes the first GOPROXY entry
// (file://…/cache/download), and modules are extracted into the
// workspace's own GOMODCACHE. From then on the tree's change is read
// as if a process may have written it in ways its snapshot cannot see
// (snapshot.everyWrite).
func (w *Workspace) Command(getenv func(string) string) (Command, error) {
	w.commanded.Store(true)
	dirs := map[string]string{"HOME": "home", "TMPDIR": "tmp", "GOCACHE": "go-build", "GOMODCACHE": "gomod", "GOPATH": "gopath", "XDG_CACHE_HOME": "xdg-cache", "XDG_CONFIG_HOME": "xdg-config"}
	c := Command{Env: CommandEnv(getenv), Writable: []string{w.cache}}
	for _, k := range []string{"HOME", "TMPDIR", "GOCACHE", "GOMODCACHE", "GOPATH", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"} {
		p := filepath.Join(w.cache, dirs[k])
		if err := os.MkdirAll(p, 0o755); err != nil {
			return Command{}, fmt.Errorf("could not create the workspace cache: %w", err)
		}
		c.Env = append(c.Env, k+"="+p)
	}
	// The per-workspace module cache is removed with the workspace: keep
	// it writable (Go makes it read-only by default).
	c.Env = setEnv(c.Env, "GOFLAGS", strings.TrimSpace(getenv("GOFLAGS")+" -modcacherw"))
	if dl := hostModuleDownloads(getenv); dl != "" {
		proxy := withoutURLCredentials(getenv("GOPROXY"))
		if proxy == "" {
			proxy = "https://proxy.golang.org,direct"
		}
		c.Env = setEnv(c.Env, "GOPROXY", "file://"+dl+","+proxy)
		c.ReadOnly = append(c.ReadOnly, dl)
	}
	return c, nil
}

// hostModuleDownloads is the download directory of the host's Go module
// cache ($GOMODCACHE, $GOPATH/pkg/mod or $HOME/go/pkg/mod), or "".
func hostModuleDownloads(getenv func(string) string) string {
	mod := getenv("GOMODCACHE")
	if mod == "" {
		if gp := filepath.SplitList(getenv("GOPATH")); len(gp) > 0 && gp[0] != "" {
			mod = filepath.Join(gp[0], "pkg", "mod")
		} else if home := getenv("HOME"); home != "" {
			mod = filepath.Join(home, "go", "pkg", "mod")
		}
	}
	if mod == "" || !filepath.IsAbs(mod) {
		return ""
	}
	dl := filepath.Join(mod, "cache", "download")
	if fi, err := os.Stat(dl); err != nil || !fi.IsDir() {
		return ""
	}
	return dl
}

// urlCredentials is the userinfo of a URL ("scheme://user:token@"): up
// to the last '@' of its authority, as Go reads it (a password may hold
// one), which ends at a '/', '?' or '#' (or the entry's end in a list).
var urlCredentials = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://)[^/?#\s,|]*@`)

// withoutURLCredentials removes the userinfo of every URL in v: a
// GOPROXY or GOSUMDB of a private proxy may carry its credentials
// (https://user:token@proxy/), which repository code must not get.
func withoutURLCredentials(v string) string { return urlCredentials.ReplaceAllString(v, "$1") }

// setEnv replaces or adds key=value.
func setEnv(env []string, key, value string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, key+"=") {
			out = append(out, kv)
		}
	}
	return append(out, key+"="+value)
}
