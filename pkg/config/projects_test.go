package config_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/config"
	"github.com/codali-dev/codali/pkg/events"
)

func TestProjectIsDerivedOrConfigured(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "codali.config.json")
	body := `{"projects": {"hello": ["repos/hello", "https://git.example.com/acme/hello.git"]}}`
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	hello := filepath.Join(dir, "repos", "hello")
	req := func(repo events.RepoRef, project string) events.Requested {
		return events.Requested{Request: "x", Repo: repo, Options: events.RunOptions{Project: project}}
	}
	cases := []struct {
		name string
		req  events.Requested
		want string // "" means refused
	}{
		{"no option: derived", req(events.RepoRef{Path: "/srv/a"}, ""), config.DerivedProject(events.RepoRef{Path: "/srv/a"})},
		{"the derived id named explicitly", req(events.RepoRef{Path: "/srv/a"}, config.DerivedProject(events.RepoRef{Path: "/srv/a"})), config.DerivedProject(events.RepoRef{Path: "/srv/a"})},
		{"configured directory", req(events.RepoRef{Path: hello}, "hello"), "hello"},
		{"inside the configured directory", req(events.RepoRef{Path: filepath.Join(hello, "sub")}, "hello"), "hello"},
		{"configured url, any ref", req(events.RepoRef{URL: "https://git.example.com/acme/hello.git", Ref: "dev"}, "hello"), "hello"},
		{"another repository naming the project", req(events.RepoRef{Path: "/srv/evil"}, "hello"), ""},
		{"a sibling directory", req(events.RepoRef{Path: hello + "-evil"}, "hello"), ""},
		{"another url", req(events.RepoRef{URL: "https://git.example.com/evil/hello.git"}, "hello"), ""},
		{"another repository's derived id", req(events.RepoRef{Path: "/srv/evil"}, config.DerivedProject(events.RepoRef{Path: "/srv/a"})), ""},
		{"an unconfigured project", req(events.RepoRef{Path: hello}, "victim"), ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := c.Project(tc.req)
			if tc.want == "" {
				if !errors.Is(err, config.ErrProjectNotAllowed) || !strings.Contains(err.Error(), tc.req.Options.Project) {
					t.Fatalf("got %q, %v: want ErrProjectNotAllowed", got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %q, %v: want %q", got, err, tc.want)
			}
		})
	}
}

func TestRepositoryLimitsValidate(t *testing.T) {
	_, err := config.Parse([]byte(`{"workspace": {"allowedHosts": ["", "github.com/acme", "ok.example"]}, "projects": {"p": [], "q": [""]}}`))
	for _, want := range []string{"allowedHosts[0]", "allowedHosts[1]", "projects.p lists no repository", "projects.q[0] is empty"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not mention %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "allowedHosts[2]") {
		t.Errorf("a valid host was refused: %v", err)
	}
}
