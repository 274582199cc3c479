package policy

// Policy is the configuration the gate evaluates tool calls against. The
// zero value blocks nothing except what is blocked regardless of policy
// (paths escaping the workspace, malformed calls) and destructive
// operations, and it allows no commands. A Policy must not be modified
// while it is being evaluated; evaluation itself never modifies it, so one
// Policy may be evaluated from many goroutines.
type Policy struct {
	// NeverTouch lists path globs no tool call may read or write.
	NeverTouch []string `json:"never_touch" yaml:"never_touch"`
	// AlwaysAllow lists tools and path globs that skip approval warnings.
	// It never overrides a block.
	AlwaysAllow Scope `json:"always_allow" yaml:"always_allow"`
	// RequireApprovalFor lists tools and path globs whose use produces a
	// "requires approval" warning.
	RequireApprovalFor Scope `json:"require_approval_for" yaml:"require_approval_for"`
	// Commands holds the run_command allowlist.
	Commands Commands `json:"commands" yaml:"commands"`
	// Destructive says what happens to destructive operations; empty means
	// DestructiveBlock.
	Destructive DestructiveMode `json:"destructive" yaml:"destructive"`
	// MaxChangedLines blocks a call once the attempt's cumulative changed
	// lines exceed it; 0 means no limit.
	MaxChangedLines int `json:"max_changed_lines" yaml:"max_changed_lines"`
}

// Scope selects tool calls by tool name or by path glob.
type Scope struct {
	// Tools lists tool names, compared exactly.
	Tools []string `json:"tools" yaml:"tools"`
	// Paths lists path globs (see MatchGlob).
	Paths []string `json:"paths" yaml:"paths"`
}

// Commands configures run_command.
type Commands struct {
	// Allow lists argv prefixes; a command runs only if its argv starts
	// with one of them element by element.
	Allow [][]string `json:"allow" yaml:"allow"`
	// Network lists argv prefixes (element by element, like Allow) of
	// commands that get the network inside the sandbox; every other
	// command has none. A grant does not allow a command: Allow still
	// decides whether it runs.
	Network [][]string `json:"network,omitempty" yaml:"network,omitempty"`
	// Flags is the per-program allowlist of flags. A key is an argv prefix
	// written as its words joined by single spaces ("go test", "gofmt");
	// its value lists the flags (with their dashes, without "=value")
	// allowed after that prefix. An argument starting with "-" after the
	// allowlisted prefix must be listed under the longest key that is a
	// prefix of the argv; a program without a key may take no flags.
	// Commands equal to a whole Allow entry are not checked.
	Flags map[string][]string `json:"flags" yaml:"flags"`
}

// DestructiveMode says how the gate treats destructive operations.
type DestructiveMode string

// The destructive modes.
const (
	// DestructiveBlock blocks destructive operations (the default).
	DestructiveBlock DestructiveMode = "block"
	// DestructiveWarn lets them through with a warning.
	DestructiveWarn DestructiveMode = "warn"
	// DestructiveAllow lets them through silently.
	DestructiveAllow DestructiveMode = "allow"
)

// effective returns the mode with the empty value resolved to the default.
func (m DestructiveMode) effective() DestructiveMode {
	if m == "" {
		return DestructiveBlock
	}
	return m
}

// Tool names the gate knows the meaning of.
const (
	ToolReadFile   = "read_file"
	ToolWriteFile  = "write_file"
	ToolEditFile   = "edit_file"
	ToolDeleteFile = "delete_file"
	ToolListDir    = "list_dir"
	ToolRunCommand = "run_command"
)

// Default returns a new copy of the built-in policy: never touch ".git/**"
// and ".context/history/**"; require approval for writes to go.mod, go.sum
// and ".github/**"; allow "go test", "go vet", "go build" and "gofmt";
// with the flags listed in [DefaultFlags]; block destructive operations;
// at most 2000 changed lines per attempt.
func Default() *Policy {
	return &Policy{
		NeverTouch: []string{".git/**", ".context/history/**"},
		RequireApprovalFor: Scope{
			Paths: []string{"**/go.mod", "**/go.sum", ".github/**"},
		},
		Commands: Commands{Allow: [][]string{
			{"go", "test"},
			{"go", "vet"},
			{"go", "build"},
			{"gofmt"},
		}, Flags: DefaultFlags()},
		Destructive:     DestructiveBlock,
		MaxChangedLines: 2000,
	}
}

// DefaultFlags returns a new copy of the flags the default policy allows
// for its commands. None of them names a program to run or a file of
// build instructions: -exec, -toolexec, -vettool, -ldflags, -gcflags,
// -asmflags, -overlay, -modfile, -mod, -pgo and -args are left out on
// purpose.
func DefaultFlags() map[string][]string {
	build := []string{"-v", "-race", "-tags", "-trimpath", "-p", "-a", "-n", "-x", "-cover", "-covermode", "-coverpkg"}
	return map[string][]string{
		"go test": append([]string{"-count", "-run", "-skip", "-short", "-timeout", "-failfast", "-json", "-bench", "-benchmem",
			"-benchtime", "-cpu", "-parallel", "-shuffle", "-fullpath", "-coverprofile", "-vet"}, build...),
		"go vet":   {"-v", "-tags", "-json", "-n", "-x"},
		"go build": append([]string{"-o"}, build...),
		"gofmt":    {"-l", "-d", "-w", "-s", "-e"},
	}
}
