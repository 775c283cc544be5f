package parser

import "strings"

// SplitStatements splits shell input into complete statements and the
// unfinished rest. A statement is complete when it ends with a ';' that is
// outside string constants ('...' and $$...$$), quoted identifiers and
// comments, and, for a statement starting with BEGIN [UNLOGGED|COUNTER]
// BATCH, only at the ';' that follows APPLY BATCH. Each complete statement
// is returned with surrounding whitespace trimmed and its ';' kept; pieces
// holding nothing but whitespace, comments and ';' are dropped. rest is the
// trimmed text after the last complete statement ("" if none).
func SplitStatements(input string) (complete []string, rest string) {
	start := 0
	content := false // the current piece has a token other than comments
	var words [3]string
	nwords := 0
	inBatch := false
	pushWord := func(w string) {
		w = strings.ToLower(w)
		if nwords == 0 {
			inBatch = w == "begin"
		}
		nwords++
		words[0], words[1], words[2] = words[1], words[2], w
	}
	i := 0
	for i < len(input) {
		c := input[i]
		switch {
		case c == '\'' || c == '"':
			j := i + 1
			for {
				k := strings.IndexByte(input[j:], c)
				if k < 0 {
					j = -1
					break
				}
				j += k + 1
				if j < len(input) && input[j] == c {
					j++
					continue
				}
				break
			}
			content = true
			nwords++
			words[0], words[1], words[2] = words[1], words[2], "<lit>"
			if j < 0 {
				return complete, strings.TrimSpace(input[start:])
			}
			i = j
		case c == '$' && i+1 < len(input) && input[i+1] == '$':
			k := strings.Index(input[i+2:], "$$")
			content = true
			if k < 0 {
				return complete, strings.TrimSpace(input[start:])
			}
			i += 2 + k + 2
		case (c == '-' || c == '/') && i+1 < len(input) && input[i+1] == c:
			k := strings.IndexByte(input[i:], '\n')
			if k < 0 {
				i = len(input)
			} else {
				i += k + 1
			}
		case c == '/' && i+1 < len(input) && input[i+1] == '*':
			k := strings.Index(input[i+2:], "*/")
			if k < 0 {
				return complete, strings.TrimSpace(input[start:])
			}
			i += 2 + k + 2
		case isLetter(c):
			j := i + 1
			for j < len(input) && isIdentChar(input[j]) {
				j++
			}
			content = true
			pushWord(input[i:j])
			i = j
		case c == ';':
			i++
			if inBatch && !(words[1] == "apply" && words[2] == "batch") {
				continue
			}
			if content {
				complete = append(complete, strings.TrimSpace(input[start:i]))
			}
			start, content, nwords, inBatch = i, false, 0, false
			words = [3]string{}
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		default:
			content = true
			i++
		}
	}
	if !content {
		return complete, ""
	}
	return complete, strings.TrimSpace(input[start:])
}
