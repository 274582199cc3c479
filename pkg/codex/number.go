package codex

import "strconv"

// formatNumber renders f in plain decimal notation with the fewest digits
// that parse back to f.
func formatNumber(f float64) string {
	if f == 0 {
		return "0"
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}
