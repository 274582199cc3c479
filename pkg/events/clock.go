package events

import "time"

// Clock returns the current time; tests pass a fixed one.
type Clock func() time.Time

// SourceFor is the CloudEvents source of events a Codali service produces.
func SourceFor(service string) string { return "codali/" + service }
