package cli

import (
	"strings"
	"testing"
)

// --source sf is surfaceflinger; --layer is checked like any name that reaches a device shell.
func TestSurfaceFlingerFlags(t *testing.T) {
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--source", "sf", "--layer", "x'; reboot; echo '", "--headless"}, ExitUsage, "--layer"},
		{[]string{"--source", "surfaceflinger", "--layer", "-dump", "--headless"}, ExitUsage, "--layer"},
		{[]string{"--layer", "SurfaceView[a.b/a.b.C]@0(BLAST)#1", "--headless"}, ExitUsage, "--layer needs --source surfaceflinger"},
		{[]string{"--source", "sf", "--input", "x.txt", "--layer", "a", "--headless"}, ExitUsage, "--layer needs --source surfaceflinger on a device"},
		{[]string{"--source", "sf", "--input", "x.txt", "--headless"}, ExitRuntime, "cannot read input"},
		{[]string{"--source", "surfacefling", "--headless"}, ExitUsage, "surfaceflinger"},
	}
	for _, c := range cases {
		_, errs, code := run(t, "", c.args...)
		if code != c.code || !strings.Contains(errs, c.msg) {
			t.Errorf("%q: exit %d (%s), want %d with %q", c.args, code, strings.TrimSpace(errs), c.code, c.msg)
		}
	}
}

// The game scenario through the headless CLI: the report names the source and the layer with
// the game metrics, the run-level numbers being the layer's.
func TestHeadlessGameScenario(t *testing.T) {
	out, errs, code := run(t, "", "--scenario", "game", "--hz", "120", "--headless", "--json", "--duration", "30s", "--speed", "0")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	r := decode(t, out)
	if r.Source != "sim" || len(r.Layers) != 1 || !r.Layers[0].Measured || !strings.Contains(r.Layers[0].Name, "(BLAST)") {
		t.Fatalf("source %q layers %+v", r.Source, r.Layers)
	}
	l := r.Layers[0]
	if l.CadenceRefreshes != 2 || l.P90FPS == nil || l.P99FPS == nil || l.FPSStabilityPct == nil ||
		r.Frames != l.Frames || r.JankyFrames != l.JankyFrames || *r.FPS != *l.FPS || len(r.Windows) != 0 {
		t.Errorf("report %+v, layer %+v", r, l)
	}
}
