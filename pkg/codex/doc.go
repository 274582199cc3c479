// Package codex encodes, validates and decodes RL4-CODEX v1.2 payloads: the
// compact, content-free summary of a run's cognitive state that Codali phases
// hand to each other.
//
// A payload is an XML-like envelope
//
//	<RL4-CODEX v="1.2">
//	<DATA>…</DATA><TIMELINE>…</TIMELINE><CONTEXT>…</CONTEXT>
//	<INSIGHTS>…</INSIGHTS><DECISIONS>…</DECISIONS><OPTIONAL>…</OPTIONAL>
//	</RL4-CODEX>
//
// whose blocks hold short tokens (`mode=strict`, `kpi:velocity=steady`,
// `proj#7fa2`) separated by ` | `. Identifiers are hashed symbols
// `namespace#hex` (see HashID); raw paths, code, JSON, YAML and base64 are
// rejected.
//
// Encode turns a State into a canonical payload and refuses to emit one that
// fails validation. Validate runs the seven-step validation algorithm and
// returns diagnostics. Decode validates, then reconstructs a CognitiveState in
// which every absent value is the explicit marker UNKNOWN (never zero), and
// reports deterministic WARN/ERROR diagnostics.
//
// All functions are pure and safe for concurrent use; none panics on any
// input.
package codex
