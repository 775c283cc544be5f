package parser

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKeywordText checks that each keyword has one spelling, which the
// lexer gives as the value of keyword tokens whatever their case.
func TestKeywordText(t *testing.T) {
	seen := map[keyword]string{}
	for text, kw := range keywords {
		if prev, dup := seen[kw]; dup {
			t.Fatalf("keyword %d spelled both %q and %q", kw, prev, text)
		}
		seen[kw] = text
		assert.Equal(t, text, keywordText[kw])
	}
	toks, err := lex("SeLeCt Insert values")
	require.Nil(t, err)
	for _, tok := range toks[:3] {
		assert.Equal(t, strings.ToLower(tok.text), tok.val)
	}
}
