package config_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/config"
)

func TestDocdexSettings(t *testing.T) {
	cases := []struct {
		name    string
		cfg     string
		env     map[string]string
		want    *config.Docdex
		token   string
		wantErr string
	}{
		{name: "not configured", cfg: `{}`},
		{name: "section with defaults", cfg: `{"docdex": {"url": "http://127.0.0.1:28491"}}`,
			env:   map[string]string{"DOCDEX_AUTH_TOKEN": " tok "},
			want:  &config.Docdex{URL: "http://127.0.0.1:28491", TokenEnv: "DOCDEX_AUTH_TOKEN", TimeoutMS: 10000, MaxWaitMS: 30000, ImpactMaxDepth: 3, ImpactMaxEdges: 200, ASTMaxNodes: 200, StaleAfterMS: 86400000},
			token: "tok"},
		{name: "every field", cfg: `{"docdex": {"url": "https://dx:1", "tokenEnv": "MY_TOKEN", "repoId": "r", "agentId": "a", "required": true, "timeoutMs": 5, "maxWaitMs": 6, "impactMaxDepth": 2, "impactMaxEdges": 9, "astMaxNodes": 7, "staleAfterMs": 8}}`,
			env:   map[string]string{"MY_TOKEN": "t2", "DOCDEX_AUTH_TOKEN": "other"},
			want:  &config.Docdex{URL: "https://dx:1", TokenEnv: "MY_TOKEN", RepoID: "r", AgentID: "a", Required: true, TimeoutMS: 5, MaxWaitMS: 6, ImpactMaxDepth: 2, ImpactMaxEdges: 9, ASTMaxNodes: 7, StaleAfterMS: 8},
			token: "t2"},
		{name: "environment overrides", cfg: `{"docdex": {"url": "http://a:1", "repoId": "r"}}`,
			env: map[string]string{"CODALI_DOCDEX_URL": "http://b:2", "CODALI_DOCDEX_REPO_ID": "r2", "CODALI_DOCDEX_AGENT_ID": "ag",
				"CODALI_DOCDEX_REQUIRED": "true", "CODALI_DOCDEX_TOKEN_ENV": "T3", "T3": "x"},
			want:  &config.Docdex{URL: "http://b:2", TokenEnv: "T3", RepoID: "r2", AgentID: "ag", Required: true, TimeoutMS: 10000, MaxWaitMS: 30000, ImpactMaxDepth: 3, ImpactMaxEdges: 200, ASTMaxNodes: 200, StaleAfterMS: 86400000},
			token: "x"},
		{name: "environment alone", cfg: `{}`, env: map[string]string{"CODALI_DOCDEX_URL": "http://b:2"},
			want: &config.Docdex{URL: "http://b:2", TokenEnv: "DOCDEX_AUTH_TOKEN", TimeoutMS: 10000, MaxWaitMS: 30000, ImpactMaxDepth: 3, ImpactMaxEdges: 200, ASTMaxNodes: 200, StaleAfterMS: 86400000}},
		{name: "bad required override", cfg: `{}`, env: map[string]string{"CODALI_DOCDEX_URL": "http://b:2", "CODALI_DOCDEX_REQUIRED": "maybe"}, wantErr: "CODALI_DOCDEX_REQUIRED"},
		{name: "bad url override", cfg: `{}`, env: map[string]string{"CODALI_DOCDEX_URL": "b:2"}, wantErr: "docdex.url"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := config.Parse([]byte(tc.cfg))
			if err != nil {
				t.Fatal(err)
			}
			d, token, err := c.DocdexSettings(func(k string) string { return tc.env[k] })
			if tc.wantErr != "" {
				if !errors.Is(err, config.ErrInvalid) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one naming %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (d == nil) != (tc.want == nil) || d != nil && *d != *tc.want {
				t.Fatalf("settings %+v, want %+v", d, tc.want)
			}
			if token != tc.token {
				t.Errorf("token %q, want %q", token, tc.token)
			}
		})
	}
}

func TestDocdexValidation(t *testing.T) {
	_, err := config.Parse([]byte(`{"docdex": {"url": "ftp://x", "tokenEnv": "not a name", "timeoutMs": -1, "astMaxNodes": -2}, "librarian": {"promptTokens": -1}}`))
	for _, want := range []string{"docdex.url", "docdex.tokenEnv", "docdex.timeoutMs", "docdex.astMaxNodes", "librarian.promptTokens"} {
		if !errors.Is(err, config.ErrInvalid) || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not name %s", err, want)
		}
	}
	if _, err := config.Parse([]byte(`{"docdex": {"url": "http://x:1", "bogus": 1}}`)); !errors.Is(err, config.ErrInvalid) {
		t.Errorf("unknown docdex key accepted: %v", err)
	}
}
