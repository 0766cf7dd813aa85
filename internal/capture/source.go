package capture

import (
	"io"
	"os"

	"github.com/fpstop/fpstop/internal/exit"
	"github.com/fpstop/fpstop/record"
	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/source/gfxinfo"
	"github.com/fpstop/fpstop/source/logcat"
	"github.com/fpstop/fpstop/source/perfetto"
	"github.com/fpstop/fpstop/source/surfaceflinger"
)

// Options are how an input is read, from the flags.
type Options struct {
	// Source is --source: auto detects the kind from the content; gfxinfo, logcat and
	// surfaceflinger say what the input is.
	Source  string
	Package string  // -p
	Raw     bool    // keep the raw text (--record-raw)
	Speed   float64 // a recording's replay speed (0: as fast as possible)
}

// Input is an input ready to run as a source.
type Input struct {
	Src  source.Source
	Kind string // the --source it runs as
}

// Open reads name (- for stdin): a gfxinfo dump, logcat text, SurfaceFlinger text, a Perfetto
// trace or a recording, detected from the content unless o.Source says (then the content is not
// looked at first: a pipe starts at once). The closer (nil only when nothing was opened) is
// closed once the run is over.
func Open(name string, stdin io.Reader, o Options) (*Input, io.Closer, error) {
	br, c, err := openInput(name, stdin)
	if err != nil {
		return nil, nil, exit.RuntimeErr(err)
	}
	var kind Kind
	switch o.Source {
	case "gfxinfo":
		kind = Gfxinfo // the user says what it is; its reader judges the lines
	case "logcat":
		kind = Logcat
	case "gfxinfo+logcat":
		return nil, c, exit.Usagef("--source gfxinfo+logcat needs a device; for files, run fpstop once per capture")
	case "surfaceflinger":
		kind = SurfaceFlinger // its reader says in one line what it cannot use
	default:
		if kind, err = detectKind(br, name); err != nil {
			return nil, c, exit.RuntimeErr(err)
		}
	}
	switch kind {
	case SurfaceFlinger:
		return &Input{Src: surfaceflinger.FromReader(br, name, o.Package), Kind: "surfaceflinger"}, c, nil
	case Gfxinfo:
		src := gfxinfo.FromReader(br, name)
		if isRegular(c) {
			// read through a mapping of the file, not copied by read(2) (gfxinfo/mapped.go)
			src = gfxinfo.FromFile(name)
		}
		if o.Package != "" {
			// a dump of every process: only -p's windows (or a warning that it has none)
			src = gfxinfo.KeepProcess(src, o.Package)
		}
		return &Input{Src: src, Kind: "gfxinfo"}, c, nil
	case Logcat:
		return &Input{Src: logcat.FromReader(br, logcat.Options{Name: name, Package: o.Package, Raw: o.Raw}), Kind: "logcat"}, c, nil
	case Perfetto:
		return &Input{Src: perfetto.FromReader(br, perfetto.Options{Name: name, Package: o.Package}), Kind: "perfetto"}, c, nil
	default:
		if name == "-" {
			return nil, c, exit.Usagef("a recording cannot be read from stdin: pass its file name (or use fpstop replay FILE)")
		}
		in, err := Replay(name, o.Speed, o.Package)
		return in, c, err
	}
}

// Replay opens a recording as a source; -p (pkg) is applied as KeepRecordedPackage says.
func Replay(path string, speed float64, pkg string) (*Input, error) {
	rp, err := record.NewReplay(path, record.ReplayOptions{Speed: speed})
	if err != nil {
		return nil, exit.RuntimeErr(err)
	}
	h := rp.Header()
	return &Input{Src: KeepRecordedPackage(rp, h.Source, h.Package, pkg), Kind: string(h.Source)}, nil
}

// isRegular reports whether c (Detect's closer) is a regular file: one that can be opened
// again by its name and read from its start (not stdin, a pipe or a device).
func isRegular(c io.Closer) bool {
	f, ok := c.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode().IsRegular()
}
