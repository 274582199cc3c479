package audit

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/redact"
)

// jnode is a JSON value of the mutation test: an object (ordered members,
// duplicate keys allowed), an array or a scalar written as it is.
type jnode struct {
	keys   []string
	vals   []*jnode
	elems  []*jnode
	isObj  bool
	isArr  bool
	scalar string
}

func (n *jnode) write(b *strings.Builder) {
	switch {
	case n.isObj:
		b.WriteByte('{')
		for i, k := range n.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Quote(k) + ":")
			n.vals[i].write(b)
		}
		b.WriteByte('}')
	case n.isArr:
		b.WriteByte('[')
		for i, e := range n.elems {
			if i > 0 {
				b.WriteByte(',')
			}
			e.write(b)
		}
		b.WriteByte(']')
	default:
		b.WriteString(n.scalar)
	}
}

// all lists n and every node below it.
func (n *jnode) all(out []*jnode) []*jnode {
	out = append(out, n)
	for _, v := range n.vals {
		out = v.all(out)
	}
	for _, e := range n.elems {
		out = e.all(out)
	}
	return out
}

// mutationKeys are pair roles in several spellings, secret keys and
// ordinary keys, few enough that objects get duplicate keys.
var mutationKeys = []string{"name", "Name", "KEY", "n_a_m_e", "value", "Value", "VALUE", "password", "list", "pad", "x", "kind", "data", "stringData", "command", "args", "cmd"}

// mutationScalars are secret and ordinary names, secrets in text, and
// strings around the encoder's size threshold.
func mutationScalar(rng *rand.Rand) string {
	switch rng.IntN(8) {
	case 0, 1:
		return strconv.Quote([]string{"DB_PASSWORD", "PORT", "api_token", "dbPass", "max_tokens", "bypass", "client_secret", "LOG_LEVEL", "Secret", "mysql", "-pS3CRET", "docker", "login", "-p"}[rng.IntN(14)])
	case 2:
		return `"DB_PASS\u0057ORD"`
	case 3:
		return strconv.Itoa(rng.IntN(100000))
	case 4:
		return []string{"true", "null", "-1.5e3"}[rng.IntN(3)]
	case 5:
		return `"key AKIAIOSFODNN7EXAMPLE"`
	}
	return strconv.Quote("v" + strings.Repeat("p", redactWholeBelow-40+rng.IntN(80)))
}

func randomNode(rng *rand.Rand, depth int) *jnode {
	switch k := rng.IntN(4); {
	case depth <= 0 || k == 0:
		return &jnode{scalar: mutationScalar(rng)}
	case k == 1:
		n := &jnode{isArr: true}
		for range rng.IntN(3) {
			n.elems = append(n.elems, randomNode(rng, depth-1))
		}
		return n
	default:
		n := &jnode{isObj: true}
		for range rng.IntN(4) {
			n.keys = append(n.keys, mutationKeys[rng.IntN(len(mutationKeys))])
			n.vals = append(n.vals, randomNode(rng, depth-1))
		}
		return n
	}
}

// mutate changes one random node of root in place: a scalar, a key, a
// member or element added or removed, or a subtree replaced.
func mutate(rng *rand.Rand, root *jnode) {
	nodes := root.all(nil)
	n := nodes[rng.IntN(len(nodes))]
	switch {
	case n.isObj && len(n.keys) > 0 && rng.IntN(3) == 0:
		n.keys[rng.IntN(len(n.keys))] = mutationKeys[rng.IntN(len(mutationKeys))]
	case n.isObj && len(n.keys) > 0 && rng.IntN(3) == 0:
		i := rng.IntN(len(n.keys))
		n.keys = append(n.keys[:i], n.keys[i+1:]...)
		n.vals = append(n.vals[:i], n.vals[i+1:]...)
	case n.isObj:
		i := rng.IntN(len(n.keys) + 1)
		n.keys = append(n.keys[:i], append([]string{mutationKeys[rng.IntN(len(mutationKeys))]}, n.keys[i:]...)...)
		n.vals = append(n.vals[:i], append([]*jnode{randomNode(rng, 2)}, n.vals[i:]...)...)
	case n.isArr && len(n.elems) > 0 && rng.IntN(2) == 0:
		i := rng.IntN(len(n.elems))
		n.elems = append(n.elems[:i], n.elems[i+1:]...)
	case n.isArr:
		i := rng.IntN(len(n.elems) + 1)
		n.elems = append(n.elems[:i], append([]*jnode{randomNode(rng, 2)}, n.elems[i:]...)...)
	case rng.IntN(4) == 0:
		*n = *randomNode(rng, 3)
	default:
		n.scalar = mutationScalar(rng)
	}
}

// TestStateEncoderMutationsProperty: random documents changed one node
// at a time (a pair's name in an unchanged sibling, a key turning into
// "value" or "name", members added and removed, duplicate keys, sizes
// around the walking threshold), so the encoder reuses most of the
// previous state: each state's encoding is byte for byte the whole
// state's redaction.
func TestStateEncoderMutationsProperty(t *testing.T) {
	r, err := redact.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(11, 12))
	paired := 0
	for run := range 200 {
		st := NewState("mutations")
		st.Attempts = []Attempt{{Attempt: 1, ToolCalls: []events.ToolExecution{{Step: 1, Tool: "run", Call: json.RawMessage(`{}`)}}}}
		root := &jnode{isObj: true}
		for range 3 {
			root.keys = append(root.keys, mutationKeys[rng.IntN(len(mutationKeys))])
			root.vals = append(root.vals, randomNode(rng, 5))
		}
		enc := &stateEncoder{}
		for step := range 30 {
			if step > 0 {
				for range 1 + rng.IntN(2) {
					mutate(rng, root)
				}
			}
			var b strings.Builder
			root.write(&b)
			st.Attempts[0].ToolCalls[0].Args = json.RawMessage(b.String())
			got, err := enc.encode(r, st)
			if err != nil {
				t.Fatalf("run %d step %d: %v", run, step, err)
			}
			var whole bytes.Buffer
			je := json.NewEncoder(&whole)
			je.SetEscapeHTML(false)
			if err := je.Encode(st); err != nil {
				t.Fatal(err)
			}
			want, err := r.JSON(bytes.TrimSuffix(whole.Bytes(), []byte("\n")))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("run %d step %d: args %s\n got %s\nwant %s", run, step, b.String(), got, want)
			}
			if bytes.Contains(got, []byte("AKIAIOSFODNN7EXAMPLE")) {
				t.Fatalf("run %d step %d: secret kept in %s", run, step, got)
			}
			if redact.PairedMembers(func(yield func(string, []byte) bool) {
				for i, k := range root.keys {
					var vb strings.Builder
					root.vals[i].write(&vb)
					if !yield(k, []byte(vb.String())) {
						return
					}
				}
			}) {
				paired++
			}
		}
	}
	if paired == 0 {
		t.Error("no state's top object was a pair: the test proves little")
	}
	t.Logf("%d states with a paired top object", paired)
}
