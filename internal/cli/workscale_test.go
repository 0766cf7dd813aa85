package cli

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// A simulated run with --work-scale says so on the recording's first line and in an exported
// trace's metadata: a recording of a deliberately slowed build is never taken for the scenario
// as written. Scale 1 (the default) writes no work_scale.
func TestWorkScaleInHeaderAndTrace(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		scale string
		want  float64
	}{{"1.05", 1.05}, {"1", 0}} {
		rec := filepath.Join(dir, "run"+c.scale+".jsonl")
		if _, errs, code := run(t, "", "--scenario", "janky", "--work-scale", c.scale, "--headless", "--duration", "2s",
			"--speed", "0", "--record", rec); code != ExitOK {
			t.Fatalf("×%s: exit %d %s", c.scale, code, errs)
		}
		f, err := os.Open(rec)
		if err != nil {
			t.Fatal(err)
		}
		line, _ := bufio.NewReader(f).ReadBytes('\n')
		f.Close()
		var h struct {
			Type      string   `json:"type"`
			Scenario  string   `json:"scenario"`
			WorkScale *float64 `json:"work_scale"`
		}
		if err := json.Unmarshal(line, &h); err != nil {
			t.Fatal(err)
		}
		if got := h.WorkScale; h.Type != "header" || h.Scenario != "janky" || (c.want == 0) != (got == nil) || (got != nil && *got != c.want) {
			t.Errorf("×%s: line 1 %s", c.scale, line)
		}
		trace := filepath.Join(dir, "trace"+c.scale+".json")
		if _, errs, code := run(t, "", "export", rec, "--trace", trace); code != ExitOK {
			t.Fatalf("export: exit %d %s", code, errs)
		}
		b, err := os.ReadFile(trace)
		if err != nil {
			t.Fatal(err)
		}
		var tr struct {
			OtherData map[string]any `json:"otherData"`
		}
		if err := json.Unmarshal(b, &tr); err != nil {
			t.Fatal(err)
		}
		ws, ok := tr.OtherData["work_scale"]
		if tr.OtherData["scenario"] != "janky" || ok != (c.want != 0) || (ok && ws != c.want) {
			t.Errorf("×%s: trace metadata %v", c.scale, tr.OtherData)
		}
	}
}
