package rao

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"fmt"
	"io"
	"sync"
)

// MaxSnapshotBytes bounds the decompressed size of a stored snapshot, so a
// forged snapshot_z cannot exhaust memory.
const MaxSnapshotBytes = 64 << 20

// snapshotLevel is the DEFLATE level for checkpoint snapshots.
const snapshotLevel = flate.BestCompression

// compressSnapshot returns base64(DEFLATE(snap)).
func compressSnapshot(snap []byte) string {
	var buf bytes.Buffer
	// NewWriter only fails for an invalid level; snapshotLevel is valid.
	zw, _ := flate.NewWriter(&buf, snapshotLevel)
	return deflateSnapshot(zw, &buf, snap)
}

// deflateSnapshot writes snap through zw, which writes to buf, and
// returns buf's content in base64.
func deflateSnapshot(zw *flate.Writer, buf *bytes.Buffer, snap []byte) string {
	_, _ = zw.Write(snap) // writes to a bytes.Buffer cannot fail
	_ = zw.Close()
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}

// Compressors lends DEFLATE writers for checkpoint snapshots to the
// chains that share it (Builder.Compressors), so a checkpoint does not
// make a new writer: one at snapshotLevel allocates about a megabyte. A
// reset writer writes what a new one would, so the stored events are the
// same bytes. The zero value is ready; it is safe for concurrent use and
// keeps at most maxIdleCompressors idle writers.
type Compressors struct {
	mu   sync.Mutex
	idle []*flate.Writer
}

// maxIdleCompressors bounds the writers a Compressors keeps.
const maxIdleCompressors = 4

// compress is compressSnapshot with a lent writer (a nil c makes one).
func (c *Compressors) compress(snap []byte) string {
	if c == nil {
		return compressSnapshot(snap)
	}
	c.mu.Lock()
	var zw *flate.Writer
	if n := len(c.idle); n > 0 {
		zw, c.idle = c.idle[n-1], c.idle[:n-1]
	}
	c.mu.Unlock()
	var buf bytes.Buffer
	if zw == nil {
		zw, _ = flate.NewWriter(&buf, snapshotLevel)
	} else {
		zw.Reset(&buf)
	}
	z := deflateSnapshot(zw, &buf, snap)
	c.mu.Lock()
	if len(c.idle) < maxIdleCompressors {
		c.idle = append(c.idle, zw)
	}
	c.mu.Unlock()
	return z
}

// decompressSnapshot reverses compressSnapshot and canonicalizes the
// result. Errors wrap ErrInvalidEvent.
func decompressSnapshot(z string) ([]byte, error) {
	return decompressSnapshotLimit(z, MaxSnapshotBytes)
}

// decompressSnapshotLimit is decompressSnapshot with a size limit.
func decompressSnapshotLimit(z string, limit int) ([]byte, error) {
	raw, err := base64.StdEncoding.DecodeString(z)
	if err != nil {
		return nil, fmt.Errorf("%w: snapshot_z is not base64: %w", ErrInvalidEvent, err)
	}
	zr := flate.NewReader(bytes.NewReader(raw))
	defer func() { _ = zr.Close() }()
	snap, err := io.ReadAll(io.LimitReader(zr, int64(limit)+1))
	if err != nil {
		return nil, fmt.Errorf("%w: snapshot_z does not decompress: %w", ErrInvalidEvent, err)
	}
	if len(snap) > limit {
		return nil, fmt.Errorf("%w: snapshot larger than %d bytes", ErrInvalidEvent, limit)
	}
	c, err := CanonicalizeJSON(snap)
	if err != nil {
		return nil, fmt.Errorf("%w: snapshot: %w", ErrInvalidEvent, err)
	}
	return c, nil
}
