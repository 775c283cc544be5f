package types

import (
	"bytes"
	"testing"
	"time"
)

var benchCols = []ClusteringColumn{{TextType, Asc}, {TimestampType, Desc}, {IntType, Asc}}

func benchRow(name string, ts time.Time, n int64) [][]byte {
	return [][]byte{[]byte(name), putInt(ts.UnixMilli(), 8), putInt(n, 4)}
}

func BenchmarkEncodeClustering(b *testing.B) {
	row := benchRow("sensor-0042", time.Date(2024, 1, 15, 10, 30, 0, 0, time.UTC), 7)
	buf := make([]byte, 0, 64)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		var err error
		buf, err = AppendClustering(buf[:0], benchCols, row)
		if err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCompareKeys(b *testing.B) {
	ts := time.Date(2024, 1, 15, 10, 30, 0, 0, time.UTC)
	r1, r2 := benchRow("sensor-0042", ts, 7), benchRow("sensor-0042", ts, 8)
	k1, _ := EncodeClustering(benchCols, r1)
	k2, _ := EncodeClustering(benchCols, r2)
	b.Run("bytes.Compare", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if bytes.Compare(k1, k2) >= 0 {
				b.Fatal("order")
			}
		}
	})
	b.Run("comparators", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			c := 0
			for j, col := range benchCols {
				c = Compare(col.Type, r1[j], r2[j])
				if col.Order == Desc {
					c = -c
				}
				if c != 0 {
					break
				}
			}
			if c >= 0 {
				b.Fatal("order")
			}
		}
	})
}

func BenchmarkFromConstant(b *testing.B) {
	for _, c := range []struct {
		name string
		ty   Type
		kind ConstKind
		text string
	}{
		{"int", IntType, ConstInteger, "123456"},
		{"timestamp", TimestampType, ConstString, "2024-01-15 10:30:00.123+0000"},
		{"uuid", UUIDType, ConstUUID, "550e8400-e29b-41d4-a716-446655440000"},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := FromConstant(c.ty, c.kind, c.text); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
