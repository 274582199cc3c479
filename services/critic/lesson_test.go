package critic_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/apptest"
	"github.com/codali-dev/codali/pkg/docdex/docdextest"
	"github.com/codali-dev/codali/pkg/events"
)

func TestLessonsGoToDocdexWhenConfigured(t *testing.T) {
	repo := copyHello(t)
	cases := []struct {
		name       string
		fault      *docdextest.Fault
		wantDocdex int
		wantKV     int
	}{
		{"saved through docdex_memory_save, learned once", nil, 1, 0},
		{"docdex failing keeps the lesson in project memory", &docdextest.Fault{Match: "tool:docdex_memory_save", Times: 10, Status: 500, PlainText: "boom"}, 0, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := docdextest.New(t, docdextest.Options{Root: repo})
			if tc.fault != nil {
				s.Inject(*tc.fault)
			}
			d := apptest.Deps(t, fmt.Sprintf(`{"docdex": {"url": %q, "maxWaitMs": 1}, "memory": {"lessonAfterFailures": 1}}`, s.URL), apptest.Options{Getenv: getenv, PolicyJSON: testPolicy})
			h := handler(t, d)
			in := built(t, "dx", 1, repo, 3, change(t, repo, map[string]string{"greet.go": goodGreet}),
				[]events.VerifyCommand{verify("missing", "grep", "-q", "Goodbye", "greet.go")}, nil)
			for range 2 { // a redelivery must not learn twice
				output(t, mustHandle(t, h, in), in, events.KindRetry, 2)
			}
			saved := s.SavedMemories()
			if len(saved) != tc.wantDocdex || tc.wantDocdex > 0 && !strings.Contains(saved[0], "failed 1 attempts") {
				t.Errorf("docdex memories %q, want %d", saved, tc.wantDocdex)
			}
			if mem := memory(t, d); len(mem) != tc.wantKV {
				t.Errorf("L1 memory %q, want %d lessons", mem, tc.wantKV)
			}
		})
	}
}
