package policy

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
)

// testPolicy is a policy exercising every rule.
func testPolicy(t *testing.T) *Policy {
	t.Helper()
	p := &Policy{
		NeverTouch: []string{".git/**", "**/*.pem", "secrets/**"},
		AlwaysAllow: Scope{
			Tools: []string{"format_file"},
			Paths: []string{"docs/**"},
		},
		RequireApprovalFor: Scope{
			Tools: []string{"format_file", "install_deps"},
			Paths: []string{"**/go.mod", "docs/**", ".github/**"},
		},
		Commands: Commands{Allow: [][]string{
			{"go", "test"},
			{"go", "vet"},
			{"gofmt"},
			{"git", "status"},
			{"git", "reset"},
			{"rm"},
			{"sh", "-c", "go test ./... && go vet ./..."},
			{"sh", "-c", "rm -rf build"},
		}, Flags: map[string][]string{"go test": {"-race", "-count", "-coverprofile"}, "gofmt": {"-l", "-w"}, "git reset": {"--hard", "--soft"}}},
		Destructive:     DestructiveBlock,
		MaxChangedLines: 100,
	}
	if err := p.Validate(); err != nil {
		t.Fatalf("test policy invalid: %v", err)
	}
	return p
}

func TestEvaluate(t *testing.T) {
	tests := []struct {
		name         string
		call         ToolCall
		wantBlocked  bool
		wantReasons  []string // exact, sorted
		wantWarnings []string // exact, sorted
	}{
		{
			name: "plain read allowed",
			call: ToolCall{Tool: ToolReadFile, Paths: []string{"main.go"}},
		},
		{
			name: "plain write allowed",
			call: ToolCall{Tool: ToolWriteFile, Paths: []string{"pkg/a.go"}, Writes: true, ChangedLines: 10, TotalChangedLines: 10},
		},
		{
			name:        "missing tool",
			call:        ToolCall{Paths: []string{"a"}},
			wantBlocked: true, wantReasons: []string{"invalid tool call: no tool name"},
		},
		{
			name:        "negative lines",
			call:        ToolCall{Tool: ToolEditFile, Paths: []string{"a"}, ChangedLines: -1},
			wantBlocked: true, wantReasons: []string{"invalid tool call: negative changed lines"},
		},
		{
			name:        "empty path",
			call:        ToolCall{Tool: ToolReadFile, Paths: []string{""}},
			wantBlocked: true, wantReasons: []string{"invalid tool call: empty path or path containing NUL"},
		},
		{
			name:        "NUL in path",
			call:        ToolCall{Tool: ToolReadFile, Paths: []string{"a\x00b"}},
			wantBlocked: true, wantReasons: []string{"invalid tool call: empty path or path containing NUL"},
		},
		{
			name:        "absolute path",
			call:        ToolCall{Tool: ToolReadFile, Paths: []string{"/etc/passwd"}},
			wantBlocked: true, wantReasons: []string{"path escapes workspace: /etc/passwd"},
		},
		{
			name:        "dotdot path",
			call:        ToolCall{Tool: ToolReadFile, Paths: []string{"../other/x"}},
			wantBlocked: true, wantReasons: []string{"path escapes workspace: ../other/x"},
		},
		{
			name:        "dotdot hidden in the middle",
			call:        ToolCall{Tool: ToolReadFile, Paths: []string{"a/../../x"}},
			wantBlocked: true, wantReasons: []string{"path escapes workspace: a/../../x"},
		},
		{
			name:        "bare dotdot",
			call:        ToolCall{Tool: ToolListDir, Paths: []string{".."}},
			wantBlocked: true, wantReasons: []string{"path escapes workspace: .."},
		},
		{
			name: "dotdot that stays inside",
			call: ToolCall{Tool: ToolReadFile, Paths: []string{"a/../b.go"}},
		},
		{
			name: "dotdot prefixed name is not an escape",
			call: ToolCall{Tool: ToolReadFile, Paths: []string{"..foo/x"}},
		},
		{
			name: "root listing",
			call: ToolCall{Tool: ToolListDir, Paths: []string{"."}},
		},
		{
			name:        "never_touch read",
			call:        ToolCall{Tool: ToolReadFile, Paths: []string{".git/config"}},
			wantBlocked: true, wantReasons: []string{"git metadata: .git/config", "never_touch: .git/config matches .git/**"},
		},
		{
			name:        "never_touch directory itself",
			call:        ToolCall{Tool: ToolListDir, Paths: []string{".git"}},
			wantBlocked: true, wantReasons: []string{"git metadata: .git", "never_touch: .git matches .git/**"},
		},
		{
			name:        "never_touch after cleaning",
			call:        ToolCall{Tool: ToolReadFile, Paths: []string{"./src/../.git/HEAD"}},
			wantBlocked: true, wantReasons: []string{"git metadata: .git/HEAD", "never_touch: .git/HEAD matches .git/**"},
		},
		{
			name:        "never_touch deep glob",
			call:        ToolCall{Tool: ToolReadFile, Paths: []string{"deploy/tls/server.pem"}},
			wantBlocked: true, wantReasons: []string{"never_touch: deploy/tls/server.pem matches **/*.pem"},
		},
		{
			name:        "never_touch beats always_allow tool",
			call:        ToolCall{Tool: "format_file", Paths: []string{"secrets/x"}, Writes: true},
			wantBlocked: true, wantReasons: []string{"never_touch: secrets/x matches secrets/**"},
		},
		{
			name: "never_touch lookalike allowed",
			call: ToolCall{Tool: ToolReadFile, Paths: []string{".gitignore"}},
		},
		{
			name:         "approval for write to go.mod",
			call:         ToolCall{Tool: ToolEditFile, Paths: []string{"go.mod"}},
			wantWarnings: []string{"requires approval: write to go.mod"},
		},
		{
			name:         "approval for nested go.mod via Writes flag",
			call:         ToolCall{Tool: "patch", Paths: []string{"svc/go.mod"}, Writes: true},
			wantWarnings: []string{"requires approval: write to svc/go.mod"},
		},
		{
			name: "reading an approval path needs no approval",
			call: ToolCall{Tool: ToolReadFile, Paths: []string{"go.mod"}},
		},
		{
			name:         "tool approval",
			call:         ToolCall{Tool: "install_deps"},
			wantWarnings: []string{"requires approval: tool install_deps"},
		},
		{
			name: "always_allow tool suppresses tool and path approvals",
			call: ToolCall{Tool: "format_file", Paths: []string{"go.mod"}, Writes: true},
		},
		{
			name: "always_allow path suppresses path approval",
			call: ToolCall{Tool: ToolWriteFile, Paths: []string{"docs/guide.md"}},
		},
		{
			name:         "always_allow path keeps other paths' approvals",
			call:         ToolCall{Tool: ToolWriteFile, Paths: []string{"docs/guide.md", ".github/workflows/ci.yml"}},
			wantWarnings: []string{"requires approval: write to .github/workflows/ci.yml"},
		},
		{
			name:        "delete_file is destructive",
			call:        ToolCall{Tool: ToolDeleteFile, Paths: []string{"old.go"}},
			wantBlocked: true, wantReasons: []string{"destructive operation: delete_file"},
		},
		{
			name:        "Deletes flag is destructive",
			call:        ToolCall{Tool: "move_file", Paths: []string{"a.go"}, Deletes: true},
			wantBlocked: true, wantReasons: []string{"destructive operation: move_file deletes files"},
		},
		{
			name:        "destructive and approval together",
			call:        ToolCall{Tool: ToolDeleteFile, Paths: []string{"go.mod"}},
			wantBlocked: true, wantReasons: []string{"destructive operation: delete_file"},
			wantWarnings: []string{"requires approval: delete of go.mod"},
		},
		{
			name: "allowlisted command",
			call: ToolCall{Tool: ToolRunCommand, Command: []string{"go", "test", "./..."}},
		},
		{
			name: "allowlisted command exact prefix",
			call: ToolCall{Tool: ToolRunCommand, Command: []string{"gofmt"}},
		},
		{
			name:        "command not allowlisted",
			call:        ToolCall{Tool: ToolRunCommand, Command: []string{"curl", "https://example.com"}},
			wantBlocked: true, wantReasons: []string{"command not allowed: curl https://example.com"},
		},
		{
			name:        "subcommand not allowlisted",
			call:        ToolCall{Tool: ToolRunCommand, Command: []string{"go", "run", "main.go", "-x"}},
			wantBlocked: true, wantReasons: []string{"command not allowed: go run main.go ..."},
		},
		{
			name:        "shorter than prefix",
			call:        ToolCall{Tool: ToolRunCommand, Command: []string{"go"}},
			wantBlocked: true, wantReasons: []string{"command not allowed: go"},
		},
		{
			name:        "empty command",
			call:        ToolCall{Tool: ToolRunCommand},
			wantBlocked: true, wantReasons: []string{"invalid tool call: run_command without a command"},
		},
		{
			name:        "empty program",
			call:        ToolCall{Tool: ToolRunCommand, Command: []string{""}},
			wantBlocked: true, wantReasons: []string{"invalid tool call: run_command without a command"},
		},
		{
			name:        "absolute path in command argument",
			call:        ToolCall{Tool: ToolRunCommand, Command: []string{"gofmt", "-w", "/etc/hosts"}},
			wantBlocked: true, wantReasons: []string{"path escapes workspace: command argument /etc/hosts"},
		},
		{
			name:        "escaping flag value in command argument",
			call:        ToolCall{Tool: ToolRunCommand, Command: []string{"go", "test", "-coverprofile=../c.out"}},
			wantBlocked: true, wantReasons: []string{"path escapes workspace: command argument ../c.out"},
		},
		{
			name:        "never_touch in command argument",
			call:        ToolCall{Tool: ToolRunCommand, Command: []string{"gofmt", "-l", ".git/hooks"}},
			wantBlocked: true, wantReasons: []string{"git metadata: command argument .git/hooks", "never_touch: command argument .git/hooks matches .git/**"},
		},
		{
			name:        "NUL in command argument",
			call:        ToolCall{Tool: ToolRunCommand, Command: []string{"gofmt", "a\x00"}},
			wantBlocked: true, wantReasons: []string{"invalid tool call: command argument contains NUL"},
		},
		{
			name: "flag without value is not a path",
			call: ToolCall{Tool: ToolRunCommand, Command: []string{"go", "test", "-race", "-count=1", "./..."}},
		},
		{
			name: "exact shell entry allowed despite metacharacters",
			call: ToolCall{Tool: ToolRunCommand, Command: []string{"sh", "-c", "go test ./... && go vet ./..."}},
		},
		{
			name:        "exact shell entry still meets the destructive guard",
			call:        ToolCall{Tool: ToolRunCommand, Command: []string{"sh", "-c", "rm -rf build"}},
			wantBlocked: true, wantReasons: []string{"destructive operation: rm -r"},
		},
		{
			name:        "allowlisted program still meets the destructive guard",
			call:        ToolCall{Tool: ToolRunCommand, Command: []string{"git", "reset", "--hard"}},
			wantBlocked: true, wantReasons: []string{"destructive operation: git reset --hard"},
		},
		{
			name: "allowlisted program non-destructive variant",
			call: ToolCall{Tool: ToolRunCommand, Command: []string{"git", "reset", "--soft", "HEAD"}},
		},
		{
			name:        "max lines exceeded",
			call:        ToolCall{Tool: ToolEditFile, Paths: []string{"a.go"}, ChangedLines: 5, TotalChangedLines: 101},
			wantBlocked: true, wantReasons: []string{"max changed lines exceeded: 101 > 100"},
		},
		{
			name:        "max lines exceeded by this call alone",
			call:        ToolCall{Tool: ToolEditFile, Paths: []string{"a.go"}, ChangedLines: 150},
			wantBlocked: true, wantReasons: []string{"max changed lines exceeded: 150 > 100"},
		},
		{
			name: "max lines at limit",
			call: ToolCall{Tool: ToolEditFile, Paths: []string{"a.go"}, ChangedLines: 5, TotalChangedLines: 100},
		},
		{
			name:        "every reason collected and sorted",
			call:        ToolCall{Tool: ToolDeleteFile, Paths: []string{"/abs", ".git/x"}, TotalChangedLines: 500},
			wantBlocked: true,
			wantReasons: []string{
				"destructive operation: delete_file",
				"git metadata: .git/x",
				"max changed lines exceeded: 500 > 100",
				"never_touch: .git/x matches .git/**",
				"path escapes workspace: /abs",
			},
		},
		{
			name:         "duplicate warnings collapse",
			call:         ToolCall{Tool: ToolWriteFile, Paths: []string{"go.mod", "./go.mod"}},
			wantWarnings: []string{"requires approval: write to go.mod"},
		},
	}
	p := testPolicy(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := p.Evaluate(tt.call)
			want := Decision{Blocked: tt.wantBlocked, Reasons: tt.wantReasons, Warnings: tt.wantWarnings}
			assertDecision(t, got, want)
		})
	}
}

func assertDecision(t *testing.T, got, want Decision) {
	t.Helper()
	if got.Blocked != want.Blocked || !slices.Equal(got.Reasons, want.Reasons) || !slices.Equal(got.Warnings, want.Warnings) {
		t.Errorf("decision mismatch\n got: %+v\nwant: %+v", got, want)
	}
}

// TestEvaluateCommandSmuggling tries to get commands past an allowlist of
// "go test", "go vet" and "gofmt".
func TestEvaluateCommandSmuggling(t *testing.T) {
	tests := []struct {
		name       string
		argv       []string
		wantReason string // prefix of a reason that must be present
	}{
		{name: "semicolon glued to allowed subcommand", argv: []string{"go", "test;rm", "-rf", "x"}, wantReason: ReasonCommandNotAllowed},
		{name: "semicolon argument", argv: []string{"go", "test", "./...", ";", "rm", "-rf", "x"}, wantReason: ReasonShellMetacharacter + `: ";" in argument 3`},
		{name: "and-and inside argument", argv: []string{"go", "test", "./... && curl evil"}, wantReason: ReasonShellMetacharacter + `: "&"`},
		{name: "pipe", argv: []string{"go", "vet", "|", "sh"}, wantReason: ReasonShellMetacharacter + `: "|"`},
		{name: "backtick", argv: []string{"gofmt", "`id`"}, wantReason: ReasonShellMetacharacter + ": \"`\""},
		{name: "command substitution", argv: []string{"gofmt", "$(id)"}, wantReason: ReasonShellMetacharacter + `: "$("`},
		{name: "variable expansion", argv: []string{"gofmt", "${HOME}"}, wantReason: ReasonShellMetacharacter + `: "${"`},
		{name: "named variable", argv: []string{"gofmt", "$HOME"}, wantReason: ReasonShellMetacharacter + `: "$H"`},
		{name: "redirection", argv: []string{"go", "test", ">", "out"}, wantReason: ReasonShellMetacharacter + `: ">"`},
		{name: "input redirection", argv: []string{"go", "test", "<in"}, wantReason: ReasonShellMetacharacter + `: "<"`},
		{name: "newline", argv: []string{"go", "test", "x\nrm -rf ."}, wantReason: ReasonShellMetacharacter + `: "\n"`},
		{name: "carriage return", argv: []string{"go", "test", "x\rrm"}, wantReason: ReasonShellMetacharacter + `: "\r"`},
		{name: "metacharacter in program", argv: []string{"go;sh"}, wantReason: ReasonShellMetacharacter + `: ";" in argument 0`},
		{name: "sh -c not allowlisted", argv: []string{"sh", "-c", "go test ./..."}, wantReason: ReasonCommandNotAllowed + ": sh runs code"},
		{name: "bash by path", argv: []string{"/bin/bash", "-c", "go test"}, wantReason: ReasonCommandNotAllowed + ": bash runs code"},
		{name: "python", argv: []string{"python3", "-c", "print(1)"}, wantReason: ReasonCommandNotAllowed + ": python3 runs code"},
		{name: "perl", argv: []string{"perl", "-e", "unlink"}, wantReason: ReasonCommandNotAllowed + ": perl runs code"},
		{name: "env wrapper", argv: []string{"env", "go", "test"}, wantReason: ReasonCommandNotAllowed + ": env runs code"},
		{name: "xargs wrapper", argv: []string{"xargs", "rm"}, wantReason: ReasonCommandNotAllowed + ": xargs runs code"},
		{name: "go test -exec", argv: []string{"go", "test", "-exec", "evil", "./..."}, wantReason: ReasonFlagNotAllowed + ": -exec (not listed for go test)"},
		{name: "go test -exec=", argv: []string{"go", "test", "-exec=evil"}, wantReason: ReasonFlagNotAllowed + ": -exec "},
		{name: "go test -toolexec", argv: []string{"go", "test", "--toolexec", "evil"}, wantReason: ReasonFlagNotAllowed + ": --toolexec"},
		{name: "go vet -vettool", argv: []string{"go", "vet", "-vettool=evil"}, wantReason: ReasonFlagNotAllowed + ": -vettool"},
		{name: "go test -ldflags -extld", argv: []string{"go", "test", "-ldflags=-extld=/tmp/evil", "./..."}, wantReason: ReasonFlagNotAllowed + ": -ldflags"},
		{name: "go test -ldflags as two arguments", argv: []string{"go", "test", "-ldflags", "-extld=evil"}, wantReason: ReasonFlagNotAllowed + ": -ldflags"},
		{name: "go test -args", argv: []string{"go", "test", "./...", "-args", "-x"}, wantReason: ReasonFlagNotAllowed + ": -args"},
		{name: "go test -overlay", argv: []string{"go", "test", "-overlay=o.json"}, wantReason: ReasonFlagNotAllowed + ": -overlay"},
		{name: "gofmt -r", argv: []string{"gofmt", "-r", "a -> b", "x.go"}, wantReason: ReasonFlagNotAllowed + ": -r"},
		{name: "double dash not listed", argv: []string{"go", "test", "--", "-exec=x"}, wantReason: ReasonFlagNotAllowed + ": --"},
		{name: "giant argument", argv: []string{"go", "test", strings.Repeat("a", MaxArgBytes+1)}, wantReason: ReasonArgumentTooLong + ": argument 2"},
		{name: "too many arguments", argv: append([]string{"go", "test"}, slices.Repeat([]string{"x"}, MaxArgs)...), wantReason: ReasonArgumentTooLong},
		{name: "argv too long in total", argv: append([]string{"go", "test"}, slices.Repeat([]string{strings.Repeat("a", MaxArgBytes)}, MaxArgvBytes/MaxArgBytes+1)...), wantReason: ReasonArgumentTooLong + ": arguments total"},
		{name: "path-qualified program", argv: []string{"./go", "test"}, wantReason: ReasonCommandNotAllowed},
		{name: "case differs", argv: []string{"Go", "test"}, wantReason: ReasonCommandNotAllowed},
		{name: "trailing space", argv: []string{"go ", "test"}, wantReason: ReasonCommandNotAllowed},
		{name: "program and subcommand in one element", argv: []string{"go test"}, wantReason: ReasonCommandNotAllowed},
	}
	p := Default()
	p.Commands.Allow = [][]string{{"go", "test"}, {"go", "vet"}, {"gofmt"}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := p.Evaluate(ToolCall{Tool: ToolRunCommand, Command: tt.argv})
			if !d.Blocked {
				t.Fatalf("Evaluate(%q) not blocked: %+v", tt.argv, d)
			}
			if !slices.ContainsFunc(d.Reasons, func(r string) bool { return strings.HasPrefix(r, tt.wantReason) }) {
				t.Errorf("Evaluate(%q) reasons %q, want one starting with %q", tt.argv, d.Reasons, tt.wantReason)
			}
		})
	}
}

func TestEvaluateGitConfigFlag(t *testing.T) {
	p := &Policy{Commands: Commands{Allow: [][]string{{"git"}, {"ls"}},
		Flags: map[string][]string{"git log": {"-n"}, "ls": {"-c"}}}}
	tests := []struct {
		name        string
		argv        []string
		wantBlocked bool
	}{
		{name: "git -c", argv: []string{"git", "-c", "core.pager=evil", "log"}, wantBlocked: true},
		{name: "git --config-env", argv: []string{"git", "--config-env=core.pager=X", "log"}, wantBlocked: true},
		{name: "git --upload-pack", argv: []string{"git", "fetch", "--upload-pack=evil"}, wantBlocked: true},
		{name: "plain git log", argv: []string{"git", "log", "-n", "3"}, wantBlocked: false},
		{name: "ls -c is not git -c", argv: []string{"ls", "-c"}, wantBlocked: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := p.Evaluate(ToolCall{Tool: ToolRunCommand, Command: tt.argv})
			if d.Blocked != tt.wantBlocked {
				t.Errorf("Evaluate(%q) = %+v, want blocked %v", tt.argv, d, tt.wantBlocked)
			}
		})
	}
}

func TestEvaluateDestructiveModes(t *testing.T) {
	call := ToolCall{Tool: ToolRunCommand, Command: []string{"git", "clean", "-fdx"}}
	tests := []struct {
		name string
		mode DestructiveMode
		want Decision
	}{
		{name: "empty means block", mode: "", want: Decision{Blocked: true, Reasons: []string{"destructive operation: git clean"}}},
		{name: "block", mode: DestructiveBlock, want: Decision{Blocked: true, Reasons: []string{"destructive operation: git clean"}}},
		{name: "warn", mode: DestructiveWarn, want: Decision{Warnings: []string{"destructive operation: git clean"}}},
		{name: "allow", mode: DestructiveAllow, want: Decision{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &Policy{Destructive: tt.mode, Commands: Commands{Allow: [][]string{{"git", "clean"}}, Flags: map[string][]string{"git clean": {"-fdx"}}}}
			assertDecision(t, p.Evaluate(call), tt.want)
		})
	}
}

func TestEvaluateAlwaysAllowNeverOverridesDestructiveWarning(t *testing.T) {
	p := &Policy{Destructive: DestructiveWarn, AlwaysAllow: Scope{Tools: []string{ToolDeleteFile}, Paths: []string{"**"}}}
	got := p.Evaluate(ToolCall{Tool: ToolDeleteFile, Paths: []string{"a.go"}})
	assertDecision(t, got, Decision{Warnings: []string{"destructive operation: delete_file"}})
}

func TestEvaluateAlwaysAllowBeatsRequireApprovalForSameTool(t *testing.T) {
	p := &Policy{
		AlwaysAllow:        Scope{Tools: []string{ToolWriteFile}},
		RequireApprovalFor: Scope{Tools: []string{ToolWriteFile}, Paths: []string{"**"}},
	}
	assertDecision(t, p.Evaluate(ToolCall{Tool: ToolWriteFile, Paths: []string{"a"}}), Decision{})
}

func TestEvaluateAlwaysAllowToolDoesNotBypassAllowlist(t *testing.T) {
	p := &Policy{AlwaysAllow: Scope{Tools: []string{ToolRunCommand}}}
	d := p.Evaluate(ToolCall{Tool: ToolRunCommand, Command: []string{"curl", "x"}})
	if !d.Blocked {
		t.Fatalf("always_allow run_command lifted the allowlist: %+v", d)
	}
}

func TestEvaluateNeverTouchRoot(t *testing.T) {
	p := &Policy{NeverTouch: []string{"**"}}
	got := p.Evaluate(ToolCall{Tool: ToolListDir, Paths: []string{"."}})
	assertDecision(t, got, Decision{Blocked: true, Reasons: []string{"never_touch: . matches **"}})
}

func TestEvaluateMaxChangedLinesZeroMeansNoLimit(t *testing.T) {
	p := &Policy{}
	assertDecision(t, p.Evaluate(ToolCall{Tool: ToolEditFile, Paths: []string{"a"}, TotalChangedLines: 1 << 30}), Decision{})
}

func TestEvaluateFailsClosed(t *testing.T) {
	tests := []struct {
		name   string
		policy *Policy
		want   string
	}{
		{name: "nil policy", policy: nil, want: ReasonNoPolicy},
		{name: "bad glob", policy: &Policy{NeverTouch: []string{"[a"}}, want: ReasonInvalidPolicy},
		{name: "bad mode", policy: &Policy{Destructive: "maybe"}, want: ReasonInvalidPolicy},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.policy.Evaluate(ToolCall{Tool: ToolReadFile, Paths: []string{"a"}})
			assertDecision(t, got, Decision{Blocked: true, Reasons: []string{tt.want}})
		})
	}
}

func TestEvaluateDoesNotModifyInputs(t *testing.T) {
	p := testPolicy(t)
	before := p.Hash()
	call := ToolCall{Tool: ToolWriteFile, Paths: []string{"./b", "a/../go.mod"}, Command: []string{"x"}}
	paths := slices.Clone(call.Paths)
	p.Evaluate(call)
	if !slices.Equal(call.Paths, paths) {
		t.Errorf("call paths modified: %q", call.Paths)
	}
	if p.Hash() != before {
		t.Errorf("policy modified")
	}
}

func TestEvaluateConcurrent(t *testing.T) {
	p := testPolicy(t)
	call := ToolCall{Tool: ToolWriteFile, Paths: []string{"go.mod", ".git/x"}, TotalChangedLines: 200}
	want := p.Evaluate(call)
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for range 8 {
		wg.Go(func() {
			for range 200 {
				if got := p.Evaluate(call); fmt.Sprint(got) != fmt.Sprint(want) {
					errs <- fmt.Sprint(got)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Errorf("concurrent Evaluate differed: %s, want %v", e, want)
	}
}

// TestEvaluateFlagAllowlist: flags that make git or find run another
// program are refused because they are not listed, while the listed ones
// pass.
func TestEvaluateFlagAllowlist(t *testing.T) {
	p := &Policy{Commands: Commands{
		Allow: [][]string{{"git", "grep"}, {"git", "clone"}, {"git", "rebase"}, {"git", "difftool"}, {"git", "log"}, {"find"}, {"grep"}},
		Flags: map[string][]string{
			"git grep": {"-n", "-i", "-e", "--"}, "git clone": {"--depth"}, "git rebase": {"-i"},
			"git difftool": {"--stat"}, "git": {"--no-pager"}, "find": {"-name", "-type"},
		},
	}}
	tests := []struct {
		argv    []string
		blocked string // reason prefix, or "" for allowed
	}{
		{[]string{"git", "grep", "-O", "sh -c evil", "x"}, ReasonFlagNotAllowed + ": -O (not listed for git grep)"},
		{[]string{"git", "grep", "--open-files-in-pager=evil", "x"}, ReasonFlagNotAllowed + ": --open-files-in-pager"},
		{[]string{"git", "clone", "-u", "evil", "src", "dst"}, ReasonFlagNotAllowed + ": -u"},
		{[]string{"git", "clone", "--upload-pack=evil", "src"}, ReasonFlagNotAllowed + ": --upload-pack"},
		{[]string{"git", "rebase", "-x", "evil", "main"}, ReasonFlagNotAllowed + ": -x"},
		{[]string{"git", "rebase", "--exec=evil", "main"}, ReasonFlagNotAllowed + ": --exec"},
		{[]string{"git", "difftool", "-x", "evil"}, ReasonFlagNotAllowed + ": -x"},
		{[]string{"git", "difftool", "--extcmd=evil"}, ReasonFlagNotAllowed + ": --extcmd"},
		{[]string{"find", ".", "-exec", "rm", "{}", "+"}, ReasonFlagNotAllowed + ": -exec (not listed for find)"},
		{[]string{"find", ".", "-execdir", "x"}, ReasonFlagNotAllowed + ": -execdir"},
		{[]string{"grep", "-r", "x", "."}, ReasonFlagNotAllowed + ": -r (commands.flags has no entry for grep)"},
		{[]string{"git", "grep", "-n", "-e", "needle", "--", "-O"}, ""},
		{[]string{"git", "clone", "--depth=1", "src", "dst"}, ""},
		{[]string{"git", "log", "--no-pager"}, ""}, // the "git" key is the longest that applies
		{[]string{"find", ".", "-name", "*.go", "-type", "f"}, ""},
	}
	for _, tt := range tests {
		d := p.Evaluate(ToolCall{Tool: ToolRunCommand, Command: tt.argv})
		if tt.blocked == "" {
			if d.Blocked {
				t.Errorf("Evaluate(%q) blocked: %q", tt.argv, d.Reasons)
			}
			continue
		}
		if !d.Blocked || !slices.ContainsFunc(d.Reasons, func(r string) bool { return strings.HasPrefix(r, tt.blocked) }) {
			t.Errorf("Evaluate(%q) = %+v, want a reason starting with %q", tt.argv, d, tt.blocked)
		}
	}
}

// TestDefaultPolicyCommandsStillRun keeps the default policy's everyday
// commands working under the flag allowlist.
func TestDefaultPolicyCommandsStillRun(t *testing.T) {
	p := Default()
	for _, argv := range [][]string{
		{"go", "test", "./..."}, {"go", "test", "-race", "-count=1", "-run", "TestX", "./pkg/..."},
		{"go", "vet", "./..."}, {"go", "build", "-o", "bin/x", "./cmd/x"}, {"gofmt", "-l", "-w", "."},
	} {
		if d := p.Evaluate(ToolCall{Tool: ToolRunCommand, Command: argv}); d.Blocked {
			t.Errorf("Evaluate(%q) blocked: %q", argv, d.Reasons)
		}
	}
}

// TestEvaluateGitSpellings: .git in any case, with invisible characters or
// trailing dots, is refused whether or not the policy lists it, as a path
// and as a command argument; never_touch globs ignore case and invisible
// characters too.
func TestEvaluateGitSpellings(t *testing.T) {
	zero := &Policy{Commands: Commands{Allow: [][]string{{"gofmt"}}}}
	for _, path := range []string{".GIT/config", ".Git", "a/.gIt/hooks/pre-commit", ".git\u200b/config", "\u200d.git/config",
		".git\ufeff/HEAD", ".git\u00ad/config", ".g\u2060it/config", ".git./config", ".git /config", ".gi\U000E0074t/x", ".git\ufe0f/config"} {
		for _, p := range []*Policy{zero, Default()} {
			d := p.Evaluate(ToolCall{Tool: ToolWriteFile, Paths: []string{path}, Writes: true})
			if !d.Blocked || !slices.ContainsFunc(d.Reasons, func(r string) bool { return strings.HasPrefix(r, ReasonGitMetadata) }) {
				t.Errorf("write to %q = %+v, want a %s block", path, d, ReasonGitMetadata)
			}
		}
		d := zero.Evaluate(ToolCall{Tool: ToolRunCommand, Command: []string{"gofmt", path}})
		if !d.Blocked {
			t.Errorf("gofmt %q not blocked", path)
		}
	}
	for _, ok := range []string{".github/workflows/ci.yml", ".gitignore", "git/x", "a.git/b"} {
		if d := zero.Evaluate(ToolCall{Tool: ToolReadFile, Paths: []string{ok}}); d.Blocked {
			t.Errorf("read %q blocked: %q", ok, d.Reasons)
		}
	}
	p := &Policy{NeverTouch: []string{"secrets/**", "**/*.pem"}}
	for _, path := range []string{"SECRETS/key", "Secrets\u200b/key", "a/KEY.PEM", "a/key.pem\u200b"} {
		if d := p.Evaluate(ToolCall{Tool: ToolReadFile, Paths: []string{path}}); !d.Blocked {
			t.Errorf("read %q not blocked by never_touch", path)
		}
	}
	ap := &Policy{RequireApprovalFor: Scope{Paths: []string{"**/go.mod"}}}
	if d := ap.Evaluate(ToolCall{Tool: ToolWriteFile, Paths: []string{"GO.MOD"}, Writes: true}); len(d.Warnings) == 0 {
		t.Errorf("write to GO.MOD needs no approval: %+v", d)
	}
}
