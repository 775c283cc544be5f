package schema

import (
	"encoding/hex"
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
