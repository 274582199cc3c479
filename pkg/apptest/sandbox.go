package apptest

import (
	"os"
	"testing"

	"github.com/codali-dev/codali/pkg/app"
	"github.com/codali-dev/codali/pkg/config"
	"github.com/codali-dev/codali/pkg/sandbox"
)

// ChooseSandbox keeps cfg's sandbox (bubblewrap by default) when it can
// run on this host. Where it cannot (no bwrap, no user namespaces) it
// switches cfg to sandbox "none" and logs so, unless
// CODALI_REQUIRE_SANDBOX is set, which makes that a test failure.
func ChooseSandbox(t testing.TB, cfg *config.Config) {
	t.Helper()
	if cfg.Sandbox.Mode == sandbox.ModeNone {
		return
	}
	s, err := app.NewSandbox(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = s.Close() }()
	if err := s.Check(Ctx(t)); err != nil {
		if os.Getenv("CODALI_REQUIRE_SANDBOX") != "" {
			t.Fatal(err)
		}
		t.Logf("running commands without a sandbox: %v", err)
		cfg.Sandbox.Mode = sandbox.ModeNone
	}
}
