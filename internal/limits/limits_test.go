// Package limits holds the house's rules as tests. Size: no non-test .go function over
// MaxFuncLines lines and no non-test .go file over MaxFileLines lines, anywhere in the module
// except testdata/ and */fixture/ directories (table data belongs in var blocks or embedded
// files there). Flow (imports_test.go): no import against source → metrics → ui | record, and
// only device/ talks to adb. The tests run in `go test -short` too: they only parse files.
package limits

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const (
	// MaxFuncLines is the longest a non-test function may be, from `func` to its closing brace.
	MaxFuncLines = 100
	// MaxFileLines is the longest a non-test .go file may be.
	MaxFileLines = 700
)

// moduleRoot is the directory holding go.mod, found upwards from the test's directory.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the test's directory")
		}
		dir = parent
	}
}

// sources lists the module's non-test .go files outside the exempt directories.
func sources(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if p != root && (name == "testdata" || name == "fixture" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	return files
}

// violation is one rule broken.
type violation struct {
	where string // file, or file:func
	lines int
	limit int
}

// check parses every file and returns what breaks the rules.
func check(t *testing.T, root string) []violation {
	t.Helper()
	var out []violation
	fset := token.NewFileSet()
	for _, path := range sources(t, root) {
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		if n := fset.File(f.Pos()).LineCount(); n > MaxFileLines {
			out = append(out, violation{rel, n, MaxFileLines})
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
			if n > MaxFuncLines {
				out = append(out, violation{rel + ":" + funcName(fn), n, MaxFuncLines})
			}
		}
	}
	return out
}

func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	typ := fn.Recv.List[0].Type
	if s, ok := typ.(*ast.StarExpr); ok {
		typ = s.X
	}
	if ix, ok := typ.(*ast.IndexExpr); ok {
		typ = ix.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return id.Name + "." + fn.Name.Name
	}
	return fn.Name.Name
}

// pending are offenders their owners are splitting now (issue #10 names them). The list only
// shrinks: an entry that no longer breaks a rule is logged, to be deleted.
var pending = map[string]string{}

func TestSizeLimits(t *testing.T) {
	seen := map[string]bool{}
	for _, v := range check(t, moduleRoot(t)) {
		if who, ok := pending[v.where]; ok {
			seen[v.where] = true
			t.Logf("%s: %d lines, the limit is %d (being split: %s)", v.where, v.lines, v.limit, who)
			continue
		}
		t.Errorf("%s: %d lines, the limit is %d (split it by job; table data goes in a var block or an embedded file under testdata/ or fixture/)", v.where, v.lines, v.limit)
	}
	for where := range pending {
		if !seen[where] {
			t.Logf("%s is within the limits now: delete it from pending in internal/limits/limits_test.go", where)
		}
	}
}

// TestCheckFindsOffenders: the checker itself, on a file made to break both rules.
func TestCheckFindsOffenders(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("package x\n\nfunc long() {\n")
	for range MaxFuncLines {
		b.WriteString("\t_ = 1\n")
	}
	b.WriteString("}\n\nfunc short() {}\n")
	for range MaxFileLines {
		b.WriteString("\n")
	}
	write := func(name, text string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module x\n")
	write("x.go", b.String())
	write("x_test.go", b.String())       // tests are exempt
	write("testdata/x.go", b.String())   // so is testdata/
	write("ui/fixture/x.go", b.String()) // and fixture/
	got := check(t, dir)
	if len(got) != 2 || got[0].where != "x.go" || got[1].where != "x.go:long" || got[1].lines != MaxFuncLines+2 {
		t.Fatalf("check = %+v, want x.go (file) and x.go:long (%d lines)", got, MaxFuncLines+2)
	}
}
