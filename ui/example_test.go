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

// Example shows how main wires the dashboard: colour profile and background are settled
// before the program starts, snapshots come from the metrics runner, and every callback is
// something main owns (the recorder, adb, the source switcher).
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
		Snapshots:       runner.Latest,
		OnClear: func() {
			runner.Do(context.Background(), func(p *metrics.Pipeline) { p.Reset() })
		},
		Note: "no device found: showing the simulator",
	})
	p := tea.NewProgram(m, tea.WithAltScreen())
	_ = p // p.Run() in main
}
