package partitioner

import (
	"bytes"
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

func TestCompositeKeyEncoding(t *testing.T) {
	key, err := CompositeKey([][]byte{[]byte("abc"), {0, 0, 0, 42}})
	require.NoError(t, err)
	assert.Equal(t, "00036162630000040000002a00", hex.EncodeToString(key))

	key, err = CompositeKey([][]byte{{}, {}})
	require.NoError(t, err)
	assert.Equal(t, "000000000000", hex.EncodeToString(key))

	key, err = CompositeKey(nil)
	require.NoError(t, err)
	assert.Empty(t, key)
}

func TestCompositeKeyTooLarge(t *testing.T) {
	big := make([]byte, 65536)
	_, err := CompositeKey([][]byte{[]byte("a"), big})
	require.ErrorIs(t, err, ErrPartTooLarge)

	dst := []byte("prefix")
	out, err := AppendCompositeKey(dst, [][]byte{big})
	require.ErrorIs(t, err, ErrPartTooLarge)
	assert.Equal(t, "prefix", string(out))

	ok, err := CompositeKey([][]byte{big[:65535]})
	require.NoError(t, err)
	assert.Len(t, ok, 65535+3)
}

func TestAppendCompositeKey(t *testing.T) {
	out, err := AppendCompositeKey([]byte{0xaa}, [][]byte{[]byte("x")})
	require.NoError(t, err)
	assert.Equal(t, []byte{0xaa, 0, 1, 'x', 0}, out)
}

func TestSplitCompositeKeyErrors(t *testing.T) {
	for _, c := range []struct {
		name, hex string
	}{
		{"short length", "00"},
		{"truncated component", "0005616263"},
		{"missing eoc", "0003616263"},
		{"nonzero eoc", "000361626301"},
		{"trailing garbage", "00016100ff"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, err := hex.DecodeString(c.hex)
			require.NoError(t, err)
			_, err = SplitCompositeKey(b)
			require.ErrorIs(t, err, ErrMalformedComposite)
		})
	}
}

func TestCompositeRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		parts := rapid.SliceOfN(rapid.SliceOfN(rapid.Byte(), 0, 40), 0, 6).Draw(t, "parts")
		enc, err := CompositeKey(parts)
		if err != nil {
			t.Fatal(err)
		}
		got, err := SplitCompositeKey(enc)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(parts) {
			t.Fatalf("got %d parts, want %d", len(got), len(parts))
		}
		for i := range parts {
			if !bytes.Equal(got[i], parts[i]) {
				t.Fatalf("part %d: got %x want %x", i, got[i], parts[i])
			}
		}
	})
}
