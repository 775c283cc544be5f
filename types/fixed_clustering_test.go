package types

import (
	"bytes"
	"math/rand"
	"testing"
)

// TestFixedClusteringMatchesGeneral decodes random keys of fixed-width
// integer columns, ascending and descending, with FixedClustering and with
// AppendDecodedClustering: the values must be equal, and keys that are not
// full keys of non-empty values (empty values, bounds, wrong lengths) must
// be refused without appending anything.
func TestFixedClusteringMatchesGeneral(t *testing.T) {
	kinds := []Kind{Int, Bigint, Smallint, Tinyint, Timestamp, Time}
	rng := rand.New(rand.NewSource(19))
	for trial := 0; trial < 2000; trial++ {
		cols := make([]ClusteringColumn, 1+rng.Intn(3))
		for i := range cols {
			cols[i] = ClusteringColumn{Type: Type{Kind: kinds[rng.Intn(len(kinds))]}}
			if rng.Intn(2) == 0 {
				cols[i].Order = Desc
			}
		}
		f, ok := NewFixedClustering(cols)
		if !ok {
			t.Fatalf("%v: no fixed decoder", cols)
		}
		vals := make([][]byte, len(cols))
		empty := false
		for i, c := range cols {
			if rng.Intn(20) == 0 {
				vals[i] = []byte{}
				empty = true
				continue
			}
			vals[i] = make([]byte, intSize(c.Type.Kind))
			rng.Read(vals[i])
		}
		key, err := EncodeClustering(cols, vals)
		if err != nil {
			continue // an empty value the type does not allow
		}
		got, buf, ok := f.Append(nil, make([]byte, 0, 4), key)
		want, _, kind, err := AppendDecodedClustering(nil, nil, cols, key)
		if err != nil || kind != FullKey {
			t.Fatalf("general decoder: %v %v", kind, err)
		}
		if f.Full(key) != ok {
			t.Fatalf("%v: Full(%x) = %v, Append ok = %v", cols, key, !ok, ok)
		}
		if empty {
			if ok || len(got) != 0 || len(buf) != 0 {
				t.Fatalf("%v: key with an empty value accepted", cols)
			}
			continue
		}
		if !ok || len(got) != len(want) {
			t.Fatalf("%v: %x refused or wrong count (%d values)", cols, key, len(got))
		}
		for i := range want {
			if !bytes.Equal(got[i], want[i]) || !bytes.Equal(got[i], vals[i]) {
				t.Fatalf("%v: value %d = %x, want %x", cols, i, got[i], want[i])
			}
			// AppendValue gives the same bytes after what buf holds.
			one := f.AppendValue([]byte{0xaa}, key, i)
			if f.Width(i) != len(want[i]) || one[0] != 0xaa || !bytes.Equal(one[1:], want[i]) {
				t.Fatalf("%v: AppendValue(%d) = %x (width %d), want aa%x", cols, i, one, f.Width(i), want[i])
			}
		}
		if len(cols) > 1 {
			bound, err := EncodeBound(cols, vals[:1], StartInclusive)
			if err == nil {
				if _, _, ok := f.Append(nil, nil, bound); ok {
					t.Fatalf("%v: bound %x accepted", cols, bound)
				}
			}
		}
		if _, _, ok := f.Append(nil, nil, key[:len(key)-1]); ok || f.Full(key[:len(key)-1]) {
			t.Fatalf("%v: truncated key accepted", cols)
		}
	}
	for _, k := range []Kind{Text, Blob, UUID, Double} {
		if _, ok := NewFixedClustering([]ClusteringColumn{{Type: Type{Kind: Bigint}}, {Type: Type{Kind: k}}}); ok {
			t.Fatalf("fixed decoder for kind %v", k)
		}
	}
}
