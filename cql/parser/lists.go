package parser

// This file holds the list shapes the grammar repeats: item (',' item)*,
// item (AND item)*, and the same lists between brackets. Each helper
// returns at least one item or an error; on error the items are dropped.

// sepList parses item (sep item)*, where more consumes a separator and
// reports whether one was there.
func sepList[T any](item func() (T, error), more func() bool) ([]T, error) {
	var out []T
	for {
		v, err := item()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		if !more() {
			break
		}
	}
	return out, nil
}

// commaList parses item (',' item)*.
func commaList[T any](p *parser, item func() (T, error)) ([]T, error) {
	return sepList(item, func() bool { return p.accept(tComma) })
}

// andList parses item (AND item)*.
func andList[T any](p *parser, item func() (T, error)) ([]T, error) {
	return sepList(item, func() bool { return p.acceptKw(kwAnd) })
}

// enclosedList parses open item (',' item)* close: a non-empty list between
// brackets.
func enclosedList[T any](p *parser, open, close tokenKind, item func() (T, error)) ([]T, error) {
	if err := p.expect(open); err != nil {
		return nil, err
	}
	return closedList(p, close, item)
}

// closedList parses item (',' item)* close, the rest of a non-empty list
// whose opening bracket is already consumed.
func closedList[T any](p *parser, close tokenKind, item func() (T, error)) ([]T, error) {
	out, err := commaList(p, item)
	if err != nil {
		return nil, err
	}
	return out, p.expect(close)
}

// optionalList parses close, or item (',' item)* close: the rest of a
// possibly empty list whose opening bracket is already consumed. An empty
// list is nil.
func optionalList[T any](p *parser, close tokenKind, item func() (T, error)) ([]T, error) {
	if p.accept(close) {
		return nil, nil
	}
	return closedList(p, close, item)
}
