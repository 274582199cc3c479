package codex

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestReadState(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    State
		wantErr bool
	}{
		{
			name: "camelCase fields",
			in: `{"projectHash":"proj#7fa2","mode":"strict","tasks":{"active":3,"total":7},"kpis":[{"name":"v","value":"s"}],
				"cogHealth":0.82,"cycles":5,"hotspots":["mod#a913"],"context":{"devDNA":"focus/iterative","stack":["fe"]},
				"insights":[{"kind":"trend","label":"up","conf":0.7}],"decisions":{"adrs":["adr#c3d1"],"integrity":"GREEN","adjust":["a"]},
				"optional":{"session":"sess#beef","ext":{"k":"v"}}}`,
			want: State{ProjectHash: "proj#7fa2", Mode: "strict", Tasks: &StateTasks{Active: 3, Total: ptr(7)},
				KPIs: []StateKPI{{Name: "v", Value: "s"}}, CogHealth: ptr(0.82), Cycles: ptr(5), Hotspots: []string{"mod#a913"},
				Context:   StateContext{DevDNA: "focus/iterative", Stack: []string{"fe"}},
				Insights:  []StateInsight{{Kind: "trend", Label: "up", Conf: ptr(0.7)}},
				Decisions: StateDecisions{ADRs: []string{"adr#c3d1"}, Integrity: IntegrityGreen, Adjust: []string{"a"}},
				Optional:  StateOptional{Session: "sess#beef", Ext: map[string]string{"k": "v"}}},
		},
		{name: "unknown field", in: `{"projectHash":"proj#7fa2","colour":"red"}`, wantErr: true},
		{name: "wrong type", in: `{"cycles":"five"}`, wantErr: true},
		{name: "not JSON", in: `mode=strict`, wantErr: true},
		{name: "trailing data", in: `{} {}`, wantErr: true},
		{name: "trailing garbage", in: `{} x`, wantErr: true},
		{name: "empty", in: ``, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadState(strings.NewReader(tc.in))
			if tc.wantErr {
				if !errors.Is(err, ErrInvalidState) || !errors.Is(err, ErrInvalidPayload) {
					t.Errorf("err %v", err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, %v", got, err)
			}
		})
	}
}

func TestReadStateThenEncode(t *testing.T) {
	s, err := ReadState(strings.NewReader(`{"projectHash":"proj#7fa2c0ffee","decisions":{"integrity":"red"}}`))
	if err != nil {
		t.Fatalf("ReadState: %v", err)
	}
	p, err := Encode(s)
	if err != nil || !strings.Contains(p, "<DECISIONS>integrity=red</DECISIONS>") {
		t.Errorf("Encode: %v\n%s", err, p)
	}
}
