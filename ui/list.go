package ui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// listKeyMap are the keys every picker list shares.
type listKeyMap struct {
	Up, Down, Pick, Close key.Binding
}

func defaultListKeys() listKeyMap {
	return listKeyMap{
		Up:    key.NewBinding(key.WithKeys("up"), key.WithHelp("↑", "previous")),
		Down:  key.NewBinding(key.WithKeys("down"), key.WithHelp("↓", "next")),
		Pick:  key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "choose")),
		Close: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "close")),
	}
}

// listAction is what a key did to a list.
type listAction int

const (
	listNone   listAction = iota // not a list key
	listMoved                    // the cursor moved (or stayed at an end)
	listPicked                   // enter on a row
	listClosed                   // esc
)

// listModel is the cursor both pickers share: a selection over n rows, moved by ↑/↓, kept in
// range when the rows change, and a window of rows that keeps it in view.
type listModel struct {
	keys listKeyMap
	n    int
	sel  int
}

func newList() listModel { return listModel{keys: defaultListKeys()} }

// SetLen sets the number of rows, keeping the cursor on a row.
func (l listModel) SetLen(n int) listModel {
	l.n = n
	l.sel = max(0, min(l.sel, n-1))
	return l
}

// Select puts the cursor on row i (kept in range).
func (l listModel) Select(i int) listModel {
	l.sel = max(0, min(i, l.n-1))
	return l
}

// Reset puts the cursor on the first row.
func (l listModel) Reset() listModel { l.sel = 0; return l }

// Selected is the cursor's row; ok is false when the list is empty.
func (l listModel) Selected() (int, bool) { return l.sel, l.sel < l.n }

// Update applies a key and says what it did.
func (l listModel) Update(msg tea.KeyMsg) (listModel, listAction) {
	switch {
	case key.Matches(msg, l.keys.Close):
		return l, listClosed
	case key.Matches(msg, l.keys.Up):
		l.sel = max(0, l.sel-1)
		return l, listMoved
	case key.Matches(msg, l.keys.Down):
		l.sel = max(0, min(l.n-1, l.sel+1))
		return l, listMoved
	case key.Matches(msg, l.keys.Pick):
		if l.sel < l.n {
			return l, listPicked
		}
		return l, listMoved
	}
	return l, listNone
}

// Window is the rows [start, end) to show in h lines so the cursor is visible.
func (l listModel) Window(h int) (start, end int) {
	if h <= 0 {
		return 0, 0
	}
	if l.sel >= h {
		start = l.sel - h + 1
	}
	return start, min(l.n, start+h)
}
