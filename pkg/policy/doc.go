// Package policy is Codali's tool-call policy gate.
//
// The Builder asks [Policy.Evaluate] before every tool execution and records
// the returned [Decision] in the RAO audit history, tagged with
// [Policy.Hash], [ContractHash] and [EvaluatorVersion]. Auditors later call
// [Simulate] to re-evaluate today's policy over recorded tool calls; that
// path is pure: it never executes anything, performs no I/O and is
// deterministic.
//
// A policy is loaded from YAML or JSON with [Load] or [Parse], or taken from
// [Default]. Path rules use the glob syntax of [MatchGlob].
package policy
