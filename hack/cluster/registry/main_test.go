package main

import (
	"archive/tar"
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

func writeFile(t *testing.T, dir, name, content string, mode os.FileMode) string {
	t.Helper()
	file := filepath.Join(dir, name)
	if err := os.WriteFile(file, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	return file
}

func TestReadCredentials(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, content string
		mode          os.FileMode
		ok            bool
	}{
		{"good", "pgkeeper:s3cret\n", 0o600, true},
		{"no newline", "pgkeeper:s3cret", 0o600, true},
		{"colon in password", "pgkeeper:a:b\n", 0o600, true},
		{"readable by others", "pgkeeper:s3cret\n", 0o644, false},
		{"no colon", "pgkeeper\n", 0o600, false},
		{"empty password", "pgkeeper:\n", 0o600, false},
		{"two lines", "a:b\nc:d\n", 0o600, false},
	} {
		_, err := readCredentials(writeFile(t, dir, strings.ReplaceAll(tc.name, " ", "-"), tc.content, tc.mode))
		if (err == nil) != tc.ok {
			t.Errorf("%s: err = %v, want ok = %v", tc.name, err, tc.ok)
		}
	}
}

func TestMatches(t *testing.T) {
	c := credentials{user: "pgkeeper", password: "s3cret"}
	if !c.matches("pgkeeper", "s3cret") || c.matches("pgkeeper", "s3cre") ||
		c.matches("other", "s3cret") || c.matches("", "") {
		t.Fatal("matches accepts or refuses the wrong pairs")
	}
}

// testRegistry: the guarded registry on an httptest TLS server, its CA in a file, credentials
// pgkeeper:s3cret, and a count of the writes it received.
type testRegistry struct {
	*httptest.Server
	ca, creds string
	writes    atomic.Int64
}

func newTestRegistry(t *testing.T) *testRegistry {
	t.Helper()
	dir := t.TempDir()
	r := &testRegistry{creds: writeFile(t, dir, "credentials", "pgkeeper:s3cret\n", 0o600)}
	blobs, err := newBlobStore(filepath.Join(dir, "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewJSONHandler(io.Discard, nil))
	creds, err := readCredentials(r.creds)
	if err != nil {
		t.Fatal(err)
	}
	g := &guard{creds: creds, registry: newRegistryHandler(blobs, log), log: log}
	r.Server = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method != http.MethodGet && req.Method != http.MethodHead {
			r.writes.Add(1)
		}
		g.ServeHTTP(w, req)
	}))
	t.Cleanup(r.Close)
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: r.Certificate().Raw})
	r.ca = writeFile(t, dir, "ca.crt", string(certPEM), 0o644)
	return r
}

func (r *testRegistry) host() string { return strings.TrimPrefix(r.URL, "https://") }

// do sends a request (with Basic credentials when user is not empty) and returns the status and
// the WWW-Authenticate header.
func (r *testRegistry) do(t *testing.T, method, path, user, password string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, r.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if user != "" {
		req.SetBasicAuth(user, password)
	}
	resp, err := r.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("WWW-Authenticate")
}

func TestAccessRule(t *testing.T) {
	r := newTestRegistry(t)
	const challenge = `Basic realm="pgkeeper-registry"`
	for _, tc := range []struct {
		method, path, user, password string
		status                       int
	}{
		{"GET", "/v2/", "", "", 200},
		{"GET", "/v2/", "pgkeeper", "s3cret", 200},
		{"GET", "/v2/", "pgkeeper", "wrong", 401},
		{"GET", "/v2/pgkeeper/postgres/manifests/15", "", "", 404}, // anonymous, absent
		{"GET", "/v2/pgkeeper/postgres/manifests/15", "pgkeeper", "wrong", 401},
		{"GET", "/v2/private/postgres/manifests/15", "", "", 401},
		{"HEAD", "/v2/private/postgres/manifests/15", "", "", 401},
		{"GET", "/v2/private/postgres/tags/list", "", "", 401},
		{"GET", "/v2/private/postgres/manifests/15", "pgkeeper", "s3cret", 404},
		{"GET", "/v2/_catalog", "", "", 401},
		{"POST", "/v2/pgkeeper/postgres/blobs/uploads/", "", "", 401},
		{"DELETE", "/v2/pgkeeper/postgres/manifests/15", "", "", 401},
		{"GET", "/v2//private/postgres/manifests/15", "", "", 400},
		{"GET", "/v2/x/../private/postgres/manifests/15", "", "", 400},
		{"GET", "/v2/private/blobs/sha256:" + strings.Repeat("0", 64), "", "", 401},
	} {
		status, header := r.do(t, tc.method, tc.path, tc.user, tc.password)
		if status != tc.status {
			t.Errorf("%s %s (user %q): status %d, want %d", tc.method, tc.path, tc.user, status, tc.status)
		}
		if status == 401 && header != challenge {
			t.Errorf("%s %s: WWW-Authenticate %q, want %q", tc.method, tc.path, header, challenge)
		}
	}
}

// writeArchive makes an OCI image layout tar like hack/images/lib.sh's pack_image.
func writeArchive(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	img, err := random.Image(1024, 2)
	if err != nil {
		t.Fatal(err)
	}
	p, err := layout.Write(filepath.Join(dir, "layout"), empty.Index)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.AppendImage(img); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	if err := tw.AddFS(os.DirFS(string(p))); err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return writeFile(t, dir, "image.tar", buf.String(), 0o644)
}

func pushTo(t *testing.T, r *testRegistry, archive, ref string) (string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := push([]string{"--archive", archive, "--ref", ref, "--ca", r.ca, "--credentials", r.creds},
		&stdout, &stderr)
	return strings.TrimSpace(stdout.String()), err
}

func TestPush(t *testing.T) {
	r := newTestRegistry(t)
	archive := writeArchive(t)
	want, err := archiveDigest(archive)
	if err != nil {
		t.Fatal(err)
	}
	ref := r.host() + "/private/postgres:15"
	got, err := pushTo(t, r, archive, ref)
	if err != nil || got != want.String() {
		t.Fatalf("push: digest %q, err %v; want %s", got, err, want)
	}
	if status, _ := r.do(t, "GET", "/v2/private/postgres/manifests/15", "", ""); status != 401 {
		t.Errorf("anonymous GET of the pushed private manifest: %d, want 401", status)
	}
	if status, _ := r.do(t, "GET", "/v2/private/postgres/manifests/15", "pgkeeper", "s3cret"); status != 200 {
		t.Errorf("GET of the pushed private manifest with credentials: %d, want 200", status)
	}
	// Private blobs are not reachable through a public repository's name.
	if status, _ := r.do(t, "GET", "/v2/pgkeeper/postgres/manifests/"+want.String(), "", ""); status != 404 {
		t.Errorf("the private manifest read through a public repository: %d, want 404", status)
	}

	writes := r.writes.Load()
	if got, err := pushTo(t, r, archive, ref); err != nil || got != want.String() {
		t.Fatalf("second push: digest %q, err %v", got, err)
	}
	if n := r.writes.Load() - writes; n != 0 {
		t.Errorf("second push of the same image wrote %d times, want 0", n)
	}
}

func TestPushLabelled(t *testing.T) {
	r := newTestRegistry(t)
	archive := writeArchive(t)
	plain, err := archiveDigest(archive)
	if err != nil {
		t.Fatal(err)
	}
	ref := r.host() + "/pgkeeper/postgres:15-next"
	push := func() (string, error) {
		var stdout, stderr bytes.Buffer
		err := push([]string{"--archive", archive, "--ref", ref, "--ca", r.ca, "--credentials", r.creds,
			"--label", "dev.pgkeeper.build=next"}, &stdout, &stderr)
		return strings.TrimSpace(stdout.String()), err
	}
	got, err := push()
	if err != nil || got == plain.String() || !strings.HasPrefix(got, "sha256:") {
		t.Fatalf("labelled push: digest %q (the archive's is %s), err %v; want another digest", got, plain, err)
	}
	options, err := remoteOptions(pushOptions{ca: r.ca, credentials: r.creds})
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := name.ParseReference(ref, name.StrictValidation)
	if err != nil {
		t.Fatal(err)
	}
	img, err := remote.Image(parsed, options...)
	if err != nil {
		t.Fatal(err)
	}
	if cfg, err := img.ConfigFile(); err != nil || cfg.Config.Labels["dev.pgkeeper.build"] != "next" {
		t.Fatalf("the pushed config's labels: %v (err %v); want dev.pgkeeper.build=next", cfg.Config.Labels, err)
	}
	writes := r.writes.Load()
	if again, err := push(); err != nil || again != got {
		t.Fatalf("second labelled push: digest %q, err %v; want %s", again, err, got)
	}
	if n := r.writes.Load() - writes; n != 0 {
		t.Errorf("second labelled push wrote %d times, want 0", n)
	}
}

func TestPushRefusesALabelWithoutValue(t *testing.T) {
	var stdout, stderr bytes.Buffer
	err := push([]string{"--archive", "a", "--ref", "r", "--ca", "c", "--credentials", "x", "--label", "novalue"},
		&stdout, &stderr)
	if !errors.Is(err, errUsage) || !strings.Contains(stderr.String(), "is not KEY=VALUE") {
		t.Fatalf("err %v, stderr %q; want a usage error naming the label", err, stderr.String())
	}
}

func TestPushRefusesWrongCA(t *testing.T) {
	r := newTestRegistry(t)
	r.ca = writeFile(t, t.TempDir(), "other-ca.crt", selfSignedPEM(t), 0o644)
	if _, err := pushTo(t, r, writeArchive(t), r.host()+"/pgkeeper/postgres:15"); err == nil {
		t.Fatal("push succeeded against a certificate its CA did not sign")
	}
	if n := r.writes.Load(); n != 0 {
		t.Errorf("%d writes reached the registry", n)
	}
}

func TestExtractRefusesEscapes(t *testing.T) {
	for _, name := range []string{"../evil", "/etc/evil", "blobs/../../evil"} {
		var buf bytes.Buffer
		tw := tar.NewWriter(&buf)
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: 1, Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		_, _ = tw.Write([]byte("x"))
		_ = tw.Close()
		dir := t.TempDir()
		archive := writeFile(t, dir, "a.tar", buf.String(), 0o644)
		out := filepath.Join(dir, "out")
		if err := extractArchive(archive, out); err == nil {
			t.Errorf("%s: extracted", name)
		}
	}
}

// selfSignedPEM: a certificate for 127.0.0.1 that no test server uses (they all share
// httptest's), to stand for a wrong CA.
func selfSignedPEM(t *testing.T) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "other CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}
