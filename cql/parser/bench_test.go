package parser

import "testing"

func benchmarkParse(b *testing.B, q string) {
	b.ReportAllocs()
	b.SetBytes(int64(len(q)))
	for b.Loop() {
		if _, err := Parse(q); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseInsert parses a typical prepared INSERT.
func BenchmarkParseInsert(b *testing.B) {
	benchmarkParse(b, "INSERT INTO ks.t (a, b, c) VALUES (?, ?, ?)")
}

// BenchmarkParseSelect parses a typical prepared SELECT.
func BenchmarkParseSelect(b *testing.B) {
	benchmarkParse(b, "SELECT a, b FROM ks.t WHERE k = ? AND c > ? LIMIT 10")
}

// BenchmarkParseCreateTable parses a seed CREATE TABLE.
func BenchmarkParseCreateTable(b *testing.B) {
	benchmarkParse(b, "CREATE TABLE IF NOT EXISTS blog.posts_by_user (user_id uuid, created_at timestamp, "+
		"post_id uuid, title text, PRIMARY KEY ((user_id), created_at, post_id)) WITH CLUSTERING ORDER BY (created_at DESC)")
}

// BenchmarkString prints a parsed SELECT.
func BenchmarkString(b *testing.B) {
	st, err := Parse("SELECT a, b FROM ks.t WHERE k = ? AND c > ? LIMIT 10")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = st.String()
	}
}
