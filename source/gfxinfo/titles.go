// Window titles under damage: a window's title is printed up to three times (its view-root
// line, its "Window:" line and the view hierarchy at the end of the process); a damaged line
// must not name a window that does not exist.

package gfxinfo

import (
	"strings"
	"unicode/utf8"
)

// checkTitles confirms or repairs each window title of pr against its witnesses. Where the
// view-root line and the "Window:" line disagree, the one the view hierarchy confirms wins
// (repaired, with a warning); where nothing confirms either, the window is marked TitleSuspect.
func (p *parser) checkTitles(pr *Process) {
	titled, rooted, named := 0, 0, 0
	for wi := range pr.Windows {
		if pr.Windows[wi].Title != "" {
			titled++
		}
		if pr.Windows[wi].Root != "" {
			rooted++
		}
		if pr.Windows[wi].named {
			named++
		}
	}
	for wi := range pr.Windows {
		w := &pr.Windows[wi]
		if w.Rows == 0 && w.Summary == nil && len(w.torn) == 0 {
			continue // nothing reported for it
		}
		if w.rootDamaged && w.named {
			// Text after its id ("@1#2b30 (visibility=0)" read as id 1): the id may be cut or
			// hit, so it identifies nothing (as another id, it made a second memory of the
			// window, "….Main#2"); the "Window:" line still titles it.
			w.Root, w.rootTitle = "", ""
		}
		if w.named && w.Root != "" && runInAfter(w.Title, w.rootTitle) {
			// The "Window:" line is its view-root line's title with the next line run in
			// ("….FeedActivityStats since: 301234851223462ns"): both lines name the window.
			w.Title = w.rootTitle
			p.warn("window title damaged: repaired from its view-root line")
		}
		if (w.named && w.Title == "") || !cleanTitle(w.Title) || (w.rootDamaged && !w.named) {
			// Android never prints an empty "Window:" line (it was cut), nor a control byte
			// or broken UTF-8 in a title (garbage: one read "\xd3\tcom.example.app/.Popup").
			// A title only a damaged view-root line gives is no title either.
			p.suspect(w)
			continue
		}
		hier, inHier := pr.hier[w.Root]
		switch {
		case w.Root != "" && w.named:
			if w.Title == w.rootTitle {
				continue
			}
			switch {
			case inHier && hier == w.rootTitle:
				w.Title = w.rootTitle
			case inHier && hier == w.Title:
			default:
				p.suspect(w)
				continue
			}
			p.warn("window title damaged: repaired from the view hierarchy")
		case w.Root != "":
			// A root the hierarchy does not list, under a title it does not list either: both
			// damaged (one read "com.example.Wpp/.Popup …@1a2b" for "…app/.Popup …@1a2b31").
			// Nor is a title the hierarchy does not confirm believed when the window lost the
			// "Window:" line its process prints for its other windows, or when the process
			// printed a "View hierarchy:" whose lines were all hit: one read
			// "com.example.app/.MaiO/…@1a2b30" on a view-root line printed twice (the copy run
			// into the "Window:" line, both hierarchy lines cut) and named an invented window
			// (FuzzTrackerDamage).
			confirmed := inHier && hier == w.Title
			if (inHier && hier != w.Title) || (!inHier && len(pr.hier) > 0 && !hierHas(pr.hier, w.Title)) ||
				(!confirmed && (named > 0 || (len(pr.hier) == 0 && pr.hierarchy))) {
				p.suspect(w)
			}
		case w.named:
			// Its view-root line was damaged: only the hierarchy can confirm the title. (A
			// "View hierarchy:" whose lines were all hit confirms nothing: one read "Window:
			// com.examplk.app/.Popup" under a view-root line without its '@', both hierarchy
			// lines cut, and named an invented window.)
			if !hierHas(pr.hier, w.Title) && (len(pr.hier) > 0 || rooted > 0 || pr.hierarchy) {
				p.suspect(w)
			}
		default:
			// Untitled rows: a damaged view-root line, unless the process prints no titles at
			// all (Google's documentation samples).
			// A process that printed a "View hierarchy:" line titles its windows, and untitled
			// rows in a damaged dump may be a titled window's whose title lines were hit.
			switch {
			case titled > 0 || len(pr.hier) > 0 || pr.hierarchy:
				w.TitleSuspect = true
				p.warn("window with no title (no view-root or Window: line) in a dump that titles its windows")
			case p.damaged():
				w.TitleSuspect = true // (the tracker says what becomes of its rows)
			}
		}
	}
}

func (p *parser) suspect(w *Window) {
	w.TitleSuspect = true
	p.warn("window title damaged (its view-root line, Window: line and view hierarchy disagree)")
}

func hierHas(h map[string]string, title string) bool {
	for _, t := range h {
		if t == title {
			return true
		}
	}
	return false
}

// printable reports whether a window title is text Android could print: valid UTF-8 without
// control characters.
func printable(title string) bool {
	if !utf8.ValidString(title) {
		return false
	}
	for _, r := range title {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	return true
}

// damaged reports whether the dump so far showed damage (torn, cut or unreadable lines), as
// opposed to the notes a clean but unusual capture gets (a vendor column, rows without a
// header line).
func (p *parser) damaged() bool {
	for _, k := range p.warnKeys {
		if strings.Contains(k, "torn") || strings.Contains(k, "damaged") || strings.Contains(k, "unreadable") ||
			strings.Contains(k, "not closed") {
			return true
		}
	}
	return false
}

// runTogetherMarks are the starts of the lines printed after a title: one inside a title is
// a line run into the title's line (one read "com.exaStats since: 1000000ns"; another, a
// "Window:" line cut and the next window's run in, "com.exaWindow: com.example.app/.Popup").
// "Window: " has its space: a popup's own title is "PopupWindow:8a2f1c".
var runTogetherMarks = []string{"Stats since:", "Total frames rendered", "Janky frames", "---PROFILEDATA---",
	"Flags,", "View hierarchy:", "** Graphics info", "Window: "}

// runInAfter reports whether title is prefix (a title) followed at once by the start of a line
// printed after a title. (What follows is looked at first: it is nothing when the two agree, as
// they do dump after dump.)
func runInAfter(title, prefix string) bool {
	if prefix == "" || !strings.HasPrefix(title, prefix) {
		return false
	}
	for _, m := range runTogetherMarks {
		if strings.HasPrefix(title[len(prefix):], m) {
			return cleanTitle(prefix)
		}
	}
	return false
}

// cleanTitle reports whether title is printable and holds the start of no other line.
func cleanTitle(title string) bool { return printable(title) && !linesRunIn(title) }

// linesRunIn reports whether a title holds the start of another line.
func linesRunIn(title string) bool {
	for _, m := range runTogetherMarks {
		if strings.Contains(title, m) {
			return true
		}
	}
	return false
}
