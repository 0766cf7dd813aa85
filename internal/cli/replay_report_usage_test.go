package cli

import (
	"strings"
	"testing"
)

// TestBareReportNamesReport: `fpstop report` with no file says how to call report, not replay.
func TestBareReportNamesReport(t *testing.T) {
	_, errs, code := run(t, "", "report")
	if code != ExitUsage {
		t.Fatalf("exit %d, want %d", code, ExitUsage)
	}
	if !strings.Contains(errs, "fpstop report FILE") || strings.Contains(errs, "replay needs") {
		t.Errorf("stderr: %s", errs)
	}
}
