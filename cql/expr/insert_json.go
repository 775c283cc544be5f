package expr

import (
	"errors"
	"maps"
	"slices"

	"github.com/minicass/minicass/cql/query"

	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
)

// INSERT INTO t JSON '<object>' [DEFAULT NULL | DEFAULT UNSET] is an INSERT
// of every column of the table (Cassandra's Json.java): the object's keys
// name columns (lowercased unless written "\"Quoted\"", which keeps the
// case), each value is converted by types.FromJSON, an explicit JSON null
// writes null, and a column the object leaves out gets null (a tombstone,
// the default) or is left unset (DEFAULT UNSET). The JSON text is a string
// constant or a bind marker named [json]; it is decoded once per execution.

// jsonSource is the JSON text of one INSERT JSON and the columns it fills.
type jsonSource struct {
	text Term // a bind marker, or nil for a literal
	// literal is the decoded object of a literal JSON text.
	literal map[string][]byte
	tbl     *schema.Table
	unset   bool // DEFAULT UNSET
}

// jsonColumnTerm is the value one column takes from a jsonSource.
type jsonColumnTerm struct {
	src *jsonSource
	col *schema.Column
}

func (t jsonColumnTerm) Eval(q *query.Execution) (query.Value, error) {
	vals, err := t.src.values(q)
	if err != nil {
		return query.Value{}, err
	}
	if b, ok := vals[t.col.Name]; ok {
		return query.Value{Bytes: b}, nil
	}
	return query.Value{Unset: t.src.unset}, nil
}

// CompileInsertJSON compiles the JSON value of an INSERT JSON: every column
// of the table, each with a term reading it from the decoded object.
func (c *CompileCtx) CompileInsertJSON(tbl *schema.Table, st *parser.Insert) ([]*schema.Column, []Term, error) {
	text, err := c.CompileTerm(st.JSON, Receiver{Ks: tbl.Keyspace, Table: tbl.Name, Name: "[json]", Typ: types.TextType})
	if err != nil {
		return nil, nil, err
	}
	src := &jsonSource{text: text, tbl: tbl, unset: st.JSONDefault == parser.JSONDefaultUnset}
	if ct, ok := text.(ConstTerm); ok {
		// A literal is decoded now, so that its errors come at PREPARE as
		// Cassandra's do (Json.Literal).
		if ct.V == nil {
			return nil, nil, query.Invalidf("Got null for INSERT JSON values")
		}
		if src.literal, err = src.decode(ct.V); err != nil {
			return nil, nil, err
		}
		src.text = nil
	}
	cols := slices.Clone(tbl.Columns)
	terms := make([]Term, len(cols))
	for i, col := range cols {
		terms[i] = jsonColumnTerm{src: src, col: col}
	}
	return cols, terms, nil
}

// values returns the decoded object by column name: a column absent from
// the object is absent from the map, an explicit null maps to nil.
func (j *jsonSource) values(q *query.Execution) (map[string][]byte, error) {
	if j.text == nil {
		return j.literal, nil
	}
	if vals, ok := q.JSONCache[j]; ok {
		return vals, nil
	}
	v, err := j.text.Eval(q)
	if err != nil {
		return nil, err
	}
	if v.Unset || v.Bytes == nil {
		return nil, query.Invalidf("Got null for INSERT JSON values")
	}
	vals, err := j.decode(v.Bytes)
	if err != nil {
		return nil, err
	}
	if q.JSONCache == nil {
		q.JSONCache = map[any]map[string][]byte{}
	}
	q.JSONCache[j] = vals
	return vals, nil
}

// decode parses text as a JSON object and converts its values to the
// columns' types, with Cassandra's error texts (Json.parseJson).
func (j *jsonSource) decode(text []byte) (map[string][]byte, error) {
	doc, err := types.DecodeJSON(text)
	if err != nil {
		return nil, query.Invalidf("Could not decode JSON string as a map: %v. (String was: %s)", err, text)
	}
	if doc == nil {
		return nil, query.Invalidf("Got null for INSERT JSON values")
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return nil, query.Invalidf("Could not decode JSON string as a map: expected a JSON object, got %s. (String was: %s)",
			types.JSONKindName(doc), text)
	}
	// Keys name columns case-insensitively unless quoted.
	byName := make(map[string]any, len(obj))
	for k, v := range obj {
		byName[types.JSONName(k)] = v
	}
	vals := make(map[string][]byte, len(byName))
	for _, col := range j.tbl.Columns {
		v, ok := byName[col.Name]
		if !ok {
			continue
		}
		delete(byName, col.Name)
		if v == nil {
			vals[col.Name] = nil
			continue
		}
		b, err := types.FromJSON(col.Type, v)
		if err != nil {
			if re := (*types.JSONRequestError)(nil); errors.As(err, &re) {
				return nil, query.Invalidf("%s", re.Reason)
			}
			return nil, query.Invalidf("Error decoding JSON value for %s: %s", col.Name, UnwrapReason(err))
		}
		vals[col.Name] = b
	}
	if len(byName) > 0 {
		return nil, query.Invalidf("JSON values map contains unrecognized column: %s", slices.Min(slices.Collect(maps.Keys(byName))))
	}
	return vals, nil
}
