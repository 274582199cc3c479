package future_test

import (
	"errors"
	"testing"

	"github.com/codali-dev/codali/pkg/future"
)

func TestWaitGivesTheResults(t *testing.T) {
	errBoom := errors.New("boom")
	release := make(chan struct{})
	fu := future.Go(func() (int, error) {
		<-release
		return 7, errBoom
	})
	close(release)
	for range 2 {
		if v, err := fu.Wait(); v != 7 || !errors.Is(err, errBoom) {
			t.Fatalf("Wait = %d, %v", v, err)
		}
	}
}

func TestWaitRaisesThePanic(t *testing.T) {
	fu := future.Go(func() (struct{}, error) { panic("broken") })
	defer func() {
		if p := recover(); p != "broken" {
			t.Fatalf("recovered %v, want the function's panic", p)
		}
	}()
	_, _ = fu.Wait()
	t.Fatal("Wait returned after the function panicked")
}
