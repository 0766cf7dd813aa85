// Window titles under damage: a window's title is printed up to three times (its view-root
// line, its "Window:" line and the view hierarchy at the end of the process); a damaged line
// must not name a window that does not exist.

package gfxinfo

// checkTitles confirms or repairs each window title of pr against its witnesses. Where the
// view-root line and the "Window:" line disagree, the one the view hierarchy confirms wins
// (repaired, with a warning); where nothing confirms either, the window is marked TitleSuspect.
func (p *parser) checkTitles(pr *Process) {
	titled, rooted := 0, 0
	for wi := range pr.Windows {
		if pr.Windows[wi].Title != "" {
			titled++
		}
		if pr.Windows[wi].Root != "" {
			rooted++
		}
	}
	for wi := range pr.Windows {
		w := &pr.Windows[wi]
		if w.Rows == 0 && w.Summary == nil && len(w.torn) == 0 {
			continue // nothing reported for it
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
			if inHier && hier != w.Title {
				p.suspect(w)
			}
		case w.named:
			// Its view-root line was damaged: only the hierarchy can confirm the title.
			if !hierHas(pr.hier, w.Title) && (len(pr.hier) > 0 || rooted > 0) {
				p.suspect(w)
			}
		default:
			// Untitled rows: a damaged view-root line, unless the process prints no titles at
			// all (Google's documentation samples).
			if titled > 0 || len(pr.hier) > 0 {
				p.suspect(w)
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
