package policy

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"unicode/utf8"
)

// Limits on run_command's argv, enforced by the gate so that no argument
// can make a record too large to store.
const (
	// MaxArgs is the most arguments (argv elements) a command may have.
	MaxArgs = 256
	// MaxArgBytes is the longest single argument in bytes.
	MaxArgBytes = 4 << 10
	// MaxArgvBytes is the most bytes all arguments may have together.
	MaxArgvBytes = 8 << 10
)

// reasonClip bounds how much of a path or argument a reason quotes.
const reasonClip = 120

// checkCommand applies the run_command rules to argv: size limits, the
// allowlist, exact-entry-only programs, shell metacharacters, the flag
// allowlist, and the path checks on arguments.
func (p *Policy) checkCommand(argv []string, e *evaluation) {
	if len(argv) == 0 || argv[0] == "" {
		e.block(ReasonInvalidCall + ": run_command without a command")
		return
	}
	if problem := argvTooLong(argv); problem != "" {
		e.block(ReasonArgumentTooLong + ": " + problem)
		return
	}
	exact, prefix := false, []string(nil)
	for _, allow := range p.Commands.Allow {
		if slices.Equal(allow, argv) {
			exact = true
			break
		}
		if len(argv) >= len(allow) && slices.Equal(allow, argv[:len(allow)]) && len(allow) > len(prefix) {
			prefix = allow
		}
	}
	if !exact {
		base := path.Base(argv[0])
		switch {
		case needsExactEntry(base):
			e.block(fmt.Sprintf("%s: %s runs code from its arguments and needs an allowlist entry equal to the whole command",
				ReasonCommandNotAllowed, clipReason(base)))
		case prefix == nil:
			e.block(fmt.Sprintf("%s: %s", ReasonCommandNotAllowed, describeArgv(argv)))
		}
		for i, arg := range argv {
			if meta, ok := shellMetacharacter(arg); ok {
				e.block(fmt.Sprintf("%s: %q in argument %d", ReasonShellMetacharacter, meta, i))
			}
		}
		if prefix != nil {
			p.checkFlags(argv, len(prefix), e)
		}
	}
	for _, arg := range argv[1:] {
		p.checkArgumentPath(arg, e)
	}
}

// CheckArgvSize returns an error wrapping [ErrArgvTooLong] that says how
// argv exceeds MaxArgs, MaxArgBytes or MaxArgvBytes, or nil. Callers use it
// to refuse a giant command before recording it.
func CheckArgvSize(argv []string) error {
	if problem := argvTooLong(argv); problem != "" {
		return fmt.Errorf("%w: %s", ErrArgvTooLong, problem)
	}
	return nil
}

// argvTooLong describes how argv exceeds MaxArgs, MaxArgBytes or
// MaxArgvBytes, or returns "".
func argvTooLong(argv []string) string {
	if len(argv) > MaxArgs {
		return fmt.Sprintf("%d arguments (max %d)", len(argv), MaxArgs)
	}
	total := 0
	for i, a := range argv {
		if len(a) > MaxArgBytes {
			return fmt.Sprintf("argument %d is %d bytes (max %d)", i, len(a), MaxArgBytes)
		}
		total += len(a)
	}
	if total > MaxArgvBytes {
		return fmt.Sprintf("arguments total %d bytes (max %d)", total, MaxArgvBytes)
	}
	return ""
}

// checkFlags holds every flag after the allowlisted prefix (the first
// allowed elements of argv) to the flag allowlist of the longest
// commands.flags key that is a prefix of argv. A flag is an argument
// starting with "-" ("-" and "--" included); its name is what comes
// before any "=". Everything after a "--" that is itself allowed counts as
// an operand.
func (p *Policy) checkFlags(argv []string, allowed int, e *evaluation) {
	key, flags := p.flagRule(argv)
	for _, arg := range argv[allowed:] {
		if !strings.HasPrefix(arg, "-") {
			continue
		}
		name, _, _ := strings.Cut(arg, "=")
		if !slices.Contains(flags, name) {
			where := "commands.flags has no entry for " + clipReason(path.Base(argv[0]))
			if key != "" {
				where = "not listed for " + key
			}
			e.block(fmt.Sprintf("%s: %s (%s)", ReasonFlagNotAllowed, clipReason(name), where))
			continue
		}
		if arg == "--" {
			return
		}
	}
}

// flagRule returns the commands.flags entry whose key is the longest
// prefix of argv, or "" and nil.
func (p *Policy) flagRule(argv []string) (string, []string) {
	best, bestLen := "", -1
	for key := range p.Commands.Flags {
		words := strings.Split(key, " ")
		if len(words) > bestLen && len(words) <= len(argv) && slices.Equal(words, argv[:len(words)]) {
			best, bestLen = key, len(words)
		}
	}
	if bestLen < 0 {
		return "", nil
	}
	return best, p.Commands.Flags[best]
}

// checkArgumentPath treats an argument, or the value of a "-flag=value"
// argument, as a path: absolute or escaping values block, as do values
// inside .git or matching never_touch. Flags without a value are skipped.
func (p *Policy) checkArgumentPath(arg string, e *evaluation) {
	value := arg
	if strings.HasPrefix(arg, "-") {
		_, v, ok := strings.Cut(arg, "=")
		if !ok || v == "" {
			return
		}
		value = v
	}
	cleaned, problem := cleanPath(value)
	switch problem {
	case pathEscapes:
		e.block(fmt.Sprintf("%s: command argument %s", ReasonPathEscapes, clipReason(value)))
		return
	case pathInvalid:
		e.block(ReasonInvalidCall + ": command argument contains NUL")
		return
	}
	c := cleanForMatch(cleaned)
	if inGitDir(c) {
		e.block(fmt.Sprintf("%s: command argument %s", ReasonGitMetadata, clipReason(displayPath(c))))
	}
	for _, g := range p.NeverTouch {
		if matchesFolded(g, c) {
			e.block(fmt.Sprintf("%s: command argument %s matches %s", ReasonNeverTouch, clipReason(cleaned), g))
		}
	}
}

// clipReason bounds text quoted in a reason to reasonClip bytes (on a
// UTF-8 boundary), marking what was cut.
func clipReason(s string) string {
	if len(s) <= reasonClip {
		return s
	}
	cut := reasonClip
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s…[%d more bytes]", s[:cut], len(s)-cut)
}

// describeArgv renders up to the first three argv elements for a reason.
func describeArgv(argv []string) string {
	const shown = 3
	parts := make([]string, 0, shown+1)
	for i, a := range argv {
		if i == shown {
			parts = append(parts, "...")
			break
		}
		parts = append(parts, clipReason(a))
	}
	return strings.Join(parts, " ")
}

// needsExactEntry reports whether the program runs code or commands taken
// from its arguments (shells, interpreters, command wrappers), so that an
// argv prefix cannot bound what it does.
func needsExactEntry(base string) bool {
	if isShell(base) || isWrapper(base) {
		return true
	}
	switch base {
	case "perl", "ruby", "node", "nodejs", "php", "lua", "deno", "bun", "tclsh", "osascript", "awk", "gawk":
		return true
	}
	return strings.HasPrefix(base, "python")
}

// isShell reports whether base is a command shell.
func isShell(base string) bool {
	switch base {
	case "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "csh", "tcsh",
		"pwsh", "powershell", "cmd", "cmd.exe":
		return true
	}
	return false
}

// shellMetacharacter returns the first shell metacharacter in arg: one of
// ; & | ` > < newline, carriage return, or "$" starting an expansion.
func shellMetacharacter(arg string) (string, bool) {
	for i := 0; i < len(arg); i++ {
		switch c := arg[i]; c {
		case ';', '&', '|', '`', '>', '<', '\n', '\r':
			return string(c), true
		case '$':
			if i+1 < len(arg) {
				n := arg[i+1]
				if n == '(' || n == '{' || n == '_' || ('a' <= n && n <= 'z') || ('A' <= n && n <= 'Z') {
					return arg[i : i+2], true
				}
			}
		}
	}
	return "", false
}
