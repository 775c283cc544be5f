package shell

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/minicass/minicass/cql"
	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/wire"
)

// Format is an output format of the shell.
type Format uint8

// The output formats.
const (
	// FormatTable draws results as cqlsh does: a header, a rule, one line
	// per row with values right-aligned, then "(N rows)".
	FormatTable Format = iota
	// FormatJSON prints, for every statement that returns rows, one line
	// holding a JSON array with one object per row keyed by column name.
	FormatJSON
	// FormatCSV prints, for every statement that returns rows, a header line
	// and one line per row, quoted as RFC 4180 says.
	FormatCSV
)

// ParseFormat parses "table", "json" or "csv".
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(s) {
	case "table", "":
		return FormatTable, nil
	case "json":
		return FormatJSON, nil
	case "csv":
		return FormatCSV, nil
	}
	return 0, fmt.Errorf("%w: unknown format %q (want table, json or csv)", ErrUsage, s)
}

// String returns the format's flag spelling.
func (f Format) String() string {
	switch f {
	case FormatJSON:
		return "json"
	case FormatCSV:
		return "csv"
	}
	return "table"
}

// width is the display width of s on a terminal, as cqlsh's wcwidth-based
// displaywidth counts it: East Asian wide and fullwidth characters count
// two columns, combining marks and other zero-width characters none.
func width(s string) int {
	n := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		n += runeWidth(r)
	}
	return n
}

func runeWidth(r rune) int {
	switch {
	case r < 0x300:
		return 1
	case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf) || r == 0x200b:
		return 0
	case r >= 0x1100 && r <= 0x115f, r >= 0x2e80 && r <= 0x303e, r >= 0x3041 && r <= 0x33ff,
		r >= 0x3400 && r <= 0x4dbf, r >= 0x4e00 && r <= 0x9fff, r >= 0xa000 && r <= 0xa4cf,
		r >= 0xac00 && r <= 0xd7a3, r >= 0xf900 && r <= 0xfaff, r >= 0xfe30 && r <= 0xfe4f,
		r >= 0xff00 && r <= 0xff60, r >= 0xffe0 && r <= 0xffe6, r >= 0x1f300 && r <= 0x1f64f,
		r >= 0x1f900 && r <= 0x1f9ff, r >= 0x20000 && r <= 0x3fffd:
		return 2
	}
	return 1
}

func pad(s string, w int) string {
	if n := w - width(s); n > 0 {
		return s + strings.Repeat(" ", n)
	}
	return s
}

func padLeft(s string, w int) string {
	if n := w - width(s); n > 0 {
		return strings.Repeat(" ", n) + s
	}
	return s
}

// formatRows formats every value of rows with types.Format (cqlsh's text),
// and null as "null".
func formatRows(cols []cql.ColumnSpec, rows [][][]byte) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = make([]string, len(cols))
		for j, c := range cols {
			out[i][j] = types.Format(c.Type, r[j])
		}
	}
	return out
}

// writeTable draws one page as cqlsh's print_formatted_result does: the
// header left-aligned and right-trimmed, a rule of dashes joined by -+-,
// values right-aligned. header is false for the pages after the first when
// the output is not a terminal. A trailing blank line follows the rows when
// tty is set (cqlsh prints it per page on a terminal, once at the end
// otherwise).
func writeTable(w io.Writer, cols []cql.ColumnSpec, vals [][]string, header, tty bool) {
	widths := make([]int, len(cols))
	for i, c := range cols {
		widths[i] = width(c.Name)
	}
	for _, r := range vals {
		for i, v := range r {
			widths[i] = max(widths[i], width(v))
		}
	}
	if header {
		parts := make([]string, len(cols))
		dashes := make([]string, len(cols))
		for i, c := range cols {
			parts[i] = pad(c.Name, widths[i])
			dashes[i] = strings.Repeat("-", widths[i])
		}
		fmt.Fprintln(w, strings.TrimRight(" "+strings.Join(parts, " | "), " "))
		fmt.Fprintln(w, "-"+strings.Join(dashes, "-+-")+"-")
	}
	if len(vals) == 0 {
		fmt.Fprintln(w)
		return
	}
	parts := make([]string, len(cols))
	for _, r := range vals {
		for i, v := range r {
			parts[i] = padLeft(v, widths[i])
		}
		fmt.Fprintln(w, " "+strings.Join(parts, " | "))
	}
	if tty {
		fmt.Fprintln(w)
	}
}

// writeVertical prints one page as cqlsh's EXPAND ON does: "@ Row N", a
// rule, then one "name | value" line per column, names left-aligned.
func writeVertical(w io.Writer, cols []cql.ColumnSpec, vals [][]string, offset int) {
	colW, valW := 0, 0
	for _, c := range cols {
		colW = max(colW, width(c.Name))
	}
	for _, r := range vals {
		for _, v := range r {
			valW = max(valW, width(v))
		}
	}
	for i, r := range vals {
		fmt.Fprintf(w, "@ Row %d\n", offset+i+1)
		fmt.Fprintf(w, "-%s-+-%s-\n", strings.Repeat("-", colW), strings.Repeat("-", valW))
		for j, v := range r {
			fmt.Fprintf(w, " %s | %s\n", pad(cols[j].Name, colW), v)
		}
		fmt.Fprintln(w)
	}
}

// appendJSONRows appends the rows as JSON objects (without the enclosing
// brackets), separated by ", ", after n rows already written.
func appendJSONRows(dst []byte, cols []cql.ColumnSpec, rows [][][]byte, n int) []byte {
	for i, r := range rows {
		if n+i > 0 {
			dst = append(dst, ", "...)
		}
		dst = append(dst, '{')
		for j, c := range cols {
			if j > 0 {
				dst = append(dst, ", "...)
			}
			dst = types.AppendJSON(dst, types.Type{Kind: types.Text}, []byte(c.Name))
			dst = append(dst, ": "...)
			dst = types.AppendJSON(dst, c.Type, r[j])
		}
		dst = append(dst, '}')
	}
	return dst
}

// writeCSV writes rows as CSV records; null is the empty field and other
// values use cqlsh's text.
func writeCSV(cw *csv.Writer, cols []cql.ColumnSpec, rows [][][]byte) error {
	rec := make([]string, len(cols))
	for _, r := range rows {
		for j, c := range cols {
			if r[j] == nil {
				rec[j] = ""
			} else {
				rec[j] = types.Format(c.Type, r[j])
			}
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// errorText renders err as cqlsh prints it: the Python driver's exception
// class, a colon, and what cqlsh prints of the exception. The driver turns
// some server errors into exceptions whose text is its summary message, e.g.
//
//	InvalidRequest: Error from server: code=2200 [Invalid query] message="..."
//	AlreadyExists: Keyspace 'ks' already exists
//
// and keeps the others (SyntaxException, ConfigurationException, ...),
// whose server message cqlsh prints as is:
//
//	SyntaxException: line 1:0 no viable alternative at input 'SELEC' ...
func errorText(err error) string {
	var e *cql.Error
	if !errors.As(err, &e) {
		return err.Error()
	}
	name := e.Code.ExceptionName()
	switch e.Code {
	case wire.CodeAlreadyExists:
		if e.Table != "" {
			return fmt.Sprintf("%s: Table '%s.%s' already exists", name, e.Keyspace, e.Table)
		}
		return fmt.Sprintf("%s: Keyspace '%s' already exists", name, e.Keyspace)
	case wire.CodeInvalid, wire.CodeUnauthorized, wire.CodeUnavailable, wire.CodeReadTimeout, wire.CodeWriteTimeout,
		wire.CodeReadFailure, wire.CodeWriteFailure, wire.CodeFunctionFailure:
		return fmt.Sprintf("%s: Error from server: code=%04x [%s] message=\"%s\"", name, int32(e.Code), e.Code, e.Message)
	}
	return name + ": " + e.Message
}
