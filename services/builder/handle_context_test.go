package builder

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/afs"
	"github.com/codali-dev/codali/pkg/apptest"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/llm"
)

// The built event carries every protocol entry, and with
// options.write_context the change holds the run's scratchpad and history.
func TestHandleCarriesCognitionAndWritesContext(t *testing.T) {
	for _, writeContext := range []bool{false, true} {
		script := llm.Script{Responses: []llm.ScriptedResponse{
			{Phase: events.ServiceBuilder, Step: 1, Content: `{"thought":"write the greeting","tool_calls":[{"tool":"write_file","args":{"path":"greet.go","content":"package hello\n"}}],"done":false}`},
			{Phase: events.ServiceBuilder, Step: 2, Content: `{"done":true,"summary":"wrote it"}`},
		}}
		raw, _ := json.Marshal(script)
		sc, err := llm.ParseScript(raw)
		if err != nil {
			t.Fatal(err)
		}
		d := apptest.Deps(t, `{}`, apptest.Options{Script: sc})
		h, err := New(apptest.Ctx(t), d)
		if err != nil {
			t.Fatal(err)
		}
		run := "20261122T100000Z-c0ffee01"
		_, ref, err := d.Artifacts.StoreBundle(apptest.Ctx(t), run, 1, &events.ContextBundle{}, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		pd := testPlan()
		pd.BundleRef = ref
		pd.Run.Request.Repo = events.RepoRef{Path: apptest.CopyHello(t)}
		pd.Run.Request.Options.WriteContext = writeContext
		in, err := events.New(run, events.KindPlan, 1, "codali/architect", apptest.Now(), pd)
		if err != nil {
			t.Fatal(err)
		}
		outs, err := h(apptest.Ctx(t), in)
		if err != nil || len(outs) != 1 {
			t.Fatalf("handle: %v, %d events", err, len(outs))
		}
		var bd events.BuiltData
		if err := events.DecodeData(outs[0], &bd); err != nil {
			t.Fatal(err)
		}
		if bd.Cognition == nil {
			t.Fatal("built event has no cognition record")
		}
		names := map[string]int{}
		for _, e := range bd.Cognition.Entries {
			names[e.Operation.Type+"/"+e.Operation.Name]++
			line, _ := e.MarshalLine()
			if err := afs.ValidateLine(line); err != nil {
				t.Errorf("entry %s: %v", e.ID, err)
			}
		}
		if names["cognitive_state/snapshot"] != 1 || names["tool_call/write_file:start"] != 1 || names["tool_call/write_file"] != 1 || names["thought_trace/thought"] != 1 {
			t.Errorf("entries %v", names)
		}
		var ctxFiles []string
		for _, f := range bd.Change.Files {
			if strings.HasPrefix(f.Path, ".context/") {
				ctxFiles = append(ctxFiles, f.Path)
			}
		}
		if writeContext {
			joined := strings.Join(ctxFiles, " ")
			if !strings.Contains(joined, ".context/scratchpad/state.json") || !strings.Contains(joined, ".context/history/") || strings.Contains(joined, "memory/") {
				t.Errorf("write_context change files %v", ctxFiles)
			}
		} else if len(ctxFiles) != 0 {
			t.Errorf(".context in the change without write_context: %v", ctxFiles)
		}
	}
}
