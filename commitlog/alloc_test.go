package commitlog

import (
	"testing"

	"github.com/minicass/minicass/vfs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAppendDoesNotAllocate checks the append hot path is allocation-free
// once the framing buffer has grown (SyncNone on an in-memory FS whose file
// has spare capacity).
func TestAppendDoesNotAllocate(t *testing.T) {
	l, err := Open(vfs.NewMem(), "cl", Options{SyncMode: SyncNone})
	require.NoError(t, err)
	defer l.Close()
	payload := make([]byte, 100)
	allocs := testing.AllocsPerRun(1000, func() {
		if _, err := l.Append(payload); err != nil {
			t.Fatal(err)
		}
	})
	assert.Zero(t, allocs)
}
