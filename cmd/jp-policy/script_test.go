package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jp-policy/jp-policy/internal/enforcetest"
	"github.com/jp-policy/jp-policy/internal/jpdirs"
	"github.com/jp-policy/jp-policy/internal/nsroot"

	"github.com/jp-policy/jp-policy/internal/artifact"
	"github.com/jp-policy/jp-policy/internal/launcher"
	"github.com/jp-policy/jp-policy/internal/plan/landlock"
	sbplan "github.com/jp-policy/jp-policy/internal/plan/sbpl"
	"github.com/jp-policy/jp-policy/internal/platform"
	"github.com/jp-policy/jp-policy/internal/testfixture"
	"github.com/rogpeppe/go-internal/testscript"
)

var updateScripts = flag.Bool("update", false, "rewrite the expected output in testdata/scripts from the actual output")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"jp-policy": func() { unsetForScript(); noUsernsForTest(); main() },
	})
}

// unsetForScript removes the variables a script named with `unenv`
// (listed in TESTSCRIPT_UNSET) and still holds empty: testscript can set
// a variable but not unset one, and JP (so jp-policy) reads a JP_CFG_
// variable set to "" as an assignment of the empty value.
func unsetForScript() {
	for n := range strings.SplitSeq(os.Getenv("TESTSCRIPT_UNSET"), ",") {
		if n != "" && os.Getenv(n) == "" {
			os.Unsetenv(n)
		}
	}
	os.Unsetenv("TESTSCRIPT_UNSET")
}

// cmdUnenv unsets variables for the jp-policy commands that follow (until
// a later `env NAME=VALUE` sets them again; unsetForScript).
//
//	unenv NAME...
func cmdUnenv(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: unenv NAME...")
	}
	list := ts.Getenv("TESTSCRIPT_UNSET")
	for _, n := range args {
		ts.Setenv(n, "")
		list += "," + n
	}
	ts.Setenv("TESTSCRIPT_UNSET", list)
}

// noUsernsForTest: JP_POLICY_TEST_NO_USERNS=1 makes the binaries of the
// scripts behave as on a machine without user namespaces (the fallback's
// scripts). Only this test binary reads it.
func noUsernsForTest() {
	if os.Getenv("JP_POLICY_TEST_NO_USERNS") == "1" {
		nsroot.SetUnavailableForTest("JP_POLICY_TEST_NO_USERNS=1 (test only)")
	}
	// JP_POLICY_TEST_GIT_SCAN_LIMIT=N lowers the bound of the walk for
	// nested repositories (attack_ns_git_scan.txtar).
	if n, err := strconv.Atoi(os.Getenv("JP_POLICY_TEST_GIT_SCAN_LIMIT")); err == nil && n > 0 {
		jpdirs.SetGitScanLimitForTest(n)
	}
	// JP_POLICY_TEST_GIT_SCAN_MARGIN_MS=N lets the walk reuse the listing
	// of a directory changed N ms before the walk that read it
	// (attack_git_scan_cache.txtar: its trees are not seconds old).
	if n, err := strconv.Atoi(os.Getenv("JP_POLICY_TEST_GIT_SCAN_MARGIN_MS")); err == nil && n >= 0 {
		jpdirs.SetGitScanMarginForTest(time.Duration(n) * time.Millisecond)
	}
}

// TestScripts runs every testdata/scripts/*.txtar script against the real
// binary entry point. Scripts see $SHARED (the repository's ../shared, for
// JP's upstream fixture, used only by scripts that start with
// `[!upstream] skip`) and $GOOS; `fixture` copies the project's own JP
// workspace fixture into $WORK.
func TestScripts(t *testing.T) {
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join(repo, "testdata", "scripts"),
		UpdateScripts:       *updateScripts,
		RequireExplicitExec: true,
		// [landlock]: the kernel enforces what compiled manifests need
		// (Landlock ABI 6: scopes). Without it exec refuses, as it must,
		// so the scripts that prove enforcement skip instead, and
		// [userns] likewise for the namespaced path; a script that asks
		// fails instead when enforcement is required (enforcetest).
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "landlock":
				if abi := launcher.KernelABI(); abi < 6 {
					return false, enforcetest.Missing(fmt.Sprintf("[landlock]: the kernel has Landlock ABI %d, exec needs 6", abi))
				}
				return true, nil
			case "root":
				return os.Geteuid() == 0, nil
			case "userns":
				if ok, reason := nsroot.Available(); !ok {
					return false, enforcetest.Missing("[userns]: user namespaces unavailable: " + reason)
				}
				return true, nil
			case "hostsname":
				// [hostsname]: /etc/hosts maps a name other than
				// localhost to a loopback or private address (a
				// machine's own hostname usually), for the DNS attack
				// on the proxy.
				return hostsNonPublicName() != "", nil
			case "upstream":
				// [!upstream] skip: JP's own workspace config is beside
				// the repository in CI, not on a fresh clone.
				return testfixture.HaveUpstream(), nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"expand":    cmdExpand,
			"fixture":   cmdFixture,
			"normalize": cmdNormalize,
			"seal":      cmdSeal,
			"unenv":     cmdUnenv,
		},
		Setup: func(env *testscript.Env) error {
			// Scripts run as root here: one that wrote through a path it
			// took for sandboxed would damage the machine, and every
			// script after it would fail for no reason of its own.
			if err := devNullIntact(); err != nil {
				return err
			}
			env.Setenv("SHARED", filepath.Join(repo, "..", "shared"))
			env.Setenv("REPO", repo)
			env.Setenv("GOOS", runtime.GOOS)
			env.Setenv("HOSTSNAME", hostsNonPublicName())
			// Isolate every script from the developer's own JP config.
			env.Setenv("JP_GLOBAL_CONFIG_DIR", filepath.Join(env.WorkDir, ".jp-global"))
			env.Setenv("JP_USER_DATA_DIR", filepath.Join(env.WorkDir, ".jp-data"))
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(env.WorkDir, ".xdg-config"))
			env.Setenv("XDG_DATA_HOME", filepath.Join(env.WorkDir, ".xdg-data"))
			env.Setenv("NO_COLOR", "1")
			// Scripts that run the go command outside the sandbox share the
			// developer's build cache (a fresh one rebuilds the standard
			// library in every script); HOME is the script's own.
			env.Setenv("GOCACHE", goCache())
			return nil
		},
	})
}

// cmdExpand rewrites files in place, replacing $WORK, $SHARED, $REPO and
// any other ${VAR}/$VAR of the script's environment, so scripts can hold
// config, manifests and artifacts that need absolute paths.
//
//	expand FILE...
func cmdExpand(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! expand")
	}
	if len(args) == 0 {
		ts.Fatalf("usage: expand FILE...")
	}
	for _, name := range args {
		data := ts.ReadFile(name)
		out := os.Expand(data, func(key string) string {
			if strings.TrimSpace(key) == "" {
				return "$"
			}
			return ts.Getenv(key)
		})
		ts.Check(os.WriteFile(ts.MkAbs(name), []byte(out), 0o644))
	}
}

// cmdFixture copies the project's own JP workspace fixture
// (testdata/fixtures/jp-layout) into DIR under $WORK, so scripts may
// compile, approve and mount in it without touching the repository.
//
//	fixture DIR
func cmdFixture(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: fixture DIR")
	}
	src := testfixture.Own()
	dst := ts.MkAbs(args[0])
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
	ts.Check(err)
}

// digestRE matches the artifact's input digest, and hashRE every other
// SHA-256 in it (manifest and approvals hashes): the values that depend on
// where the script's $WORK is, or on when an approval was recorded.
var (
	digestRE = regexp.MustCompile(`"digest": "[0-9a-f]{64}"`)
	hashRE   = regexp.MustCompile(`": "[0-9a-f]{64}"`)
)

// cmdNormalize rewrites compiled files in place so they can be compared
// with goldens: the script's $WORK (and its parent) becomes the literal
// $WORK, input digests become <digest> and other hashes <sha256>, and a
// JSON file is indented (the per-tool files are written compact), so a
// golden reads one value per line.
//
//	normalize FILE...
func cmdNormalize(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: normalize FILE...")
	}
	work := ts.Getenv("WORK")
	for _, name := range args {
		data := ts.ReadFile(name)
		if strings.HasSuffix(name, ".json") {
			var b bytes.Buffer
			ts.Check(json.Indent(&b, []byte(data), "", "  "))
			data = b.String()
		}
		data = strings.ReplaceAll(data, work, "$WORK")
		// Profiles also name $WORK's parent (ancestors need metadata
		// access), which is as random as $WORK itself.
		data = strings.ReplaceAll(data, filepath.Dir(work), "$WORK/..")
		data = digestRE.ReplaceAllString(data, `"digest": "<digest>"`)
		data = hashRE.ReplaceAllString(data, `": "<sha256>"`)
		ts.Check(os.WriteFile(ts.MkAbs(name), []byte(data), 0o644))
	}
}

// cmdSeal makes a hand-written artifact look exactly as `jp-policy
// compile` leaves one: it records every listed manifest's hash in
// policy.json and pins policy.json in $JP_USER_DATA_DIR. Scripts that
// test the launcher on precise manifests use it after `expand`; a script
// that leaves it out proves that an unsealed artifact is refused.
//
//	seal DIR
func cmdSeal(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: seal DIR")
	}
	dir := ts.MkAbs(args[0])
	path := filepath.Join(dir, artifact.FileName)
	var doc map[string]any
	ts.Check(json.Unmarshal([]byte(ts.ReadFile(path)), &doc))
	tools, _ := doc["tools"].(map[string]any)
	for _, t := range tools {
		tool, _ := t.(map[string]any)
		manifests, _ := tool["manifests"].(map[string]any)
		sums := map[string]any{}
		for plat, rel := range manifests {
			p := filepath.Join(dir, filepath.FromSlash(rel.(string)))
			if _, err := os.Stat(p); err != nil {
				continue // a script may list a manifest it never writes
			}
			if plat == string(platform.Linux) {
				sealLandlock(ts, p)
			}
			sums[plat] = artifact.SHA256Hex([]byte(ts.ReadFile(p)))
		}
		tool["manifest_sha256"] = sums
		bases := map[string]any{}
		for plat, rel := range map[platform.Platform]string{platform.Linux: landlock.BaseFile, platform.Darwin: sbplan.BaseFile} {
			p := filepath.Join(dir, filepath.FromSlash(rel))
			if _, err := os.Stat(p); err != nil {
				// A hand-written manifest is whole: its shared base is
				// empty.
				ts.Check(os.MkdirAll(filepath.Dir(p), 0o755))
				empty := ""
				if plat == platform.Linux {
					empty = `{"version": ` + strconv.Itoa(landlock.FormatVersion) + `, "baseline": [], "clauses": []}`
				}
				ts.Check(os.WriteFile(p, []byte(empty), 0o644))
			}
			bases[string(plat)] = artifact.SHA256Hex([]byte(ts.ReadFile(p)))
		}
		tool["base_sha256"] = bases
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	ts.Check(err)
	ts.Check(os.WriteFile(path, out, 0o644))
	root, _ := doc["root"].(string)
	ts.Check(artifact.WritePin(ts.Getenv("JP_USER_DATA_DIR"), root, filepath.Join(dir, artifact.FileName), out))
}

// sealLandlock lays a hand-written Linux manifest out as compile does
// (landlock.SplitBase): its baseline, when it has one, moves into the
// shared base file beside it (created, or extended); every other key
// stays as written, absent ones absent, for the scripts that test how
// exec reads a manifest.
func sealLandlock(ts *testscript.TestScript, path string) {
	var m map[string]any
	ts.Check(json.Unmarshal([]byte(ts.ReadFile(path)), &m))
	own, ok := m["baseline"].([]any)
	if !ok || len(own) == 0 {
		return
	}
	basePath := filepath.Join(filepath.Dir(filepath.Dir(path)), filepath.FromSlash(landlock.BaseFile))
	base := map[string]any{"version": landlock.FormatVersion, "baseline": []any{}, "clauses": []any{}}
	if b, err := os.ReadFile(basePath); err == nil {
		ts.Check(json.Unmarshal(b, &base))
		if prev, _ := json.Marshal(base["baseline"]); string(prev) != "[]" {
			if now, _ := json.Marshal(own); string(now) != string(prev) {
				ts.Fatalf("seal: %s has another baseline than the other manifests", path)
			}
		}
	}
	base["baseline"] = own
	m["baseline"] = []any{}
	out, err := json.MarshalIndent(base, "", "  ")
	ts.Check(err)
	ts.Check(os.MkdirAll(filepath.Dir(basePath), 0o755))
	ts.Check(os.WriteFile(basePath, out, 0o644))
	out, err = json.MarshalIndent(m, "", "  ")
	ts.Check(err)
	ts.Check(os.WriteFile(path, out, 0o644))
}

// hostsNonPublicName is a name in /etc/hosts, other than localhost,
// that maps to a loopback or private address; "" when there is none.
func hostsNonPublicName() string {
	b, err := os.ReadFile("/etc/hosts")
	if err != nil {
		return ""
	}
	for line := range strings.Lines(string(b)) {
		line, _, _ = strings.Cut(line, "#")
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		a, err := netip.ParseAddr(f[0])
		if err != nil || !(a.IsLoopback() || a.IsPrivate()) {
			continue
		}
		for _, n := range f[1:] {
			n = strings.ToLower(strings.TrimSuffix(n, "."))
			if n != "localhost" && !strings.HasSuffix(n, ".localhost") && !strings.HasPrefix(n, "ip6-") {
				return n
			}
		}
	}
	return ""
}

// goCache is the go command's build cache as it resolves it: GOCACHE, or
// the user cache directory's go-build.
func goCache() string {
	if c := os.Getenv("GOCACHE"); c != "" {
		return c
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return "off"
	}
	return filepath.Join(dir, "go-build")
}

// devNullIntact reports /dev/null replaced (it was once found a symlink
// after a test run as root): a script that starts finds the machine as
// the scripts before it left it, and this names the damage instead of a
// hundred unrelated failures.
func devNullIntact() error {
	fi, err := os.Lstat("/dev/null")
	if err != nil || runtime.GOOS == "windows" {
		return nil
	}
	if fi.Mode()&os.ModeCharDevice == 0 {
		return fmt.Errorf("/dev/null is no longer a character device (%v): a script that ran before this one replaced it; restore it (mknod -m 666 /dev/null c 1 3) and find that script", fi.Mode())
	}
	return nil
}
