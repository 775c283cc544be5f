package schema

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/minicass/minicass/partitioner"
	"github.com/minicass/minicass/types"
)

// Keys as a learner reads them. Traces, layouts and the studio print a
// partition key or a clustering key decoded with the table's types, as CQL
// literals ('ACTIVE', 42, ('a', 1) for a composite key), never as the bytes
// the engine stores. Bytes that do not decode as the table's key print as a
// blob (0x...), so a corrupt key is still shown, never hidden.

// FormatPartitionKey returns the serialized partition key key of t as CQL
// literals: the value for a single-column key ('ACTIVE'), the components in
// parentheses for a composite key (('a', 1)).
func (t *Table) FormatPartitionKey(key []byte) string {
	pk := t.PartitionKey()
	if len(pk) == 1 {
		return types.FormatLiteral(pk[0].Type, key)
	}
	comps, err := partitioner.SplitCompositeKey(key)
	if err != nil || len(comps) != len(pk) {
		return blob(key)
	}
	parts := make([]string, len(comps))
	for i, c := range comps {
		parts[i] = types.FormatLiteral(pk[i].Type, c)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// FormatPartitionWhere returns the partition key key of t as the WHERE
// clause that selects it: "k = 'ACTIVE'", "a = 'x' AND b = 1".
func (t *Table) FormatPartitionWhere(key []byte) string {
	pk := t.PartitionKey()
	comps := [][]byte{key}
	if len(pk) > 1 {
		var err error
		if comps, err = partitioner.SplitCompositeKey(key); err != nil || len(comps) != len(pk) {
			return "key = " + blob(key)
		}
	}
	parts := make([]string, len(comps))
	for i, c := range comps {
		parts[i] = pk[i].Name + " = " + types.FormatLiteral(pk[i].Type, c)
	}
	return strings.Join(parts, " AND ")
}

// FormatClustering returns an encoded clustering key or bound of t (see
// types.EncodeClustering and types.EncodeBound) as CQL literals in
// parentheses: (1, 'x') for a row's key. A bound shows the prefix it stands
// beside, and which side: "before (1)" sorts before every row whose first
// column is 1, "after (1)" after them; "before ()" and "after ()" are the
// ends of the partition. nil, the open end of a slice, prints as "*".
func (t *Table) FormatClustering(ck []byte) string {
	if ck == nil {
		return "*"
	}
	cols := t.ClusteringColumns()
	values, kind, err := types.DecodeClustering(t.ClusteringTypes(), ck)
	if err != nil {
		return blob(ck)
	}
	parts := make([]string, len(values))
	for i, v := range values {
		parts[i] = types.FormatLiteral(cols[i].Type, v)
	}
	s := "(" + strings.Join(parts, ", ") + ")"
	switch kind {
	case types.BeforePrefix:
		return "before " + s
	case types.AfterPrefix:
		return "after " + s
	}
	return s
}

// blob prints bytes as a CQL blob literal.
func blob(b []byte) string { return "0x" + hex.EncodeToString(b) }

// Partition keys written as text, as Cassandra's tools read them
// (sstabledump -k, nodetool getendpoints): the command line and the studio
// take keys this way.

// ParsePartitionKey converts a partition key of t written as text to its
// serialized form (see ParseKey).
func (t *Table) ParsePartitionKey(s string) ([]byte, error) {
	pk := t.PartitionKey()
	kinds := make([]types.Type, len(pk))
	for i, c := range pk {
		kinds[i] = c.Type
	}
	return ParseKey(kinds, s)
}

// ParseKey converts a partition key with components of the given types,
// written as text, to its serialized form: one value, or the values of a
// composite key separated by ':' ('\:' is a colon in a value), as
// CompositeType.fromString reads them.
func ParseKey(kinds []types.Type, s string) ([]byte, error) {
	if len(kinds) == 1 {
		return parseKeyComponent(kinds[0], s)
	}
	var parts []string
	var cur strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == ':':
			cur.WriteByte(':')
			i++
		case s[i] == ':':
			parts = append(parts, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(s[i])
		}
	}
	parts = append(parts, cur.String())
	if len(parts) != len(kinds) {
		return nil, fmt.Errorf("key %q has %d components, the partition key %d", s, len(parts), len(kinds))
	}
	values := make([][]byte, len(parts))
	for i, p := range parts {
		v, err := parseKeyComponent(kinds[i], p)
		if err != nil {
			return nil, err
		}
		values[i] = v
	}
	return partitioner.CompositeKey(values)
}

// parseKeyComponent reads one key value as AbstractType.fromString does:
// text as it is, a blob as hex, anything else as a CQL literal, quoted if
// need be (timestamps, dates, inet addresses).
func parseKeyComponent(t types.Type, s string) ([]byte, error) {
	switch t.Kind {
	case types.Text, types.Ascii:
		return []byte(s), nil
	case types.Blob:
		b, err := hex.DecodeString(strings.TrimPrefix(s, "0x"))
		if err != nil {
			return nil, fmt.Errorf("key %q is not hex: %w", s, err)
		}
		return b, nil
	}
	v, err := types.ParseLiteral(t, s)
	if err == nil {
		return v, nil
	}
	if v, qerr := types.ParseLiteral(t, "'"+strings.ReplaceAll(s, "'", "''")+"'"); qerr == nil {
		return v, nil
	}
	return nil, errors.Join(fmt.Errorf("key %q is not a %s", s, t), err)
}
