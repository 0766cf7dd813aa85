package capture

import (
	"fmt"

	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/source/gfxinfo"
)

// KeepRecordedPackage applies -p to a recording read with --input: nothing to do when it names
// the recorded app; a gfxinfo recording keeps that process's windows only (a recorded dump of
// every process); any other recording is of one app, so -p is ignored — and the report's
// warnings (and, headless, stderr) say so instead of silently reporting the recorded app.
func KeepRecordedPackage(src source.Source, kind source.Kind, recorded, pkg string) source.Source {
	switch {
	case pkg == "" || pkg == recorded:
		return src
	case kind == source.KindGfxinfo:
		return gfxinfo.KeepProcess(src, pkg)
	}
	if recorded == "" {
		recorded = "an app it does not name"
	}
	return source.Prefixed([]source.Event{&source.Notice{Level: source.LevelWarn,
		Text: fmt.Sprintf("-p %s: -p was ignored — the recording is of %s", pkg, recorded)}}, src)
}
