package config

import (
	"os"
	"path/filepath"
	"testing"
)

func TestContextScopesResolveAgainstTheConfigFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "codali.config.json")
	if err := os.WriteFile(p, []byte(`{"context":{"userDir":"ctx/user","globalDir":"/srv/context/global"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if c.Context.UserDir != filepath.Join(dir, "ctx/user") || c.Context.GlobalDir != "/srv/context/global" {
		t.Errorf("context = %+v", c.Context)
	}
	if d := Default(); d.Context.UserDir != "" || d.Context.GlobalDir != "" {
		t.Errorf("default context scopes %+v, want none", d.Context)
	}
}
