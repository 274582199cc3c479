package policy

// Reason and warning prefixes. Every reason or warning the gate produces
// starts with one of these, followed by ": " and details where there are
// any, so callers can classify them with strings.HasPrefix.
const (
	// ReasonNoPolicy: Evaluate was called on a nil *Policy.
	ReasonNoPolicy = "no policy"
	// ReasonInvalidPolicy: the policy does not pass Validate, so every
	// call is blocked.
	ReasonInvalidPolicy = "policy is invalid"
	// ReasonInvalidCall: the call itself is malformed (no tool name,
	// negative line counts, empty or NUL-containing path).
	ReasonInvalidCall = "invalid tool call"
	// ReasonPathEscapes: a path is absolute or leaves the workspace.
	ReasonPathEscapes = "path escapes workspace"
	// ReasonGitMetadata: a path is, or is inside, a .git directory in any
	// spelling (any case, invisible characters, trailing dots); blocked
	// regardless of policy.
	ReasonGitMetadata = "git metadata"
	// ReasonNeverTouch: a path matches a never_touch glob (as written, or
	// ignoring case and invisible characters).
	ReasonNeverTouch = "never_touch"
	// ReasonDestructive: a destructive operation (a reason when the mode
	// is block, a warning when it is warn).
	ReasonDestructive = "destructive operation"
	// ReasonCommandNotAllowed: run_command's argv matches no allowlist
	// entry, or needs an exact entry it does not have.
	ReasonCommandNotAllowed = "command not allowed"
	// ReasonShellMetacharacter: an argument contains a shell
	// metacharacter and the argv is not exactly allowlisted.
	ReasonShellMetacharacter = "shell metacharacter in command"
	// ReasonFlagNotAllowed: an argument is a flag that commands.flags
	// does not list for the program, and the argv is not exactly
	// allowlisted.
	ReasonFlagNotAllowed = "flag not allowed"
	// ReasonArgumentTooLong: an argument, or the whole argv, is longer
	// than the gate accepts (see MaxArgBytes, MaxArgvBytes, MaxArgs).
	ReasonArgumentTooLong = "command too long"
	// ReasonMaxChangedLines: the attempt's total changed lines exceed the
	// limit.
	ReasonMaxChangedLines = "max changed lines exceeded"
	// WarningRequiresApproval: a tool or path in require_approval_for.
	WarningRequiresApproval = "requires approval"
)
