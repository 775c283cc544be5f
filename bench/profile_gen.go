package bench

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"time"
)

// rowGen generates the logical rows of a profile: the value of every field
// at (entity, row) depends only on the profile's seed, the entity and the
// row, so every model, peer and worker sees the same values in any order.
type rowGen struct {
	fields []FieldSpec
	seed   uint64
	pcg    *rand.PCG
	rng    *rand.Rand
	vals   []any
}

func newRowGen(p *Profile) *rowGen {
	pcg := rand.NewPCG(0, 0)
	return &rowGen{fields: p.Fields, seed: p.Seed, pcg: pcg, rng: rand.New(pcg), vals: make([]any, len(p.Fields))}
}

// row fills and returns the values of every field at (entity, row), in the
// order of the profile's fields; the slice is reused by the next call.
func (g *rowGen) row(entity, row int64) []any {
	g.pcg.Seed(g.seed^uint64(entity)*0x9e3779b97f4a7c15, uint64(row))
	for i := range g.fields {
		g.vals[i] = g.fields[i].value(entity, row, g.rng)
	}
	return g.vals
}

const letters = "abcdefghijklmnopqrstuvwxyz0123456789"

// value returns the field's value at (entity, row), drawing random values
// from r.
func (f *FieldSpec) value(entity, row int64, r *rand.Rand) any {
	if f.From == "random" {
		switch {
		case len(f.Choices) > 0:
			i := r.IntN(len(f.Choices))
			if f.hasDist {
				i = int(min(max(f.dist.SampleInt(r), 0), int64(len(f.Choices)-1)))
			}
			return f.Choices[i]
		case f.kind == kindText || f.kind == kindBlob:
			b := make([]byte, f.size.SampleInt(r))
			for i := range b {
				b[i] = letters[r.IntN(len(letters))]
			}
			if f.kind == kindText {
				return string(b)
			}
			return b
		case f.kind == kindBool:
			return r.IntN(2) == 1
		}
		return f.number(f.dist.Sample(r))
	}
	x := entity
	if f.From == "row" {
		x = row
	}
	if f.Div > 0 {
		x /= f.Div
	}
	if f.Mod > 0 {
		x %= f.Mod
	}
	switch f.kind {
	case kindText:
		return fmt.Sprintf(f.Format, x)
	case kindTimestamp:
		return f.startTime.Add(time.Duration(x) * f.stepTime)
	}
	return f.number(f.start + float64(x)*f.step)
}

// number converts v to the field's Go type.
func (f *FieldSpec) number(v float64) any {
	switch f.kind {
	case kindBigint:
		return int64(v)
	case kindInt:
		return int32(v)
	case kindFloat:
		return float32(v)
	case kindTimestamp:
		return time.UnixMilli(int64(v)).UTC()
	case kindText:
		return fmt.Sprint(v)
	}
	return v
}

// Statement text the peers and the checks read.
var (
	insertColumnsRE = regexp.MustCompile(`(?is)^\s*INSERT\s+INTO\s+[\w."]+\s*\(([^)]*)\)\s*VALUES`)
	whereEqRE       = regexp.MustCompile(`(?i)([\w"]+)\s*=\s*\?`)
	limitRE         = regexp.MustCompile(`(?i)\bLIMIT\s+(\d+)`)
	orderRE         = regexp.MustCompile(`(?i)\bORDER\s+BY\s+[\w"]+\s*(ASC|DESC)?`)
	tableNameRE     = regexp.MustCompile(`(?is)^\s*CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?([\w"]+(?:\.[\w"]+)?)`)
	sstablesTraceRE = regexp.MustCompile(`Merged data from memtables and (\d+) sstables`)
)

// insertColumns returns the columns of an INSERT's column list.
func insertColumns(cql string) ([]string, bool) {
	m := insertColumnsRE.FindStringSubmatch(cql)
	if m == nil {
		return nil, false
	}
	var cols []string
	for _, c := range strings.Split(m[1], ",") {
		cols = append(cols, unquote(strings.TrimSpace(c)))
	}
	return cols, true
}

func unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return s[1 : len(s)-1]
	}
	return strings.ToLower(s)
}

// tableName returns the table a CREATE TABLE creates, without keyspace.
func tableName(cql string) (string, bool) {
	m := tableNameRE.FindStringSubmatch(cql)
	if m == nil {
		return "", false
	}
	name := m[1]
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	return unquote(name), true
}
