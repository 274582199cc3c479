package sandbox

// UsePrlimitProgram makes s set its limits with the prlimit program around
// bwrap, the way taken where it cannot set them itself. Call it before
// the first Check or Run.
func UsePrlimitProgram(s *Sandbox) { s.noLimitInside = true }

// LimitsInside reports whether s sets its sandboxes' limits itself.
func LimitsInside(s *Sandbox) bool { return s.limitInside }

// SetBwrap makes s run bwrap as path from now on (after Check: a stand-in
// that behaves in a way the real one does rarely).
func SetBwrap(s *Sandbox, path string) { s.cfg.Bwrap = path }
