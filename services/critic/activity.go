package critic

import "fmt"

// checkErr describes a check that did not pass, for the activity
// observers (nil when it passed).
func checkErr(exitCode int, err error) error {
	switch {
	case err != nil:
		return err
	case exitCode != 0:
		return fmt.Errorf("exited %d", exitCode)
	}
	return nil
}
