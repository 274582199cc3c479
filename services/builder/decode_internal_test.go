package builder

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/cognition"
	"github.com/codali-dev/codali/pkg/events"
)

// TestDecodePlanSkipsTheCortexState: the builder's reading of a plan event
// is DecodeData's but for the Cortex report it does not use, and it still
// refuses an invalid plan.
func TestDecodePlanSkipsTheCortexState(t *testing.T) {
	st := cognition.NewState()
	data := events.PlanData{
		Run:    events.Run{Project: "p", Request: events.Requested{Request: "add a file", Repo: events.RepoRef{Path: "/r"}}},
		Plan:   events.Plan{Summary: "s", Steps: []events.PlanStep{{Description: "write it", Files: []string{"a.txt"}}}, Verify: []events.VerifyCommand{{Name: "v", Command: []string{"test", "-f", "a.txt"}}}},
		Cortex: &events.CortexReport{Found: true, GoalOps: 1, State: &st},
		Mode:   "full",
	}
	e, err := events.New("run-1", events.KindPlan, 1, "codali/architect", time.Now(), data)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodePlan(e)
	if err != nil {
		t.Fatal(err)
	}
	var want events.PlanData
	if err := events.DecodeData(e, &want); err != nil {
		t.Fatal(err)
	}
	if want.Cortex == nil || got.Cortex != nil {
		t.Fatalf("cortex: DecodeData %v, decodePlan %v", want.Cortex, got.Cortex)
	}
	want.Cortex = nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("decodePlan\n%+v\nwant\n%+v", got, want)
	}
	data.Plan.Steps = nil
	bad, err := events.New("run-1", events.KindPlan, 1, "codali/architect", time.Now(), data)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := decodePlan(bad); !errors.Is(err, events.ErrInvalidPayload) {
		t.Errorf("a plan without steps: %v, want ErrInvalidPayload", err)
	}
}
