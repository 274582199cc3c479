// Package natsauthtest starts an embedded NATS server whose users are the
// identities of natsauth, with their generated permissions, for tests that
// prove what each identity can and cannot do.
package natsauthtest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/natsauth"
)

// Start starts the server (stopped when the test ends) and returns its
// client URL and each identity's password ("pw-" and its name). The test
// fails when the server cannot start.
func Start(t testing.TB) (url string, passwords map[string]string) {
	t.Helper()
	passwords = map[string]string{}
	for _, id := range natsauth.Identities() {
		passwords[id.Name] = "pw-" + id.Name
	}
	conf := filepath.Join(t.TempDir(), "nats.conf")
	if err := os.WriteFile(conf, []byte(natsauth.ServerAccounts(passwords)), 0o600); err != nil {
		t.Fatal(err)
	}
	srv, err := bus.StartEmbedded(bus.EmbeddedConfig{Port: -1, StoreDir: t.TempDir(), ConfigFile: conf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
	return srv.ClientURL(), passwords
}
