package bus_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/codali-dev/codali/pkg/bus"
)

func TestEmbeddedConfigFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.conf")
	conf := `accounts { A { jetstream: enabled, users: [{user: "u", password: "p"}] } }`
	if err := os.WriteFile(good, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	srv, err := bus.StartEmbedded(bus.EmbeddedConfig{Port: -1, StoreDir: t.TempDir(), ConfigFile: good})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	if _, err := bus.Connect(bus.ConnectOptions{URL: srv.ClientURL(), User: "u", Password: "p"}); err != nil {
		t.Fatalf("the file's user: %v", err)
	}
	if _, err := bus.Connect(bus.ConnectOptions{URL: srv.ClientURL(), User: "u", Password: "wrong"}); err == nil {
		t.Fatal("a wrong password was accepted: the file's users were not applied")
	}
	bad := filepath.Join(dir, "bad.conf")
	if err := os.WriteFile(bad, []byte("accounts { "), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := bus.StartEmbedded(bus.EmbeddedConfig{Port: -1, StoreDir: t.TempDir(), ConfigFile: bad}); !errors.Is(err, bus.ErrInvalidConfig) {
		t.Fatalf("bad file: %v, want ErrInvalidConfig", err)
	}
}
