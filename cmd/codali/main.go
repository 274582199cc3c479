// Command codali is Codali's operator and agent CLI: `codali up` runs the
// whole pipeline on an embedded JetStream server; `codali submit`, `runs`
// and `watch` drive and follow runs; `codali rao` serves auditors and
// `codali codex` handles RL4-CODEX payloads.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"

	"github.com/codali-dev/codali/pkg/llm"
)

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// cli carries the process's standard streams and environment, so commands
// are testable in-process.
type cli struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	// stdoutTTY reports whether stdout is a terminal (live progress).
	stdoutTTY bool
	// stderrTTY reports whether stderr is a terminal (progress bars).
	stderrTTY bool
	// wrapReplay, when set, wraps the model provider of `rao rerun`
	// (tests use it to change a prompt).
	wrapReplay func(llm.Provider) llm.Provider
}

type command struct {
	summary string
	run     func(ctx context.Context, c *cli, args []string) int
}

func commands() map[string]command {
	return map[string]command{
		"up":        {"run the whole pipeline on an embedded NATS JetStream server", cmdUp},
		"submit":    {"submit a coding request (and optionally wait for its verdict)", cmdSubmit},
		"provision": {"create or update the streams, buckets and consumers (the provisioning identity's job)", cmdProvision},
		"runs":      {"list recent runs with their status", cmdRuns},
		"watch":     {"follow one run until it ends", cmdWatch},
		"approvals": {"list the tool calls parked runs wait on", cmdApprovals},
		"approve":   {"approve a parked tool call (optionally with edited arguments)", cmdApprove},
		"reject":    {"reject a parked tool call, with a note", cmdReject},
		"budget":    {"extend the budget of a run parked on it", cmdBudget},
		"rao":       {"audit history: replay, show, diff, verify, stats, audit, override, correct, rerun, fork", cmdRAO},
		"codex":     {"RL4-CODEX payloads: encode, decode, validate", cmdCodex},
		"context":   {"print the context bundle the librarian would build; export a run's .context/", cmdContext},
		"bench":     {"load-test a pipeline: runs/s, latency and where the time goes", cmdBench},
		"config":    {"check a codali.config.json: config validate [FILE]", cmdConfig},
		"version":   {"print the version", cmdVersion},
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	c := &cli{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv, stdoutTTY: isTerminal(os.Stdout), stderrTTY: isTerminal(os.Stderr)}
	code := c.main(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}

func (c *cli) main(ctx context.Context, args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		c.usage(c.stdout)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	cmd, ok := commands()[args[0]]
	if !ok {
		fmt.Fprintf(c.stderr, "codali: unknown command %q\n\n", args[0])
		c.usage(c.stderr)
		return exitUsage
	}
	return cmd.run(ctx, c, args[1:])
}

func (c *cli) usage(w io.Writer) {
	fmt.Fprintln(w, "usage: codali <command> [flags] [args]")
	fmt.Fprintln(w, "\ncommands:")
	cmds := commands()
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-9s %s\n", n, cmds[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'codali <command> -h' for a command's flags.")
}

func (c *cli) errorf(format string, args ...any) {
	fmt.Fprintf(c.stderr, "codali: "+format+"\n", args...)
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func cmdVersion(_ context.Context, c *cli, _ []string) int {
	fmt.Fprintln(c.stdout, "codali", version)
	return exitOK
}

func joinLines(s string) string { return strings.Join(strings.Fields(s), " ") }
