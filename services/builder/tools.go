package builder

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/policy"
	"github.com/codali-dev/codali/pkg/redact"
	"github.com/codali-dev/codali/pkg/workspace"
)

// Tool names the builder's model may call.
const (
	ToolReadFile   = "read_file"
	ToolWriteFile  = "write_file"
	ToolEditFile   = "edit_file"
	ToolDeleteFile = "delete_file"
	ToolListDir    = "list_dir"
	ToolSearch     = "search"
	ToolRunCommand = "run_command"
)

// Limits of tool I/O.
const (
	// maxReadBytes bounds what read_file returns and the files search
	// looks into.
	maxReadBytes = 256 << 10
	// maxScanBytes bounds how far read_file reads into a file to find a
	// line range.
	maxScanBytes = 64 << 20
	// maxSearchBytes bounds the bytes one search reads in total.
	maxSearchBytes = 64 << 20
	// maxQueryBytes bounds a search query.
	maxQueryBytes = 1 << 10
	// maxWriteBytes bounds written content and the old content a write,
	// edit or delete reads to count its changed lines.
	maxWriteBytes = 1 << 20
	// maxPathBytes bounds a path argument.
	maxPathBytes     = 4 << 10
	maxModelOutput   = 16 << 10
	maxRecordOutput  = 1 << 10
	maxSearchMatches = 50
	maxListEntries   = 500
	// elideArgsOver: recorded strings longer than this are replaced by
	// their size and digest.
	elideArgsOver = 512
	// maxRecordedItems bounds the elements of a recorded array (argv) and
	// the keys of a recorded object.
	maxRecordedItems = 64
	// maxRecordedArgs bounds the recorded arguments of one call; larger
	// ones are recorded as their size and digest only.
	maxRecordedArgs = 4 << 10
)

// errTool is wrapped by tool errors reported back to the model.
var errTool = errors.New("tool error")

// executor runs the model's tool calls in one workspace, behind the policy
// gate, and records each one.
type executor struct {
	ws         *workspace.Workspace
	policy     *policy.Policy
	policyHash string
	redactor   *redact.Redactor
	runCommand commandRunner
	cmdTimeout time.Duration
	// totalLines counts changed lines in the attempt so far.
	totalLines int
	// realPath is the real relative path of the last decoded path argument.
	realPath string
	// retrieval backs search, open, symbols and tree (retrieval.go); nil
	// uses the built-in index without a disk cache.
	retrieval *retrieval
	// confirmDestructive, when set and true, makes destructive calls need
	// approval (high anxiety, protocol §3.1).
	confirmDestructive func() bool
}

// pending is a decoded tool call waiting for the gate: the gate's view of
// the call before any file is read, an optional measure step that reads
// what the call needs (old contents, to count changed lines) and fills in
// the rest of the view, and the action to run once the gate allows it.
type pending struct {
	call    policy.ToolCall
	measure func(*policy.ToolCall) error
	run     func(context.Context) (string, error)
}

// execute runs one tool call and returns its record and the full output
// for the model. The gate decides on the paths before any file is read;
// calls that need old contents (write, edit, delete) are decided again
// once their line counts are known.
func (x *executor) execute(ctx context.Context, step int, tool string, args json.RawMessage) (events.ToolExecution, string) {
	rec := events.ToolExecution{Step: step, Tool: tool, Args: x.recordArgs(args)}
	start := time.Now()
	pc, err := x.prepare(tool, args)
	rec.Call = x.recordCall(pc.call)
	fail := func(err error) (events.ToolExecution, string) {
		rec.Result = events.ToolResult{OK: false, Error: x.redactor.String(err.Error()), DurationMS: time.Since(start).Milliseconds()}
		return rec, "error: " + rec.Result.Error
	}
	if err != nil {
		if errors.Is(err, workspace.ErrPathEscapes) {
			// Path safety refused it: a block, decided before the policy.
			rec.Gate = events.GateDecision{Stage: events.GateStageWorkspace, Blocked: true, Reasons: []string{x.redactor.String(err.Error())},
				PolicyHash: x.policyHash, Evaluator: policy.EvaluatorVersion}
		} else {
			// A malformed call: a tool error the model can correct, not a block.
			rec.Gate = events.GateDecision{Stage: events.GateStageArguments}
		}
		return fail(err)
	}
	if reason := protocolRefusal(pc.call); reason != "" {
		rec.Gate = events.GateDecision{Stage: events.GateStageProtocol, Blocked: true, Reasons: []string{reason}, PolicyHash: x.policyHash, Evaluator: policy.EvaluatorVersion}
		return fail(errors.New("refused by the cognitive protocol's file policy: " + reason))
	}
	d := x.decide(&rec, pc.call)
	if !d.Blocked && pc.measure != nil {
		if err := pc.measure(&pc.call); err != nil {
			rec.Gate = events.GateDecision{Stage: events.GateStageArguments}
			return fail(err)
		}
		rec.Call = x.recordCall(pc.call)
		d = x.decide(&rec, pc.call)
	}
	if d.Blocked {
		return fail(errors.New("blocked by policy: " + strings.Join(d.Reasons, "; ")))
	}
	out, err := pc.run(ctx)
	if err != nil {
		return fail(err)
	}
	rec.Result = events.ToolResult{OK: true, DurationMS: time.Since(start).Milliseconds()}
	if pc.call.Writes {
		x.totalLines = pc.call.TotalChangedLines
	}
	out = x.redactor.String(out)
	rec.Result.Output = clip(out, maxRecordOutput)
	return rec, clip(out, maxModelOutput)
}

// decide evaluates call and records the decision, redacted, in rec.
func (x *executor) decide(rec *events.ToolExecution, call policy.ToolCall) policy.Decision {
	d := x.heuristicGate(call, x.policy.Evaluate(call))
	d.Reasons, d.Warnings = x.redactAll(d.Reasons), x.redactAll(d.Warnings)
	rec.Gate = events.GateDecision{Stage: events.GateStagePolicy, Blocked: d.Blocked, Reasons: d.Reasons, Warnings: d.Warnings,
		PolicyHash: x.policyHash, Evaluator: policy.EvaluatorVersion}
	return d
}

func (x *executor) redactAll(in []string) []string {
	for i, s := range in {
		in[i] = x.redactor.String(s)
	}
	return in
}

// prepare decodes the arguments strictly and resolves paths inside the
// workspace, without reading any file, and returns the gate's view of the
// call with what to do next.
func (x *executor) prepare(tool string, raw json.RawMessage) (pending, error) {
	pc := pending{call: policy.ToolCall{Tool: tool}}
	call := &pc.call
	switch tool {
	case ToolReadFile:
		var a struct {
			Path      string `json:"path"`
			StartLine int    `json:"start_line"`
			EndLine   int    `json:"end_line"`
		}
		p, err := x.decodePath(raw, &a, &a.Path)
		if err != nil {
			return pc, err
		}
		call.Paths = x.gatePaths(a.Path)
		pc.run = func(context.Context) (string, error) { return readFile(p, a.StartLine, a.EndLine) }
		return pc, nil
	case ToolWriteFile:
		var a struct {
			Path    string `json:"path"`
			Content string `json:"content"`
		}
		p, err := x.decodePath(raw, &a, &a.Path)
		if err != nil {
			return pc, err
		}
		if len(a.Content) > maxWriteBytes {
			return pc, fmt.Errorf("%w: content is %d bytes (max %d)", errTool, len(a.Content), maxWriteBytes)
		}
		x.fillWrite(call, a.Path)
		pc.measure = func(call *policy.ToolCall) error {
			old, err := readOld(p, a.Path, true)
			if err != nil {
				return err
			}
			x.countLines(call, old, a.Content)
			return nil
		}
		pc.run = func(context.Context) (string, error) { return writeFile(p, a.Content) }
		return pc, nil
	case ToolEditFile:
		var a struct {
			Path string `json:"path"`
			Old  string `json:"old"`
			New  string `json:"new"`
		}
		p, err := x.decodePath(raw, &a, &a.Path)
		if err != nil {
			return pc, err
		}
		if a.Old == "" {
			return pc, fmt.Errorf("%w: old text must not be empty", errTool)
		}
		if len(a.New) > maxWriteBytes {
			return pc, fmt.Errorf("%w: new text is %d bytes (max %d)", errTool, len(a.New), maxWriteBytes)
		}
		x.fillWrite(call, a.Path)
		var next string
		pc.measure = func(call *policy.ToolCall) error {
			old, err := readOld(p, a.Path, false)
			if err != nil {
				return err
			}
			if n := strings.Count(old, a.Old); n != 1 {
				return fmt.Errorf("%w: old text occurs %d times in %s (must be exactly once)", errTool, n, a.Path)
			}
			next = strings.Replace(old, a.Old, a.New, 1)
			if len(next) > maxWriteBytes {
				return fmt.Errorf("%w: the edited file would be %d bytes (max %d)", errTool, len(next), maxWriteBytes)
			}
			x.countLines(call, old, next)
			return nil
		}
		pc.run = func(context.Context) (string, error) { return writeFile(p, next) }
		return pc, nil
	case ToolDeleteFile:
		var a struct {
			Path string `json:"path"`
		}
		p, err := x.decodePath(raw, &a, &a.Path)
		if err != nil {
			return pc, err
		}
		x.fillWrite(call, a.Path)
		call.Deletes = true
		pc.measure = func(call *policy.ToolCall) error {
			n, err := countFileLines(p)
			if err != nil {
				return fmt.Errorf("%w: %s: %v", errTool, a.Path, notExist(err))
			}
			call.ChangedLines = n
			call.TotalChangedLines = x.totalLines + n
			return nil
		}
		pc.run = func(context.Context) (string, error) {
			if err := os.Remove(p); err != nil {
				return "", fmt.Errorf("%w: %v", errTool, notExist(err))
			}
			return "deleted " + a.Path, nil
		}
		return pc, nil
	case ToolListDir:
		var a struct {
			Path string `json:"path"`
		}
		if err := strictDecode(raw, &a); err != nil {
			return pc, err
		}
		if a.Path == "" {
			raw = json.RawMessage(`{"path":"."}`)
		}
		p, err := x.decodePath(raw, &a, &a.Path)
		if err != nil {
			return pc, err
		}
		call.Paths = x.gatePaths(a.Path)
		pc.run = func(context.Context) (string, error) { return listDir(p) }
		return pc, nil
	case ToolSearch:
		var a struct {
			Query   string `json:"query"`
			Literal bool   `json:"literal"`
		}
		if err := strictDecode(raw, &a); err != nil {
			return pc, err
		}
		if a.Query == "" {
			return pc, fmt.Errorf("%w: query is required", errTool)
		}
		if len(a.Query) > maxQueryBytes {
			return pc, fmt.Errorf("%w: query is %d bytes (max %d)", errTool, len(a.Query), maxQueryBytes)
		}
		if !a.Literal {
			pc.run = func(ctx context.Context) (string, error) { return x.rankedSearch(ctx, a.Query) }
			return pc, nil
		}
		pc.run = func(context.Context) (string, error) { return search(x.ws.Dir, a.Query, x.readable) }
		return pc, nil
	case ToolRunCommand:
		var a struct {
			Command []string `json:"command"`
		}
		if err := strictDecode(raw, &a); err != nil {
			return pc, err
		}
		if len(a.Command) == 0 || a.Command[0] == "" {
			return pc, fmt.Errorf("%w: command is required", errTool)
		}
		if err := policy.CheckArgvSize(a.Command); err != nil {
			return pc, fmt.Errorf("%w: %w", errTool, err)
		}
		call.Command = a.Command
		pc.run = func(ctx context.Context) (string, error) {
			res, err := x.runCommand(ctx, x.ws, a.Command, x.cmdTimeout, maxModelOutput)
			if err != nil {
				return "", fmt.Errorf("%w: %v", errTool, err)
			}
			return fmt.Sprintf("exit code %d\n%s", res.ExitCode, res.Output), nil
		}
		return pc, nil
	default:
		if pr, ok, err := x.prepareRetrieval(tool, raw); ok {
			return pr, err
		}
		return pc, fmt.Errorf("%w: unknown tool %q (have %s)", errTool, clip(tool, 64), strings.Join(toolNames(), ", "))
	}
}

func toolNames() []string {
	return append([]string{ToolReadFile, ToolWriteFile, ToolEditFile, ToolDeleteFile, ToolListDir, ToolSearch, ToolRunCommand}, retrievalToolNames()...)
}

// decodePath decodes args strictly and resolves the path field inside the
// workspace. The gate sees the cleaned relative path.
func (x *executor) decodePath(raw json.RawMessage, v any, path *string) (string, error) {
	if err := strictDecode(raw, v); err != nil {
		return "", err
	}
	if *path == "" {
		return "", fmt.Errorf("%w: path is required", errTool)
	}
	if len(*path) > maxPathBytes {
		return "", fmt.Errorf("%w: path is %d bytes (max %d)", errTool, len(*path), maxPathBytes)
	}
	clean, err := workspace.Clean(*path)
	if err != nil {
		return "", err
	}
	p, real, err := x.ws.RealRel(clean)
	if err != nil {
		return "", err
	}
	*path = clean
	x.realPath = real
	return p, nil
}

// gatePaths is what the gate judges for a path argument: the path as asked
// and, when a symlink leads elsewhere inside the workspace, the real path,
// so an alias cannot reach a file the policy protects.
func (x *executor) gatePaths(asked string) []string {
	if x.realPath != "" && x.realPath != asked {
		return []string{asked, x.realPath}
	}
	return []string{asked}
}

// readable reports whether the policy lets the model read a file; search
// uses it so that protected files never show up in results.
func (x *executor) readable(rel string) bool {
	return !x.policy.Evaluate(policy.ToolCall{Tool: ToolReadFile, Paths: []string{rel}}).Blocked
}

// fillWrite fills in the gate's first view of a write: the paths, before
// anything is read.
func (x *executor) fillWrite(call *policy.ToolCall, path string) {
	call.Paths = x.gatePaths(path)
	call.Writes = true
}

// countLines completes a write's view with its line counts.
func (x *executor) countLines(call *policy.ToolCall, old, next string) {
	call.ChangedLines = changedLines(old, next)
	call.TotalChangedLines = x.totalLines + call.ChangedLines
}

func strictDecode(raw json.RawMessage, v any) error {
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: bad arguments: %v", errTool, err)
	}
	return nil
}

// recordArgs is the audit copy of the arguments: long strings at any
// depth replaced by their size and digest, long arrays and objects cut with
// a marker, secrets redacted.
func (x *executor) recordArgs(raw json.RawMessage) json.RawMessage {
	var v any
	if len(raw) > maxWriteBytes*2 || json.Unmarshal(raw, &v) != nil {
		return json.RawMessage(`{"invalid_json":true}`)
	}
	out := x.recordJSON(bound(v, 0))
	if len(out) > maxRecordedArgs {
		sum := sha256.Sum256(raw)
		elided, _ := json.Marshal(map[string]string{"elided": fmt.Sprintf("[%d bytes sha256:%s]", len(raw), hex.EncodeToString(sum[:8]))})
		return elided
	}
	return out
}

// recordCall is the audit copy of the gate's view of a call, bounded and
// redacted like the arguments. Calls within the gate's argv limits are
// recorded whole, so audit simulation sees what the gate saw.
func (x *executor) recordCall(call policy.ToolCall) json.RawMessage {
	raw, err := json.Marshal(call)
	if err != nil {
		return json.RawMessage(`{}`)
	}
	if policy.CheckArgvSize(call.Command) == nil && len(call.Paths) <= maxRecordedItems {
		return x.recordJSON(json.RawMessage(raw))
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return json.RawMessage(`{}`)
	}
	return x.recordJSON(bound(v, 0))
}

// recordJSON encodes v (or takes raw JSON) and redacts it.
func (x *executor) recordJSON(v any) json.RawMessage {
	out, ok := v.(json.RawMessage)
	if !ok {
		var err error
		if out, err = json.Marshal(v); err != nil {
			return json.RawMessage(`{}`)
		}
	}
	if red, err := x.redactor.JSON(out); err == nil {
		return red
	}
	return out
}

// bound returns a copy of a decoded JSON value with strings longer than
// elideArgsOver replaced by "[N bytes sha256:…]", arrays cut to
// maxRecordedItems elements plus a "[… N more]" marker, objects cut to
// maxRecordedItems keys, and nesting below 16 levels replaced by a marker.
func bound(v any, depth int) any {
	if depth > 16 {
		return "[nested too deeply]"
	}
	switch t := v.(type) {
	case string:
		if len(t) > elideArgsOver {
			sum := sha256.Sum256([]byte(t))
			return fmt.Sprintf("[%d bytes sha256:%s]", len(t), hex.EncodeToString(sum[:8]))
		}
		return t
	case []any:
		n := min(len(t), maxRecordedItems)
		out := make([]any, 0, n+1)
		for _, e := range t[:n] {
			out = append(out, bound(e, depth+1))
		}
		if len(t) > n {
			out = append(out, fmt.Sprintf("[… %d more]", len(t)-n))
		}
		return out
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		out := make(map[string]any, min(len(keys), maxRecordedItems)+1)
		for i, k := range keys {
			if i == maxRecordedItems {
				out["…"] = fmt.Sprintf("[%d more keys]", len(keys)-i)
				break
			}
			key := k
			if len(key) > elideArgsOver {
				key = bound(key, depth+1).(string)
			}
			out[key] = bound(t[k], depth+1)
		}
		return out
	}
	return v
}

// changedLines counts lines removed plus lines added between two texts,
// comparing them as multisets of lines (order-insensitive, deterministic).
func changedLines(old, next string) int {
	count := map[string]int{}
	for _, l := range splitLines(old) {
		count[l]++
	}
	added := 0
	for _, l := range splitLines(next) {
		if count[l] > 0 {
			count[l]--
		} else {
			added++
		}
	}
	removed := 0
	for _, n := range count {
		removed += n
	}
	return added + removed
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// readFile returns a file, or the lines start..end of it (1-based,
// inclusive; 0 means the file's start or end). Whole reads need a file of
// at most maxReadBytes; a line range is read by streaming, at most
// maxScanBytes into the file, and must itself fit in maxReadBytes.
func readFile(p string, start, end int) (string, error) {
	f, fi, err := workspace.OpenRegular(p)
	if err != nil {
		return "", fmt.Errorf("%w: %v", errTool, notExist(err))
	}
	defer func() { _ = f.Close() }()
	if start <= 0 && end <= 0 {
		if fi.Size() > maxReadBytes {
			return "", fmt.Errorf("%w: file is %d bytes; read a line range", errTool, fi.Size())
		}
		data, err := io.ReadAll(io.LimitReader(f, maxReadBytes+1))
		if err != nil {
			return "", fmt.Errorf("%w: %v", errTool, err)
		}
		if len(data) > maxReadBytes {
			return "", fmt.Errorf("%w: file is over %d bytes; read a line range", errTool, maxReadBytes)
		}
		return string(data), nil
	}
	if start < 1 {
		start = 1
	}
	if end > 0 && start > end {
		return "", fmt.Errorf("%w: line range %d-%d is empty", errTool, start, end)
	}
	return readLines(f, start, end)
}

// readLines streams r and returns lines start..end (end 0: to the end).
func readLines(r io.Reader, start, end int) (string, error) {
	br := bufio.NewReaderSize(io.LimitReader(r, maxScanBytes+1), 64<<10)
	var out strings.Builder
	line, scanned := 1, 0
	for end <= 0 || line <= end {
		chunk, err := br.ReadSlice('\n')
		scanned += len(chunk)
		if scanned > maxScanBytes {
			return "", fmt.Errorf("%w: line %d is more than %d bytes into the file; the file is too large to read", errTool, start, maxScanBytes)
		}
		if line >= start {
			if out.Len()+len(chunk) > maxReadBytes {
				return "", fmt.Errorf("%w: lines %d-%d are over %d bytes; read a smaller range", errTool, start, line, maxReadBytes)
			}
			out.Write(chunk)
		}
		switch {
		case err == nil:
			line++
		case errors.Is(err, bufio.ErrBufferFull):
			// the same line continues in the next chunk
		case errors.Is(err, io.EOF):
			if line < start || (line == start && out.Len() == 0 && len(chunk) == 0) {
				return "", fmt.Errorf("%w: line range %d-%d is past the end of the file (%d lines)", errTool, start, end, max(line-1, 0))
			}
			return out.String(), nil
		default:
			return "", fmt.Errorf("%w: %v", errTool, err)
		}
	}
	return out.String(), nil
}

// readOld reads the current content of a file a write, edit or delete
// replaces, refusing files over maxWriteBytes before reading them. A
// missing file is empty when missingOK.
func readOld(p, rel string, missingOK bool) (string, error) {
	f, fi, err := workspace.OpenRegular(p)
	if err != nil {
		if missingOK && errors.Is(err, fs.ErrNotExist) {
			return "", nil
		}
		return "", fmt.Errorf("%w: %s: %v", errTool, rel, notExist(err))
	}
	defer func() { _ = f.Close() }()
	if fi.Size() > maxWriteBytes {
		return "", fmt.Errorf("%w: %s is %d bytes (max %d)", errTool, rel, fi.Size(), maxWriteBytes)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxWriteBytes+1))
	if err != nil {
		return "", fmt.Errorf("%w: %s: %v", errTool, rel, err)
	}
	if len(data) > maxWriteBytes {
		return "", fmt.Errorf("%w: %s is over %d bytes", errTool, rel, maxWriteBytes)
	}
	return string(data), nil
}

// countFileLines counts a file's lines by streaming it (the lines a delete
// removes), without holding it in memory.
func countFileLines(p string) (int, error) {
	f, _, err := workspace.OpenRegular(p)
	if err != nil {
		return 0, err
	}
	defer func() { _ = f.Close() }()
	buf := make([]byte, 64<<10)
	lines, last := 0, byte('\n')
	for {
		n, err := f.Read(buf)
		if n > 0 {
			lines += bytes.Count(buf[:n], []byte{'\n'})
			last = buf[n-1]
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, err
		}
	}
	if last != '\n' {
		lines++ // a last line without a newline
	}
	return lines, nil
}

func writeFile(p, content string) (string, error) {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return "", fmt.Errorf("%w: %v", errTool, err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		return "", fmt.Errorf("%w: %v", errTool, err)
	}
	return fmt.Sprintf("wrote %d bytes", len(content)), nil
}

func listDir(p string) (string, error) {
	entries, err := os.ReadDir(p)
	if err != nil {
		return "", fmt.Errorf("%w: %v", errTool, notExist(err))
	}
	var b strings.Builder
	for i, e := range entries {
		if e.Name() == ".git" {
			continue
		}
		if i == maxListEntries {
			fmt.Fprintf(&b, "… %d more\n", len(entries)-i)
			break
		}
		name := e.Name()
		if e.IsDir() {
			name += "/"
		}
		b.WriteString(name + "\n")
	}
	return b.String(), nil
}

// search finds a literal string in the workspace's text files that
// readable allows.
func search(root, query string, readable func(rel string) bool) (string, error) {
	var matches []string
	budget, truncated := int64(maxSearchBytes), false
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || len(matches) >= maxSearchMatches {
			return nil
		}
		if d.IsDir() {
			if d.Name() == ".git" || d.Name() == ".context" {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		if !readable(filepath.ToSlash(rel)) {
			return nil
		}
		// Sizes are checked before reading: big files are skipped, and the
		// whole search reads at most maxSearchBytes.
		info, err := d.Info()
		if err != nil || info.Size() > maxReadBytes {
			return nil
		}
		if budget -= info.Size(); budget < 0 {
			truncated = true
			return filepath.SkipAll
		}
		data, err := readAtMost(p, maxReadBytes)
		if err != nil || bytes.IndexByte(data, 0) >= 0 {
			return nil
		}
		for i, line := range strings.Split(string(data), "\n") {
			if strings.Contains(line, query) {
				matches = append(matches, fmt.Sprintf("%s:%d: %s", filepath.ToSlash(rel), i+1, strings.TrimSpace(line)))
				if len(matches) >= maxSearchMatches {
					break
				}
			}
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("%w: %v", errTool, err)
	}
	sort.Strings(matches)
	note := ""
	if truncated {
		note = fmt.Sprintf("\n(search stopped after reading %d bytes; narrow the query or read files directly)", maxSearchBytes)
	}
	if len(matches) == 0 {
		return "no matches" + note, nil
	}
	return strings.Join(matches, "\n") + note, nil
}

// readAtMost reads a file, failing if it holds more than limit bytes.
func readAtMost(p string, limit int64) ([]byte, error) {
	f, _, err := workspace.OpenRegular(p)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%w: file is over %d bytes", errTool, limit)
	}
	return data, nil
}

func notExist(err error) string {
	if errors.Is(err, fs.ErrNotExist) {
		return "no such file or directory"
	}
	return err.Error()
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("…[%d more bytes]", len(s)-n)
}
