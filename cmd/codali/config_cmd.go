package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/codali-dev/codali/pkg/config"
	"github.com/codali-dev/codali/pkg/llm"
)

// defaultConfigFile is validated when neither FILE nor CODALI_CONFIG is given.
const defaultConfigFile = "codali.config.json"

func cmdConfig(_ context.Context, c *cli, args []string) int {
	if len(args) == 0 || args[0] != "validate" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
			fmt.Fprintf(c.stderr, "usage: codali config validate [FILE] (default: $CODALI_CONFIG, else %s)\n", defaultConfigFile)
			return exitOK
		}
		c.errorf("config: usage: codali config validate [FILE] (default: $CODALI_CONFIG, else %s)", defaultConfigFile)
		return exitUsage
	}
	fs := c.newFlags("config validate", "config validate [FILE]")
	pos, code, ok := parse(fs, args[1:])
	if !ok {
		return code
	}
	if len(pos) > 1 {
		c.errorf("config validate: give at most one file")
		return exitUsage
	}
	path := c.getenv("CODALI_CONFIG")
	if len(pos) == 1 {
		path = pos[0]
	}
	if path == "" {
		path = defaultConfigFile
	}
	if _, err := os.Stat(path); err != nil {
		c.errorf("config validate: %v", err)
		return exitUsage
	}
	problems := validateConfig(path, c.getenv)
	if len(problems) == 0 {
		fmt.Fprintf(c.stdout, "%s: valid\n", path)
		return exitOK
	}
	fmt.Fprintf(c.stdout, "%s: %d problem(s)\n", path, len(problems))
	for _, p := range problems {
		fmt.Fprintf(c.stdout, "- %s\n", p)
	}
	return exitFailure
}

// validateConfig returns every problem of the configuration file: what
// config.Load reports (all validation problems at once, a route to an
// undeclared provider among them), then, for a file that loads, each
// phase's route as the services would resolve it — with the role fallback
// to CODALI_PROVIDER / CODALI_MODEL — and its provider as it would be
// created (an unset API key variable, a model missing for an HTTP
// provider).
func validateConfig(path string, getenv func(string) string) []string {
	cfg, err := config.Load(path)
	if err != nil {
		return lines(err)
	}
	var errs []error
	for _, phase := range []string{"librarian", "architect", "builder", "critic"} {
		r, err := cfg.Route(phase, getenv)
		if err != nil {
			errs = append(errs, fmt.Errorf("routing.%s: %w", phase, err))
			continue
		}
		if _, routed := cfg.Routing[phase]; !routed && getenv("CODALI_PROVIDER") == "" {
			continue // the scripted default (the critic: no review)
		}
		if r.Provider.Type != llm.TypeScripted && strings.TrimSpace(r.Route.Model) == "" {
			errs = append(errs, fmt.Errorf("routing.%s: provider %q needs a model (routing.%s.model or CODALI_MODEL)", phase, r.Name, phase))
		}
		if _, err := llm.New(r.Provider, getenv, &llm.Script{}); err != nil {
			errs = append(errs, fmt.Errorf("routing.%s: provider %q: %w", phase, r.Name, err))
		}
	}
	return lines(errors.Join(errs...))
}

// lines splits a (joined) error into its problems.
func lines(err error) []string {
	if err == nil {
		return nil
	}
	var out []string
	for _, l := range strings.Split(err.Error(), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}
