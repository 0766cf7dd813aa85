// Package html writes fpstop's HTML reports: one self-contained, offline file per
// recording (or per comparison of two) that a performance engineer can attach to a bug or a
// pull request instead of a screenshot.
//
// Every chart is inline SVG drawn here in Go, one element per bar or point with a <title>
// tooltip; nothing is drawn by a script and the file references no URL, so it opens the same
// from a mail attachment, an air-gapped machine or a printer. The page template and stylesheet
// are embedded files (templates/); colours come from themes/ (the light and dark values of a
// theme, chosen by the reader's prefers-color-scheme).
package html

import (
	"bufio"
	"embed"
	"fmt"
	"html/template"
	"io"
	"path/filepath"
	"sync"
	"time"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/report"
	"github.com/fpstop/fpstop/themes"
)

//go:embed templates/*.tmpl templates/*.css
var files embed.FS

// pageTmpl is parsed on first use, so that every other command does not pay for it.
var pageTmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").ParseFS(files, "templates/*.tmpl"))
})

// Session is one recording read for the HTML report: the analysis the JSON report comes from
// plus every counted frame, kept compactly for drawing.
type Session struct {
	// Name labels the session in the page (the recording's file name by default).
	Name     string
	Analysis *report.Analysis
	frames   frameSet
}

// Load reads a recording through the metrics pipeline (cfg and meta as for the JSON report, so
// every number on the page equals the report's).
func Load(path string, cfg metrics.Config, meta metrics.ReportMeta) (*Session, error) {
	s := &Session{Name: filepath.Base(path)}
	a, err := report.Analyse(path, cfg, meta, s.frames.add)
	if err != nil {
		return nil, err
	}
	s.Analysis = a
	return s, nil
}

// Options change how the page looks, never what it says.
type Options struct {
	// Theme gives the colours (zero: the default theme). Its light values are used on a light
	// page and its dark values under prefers-color-scheme: dark.
	Theme themes.Theme
	// Now stamps the page (zero: the current time).
	Now time.Time
}

// page is the template's data.
type page struct {
	Title     string
	ThemeCSS  template.CSS
	CSS       template.CSS
	Single    *sessionView
	Compare   *compareView
	Generated string
}

// Write writes the single-session HTML report of s.
func Write(w io.Writer, s *Session, opt Options) error {
	v := buildSession(s)
	p, err := newPage(opt, "fpstop · "+v.Title)
	if err != nil {
		return err
	}
	p.Single = v
	return render(w, p)
}

func newPage(opt Options, title string) (*page, error) {
	t := opt.Theme
	if t.Name == "" {
		var err error
		if t, err = themes.Get(""); err != nil {
			return nil, err
		}
	}
	css, err := files.ReadFile("templates/report.css")
	if err != nil {
		return nil, fmt.Errorf("reading the embedded stylesheet: %w", err)
	}
	now := opt.Now
	if now.IsZero() {
		now = time.Now()
	}
	return &page{Title: title, ThemeCSS: themeCSS(t), CSS: template.CSS(css),
		Generated: now.UTC().Format("2006-01-02 15:04 UTC")}, nil
}

func render(w io.Writer, p *page) error {
	bw := bufio.NewWriterSize(w, 256<<10)
	if err := pageTmpl().ExecuteTemplate(bw, "page.html.tmpl", p); err != nil {
		return fmt.Errorf("writing the HTML report: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing the HTML report: %w", err)
	}
	return nil
}

// budgetMs is the frame interval in ms (0 when the rate is unknown).
func (s *Session) budgetMs() float64 {
	hz := s.Analysis.Snapshot.RefreshHz
	if hz <= 0 && s.Analysis.Report.RefreshHz != nil {
		hz = float64(*s.Analysis.Report.RefreshHz)
	}
	if hz <= 0 {
		return 0
	}
	return 1000 / hz
}
