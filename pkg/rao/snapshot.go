package rao

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"fmt"
	"io"
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
	_, _ = zw.Write(snap) // writes to a bytes.Buffer cannot fail
	_ = zw.Close()
	return base64.StdEncoding.EncodeToString(buf.Bytes())
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
