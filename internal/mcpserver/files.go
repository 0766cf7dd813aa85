package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fpstop/fpstop/compare"
	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/report"
)

// ReportInput names a file to summarise.
type ReportInput struct {
	File    string `json:"file" jsonschema:"a recording (.jsonl, .jsonl.gz), a captured dumpsys gfxinfo output or logcat text: any file fpstop reads; inside the working directory or a --root"`
	Package string `json:"package,omitempty" jsonschema:"for a capture of several apps: the app to report (default: the one with most frames)"`
}

// CompareInput names the two sides.
type CompareInput struct {
	Base       string   `json:"base" jsonschema:"BASE: a recording, a directory of recordings, or a measure record_dir (its iterations)"`
	New        string   `json:"new" jsonschema:"NEW: the same kinds as base"`
	BaseMore   []string `json:"base_more,omitempty" jsonschema:"more recordings or directories for BASE"`
	NewMore    []string `json:"new_more,omitempty" jsonschema:"more recordings or directories for NEW"`
	Confidence float64  `json:"confidence,omitempty" jsonschema:"confidence of the intervals, e.g. 0.95 (the default); a difference is significant when p < 1 − confidence"`
	MinEffect  string   `json:"min_effect,omitempty" jsonschema:"smallest difference that counts, as fps=N,pct=N,ms=N (default fps=1,pct=1,ms=1)"`
}

// MetricOut is one metric compared.
type MetricOut struct {
	Name        string   `json:"name" jsonschema:"the metric; its unit is in unit (fps, pct = percent / percentage points, ms)"`
	Unit        string   `json:"unit"`
	Better      string   `json:"better" jsonschema:"higher or lower: which direction is an improvement"`
	Base        *float64 `json:"base"`
	New         *float64 `json:"new"`
	Diff        *float64 `json:"diff" jsonschema:"NEW − BASE in the unit"`
	CILow       *float64 `json:"ci_low" jsonschema:"confidence interval of diff"`
	CIHigh      *float64 `json:"ci_high"`
	P           *float64 `json:"p" jsonschema:"p-value of the difference"`
	Significant bool     `json:"significant"`
	Verdict     string   `json:"verdict" jsonschema:"this metric's verdict, as fpstop compare prints it"`
}

// MessageChange is a slow main-thread message whose duration or presence changed.
type MessageChange struct {
	Name      string   `json:"name"`
	Status    string   `json:"status" jsonschema:"new, gone, slower, faster"`
	CountBase int64    `json:"count_base"`
	CountNew  int64    `json:"count_new"`
	P95BaseMs *float64 `json:"p95_base_ms"`
	P95NewMs  *float64 `json:"p95_new_ms"`
	DiffMs    *float64 `json:"diff_ms"`
	P         *float64 `json:"p"`
}

// WindowVerdict is one window's verdict.
type WindowVerdict struct {
	Name    string `json:"name"`
	Present string `json:"present" jsonschema:"both, new (only in NEW) or gone (only in BASE)"`
	Verdict string `json:"verdict"`
}

// CompareOutput is compare's result.
type CompareOutput struct {
	Summary      string          `json:"summary"`
	Verdict      string          `json:"verdict" jsonschema:"the overall verdict, as fpstop compare prints it"`
	Confidence   float64         `json:"confidence"`
	Metrics      []MetricOut     `json:"metrics"`
	Windows      []WindowVerdict `json:"windows"`
	SlowMessages []MessageChange `json:"slow_messages" jsonschema:"slow main-thread messages that changed (unchanged ones are in result)"`
	Warnings     []string        `json:"warnings"`
	Result       map[string]any  `json:"result" jsonschema:"the whole comparison, as fpstop compare --format json prints it (docs/compare.md)"`
}

func (s *server) addFileTools(srv *mcp.Server) {
	mcp.AddTool(srv, &mcp.Tool{Name: "report", Title: "Summarise a recording or capture",
		Description: "Summarises a file fpstop reads (a recording, a captured gfxinfo dump or logcat text) as measure does: the key figures, the worst frames with what ran in them, and the full report.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, s.report)
	mcp.AddTool(srv, &mcp.Tool{Name: "compare", Title: "Compare two runs",
		Description: "Compares two runs (recordings or measure record_dirs): is NEW better, worse or unchanged? Per metric the values, the difference with its confidence interval and p-value, and which slow main-thread messages changed.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, s.compare)
}

// isRecording says whether path is an fpstop recording by its name (what `fpstop report`
// reads); anything else is read as a capture (`fpstop --headless --input`).
func isRecording(path string) bool {
	return strings.HasSuffix(path, ".jsonl") || strings.HasSuffix(path, ".jsonl.gz")
}

// reportFile summarises an allowed path.
func (s *server) reportFile(ctx context.Context, path string) (*RunSummary, error) {
	return s.reportArgs(ctx, path, "")
}

func (s *server) reportArgs(ctx context.Context, path, pkg string) (*RunSummary, error) {
	args := []string{"report", "--format=json", path}
	if !isRecording(path) || pkg != "" {
		args = []string{"--headless", "--json", "--input=" + path}
		if pkg != "" {
			args = append(args, "--package="+pkg)
		}
	}
	stdout, errText, code := s.run(ctx, args, nil, nil)
	if code != 0 || len(stdout) == 0 {
		return nil, cliError("reading "+path, errText, code)
	}
	var r metrics.Report
	if err := json.Unmarshal(stdout, &r); err != nil {
		return nil, fmt.Errorf("reading %s: no report: %w", path, err)
	}
	return summarise(&r)
}

func (s *server) report(ctx context.Context, _ *mcp.CallToolRequest, in ReportInput) (*mcp.CallToolResult, *RunSummary, error) {
	p, err := s.roots.allow("file", in.File)
	if err != nil {
		return nil, nil, err
	}
	if err := validPackage(in.Package); err != nil {
		return nil, nil, err
	}
	sum, err := s.reportArgs(ctx, p, in.Package)
	if err != nil {
		return nil, nil, err
	}
	return textResult(sum.Summary, sum), sum, nil
}

func (s *server) compare(ctx context.Context, _ *mcp.CallToolRequest, in CompareInput) (*mcp.CallToolResult, *CompareOutput, error) {
	var paths [2][]string
	for i, side := range [2][]string{append([]string{in.Base}, in.BaseMore...), append([]string{in.New}, in.NewMore...)} {
		for _, f := range side {
			p, err := s.roots.allow([2]string{"base", "new"}[i], f)
			if err != nil {
				return nil, nil, err
			}
			paths[i] = append(paths[i], p)
		}
	}
	args := []string{"compare", "--format=json"}
	if in.Confidence != 0 {
		if !(in.Confidence > 0 && in.Confidence < 1) {
			return nil, nil, fmt.Errorf("confidence %v: want a value between 0 and 1, e.g. 0.95", in.Confidence)
		}
		args = append(args, fmt.Sprintf("--confidence=%g", in.Confidence))
	}
	if in.MinEffect != "" {
		args = append(args, "--min-effect="+in.MinEffect)
	}
	for _, p := range paths[0][1:] {
		args = append(args, "--base="+p)
	}
	for _, p := range paths[1][1:] {
		args = append(args, "--new="+p)
	}
	args = append(args, "--", paths[0][0], paths[1][0])
	stdout, errText, code := s.run(ctx, args, nil, nil)
	var res compare.Result
	if len(stdout) == 0 || json.Unmarshal(stdout, &res) != nil {
		return nil, nil, cliError("the comparison", errText, code)
	}
	out, err := compareOutput(&res)
	if err != nil {
		return nil, nil, err
	}
	return textResult(out.Summary, out), out, nil
}

// compareOutput reads the comparison for an agent.
func compareOutput(res *compare.Result) (*CompareOutput, error) {
	out := &CompareOutput{Verdict: string(res.Verdict), Confidence: res.Confidence, Metrics: []MetricOut{},
		Windows: []WindowVerdict{}, SlowMessages: []MessageChange{}, Warnings: res.Warnings}
	if out.Warnings == nil {
		out.Warnings = []string{}
	}
	for _, m := range res.Metrics {
		out.Metrics = append(out.Metrics, MetricOut{Name: m.Name, Unit: m.Unit, Better: m.Better, Base: m.Base, New: m.New,
			Diff: m.Diff, CILow: m.CILow, CIHigh: m.CIHigh, P: m.P, Significant: m.Significant, Verdict: string(m.Verdict)})
	}
	for _, w := range res.Windows {
		out.Windows = append(out.Windows, WindowVerdict{Name: w.Name, Present: w.Present, Verdict: string(w.Verdict)})
	}
	for _, m := range res.Messages {
		if m.Status == compare.MsgUnchanged {
			continue
		}
		out.SlowMessages = append(out.SlowMessages, MessageChange{Name: messageName(m), Status: m.Status,
			CountBase: m.CountBase, CountNew: m.CountNew, P95BaseMs: m.P95.Base, P95NewMs: m.P95.New, DiffMs: m.P95.Diff, P: m.P95.P})
	}
	full, err := asMap(res)
	if err != nil {
		return nil, err
	}
	out.Result = full
	out.Summary = compareParagraph(res, out)
	return out, nil
}

// compareParagraph says the verdict and the run-level metrics that decided it.
func compareParagraph(res *compare.Result, out *CompareOutput) string {
	var b strings.Builder
	switch out.Verdict {
	case string(compare.Better), string(compare.Worse):
		fmt.Fprintf(&b, "NEW is %s than BASE", strings.ToUpper(out.Verdict))
	default:
		fmt.Fprintf(&b, "NEW is %s against BASE", strings.ToUpper(out.Verdict))
	}
	fmt.Fprintf(&b, " (%.0f %% confidence; BASE %d frames over %.1f s, NEW %d frames over %.1f s)",
		math.Round(res.Confidence*100), res.Base.Frames, res.Base.DurationS, res.New.Frames, res.New.DurationS)
	var changed []string
	for _, m := range res.Metrics {
		if m.Significant && m.Verdict != compare.Unchanged && m.Base != nil && m.New != nil && m.Diff != nil {
			s := fmt.Sprintf("%s %s → %s (%s", m.Name, num(*m.Base), num(*m.New), signed(*m.Diff))
			if m.CILow != nil && m.CIHigh != nil {
				s += fmt.Sprintf(", interval %s to %s", num(*m.CILow), num(*m.CIHigh))
			}
			if m.P != nil {
				s += ", " + pText(*m.P)
			}
			changed = append(changed, s+", "+string(m.Verdict)+")")
		}
	}
	if len(changed) > 0 {
		if len(changed) > 4 {
			changed = append(changed[:4], fmt.Sprintf("%d more in metrics", len(changed)-4))
		}
		b.WriteString(": " + strings.Join(changed, "; "))
	} else {
		b.WriteString(": no run-level metric changed significantly by more than the minimum effect")
	}
	b.WriteString(".")
	var msgs []string
	for _, m := range out.SlowMessages {
		s := fmt.Sprintf("`%s` %s", m.Name, m.Status)
		if m.P95BaseMs != nil && m.P95NewMs != nil {
			s += fmt.Sprintf(" (p95 %s → %s ms)", num(*m.P95BaseMs), num(*m.P95NewMs))
		}
		msgs = append(msgs, s)
		if len(msgs) == 3 {
			break
		}
	}
	if len(msgs) > 0 {
		fmt.Fprintf(&b, " Slow main-thread messages: %s.", strings.Join(msgs, "; "))
	}
	return b.String()
}

func signed(v float64) string {
	if v > 0 {
		return "+" + num(v)
	}
	return num(v)
}

// messageName names a compared message as the reports do.
func messageName(m compare.Message) string {
	return report.MessageName(m.Handler, m.Callback, m.What, m.WhatName)
}

// pText prints a p-value as a paper would: three decimals, or "p < 0.001".
func pText(p float64) string {
	if p < 0.001 {
		return "p < 0.001"
	}
	return fmt.Sprintf("p %.3f", p)
}
