package data

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCompareBounds(t *testing.T) {
	a, b := []byte{1}, []byte{2}
	assert.Equal(t, 0, CompareStarts(nil, nil))
	assert.Equal(t, -1, CompareStarts(nil, a), "an unbounded start sorts first")
	assert.Equal(t, 1, CompareStarts(a, nil))
	assert.Equal(t, -1, CompareStarts(a, b))
	assert.Equal(t, 0, CompareStarts([]byte{}, []byte{}))
	assert.Equal(t, 1, CompareStarts([]byte{}, nil), "an empty start is bounded")

	assert.Equal(t, 0, CompareEnds(nil, nil))
	assert.Equal(t, 1, CompareEnds(nil, a), "an unbounded end sorts last")
	assert.Equal(t, -1, CompareEnds(a, nil))
	assert.Equal(t, 1, CompareEnds(b, a))
}
