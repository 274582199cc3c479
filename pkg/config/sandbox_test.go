package config_test

import (
	"errors"
	"testing"

	"github.com/codali-dev/codali/pkg/config"
	"github.com/codali-dev/codali/pkg/sandbox"
)

func TestSandboxSetting(t *testing.T) {
	if m := config.Default().Sandbox.Mode; m != "" && m != sandbox.ModeBwrap {
		t.Fatalf("default mode %q: the sandbox must be on by default", m)
	}
	c, err := config.Parse([]byte(`{"sandbox": "none"}`))
	if err != nil || c.Sandbox.Mode != sandbox.ModeNone {
		t.Fatalf("string form: %+v %v", c.Sandbox, err)
	}
	c, err = config.Parse([]byte(`{"sandbox": {"mode": "bwrap", "readOnly": ["/opt/tc"], "limits": {"cpuSeconds": 30, "memoryBytes": -1}}}`))
	if err != nil || c.Sandbox.Mode != sandbox.ModeBwrap || c.Sandbox.Limits.CPUSeconds != 30 || c.Sandbox.Limits.MemoryBytes != -1 || c.Sandbox.ReadOnly[0] != "/opt/tc" {
		t.Fatalf("object form: %+v %v", c.Sandbox, err)
	}
	for _, bad := range []string{
		`{"sandbox": "docker"}`,
		`{"sandbox": {"mode": "bwrap", "network": true}}`,
		`{"sandbox": {"limits": {"cpu": 1}}}`,
		`{"sandbox": {"readOnly": ["relative"]}}`,
		`{"sandbox": 3}`,
	} {
		if _, err := config.Parse([]byte(bad)); !errors.Is(err, config.ErrInvalid) {
			t.Errorf("%s: err = %v", bad, err)
		}
	}
}
