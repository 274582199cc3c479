package builder

import (
	"encoding/json"
	"log/slog"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/codali-dev/codali/pkg/config"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/redact"
)

// BenchmarkProtocolRound is one attempt's Cognitive Protocol file work as
// a run with one tool call does it: the session started over an empty
// .context/ (newProtocol), then one call's before and after steps.
func BenchmarkProtocolRound(b *testing.B) {
	in, err := events.New("run-bench", events.KindPlan, 1, "codali/architect", t0(), testPlan())
	if err != nil {
		b.Fatal(err)
	}
	red, err := redact.New(nil)
	if err != nil {
		b.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	args := json.RawMessage(`{"path":"bench.txt","content":"bench\n"}`)
	rec := events.ToolExecution{Tool: "write_file", Args: args, Call: json.RawMessage(`{"tool":"write_file","paths":["bench.txt"],"writes":true}`),
		Result: events.ToolResult{OK: true, DurationMS: 1}}
	root := b.TempDir()
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		dir := filepath.Join(root, strconv.Itoa(i))
		p, err := newProtocol(dir, in, testPlan(), "scripted", t0, red, log, nil, config.Context{}, nil, false)
		if err != nil {
			b.Fatal(err)
		}
		id, _ := p.before("write_file", args)
		p.after(id, rec)
		if len(p.errs) > 0 {
			b.Fatal(p.errs)
		}
	}
}
