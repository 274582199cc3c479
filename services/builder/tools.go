package builder

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
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
	maxReadBytes     = 256 << 10
	maxWriteBytes    = 1 << 20
	maxModelOutput   = 16 << 10
	maxRecordOutput  = 1 << 10
	maxSearchMatches = 50
	maxListEntries   = 500
	elideArgsOver    = 512
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
	env        []string
	cmdTimeout time.Duration
	// totalLines counts changed lines in the attempt so far.
	totalLines int
	// realPath is the real relative path of the last decoded path argument.
	realPath string
	// confirmDestructive, when set and true, makes destructive calls need
	// approval (high anxiety, protocol §3.1).
	confirmDestructive func() bool
}

// execute runs one tool call and returns its record and the full output
// for the model.
func (x *executor) execute(ctx context.Context, step int, tool string, args json.RawMessage) (events.ToolExecution, string) {
	rec := events.ToolExecution{Step: step, Tool: tool, Args: x.recordArgs(args)}
	start := time.Now()
	call, run, err := x.prepare(tool, args)
	callJSON, _ := json.Marshal(call)
	rec.Call = callJSON
	if err != nil {
		if errors.Is(err, workspace.ErrPathEscapes) {
			// Path safety refused it: a block, decided before the policy.
			rec.Gate = events.GateDecision{Stage: events.GateStageWorkspace, Blocked: true, Reasons: []string{err.Error()},
				PolicyHash: x.policyHash, Evaluator: policy.EvaluatorVersion}
		} else {
			// A malformed call: a tool error the model can correct, not a block.
			rec.Gate = events.GateDecision{Stage: events.GateStageArguments}
		}
		rec.Result = events.ToolResult{OK: false, Error: err.Error(), DurationMS: time.Since(start).Milliseconds()}
		return rec, "error: " + err.Error()
	}
	if reason := protocolRefusal(call); reason != "" {
		rec.Gate = events.GateDecision{Stage: events.GateStageProtocol, Blocked: true, Reasons: []string{reason}, PolicyHash: x.policyHash, Evaluator: policy.EvaluatorVersion}
		msg := "refused by the cognitive protocol's file policy: " + reason
		rec.Result = events.ToolResult{OK: false, Error: msg, DurationMS: time.Since(start).Milliseconds()}
		return rec, "error: " + msg
	}
	d := x.policy.Evaluate(call)
	d = x.heuristicGate(call, d)
	rec.Gate = events.GateDecision{Stage: events.GateStagePolicy, Blocked: d.Blocked, Reasons: d.Reasons, Warnings: d.Warnings, PolicyHash: x.policyHash, Evaluator: policy.EvaluatorVersion}
	if d.Blocked {
		msg := "blocked by policy: " + strings.Join(d.Reasons, "; ")
		rec.Result = events.ToolResult{OK: false, Error: msg, DurationMS: time.Since(start).Milliseconds()}
		return rec, "error: " + msg
	}
	out, err := run(ctx)
	rec.Result = events.ToolResult{OK: err == nil, DurationMS: time.Since(start).Milliseconds()}
	if err != nil {
		rec.Result.Error = x.redactor.String(err.Error())
		return rec, "error: " + rec.Result.Error
	}
	if call.Writes {
		x.totalLines = call.TotalChangedLines
	}
	out = x.redactor.String(out)
	rec.Result.Output = clip(out, maxRecordOutput)
	return rec, clip(out, maxModelOutput)
}

// prepare decodes the arguments strictly, resolves paths inside the
// workspace, and returns the gate's view of the call and the action to run
// if the gate allows it.
func (x *executor) prepare(tool string, raw json.RawMessage) (policy.ToolCall, func(context.Context) (string, error), error) {
	call := policy.ToolCall{Tool: tool}
	switch tool {
	case ToolReadFile:
		var a struct {
			Path      string `json:"path"`
			StartLine int    `json:"start_line"`
			EndLine   int    `json:"end_line"`
		}
		p, err := x.decodePath(raw, &a, &a.Path)
		if err != nil {
			return call, nil, err
		}
		call.Paths = x.gatePaths(a.Path)
		return call, func(context.Context) (string, error) { return readFile(p, a.StartLine, a.EndLine) }, nil
	case ToolWriteFile:
		var a struct {
			Path    string `json:"path"`
			Content string `json:"content"`
		}
		p, err := x.decodePath(raw, &a, &a.Path)
		if err != nil {
			return call, nil, err
		}
		if len(a.Content) > maxWriteBytes {
			return call, nil, fmt.Errorf("%w: content is %d bytes (max %d)", errTool, len(a.Content), maxWriteBytes)
		}
		old, _ := os.ReadFile(p)
		x.fillWrite(&call, a.Path, string(old), a.Content)
		return call, func(context.Context) (string, error) { return writeFile(p, a.Content) }, nil
	case ToolEditFile:
		var a struct {
			Path string `json:"path"`
			Old  string `json:"old"`
			New  string `json:"new"`
		}
		p, err := x.decodePath(raw, &a, &a.Path)
		if err != nil {
			return call, nil, err
		}
		old, err := os.ReadFile(p)
		if err != nil {
			return call, nil, fmt.Errorf("%w: %s: %v", errTool, a.Path, notExist(err))
		}
		if a.Old == "" {
			return call, nil, fmt.Errorf("%w: old text must not be empty", errTool)
		}
		if n := strings.Count(string(old), a.Old); n != 1 {
			return call, nil, fmt.Errorf("%w: old text occurs %d times in %s (must be exactly once)", errTool, n, a.Path)
		}
		next := strings.Replace(string(old), a.Old, a.New, 1)
		x.fillWrite(&call, a.Path, string(old), next)
		return call, func(context.Context) (string, error) { return writeFile(p, next) }, nil
	case ToolDeleteFile:
		var a struct {
			Path string `json:"path"`
		}
		p, err := x.decodePath(raw, &a, &a.Path)
		if err != nil {
			return call, nil, err
		}
		old, _ := os.ReadFile(p)
		x.fillWrite(&call, a.Path, string(old), "")
		call.Deletes = true
		return call, func(context.Context) (string, error) {
			if err := os.Remove(p); err != nil {
				return "", fmt.Errorf("%w: %v", errTool, notExist(err))
			}
			return "deleted " + a.Path, nil
		}, nil
	case ToolListDir:
		var a struct {
			Path string `json:"path"`
		}
		if err := strictDecode(raw, &a); err != nil {
			return call, nil, err
		}
		if a.Path == "" {
			raw = json.RawMessage(`{"path":"."}`)
		}
		p, err := x.decodePath(raw, &a, &a.Path)
		if err != nil {
			return call, nil, err
		}
		call.Paths = x.gatePaths(a.Path)
		return call, func(context.Context) (string, error) { return listDir(p) }, nil
	case ToolSearch:
		var a struct {
			Query string `json:"query"`
		}
		if err := strictDecode(raw, &a); err != nil {
			return call, nil, err
		}
		if a.Query == "" {
			return call, nil, fmt.Errorf("%w: query is required", errTool)
		}
		return call, func(context.Context) (string, error) { return search(x.ws.Dir, a.Query, x.readable) }, nil
	case ToolRunCommand:
		var a struct {
			Command []string `json:"command"`
		}
		if err := strictDecode(raw, &a); err != nil {
			return call, nil, err
		}
		if len(a.Command) == 0 || a.Command[0] == "" {
			return call, nil, fmt.Errorf("%w: command is required", errTool)
		}
		call.Command = a.Command
		return call, func(ctx context.Context) (string, error) {
			res, err := workspace.Run(ctx, x.ws.Dir, a.Command, x.env, x.cmdTimeout, maxModelOutput)
			if err != nil {
				return "", fmt.Errorf("%w: %v", errTool, err)
			}
			return fmt.Sprintf("exit code %d\n%s", res.ExitCode, res.Output), nil
		}, nil
	default:
		return call, nil, fmt.Errorf("%w: unknown tool %q (have %s)", errTool, tool, strings.Join(toolNames(), ", "))
	}
}

func toolNames() []string {
	return []string{ToolReadFile, ToolWriteFile, ToolEditFile, ToolDeleteFile, ToolListDir, ToolSearch, ToolRunCommand}
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

func (x *executor) fillWrite(call *policy.ToolCall, path, old, next string) {
	call.Paths = x.gatePaths(path)
	call.Writes = true
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

// recordArgs is the audit copy of the arguments: long text replaced by its
// size and digest, secrets redacted.
func (x *executor) recordArgs(raw json.RawMessage) json.RawMessage {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return json.RawMessage(`{"invalid_json":true}`)
	}
	for k, v := range m {
		if s, ok := v.(string); ok && len(s) > elideArgsOver {
			sum := sha256.Sum256([]byte(s))
			m[k] = fmt.Sprintf("[%d bytes sha256:%s]", len(s), hex.EncodeToString(sum[:8]))
		}
	}
	out, err := json.Marshal(m)
	if err != nil {
		return json.RawMessage(`{}`)
	}
	if red, err := x.redactor.JSON(out); err == nil {
		return red
	}
	return out
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

func readFile(p string, start, end int) (string, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return "", fmt.Errorf("%w: %v", errTool, notExist(err))
	}
	if fi.IsDir() {
		return "", fmt.Errorf("%w: is a directory", errTool)
	}
	if fi.Size() > maxReadBytes && start == 0 {
		return "", fmt.Errorf("%w: file is %d bytes; read a line range", errTool, fi.Size())
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return "", fmt.Errorf("%w: %v", errTool, err)
	}
	if start <= 0 && end <= 0 {
		return string(data), nil
	}
	lines := strings.SplitAfter(string(data), "\n")
	if start < 1 {
		start = 1
	}
	if end <= 0 || end > len(lines) {
		end = len(lines)
	}
	if start > end {
		return "", fmt.Errorf("%w: line range %d-%d is empty", errTool, start, end)
	}
	return strings.Join(lines[start-1:end], ""), nil
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
		data, err := os.ReadFile(p)
		if err != nil || bytes.IndexByte(data, 0) >= 0 || len(data) > maxReadBytes {
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
	if len(matches) == 0 {
		return "no matches", nil
	}
	return strings.Join(matches, "\n"), nil
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
