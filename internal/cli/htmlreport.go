package cli

import (
	"errors"
	"io"
	"os"
	"path/filepath"

	"github.com/fpstop/fpstop/compare"
	"github.com/fpstop/fpstop/internal/capture"
	"github.com/fpstop/fpstop/internal/outfile"
	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/report/html"
)

// writeOutput runs write against stdout, or against a new file when output is set (removed
// again when write fails, so a half-written report is never left behind).
func writeOutput(stdout io.Writer, output string, force bool, write func(io.Writer) error) error {
	if output == "" || output == "-" {
		return write(stdout)
	}
	f, err := outfile.Create(output, force)
	if errors.Is(err, outfile.ErrExists) || errors.Is(err, outfile.ErrNotRegular) {
		return usageErr("%v", err)
	}
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		os.Remove(output)
		return err
	}
	return f.Close()
}

// htmlReport writes the single-session HTML report of a recording and returns its report (for
// the gates).
func htmlReport(w io.Writer, path, name string, cfg metrics.Config, meta metrics.ReportMeta) (*metrics.Report, error) {
	s, err := html.Load(path, cfg, meta)
	if err != nil {
		return nil, err
	}
	s.Name = filepath.Base(name) // a capture's own name, not its temporary recording's
	s.Analysis.Report.Warnings = capture.NameCapture(s.Analysis.Report.Warnings, path, name)
	if err := html.Write(w, s, html.Options{}); err != nil {
		return nil, err
	}
	return s.Analysis.Report, nil
}

// compareHTML writes the comparison page; it reads the result's recordings again for the
// charts (the result holds numbers, not series), with the same metrics configuration.
func compareHTML(w io.Writer, res *compare.Result, cfg metrics.Config, version string) error {
	c, err := html.LoadComparison(res, cfg, metrics.ReportMeta{Version: version})
	if err != nil {
		return err
	}
	return html.WriteCompare(w, c, html.Options{})
}
