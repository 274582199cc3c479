// Package pmstate keeps the Cortex cognition state of each project in a
// JetStream key-value bucket: one cognition.CognitionState (JSON) per project
// key. The KV revision of a project's entry is its pm_rev.
//
// Reads of a project that has no entry yet return cognition.NewState() at
// revision 0. Updates are optimistic: read state and revision, compute
// patches, apply them with cognition.Apply, validate, and write with
// compare-and-set; on a conflicting concurrent write the whole cycle is
// retried with a small jittered exponential backoff, a bounded number of
// times. An update that changes nothing writes nothing. Within one Store
// (one process) the updates of a key run one at a time, and one that
// follows the Store's own write is written on top of it without reading
// first, the compare-and-set catching any other writer.
//
// An update that changes nothing, or that its function refuses, writes
// nothing, so no compare-and-set checks the state it was decided on. On
// a cluster, where any replica of the bucket may answer a read and a
// follower may not have applied a write just acknowledged, give New a
// KeyValue whose reads are the leader's (bus.LeaderReads), as the
// services do.
package pmstate
