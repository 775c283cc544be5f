package tour

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/minicass/minicass/types"
)

// expect checks one claim of a step about what its last action showed.
func (r *runner) expect(arg string) error {
	kind, rest, _ := strings.Cut(arg, " ")
	rest = strings.TrimSpace(rest)
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%w: expect %s: %s", ErrCheck, arg, fmt.Sprintf(format, args...))
	}
	if kind == "error" {
		if r.err == nil {
			return fail("the statement succeeded")
		}
		if !strings.Contains(r.err.Error(), rest) {
			return fail("the error is %q", r.err.Error())
		}
		r.unexpected = nil
		return nil
	}
	switch kind {
	case "contains":
		if !strings.Contains(r.out, rest) {
			return fail("the output is:\n%s", r.out)
		}
		return nil
	case "absent":
		if strings.Contains(r.out, rest) {
			return fail("the output holds it:\n%s", r.out)
		}
		return nil
	case "lines<":
		n, err := strconv.Atoi(rest)
		if err != nil {
			return fail("a number of lines")
		}
		if got := strings.Count(strings.TrimSpace(r.out), "\n") + 1; got >= n {
			return fail("the output has %d lines", got)
		}
		return nil
	}
	res := r.res
	if res == nil || r.err != nil {
		return fail("no statement result to check")
	}
	col := func(name string) (int, error) {
		for i, c := range res.Columns {
			if c.Name == name {
				return i, nil
			}
		}
		return 0, fail("no column %q in the result", name)
	}
	switch kind {
	case "rows":
		n, err := strconv.Atoi(rest)
		if err != nil {
			return fail("a number of rows")
		}
		if len(res.Rows) != n {
			return fail("%d rows", len(res.Rows))
		}
	case "order":
		name, dir := cutLast(rest)
		i, err := col(name)
		if err != nil {
			return err
		}
		if len(res.Rows) < 2 {
			return fail("fewer than two rows to order")
		}
		for j := 1; j < len(res.Rows); j++ {
			c := types.Compare(res.Columns[i].Type, res.Rows[j-1][i], res.Rows[j][i])
			if dir == "desc" && c < 0 || dir == "asc" && c > 0 || dir != "asc" && dir != "desc" {
				return fail("rows %d and %d are not in %s order of %s", j-1, j, dir, name)
			}
		}
	case "value":
		f := strings.SplitN(rest, " ", 3)
		if len(f) != 3 {
			return fail("expect value ROW COLUMN TEXT")
		}
		row, err := strconv.Atoi(f[0])
		if err != nil || row < 0 || row >= len(res.Rows) {
			return fail("no row %s among %d", f[0], len(res.Rows))
		}
		i, err := col(f[1])
		if err != nil {
			return err
		}
		got := "null"
		if v := res.Rows[row][i]; v != nil {
			got = types.Format(res.Columns[i].Type, v)
		}
		if got != f[2] {
			return fail("row %d's %s is %s", row, f[1], got)
		}
	case "distinct":
		name, ns := cutLast(rest)
		i, err := col(name)
		if err != nil {
			return err
		}
		n, err := strconv.Atoi(ns)
		if err != nil {
			return fail("a number of values")
		}
		seen := map[string]bool{}
		for _, row := range res.Rows {
			seen[string(row[i])] = true
		}
		if len(seen) != n {
			return fail("%d distinct values", len(seen))
		}
	default:
		return fail("unknown check (rows, order, value, distinct, error, contains, absent, lines<)")
	}
	return nil
}

// cutLast splits s at its last space (a column name may hold spaces).
func cutLast(s string) (string, string) {
	i := strings.LastIndexByte(s, ' ')
	if i < 0 {
		return s, ""
	}
	return s[:i], s[i+1:]
}
