package shell

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/minicass/minicass/cql"
	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/types"
)

// COPY, cqlsh's CSV import and export (cqlshlib/copyutil.py), run in the
// shell's process:
//
//	COPY [ks.]table [(col, ...)] TO 'file' | STDOUT [WITH option = value [AND ...]]
//	COPY [ks.]table [(col, ...)] FROM 'file' [WITH option = value [AND ...]]
//
// Values are written as cqlsh prints them and read back with the same
// rules (text as is, collections, tuples and user types as CQL literals, the
// rest as their CQL text). The options are cqlsh's common ones: HEADER,
// DELIMITER, QUOTE, ESCAPE, NULL, MAXROWS, SKIPROWS (FROM), PAGESIZE (TO);
// cqlsh's process and rate options are accepted and ignored, since one
// process does the work. The messages are cqlsh's, with the rates and times
// measured here.

// copyCommand is a parsed COPY.
type copyCommand struct {
	keyspace, table string
	columns         []string // empty: all, in the table's order
	to              bool
	file            string // "" for STDOUT / STDIN
	opts            copyOptions
}

type copyOptions struct {
	header            bool
	delimiter, quote  rune
	escape            rune
	null              string
	maxRows, skipRows int
	pageSize          int
}

// copyTOOptions and copyFROMOptions are the options cqlsh accepts in each
// direction (COPY_COMMON_OPTIONS plus its own); the ones not listed in
// copyOptions are accepted and have no effect.
var (
	copyCommonOptions = []string{"delimiter", "quote", "escape", "header", "null", "datetimeformat", "maxattempts",
		"reportfrequency", "decimalsep", "thousandssep", "boolstyle", "numprocesses", "configfile", "ratefile"}
	copyToOptions   = []string{"encoding", "pagesize", "pagetimeout", "begintoken", "endtoken", "maxrequests", "maxoutputsize", "floatprecision", "doubleprecision", "maxrows"}
	copyFromOptions = []string{"chunksize", "ingestrate", "maxbatchsize", "minbatchsize", "maxrows", "skiprows", "skipcols",
		"maxparseerrors", "maxinserterrors", "errfile", "preparedstatements", "ttl"}
)

// parseCopy parses text, a COPY command without its ';'.
func parseCopy(text string, keyspace string) (*copyCommand, error) {
	toks, err := copyTokens(text)
	if err != nil {
		return nil, err
	}
	i := 1 // COPY
	next := func() string {
		if i < len(toks) {
			i++
			return toks[i-1]
		}
		return ""
	}
	peek := func() string {
		if i < len(toks) {
			return toks[i]
		}
		return ""
	}
	c := &copyCommand{opts: copyOptions{delimiter: ',', quote: '"', escape: '\\', pageSize: 1000, maxRows: -1}}
	name := next()
	if name == "" {
		return nil, errors.New("Improper COPY command.")
	}
	if peek() == "." {
		next()
		c.keyspace, c.table = unquoteName(name), unquoteName(next())
	} else {
		c.keyspace, c.table = keyspace, unquoteName(name)
	}
	if c.keyspace == "" {
		return nil, errors.New("Improper COPY command.")
	}
	if peek() == "(" {
		next()
		for {
			col := next()
			if col == "" || col == ")" {
				return nil, errors.New("Improper COPY command.")
			}
			c.columns = append(c.columns, unquoteName(col))
			if sep := next(); sep == ")" {
				break
			} else if sep != "," {
				return nil, errors.New("Improper COPY command.")
			}
		}
	}
	switch strings.ToLower(next()) {
	case "to":
		c.to = true
	case "from":
	default:
		return nil, errors.New("Improper COPY command.")
	}
	switch target := next(); {
	case strings.EqualFold(target, "stdout") && c.to, strings.EqualFold(target, "stdin") && !c.to:
	case strings.HasPrefix(target, "'"):
		c.file = strings.ReplaceAll(target[1:len(target)-1], "''", "'")
	default:
		return nil, errors.New("Improper COPY command.")
	}
	if peek() == "" {
		return c, nil
	}
	if !strings.EqualFold(next(), "with") {
		return nil, errors.New("Improper COPY command.")
	}
	dir, allowed := "FROM", append(slices.Clone(copyCommonOptions), copyFromOptions...)
	if c.to {
		dir, allowed = "TO", append(slices.Clone(copyCommonOptions), copyToOptions...)
	}
	var unknown []string
	for {
		opt, eq, val := strings.ToLower(next()), next(), next()
		if opt == "" || eq != "=" || val == "" {
			return nil, errors.New("Improper COPY command.")
		}
		if strings.HasPrefix(val, "'") {
			val = strings.ReplaceAll(val[1:len(val)-1], "''", "'")
		}
		if !slices.Contains(allowed, opt) {
			unknown = append(unknown, opt)
		} else if err := c.opts.set(opt, val); err != nil {
			return nil, err
		}
		if peek() == "" {
			break
		}
		if !strings.EqualFold(next(), "and") {
			return nil, errors.New("Improper COPY command.")
		}
	}
	if len(unknown) > 0 {
		return nil, fmt.Errorf("Unrecognized COPY %s options: %s", dir, strings.Join(unknown, ", "))
	}
	return c, nil
}

// set applies one option.
func (o *copyOptions) set(name, val string) error {
	char := func() (rune, error) {
		r := []rune(val)
		if len(r) != 1 {
			return 0, fmt.Errorf("%s must be a single character", name)
		}
		return r[0], nil
	}
	num := func() (int, error) {
		n, err := strconv.Atoi(val)
		if err != nil {
			return 0, fmt.Errorf("Invalid value for %s: %s", name, val)
		}
		return n, nil
	}
	var err error
	switch name {
	case "header":
		o.header = strings.EqualFold(val, "true") || val == "1" || strings.EqualFold(val, "yes")
	case "delimiter":
		o.delimiter, err = char()
	case "quote":
		o.quote, err = char()
	case "escape":
		o.escape, err = char()
	case "null":
		o.null = val
	case "maxrows":
		o.maxRows, err = num()
	case "skiprows":
		o.skipRows, err = num()
	case "pagesize":
		o.pageSize, err = num()
	}
	return err
}

// copyTokens splits a COPY command into words, quoted strings ('...' with
// ” for a quote), double-quoted names, and ( ) , . = as tokens.
func copyTokens(s string) ([]string, error) {
	var out []string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case strings.ContainsRune("(),.=", rune(c)):
			out = append(out, string(c))
			i++
		case c == '\'' || c == '"':
			j := i + 1
			for ; j < len(s); j++ {
				if s[j] == c {
					if j+1 < len(s) && s[j+1] == c {
						j++
						continue
					}
					break
				}
			}
			if j >= len(s) {
				return nil, errors.New("Improper COPY command.")
			}
			out = append(out, s[i:j+1])
			i = j + 1
		default:
			j := i
			for j < len(s) && !strings.ContainsRune(" \t\n\r(),.='\"", rune(s[j])) {
				j++
			}
			out = append(out, s[i:j])
			i = j
		}
	}
	return out, nil
}

// unquoteName returns a CQL name as stored: a double-quoted one as is, any
// other lower-cased.
func unquoteName(s string) string {
	if len(s) >= 2 && s[0] == '"' {
		return strings.ReplaceAll(s[1:len(s)-1], `""`, `"`)
	}
	return strings.ToLower(s)
}

// copy runs a COPY command.
func (sh *Shell) copy(ctx context.Context, text string) {
	c, err := parseCopy(strings.TrimSuffix(strings.TrimSpace(text), ";"), sh.sess.Keyspace())
	if err != nil {
		sh.printErr(err.Error())
		return
	}
	cols, err := sh.copyColumns(ctx, c)
	if err != nil {
		sh.printErr(err.Error())
		return
	}
	names := make([]string, len(cols))
	for i, col := range cols {
		names[i] = col.Name
	}
	fmt.Fprintf(sh.out, "Using 1 child processes\n\nStarting copy of %s.%s with columns [%s].\n", c.keyspace, c.table, strings.Join(names, ", "))
	now := sh.cfg.Clock
	if now == nil {
		now = time.Now
	}
	start := now()
	if c.to {
		n, err := sh.copyTo(ctx, c, cols)
		if err != nil {
			sh.printErr(err.Error())
			return
		}
		sh.copyProgress(n, now().Sub(start))
		dest := "1 files"
		if c.file == "" {
			dest = "STDOUT"
		}
		fmt.Fprintf(sh.out, "%d rows exported to %s in %s seconds.\n", n, dest, seconds(now().Sub(start)))
		return
	}
	n, skipped, err := sh.copyFrom(ctx, c, cols)
	if err != nil {
		sh.printErr(err.Error())
		return
	}
	sh.copyProgress(n, now().Sub(start))
	fmt.Fprintf(sh.out, "\n%d rows imported from 1 files in %s seconds (%d skipped).\n", n, seconds(now().Sub(start)), skipped)
}

// copyProgress prints cqlsh's last progress line for n rows in d.
func (sh *Shell) copyProgress(n int, d time.Duration) {
	rate := 0.0
	if d > 0 {
		rate = float64(n) / d.Seconds()
	}
	fmt.Fprintf(sh.out, "Processed: %d rows; Rate: %7.0f rows/s; Avg. rate: %7.0f rows/s\n", n, rate, rate)
}

func seconds(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', 3, 64) }

// copyColumns returns the columns COPY works on: the ones named, or every
// column in the table's order (SELECT *'s).
func (sh *Shell) copyColumns(ctx context.Context, c *copyCommand) ([]cql.ColumnSpec, error) {
	table := quoteName(c.keyspace) + "." + quoteName(c.table)
	res, err := sh.sess.CQL().Query(ctx, "SELECT * FROM "+table+" LIMIT 1", nil)
	if err != nil {
		// cqlsh looks the table up in the driver's metadata first.
		eng := sh.cfg.DB.Engine()
		if _, ok := eng.Keyspace(c.keyspace); !ok {
			return nil, fmt.Errorf("Keyspace '%s' not found.", c.keyspace)
		}
		if _, ok := eng.Table(c.keyspace, c.table); !ok {
			return nil, fmt.Errorf("Column family '%s' not found", c.table)
		}
		return nil, errors.New(errorText(err))
	}
	if len(c.columns) == 0 {
		return res.Columns, nil
	}
	var out []cql.ColumnSpec
	for _, name := range c.columns {
		i := slices.IndexFunc(res.Columns, func(s cql.ColumnSpec) bool { return s.Name == name })
		if i < 0 {
			return nil, fmt.Errorf("Invalid column name %s", name)
		}
		out = append(out, res.Columns[i])
	}
	return out, nil
}

// copyTo writes the rows as CSV, page by page.
func (sh *Shell) copyTo(ctx context.Context, c *copyCommand, cols []cql.ColumnSpec) (int, error) {
	w := sh.out
	if c.file != "" {
		f, err := os.Create(c.file)
		if err != nil {
			return 0, fmt.Errorf("Can't open %q for writing: %v", c.file, err)
		}
		defer f.Close()
		w = f
	}
	cw := csv.NewWriter(w)
	cw.Comma = c.opts.delimiter
	if c.opts.header {
		names := make([]string, len(cols))
		for i, col := range cols {
			names[i] = col.Name
		}
		if err := cw.Write(names); err != nil {
			return 0, err
		}
	}
	sel := make([]string, len(cols))
	for i, col := range cols {
		sel[i] = quoteName(col.Name)
	}
	query := "SELECT " + strings.Join(sel, ", ") + " FROM " + quoteName(c.keyspace) + "." + quoteName(c.table)
	var state []byte
	n := 0
	rec := make([]string, len(cols))
	for {
		res, err := sh.sess.CQL().Query(ctx, query, &cql.Params{PageSize: c.opts.pageSize, PagingState: state})
		if err != nil {
			return n, errors.New(errorText(err))
		}
		for _, r := range res.Rows {
			if c.opts.maxRows >= 0 && n >= c.opts.maxRows {
				cw.Flush()
				return n, cw.Error()
			}
			for j, col := range cols {
				if r[j] == nil {
					rec[j] = c.opts.null
				} else {
					rec[j] = types.Format(col.Type, r[j])
				}
			}
			if err := cw.Write(rec); err != nil {
				return n, err
			}
			n++
		}
		if state = res.PagingState; state == nil {
			break
		}
	}
	cw.Flush()
	return n, cw.Error()
}

// copyFrom reads CSV records from a file and inserts them with a prepared
// INSERT. A record that does not convert or insert is reported and skipped.
// (cqlsh also reads STDIN up to a "\." line; minicass does not.)
func (sh *Shell) copyFrom(ctx context.Context, c *copyCommand, cols []cql.ColumnSpec) (imported, skipped int, err error) {
	if c.file == "" {
		return 0, 0, errors.New("COPY FROM STDIN is not supported by minicass; read from a file")
	}
	f, err := os.Open(c.file)
	if err != nil {
		return 0, 0, fmt.Errorf("Can't open %q for reading: %v", c.file, err)
	}
	defer f.Close()
	var r io.Reader = f
	if c.opts.quote != '"' {
		return 0, 0, errors.New("minicass's COPY FROM reads only '\"' as QUOTE")
	}
	cr := csv.NewReader(r)
	cr.Comma = c.opts.delimiter
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = true
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ")
	names := make([]string, len(cols))
	for i, col := range cols {
		names[i] = quoteName(col.Name)
	}
	prep, err := sh.sess.CQL().Prepare(ctx, "INSERT INTO "+quoteName(c.keyspace)+"."+quoteName(c.table)+" ("+strings.Join(names, ", ")+") VALUES ("+marks+")")
	if err != nil {
		return 0, 0, errors.New(errorText(err))
	}
	skip := c.opts.skipRows
	if c.opts.header {
		skip++
	}
	for line := 0; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return imported, skipped, fmt.Errorf("Error reading %s: %v", c.file, err)
		}
		if line < skip {
			continue
		}
		if c.opts.maxRows >= 0 && imported >= c.opts.maxRows {
			break
		}
		vals, err := copyValues(rec, cols, c.opts.null)
		if err == nil {
			_, err = sh.sess.CQL().ExecutePrepared(ctx, prep, &cql.Params{Values: vals})
			if err != nil {
				err = errors.New(errorText(err))
			}
		}
		if err != nil {
			skipped++
			sh.printErr(fmt.Sprintf("Failed to import 1 rows: ParseError - %v,  given up without retries", err))
			continue
		}
		imported++
	}
	return imported, skipped, nil
}

// copyValues converts one CSV record to the bound values of the INSERT, as
// cqlsh's ImportConversion reads them: the NULL string is null, text is
// taken as is, collections, tuples and user types are CQL literals, and
// the rest is the type's CQL text.
func copyValues(rec []string, cols []cql.ColumnSpec, null string) ([]cql.Value, error) {
	if len(rec) != len(cols) {
		return nil, fmt.Errorf("Invalid row length %d should be %d", len(rec), len(cols))
	}
	vals := make([]cql.Value, len(cols))
	for i, col := range cols {
		field := rec[i]
		t := col.Type
		if field == null {
			continue // null
		}
		var b []byte
		var err error
		switch {
		case t.Kind == types.Text || t.Kind == types.Ascii:
			b = []byte(field)
		case t.IsCollection() || t.Kind == types.Tuple:
			b, err = types.ParseLiteral(t, field)
		default:
			b, err = types.FromJSON(t, field)
		}
		if err != nil {
			return nil, fmt.Errorf("Failed to import %q for column %s: %v", field, col.Name, err)
		}
		vals[i] = cql.Value{Bytes: b}
	}
	return vals, nil
}

// quoteName returns a name as CQL writes it.
func quoteName(name string) string { return parser.Ident(name).String() }
