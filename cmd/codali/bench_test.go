package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/syncbuf"
)

func TestBenchUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"bench", "-n", "0"},
		{"bench", "--inflight", "0"},
		{"bench", "--timeout", "0s"},
		{"bench", "--metrics", "http://127.0.0.1:1/metrics"},
		{"bench", "extra"},
		{"bench", "--nats", "nats://127.0.0.1:1", "--workspaces", "/tmp"},
	} {
		if code, _, errOut := runBare(t, "", args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d (%s)", args, code, exitUsage, errOut)
		}
	}
}

// TestBenchEmbedded runs a small bench against the embedded pipeline and
// the floor, and checks the JSON report holds measured figures.
func TestBenchEmbedded(t *testing.T) {
	out, errOut := &syncbuf.Buffer{}, &syncbuf.Buffer{}
	c := &cli{stdin: strings.NewReader(""), stdout: out, stderr: errOut, getenv: func(string) string { return "" }}
	if code := c.main(context.Background(), []string{"bench", "-n", "4", "--inflight", "2", "--floor", "--json"}); code != exitOK {
		t.Fatalf("bench exited %d: %s %s", code, out.String(), errOut.String())
	}
	var res benchResult
	if err := json.Unmarshal([]byte(out.String()), &res); err != nil {
		t.Fatalf("bench --json: %v\n%s", err, out.String())
	}
	if res.Codali.Passed != 4 || res.Codali.RunsPerSec <= 0 || res.Codali.P50MS <= 0 || res.Codali.P99MS < res.Codali.P50MS {
		t.Errorf("codali figures %+v", res.Codali)
	}
	if res.Phases == nil || res.Phases.Handlers["builder"] <= 0 || res.Phases.Steps["workspace"] <= 0 || res.Phases.RecorderPerEvent <= 0 {
		t.Errorf("phase breakdown %+v", res.Phases)
	}
	if res.Floor == nil || res.Floor.Passed != 4 || res.Ratio == nil || res.Ratio.P50 <= 0 {
		t.Errorf("floor %+v ratio %+v", res.Floor, res.Ratio)
	}
	if !res.Valid || res.Invalid != "" {
		t.Errorf("a bench whose runs passed is invalid: %q", res.Invalid)
	}
	if res.Workspaces == "" || (res.WorkspacesFS != "tmpfs" && res.WorkspacesFS != "disk") {
		t.Errorf("workspaces %q on %q", res.Workspaces, res.WorkspacesFS)
	}
	if _, err := os.Stat(res.Workspaces); !os.IsNotExist(err) {
		t.Errorf("the bench left its workspaces behind: %v", err)
	}
	if strings.Contains(errOut.String(), "█") {
		t.Error("--json drew a progress bar")
	}
}

// benchFailScript plans a check that cannot pass, with no retries left to
// pass it on: every run fails.
const benchFailScript = `{"responses":[
  {"phase":"architect","json":{"summary":"bench","steps":[{"description":"write bench.txt","files":["bench.txt"]}],"creates":["bench.txt"],"verify":[{"name":"missing","command":["test","-f","missing.txt"]}]}},
  {"phase":"builder","step":1,"json":{"tool_calls":[{"tool":"write_file","args":{"path":"bench.txt","content":"bench\n"}}]}},
  {"phase":"builder","step":2,"json":{"done":true,"summary":"wrote bench.txt"}}]}`

// TestBenchFailedRunsInvalid: a bench whose runs fail says so on stdout
// and stderr, marks its JSON invalid with the first failure's reason, and
// exits 1 (with and without --json).
func TestBenchFailedRunsInvalid(t *testing.T) {
	for _, asJSON := range []bool{true, false} {
		out, errOut := &syncbuf.Buffer{}, &syncbuf.Buffer{}
		c := &cli{stdin: strings.NewReader(""), stdout: out, stderr: errOut, getenv: func(string) string { return "" }}
		o := benchOptions{n: 2, inflight: 1, timeout: time.Minute, asJSON: asJSON, script: benchFailScript}
		if code := c.runBench(context.Background(), o); code != exitFailure {
			t.Fatalf("json=%v: bench of failing runs exited %d, want %d: %s %s", asJSON, code, exitFailure, out.String(), errOut.String())
		}
		if !strings.Contains(errOut.String(), "INVALID") || !strings.Contains(errOut.String(), "2 of 2 codali runs failed") {
			t.Errorf("json=%v: stderr does not say the bench is invalid: %s", asJSON, errOut.String())
		}
		if !asJSON {
			if !strings.Contains(out.String(), "BENCH INVALID") {
				t.Errorf("report does not say the bench is invalid:\n%s", out.String())
			}
			continue
		}
		var res benchResult
		if err := json.Unmarshal([]byte(out.String()), &res); err != nil {
			t.Fatalf("bench --json: %v\n%s", err, out.String())
		}
		if res.Valid || res.Codali.Failed != 2 || !strings.Contains(res.Invalid, "missing") || !strings.Contains(res.Codali.FirstFailure, "missing") {
			t.Errorf("json report of failing runs: valid=%v invalid=%q codali=%+v", res.Valid, res.Invalid, res.Codali)
		}
	}
}

func TestBenchJudge(t *testing.T) {
	ok := benchResult{Codali: loadResult{Passed: 3}, Floor: &loadResult{Passed: 3}}
	if ok.judge(); !ok.Valid || ok.Invalid != "" {
		t.Errorf("all passed: valid=%v %q", ok.Valid, ok.Invalid)
	}
	for name, r := range map[string]benchResult{
		"no runs":      {},
		"codali fails": {Codali: loadResult{Passed: 2, Failed: 1, FirstFailure: "boom"}},
		"floor fails":  {Codali: loadResult{Passed: 3}, Floor: &loadResult{Failed: 3}},
	} {
		if r.judge(); r.Valid || !strings.Contains(r.Invalid, "not the pipeline") {
			t.Errorf("%s: valid=%v %q", name, r.Valid, r.Invalid)
		}
	}
}

// TestBenchProfiles: --cpuprofile and --trace write their files; a file
// that cannot be created fails the bench before any run.
func TestBenchProfiles(t *testing.T) {
	dir := t.TempDir()
	stop, err := startProfiles(filepath.Join(dir, "cpu.pprof"), filepath.Join(dir, "trace.out"))
	if err != nil {
		t.Fatal(err)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"cpu.pprof", "trace.out"} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	for _, files := range [][2]string{{filepath.Join(dir, "no", "cpu"), ""}, {"", filepath.Join(dir, "no", "trace")}, {filepath.Join(dir, "cpu2"), filepath.Join(dir, "no", "trace")}} {
		if _, err := startProfiles(files[0], files[1]); err == nil {
			t.Errorf("%v: no error for a file that cannot be created", files)
		}
	}
	// The CPU profile of the failed start above was stopped: a new one starts.
	stop, err = startProfiles(filepath.Join(dir, "cpu3"), "")
	if err != nil {
		t.Fatalf("a failed start left the CPU profile running: %v", err)
	}
	_ = stop()
}

// TestBenchWorkspaces: the workspace root goes into the directory asked
// for (its file system named as it is), and a directory that cannot be
// used is an error.
func TestBenchWorkspaces(t *testing.T) {
	dir := t.TempDir()
	root, kind, remove, err := benchWorkspaces(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(root) != dir || (kind == "tmpfs") != onTmpfs(dir) {
		t.Errorf("root %s (%s) for %s", root, kind, dir)
	}
	remove()
	if _, err := os.Stat(root); !os.IsNotExist(err) {
		t.Errorf("not removed: %v", err)
	}
	if _, _, _, err := benchWorkspaces(filepath.Join(dir, "missing"), dir); err == nil {
		t.Error("no error for a missing directory asked for")
	}
	// Without a directory asked for: tmpfs, else the fallback.
	root, kind, remove, err = benchWorkspaces("", dir)
	if err != nil {
		t.Fatal(err)
	}
	defer remove()
	if onTmpfs(benchShm) != (kind == "tmpfs") || (kind != "tmpfs" && filepath.Dir(root) != dir) {
		t.Errorf("default root %s (%s)", root, kind)
	}
	if onTmpfs(filepath.Join(dir, "missing")) {
		t.Error("a missing path is on tmpfs")
	}
}

// TestBenchProgressOnlyOnATerminal: the progress bar is drawn on a
// terminal only, and never with --json.
func TestBenchProgressOnlyOnATerminal(t *testing.T) {
	for _, tc := range []struct {
		tty, asJSON, want bool
	}{{true, false, true}, {false, false, false}, {true, true, false}} {
		c := &cli{stderr: &syncbuf.Buffer{}, stderrTTY: tc.tty}
		if got := c.progress(benchOptions{asJSON: tc.asJSON}, 10, "codali") != nil; got != tc.want {
			t.Errorf("terminal %v, --json %v: progress bar %v, want %v", tc.tty, tc.asJSON, got, tc.want)
		}
	}
}
