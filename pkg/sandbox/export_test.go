package sandbox

// UsePrlimitProgram makes s set its limits with the prlimit program around
// bwrap, the way taken where it cannot set them itself. Call it before
// the first Check or Run.
func UsePrlimitProgram(s *Sandbox) { s.noLimitInside = true }

// LimitsInside reports whether s sets its sandboxes' limits itself.
func LimitsInside(s *Sandbox) bool { return s.limitInside }
