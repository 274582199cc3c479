package policy

import (
	"errors"
	"testing"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name       string
		policy     *Policy
		wantFields []string // every field that must be reported, in order
	}{
		{name: "default is valid", policy: Default()},
		{name: "zero is valid", policy: &Policy{}},
		{name: "nil policy", policy: nil, wantFields: nil},
		{
			name: "every problem collected",
			policy: &Policy{
				NeverTouch:         []string{"ok/**", "[bad"},
				AlwaysAllow:        Scope{Tools: []string{""}, Paths: []string{"/abs"}},
				RequireApprovalFor: Scope{Tools: []string{"x", ""}, Paths: []string{"a**"}},
				Commands:           Commands{Allow: [][]string{{"go"}, {}, {"go", ""}}},
				Destructive:        "sometimes",
				MaxChangedLines:    -1,
			},
			wantFields: []string{
				"never_touch[1]",
				"always_allow.paths[0]",
				"require_approval_for.paths[0]",
				"always_allow.tools[0]",
				"require_approval_for.tools[1]",
				"commands.allow[1]",
				"commands.allow[2][1]",
				"destructive",
				"max_changed_lines",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.policy.Validate()
			if tt.policy == nil {
				if !errors.Is(err, ErrInvalidPolicy) {
					t.Fatalf("Validate(nil) = %v, want ErrInvalidPolicy", err)
				}
				return
			}
			if len(tt.wantFields) == 0 {
				if err != nil {
					t.Fatalf("Validate = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, ErrInvalidPolicy) {
				t.Fatalf("Validate = %v, want ErrInvalidPolicy", err)
			}
			joined, ok := err.(interface{ Unwrap() []error })
			if !ok {
				t.Fatalf("Validate error %T does not join errors", err)
			}
			var got []string
			for _, e := range joined.Unwrap() {
				var fe *FieldError
				if !errors.As(e, &fe) {
					t.Fatalf("problem %v is not a *FieldError", e)
				}
				got = append(got, fe.Field)
			}
			if len(got) != len(tt.wantFields) {
				t.Fatalf("fields = %q, want %q", got, tt.wantFields)
			}
			for i := range got {
				if got[i] != tt.wantFields[i] {
					t.Errorf("field %d = %q, want %q", i, got[i], tt.wantFields[i])
				}
			}
			if !errors.Is(err, ErrInvalidGlob) {
				t.Errorf("glob problems do not match ErrInvalidGlob")
			}
			if !errors.Is(err, errUnknownMode) || !errors.Is(err, errEmptyPrefix) || !errors.Is(err, errNegativeLineLimit) {
				t.Errorf("underlying problems not reachable through errors.Is: %v", err)
			}
		})
	}
}
