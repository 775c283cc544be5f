package tour

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"regexp"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// uuidRE matches the random ids some views print (compaction ids).
var uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// TestLessons runs every lesson in every language, each step's claims (its
// expect lines) checked as it runs, and compares what it prints with
// testdata/lessons-LANG (go test ./tour -rewrite rewrites them). Random
// ids are printed as <uuid>.
func TestLessons(t *testing.T) {
	lessons, err := Lessons()
	require.NoError(t, err)
	require.Len(t, lessons, 11)
	for _, lang := range Languages {
		t.Run(lang, func(t *testing.T) {
			ran := map[string]bool{}
			datadriven.RunTest(t, "testdata/lessons-"+lang, func(t *testing.T, d *datadriven.TestData) string {
				require.Equal(t, "lesson", d.Cmd)
				l, err := Find(lessons, d.CmdArgs[0].Key)
				require.NoError(t, err)
				ran[l.Name] = true
				var b bytes.Buffer
				err = RunLesson(context.Background(), l, 1, 1, Options{Lang: lang, Out: &b})
				require.NoError(t, err, "lesson %s in %s:\n%s", l.Name, lang, b.String())
				return uuidRE.ReplaceAllString(b.String(), "<uuid>")
			})
			for _, l := range lessons {
				assert.True(t, ran[l.Name], "testdata/lessons-%s runs lesson %s", lang, l.Name)
			}
		})
	}
}

// TestChecksFail checks that a lesson whose claim does not hold fails,
// naming the line, and that a statement's error must be expected.
func TestChecksFail(t *testing.T) {
	run := func(text string) error {
		l, err := Parse("t.tour", text)
		require.NoError(t, err)
		return RunLesson(context.Background(), l, 1, 1, Options{})
	}
	const head = "name t\ntitle en T\ntitle zh T\nstep\nen e\nzh z\ncql CREATE TABLE t (k int, c int, PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY (c DESC);\nrepeat 3 INSERT INTO t (k, c) VALUES (1, {i});\ncql SELECT c FROM t WHERE k = 1;\n"
	require.NoError(t, run(head+"expect rows 3\nexpect order c desc\nexpect value 0 c 2\nexpect distinct c 3\n"))
	for check, want := range map[string]string{
		"expect rows 2":           "t:10: expect rows 2",
		"expect order c asc":      "rows 0 and 1 are not in asc order of c",
		"expect value 0 c 0":      "row 0's c is 2",
		"expect contains nothing": "expect contains nothing",
		"expect absent (3 rows)":  "the output holds it",
		"expect error x":          "the statement succeeded",
		"expect bogus 1":          "unknown check",
	} {
		err := run(head + check + "\n")
		require.ErrorIs(t, err, ErrCheck, check)
		assert.Contains(t, err.Error(), want, check)
	}
	err := run(head + "cql SELECT nope FROM t;\ncql SELECT c FROM t;\n")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the statement before failed")
	err = run(head + "cql SELECT nope FROM t;\n")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the step's last statement failed")
	require.NoError(t, run(head+"cql SELECT nope FROM t;\nexpect error Undefined column name nope\n"))
}

func TestParseErrors(t *testing.T) {
	for text, want := range map[string]string{
		"name x\ntitle en T\ntitle zh T\ncql SELECT 1;\n":            "before the first step",
		"name x\ntitle en T\ntitle zh T\nstep\nen e\n":               "no zh text",
		"name x\ntitle en T\nstep\nen e\nzh z\n":                     "no zh title",
		"name x\ntitle en T\ntitle zh T\nstep\nen e\nzh z\nfrob 1\n": "unknown directive",
		"name x\ntitle fr T\n":                                       "title LANG TEXT",
		"name x\ntitle en T\ntitle zh T\nstep\nen e\nzh z\ncql\n":    "cql needs an argument",
		"title en T\ntitle zh T\nstep\nen e\nzh z\n":                 "needs a name",
		"  continued\nname x\n":                                      "continuation line",
	} {
		_, err := Parse("x.tour", text)
		require.Error(t, err, text)
		assert.Contains(t, err.Error(), want, text)
	}
}

func TestFind(t *testing.T) {
	lessons, err := Lessons()
	require.NoError(t, err)
	l, err := Find(lessons, "2")
	require.NoError(t, err)
	assert.Equal(t, "latest-n", l.Name)
	l, err = Find(lessons, "tombstones")
	require.NoError(t, err)
	assert.Equal(t, "tombstones", l.Name)
	_, err = Find(lessons, "nope")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "partition-key, latest-n")
	for _, l := range lessons {
		for _, lang := range Languages {
			assert.NotEmpty(t, l.Title(lang))
		}
		assert.NotEmpty(t, l.Source, l.Name)
	}
}

func TestSubstitute(t *testing.T) {
	assert.Equal(t, "7 7 1 3 11 08 'x{j}'", substitute("{i} {i%10} {i/5} {i/2} {i+4} {i+1:02} 'x{j}'", 7))
	assert.Equal(t, "2", substitute("{i/300+1}", 300))
}

// TestStudioLinks runs a lesson with the studio: at the pause after each
// step, the page the step links to answers, drawing the lesson's DB as it
// is then (the ALLOW FILTERING read is a filtered scan of the 1,000
// partitions).
func TestStudioLinks(t *testing.T) {
	lessons, err := Lessons()
	require.NoError(t, err)
	l, err := Find(lessons, "allow-filtering")
	require.NoError(t, err)
	var out bytes.Buffer
	linkRE := regexp.MustCompile(`在 studio 里看：(http://127\.0\.0\.1:\d+/\S+)`)
	pages := 0
	err = RunLesson(context.Background(), l, 10, 11, Options{Lang: "zh", Out: &out, UI: "127.0.0.1:0", Pause: func() bool {
		m := linkRE.FindAllStringSubmatch(out.String(), -1)
		if len(m) > pages {
			resp, err := http.Get(m[len(m)-1][1])
			require.NoError(t, err)
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			require.Equal(t, 200, resp.StatusCode, string(body))
			assert.Contains(t, string(body), "filtered scan of 1000 partitions of tour.users")
			pages = len(m)
		}
		return true
	}})
	require.NoError(t, err, out.String())
	assert.Equal(t, 1, pages, "the lesson links to one studio page:\n%s", out.String())
}

func TestPhrases(t *testing.T) {
	for _, lang := range Languages {
		for key := range phrases["en"] {
			assert.Contains(t, phrases[lang], key, "%s has the phrase %q", lang, key)
		}
		assert.Len(t, phrases[lang], len(phrases["en"]), lang)
	}
	assert.Equal(t, "[回车：下一步，q：退出] ", Phrase("zh", "pause"))
	assert.Equal(t, "Trace:", Phrase("fr", "trace"))
}
