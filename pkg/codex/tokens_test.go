package codex

import (
	"reflect"
	"testing"
)

func TestTokenize(t *testing.T) {
	tests := []struct {
		name    string
		block   string
		content string
		want    []string
	}{
		{"pipes", BlockData, "proj#7fa2 | mode=strict|phase=build", []string{"proj#7fa2", "mode=strict", "phase=build"}},
		{"newline separates", BlockData, "tasks=3\nkpi:velocity=steady", []string{"tasks=3", "kpi:velocity=steady"}},
		{"comma in value kept with pipes", BlockTimeline, "cycles=5 | hotspots=mod#a913,api#f02c", []string{"cycles=5", "hotspots=mod#a913,api#f02c"}},
		{"comma fallback", BlockData, "mode=strict, phase=build,tasks=3", []string{"mode=strict", "phase=build", "tasks=3"}},
		{"comma fallback keeps list values", BlockTimeline, "hotspots=mod#a913,api#f02c, cycles=5", []string{"hotspots=mod#a913,api#f02c", "cycles=5"}},
		{"comma fallback keeps hash()", BlockContext, "stack=hash(fe, api,llm),type=x", []string{"stack=hash(fe,api,llm)", "type=x"}},
		{"comma fallback splits standalone symbols", BlockDecisions, "drift=a,b,adr#c3d1", []string{"drift=a,b", "adr#c3d1"}},
		{"comma fallback proj stands alone", BlockData, "mode=strict,proj#7fa2", []string{"mode=strict", "proj#7fa2"}},
		{"comma fallback checksum stands alone", BlockOptional, "vendor=x,checksum#92af", []string{"vendor=x", "checksum#92af"}},
		{"comma fallback bare first", BlockTimeline, "edit,cycles=5", []string{"edit", "cycles=5"}},
		{"spaces in parens dropped", BlockInsights, "pattern:x(weight=0.60, conf=0.71)", []string{"pattern:x(weight=0.60,conf=0.71)"}},
		{"trailing comma glues", BlockTimeline, "hotspots=mod#a913, api#f02c | cycles=5", []string{"hotspots=mod#a913,api#f02c", "cycles=5"}},
		{"plus glues", BlockTimeline, "actions=edit + analysis", []string{"actions=edit+analysis"}},
		{"pipe does not glue", BlockTimeline, "actions=edit+ | cycles=5", []string{"actions=edit+", "cycles=5"}},
		{"empty tokens skipped", BlockData, "| mode=strict || phase=x |", []string{"mode=strict", "phase=x"}},
		{"unbalanced paren reset by pipe", BlockInsights, "trend:x(conf=1 | forecast:y", []string{"trend:x(conf=1", "forecast:y"}},
		{"stray close paren", BlockData, "a)b c", []string{"a)b", "c"}},
		{"empty", BlockData, "", []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := []string{}
			for _, tok := range tokenize(tc.block, tc.content) {
				got = append(got, tok.text)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestParseToken(t *testing.T) {
	tests := []struct {
		name, in   string
		key, value string
		op         byte
	}{
		{"equals", "mode=strict", "mode", "strict", '='},
		{"colon first", "kpi:velocity=steady", "kpi", "velocity=steady", ':'},
		{"equals inside parens ignored", "pattern:x(weight=1)", "pattern", "x(weight=1)", ':'},
		{"paren before operator", "f(a=b)=c", "f(a=b)", "c", '='},
		{"bare", "proj#7fa2", "", "", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := parseToken(tc.in, false)
			if got.key != tc.key || got.value != tc.value || got.op != tc.op || got.text != tc.in {
				t.Errorf("got %+v", got)
			}
		})
	}
}

func TestSplitList(t *testing.T) {
	tests := []struct {
		name, in string
		want     List[string]
	}{
		{"plus", "edit+analysis", List[string]{"edit", "analysis"}},
		{"comma", "a,b", List[string]{"a", "b"}},
		{"empty items dropped", ",a,,b+", List[string]{"a", "b"}},
		{"empty is known", "", List[string]{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := splitList(tc.in)
			if !reflect.DeepEqual(got, tc.want) || got == nil {
				t.Errorf("got %#v, want %#v", got, tc.want)
			}
		})
	}
}

func TestProseRuns(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    [][2]int
	}{
		{"three spaced words", "fix the bug", [][2]int{{0, 3}}},
		{"two words are not prose", "fix bug", nil},
		{"pipes break runs", "a | b | c", nil},
		{"newlines break runs", "a\nb\nc", nil},
		{"tokens with operators break runs", "a b=c d e", nil},
		{"run after token", "mode=x now we talk here", [][2]int{{1, 4}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := proseRuns(tokenize(BlockData, tc.content)); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}
