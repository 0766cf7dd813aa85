package gfxinfo

import (
	"math/rand"
	"strings"
	"syscall"
	"testing"
)

// TestRowFieldsGuardPage: rows whose rowPad bytes of padding end right at an unreadable page;
// a read past what padded guarantees would fault.
func TestRowFieldsGuardPage(t *testing.T) {
	ps := syscall.Getpagesize()
	mem, err := syscall.Mmap(-1, 0, 2*ps, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skip("mmap:", err)
	}
	defer syscall.Munmap(mem)
	if err := syscall.Mprotect(mem[ps:], syscall.PROT_NONE); err != nil {
		t.Skip("mprotect:", err)
	}
	page := mem[:ps:ps]
	rng := rand.New(rand.NewSource(6))
	for n := 0; n < 3000; n++ {
		w := 1 + rng.Intn(numCols-1)
		f := plainRow(rng, w)
		if n%7 == 0 {
			f[rng.Intn(w)] = "-1"
		}
		row := strings.Join(f, ",")
		if rng.Intn(2) == 0 {
			row += ","
		}
		row = row[:len(row)-rng.Intn(2)*rng.Intn(len(row))] // sometimes cut
		start := ps - rowPad - len(row)
		copy(page[start:], row)
		copy(page[ps-rowPad:], "\n"+strings.Repeat("7", rowPad-1))
		cols := make([]int, w)
		for i := range cols {
			cols[i] = colFlags + i
		}
		var r1, r2 [numCols]int64
		p := &parser{ps: &Parser{}}
		line := page[start : start+len(row) : ps]
		res := rowFields(p.padded(line), len(line), cols, &r1)
		if want := rowFieldsGo(page[start:], len(row), cols, &r2); res != want || r1 != r2 {
			t.Fatalf("rowFields(%q) = %d %v, rowFieldsGo %d %v", row, res, r1, want, r2)
		}
		if &p.padded(line)[0] != &page[start] {
			t.Fatal("a row with rowPad bytes after it was copied")
		}
	}
}
