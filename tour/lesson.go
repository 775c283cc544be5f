// Package tour is minicass's guided tour (minicass tour): lessons that
// follow the seed articles on Cassandra data modelling (partition key and
// token, clustering order and latest-N, composite keys, time buckets, TTL
// windows and TWCS, counters, query tables written with BATCH, hot
// partitions and bucketing, partition sizes, ALLOW FILTERING, tombstones),
// in English and in Chinese, the articles' language.
//
// A lesson runs real statements on an in-memory DB of its own (keyspace
// tour, on a manual clock that starts at 2024-01-15 10:00:00 UTC, so every
// run prints the same), and shows the view that explains them: a trace, an
// SSTable's dump or layout, a nodetool view, tokens and replicas on a
// simulated ring, and with a studio running (Options.UI) a link to the
// page that draws it.
//
// Lessons are data: one file per lesson in lessons/, embedded in the
// binary, in the format below. Each step's claims are checked as the step
// runs (expect lines), so a lesson whose statements stop showing what its
// text says fails, in the tests and for the learner alike.
//
//	name latest-n                       the lesson's name (minicass tour latest-n)
//	title en Clustering order and ...   its title in each language
//	title zh 聚簇列顺序与……
//	source 002 (KillrVideo user_videos)  the seed article it follows
//
//	step                                a step: one screen of the tour
//	en A paragraph in English.          one paragraph per line, in each language
//	zh 中文的一段。
//	cql SELECT ... ;                    run a statement and print its result
//	  ... more of it                    (a line starting with a space continues
//	                                    the line before)
//	quiet INSERT ... ;                  run a statement, print nothing
//	repeat 100 INSERT ... VALUES ({i}, {i%10}, {i/10}, {i+1}, {i%60:02});
//	                                    run it for i = 0..99 (:02 pads to 2 digits), print one line
//	trace SELECT ... ;                  run with tracing, print the result and the trace
//	flush t | compact t                 nodetool flush / compact of table t
//	nodetool tablehistograms tour.t     a nodetool view
//	clock +1d                           move the clock
//	dump t [KEY] | dump t layout        sstabledump of t's newest SSTable (one key), or its layout
//	ring t KEY...                       tokens and replicas on a simulated 4-node ring (RF 3)
//	studio /read?table=tour.t&q=...     the studio page that draws it (shown with Options.UI)
//	expect rows N                       the last statement returned N rows
//	expect order COL asc|desc           ... its rows ordered by COL
//	expect value ROW COL TEXT           ... row ROW's (from 0) COL printed as TEXT
//	expect distinct COL N               ... N distinct values of COL
//	expect error TEXT                   the last statement failed, its error containing TEXT
//	expect contains TEXT                the last action's output contains TEXT
//	expect absent TEXT                  ... does not contain TEXT
//	expect lines< N                     the last action's output has fewer than N lines
package tour

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
)

//go:embed lessons/*.tour
var lessonFiles embed.FS

// Languages are the languages of the tour, English first.
var Languages = []string{"en", "zh"}

// Lesson is one lesson of the tour.
type Lesson struct {
	// Name identifies the lesson (minicass tour NAME).
	Name string
	// Titles are the lesson's titles by language.
	Titles map[string]string
	// Source names the seed article the lesson follows.
	Source string
	// Steps are the lesson's steps in order.
	Steps []Step
}

// Title returns the lesson's title in lang (English if it has none).
func (l *Lesson) Title(lang string) string {
	if t, ok := l.Titles[lang]; ok {
		return t
	}
	return l.Titles["en"]
}

// Step is one screen of a lesson: its text in each language and the
// actions that show what the text says.
type Step struct {
	// Text holds the step's paragraphs by language.
	Text map[string][]string
	// Actions run in order.
	Actions []Action
	// Line is the step's line in its lesson file.
	Line int
}

// Action is one line of a step other than its text: a directive (cql,
// quiet, repeat, trace, flush, compact, nodetool, clock, dump, ring,
// studio, expect) and its argument.
type Action struct {
	Verb, Arg string
	// Line is the action's line in its lesson file.
	Line int
}

// verbs are the directives of a step.
var verbs = []string{"cql", "quiet", "repeat", "trace", "flush", "compact", "nodetool", "clock", "dump", "ring", "studio", "expect"}

// Lessons returns the tour's lessons in order.
func Lessons() ([]*Lesson, error) {
	names, err := fs.Glob(lessonFiles, "lessons/*.tour")
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	var out []*Lesson
	for _, n := range names {
		b, err := lessonFiles.ReadFile(n)
		if err != nil {
			return nil, err
		}
		l, err := Parse(path.Base(n), string(b))
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, nil
}

// Find returns the lesson named name, or numbered so (from 1).
func Find(lessons []*Lesson, name string) (*Lesson, error) {
	if n, err := strconv.Atoi(name); err == nil && n >= 1 && n <= len(lessons) {
		return lessons[n-1], nil
	}
	for _, l := range lessons {
		if l.Name == name {
			return l, nil
		}
	}
	names := make([]string, len(lessons))
	for i, l := range lessons {
		names[i] = l.Name
	}
	return nil, fmt.Errorf("no lesson %q (minicass tour --list lists them: %s)", name, strings.Join(names, ", "))
}

// Parse reads a lesson file; file names it in errors.
func Parse(file, text string) (*Lesson, error) {
	l := &Lesson{Titles: map[string]string{}}
	var step *Step
	lines := strings.Split(text, "\n")
	fail := func(i int, format string, args ...any) error {
		return fmt.Errorf("%s:%d: %s", file, i+1, fmt.Sprintf(format, args...))
	}
	for i := 0; i < len(lines); i++ {
		line := strings.TrimRight(lines[i], " \t\r")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if line[0] == ' ' || line[0] == '\t' {
			return nil, fail(i, "a continuation line with nothing to continue")
		}
		// Continuation lines join the line before.
		first := i
		for i+1 < len(lines) && strings.HasPrefix(lines[i+1], " ") && strings.TrimSpace(lines[i+1]) != "" {
			i++
			line += "\n" + strings.TrimRight(lines[i], " \t\r")
		}
		verb, arg, _ := strings.Cut(line, " ")
		arg = strings.TrimSpace(arg)
		switch {
		case verb == "name":
			l.Name = arg
		case verb == "title":
			lang, t, ok := strings.Cut(arg, " ")
			if !ok || !slices.Contains(Languages, lang) {
				return nil, fail(first, "title LANG TEXT, with LANG one of %v", Languages)
			}
			l.Titles[lang] = strings.TrimSpace(t)
		case verb == "source":
			l.Source = arg
		case verb == "step":
			l.Steps = append(l.Steps, Step{Text: map[string][]string{}, Line: first + 1})
			step = &l.Steps[len(l.Steps)-1]
		case step == nil:
			return nil, fail(first, "%q before the first step", verb)
		case slices.Contains(Languages, verb):
			step.Text[verb] = append(step.Text[verb], strings.ReplaceAll(arg, "\n", " "))
		case slices.Contains(verbs, verb):
			if arg == "" {
				return nil, fail(first, "%s needs an argument", verb)
			}
			step.Actions = append(step.Actions, Action{Verb: verb, Arg: arg, Line: first + 1})
		default:
			return nil, fail(first, "unknown directive %q", verb)
		}
	}
	if l.Name == "" || len(l.Steps) == 0 {
		return nil, fmt.Errorf("%s: a lesson needs a name and a step", file)
	}
	for _, lang := range Languages {
		if l.Titles[lang] == "" {
			return nil, fmt.Errorf("%s: no %s title", file, lang)
		}
		for _, s := range l.Steps {
			if len(s.Text[lang]) == 0 {
				return nil, fmt.Errorf("%s:%d: the step has no %s text", file, s.Line, lang)
			}
		}
	}
	return l, nil
}
