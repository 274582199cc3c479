package workspace

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/codali-dev/codali/pkg/events"
)

// remoteProtocols are the git transports a repository URL may use; "file"
// is added only for a local repository that passed the roots check.
const remoteProtocols = "https:http:ssh:git"

// repoLocation is where a repository reference points.
type repoLocation struct {
	// local is true for a directory on this machine: repo.path, a file://
	// URL or a URL that is a plain path.
	local bool
	// path is the local directory (local only).
	path string
	// host is the remote host (remote only).
	host string
}

// locate classifies a repository reference the way git reads a clone URL:
// scheme://host/…, the scp-like [user@]host:path, or a local path.
func locate(repo events.RepoRef) (repoLocation, error) {
	if repo.Path != "" {
		return repoLocation{local: true, path: repo.Path}, nil
	}
	raw := repo.URL
	if strings.Contains(raw, "::") {
		return repoLocation{}, fmt.Errorf("%w: %w: url %q uses a git remote helper (<transport>::<address>)", ErrRepo, ErrNotAllowed, raw)
	}
	if i := strings.Index(raw, "://"); i > 0 {
		u, err := url.Parse(raw)
		if err != nil {
			return repoLocation{}, fmt.Errorf("%w: url %q: %w", ErrRepo, raw, err)
		}
		switch strings.ToLower(u.Scheme) {
		case "file":
			if u.Host != "" && u.Host != "localhost" {
				return repoLocation{}, fmt.Errorf("%w: %w: file url %q names a host", ErrRepo, ErrNotAllowed, raw)
			}
			return repoLocation{local: true, path: u.Path}, nil
		case "https", "http", "ssh", "git", "git+ssh", "ssh+git":
			if u.Hostname() == "" {
				return repoLocation{}, fmt.Errorf("%w: url %q has no host", ErrRepo, raw)
			}
			return repoLocation{host: strings.ToLower(u.Hostname())}, nil
		default:
			return repoLocation{}, fmt.Errorf("%w: %w: url scheme %q (allowed: https, http, ssh, git, file)", ErrRepo, ErrNotAllowed, u.Scheme)
		}
	}
	// git takes [user@]host:path as ssh when the colon comes before any slash.
	if colon := strings.Index(raw, ":"); colon > 0 && !strings.Contains(raw[:colon], "/") {
		host := raw[:colon]
		if at := strings.LastIndex(host, "@"); at >= 0 {
			host = host[at+1:]
		}
		host = strings.Trim(host, "[]")
		if host == "" {
			return repoLocation{}, fmt.Errorf("%w: url %q has no host", ErrRepo, raw)
		}
		return repoLocation{host: strings.ToLower(host)}, nil
	}
	return repoLocation{local: true, path: raw}, nil
}

// CheckRepo checks a repository reference against the configured limits:
// with AllowedRoots set, a local repository (repo.path, a file:// URL or a
// URL that is a plain path) must lie inside one of the roots; with
// AllowedHosts set, a remote URL's host must be one of them (an entry
// "*.example.com" matches every subdomain). URLs of other schemes and git
// remote helpers (<transport>::<address>) are always refused. Errors wrap
// ErrRepo and ErrNotAllowed.
func (m *Manager) CheckRepo(repo events.RepoRef) error {
	loc, err := locate(repo)
	if err != nil {
		return err
	}
	if loc.local {
		if len(m.AllowedRoots) == 0 {
			return nil
		}
		if !filepath.IsAbs(loc.path) {
			return fmt.Errorf("%w: %w: repository %q is not an absolute path inside the allowed roots", ErrRepo, ErrNotAllowed, repo.String())
		}
		return m.CheckPath(loc.path)
	}
	if len(m.AllowedHosts) == 0 {
		return nil
	}
	for _, h := range m.AllowedHosts {
		h = strings.ToLower(h)
		if suffix, ok := strings.CutPrefix(h, "*."); ok {
			if strings.HasSuffix(loc.host, "."+suffix) {
				return nil
			}
		} else if loc.host == h {
			return nil
		}
	}
	return fmt.Errorf("%w: %w: host %q of %s is not in the allowed hosts", ErrRepo, ErrNotAllowed, loc.host, repo.URL)
}

// cloneProtocols is the GIT_ALLOW_PROTOCOL list for cloning repo: the
// remote transports, plus file only for a local repository (which passed
// CheckRepo). Every other protocol, such as ext, is refused by git.
func cloneProtocols(repo events.RepoRef) string {
	if loc, err := locate(repo); err == nil && loc.local {
		return remoteProtocols + ":file"
	}
	return remoteProtocols
}

// allowedProtocols is a git process's protocol list: the remote
// transports unless a clone of a checked local repository set its own.
func (g gitRun) allowedProtocols() string {
	if g.protocols == "" {
		return remoteProtocols
	}
	return g.protocols
}
