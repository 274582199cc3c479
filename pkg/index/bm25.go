package index

import (
	"bytes"
	"math"
	"sort"
	"strings"
)

// BM25 parameters (the usual Okapi values).
const (
	bm25K1 = 1.2
	bm25B  = 0.75
	// pathWeight and symbolWeight count a token of the file's path or of
	// a symbol name this many extra times: a file named for the request,
	// or declaring what it names, ranks above one that only mentions it.
	pathWeight   = 5
	symbolWeight = 2
	// phraseBonus is added per query that occurs literally (a path, a
	// quoted string, a dotted name) in the file's path or content.
	phraseBonus = 4.0
)

// posting is one file's count of one token.
type posting struct {
	Doc int32
	TF  uint16
}

// bm25 is an inverted index over the files.
type bm25 struct {
	postings map[string][]posting
	docLen   []int32
	avgLen   float64
}

func buildBM25(files []File) bm25 {
	ix := bm25{postings: map[string][]posting{}, docLen: make([]int32, len(files))}
	total := 0
	tf := map[string]int{}
	for i, f := range files {
		clear(tf)
		n := 0
		add := func(w int) func(string) {
			return func(t string) { tf[t] += w; n += w }
		}
		tokenize(f.Path, add(pathWeight))
		for _, s := range f.Symbols {
			tokenize(s.Name, add(symbolWeight))
		}
		if f.content != nil {
			tokenize(string(f.content), add(1))
		}
		for t, c := range tf {
			if c > math.MaxUint16 {
				c = math.MaxUint16
			}
			ix.postings[t] = append(ix.postings[t], posting{Doc: int32(i), TF: uint16(c)})
		}
		ix.docLen[i] = int32(n)
		total += n
	}
	if len(files) > 0 {
		ix.avgLen = float64(total) / float64(len(files))
	}
	return ix
}

// score adds each file's BM25 score for the tokens into scores.
func (ix *bm25) score(tokens []string, scores map[int32]float64) {
	n := float64(len(ix.docLen))
	for _, t := range tokens {
		ps := ix.postings[t]
		if len(ps) == 0 {
			continue
		}
		idf := math.Log(1 + (n-float64(len(ps))+0.5)/(float64(len(ps))+0.5))
		for _, p := range ps {
			tf := float64(p.TF)
			norm := 1 - bm25B + bm25B*float64(ix.docLen[p.Doc])/math.Max(ix.avgLen, 1)
			scores[p.Doc] += idf * tf * (bm25K1 + 1) / (tf + bm25K1*norm)
		}
	}
}

// Hit is a ranked file window.
type Hit struct {
	// Path is the file's relative path; it is also the hit's doc id.
	Path string
	// Score is the file's BM25 score (plus phrase bonuses).
	Score     float64
	LineStart int
	LineEnd   int
	Content   string
}

// Search ranks files by BM25 over the queries' tokens (identifiers are
// split at case changes and underscores; a file's path and symbol names
// weigh more than its body), adds a bonus for each query found literally,
// and returns up to max windows of windowLines lines placed where the
// query tokens are densest. Ties are broken by path, so results are
// deterministic.
func (idx *Index) Search(queries []string, max, windowLines int) []Hit {
	scores := map[int32]float64{}
	var all []string
	seen := map[string]bool{}
	for _, q := range queries {
		toks := queryTokens(q)
		idx.bm25.score(toks, scores)
		for _, t := range toks {
			if !seen[t] {
				seen[t] = true
				all = append(all, t)
			}
		}
	}
	for _, q := range queries {
		q = strings.ToLower(strings.TrimSpace(q))
		if !strings.ContainsAny(q, "./ \"'-") || len(q) < 3 {
			continue
		}
		// Only files that matched a token can contain the phrase.
		needle := []byte(q)
		for d := range scores {
			f := idx.Files[d]
			if strings.Contains(strings.ToLower(f.Path), q) || f.content != nil && containsFold(f.content, needle) {
				scores[d] += phraseBonus
			}
		}
	}
	type ranked struct {
		doc   int32
		score float64
	}
	list := make([]ranked, 0, len(scores))
	for d, s := range scores {
		if s > 0 {
			list = append(list, ranked{d, s})
		}
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].score != list[j].score {
			return list[i].score > list[j].score
		}
		return idx.Files[list[i].doc].Path < idx.Files[list[j].doc].Path
	})
	var hits []Hit
	for _, r := range list {
		if len(hits) == max {
			break
		}
		f := idx.Files[r.doc]
		if f.content == nil {
			continue
		}
		hits = append(hits, window(f, all, windowLines, r.score))
	}
	return hits
}

// window returns the size-line window of f where the tokens occur most.
func window(f File, tokens []string, size int, score float64) Hit {
	lines := strings.SplitAfter(string(f.content), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if size <= 0 {
		size = 1
	}
	counts := make([]int, len(lines))
	for i, l := range lines {
		ll := strings.ToLower(l)
		for _, t := range tokens {
			if strings.Contains(ll, t) {
				counts[i]++
			}
		}
	}
	best, bestSum, sum := 0, -1, 0
	for i := range lines {
		sum += counts[i]
		if i >= size {
			sum -= counts[i-size]
		}
		start := max(0, i-size+1)
		if sum > bestSum {
			best, bestSum = start, sum
		}
	}
	// Start a little above the window's first matching line (moving the
	// start down only extends the window past its last match).
	for i := best; i < len(lines) && i < best+size; i++ {
		if counts[i] > 0 {
			best = max(best, min(i-size/8, len(lines)-size))
			break
		}
	}
	end := min(len(lines), best+size)
	return Hit{Path: f.Path, Score: score, LineStart: best + 1, LineEnd: end, Content: strings.Join(lines[best:end], "")}
}

// Open returns lines start..end (1-based, inclusive) of an indexed file,
// clamped to the file; ok is false for an unknown or unread file.
func (idx *Index) Open(path string, start, end int) (text string, first, last, total int, ok bool) {
	f, found := idx.File(path)
	if !found || f.content == nil {
		return "", 0, 0, 0, false
	}
	lines := strings.SplitAfter(string(f.content), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	total = len(lines)
	if start < 1 {
		start = 1
	}
	if end <= 0 || end > total {
		end = total
	}
	if start > end {
		return "", start, end, total, true
	}
	return strings.Join(lines[start-1:end], ""), start, end, total, true
}

// containsFold reports whether needle (lower-case) occurs in data,
// ignoring ASCII case, without copying data.
func containsFold(data, needle []byte) bool {
	if len(needle) == 0 {
		return true
	}
	first := needle[0]
	upper := first
	if first >= 'a' && first <= 'z' {
		upper = first - 32
	}
	for i := 0; i+len(needle) <= len(data); i++ {
		c := data[i]
		if c != first && c != upper {
			continue
		}
		if bytes.EqualFold(data[i:i+len(needle)], needle) {
			return true
		}
	}
	return false
}
