package config

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Docdex points Codali at a Docdex daemon (codali-cognitive-architecture
// §5). Without this section (and without $CODALI_DOCDEX_URL) the librarian
// uses the built-in index only.
type Docdex struct {
	// URL is the daemon's base URL, for instance http://127.0.0.1:28491.
	URL string `json:"url"`
	// TokenEnv names the environment variable holding the bearer token.
	// Default DOCDEX_AUTH_TOKEN; an unset or empty variable sends no token.
	TokenEnv string `json:"tokenEnv,omitempty"`
	// RepoID selects the repository in a multi-repository daemon
	// (x-docdex-repo-id). Empty: the daemon's only repository, or the id
	// initialize returns for the run's repository.
	RepoID string `json:"repoId,omitempty"`
	// AgentID is the default agent id (x-docdex-agent-id, profile and
	// preferences); a request's options.agent_id overrides it.
	AgentID string `json:"agentId,omitempty"`
	// Required fails a run whose daemon is unreachable. Default false: the
	// librarian falls back to the built-in index and says so in the
	// bundle's warnings.
	Required bool `json:"required,omitempty"`
	// TimeoutMS bounds each call to the daemon. Default 10000.
	TimeoutMS int `json:"timeoutMs,omitempty"`
	// MaxWaitMS bounds how long one call waits while the daemon indexes or
	// rate-limits. Default 30000.
	MaxWaitMS int `json:"maxWaitMs,omitempty"`
	// ImpactMaxDepth and ImpactMaxEdges bound the impact graph queries.
	// Defaults 3 and 200.
	ImpactMaxDepth int `json:"impactMaxDepth,omitempty"`
	ImpactMaxEdges int `json:"impactMaxEdges,omitempty"`
	// ASTMaxNodes bounds each docdex_ast answer. Default 200.
	ASTMaxNodes int `json:"astMaxNodes,omitempty"`
	// StaleAfterMS: an index older than this is stale and the librarian
	// asks for a rebuild. Default 86400000 (one day).
	StaleAfterMS int64 `json:"staleAfterMs,omitempty"`
}

// Timeout is TimeoutMS as a duration.
func (d Docdex) Timeout() time.Duration { return time.Duration(d.TimeoutMS) * time.Millisecond }

// MaxWait is MaxWaitMS as a duration.
func (d Docdex) MaxWait() time.Duration { return time.Duration(d.MaxWaitMS) * time.Millisecond }

// StaleAfter is StaleAfterMS as a duration.
func (d Docdex) StaleAfter() time.Duration { return time.Duration(d.StaleAfterMS) * time.Millisecond }

// Environment variables that override the docdex section.
const (
	EnvDocdexURL      = "CODALI_DOCDEX_URL"
	EnvDocdexRepoID   = "CODALI_DOCDEX_REPO_ID"
	EnvDocdexAgentID  = "CODALI_DOCDEX_AGENT_ID"
	EnvDocdexRequired = "CODALI_DOCDEX_REQUIRED"
	EnvDocdexTokenEnv = "CODALI_DOCDEX_TOKEN_ENV"
	// DefaultDocdexTokenEnv is the daemon's own token variable.
	DefaultDocdexTokenEnv = "DOCDEX_AUTH_TOKEN"
)

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func (d *Docdex) setDefaults() {
	if d.TokenEnv == "" {
		d.TokenEnv = DefaultDocdexTokenEnv
	}
	if d.TimeoutMS == 0 {
		d.TimeoutMS = 10000
	}
	if d.MaxWaitMS == 0 {
		d.MaxWaitMS = 30000
	}
	if d.ImpactMaxDepth == 0 {
		d.ImpactMaxDepth = 3
	}
	if d.ImpactMaxEdges == 0 {
		d.ImpactMaxEdges = 200
	}
	if d.ASTMaxNodes == 0 {
		d.ASTMaxNodes = 200
	}
	if d.StaleAfterMS == 0 {
		d.StaleAfterMS = 86400000
	}
}

func (d *Docdex) validate(bad func(string, ...any)) {
	if d.URL == "" {
		// Not configured (unless $CODALI_DOCDEX_URL sets it).
	} else if u, err := url.Parse(d.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		bad("docdex.url %q (want http(s)://host:port)", d.URL)
	}
	if !envName.MatchString(d.TokenEnv) {
		bad("docdex.tokenEnv %q is not an environment variable name", d.TokenEnv)
	}
	for name, v := range map[string]int{"timeoutMs": d.TimeoutMS, "maxWaitMs": d.MaxWaitMS, "impactMaxDepth": d.ImpactMaxDepth,
		"impactMaxEdges": d.ImpactMaxEdges, "astMaxNodes": d.ASTMaxNodes} {
		if v < 1 {
			bad("docdex.%s %d (must be >= 1)", name, v)
		}
	}
	if d.StaleAfterMS < 1 {
		bad("docdex.staleAfterMs %d (must be >= 1)", d.StaleAfterMS)
	}
}

// DocdexSettings returns the effective Docdex settings: the docdex section
// with $CODALI_DOCDEX_URL, $CODALI_DOCDEX_REPO_ID, $CODALI_DOCDEX_AGENT_ID,
// $CODALI_DOCDEX_REQUIRED and $CODALI_DOCDEX_TOKEN_ENV (read through getenv)
// applied over it, and the token read from the token variable. It returns
// nil settings when Docdex is not configured, and an error wrapping
// ErrInvalid when an override is invalid. The token is never logged.
func (c *Config) DocdexSettings(getenv func(string) string) (*Docdex, string, error) {
	var d Docdex
	if c.Docdex != nil {
		d = *c.Docdex
	}
	if v := getenv(EnvDocdexURL); v != "" {
		d.URL = v
	}
	if d.URL == "" {
		return nil, "", nil
	}
	if v := getenv(EnvDocdexRepoID); v != "" {
		d.RepoID = v
	}
	if v := getenv(EnvDocdexAgentID); v != "" {
		d.AgentID = v
	}
	if v := getenv(EnvDocdexTokenEnv); v != "" {
		d.TokenEnv = v
	}
	var errs []string
	bad := func(format string, args ...any) { errs = append(errs, sprintf(format, args...)) }
	if v := getenv(EnvDocdexRequired); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			bad("%s=%q (want true or false)", EnvDocdexRequired, v)
		}
		d.Required = b
	}
	d.setDefaults()
	d.validate(bad)
	if len(errs) > 0 {
		return nil, "", invalid(strings.Join(errs, "; "))
	}
	return &d, strings.TrimSpace(getenv(d.TokenEnv)), nil
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

func invalid(msg string) error { return fmt.Errorf("%w: %s", ErrInvalid, msg) }
