package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/codali-dev/codali/pkg/codex"
)

// maxCodexInput bounds what the codex commands read (payloads are at most
// 10 KiB; state files are small).
const maxCodexInput = 1 << 20

func cmdCodex(_ context.Context, c *cli, args []string) int {
	const synopsis = "codex encode|decode|validate [FILE|-] [--json] [--partial]"
	if len(args) == 0 {
		c.errorf("codex: usage: codali %s", synopsis)
		return exitUsage
	}
	sub, rest := args[0], args[1:]
	switch sub {
	case "-h", "--help", "-help":
		fmt.Fprintln(c.stderr, "usage: codali "+synopsis)
		return exitOK
	case "encode", "decode", "validate":
	default:
		// Before reading the input: an unknown subcommand must not wait on stdin.
		c.errorf("codex: unknown subcommand %q (want encode, decode or validate)", sub)
		return exitUsage
	}
	fs := c.newFlags("codex "+sub, "codex "+sub+" [FILE|-] [--json] [--partial]")
	asJSON := fs.Bool("json", false, "print JSON")
	partial := fs.Bool("partial", false, "decode: return the blocks that parsed even when a required block is missing")
	pos, code, ok := parse(fs, rest)
	if !ok {
		return code
	}
	if len(pos) > 1 {
		c.errorf("codex %s: at most one input file", sub)
		return exitUsage
	}
	in, err := c.readInput(pos)
	if err != nil {
		c.errorf("codex %s: %v", sub, err)
		return exitUsage
	}
	switch sub {
	case "encode":
		return c.codexEncode(in, *asJSON)
	case "decode":
		return c.codexDecode(in, *asJSON, *partial)
	default: // validate
		return c.codexValidate(in, *asJSON)
	}
}

func (c *cli) readInput(pos []string) ([]byte, error) {
	r := c.stdin
	if len(pos) == 1 && pos[0] != "-" {
		f, err := os.Open(pos[0])
		if err != nil {
			return nil, err
		}
		defer func() { _ = f.Close() }()
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, maxCodexInput+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxCodexInput {
		return nil, fmt.Errorf("input larger than %d bytes", maxCodexInput)
	}
	return data, nil
}

func (c *cli) codexEncode(in []byte, asJSON bool) int {
	st, err := codex.ReadState(strings.NewReader(string(in)))
	if err != nil {
		c.errorf("codex encode: %v", err)
		return exitFailure
	}
	payload, err := codex.Encode(st)
	if err != nil {
		c.errorf("codex encode: %v", err)
		return exitFailure
	}
	if asJSON {
		_ = json.NewEncoder(c.stdout).Encode(map[string]string{"payload": payload})
		return exitOK
	}
	fmt.Fprintln(c.stdout, payload)
	return exitOK
}

func (c *cli) codexDecode(in []byte, asJSON, partial bool) int {
	var opts []codex.DecodeOption
	if partial {
		opts = append(opts, codex.WithPartial())
	}
	st, diags, err := codex.Decode(string(in), opts...)
	if asJSON {
		enc := json.NewEncoder(c.stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(map[string]any{"state": st, "diagnostics": diagStrings(diags)})
	} else {
		for _, d := range diags {
			fmt.Fprintln(c.stderr, d.String())
		}
		if st != nil {
			enc := json.NewEncoder(c.stdout)
			enc.SetIndent("", "  ")
			_ = enc.Encode(st)
		}
	}
	if err != nil || codex.HasErrors(diags) {
		return exitFailure
	}
	return exitOK
}

func (c *cli) codexValidate(in []byte, asJSON bool) int {
	diags := codex.Validate(string(in))
	if asJSON {
		_ = json.NewEncoder(c.stdout).Encode(map[string]any{"valid": !codex.HasErrors(diags), "diagnostics": diagStrings(diags)})
	} else {
		for _, d := range diags {
			fmt.Fprintln(c.stdout, d.String())
		}
		if !codex.HasErrors(diags) {
			fmt.Fprintln(c.stdout, "valid")
		}
	}
	if codex.HasErrors(diags) {
		return exitFailure
	}
	return exitOK
}

func diagStrings(diags []codex.Diagnostic) []string {
	out := make([]string, 0, len(diags))
	for _, d := range diags {
		out = append(out, d.String())
	}
	return out
}
