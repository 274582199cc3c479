package policy

import (
	"errors"
	"fmt"
	"strings"
)

// Problems reported by Validate, wrapped in a *FieldError.
var (
	errEmptyTool         = errors.New("empty tool name")
	errEmptyPrefix       = errors.New("empty command prefix")
	errEmptyArgument     = errors.New("empty argument in command prefix")
	errUnknownMode       = errors.New(`must be "block", "warn" or "allow"`)
	errNegativeLineLimit = errors.New("must not be negative")
	errFlagKey           = errors.New("must be an argv prefix: words separated by single spaces")
	errFlagName          = errors.New(`must start with "-" and contain no "=", space or NUL`)
)

// Validate checks every field and returns all problems joined with
// errors.Join, each a *FieldError wrapping [ErrInvalidPolicy] (and
// [ErrInvalidGlob] for bad globs). It returns nil for a valid policy and
// for a nil receiver reports ErrInvalidPolicy.
func (p *Policy) Validate() error {
	if p == nil {
		return fmt.Errorf("%w: nil policy", ErrInvalidPolicy)
	}
	var errs []error
	add := func(field string, err error) {
		errs = append(errs, &FieldError{Field: field, Err: err})
	}
	globs := func(field string, patterns []string) {
		for i, g := range patterns {
			if err := ValidateGlob(g); err != nil {
				add(fmt.Sprintf("%s[%d]", field, i), err)
			}
		}
	}
	tools := func(field string, names []string) {
		for i, t := range names {
			if t == "" {
				add(fmt.Sprintf("%s[%d]", field, i), errEmptyTool)
			}
		}
	}
	globs("never_touch", p.NeverTouch)
	globs("always_allow.paths", p.AlwaysAllow.Paths)
	globs("require_approval_for.paths", p.RequireApprovalFor.Paths)
	tools("always_allow.tools", p.AlwaysAllow.Tools)
	tools("require_approval_for.tools", p.RequireApprovalFor.Tools)
	for i, prefix := range p.Commands.Allow {
		if len(prefix) == 0 {
			add(fmt.Sprintf("commands.allow[%d]", i), errEmptyPrefix)
			continue
		}
		for j, arg := range prefix {
			if arg == "" {
				add(fmt.Sprintf("commands.allow[%d][%d]", i, j), errEmptyArgument)
			}
		}
	}
	for i, prefix := range p.Commands.Network {
		if err := validNetworkPrefix(prefix); err != nil {
			add(fmt.Sprintf("commands.network[%d]", i), err)
		}
	}
	for key, flags := range p.Commands.Flags {
		if key == "" || strings.Join(strings.Fields(key), " ") != key || strings.ContainsAny(key, "\t\n\r\x00") {
			add(fmt.Sprintf("commands.flags[%q]", key), errFlagKey)
		}
		for i, f := range flags {
			if !strings.HasPrefix(f, "-") || strings.ContainsAny(f, "= \t\n\r\x00") {
				add(fmt.Sprintf("commands.flags[%q][%d]", key, i), fmt.Errorf("%q: %w", f, errFlagName))
			}
		}
	}
	switch p.Destructive {
	case "", DestructiveBlock, DestructiveWarn, DestructiveAllow:
	default:
		add("destructive", fmt.Errorf("%q: %w", p.Destructive, errUnknownMode))
	}
	if p.MaxChangedLines < 0 {
		add("max_changed_lines", errNegativeLineLimit)
	}
	return errors.Join(errs...)
}
