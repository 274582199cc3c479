package policy

import (
	"path"
	"slices"
	"strings"
)

// maxCommandDepth bounds how deeply wrappers and "sh -c" scripts are
// unpacked when looking for destructive commands.
const maxCommandDepth = 4

// opTooDeep is reported for commands nested beyond maxCommandDepth: what
// cannot be inspected is treated as destructive.
const opTooDeep = "command nested too deeply to inspect"

// destructiveOps returns a short description of every destructive
// operation in call (see docs/policy.md for the list).
func destructiveOps(call ToolCall) []string {
	var ops []string
	switch {
	case call.Tool == ToolDeleteFile:
		ops = append(ops, ToolDeleteFile)
	case call.Deletes:
		ops = append(ops, call.Tool+" deletes files")
	}
	if call.Tool == ToolRunCommand {
		ops = commandOps(call.Command, 0, ops)
	}
	return ops
}

// commandOps appends the destructive operations argv performs.
func commandOps(argv []string, depth int, ops []string) []string {
	argv, ok := unwrap(argv)
	if !ok || depth > maxCommandDepth {
		return append(ops, opTooDeep)
	}
	if len(argv) == 0 {
		return ops
	}
	base, args := path.Base(argv[0]), argv[1:]
	switch base {
	case "rm":
		if rmRecursive(args) {
			return append(ops, "rm -r")
		}
		return append(ops, "rm")
	case "rmdir", "unlink", "shred", "truncate", "wipefs":
		return append(ops, base)
	case "dd":
		if slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "of=") }) {
			return append(ops, "dd of=")
		}
	case "cp":
		if slices.Contains(args, "/dev/null") {
			return append(ops, "cp /dev/null (truncate)")
		}
	case "find":
		if slices.Contains(args, "-delete") {
			return append(ops, "find -delete")
		}
	case "git":
		if op := gitOp(args); op != "" {
			return append(ops, op)
		}
	}
	if strings.HasPrefix(base, "mkfs") {
		return append(ops, "mkfs")
	}
	if isShell(base) {
		for i, a := range args {
			if isScriptFlag(a) && i+1 < len(args) {
				for _, cmd := range splitScript(args[i+1]) {
					if cmd.truncates && (len(cmd.words) == 0 || cmd.words[0] == ":" || cmd.words[0] == "true") {
						ops = append(ops, "truncate via redirection")
					}
					ops = commandOps(cmd.words, depth+1, ops)
				}
				break
			}
		}
	}
	return ops
}

// isScriptFlag reports whether a shell option introduces a script
// argument: "-c" alone or in a cluster such as "-ec", cmd's "/c" and
// PowerShell's "-Command".
func isScriptFlag(a string) bool {
	if a == "/c" || a == "/C" || strings.EqualFold(a, "-Command") {
		return true
	}
	return len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.IndexByte(a, 'c') > 0
}

// rmRecursive reports whether rm's arguments ask for recursion.
func rmRecursive(args []string) bool {
	for _, a := range args {
		switch {
		case a == "--":
			return false
		case a == "--recursive":
			return true
		case strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsAny(a, "rR"):
			return true
		}
	}
	return false
}

// gitOp names the destructive git operation in args (git's arguments after
// the program name), or returns "".
func gitOp(args []string) string {
	sub, rest := gitSubcommand(args)
	has := func(flags ...string) bool {
		return slices.ContainsFunc(rest, func(a string) bool {
			name, _, _ := strings.Cut(a, "=")
			return slices.Contains(flags, name)
		})
	}
	shortFlag := func(letter string) bool {
		return slices.ContainsFunc(rest, func(a string) bool {
			return len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.Contains(a, letter)
		})
	}
	switch sub {
	case "reset":
		if has("--hard") {
			return "git reset --hard"
		}
	case "clean":
		if !has("-n", "--dry-run") {
			return "git clean"
		}
	case "push":
		switch {
		case has("--force", "--force-with-lease", "--force-if-includes") || shortFlag("f") ||
			slices.ContainsFunc(rest, func(a string) bool { return strings.HasPrefix(a, "+") }):
			return "git push --force"
		case has("--delete", "--prune") || shortFlag("d") ||
			slices.ContainsFunc(rest, func(a string) bool { return strings.HasPrefix(a, ":") }):
			return "git push --delete"
		case has("--mirror"):
			return "git push --mirror"
		}
	case "checkout":
		if has("--force", "-f", "--") {
			return "git checkout --force/--"
		}
	case "switch":
		if has("--force", "-f", "--discard-changes") {
			return "git switch --discard-changes"
		}
	case "restore":
		if !has("--staged", "-S") || has("--worktree", "-W") {
			return "git restore"
		}
	case "branch":
		if has("-D") || (has("--delete", "-d") && has("--force", "-f")) {
			return "git branch -D"
		}
	case "stash":
		if len(rest) > 0 && (rest[0] == "drop" || rest[0] == "clear") {
			return "git stash " + rest[0]
		}
	case "rm":
		if !has("--cached") {
			return "git rm"
		}
	case "filter-branch", "filter-repo":
		return "git " + sub
	case "reflog":
		if len(rest) > 0 && (rest[0] == "expire" || rest[0] == "delete") {
			return "git reflog " + rest[0]
		}
	case "update-ref":
		if has("-d", "--delete") {
			return "git update-ref -d"
		}
	}
	return ""
}

// gitSubcommand skips git's global options and returns the subcommand and
// its arguments.
func gitSubcommand(args []string) (string, []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-C" || a == "-c" || a == "--git-dir" || a == "--work-tree" || a == "--namespace" || a == "--config-env":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			return a, args[i+1:]
		}
	}
	return "", nil
}

// unwrap strips command wrappers (env, sudo, timeout, xargs, ...) and their
// options from the front of argv, returning the wrapped command. It
// reports false if more than maxCommandDepth wrappers are stacked.
func unwrap(argv []string) ([]string, bool) {
	for range maxCommandDepth + 1 {
		if len(argv) == 0 || !isWrapper(path.Base(argv[0])) {
			return argv, true
		}
		argv = skipWrapperOptions(path.Base(argv[0]), argv[1:])
	}
	return nil, false
}

// skipWrapperOptions drops a wrapper's options, environment assignments
// (env) and leading operand (timeout's duration, chroot's directory,
// flock's file) from args.
func skipWrapperOptions(base string, args []string) []string {
	operand := base == "timeout" || base == "chroot" || base == "flock"
	for len(args) > 0 {
		a := args[0]
		switch {
		case a == "--":
			return args[1:]
		case strings.HasPrefix(a, "-"):
			args = args[1:]
			if wrapperFlagTakesValue(base, a) && len(args) > 0 {
				args = args[1:]
			}
		case base == "env" && strings.Contains(a, "="):
			args = args[1:]
		case operand:
			args = args[1:]
			operand = false
		default:
			return args
		}
	}
	return args
}

// isWrapper reports whether base runs the command given in its arguments.
func isWrapper(base string) bool {
	switch base {
	case "env", "sudo", "doas", "nice", "nohup", "timeout", "time", "command", "exec",
		"xargs", "stdbuf", "ionice", "setsid", "chroot", "busybox", "watch", "strace", "flock":
		return true
	}
	return false
}

// wrapperFlagTakesValue reports whether a wrapper's flag consumes the next
// argument.
func wrapperFlagTakesValue(base, flag string) bool {
	if strings.Contains(flag, "=") {
		return false
	}
	switch base {
	case "sudo":
		return slices.Contains([]string{"-u", "-g", "-C", "-h", "-p", "-U", "-r", "-t", "-D"}, flag)
	case "doas":
		return flag == "-u" || flag == "-C"
	case "nice", "ionice":
		return slices.Contains([]string{"-n", "-c", "-p", "-P", "-u"}, flag)
	case "timeout":
		return flag == "-s" || flag == "-k" || flag == "--signal" || flag == "--kill-after"
	case "xargs":
		return slices.Contains([]string{"-I", "-n", "-P", "-L", "-s", "-E", "-d", "-a"}, flag)
	case "stdbuf":
		return flag == "-i" || flag == "-o" || flag == "-e"
	case "env":
		return flag == "-u" || flag == "-C" || flag == "-S"
	case "watch":
		return flag == "-n" || flag == "-d"
	case "strace":
		return flag == "-o" || flag == "-e" || flag == "-p"
	}
	return false
}

// simpleCommand is one command of a shell script.
type simpleCommand struct {
	words     []string
	truncates bool // has a ">" (not ">>") redirection
}

// splitScript splits a shell script into simple commands at ; & | ( ) `
// "$(" and newlines, removing quotes and redirection targets. It is a
// heuristic for spotting destructive commands, not a shell parser.
func splitScript(script string) []simpleCommand {
	var (
		cmds    []simpleCommand
		cur     simpleCommand
		word    strings.Builder
		inWord  bool
		quote   byte
		dropNxt bool // the next word is a redirection target
	)
	endWord := func() {
		if inWord {
			if dropNxt {
				dropNxt = false
			} else {
				cur.words = append(cur.words, word.String())
			}
		}
		word.Reset()
		inWord = false
	}
	endCmd := func() {
		endWord()
		if len(cur.words) > 0 || cur.truncates {
			cmds = append(cmds, cur)
		}
		cur = simpleCommand{}
		dropNxt = false
	}
	for i := 0; i < len(script); i++ {
		c := script[i]
		if quote != 0 {
			if c == quote {
				quote = 0
			} else {
				word.WriteByte(c)
			}
			continue
		}
		switch c {
		case '\'', '"':
			quote, inWord = c, true
		case ' ', '\t':
			endWord()
		case ';', '&', '|', '(', ')', '`', '\n', '\r':
			endCmd()
		case '$':
			if i+1 < len(script) && script[i+1] == '(' {
				endCmd()
				i++
				continue
			}
			word.WriteByte(c)
			inWord = true
		case '>', '<':
			if isFD(word.String()) {
				word.Reset()
				inWord = false
			}
			endWord()
			switch {
			case i+1 < len(script) && script[i+1] == '&':
				i++ // ">&2": duplicates a descriptor, no target word
				for i+1 < len(script) && script[i+1] >= '0' && script[i+1] <= '9' {
					i++
				}
				continue
			case c == '>' && i+1 < len(script) && script[i+1] == '>':
				i++
			case c == '>':
				cur.truncates = true
			}
			dropNxt = true
		default:
			word.WriteByte(c)
			inWord = true
		}
	}
	endCmd()
	return cmds
}

// isFD reports whether w is a file descriptor number written before a
// redirection ("2>file").
func isFD(w string) bool {
	if w == "" {
		return false
	}
	for i := 0; i < len(w); i++ {
		if w[i] < '0' || w[i] > '9' {
			return false
		}
	}
	return true
}
