package policy

import "strings"

// RequiresApproval reports whether the decision lets the call run only
// once approved: it is not blocked and require_approval_for raised a
// warning for it.
func (d Decision) RequiresApproval() bool {
	if d.Blocked {
		return false
	}
	for _, w := range d.Warnings {
		if strings.HasPrefix(w, WarningRequiresApproval) {
			return true
		}
	}
	return false
}
