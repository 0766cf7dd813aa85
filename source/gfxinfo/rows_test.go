package gfxinfo

import (
	"reflect"
	"testing"

	"github.com/fpstop/fpstop/source"
)

// frameCopies copies every field of a row, as a whole copy of the frame with its window,
// process and phases replaced does: each field of source.Frame and source.Phases is set to a
// value of its own (a field added later and not copied fails here).
func TestFrameCopiesCopyEveryField(t *testing.T) {
	fill := func(v reflect.Value, seed int64) {
		for i := 0; i < v.NumField(); i++ {
			f := v.Field(i)
			switch f.Kind() {
			case reflect.Int64, reflect.Int:
				f.SetInt(seed*100 + int64(i) + 1)
			case reflect.Bool:
				f.SetBool(true)
			case reflect.String:
				f.SetString("field" + string(rune('a'+i)))
			case reflect.Pointer:
				// (Phases: set below)
			default:
				t.Fatalf("source.Frame field %s of kind %s: teach this test and frameCopies", v.Type().Field(i).Name, f.Kind())
			}
		}
	}
	w := &Window{Frames: make([]source.Frame, 4)}
	for i := range w.Frames {
		fill(reflect.ValueOf(&w.Frames[i]).Elem(), int64(i))
		if i != 2 {
			ph := &source.Phases{}
			fill(reflect.ValueOf(ph).Elem(), int64(i+10))
			w.Frames[i].Phases = ph
		}
	}
	idx := []int{3, 0, 2, 1}
	check := func(got []source.Frame) {
		t.Helper()
		for j, i := range idx {
			want := w.Frames[i]
			want.Window, want.Process = "title", "proc"
			g := got[j]
			if (g.Phases == nil) != (want.Phases == nil) || (g.Phases != nil && (*g.Phases != *want.Phases || g.Phases == want.Phases)) {
				t.Fatalf("row %d: phases %v, want a copy of %v", i, g.Phases, want.Phases)
			}
			g.Phases, want.Phases = nil, nil
			if g != want {
				t.Fatalf("row %d: copied as %+v, want %+v", i, g, want)
			}
		}
	}
	check(frameCopies(w, idx, "title", "proc"))
}
