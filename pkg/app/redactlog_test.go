package app

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// TestServiceLogsAreRedacted: the workers log errors whose texts come from
// model servers, commands and repositories; the services' logger redacts
// messages and string and error attributes, grouped or bound with With.
func TestServiceLogsAreRedacted(t *testing.T) {
	const secret = "AKIAIOSFODNN7EXAMPLE"
	_, js := provisioned(t)
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, nil))
	d, err := NewDeps(testCtx(t), parseConfig(t, `{}`), js, log, func() time.Time { return t0 }, noEnv, nil)
	if err != nil {
		t.Fatal(err)
	}
	d.Log.With("run", "key "+secret).WithGroup("g").Error("permanent failure: "+secret,
		"err", errors.New("401: key "+secret), "detail", secret, slog.Group("inner", "x", secret), "n", 3)
	out := buf.String()
	if strings.Contains(out, secret) {
		t.Fatalf("the log carries the secret:\n%s", out)
	}
	for _, want := range []string{`"permanent failure: `, `"err":"401: key `, `"n":3`} {
		if !strings.Contains(out, want) {
			t.Errorf("the log lacks %s:\n%s", want, out)
		}
	}
}
