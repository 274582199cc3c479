package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/syncbuf"
)

func runBare(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	out, errOut := &syncbuf.Buffer{}, &syncbuf.Buffer{}
	c := &cli{stdin: strings.NewReader(stdin), stdout: out, stderr: errOut, getenv: func(string) string { return "" }}
	return c.main(context.Background(), args), out.String(), errOut.String()
}

// existingContext is a directory whose .context/ already holds a file.
func existingContext(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, ".context", "notes", "mine.md")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestUsageErrorsExit2(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"limits":{"maxSteps":-1}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no command", nil, "usage"},
		{"unknown command", []string{"frobnicate"}, "unknown command"},
		{"unknown flag", []string{"submit", "--frob"}, "flag provided but not defined"},
		{"submit without request", []string{"submit", "--repo", "."}, "request text is required"},
		{"submit without repo", []string{"submit", "do it"}, "one of path or url"},
		{"submit bad integrity", []string{"submit", "--repo", ".", "--wait", "--require-integrity", "blue", "x"}, "green or amber"},
		{"submit integrity without wait", []string{"submit", "--repo", ".", "--require-integrity", "green", "x"}, "needs --wait"},
		{"submit bad timeout", []string{"submit", "--repo", ".", "--timeout", "-1s", "x"}, "positive"},
		{"submit bad auth", []string{"submit", "--repo", ".", "--user", "u", "x"}, "go together"},
		{"up bad workers", []string{"up", "--workers", "librarian,chef"}, "unknown worker"},
		{"up bad listen", []string{"up", "--listen", "nowhere"}, "HOST:PORT"},
		{"up bad config", []string{"up", "--config", bad}, "limits.maxSteps"},
		{"up bad checkpoint", []string{"up", "--checkpoint-every", "-2"}, "checkpoint-every"},
		{"up replicas without a cluster", []string{"up", "--replicas", "3"}, "--replicas"},
		{"up bad replicas", []string{"up", "--nats", "nats://127.0.0.1:4222", "--replicas", "7"}, "--replicas"},
		{"up bad external URL", []string{"up", "--nats", "nowhere"}, "is not a URL"},
		{"up bad log level", []string{"up", "--log-level", "loud", "--listen", "127.0.0.1:0", "--data", t.TempDir()}, "log level"},
		{"watch bad run id", []string{"watch", "not.a.run"}, "valid run id"},
		{"runs extra args", []string{"runs", "x"}, "no arguments"},
		{"codex no subcommand", []string{"codex"}, "usage"},
		{"codex unknown subcommand", []string{"codex", "zip", "-"}, "unknown subcommand"},
		{"rao no subcommand", []string{"rao"}, "replay"},
		{"context no subcommand", []string{"context"}, "context export"},
		{"context export without dir", []string{"context", "export", "20261122T100000Z-abcdef12"}, "usage"},
		{"context export bad run id", []string{"context", "export", "not.a.run", t.TempDir()}, "not a run id"},
		{"context export run and project", []string{"context", "export", "--project", "p", "20261122T100000Z-abcdef12", t.TempDir()}, "usage"},
		{"context export over existing files", []string{"context", "export", "--project", "p", existingContext(t)}, "already holds .context files"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runBare(t, "", tc.args...)
			if code != exitUsage || !strings.Contains(out+errOut, tc.want) {
				t.Fatalf("exit %d, output %q %q; want 2 and %q", code, out, errOut, tc.want)
			}
		})
	}
}

func TestCodexCommands(t *testing.T) {
	state := `{"projectHash":"proj#0123456789abcdef","phase":"build","cycles":2,"actions":["edit","verify"],"decisions":{"integrity":"GREEN"}}`
	code, payload, errOut := runBare(t, state, "codex", "encode", "-")
	if code != exitOK || !strings.HasPrefix(payload, "<RL4-CODEX") {
		t.Fatalf("encode: %d %q %q", code, payload, errOut)
	}
	if code, out, _ := runBare(t, payload, "codex", "validate"); code != exitOK || !strings.Contains(out, "valid") {
		t.Fatalf("validate: %d %s", code, out)
	}
	code, out, _ := runBare(t, payload, "codex", "decode", "--json")
	if code != exitOK || !strings.Contains(out, `"GREEN"`) {
		t.Fatalf("decode: %d %s", code, out)
	}
	broken := strings.Replace(payload, "<TIMELINE>", "<TIMELINE>hotspots=src/api.ts | ", 1)
	if code, out, _ := runBare(t, broken, "codex", "validate"); code != exitFailure || !strings.Contains(out, "ERROR:hash-violation") {
		t.Fatalf("validate broken: %d %s", code, out)
	}
	if code, _, errOut := runBare(t, `{"phase":`, "codex", "encode"); code != exitFailure || errOut == "" {
		t.Fatalf("encode bad state: %d %s", code, errOut)
	}
	if code, _, _ := runBare(t, "", "codex", "decode", filepath.Join(t.TempDir(), "missing")); code != exitUsage {
		t.Fatalf("missing file: %d", code)
	}
}

func TestFinishExitCodesAndIntegrityGate(t *testing.T) {
	cases := []struct {
		name, status, integrity, require string
		want                             int
	}{
		{"passed green", events.StatusPassed, events.IntegrityGreen, "", exitOK},
		{"passed green, green required", events.StatusPassed, events.IntegrityGreen, "green", exitOK},
		{"passed amber, green required", events.StatusPassed, events.IntegrityAmber, "green", exitFailure},
		{"passed amber, amber required", events.StatusPassed, events.IntegrityAmber, "amber", exitOK},
		{"failed", events.StatusFailed, events.IntegrityRed, "", exitFailure},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			kind := events.KindPassed
			if tc.status == events.StatusFailed {
				kind = events.KindFailed
			}
			env, err := events.New("r1", kind, 1, "t", time.Now(), events.VerdictData{Status: tc.status, Integrity: tc.integrity, Attempts: 1})
			if err != nil {
				t.Fatal(err)
			}
			out, errOut := &syncbuf.Buffer{}, &syncbuf.Buffer{}
			c := &cli{stdout: out, stderr: errOut, getenv: func(string) string { return "" }}
			if got := c.finish(env, false, tc.require); got != tc.want {
				t.Fatalf("exit %d, want %d (%s %s)", got, tc.want, out.String(), errOut.String())
			}
		})
	}
}

func TestUpRefusesASharedDataDirectory(t *testing.T) {
	dir := t.TempDir()
	unlock, err := lockData(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	code, _, errOut := runBare(t, "", "up", "--data", dir, "--listen", "127.0.0.1:0", "--http", "127.0.0.1:0")
	if code != exitUsage || !strings.Contains(errOut, "used by another codali up") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}

func TestClientCommandsExit2WhenNATSIsUnreachable(t *testing.T) {
	for _, args := range [][]string{
		{"submit", "--nats", "nats://127.0.0.1:1", "--repo", ".", "--wait", "x"},
		{"watch", "--nats", "nats://127.0.0.1:1", "somerun"},
		{"rao", "verify", "--nats", "nats://127.0.0.1:1"},
	} {
		if code, _, errOut := runBare(t, "", args...); code != exitUsage || !strings.Contains(errOut, "could not connect") {
			t.Errorf("%v: exit %d, %s", args, code, errOut)
		}
	}
}

// noRead is a stdin that fails the test when a command reads it.
type noRead struct{ t *testing.T }

func (r noRead) Read([]byte) (int, error) {
	r.t.Error("the command read stdin")
	return 0, io.EOF
}

// TestHelpExits0 covers -h/--help of the commands with subcommands: each
// prints its own usage and exits 0, and reads no input.
func TestHelpExits0(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"rao", "--help"}, "replay [RUN] [N]"},
		{[]string{"rao", "replay", "--help"}, "usage: codali rao replay [RUN] [N] [--json] [--simulate]\n"},
		{[]string{"rao", "rerun", "-h"}, "usage: codali rao rerun RUN [--policy FILE] [--timeout D] [--json]\n\n"},
		{[]string{"rao", "fork", "--help"}, "usage: codali rao fork EVENT [--policy FILE] [--request TEXT] [--by NAME]\n"},
		{[]string{"rao", "override", "--help"}, "codali rao override cancel RUN --reason TEXT [--by NAME]\n       codali rao override promote RUN"},
		{[]string{"codex", "--help"}, "usage: codali codex encode|decode|validate"},
		{[]string{"config", "--help"}, "usage: codali config validate [FILE]"},
		{[]string{"context", "export", "--help"}, "DIR [--force]"},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out, errOut := &syncbuf.Buffer{}, &syncbuf.Buffer{}
			c := &cli{stdin: noRead{t}, stdout: out, stderr: errOut, getenv: func(string) string { return "" }}
			if code := c.main(context.Background(), tc.args); code != exitOK || !strings.Contains(out.String()+errOut.String(), tc.want) {
				t.Fatalf("exit %d, output %q %q; want 0 and %q", code, out, errOut, tc.want)
			}
		})
	}
}

// TestUnknownSubcommandsReadNoInput: an unknown codex or rao subcommand
// is a usage error at once, before any input is read or NATS is dialled.
func TestUnknownSubcommandsReadNoInput(t *testing.T) {
	for _, args := range [][]string{{"codex", "zip"}, {"codex", "--frob"}, {"rao", "zip", "--help"}} {
		out, errOut := &syncbuf.Buffer{}, &syncbuf.Buffer{}
		c := &cli{stdin: noRead{t}, stdout: out, stderr: errOut, getenv: func(string) string { return "" }}
		if code := c.main(context.Background(), args); code != exitUsage || !strings.Contains(errOut.String(), "unknown subcommand") {
			t.Errorf("%q: exit %d, output %q %q; want 2 and unknown subcommand", args, code, out, errOut)
		}
	}
}

// TestRAOByDefaultsToTheOSUser: rao audit, override and fork record who
// acted as approve and reject do (the OS user), not $USER alone, which
// may be unset.
func TestRAOByDefaultsToTheOSUser(t *testing.T) {
	out, errOut := &syncbuf.Buffer{}, &syncbuf.Buffer{}
	c := &cli{stdin: noRead{t}, stdout: out, stderr: errOut, getenv: func(string) string { return "" }}
	who := c.defaultBy()
	if who == "" {
		t.Skip("no OS user name here")
	}
	if code := c.main(context.Background(), []string{"rao", "fork", "--help"}); code != exitOK || !strings.Contains(errOut.String(), fmt.Sprintf("(default %q)", who)) {
		t.Fatalf("exit %d, help %q; want --by defaulting to %q", code, errOut, who)
	}
}
