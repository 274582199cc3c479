package builder

import (
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/config"
	"github.com/codali-dev/codali/pkg/events"
)

// A link the model's commands made in the workspace's .context/ (here
// scratchpad/ and history/ leading out of the workspace, and hivemind/
// leading to a directory with a credential file) is never followed: nothing is
// written outside, nothing outside is read, and the attempt records the
// problem.
func TestProtocolFollowsNoLinks(t *testing.T) {
	x, dir := newExecutor(t)
	outside, creds := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(creds, "config.json"), []byte(`{"auths":{"registry":{"auth":"c2VjcmV0"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	ctxDir := filepath.Join(dir, ".context")
	if err := os.MkdirAll(ctxDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"scratchpad": outside, "history": outside, "hivemind": creds} {
		if err := os.Symlink(target, filepath.Join(ctxDir, filepath.FromSlash(link))); err != nil {
			t.Fatal(err)
		}
	}
	in, err := events.New("run-links", events.KindPlan, 1, "codali/architect", t0(), testPlan())
	if err != nil {
		t.Fatal(err)
	}
	readable := func(string) bool { return true }
	proto, err := newProtocol(dir, in, testPlan(), "scripted", t0, x.redactor, slog.New(slog.DiscardHandler), readable, config.Context{}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	args := json.RawMessage(`{"path":"a.txt","content":"a\n"}`)
	id, _ := proto.before("write_file", args)
	proto.after(id, events.ToolExecution{Tool: "write_file", Args: args, Result: events.ToolResult{OK: true}})
	ents, err := os.ReadDir(outside)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 0 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("written outside the workspace through a link: %v", names)
	}
	if len(proto.base.Hivemind) > 0 {
		t.Errorf("a linked hivemind/ was read: %v", proto.base.Hivemind)
	}
	if data, err := os.ReadFile(filepath.Join(creds, "config.json")); err != nil || !strings.Contains(string(data), "c2VjcmV0") {
		t.Errorf("the linked directory's file changed: %q, %v", data, err)
	}
	if !strings.Contains(strings.Join(proto.errs, "\n"), "symbolic link") {
		t.Errorf("the links are not recorded as problems: %q", proto.errs)
	}
	// The session goes on: its entries are in the record for the event.
	if len(proto.record().Entries) == 0 {
		t.Error("no entries recorded")
	}
}
