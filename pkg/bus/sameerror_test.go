package bus

import (
	"errors"
	"fmt"
	"testing"
)

// listError is an error type whose values cannot be compared with ==.
type listError struct{ parts []string }

func (e listError) Error() string { return fmt.Sprint(e.parts) }

// TestSameError: only the very same error value is the same error: two
// refusals with the same text are two, and values of a type == cannot
// compare are never taken for the same (nor make the comparison panic).
func TestSameError(t *testing.T) {
	a := fmt.Errorf("%w: x", errors.ErrUnsupported)
	b := fmt.Errorf("%w: x", errors.ErrUnsupported)
	l := listError{parts: []string{"x"}}
	for _, c := range []struct {
		a, b error
		want bool
	}{
		{nil, nil, true}, {a, nil, false}, {nil, a, false}, {a, a, true}, {a, b, false},
		{a, l, false}, {l, l, false},
	} {
		if got := sameError(c.a, c.b); got != c.want {
			t.Errorf("sameError(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
