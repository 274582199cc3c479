// Package afs implements the Agentic File System of the Cognitive Protocol
// v0.3: the canonical `.context/` files (scratchpad state, metacognition,
// goals, emotions, epistemic state, history), their v0.3 metadata, the
// rendered state.md view, hazard playbooks, the file policy table and the
// scope merge rules.
//
// It knows no pipeline phase. A run's `.context/` is a projection of its
// recorded history entries: [Project] is a pure function from entries (plus
// optional base files and a Cortex cognition state) to [Files], so the
// directory can always be rebuilt. [Session] is the live form of the same
// fold, used while a tool loop runs: it creates the entries and reports
// spinning and help-seeking as they arise. [Render] turns Files into file
// contents, [Write] materialises them into a directory and [ReadDir] reads
// a directory back, accepting snake_case and camelCase keys.
package afs
