package builder

import (
	"encoding/json"

	"github.com/codali-dev/codali/pkg/events"
)

// planWire is a plan event's data as the builder reads it: its Cortex
// report (with the whole project state as the plan left it, kept for the
// run's history and export) is skipped, not decoded, since nothing here
// reads it; the field shadows PlanData's.
type planWire struct {
	events.PlanData
	Cortex json.RawMessage `json:"cortex,omitempty"`
}

// decodePlan decodes and validates a plan event's data, without its
// Cortex report (PlanData.Cortex stays nil).
func decodePlan(e events.Envelope) (events.PlanData, error) {
	var w planWire
	if err := events.DecodeData(e, &w); err != nil {
		return events.PlanData{}, err
	}
	return w.PlanData, nil
}
