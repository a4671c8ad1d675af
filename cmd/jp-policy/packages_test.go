package main

import (
	"bufio"
	"fmt"
	"go/build"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/jp-policy/jp-policy/internal/testfixture"
)

const modulePath = "github.com/jp-policy/jp-policy"

// platforms are the GOOS values whose build-tagged files count: a Linux-only
// import is still an import of the package.
var platforms = []string{"linux", "darwin", "windows"}

// packageImports returns, for every package of the module (as a path
// relative to the module root), its non-test imports on any of platforms:
// jp-policy packages relative to the module root, anything else (not the
// standard library) as its import path.
func packageImports(t *testing.T, root string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if p != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		seen := map[string]bool{}
		found := false
		for _, goos := range platforms {
			ctx := build.Default
			ctx.GOOS, ctx.CgoEnabled = goos, false
			pkg, err := ctx.ImportDir(p, 0)
			if err != nil {
				if _, ok := err.(*build.NoGoError); ok {
					continue
				}
				return fmt.Errorf("%s (GOOS=%s): %w", rel, goos, err)
			}
			found = true
			for _, imp := range pkg.Imports {
				switch {
				case imp == modulePath || strings.HasPrefix(imp, modulePath+"/"):
					seen[strings.TrimPrefix(strings.TrimPrefix(imp, modulePath), "/")] = true
				case strings.Contains(strings.SplitN(imp, "/", 2)[0], "."):
					seen[imp] = true
				}
			}
		}
		if found {
			out[rel] = slices.Sorted(maps.Keys(seen))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// mapRow is one row of docs/packages.md's tables.
type mapRow struct {
	line    int
	imports []string // jp-policy packages and third-party paths
}

var backticked = regexp.MustCompile("`([^`]+)`")

// readPackageMap reads the table of docs/packages.md: rows of
// | `package` | what it owns | `import`, `import`, ... (or —) |, a
// jp-policy package relative to the module root, anything else by its
// import path.
//
// Rows of two cells, | `package` | `package`, ... |, are the second
// table: packages it must never depend on, even indirectly.
func readPackageMap(t *testing.T, path string) (rows, never map[string]mapRow) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, never = map[string]mapRow{}, map[string]mapRow{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		table := rows
		switch len(cells) {
		case 3:
		case 2:
			table = never
		default:
			t.Fatalf("%s:%d: a package row has three cells (package | owns | imports), or two (package | never depends on); this one has %d", path, n, len(cells))
		}
		m := backticked.FindStringSubmatch(cells[0])
		if m == nil {
			t.Fatalf("%s:%d: the first cell must name the package in backquotes", path, n)
		}
		if prev, dup := table[m[1]]; dup {
			t.Fatalf("%s:%d: %s already has a row at line %d", path, n, m[1], prev.line)
		}
		r := mapRow{line: n, imports: []string{}}
		for _, im := range backticked.FindAllStringSubmatch(cells[len(cells)-1], -1) {
			r.imports = append(r.imports, im[1])
		}
		table[m[1]] = r
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows, never
}

// allows reports whether the row entry e covers the import imp: exactly,
// or, for an entry ending in "/..." (go list's pattern), imp is that path
// or below it.
func allows(e, imp string) bool {
	if base, ok := strings.CutSuffix(e, "/..."); ok {
		return imp == base || strings.HasPrefix(imp, base+"/")
	}
	return e == imp
}

// TestPackageMap holds docs/packages.md to the import graph: every package
// has a row, every row is a package, and each package imports exactly the
// jp-policy packages and third-party modules its row lists (on any of
// linux, darwin and windows; tests' imports do not count).
func TestPackageMap(t *testing.T) {
	root := testfixture.Root()
	doc := filepath.Join(root, "docs", "packages.md")
	rows, _ := readPackageMap(t, doc)
	graph := packageImports(t, root)
	for _, pkg := range slices.Sorted(maps.Keys(graph)) {
		row, ok := rows[pkg]
		if !ok {
			t.Errorf("docs/packages.md: package %s has no row; add one: | `%s` | what it owns | what it imports |", pkg, pkg)
			continue
		}
		for _, imp := range graph[pkg] {
			if !slices.ContainsFunc(row.imports, func(e string) bool { return allows(e, imp) }) {
				t.Errorf("docs/packages.md:%d: %s imports %s, which its row does not list: remove the import, or add it to the row if the package map should change", row.line, pkg, imp)
			}
		}
		for _, e := range row.imports {
			if !slices.ContainsFunc(graph[pkg], func(imp string) bool { return allows(e, imp) }) {
				t.Errorf("docs/packages.md:%d: the row of %s lists %s, which %s does not import: remove it from the row", row.line, pkg, e, pkg)
			}
		}
	}
	for pkg, row := range rows {
		if _, ok := graph[pkg]; !ok {
			t.Errorf("docs/packages.md:%d: %s is not a package of the module (moved or removed?): update the row", row.line, pkg)
		}
	}
}

// TestPackageMapNeverDependsOn checks the second table of
// docs/packages.md against the whole import graph (what go list -deps
// shows): a package listed there reaches none of the packages its row
// names, through any chain of imports.
func TestPackageMapNeverDependsOn(t *testing.T) {
	root := testfixture.Root()
	_, never := readPackageMap(t, filepath.Join(root, "docs", "packages.md"))
	if len(never) == 0 {
		t.Fatal("docs/packages.md has no never-depends-on rows")
	}
	graph := packageImports(t, root)
	for pkg, row := range never {
		if _, ok := graph[pkg]; !ok {
			t.Errorf("docs/packages.md:%d: %s is not a package of the module: update the row", row.line, pkg)
			continue
		}
		// Breadth-first from pkg, remembering how each package was
		// reached, so a failure names the whole chain.
		from := map[string]string{pkg: ""}
		queue := []string{pkg}
		for len(queue) > 0 {
			cur := queue[0]
			queue = queue[1:]
			for _, imp := range graph[cur] {
				if _, seen := from[imp]; !seen {
					from[imp] = cur
					queue = append(queue, imp)
				}
			}
		}
		for _, banned := range row.imports {
			if _, ok := from[banned]; !ok {
				continue
			}
			chain := []string{banned}
			for p := from[banned]; p != ""; p = from[p] {
				chain = append([]string{p}, chain...)
			}
			t.Errorf("docs/packages.md:%d: %s must never depend on %s, but does: %s", row.line, pkg, banned, strings.Join(chain, " -> "))
		}
	}
}
