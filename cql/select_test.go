package cql

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/minicass/minicass/cql/query"

	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/wire"
	"github.com/stretchr/testify/require"
)

// TestSelectScripts runs the datadriven scripts under testdata/select
// (directives: see runScripts).
func TestSelectScripts(t *testing.T) { runScripts(t, "testdata/select") }

func runScript(t *testing.T, s *Session, input string, page int) string {
	stmts, rest := parser.SplitStatements(input + ";")
	require.Empty(t, strings.TrimSpace(rest))
	var out strings.Builder
	for _, q := range stmts {
		q = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(q), ";"))
		if q == "" {
			continue
		}
		res, pages, err := queryAllPages(s, q, page)
		if err != nil {
			e := query.AsError(err)
			fmt.Fprintf(&out, "code=%04x message=%s\n", int32(e.Code), e.Message)
			continue
		}
		for _, w := range res.Warnings {
			fmt.Fprintf(&out, "warning: %s\n", w)
		}
		if res.Kind != wire.ResultRows {
			continue
		}
		out.WriteString(formatRows(res))
		if page > 0 {
			fmt.Fprintf(&out, "(%d pages)\n", pages)
		}
	}
	return out.String()
}

// queryAllPages runs q, fetching every page when pageSize > 0.
func queryAllPages(s *Session, q string, pageSize int) (*query.Result, int, error) {
	ctx := context.Background()
	p := &query.Params{PageSize: pageSize}
	res, err := s.Query(ctx, q, p)
	if err != nil {
		return nil, 0, err
	}
	pages := 1
	if pageSize > 0 && len(res.Rows) > pageSize {
		return nil, 0, fmt.Errorf("page of %d rows for page size %d", len(res.Rows), pageSize)
	}
	for res.PagingState != nil && pageSize > 0 {
		next, err := s.Query(ctx, q, &query.Params{PageSize: pageSize, PagingState: res.PagingState})
		if err != nil {
			return nil, 0, err
		}
		if len(next.Rows) > pageSize {
			return nil, 0, fmt.Errorf("page of %d rows for page size %d", len(next.Rows), pageSize)
		}
		pages++
		res.Rows = append(res.Rows, next.Rows...)
		res.PagingState = next.PagingState
	}
	return res, pages, nil
}

func formatRows(res *query.Result) string {
	var b strings.Builder
	names := make([]string, len(res.Columns))
	for i, c := range res.Columns {
		names[i] = c.Name + ":" + c.Type.String()
	}
	b.WriteString(strings.Join(names, " | "))
	b.WriteString("\n")
	for _, row := range res.Rows {
		vals := make([]string, len(row))
		for i, v := range row {
			if v == nil {
				vals[i] = "null"
			} else {
				vals[i] = types.Format(res.Columns[i].Type, v)
			}
		}
		b.WriteString(strings.Join(vals, " | "))
		b.WriteString("\n")
	}
	b.WriteString("(" + strconv.Itoa(len(res.Rows)) + " rows)\n")
	return b.String()
}
