package raostore

import "github.com/codali-dev/codali/pkg/events"

// StreamName is the name of the JetStream stream holding RAO histories.
// The stream itself is provisioned, with every other Codali resource, by
// bus.Provision: one definition of its configuration.
const StreamName = events.StreamRAO

// Subject returns the subject of run runID's events: rao.<run_id>.
func Subject(runID string) string { return events.RAOSubject(runID) }
