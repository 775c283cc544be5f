package statements

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// FuzzDecodePagingState checks that no input panics and that what decodes
// encodes back to the same bytes.
func FuzzDecodePagingState(f *testing.F) {
	f.Add((&pagingState{hasLast: true, key: []byte{0, 0, 0, 1}, clustering: []byte{0x40, 0x80, 0, 0, 1, 0x80}, returned: 3, inPartition: 3}).Encode())
	f.Add((&pagingState{hasLast: true, key: []byte("k"), partDone: true, returned: 1}).Encode())
	f.Add([]byte{1, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		st, err := decodePagingState(b)
		if err != nil {
			return
		}
		assert.Equal(t, b, st.Encode())
	})
}
