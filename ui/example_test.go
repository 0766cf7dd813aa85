package ui_test

import (
	"context"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/themes"
	"github.com/fpstop/fpstop/ui"
)

// runnerSession is the smallest ui.Session: a metrics runner's snapshots and its reset. The
// CLI's session (internal/session) is also a ui.Recorder and, on a device, a ui.DeviceSwitcher.
type runnerSession struct{ r *metrics.Runner }

func (s runnerSession) Latest() *metrics.Snapshot { return s.r.Latest() }
func (s runnerSession) Clear() {
	s.r.Do(context.Background(), func(p *metrics.Pipeline) { p.Reset() })
}

// Example shows how the CLI wires the dashboard: colour profile and background are settled
// before the program starts, and the Session is something the CLI owns (the pipeline, the
// recorder, adb, the source switcher).
func Example() {
	if _, err := themes.SetupColor("auto"); err != nil { // --color auto|always|never, NO_COLOR
		return
	}
	theme, err := themes.Resolve("dark") // --theme NAME or a YAML file
	if err != nil {
		return
	}
	light := theme.Background == themes.BackgroundAuto && !lipgloss.HasDarkBackground()

	runner := metrics.NewRunner(metrics.NewPipeline(metrics.Config{}), 250*time.Millisecond)
	m := ui.New(ui.Options{
		Theme:           theme,
		LightBackground: light,
		Refresh:         250 * time.Millisecond,
		Session:         runnerSession{runner},
		Note:            "no device found: showing the simulator",
	})
	p := tea.NewProgram(m, tea.WithAltScreen())
	_ = p // p.Run() in main
}
