package artifacts

import "time"

// LookAgainFor sets how long s.Get looks again for an object that is not
// found (a test shortens it to expose a replica that lags longer).
func LookAgainFor(s *Store, d time.Duration) { s.lookAgain = d }
