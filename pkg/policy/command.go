package policy

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// checkCommand applies the run_command rules to argv: the allowlist,
// exact-entry-only programs, shell metacharacters, flags that run other
// programs, and the path checks on arguments.
func (p *Policy) checkCommand(argv []string, e *evaluation) {
	if len(argv) == 0 || argv[0] == "" {
		e.block(ReasonInvalidCall + ": run_command without a command")
		return
	}
	exact, prefixed := false, false
	for _, allow := range p.Commands.Allow {
		if slices.Equal(allow, argv) {
			exact = true
			break
		}
		if len(argv) >= len(allow) && slices.Equal(allow, argv[:len(allow)]) {
			prefixed = true
		}
	}
	if !exact {
		base := path.Base(argv[0])
		switch {
		case needsExactEntry(base):
			e.block(fmt.Sprintf("%s: %s runs code from its arguments and needs an allowlist entry equal to the whole command",
				ReasonCommandNotAllowed, base))
		case !prefixed:
			e.block(fmt.Sprintf("%s: %s", ReasonCommandNotAllowed, describeArgv(argv)))
		}
		for i, arg := range argv {
			if meta, ok := shellMetacharacter(arg); ok {
				e.block(fmt.Sprintf("%s: %q in argument %d", ReasonShellMetacharacter, meta, i))
			}
			if i > 0 && runsOtherProgram(base, arg) {
				e.block(fmt.Sprintf("%s: %s", ReasonExecFlag, arg))
			}
		}
	}
	for _, arg := range argv[1:] {
		p.checkArgumentPath(arg, e)
	}
}

// checkArgumentPath treats an argument, or the value of a "-flag=value"
// argument, as a path: absolute or escaping values block, as do values
// matching never_touch. Flags without a value are skipped.
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
		e.block(fmt.Sprintf("%s: command argument %s", ReasonPathEscapes, value))
		return
	case pathInvalid:
		e.block(ReasonInvalidCall + ": command argument contains NUL")
		return
	}
	for _, g := range p.NeverTouch {
		if matchGlob(g, cleanForMatch(cleaned)) {
			e.block(fmt.Sprintf("%s: command argument %s matches %s", ReasonNeverTouch, cleaned, g))
		}
	}
}

// describeArgv renders up to the first three argv elements for a reason.
func describeArgv(argv []string) string {
	const shown = 3
	if len(argv) <= shown {
		return strings.Join(argv, " ")
	}
	return strings.Join(argv[:shown], " ") + " ..."
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

// runsOtherProgram reports whether arg is a flag that makes the command
// execute another program: find's -exec/-execdir/-ok/-okdir, go's -exec,
// -toolexec and -vettool, git's --upload-pack/--receive-pack, and git's
// -c/--config-env/--exec-path (configuration can name programs).
func runsOtherProgram(base, arg string) bool {
	if !strings.HasPrefix(arg, "-") {
		return false
	}
	name, _, _ := strings.Cut(strings.TrimLeft(arg, "-"), "=")
	switch name {
	case "exec", "execdir", "ok", "okdir", "toolexec", "vettool", "upload-pack", "receive-pack":
		return true
	}
	if base == "git" {
		return arg == "-c" || name == "config-env" || name == "exec-path"
	}
	return false
}
