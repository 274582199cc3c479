package builder

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/policy"
)

// TestEditDoesNotRevealProtectedContent: guessing old text of a
// never_touch file gives the same answer whether the guess is right or
// wrong, because the gate decides before the file is read.
func TestEditDoesNotRevealProtectedContent(t *testing.T) {
	x, _ := newExecutor(t)
	right, outRight := x.execute(context.Background(), 1, ToolEditFile, json.RawMessage(`{"path":"secrets/key.pem","old":"k","new":"z"}`))
	wrong, outWrong := x.execute(context.Background(), 1, ToolEditFile, json.RawMessage(`{"path":"secrets/key.pem","old":"q","new":"z"}`))
	if outRight != outWrong || right.Result.Error != wrong.Result.Error || string(right.Call) != string(wrong.Call) {
		t.Fatalf("answers differ by guess:\nright: %s %s\nwrong: %s %s", outRight, right.Call, outWrong, wrong.Call)
	}
	if !wrong.Gate.Blocked || wrong.Gate.Stage != events.GateStagePolicy || strings.Contains(outWrong, "occurs") {
		t.Fatalf("wrong guess: %+v %s", wrong.Gate, outWrong)
	}
}

// TestGatesReadNoFileBeforeDeciding puts a FIFO at a never_touch path:
// opening it for reading would block until a writer comes, and a reader
// shows up as a writer that can open it without blocking. A write, edit
// or delete of the path must be refused without anyone opening it.
func TestGatesReadNoFileBeforeDeciding(t *testing.T) {
	for _, tc := range []struct{ tool, args string }{
		{ToolWriteFile, `{"path":"secrets/fifo","content":"x"}`},
		{ToolEditFile, `{"path":"secrets/fifo","old":"a","new":"b"}`},
		{ToolDeleteFile, `{"path":"secrets/fifo"}`},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			x, dir := newExecutor(t)
			fifo := filepath.Join(dir, "secrets", "fifo")
			if err := syscall.Mkfifo(fifo, 0o644); err != nil {
				t.Skipf("no FIFOs here: %v", err)
			}
			rec := executeUnopened(t, x, fifo, tc.tool, tc.args)
			if !rec.Gate.Blocked || rec.Gate.Stage != events.GateStagePolicy {
				t.Fatalf("not blocked by the gate: %+v", rec)
			}
		})
	}
}

// TestFifoLeftByACommandDoesNotHang: a command (run_command, or the
// repository's tests it runs) can leave a FIFO where a file was. Every
// tool that reads a file refuses it without opening it for a blocking
// read, which would hold the run until some process writes to it.
func TestFifoLeftByACommandDoesNotHang(t *testing.T) {
	for _, tc := range []struct{ tool, args string }{
		{ToolReadFile, `{"path":"main.go"}`},
		{ToolReadFile, `{"path":"main.go","start_line":1,"end_line":2}`},
		{ToolOpen, `{"path":"main.go","line":1}`},
		{ToolSymbols, `{"path":"main.go"}`},
		{ToolWriteFile, `{"path":"main.go","content":"x"}`},
		{ToolEditFile, `{"path":"main.go","old":"a","new":"b"}`},
		{ToolDeleteFile, `{"path":"main.go"}`},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			x, dir := newExecutor(t)
			fifo := filepath.Join(dir, "main.go")
			if err := os.Remove(fifo); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(fifo, 0o644); err != nil {
				t.Skipf("no FIFOs here: %v", err)
			}
			done := make(chan events.ToolExecution, 1)
			go func() {
				rec, _ := x.execute(context.Background(), 1, tc.tool, json.RawMessage(tc.args))
				done <- rec
			}()
			// Opening it without blocking, to find it is no file, is fine;
			// a call still waiting after a minute is waiting for a writer.
			select {
			case rec := <-done:
				if rec.Result.OK {
					t.Fatalf("a FIFO was used as a file: %+v", rec)
				}
			case <-time.After(time.Minute):
				if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					_ = w.Close() // lets the stuck reader go
				}
				<-done
				t.Fatal("the call waited on the FIFO")
			}
		})
	}
}

// executeUnopened runs one tool call and returns its record, failing the
// test when the call opens fifo for reading at all (a reader shows up as
// a writer that can open it without blocking) or does not finish.
func executeUnopened(t *testing.T, x *executor, fifo, tool, args string) events.ToolExecution {
	t.Helper()
	done := make(chan events.ToolExecution, 1)
	go func() {
		rec, _ := x.execute(context.Background(), 1, tool, json.RawMessage(args))
		done <- rec
	}()
	deadline := time.Now().Add(time.Minute)
	for {
		if time.Now().After(deadline) {
			t.Fatal("the call neither finished nor opened the file within a minute")
		}
		select {
		case rec := <-done:
			return rec
		default:
		}
		// A writer opens without blocking only when a reader is there.
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			_ = w.Close()
			<-done
			t.Fatal("the file was opened for a blocking read")
		} else if !errors.Is(err, syscall.ENXIO) {
			t.Fatal(err)
		}
		runtime.Gosched()
		time.Sleep(time.Millisecond) // poll interval, not a wait for a result
	}
}

// TestReadBounds: a line range does not lift the size cap on what is
// returned, and reads stream.
func TestReadBounds(t *testing.T) {
	x, dir := newExecutor(t)
	big := strings.Repeat(strings.Repeat("x", 99)+"\n", 6000) // 600 KB
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range []string{`{"path":"big.txt"}`, `{"path":"big.txt","start_line":1}`, `{"path":"big.txt","start_line":2,"end_line":5000}`} {
		rec, out := x.execute(context.Background(), 1, ToolReadFile, json.RawMessage(args))
		if rec.Result.OK || len(out) > maxModelOutput+100 {
			t.Errorf("%s: read %d bytes, ok=%v", args, len(out), rec.Result.OK)
		}
	}
	rec, out := x.execute(context.Background(), 1, ToolReadFile, json.RawMessage(`{"path":"big.txt","start_line":5999,"end_line":7000}`))
	if !rec.Result.OK || out != strings.Repeat(strings.Repeat("x", 99)+"\n", 2) {
		t.Errorf("tail range: ok=%v %q", rec.Result.OK, clip(out, 50))
	}
	rec, _ = x.execute(context.Background(), 1, ToolReadFile, json.RawMessage(`{"path":"big.txt","start_line":7000}`))
	if rec.Result.OK || !strings.Contains(rec.Result.Error, "past the end") {
		t.Errorf("range past the end: %+v", rec.Result)
	}
}

// TestSizeChecksComeBeforeReads: search and the write tools look at a
// file's size before reading it, so a huge file costs no memory.
func TestSizeChecksComeBeforeReads(t *testing.T) {
	x, dir := newExecutor(t)
	huge := filepath.Join(dir, "huge.txt")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	const size = 256 << 20 // sparse: no disk used
	if _, err := f.WriteAt([]byte("needle\n"), size-7); err != nil {
		t.Fatal(err)
	}
	_ = f.Close()
	for _, tc := range []struct{ tool, args, want string }{
		{ToolSearch, `{"query":"needle"}`, "no matches"},
		{ToolWriteFile, `{"path":"huge.txt","content":"x"}`, "is 268435456 bytes"},
		{ToolEditFile, `{"path":"huge.txt","old":"needle","new":"pin"}`, "is 268435456 bytes"},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, out := x.execute(context.Background(), 1, tc.tool, json.RawMessage(tc.args))
		runtime.ReadMemStats(&after)
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 32<<20 {
			t.Errorf("%s allocated %d MiB", tc.tool, grew>>20)
		}
		if !strings.Contains(out, tc.want) {
			t.Errorf("%s: %q, want %q", tc.tool, out, tc.want)
		}
	}
}

// TestGiantArgvIsRefusedAndRecordedSmall: one huge argument makes a tool
// error, and the record stays small.
func TestGiantArgvIsRefusedAndRecordedSmall(t *testing.T) {
	x, _ := newExecutor(t)
	huge := strings.Repeat("a", 1<<20)
	many := `"` + strings.Repeat(`x","`, 10000) + `x"`
	for _, args := range []string{
		`{"command":["go","test","` + huge + `"]}`,
		`{"command":["go","test",` + many + `]}`,
	} {
		rec, out := x.execute(context.Background(), 1, ToolRunCommand, json.RawMessage(args))
		b, _ := json.Marshal(rec)
		if rec.Result.OK || !strings.Contains(out, "command too long") || len(b) > 16<<10 {
			t.Errorf("record of %d bytes, output %q", len(b), clip(out, 200))
		}
	}
}

// TestCallAndReasonsAreRedacted: secrets in argv reach neither the recorded
// call nor the gate's reasons.
func TestCallAndReasonsAreRedacted(t *testing.T) {
	x, _ := newExecutor(t)
	token := "ghp_" + strings.Repeat("A", 36)
	for _, argv := range []string{
		`["curl","-H","Authorization: token ` + token + `","https://x"]`,
		`["` + token + `"]`,
		`["go","test","-run","` + token + `"]`,
		`["go","test","/abs/` + token + `"]`,
	} {
		rec, out := x.execute(context.Background(), 1, ToolRunCommand, json.RawMessage(`{"command":`+argv+`}`))
		b, _ := json.Marshal(rec)
		if strings.Contains(string(b), token) || strings.Contains(out, token) {
			t.Errorf("secret in the record of %s:\n%s\n%s", argv, b, out)
		}
	}
}

// TestRecordsStayBounded: whatever the model sends, one tool record stays
// a few KiB, so a build's records fit in an event.
func TestRecordsStayBounded(t *testing.T) {
	x, _ := newExecutor(t)
	nested := strings.Repeat(`[`, 200) + strings.Repeat(`"`+strings.Repeat("b", 400)+`",`, 60) + `1` + strings.Repeat(`]`, 200)
	wide := `{` + strings.Repeat(`"k`, 1) + `0":1`
	for i := 1; i < 5000; i++ {
		wide += `,"k` + strings.Repeat("z", i%50) + string(rune('a'+i%26)) + `":"` + strings.Repeat("v", 300) + `"`
	}
	wide += `}`
	for _, args := range []string{
		`{"command":["go","test",` + strings.Repeat(`"`+strings.Repeat("c", 500)+`",`, 200) + `"x"]}`,
		`{"path":` + nested + `}`,
		wide,
		`{"path":"` + strings.Repeat("d/", 5000) + `x"}`,
	} {
		for _, tool := range []string{ToolRunCommand, ToolReadFile, ToolWriteFile} {
			rec, _ := x.execute(context.Background(), 1, tool, json.RawMessage(args))
			if b, _ := json.Marshal(rec); len(b) > 24<<10 {
				t.Errorf("%s record is %d bytes", tool, len(b))
			}
		}
	}
}

// TestRecordedCallIsTheGateInput: the recorded call decodes to the call the
// gate judged, so audit simulation can evaluate it again.
func TestRecordedCallIsTheGateInput(t *testing.T) {
	x, _ := newExecutor(t)
	for _, tc := range []struct{ tool, args string }{
		{ToolReadFile, `{"path":"main.go"}`},
		{ToolEditFile, `{"path":"main.go","old":"func main() {}","new":"func main() { println(1) }"}`},
		{ToolRunCommand, `{"command":["gofmt","-l","."]}`},
		{ToolWriteFile, `{"path":"secrets/key.pem","content":"x"}`},
	} {
		rec, _ := x.execute(context.Background(), 1, tc.tool, json.RawMessage(tc.args))
		var call policy.ToolCall
		if err := json.Unmarshal(rec.Call, &call); err != nil || call.Tool != tc.tool {
			t.Fatalf("%s: recorded call %s: %v", tc.tool, rec.Call, err)
		}
		if d := x.policy.Evaluate(call); d.Blocked != rec.Gate.Blocked || !slices.Equal(d.Reasons, rec.Gate.Reasons) {
			t.Errorf("%s: re-evaluated %+v, recorded %+v", tc.tool, d, rec.Gate)
		}
	}
}
