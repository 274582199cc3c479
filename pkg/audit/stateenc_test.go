package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/rao"
	"github.com/codali-dev/codali/pkg/redact"
)

// wholeRedaction is what stateEncoder must equal: the whole state
// marshalled and redacted at once, canonicalised.
func wholeRedaction(t *testing.T, r *redact.Redactor, st State) string {
	t.Helper()
	raw, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	red, err := r.JSON(raw)
	if err != nil {
		t.Fatal(err)
	}
	c, err := rao.CanonicalizeJSON(red)
	if err != nil {
		t.Fatal(err)
	}
	return string(c)
}

// encodesAsWhole encodes st with enc (step i of a test) and fails unless
// the result equals whole-state redaction and holds none of secrets.
func encodesAsWhole(t *testing.T, enc *stateEncoder, r *redact.Redactor, st State, i int, secrets ...string) {
	t.Helper()
	got, err := enc.encode(r, st)
	if err != nil {
		t.Fatalf("step %d: %v", i, err)
	}
	c, err := rao.CanonicalizeJSON(got)
	if err != nil {
		t.Fatalf("step %d: encoder gave invalid JSON %s: %v", i, got, err)
	}
	if want := wholeRedaction(t, r, st); string(c) != want {
		t.Fatalf("step %d:\n got %s\nwant %s", i, c, want)
	}
	for _, sec := range secrets {
		if strings.Contains(string(got), sec) {
			t.Fatalf("step %d: secret %q in %s", i, sec, got)
		}
	}
}

// TestStateEncoderRedactsLikeTheWholeState: a run's successive states,
// encoded by one stateEncoder (so reusing what did not change), give the
// same documents as redacting each whole state, and no secret survives:
// secrets in new array elements, in changed elements, under secret keys
// nested in tool calls, in plain members and in causes.
func TestStateEncoderRedactsLikeTheWholeState(t *testing.T) {
	r, err := redact.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	const aws = "AKIAIOSFODNN7EXAMPLE"
	secrets := []string{aws, "t0ps3cret", "hunter2-pw"}
	st := NewState("enc")
	steps := []func(*State){
		func(s *State) { s.Phase = "context" },
		func(s *State) {
			s.Request = &events.Requested{Request: "use key " + aws}
			s.Request.Options.Labels = map[string]string{"token": "t0ps3cret"}
		},
		func(s *State) { s.Attempts = append(s.Attempts, Attempt{Attempt: 1}) },
		func(s *State) {
			s.Attempts[0].ToolCalls = append(s.Attempts[0].ToolCalls, events.ToolExecution{Step: 1, Tool: "run",
				Args: json.RawMessage(`{"cmd":"ls","env":{"password":"hunter2-pw"}}`), Call: json.RawMessage(`{}`)})
		},
		func(s *State) { s.Notes = append(s.Notes, Note{By: "op", Text: "rotated " + aws}) },
		func(s *State) { s.Causes = append(s.Causes, "cause-with-"+aws) },
		func(s *State) { s.Attempts = append(s.Attempts, Attempt{Attempt: 2}) },
		func(s *State) { s.Attempts[1].PlanMode = "key " + aws },
		func(s *State) { s.Notes = nil; s.Request = nil },
		func(s *State) { s.Notes = []Note{{By: "op", Text: "fine"}} },
		func(s *State) { s.Notes = append(s.Notes, Note{By: "<op> & co", Text: "a<b && c>d \u2028 " + aws}) },
		func(s *State) {
			s.Attempts[0].ToolCalls[0].Args = json.RawMessage(`{"a":{"b":{"c":{"d":{"e":{"f":[{"password":"hunter2-pw","s":"` + aws + `"}]}}}}}}`)
		},
		func(s *State) {
			s.Attempts[0].ToolCalls[0].Call = json.RawMessage(`{"auth":{"list":["t0ps3cret",{"n":1}]},"plain":["x"]}`)
		},
		func(s *State) {
			s.Attempts[0].ToolCalls[0].Call = json.RawMessage(`{"auth":{"list":["t0ps3cret",{"n":2}]},"plain":["x","y"]}`)
		},
	}
	// Padding makes the subtrees large enough to be walked into.
	pad := strings.Repeat("p", redactWholeBelow)
	steps = append(steps,
		func(s *State) {
			s.Attempts[0].ToolCalls[0].Args = json.RawMessage(`{"pad":"` + pad + `","a":{"pad":"` + pad + `","b":[{"pad":"` + pad + `","c":{"secret":{"pad":"` + pad + `"},"s":"` + aws + `"}},"` + aws + `"]}}`)
		},
		func(s *State) {
			s.Attempts[0].ToolCalls[0].Args = json.RawMessage(`{"pad":"` + pad + `","a":{"pad":"` + pad + `","b":[{"pad":"` + pad + `","c":{"secret":{"pad":"` + pad + `","x":1},"s":"` + aws + `"}},"` + aws + `","new"]}}`)
		},
		func(s *State) {
			s.Attempts[0].ToolCalls = append(s.Attempts[0].ToolCalls, s.Attempts[0].ToolCalls[0])
			s.Notes = append(s.Notes, Note{By: "op", Text: pad + " " + aws})
		},
		func(s *State) { s.Notes[len(s.Notes)-1].By = "password " + aws + " " + pad },
		func(s *State) {
			s.Attempts[0].ToolCalls[1].Args = json.RawMessage(`{"d1":{"d2":{"d3":{"d4":{"d5":{"d6":{"d7":{"token":"` + pad + `","v":"` + aws + " " + pad + `"}}}}}}}}`)
		},
	)
	// Name/value pairs, whose "value" member is redacted because of its
	// sibling: large enough to be walked into were they not pairs, at
	// several depths, the name before and after the value, and the name
	// changing between a secret and an ordinary one.
	secrets = append(secrets, "pair-s3cret")
	pair := func(name, extra string) string {
		v := "plain-value"
		if redact.IsSecretKey(name) {
			v = "pair-s3cret"
		}
		return `{"name":"` + name + `","pad":"` + pad + `","value":"` + v + ` ` + pad + `"` + extra + `}`
	}
	steps = append(steps,
		func(s *State) {
			s.Attempts[0].ToolCalls[0].Args = json.RawMessage(`{"env":[` + pair("DB_PASSWORD", "") + `,` + pair("PORT", "") + `]}`)
		},
		func(s *State) {
			s.Attempts[0].ToolCalls[0].Args = json.RawMessage(`{"env":[` + pair("PORT", "") + `,` + pair("PORT", "") + `]}`)
		},
		func(s *State) {
			s.Attempts[0].ToolCalls[0].Args = json.RawMessage(`{"env":[` + pair("PORT", "") + `,` + pair("api_token", "") + `]}`)
		},
		func(s *State) {
			s.Attempts[0].ToolCalls[0].Args = json.RawMessage(`{"d1":{"pad":"` + pad + `","d2":{"pad":"` + pad + `","d3":` +
				`{"value":{"inner":"pair-s3cret","pad":"` + pad + `"},"pad":"` + pad + `","Key":"DB_PASS"}}}}`)
		},
		func(s *State) {
			s.Attempts[0].ToolCalls[0].Args = json.RawMessage(`{"d1":{"pad":"` + pad + `","d2":{"pad":"` + pad + `","d3":` +
				`{"value":{"inner":"pair-s3cret","pad":"` + pad + `"},"pad":"` + pad + `","Key":"DB_PASS","more":1}}}}`)
		},
		// The name alone changes: the cached value member must not be
		// reused as it was redacted beside an ordinary name.
		func(s *State) {
			s.Attempts[0].ToolCalls[0].Args = json.RawMessage(`{"env":[{"name":"PORT","pad":"` + pad + `","value":{"v":"plain ` + pad + `"}}]}`)
		},
		func(s *State) {
			s.Attempts[0].ToolCalls[0].Args = json.RawMessage(`{"env":[{"name":"DB_PASSWORD","pad":"` + pad + `","value":{"v":"plain ` + pad + `"}}]}`)
		},
		func(s *State) {
			s.Attempts[0].ToolCalls[0].Args = json.RawMessage(`{"env":[{"name":"PORT","pad":"` + pad + `","value":{"v":"plain ` + pad + `"}}]}`)
		},
		// The whole tool call a pair: its value member is the args.
		func(s *State) {
			s.Attempts[0].ToolCalls[1].Args = json.RawMessage(pair("client_secret", `,"list":[`+pair("x", "")+`]`))
		},
		func(s *State) {
			s.Attempts[0].ToolCalls[1].Args = json.RawMessage(pair("client_secret", `,"list":[`+pair("x", "")+`,1]`))
		},
	)
	enc := &stateEncoder{}
	for i, step := range steps {
		step(&st)
		st.Causes = append(st.Causes, "c"+strings.Repeat("x", i))
		encodesAsWhole(t, enc, r, st, i, secrets...)
	}
	if !strings.Contains(wholeRedaction(t, r, st), "[REDACTED:") {
		t.Fatal("the test states hold no redacted secret: the test proves nothing")
	}
}

// TestStateEncoderWithoutRedactor: no redactor, no redaction.
func TestStateEncoderWithoutRedactor(t *testing.T) {
	st := NewState("plain")
	st.Notes = []Note{{By: "<x>", Text: "AKIAIOSFODNN7EXAMPLE"}}
	got, err := (&stateEncoder{}).encode(nil, st)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(st)
	if string(got) != strings.TrimSuffix(want.String(), "\n") {
		t.Fatalf("got %s, want %s", got, want.String())
	}
}

// TestRedactValueRejectsBadJSON: a value that is not JSON is an error,
// never passed on unredacted, whether walked into or redacted whole.
func TestRedactValueRejectsBadJSON(t *testing.T) {
	r, err := redact.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	// Parts of a checked document are redacted as they are; a part that
	// is not JSON (which a checked document cannot hold) is refused by
	// the redactor, whatever the key.
	for _, raw := range []string{`[1,`, `{"x":`, `"unterminated`} {
		for _, key := range []string{"list", "password"} {
			_, err := redactValue(r, key, rao.ValidJSON(raw), nil, 1, nil)
			if !errors.Is(err, redact.ErrInvalidJSON) {
				t.Errorf("redactValue(%q, %s) = %v, want an invalid-JSON error", key, raw, err)
			}
		}
	}
}

// TestAppendKeyMatchesTheRedactor: keys are written as redact.JSON writes
// them, plain or escaped, so values are cut out of its output exactly.
func TestAppendKeyMatchesTheRedactor(t *testing.T) {
	r, err := redact.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"plain", "", "a<b>&c", "quote\"", "tab\t", "é", "line\u2028sep"} {
		out, err := redactUnder(r, key, []byte(`"v"`))
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != `"v"` {
			t.Errorf("key %q: value cut out as %s", key, out)
		}
	}
}

// TestStateEncoderPairsProperty: random successions of tool arguments
// made of name/value pairs (secret and ordinary names, either order,
// large and small, nested) and other members: the encoder gives each
// state's whole redaction, and no pair's secret survives.
func TestStateEncoderPairsProperty(t *testing.T) {
	r, err := redact.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	names := []string{"DB_PASSWORD", "PORT", "api_token", "LOG_LEVEL", "dbPass", "max_tokens"}
	var object func(depth int) string
	object = func(depth int) string {
		var members []string
		if rng.IntN(2) == 0 {
			members = append(members, `"`+[]string{"name", "key", "Name"}[rng.IntN(3)]+`":"`+names[rng.IntN(len(names))]+`"`,
				`"`+[]string{"value", "Value"}[rng.IntN(2)]+`":"v-`+strings.Repeat("s", rng.IntN(300))+`"`)
		}
		for n := rng.IntN(3); n > 0; n-- {
			switch rng.IntN(3) {
			case 0:
				members = append(members, `"pad":"`+strings.Repeat("p", rng.IntN(400))+`"`)
			case 1:
				if depth > 0 {
					members = append(members, `"obj":`+object(depth-1))
				}
			default:
				if depth > 0 {
					members = append(members, `"list":[`+object(depth-1)+`,`+object(depth-1)+`]`)
				}
			}
		}
		rng.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
		return "{" + strings.Join(members, ",") + "}"
	}
	for run := range 40 {
		st := NewState("pairs")
		st.Attempts = []Attempt{{Attempt: 1, ToolCalls: []events.ToolExecution{{Step: 1, Tool: "run", Call: json.RawMessage(`{}`)}}}}
		enc := &stateEncoder{}
		for step := range 12 {
			if rng.IntN(3) > 0 || step == 0 {
				st.Attempts[0].ToolCalls[0].Args = json.RawMessage(object(4))
			} else {
				st.Notes = append(st.Notes, Note{By: "op", Text: "n"})
			}
			got, err := enc.encode(r, st)
			if err != nil {
				t.Fatal(err)
			}
			c, err := rao.CanonicalizeJSON(got)
			if err != nil {
				t.Fatal(err)
			}
			want := wholeRedaction(t, r, st)
			if string(c) != want {
				t.Fatalf("run %d step %d:\n got %s\nwant %s", run, step, c, want)
			}
			var doc any
			_ = json.Unmarshal(got, &doc)
			checkPairsRedacted(t, doc)
		}
	}
}

// checkPairsRedacted fails t if an object of v with a name or key member
// naming a secret keeps its value member.
func checkPairsRedacted(t *testing.T, v any) {
	t.Helper()
	switch x := v.(type) {
	case map[string]any:
		secret := false
		for _, k := range []string{"name", "key", "Name"} {
			if n, ok := x[k].(string); ok && redact.IsSecretKey(n) {
				secret = true
			}
		}
		for _, k := range []string{"value", "Value"} {
			if val, ok := x[k].(string); ok && secret && val != "[REDACTED:secret]" {
				t.Fatalf("pair value kept: %v", x)
			}
		}
		for _, e := range x {
			checkPairsRedacted(t, e)
		}
	case []any:
		for _, e := range x {
			checkPairsRedacted(t, e)
		}
	}
}

// TestStateEncoderKeepsUsageCounters: the model usage the state records
// (input_tokens, output_tokens, tokens of the spend, the request's
// budget) keeps its numbers through redaction, whole and incremental,
// while a secret beside it is still redacted.
func TestStateEncoderKeepsUsageCounters(t *testing.T) {
	r, err := redact.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	st := NewState("usage")
	st.Request = &events.Requested{Request: "x"}
	st.Request.Options.Labels = map[string]string{"DB_PASS": "hunter2-pw"}
	st.Request.Options.Budget = &events.Budget{Tokens: 90000, Cost: 2}
	st.Usage = []events.ModelUsage{events.Call("builder", "openai", "gpt", 1234, 567, 0)}
	st.Attempts = []Attempt{{Attempt: 1, Usage: []events.ModelUsage{events.Call("critic", "anthropic", "claude", 4321, 765, 0)}}}
	st.Spend = events.SpendByPhase{"builder": {Tokens: 1801, Cost: 0.5}}
	got, err := (&stateEncoder{}).encode(r, st)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(got), "hunter2-pw") {
		t.Fatalf("secret kept: %s", got)
	}
	var back State
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatal(err)
	}
	if *back.Request.Options.Budget != *st.Request.Options.Budget || back.Usage[0] != st.Usage[0] || back.Attempts[0].Usage[0] != st.Attempts[0].Usage[0] || back.Spend["builder"] != st.Spend["builder"] {
		t.Fatalf("usage changed by redaction:\n got %+v %+v %+v\nwant %+v %+v %+v", back.Usage, back.Attempts[0].Usage, back.Spend,
			st.Usage, st.Attempts[0].Usage, st.Spend)
	}
	if want := wholeRedaction(t, r, st); !strings.Contains(want, `"input_tokens":1234`) {
		t.Fatalf("whole redaction lost input_tokens: %s", want)
	}
}

// TestStateEncoderKeepsArgvTogether: an array of strings read as a
// command line has its password redacted because of the command before
// it; the encoder, which walks into large arrays at shallow depths, does
// not split it (redact.JointElements), so the password goes.
func TestStateEncoderKeepsArgvTogether(t *testing.T) {
	r, err := redact.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	pad := strings.Repeat("p", redactWholeBelow)
	st := NewState("argv")
	enc := &stateEncoder{}
	for i, causes := range [][]string{
		{"docker", "login", "-p", "argv-s3cret", pad},
		{"mysql", "-uroot", "-pargv-s3cret", pad},
		{"mysql", "-uroot", "-pargv-s3cret", pad, "more"},
	} {
		st.Causes = causes
		encodesAsWhole(t, enc, r, st, i, "argv-s3cret")
	}
}

// TestStateEncoderKeepsSplitCommandTogether: a tool call's arguments
// naming the command in one member and its arguments in another
// ({"cmd":"mysql","args":[…,"-pSECRET"]}) redact together; the encoder
// does not split the object (redact.PairedMembers), so the password goes.
func TestStateEncoderKeepsSplitCommandTogether(t *testing.T) {
	r, err := redact.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	pad := strings.Repeat("p", redactWholeBelow)
	st := NewState("split")
	enc := &stateEncoder{}
	for i, args := range []string{
		`{"cmd":"mysql","args":["-uroot","-psplit-s3cret","` + pad + `"]}`,
		`{"args":["login","-p","split-s3cret","` + pad + `"],"command":["docker"]}`,
		`{"args":["login","-p","split-s3cret","` + pad + `","r"],"command":["docker"],"x":"` + pad + `"}`,
	} {
		st.Attempts = []Attempt{{Attempt: 1, ToolCalls: []events.ToolExecution{{Step: 1, Tool: "run", Args: json.RawMessage(args), Call: json.RawMessage(`{}`)}}}}
		encodesAsWhole(t, enc, r, st, i, "split-s3cret")
	}
}
