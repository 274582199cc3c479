package critic

import (
	"fmt"

	"github.com/codali-dev/codali/pkg/workspace"
)

// checkErr describes a check that did not pass, for the activity
// observers (nil when it passed).
func checkErr(res workspace.CommandResult, err error) error {
	switch {
	case err != nil:
		return err
	case res.ExitCode != 0:
		return fmt.Errorf("exited %d", res.ExitCode)
	}
	return nil
}
