package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/minicass/minicass/tour"
)

// tour runs the guided tour (package tour): lessons that follow the seed
// articles, each on an in-memory DB of its own.
//
//	minicass tour                  every lesson, in order
//	minicass tour LESSON...        the lessons named (or numbered: 2, latest-n)
//	minicass tour --list           the lessons
//	minicass tour --lang zh        in Chinese (the default follows $LANG)
//	minicass tour --ui 127.0.0.1:7070   with the studio on each lesson's DB
//
// On a terminal the tour waits for Enter after each step (q quits); piped
// or with --plain it prints everything at once.
func init() {
	commands["tour"] = command{
		summary: "a guided tour of Cassandra data modelling, in English or Chinese (--list, --lang zh, --ui ADDR)",
		run:     tourMain,
	}
}

func tourMain(args []string, io stdio) int {
	fs := flag.NewFlagSet("tour", flag.ContinueOnError)
	fs.SetOutput(io.err)
	lang := fs.String("lang", defaultLang(), "language of the lessons: en or zh")
	list := fs.Bool("list", false, "list the lessons")
	ui := fs.String("ui", "", "serve the studio on this loopback address (127.0.0.1:PORT) while each lesson runs")
	plain := fs.Bool("plain", false, "print every step at once, without waiting for Enter")
	fs.Usage = func() {
		fmt.Fprintln(io.err, "usage: minicass tour [--lang en|zh] [--list] [--ui ADDR] [--plain] [LESSON...]")
		fs.PrintDefaults()
	}
	names, err := parseArgs(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *lang != "en" && *lang != "zh" {
		fmt.Fprintf(io.err, "minicass tour: --lang %q: the tour speaks en and zh\n", *lang)
		return 2
	}
	lessons, err := tour.Lessons()
	if err != nil {
		fmt.Fprintf(io.err, "minicass tour: %v\n", err)
		return 1
	}
	if *list {
		for i, l := range lessons {
			fmt.Fprintf(io.out, "%2d  %-16s %s\n", i+1, l.Name, l.Title(*lang))
		}
		return 0
	}
	run := lessons
	if len(names) > 0 {
		run = nil
		for _, n := range names {
			l, err := tour.Find(lessons, n)
			if err != nil {
				fmt.Fprintf(io.err, "minicass tour: %v\n", err)
				return 2
			}
			run = append(run, l)
		}
	}
	opts := tour.Options{Lang: *lang, Out: io.out, UI: *ui}
	if !*plain && interactive(io) {
		in := bufio.NewReader(io.in)
		prompt := tour.Phrase(*lang, "pause")
		opts.Pause = func() bool {
			fmt.Fprint(io.out, "\n"+prompt)
			line, err := in.ReadString('\n')
			return err == nil && !strings.EqualFold(strings.TrimSpace(line), "q")
		}
	}
	for i, l := range run {
		n := i + 1
		for j, all := range lessons {
			if all == l {
				n = j + 1
			}
		}
		if err := tour.RunLesson(context.Background(), l, n, len(lessons), opts); err != nil {
			if errors.Is(err, tour.ErrStopped) {
				return 0
			}
			fmt.Fprintf(io.err, "minicass tour: %v\n", err)
			return 1
		}
	}
	return 0
}

// interactive reports whether the tour talks to a person: stdin and stdout
// are terminals.
func interactive(io stdio) bool {
	in, ok1 := io.in.(*os.File)
	out, ok2 := io.out.(*os.File)
	return ok1 && ok2 && term.IsTerminal(int(in.Fd())) && term.IsTerminal(int(out.Fd()))
}

// defaultLang is zh when the locale ($LC_ALL, $LANG) is Chinese, else en.
func defaultLang() string {
	for _, v := range []string{os.Getenv("LC_ALL"), os.Getenv("LANG")} {
		if v != "" {
			if strings.HasPrefix(strings.ToLower(v), "zh") {
				return "zh"
			}
			return "en"
		}
	}
	return "en"
}
