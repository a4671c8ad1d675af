package netproxy

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/jp-policy/jp-policy/internal/policy"
)

// clientEnv is a clean environment with only the proxy variables, so the
// host's own proxy settings cannot interfere.
func clientEnv(proxy string) []string {
	return append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.TempDir()}, Env(proxy)...)
}

func need(t *testing.T, prog string) string {
	p, err := exec.LookPath(prog)
	if err != nil {
		t.Skipf("%s is not installed", prog)
	}
	return p
}

func TestCurl(t *testing.T) {
	curl := need(t, "curl")
	checkNoLeak(t)
	_, port := origin(t)
	echo := echoServer(t, "tcp", "127.0.0.1:0")
	proxy, _ := startProxy(t, []policy.NetRule{
		{Host: "localhost", Scheme: new("http"), Port: u16(port), PathPrefix: new("/api/"), Allow: true},
		{Host: "127.0.0.1", Port: u16(port), Allow: true},
	}, nil)
	base := "http://localhost:" + strconv.Itoa(port)
	run := func(args ...string) (string, int) {
		cmd := exec.Command(curl, append([]string{"-sS", "--max-time", "10", "-w", "\n%{http_code}"}, args...)...)
		cmd.Env = clientEnv(proxy)
		out, _ := cmd.CombinedOutput()
		s := strings.TrimSpace(string(out))
		i := strings.LastIndexByte(s, '\n')
		code, _ := strconv.Atoi(s[i+1:])
		return s[:max(i, 0)], code
	}
	for _, tc := range []struct {
		args     []string
		code     int
		contains string
	}{
		{[]string{base + "/api/x"}, 200, "path=/api/x"},
		{[]string{base + "/other"}, 403, "no rule matches"},
		{[]string{"http://localhost:" + strconv.Itoa(port+1) + "/api/x"}, 403, "denied"},
		// -p tunnels plain http through CONNECT: decided as a tunnel.
		{[]string{"-p", "http://127.0.0.1:" + strconv.Itoa(port) + "/x"}, 200, "path=/x"},
		{[]string{"--proxy", "socks5h://" + proxy, "http://127.0.0.1:" + strconv.Itoa(port) + "/s"}, 200, "path=/s"},
		{[]string{"--proxy", "socks5h://" + proxy, "http://127.0.0.1:" + strconv.Itoa(portOf(t, echo.Addr())) + "/"}, 0, "SOCKS"},
	} {
		out, code := run(tc.args...)
		if code != tc.code || !strings.Contains(out, tc.contains) {
			t.Errorf("curl %s: %d %q; want %d containing %q", strings.Join(tc.args, " "), code, out, tc.code, tc.contains)
		}
	}
}

func TestPythonURLLib(t *testing.T) {
	py := need(t, "python3")
	checkNoLeak(t)
	_, port := origin(t)
	proxy, _ := startProxy(t, []policy.NetRule{
		{Host: "localhost", Scheme: new("http"), Port: u16(port), PathPrefix: new("/api/"), Allow: true},
	}, nil)
	const script = `
import sys, urllib.request, urllib.error
try:
    print(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())
except urllib.error.HTTPError as e:
    print(e.code, e.read().decode())
`
	for _, tc := range []struct{ url, want string }{
		{"http://localhost:" + strconv.Itoa(port) + "/api/x", "path=/api/x"},
		{"http://localhost:" + strconv.Itoa(port) + "/other", "403 jp-policy proxy: denied"},
	} {
		cmd := exec.Command(py, "-c", script, tc.url)
		cmd.Env = clientEnv(proxy)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), tc.want) {
			t.Errorf("python3 urllib %s: %v %q; want %q", tc.url, err, out, tc.want)
		}
	}
}

// git ls-remote over dumb HTTP through the proxy: a bare repository
// served by a Go file server after `git update-server-info`.
func TestGitLsRemote(t *testing.T) {
	git := need(t, "git")
	checkNoLeak(t)
	dir := t.TempDir()
	gitRun := func(args ...string) string {
		cmd := exec.Command(git, args...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	work := filepath.Join(dir, "work")
	gitRun("init", "-q", "-b", "main", work)
	os.WriteFile(filepath.Join(work, "f"), []byte("x"), 0o644)
	gitRun("-C", work, "add", "f")
	gitRun("-C", work, "commit", "-q", "-m", "c")
	bare := filepath.Join(dir, "srv", "repo.git")
	gitRun("clone", "-q", "--bare", work, bare)
	gitRun("-C", bare, "update-server-info")
	head := strings.TrimSpace(gitRun("-C", bare, "rev-parse", "HEAD"))

	srv, port := origin(t)
	srv.Config.Handler = http.FileServer(http.Dir(filepath.Join(dir, "srv")))
	proxy, _ := startProxy(t, []policy.NetRule{
		{Host: "localhost", Port: u16(port), PathPrefix: new("/repo.git"), Allow: true},
	}, nil)
	lsRemote := func(url string) (string, error) {
		cmd := exec.Command(git, "ls-remote", url)
		cmd.Env = append(clientEnv(proxy), "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := lsRemote("http://localhost:" + strconv.Itoa(port) + "/repo.git")
	if err != nil || !strings.Contains(out, head+"\trefs/heads/main") {
		t.Errorf("allowed ls-remote: %v\n%s", err, out)
	}
	out, err = lsRemote("http://localhost:" + strconv.Itoa(port) + "/other.git")
	if err == nil || !strings.Contains(out, "403") {
		t.Errorf("refused ls-remote: %v\n%s", err, out)
	}
}
