package builder

import (
	"errors"
	"strings"

	"github.com/codali-dev/codali/pkg/events"
)

// toolErr describes a tool call that did not succeed, for the activity
// observers (nil when it did).
func toolErr(rec events.ToolExecution) error {
	switch {
	case rec.Gate.Blocked:
		return errors.New("blocked: " + strings.Join(rec.Gate.Reasons, "; "))
	case !rec.Result.OK:
		return errors.New(rec.Result.Error)
	}
	return nil
}
