package javaudf

import (
	"regexp"
	"strings"
)

// Java regular expressions (String.split, matches, replaceAll,
// replaceFirst) run on Go's regexp where the pattern means the same in
// both: a pattern Go cannot compile (lookaround, back references,
// possessive quantifiers, Java's \p{Alpha} classes) is outside the subset.

// javaRegex compiles a Java pattern, or panics with UnsupportedError.
func javaRegex(p string, line int) *regexp.Regexp {
	re, err := regexp.Compile(p)
	if err != nil {
		panic(&UnsupportedError{Line: line, Construct: "the regular expression " + p})
	}
	return re
}

// javaSplit is String.split(regex, limit) (JDK 8 and later: a zero-width
// match at the start yields no leading empty string; limit 0 drops
// trailing empty strings; limit > 0 caps the number of parts).
func javaSplit(s string, re *regexp.Regexp, limit int) []string {
	if s == "" {
		return []string{""}
	}
	var out []string
	start := 0
	for _, m := range re.FindAllStringIndex(s, -1) {
		if limit > 0 && len(out) == limit-1 {
			break
		}
		if m[1] == 0 {
			continue
		}
		out = append(out, s[start:m[0]])
		start = m[1]
	}
	out = append(out, s[start:])
	if limit == 0 {
		for len(out) > 0 && out[len(out)-1] == "" {
			out = out[:len(out)-1]
		}
	}
	return out
}

// javaReplacement converts a Java replacement string ($1, ${name}, \$) to
// a Go template for Regexp.Expand.
func javaReplacement(r string, re *regexp.Regexp, line int) string {
	var b strings.Builder
	for i := 0; i < len(r); i++ {
		c := r[i]
		switch {
		case c == '\\':
			i++
			if i >= len(r) {
				throwJava("IllegalArgumentException", "character to be escaped is missing")
			}
			if r[i] == '$' {
				b.WriteString("$$")
			} else {
				b.WriteByte(r[i])
			}
		case c == '$':
			i++
			if i >= len(r) {
				throwJava("IllegalArgumentException", "Illegal group reference: group index is missing")
			}
			if r[i] == '{' {
				j := strings.IndexByte(r[i:], '}')
				if j < 0 {
					throwJava("IllegalArgumentException", "named capturing group is missing trailing '}'")
				}
				name := r[i+1 : i+j]
				if re.SubexpIndex(name) < 0 {
					throwJava("IllegalArgumentException", "No group with name {"+name+"}")
				}
				b.WriteString("${" + name + "}")
				i += j
				continue
			}
			if r[i] < '0' || r[i] > '9' {
				throwJava("IllegalArgumentException", "Illegal group reference")
			}
			// Java reads as many digits as still name an existing group.
			n := int(r[i] - '0')
			if n > re.NumSubexp() {
				throwJava("IndexOutOfBoundsException", "No group "+itoa(int64(n)))
			}
			for i+1 < len(r) && r[i+1] >= '0' && r[i+1] <= '9' && n*10+int(r[i+1]-'0') <= re.NumSubexp() {
				i++
				n = n*10 + int(r[i]-'0')
			}
			b.WriteString("${" + itoa(int64(n)) + "}")
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// javaReplace is String.replaceAll (all true) or replaceFirst.
func javaReplace(s string, re *regexp.Regexp, repl string, all bool, line int) string {
	tmpl := javaReplacement(repl, re, line)
	var b strings.Builder
	last := 0
	for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
		b.WriteString(s[last:m[0]])
		b.Write(re.ExpandString(nil, tmpl, s, m))
		last = m[1]
		checkChars(b.Len())
		if !all {
			break
		}
	}
	b.WriteString(s[last:])
	return b.String()
}
