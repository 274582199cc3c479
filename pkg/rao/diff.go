package rao

import (
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// Diff returns an RFC 6902 patch that turns the JSON document prev into
// next, using only add, remove and replace.
//
// Objects are compared key by key and recursed into. Arrays are compared
// after stripping their longest common prefix and suffix. When the
// remaining middles are the same run of elements slid by up to 8 places
// (elements dropped at the front and appended at the end, as in a window
// of recent items, or inserted at the front and dropped at the end) and
// that takes fewer operations, the dropped elements are removed and the
// new ones added. Otherwise the middles are paired index by index
// (recursing into each pair), the extra elements of next are added at
// ascending indexes, and extra elements of prev are removed by repeated
// removes at the first surplus index. So an append is one add per new
// element, and a shrink is one remove per dropped element. When the
// operations under one object or array would encode larger than replacing
// that value outright, a single replace is used instead. Numbers are
// compared by their exact text, so 1.0 and 1 differ.
//
// The operations are sorted by path, comparing JSON Pointer tokens one by
// one, array indexes numerically ("/a/9" before "/a/10") and before other
// tokens, an ancestor before its descendants, then by op name. This order
// never changes what the patch does: ops under different object members
// or array elements touch disjoint values; in-place changes to an array
// sit at lower indexes than its adds and removes; where one array gets
// both adds and removes (a slide), all of one kind sit at lower indexes
// than all of the other, in the order they were generated; ascending adds
// stay ascending; and repeated removes are identical. Values are canonical JSON, so identical inputs (whatever
// their key order or whitespace) give byte-identical patches.
//
// Diff returns an error wrapping ErrInvalidJSON when prev or next is not a
// single JSON value. An empty (non-nil) patch means the documents are equal.
func Diff(prev, next []byte) (Patch, error) {
	a, err := decodeValue(prev)
	if err != nil {
		return nil, err
	}
	b, err := decodeValue(next)
	if err != nil {
		return nil, err
	}
	return diffValues(a, b), nil
}

// genOp is an operation as generated, before sorting.
type genOp struct {
	op    string
	path  []string // unescaped reference tokens
	value []byte   // canonical value for add and replace
}

// size estimates the encoded size of the operation in a delta.
func (g genOp) size() int {
	n := len(`{"op":"","path":"","value":}`) + len(g.op) + len(g.value)
	for _, t := range g.path {
		n += 1 + len(t)
	}
	return n
}

// diffGen returns the operations turning a into b in generation order.
func diffGen(a, b any) []genOp {
	var d differ
	d.diff(nil, a, b)
	return d.ops
}

// diffValues returns the sorted patch turning a into b.
func diffValues(a, b any) Patch {
	ops := diffGen(a, b)
	sortGenOps(ops)
	return toPatch(ops)
}

// sortGenOps sorts operations by path (segment-wise) and then op name.
func sortGenOps(ops []genOp) {
	slices.SortStableFunc(ops, func(x, y genOp) int {
		if c := comparePaths(x.path, y.path); c != 0 {
			return c
		}
		return strings.Compare(x.op, y.op)
	})
}

// toPatch converts generated operations into a Patch, keeping their order.
func toPatch(ops []genOp) Patch {
	p := make(Patch, 0, len(ops))
	for _, g := range ops {
		op := Op{Op: g.op, Path: joinPointer(g.path)}
		if g.op != OpRemove {
			op.Value = json.RawMessage(g.value)
		}
		p = append(p, op)
	}
	return p
}

// differ accumulates operations while walking two decoded documents.
type differ struct {
	ops        []genOp
	noCollapse bool
}

// child returns path extended by tok without aliasing path's array.
func child(path []string, tok string) []string {
	return append(path[:len(path):len(path)], tok)
}

func (d *differ) emit(op string, path []string, v any) {
	g := genOp{op: op, path: path}
	if op != OpRemove {
		g.value = canonicalBytes(v)
	}
	d.ops = append(d.ops, g)
}

func (d *differ) diff(path []string, a, b any) {
	if jsonEqual(a, b) {
		return
	}
	switch av := a.(type) {
	case map[string]any:
		if bv, ok := b.(map[string]any); ok {
			d.diffObject(path, av, bv)
			return
		}
	case []any:
		if bv, ok := b.([]any); ok {
			d.diffArray(path, av, bv)
			return
		}
	}
	d.emit(OpReplace, path, b)
}

func (d *differ) diffObject(path []string, a, b map[string]any) {
	start := len(d.ops)
	for k := range a {
		if _, ok := b[k]; !ok {
			d.emit(OpRemove, child(path, k), nil)
		}
	}
	for k, bv := range b {
		av, ok := a[k]
		if !ok {
			d.emit(OpAdd, child(path, k), bv)
			continue
		}
		d.diff(child(path, k), av, bv)
	}
	d.collapse(start, path, b)
}

func (d *differ) diffArray(path []string, a, b []any) {
	start := len(d.ops)
	n := min(len(a), len(b))
	pre := 0
	for pre < n && jsonEqual(a[pre], b[pre]) {
		pre++
	}
	suf := 0
	for suf < n-pre && jsonEqual(a[len(a)-1-suf], b[len(b)-1-suf]) {
		suf++
	}
	am, bm := a[pre:len(a)-suf], b[pre:len(b)-suf]
	if shift, ok := bestShift(am, bm); ok {
		d.shiftArray(path, pre, am, bm, shift)
	} else {
		d.pairArray(path, pre, am, bm)
	}
	d.collapse(start, path, b)
}

// pairArray turns am into bm (the differing middles of two arrays, at
// offset pre) element by element, then adds or removes the surplus.
func (d *differ) pairArray(path []string, pre int, am, bm []any) {
	k := min(len(am), len(bm))
	for i := 0; i < k; i++ {
		d.diff(child(path, strconv.Itoa(pre+i)), am[i], bm[i])
	}
	for i := k; i < len(bm); i++ {
		d.emit(OpAdd, child(path, strconv.Itoa(pre+i)), bm[i])
	}
	if len(am) > k {
		at := child(path, strconv.Itoa(pre+k))
		for range len(am) - k {
			d.emit(OpRemove, at, nil)
		}
	}
}

// maxShift bounds how far bestShift looks for a sliding window.
const maxShift = 8

// bestShift looks for a slide between the middles am and bm: shift s > 0
// when am without its first s elements starts bm (elements dropped at the
// front, others maybe appended), s < 0 when bm without its first -s
// elements starts am (elements inserted at the front, others maybe dropped
// at the end). It reports a shift only when it needs fewer operations than
// pairing elements index by index.
func bestShift(am, bm []any) (int, bool) {
	if len(am) == 0 || len(bm) == 0 {
		return 0, false
	}
	paired := absInt(len(am) - len(bm))
	for i := range min(len(am), len(bm)) {
		if !jsonEqual(am[i], bm[i]) {
			paired++
		}
	}
	best, bestOps := 0, paired
	for s := 1; s <= maxShift && s < len(am); s++ {
		m := len(am) - s // elements kept
		if m > len(bm) || !allEqual(am[s:], bm[:m]) {
			continue
		}
		if ops := s + len(bm) - m; ops < bestOps {
			best, bestOps = s, ops
		}
		break
	}
	for t := 1; t <= maxShift && t < len(bm); t++ {
		m := len(bm) - t
		if m > len(am) || !allEqual(bm[t:], am[:m]) {
			continue
		}
		if ops := t + len(am) - m; ops < bestOps {
			best = -t
		}
		break
	}
	return best, best != 0
}

// shiftArray emits the operations of a slide found by bestShift. For
// s > 0: s removes at index pre, then adds after the kept elements; for
// s < 0: adds at pre.., then removes of the surplus after the kept
// elements. In both cases every remove sits at a lower index than every
// add or vice versa, so sorting by path keeps the generation order.
func (d *differ) shiftArray(path []string, pre int, am, bm []any, s int) {
	if s > 0 {
		at := child(path, strconv.Itoa(pre))
		for range s {
			d.emit(OpRemove, at, nil)
		}
		m := len(am) - s
		for i := m; i < len(bm); i++ {
			d.emit(OpAdd, child(path, strconv.Itoa(pre+i)), bm[i])
		}
		return
	}
	t := -s
	for i := range t {
		d.emit(OpAdd, child(path, strconv.Itoa(pre+i)), bm[i])
	}
	m := len(bm) - t
	if len(am) > m {
		at := child(path, strconv.Itoa(pre+t+m))
		for range len(am) - m {
			d.emit(OpRemove, at, nil)
		}
	}
}

// allEqual reports whether x and y hold equal elements.
func allEqual(x, y []any) bool {
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if !jsonEqual(x[i], y[i]) {
			return false
		}
	}
	return true
}

func absInt(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// collapse replaces the operations generated since start (all below path)
// by one replace of path with b when that encodes no larger.
func (d *differ) collapse(start int, path []string, b any) {
	if d.noCollapse || len(d.ops)-start < 2 {
		return
	}
	cost := 0
	for _, g := range d.ops[start:] {
		cost += g.size()
	}
	// The replacement wins when its size, (genOp{op: OpReplace, path:
	// path}).size() plus its value's, is at most cost: the value is encoded
	// only while it stays within that (near the root it rarely does).
	value, ok := canonicalWithin(b, cost-genOp{op: OpReplace, path: path}.size())
	if ok {
		d.ops = append(d.ops[:start], genOp{op: OpReplace, path: path, value: value})
	}
}

// jsonEqual compares two decoded JSON values; numbers compare by text.
func jsonEqual(a, b any) bool {
	switch av := a.(type) {
	case nil:
		return b == nil
	case bool:
		bv, ok := b.(bool)
		return ok && av == bv
	case json.Number:
		bv, ok := b.(json.Number)
		return ok && av == bv
	case string:
		bv, ok := b.(string)
		return ok && av == bv
	case []any:
		bv, ok := b.([]any)
		if !ok || len(av) != len(bv) {
			return false
		}
		if len(av) > 0 && &av[0] == &bv[0] {
			return true // the same (never mutated) decoded value
		}
		for i := range av {
			if !jsonEqual(av[i], bv[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok || len(av) != len(bv) {
			return false
		}
		if reflect.ValueOf(av).UnsafePointer() == reflect.ValueOf(bv).UnsafePointer() {
			return true // the same decoded value
		}
		for k, x := range av {
			y, ok := bv[k]
			if !ok || !jsonEqual(x, y) {
				return false
			}
		}
		return true
	default:
		return false
	}
}
