package cognition

import (
	"reflect"
	"testing"
)

// decodeSeeds are documents the fast decoding must take or leave to the
// member-by-member decoding: valid states, the keys it must leave (case,
// escapes, a non-ASCII letter that folds onto an ASCII one), nulls,
// duplicates and wrong types.
var decodeSeeds = []string{
	`{"revision":3,"goal_tree":{"root_partition":["a"],"user_partition":{"node_id":"user-root","summary":"s","weight":1,"children":[{"node_id":"a","summary":"<&>","weight":-5,"children":null},{"node_id":"b","summary":"b","weight":0,"children":[]}]}},"l1_memory":{"entries":["x",null]}}`,
	`{"revision":3,"goal_tree":{"user_partition":{"node_id":"user-root","summary":"s","weight":1}},"l1_memory":{}}`,
	`{"revision":3,"Goal_Tree":{"user_partition":{"node_id":"user-root","summary":"s","weight":1}},"l1_memory":{}}`,
	`{"revision":3,"goal_tree":{"user_partition":{"node\u005fid":"user-root","summary":"s","weight":1}},"l1_memory":{}}`,
	`{"revision":3,"goal_tree":{"user_partition":{"node_id":"user-root","ſummary":"s","weight":1}},"l1_memory":{}}`,
	`{"revision":3,"goal_tree":{"user_partition":{"node_id":"user-root","summary":"s","SUMMARY":"t","weight":1}},"l1_memory":{}}`,
	`{"revision":3,"goal_tree":{"user_partition":{"node_id":"user-root","summary":"s","weight":1,"children":[null]}},"l1_memory":{}}`,
	`{"revision":3,"goal_tree":{"user_partition":{"node_id":"a","summary":"s","weight":1,"node_id":null}},"l1_memory":{}}`,
	`{"revision":3,"goal_tree":{"user_partition":{"node_id":"a","summary":"s","weight":1,"children":[],"children":null}},"l1_memory":{}}`,
	`{"revision":3,"goal_tree":{"user_partition":{"node_id":"a","summary":"s","weight":1.0}},"l1_memory":{}}`,
	`{"revision":3,"goal_tree":{"user_partition":{"node_id":"a","summary":"s","weight":1e2}},"l1_memory":{}}`,
	`{"revision":3,"goal_tree":{"user_partition":{"node_id":"a","summary":"s","weight":"1"}},"l1_memory":{}}`,
	`{"revision":3,"goal_tree":{"user_partition":[]},"l1_memory":{}}`,
	`{"revision":3,"goal_tree":null,"l1_memory":{}}`,
	`{"revision":3,"goal_tree":{"user_partition":{"node_id":"a","summary":"s","weight":1}},"l1_memory":null}`,
	`{"revision":3,"goal_tree":{"user_partition":{"node_id":"a","summary":"s","weight":1}},"l1_memory":{"entries":"x"}}`,
	` {"node_id":"a","summary":"s\"Key\":","weight":2,"extra":{"Upper":[1,{"k":"\\"}]}} `,
	`{"node_id":"a","summary":"s","weight":2}x`,
	`null`, `[]`, `"x"`, `{`, ``,
	`{"revision":3,"goal_tree":{"user_partition":{"node_id":"a","summary":"s","weight":1,"children":[{"node_id":"b","summary":"b","weight":1}],"children":[{"summary":"c"}]}},"l1_memory":{}}`,
	`{"revision":3,"goal_tree":{"user_partition":{"node_id":"a","summary":"s","weight":1},"user_partition":{"summary":"t"}},"l1_memory":{}}`,
	`{"revision":3,"goal_tree":{"user_partition":{"node_id":"a","summary":"s","weight":1}},"goal_tree":{"root_partition":[]},"l1_memory":{}}`,
	`{"revision":3,"goal_tree":{"user_partition":{"node_id":"a","summary":"s","weight":1,"children":[{"node_id":"b","summary":"b","weight":1,"x":{"node_id":1}}],"node_id":"z"}},"l1_memory":{"entries":["a"]}}`,
}

// FuzzStateDecoding checks that whenever the fast decoding of a state, a
// goal tree or a goal node succeeds, the member-by-member decoding
// succeeds too with the same value (nil and empty lists told apart).
func FuzzStateDecoding(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sameFast(t, data, stateIn.state, (*CognitionState).unmarshalMembers)
		sameFast(t, data, treeIn.tree, (*GoalTree).unmarshalMembers)
		sameFast(t, data, nodeIn.node, (*GoalNode).unmarshalMembers)
	})
}

func sameFast[W, T any](t *testing.T, data []byte, conv func(W) (T, bool), members func(*T, []byte) error) {
	t.Helper()
	fast, ok := decodeFast(data, conv)
	if !ok {
		return
	}
	var slow T
	if err := members(&slow, data); err != nil {
		t.Fatalf("%T: the fast decoding of %q succeeded, the member-by-member one failed: %v", slow, data, err)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("%T of %q:\nfast %#v\nslow %#v", slow, data, fast, slow)
	}
}

// TestDecodeFastTaken checks that the fast decoding takes what Codali
// writes, so that it pays (an encoded state decodes through it) and
// leaves the keys it must.
func TestDecodeFastTaken(t *testing.T) {
	data, err := EncodeState(benchStateOf())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := decodeFast(data, stateIn.state); !ok {
		t.Error("an encoded state is not decoded by the fast decoding")
	}
	for _, i := range []int{2, 3, 4, 5, 23, 24, 25} {
		if _, ok := decodeFast([]byte(decodeSeeds[i]), stateIn.state); ok {
			t.Errorf("the fast decoding took %s", decodeSeeds[i])
		}
	}
}
