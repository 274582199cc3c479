package pmstate

import (
	"encoding/base64"
	"fmt"
	"strings"
)

// keyPrefix starts every project key.
const keyPrefix = "pm."

// MaxProjectIDLen is the longest project id, in bytes, that ProjectKey
// accepts.
const MaxProjectIDLen = 512

// ProjectKey maps a project id to its KV key: "pm." followed by the
// unpadded base64url encoding (RFC 4648 §5) of the id's bytes. The mapping is
// injective and reversible (see ProjectFromKey), and its alphabet
// [A-Za-z0-9_-] is valid in KV keys whatever the id contains. An empty id
// or one longer than MaxProjectIDLen bytes fails with ErrInvalidProject.
func ProjectKey(project string) (string, error) {
	if project == "" {
		return "", fmt.Errorf("%w: empty", ErrInvalidProject)
	}
	if len(project) > MaxProjectIDLen {
		return "", fmt.Errorf("%w: %d bytes, at most %d allowed", ErrInvalidProject, len(project), MaxProjectIDLen)
	}
	return keyPrefix + base64.RawURLEncoding.EncodeToString([]byte(project)), nil
}

// ProjectFromKey is the inverse of ProjectKey. A key without the "pm."
// prefix or with an undecodable or empty remainder fails with ErrInvalidKey.
func ProjectFromKey(key string) (string, error) {
	enc, ok := strings.CutPrefix(key, keyPrefix)
	if !ok || enc == "" {
		return "", fmt.Errorf("%w: %q", ErrInvalidKey, key)
	}
	raw, err := base64.RawURLEncoding.DecodeString(enc)
	if err != nil {
		return "", fmt.Errorf("%w: %q: %w", ErrInvalidKey, key, err)
	}
	return string(raw), nil
}

// RunGoalID is the goal node a run owns in its project's goal tree: the
// architect sprouts it, the critic prunes it when the run ends.
func RunGoalID(runID string) string { return "run-" + runID }
