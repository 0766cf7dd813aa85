package ui

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

func TestListCursor(t *testing.T) {
	l := newList()
	if _, ok := l.Selected(); ok {
		t.Fatal("an empty list has a selection")
	}
	if _, act := l.Update(tea.KeyMsg{Type: tea.KeyEnter}); act != listMoved {
		t.Errorf("enter on an empty list: action %d, want listMoved (nothing to pick)", act)
	}
	l = l.SetLen(5)
	var act listAction
	l, act = l.Update(tea.KeyMsg{Type: tea.KeyUp})
	if i, _ := l.Selected(); i != 0 || act != listMoved {
		t.Errorf("↑ at the top: row %d", i)
	}
	for range 9 {
		l, _ = l.Update(tea.KeyMsg{Type: tea.KeyDown})
	}
	if i, _ := l.Selected(); i != 4 {
		t.Errorf("↓ past the end: row %d, want 4", i)
	}
	if start, end := l.Window(3); start != 2 || end != 5 {
		t.Errorf("window of 3 with the cursor on row 4: [%d, %d), want [2, 5)", start, end)
	}
	l = l.SetLen(2) // the rows changed under the cursor
	if i, ok := l.Selected(); !ok || i != 1 {
		t.Errorf("after shrinking to 2 rows: row %d", i)
	}
	if _, act := l.Update(tea.KeyMsg{Type: tea.KeyEnter}); act != listPicked {
		t.Errorf("enter: action %d, want listPicked", act)
	}
	if _, act := l.Update(tea.KeyMsg{Type: tea.KeyEsc}); act != listClosed {
		t.Errorf("esc: action %d, want listClosed", act)
	}
	if _, act := l.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("x")}); act != listNone {
		t.Errorf("x: action %d, want listNone", act)
	}
	if start, end := l.Window(0); start != 0 || end != 0 {
		t.Errorf("window of 0 rows: [%d, %d)", start, end)
	}
}
