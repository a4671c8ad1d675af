package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// notLinked are packages jp-policy must not link on any platform.
// net/http (with crypto/tls, x509, mime and http2's tables) would add its
// initialisation to every command's start-up, for nothing but the
// namespaced exec path's proxy, which has its own HTTP/1.1 front end
// (internal/netproxy, docs/netproxy.md).
var notLinked = []string{"net/http", "crypto/tls", "crypto/x509", "mime/multipart"}

// TestNoNetHTTP keeps net/http and crypto/tls out of jp-policy on every
// platform it is built for, and names the importer when one appears.
func TestNoNetHTTP(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("needs the go command")
	}
	for _, goos := range []string{"linux", "darwin", "windows"} {
		cmd := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}}:{{join .Imports " "}}`, ".")
		cmd.Env = append(os.Environ(), "GOOS="+goos, "CGO_ENABLED=0")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("GOOS=%s go list: %v", goos, err)
		}
		isBad := func(p string) bool {
			for _, bad := range notLinked {
				if p == bad || strings.HasPrefix(p, bad+"/") {
					return true
				}
			}
			return false
		}
		for line := range strings.Lines(string(out)) {
			pkg, imports, _ := strings.Cut(strings.TrimSpace(line), ":")
			if isBad(pkg) {
				continue // report the way in, not what follows
			}
			for imp := range strings.FieldsSeq(imports) {
				if isBad(imp) {
					t.Errorf("GOOS=%s: %s imports %s", goos, pkg, imp)
				}
			}
		}
	}
}
