package pmstate

import (
	"errors"
	"regexp"
	"strings"
	"testing"
)

// kvKeyPattern is the key syntax the NATS KV client accepts.
var kvKeyPattern = regexp.MustCompile(`^[-/_=.a-zA-Z0-9]+$`)

func TestProjectKeyRoundTrip(t *testing.T) {
	tests := []struct {
		name    string
		project string
	}{
		{name: "plain", project: "codali"},
		{name: "dots and wildcards", project: "org.repo.*>"},
		{name: "slashes and spaces", project: "github.com/acme/my repo"},
		{name: "unicode", project: "projet-été-🚀"},
		{name: "binary bytes", project: "\x00\xff\n"},
		{name: "longest allowed", project: strings.Repeat("p", MaxProjectIDLen)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key, err := ProjectKey(tt.project)
			if err != nil {
				t.Fatalf("ProjectKey: %v", err)
			}
			if !kvKeyPattern.MatchString(key) || !strings.HasPrefix(key, "pm.") {
				t.Errorf("key %q is not a valid KV key", key)
			}
			back, err := ProjectFromKey(key)
			if err != nil {
				t.Fatalf("ProjectFromKey: %v", err)
			}
			if back != tt.project {
				t.Errorf("round trip = %q, want %q", back, tt.project)
			}
		})
	}
}

func TestProjectKeyIsInjective(t *testing.T) {
	ids := []string{"a.b", "a_b", "a-b", "a/b", "A.b", "ab", "a.b ", "a.b\x00"}
	seen := map[string]string{}
	for _, id := range ids {
		key, err := ProjectKey(id)
		if err != nil {
			t.Fatalf("ProjectKey(%q): %v", id, err)
		}
		if other, dup := seen[key]; dup {
			t.Errorf("%q and %q share key %q", id, other, key)
		}
		seen[key] = id
	}
}

func TestProjectKeyErrors(t *testing.T) {
	tests := []struct {
		name    string
		project string
	}{
		{name: "empty", project: ""},
		{name: "too long", project: strings.Repeat("p", MaxProjectIDLen+1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := ProjectKey(tt.project); !errors.Is(err, ErrInvalidProject) {
				t.Errorf("error %v, want ErrInvalidProject", err)
			}
		})
	}
}

func TestProjectFromKeyErrors(t *testing.T) {
	tests := []struct {
		name string
		key  string
	}{
		{name: "no prefix", key: "Y29kYWxp"},
		{name: "prefix only", key: "pm."},
		{name: "not base64url", key: "pm.a+b/"},
		{name: "impossible length", key: "pm.a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := ProjectFromKey(tt.key); !errors.Is(err, ErrInvalidKey) {
				t.Errorf("error %v, want ErrInvalidKey", err)
			}
		})
	}
}
