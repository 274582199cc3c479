// Package cognition holds the Cortex cognition model: the goal tree (a fixed
// root partition of compile-time constants plus a user partition rooted at
// "user-root"), the L1 memory (a list of strings), the patch operations that
// change them, the single function that applies those patches, and the
// input/output IR text contracts exchanged with the primary model.
//
// The package is pure: it does no I/O and keeps no state. Persisting a
// CognitionState per project is the job of package pmstate.
//
// Patch semantics follow the Cortex specification: patches apply to a deep
// copy of the previous state, goal-tree ops first and then L1 memory ops, each
// in array order. An op that cannot apply is skipped and reported as a
// Diagnostic; the others still apply. The revision increases by exactly one
// when anything changed and stays the same otherwise.
package cognition
