package afs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLearningsAndPromotion(t *testing.T) {
	s, base := scenario(t)
	files, _ := Project(ProjectInput{Producer: testProducer, Entries: s.Entries(), Base: base, Cognition: scenarioCognition()})
	ls := Learnings(files, "project demo, run run-1")
	kinds := map[string]int{}
	for _, l := range ls {
		kinds[l.Kind]++
	}
	// fear of migrations (7), the spinning and failure frustrations are
	// not fears; satisfaction of the edit (4); one L1 working fact; the
	// plan decision.
	if kinds[LearningFear] != 1 || kinds[LearningSatisfaction] != 1 || kinds[LearningKnowledge] != 1 || kinds[LearningDecision] != 1 {
		t.Fatalf("learnings by kind %v: %+v", kinds, ls)
	}
	dir := t.TempDir()
	if _, err := Promote(dir, testProducer, ls, Approval{By: "alice", Reason: "useful"}, t0); !errors.Is(err, ErrNotApproved) {
		t.Fatalf("promotion without an override: %v, want ErrNotApproved", err)
	}
	if _, err := os.Stat(filepath.Join(dir, DirHivemind)); !os.IsNotExist(err) {
		t.Fatal("an unapproved promotion wrote files")
	}
	a := Approval{By: "alice", Reason: "useful", Override: "run-1.override.1"}
	n, err := Promote(dir, testProducer, ls, a, t0)
	if err != nil || n != 4 {
		t.Fatalf("Promote = %d, %v", n, err)
	}
	// Again: the same learnings are no news, but not older either: replaced
	// in place, nothing duplicated.
	if n, err := Promote(dir, testProducer, ls, a, t0.Add(time.Hour)); err != nil || n != 4 {
		t.Fatalf("second Promote = %d, %v", n, err)
	}
	got, err := ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Hivemind) != 4 {
		t.Fatalf("hivemind files %v", sortedKeys(got.Hivemind))
	}
	fears := string(got.Hivemind["fears.json"])
	if strings.Count(fears, `"id": "fear-`) != 1 || !strings.Contains(fears, "add a new migration") || !strings.Contains(fears, `"override": "run-1.override.1"`) {
		t.Errorf("fears.json:\n%s", fears)
	}
	// A newer entry in the scope is not overwritten by an older promotion.
	old := ls[0]
	old.UpdatedAt = Timestamp(t0.Add(-48 * time.Hour))
	old.Content = ls[0].Content
	if n, err := Promote(dir, testProducer, []Learning{old}, a, t0); err != nil || n != 0 {
		t.Errorf("older promotion = %d, %v; want 0 changes", n, err)
	}
	if _, err := Promote(dir, testProducer, []Learning{{ID: "x", Kind: "gossip"}}, a, t0); !errors.Is(err, ErrShape) {
		t.Errorf("unknown kind: %v", err)
	}
}
