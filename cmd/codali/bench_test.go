package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func TestBenchUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"bench", "-n", "0"},
		{"bench", "--inflight", "0"},
		{"bench", "--timeout", "0s"},
		{"bench", "--metrics", "http://127.0.0.1:1/metrics"},
		{"bench", "extra"},
	} {
		if code, _, errOut := runBare(t, "", args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d (%s)", args, code, exitUsage, errOut)
		}
	}
}

// TestBenchEmbedded runs a small bench against the embedded pipeline and
// the floor, and checks the JSON report holds measured figures.
func TestBenchEmbedded(t *testing.T) {
	out, errOut := &syncBuffer{}, &syncBuffer{}
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
	if strings.Contains(errOut.String(), "█") {
		t.Error("--json drew a progress bar")
	}
}
