package cognition

// BoundMemory returns memOps followed by as many {"op":"remove","index":0}
// ops as needed so that applying the result to state leaves at most
// maxEntries L1 memory entries, dropping the oldest (lowest-index) entries
// first. It mirrors Apply's rules for skipped ops, so a single Apply of the
// returned ops both applies memOps and enforces the bound with one revision
// step. maxEntries <= 0 means no bound; memOps are then returned as a copy.
func BoundMemory(state CognitionState, memOps []L1MemoryPatchOp, maxEntries int) []L1MemoryPatchOp {
	out := append([]L1MemoryPatchOp{}, memOps...)
	if maxEntries <= 0 {
		return out
	}
	n := len(state.L1Memory.Entries)
	for _, op := range memOps {
		switch op.Op {
		case OpAppend:
			n++
		case OpInsert:
			if op.Index >= 0 && op.Index <= n {
				n++
			}
		case OpRemove:
			if op.Index >= 0 && op.Index < n {
				n--
			}
		}
	}
	for ; n > maxEntries; n-- {
		out = append(out, RemoveOp(0))
	}
	return out
}
