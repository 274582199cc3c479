package codex

import (
	"errors"
	"strings"
	"testing"
)

func TestSentinelsWrapInvalidPayload(t *testing.T) {
	tests := []struct {
		name string
		err  error
		code Code
	}{
		{"size", ErrSizeExceeded, CodeSizeExceeded},
		{"unparseable", ErrUnparseable, CodeUnparseable},
		{"missing", ErrMissingBlock, CodeMissingBlock},
		{"order", ErrBlockOrder, CodeBlockOrder},
		{"duplicate", ErrDuplicateBlock, CodeDuplicateBlock},
		{"hash", ErrHashViolation, CodeHashViolation},
		{"raw", ErrRawContent, CodeRawContent},
		{"optional", ErrOptionalOverflow, CodeOptionalOverflow},
		{"state", ErrInvalidState, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !errors.Is(tc.err, ErrInvalidPayload) {
				t.Errorf("%v does not wrap ErrInvalidPayload", tc.err)
			}
			if tc.code != "" && sentinelFor(tc.code) != tc.err {
				t.Errorf("sentinelFor(%s) = %v", tc.code, sentinelFor(tc.code))
			}
		})
	}
	if sentinelFor(CodeDataMalformed) != ErrInvalidPayload {
		t.Errorf("a WARN code must map to ErrInvalidPayload")
	}
}

func TestPayloadError(t *testing.T) {
	tests := []struct {
		name    string
		diags   []Diagnostic
		msg     string
		matches []error
		not     []error
	}{
		{
			name: "two errors and a warning",
			diags: []Diagnostic{
				errorDiag(CodeMissingBlock, "DATA", ""), warnDiag(CodeBlockEmpty, "INSIGHTS", ""),
				errorDiag(CodeHashViolation, "x#1", ""), errorDiag(CodeMissingBlock, "CONTEXT", ""),
			},
			msg:     "ERROR:missing-block:DATA, ERROR:hash-violation:x#1, ERROR:missing-block:CONTEXT",
			matches: []error{ErrMissingBlock, ErrHashViolation, ErrInvalidPayload},
			not:     []error{ErrSizeExceeded},
		},
		{
			name:    "no error diagnostics",
			diags:   []Diagnostic{warnDiag(CodeBlockEmpty, "DATA", "")},
			msg:     ErrInvalidPayload.Error(),
			matches: []error{ErrInvalidPayload},
			not:     []error{ErrMissingBlock},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := error(&PayloadError{Diagnostics: tc.diags})
			if err.Error() != tc.msg {
				t.Errorf("Error() = %q", err.Error())
			}
			for _, m := range tc.matches {
				if !errors.Is(err, m) {
					t.Errorf("does not match %v", m)
				}
			}
			for _, m := range tc.not {
				if errors.Is(err, m) {
					t.Errorf("matches %v", m)
				}
			}
		})
	}
	if n := len((&PayloadError{Diagnostics: []Diagnostic{errorDiag(CodeMissingBlock, "A", ""), errorDiag(CodeMissingBlock, "B", "")}}).Unwrap()); n != 1 {
		t.Errorf("Unwrap must deduplicate sentinels, got %d", n)
	}
}

func TestFieldError(t *testing.T) {
	tests := []struct {
		name    string
		err     *FieldError
		hash    bool
		message string
	}{
		{"plain", &FieldError{Field: "Mode", Value: "x", Reason: "bad"}, false, `field Mode="x": bad`},
		{"identifier", &FieldError{Field: "Hotspots[0]", Value: "src/a.ts", Reason: "r", Err: ErrHashViolation}, true, `field Hotspots[0]="src/a.ts": r`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !errors.Is(tc.err, ErrInvalidState) || !errors.Is(tc.err, ErrInvalidPayload) || errors.Is(tc.err, ErrHashViolation) != tc.hash {
				t.Errorf("sentinel matching wrong for %v", tc.err)
			}
			if tc.err.Error() != tc.message {
				t.Errorf("Error() = %q", tc.err.Error())
			}
		})
	}
}

func TestDecodeErrorOwnsDiagnostics(t *testing.T) {
	_, diags, err := Decode("nonsense")
	var pe *PayloadError
	if !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), "could not decode RL4-CODEX payload: ") {
		t.Fatalf("err %v", err)
	}
	diags[0].Code = "changed"
	if pe.Diagnostics[0].Code != CodeUnparseable {
		t.Errorf("the error shares the caller's diagnostic slice")
	}
}
