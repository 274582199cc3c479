package recorder

// deliveredSeqs records which stream sequences were first delivered to
// this process, as a watermark: every sequence in [base, water) was, and
// those above water that were are listed in above. It starts at the first
// sequence added; one that was never delivered here (it went to another
// recorder, or never reached the handler) holds the watermark back, and
// once maxAboveWater sequences wait above it the record starts again
// after the highest of them (every run then looks up once more).
type deliveredSeqs struct {
	base, water uint64
	above       map[uint64]struct{}
	highest     uint64
}

// maxAboveWater bounds the sequences kept above the watermark.
const maxAboveWater = 4096

// add records seq (> 0) as delivered.
func (d *deliveredSeqs) add(seq uint64) {
	if d.base == 0 {
		d.base, d.water = seq, seq
	}
	if seq < d.water {
		return
	}
	d.highest = max(d.highest, seq)
	if seq > d.water {
		if d.above == nil {
			d.above = map[uint64]struct{}{}
		}
		d.above[seq] = struct{}{}
		if len(d.above) > maxAboveWater {
			d.base, d.water, d.above = d.highest+1, d.highest+1, nil
		}
		return
	}
	d.water++
	for {
		if _, ok := d.above[d.water]; !ok {
			return
		}
		delete(d.above, d.water)
		d.water++
	}
}

// all reports whether every sequence in [from, to) was delivered here.
func (d *deliveredSeqs) all(from, to uint64) bool {
	return d.base != 0 && d.base <= from && to <= d.water
}
