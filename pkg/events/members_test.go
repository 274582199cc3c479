package events

import (
	"encoding/json"
	"reflect"
	"testing"
)

// memberSeeds are event data the member scanner must read as decoding
// does: phase payloads as Codali writes them, strings holding brackets,
// quotes and escapes, keys that match "run" or "exchanges" only after
// case folding or unescaping, duplicates, wrong types, other values.
func memberSeeds(t testing.TB) [][]byte {
	t.Helper()
	run := Run{Request: Requested{Request: `fix "it" {now} [please] \ done`, Repo: RepoRef{Path: "/r"}}, Project: "p", MaxRetries: 2, Failures: []string{"}]"}}
	var seeds [][]byte
	for _, v := range []any{
		PlanData{Run: run, Plan: Plan{Summary: "s]}", Steps: []PlanStep{{ID: "1", Description: `"{"`}}}},
		BuiltData{Run: run, Exchanges: []ExchangeRef{{Hash: "h"}}},
		VerdictData{Run: run, Status: StatusFailed, Reason: "\\"},
	} {
		raw, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, raw)
	}
	for _, s := range []string{
		`{"run":{"project":"a"},"RUN":{"max_retries":3}}`,
		`{"Run":{"project":"a"}}`,
		`{"r\u0075n":{"project":"a"}}`,
		`{"run":{"project":"a"},"run":{"max_retries":3}}`,
		`{"run":{"project":5,"max_retries":2}}`,
		`{"run":null}`,
		` { "x" : [1, {"a":"\"}"}], "run" : {"project" : "b"} , "exchanges":[] } `,
		`{"exch\u0061nges":1}`,
		`{"ExChanges":1,"a":true}`,
		`{}`, `[]`, `null`, `"run"`, `{"run":`, `{"run":{}}x`, `1`,
	} {
		seeds = append(seeds, []byte(s))
	}
	return seeds
}

// FuzzRunMember: whenever runMember decides, it gives what decoding the
// whole data into a struct with a run field gives.
func FuzzRunMember(f *testing.F) {
	for _, s := range memberSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := runMember(data)
		if !ok {
			return
		}
		var carrier struct {
			Run Run `json:"run"`
		}
		_ = json.Unmarshal(data, &carrier)
		if !reflect.DeepEqual(got, carrier.Run) {
			t.Fatalf("run of %s:\n got %#v\nwant %#v", data, got, carrier.Run)
		}
	})
}

// FuzzExchangesOf: exchangesOf says what decoding the data into a map of
// raw members says.
func FuzzExchangesOf(f *testing.F) {
	for _, s := range memberSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		members, has, ok := exchangesOf(data)
		var obj map[string]json.RawMessage
		err := json.Unmarshal(data, &obj)
		_, wantHas := obj["exchanges"]
		wantOK := err == nil && obj != nil
		if ok != wantOK || (ok && (members != (len(obj) > 0) || has != wantHas)) {
			t.Fatalf("%s: members %v has %v ok %v; want %v %v %v", data, members, has, ok, len(obj) > 0, wantHas, wantOK)
		}
	})
}

// TestRunMemberTaken: what Codali writes is read by the member scanner,
// and the keys it must leave to decoding are left.
func TestRunMemberTaken(t *testing.T) {
	seeds := memberSeeds(t)
	for _, s := range seeds[:3] {
		if run, ok := runMember(s); !ok || run.Project != "p" {
			t.Errorf("runMember(%s) = %+v, %v", s, run, ok)
		}
	}
	for _, s := range seeds[3:7] {
		if _, ok := runMember(s); ok {
			t.Errorf("runMember decided %s", s)
		}
	}
}
