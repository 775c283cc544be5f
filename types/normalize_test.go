package types

import (
	"encoding/binary"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

func intBytes(v int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }

// TestNormalizeSetsAndMaps shows the forms the wire may send for one
// logical value and the canonical form Cassandra stores.
func TestNormalizeSetsAndMaps(t *testing.T) {
	set := SetOf(IntType, true)
	want := EncodeList([][]byte{intBytes(1), intBytes(2)})
	for _, sent := range [][][]byte{
		{intBytes(1), intBytes(2)},
		{intBytes(2), intBytes(1)},
		{intBytes(2), intBytes(1), intBytes(2), intBytes(1)},
	} {
		got, err := Normalize(set, EncodeList(sent))
		require.NoError(t, err)
		require.Equal(t, want, got)
	}

	m := MapOf(IntType, TextType, true)
	got, err := Normalize(m, encodeEntries(
		[][]byte{intBytes(2), intBytes(1), intBytes(2)},
		[][]byte{[]byte("b"), []byte("a"), []byte("c")}))
	require.NoError(t, err)
	require.Equal(t, encodeEntries([][]byte{intBytes(1), intBytes(2)}, [][]byte{[]byte("a"), []byte("c")}), got,
		"map entries sorted by key, the last value of a duplicated key wins")

	// Nested: a list of frozen sets, and a tuple holding a frozen set; the
	// list keeps its order and the tuple its missing trailing field.
	nested := ListOf(SetOf(IntType, true), true)
	got, err = Normalize(nested, EncodeList([][]byte{EncodeList([][]byte{intBytes(3), intBytes(1)}), want}))
	require.NoError(t, err)
	require.Equal(t, EncodeList([][]byte{EncodeList([][]byte{intBytes(1), intBytes(3)}), want}), got)
	tup := TupleOf(SetOf(IntType, true), IntType)
	got, err = Normalize(tup, EncodeTuple([][]byte{EncodeList([][]byte{intBytes(2), intBytes(1)})}))
	require.NoError(t, err)
	require.Equal(t, EncodeTuple([][]byte{want}), got)

	// A canonical value comes back as is; an invalid one gets Validate's
	// error.
	b := EncodeList([][]byte{intBytes(1), intBytes(2)})
	got, err = Normalize(set, b)
	require.NoError(t, err)
	require.Same(t, &b[0], &got[0])
	_, err = Normalize(set, []byte{0, 0, 0, 1, 0, 0, 0, 2, 1, 2})
	require.ErrorIs(t, err, ErrInvalidValue)
	got, err = Normalize(set, nil)
	require.NoError(t, err)
	require.Nil(t, got)
}

// TestNormalizeProperty checks, over random permutations with duplicates,
// that every serialization of one logical set or map normalizes to the same
// bytes, which are what EncodeSet and EncodeMap (the literal path) produce,
// and that Normalize is idempotent.
func TestNormalizeProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		elems := rapid.SliceOfN(rapid.Int32Range(-5, 5), 0, 8).Draw(t, "elems")
		perm := rapid.Permutation(append(slices.Clone(elems), rapid.SliceOfN(rapid.SampledFrom(append(elems, 0)), 0, 4).Draw(t, "dups")...)).Draw(t, "perm")
		enc := func(vs []int32) [][]byte {
			out := make([][]byte, len(vs))
			for i, v := range vs {
				out[i] = intBytes(v)
			}
			return out
		}
		set := SetOf(IntType, true)
		canon, err := EncodeSet(set, enc(append(slices.Clone(elems), perm...)))
		if err != nil {
			t.Fatal(err)
		}
		got, err := Normalize(set, EncodeList(enc(perm)))
		if err != nil {
			t.Fatal(err)
		}
		uniq := slices.Compact(slices.Sorted(slices.Values(perm)))
		if want := EncodeList(enc(uniq)); string(got) != string(want) {
			t.Fatalf("Normalize(%v) = %x, want %x", perm, got, want)
		}
		if string(got) != string(canon) { // elems ⊆ perm, so both hold the elements of perm
			t.Fatalf("literal form %x differs from the bound form %x", canon, got)
		}
		again, err := Normalize(set, got)
		if err != nil || string(again) != string(got) {
			t.Fatalf("Normalize is not idempotent: %x then %x (%v)", got, again, err)
		}

		// A map from the same keys, values the position: the last
		// position of each key wins, whatever the order sent.
		m := MapOf(IntType, IntType, true)
		vals := make([][]byte, len(perm))
		last := map[int32]int32{}
		for i, k := range perm {
			vals[i] = intBytes(int32(i))
			last[k] = int32(i)
		}
		gotMap, err := Normalize(m, encodeEntries(enc(perm), vals))
		if err != nil {
			t.Fatal(err)
		}
		wantVals := make([][]byte, len(uniq))
		for i, k := range uniq {
			wantVals[i] = intBytes(last[k])
		}
		if want := encodeEntries(enc(uniq), wantVals); string(gotMap) != string(want) {
			t.Fatalf("Normalize(map %v) = %x, want %x", perm, gotMap, want)
		}
		litMap, err := EncodeMap(m, enc(perm), vals)
		if err != nil || string(litMap) != string(gotMap) {
			t.Fatalf("EncodeMap = %x, Normalize = %x (%v)", litMap, gotMap, err)
		}

		// The same set nested in a frozen list of sets and in a tuple.
		nested := ListOf(SetOf(IntType, true), true)
		gotNested, err := Normalize(nested, EncodeList([][]byte{EncodeList(enc(perm))}))
		if err != nil || string(gotNested) != string(EncodeList([][]byte{got})) {
			t.Fatalf("nested: %x (%v)", gotNested, err)
		}
	})
}
