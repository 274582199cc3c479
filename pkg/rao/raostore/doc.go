// Package raostore keeps RAO histories (see package rao) in the JetStream
// stream RAO: one message per event on subject rao.<run_id>, in order.
//
// Writers append with an optimistic concurrency check (the expected last
// stream sequence of the run's subject) and a message ID derived from the
// event's cause, so a restarted or duplicated recorder can neither skip
// nor duplicate an event. Compaction purges a run's oldest messages up to
// a checkpoint, so what remains replays and verifies on its own.
package raostore
