// Package rao is the generic machinery behind RAO histories: the per-run
// record of how a run's JSON "state document" changed over time.
//
// Each change is an [Event] carrying an RFC 6902 JSON Patch ([Patch]) from
// the previous state to the new one; every CheckpointEvery-th event also
// carries the full state ([Event.Snapshot]) so that a state can be rebuilt
// without reading the whole history and so that old events can be dropped
// ([CompactionPoint], [Retention]). Events are chained by SHA-256 hashes
// ([Hash], [Event.PrevHash]) and [Verify] reports removed, reordered,
// inserted or modified events.
//
// The package is pure: it performs no I/O. Package raostore keeps
// histories in the JetStream stream RAO.
//
// Determinism: [Canonical] and [CanonicalizeJSON] produce canonical JSON
// (sorted keys, no insignificant whitespace, numbers kept verbatim) and
// [Diff] returns operations sorted by path, then op, so identical input
// states always produce byte-identical deltas.
package rao
