package main

import (
	"archive/tar"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

type pushOptions struct {
	archive, ref, ca, credentials, label string
}

func parsePushFlags(args []string, stderr io.Writer) (pushOptions, error) {
	var o pushOptions
	fs := flag.NewFlagSet("push", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.archive, "archive", "", "OCI image layout tar with one image (hack/images)")
	fs.StringVar(&o.ref, "ref", "", "where to push it: HOST:PORT/REPOSITORY:TAG")
	fs.StringVar(&o.ca, "ca", "", "CA certificate (PEM) the registry's certificate must chain to")
	fs.StringVar(&o.credentials, "credentials", "", "file with one user:password line (mode 0600)")
	fs.StringVar(&o.label, "label", "", "optional KEY=VALUE added to the image's config labels: "+
		"another build of the same file system, under another digest")
	if err := parseFlags(fs, args, "archive", "ref", "ca", "credentials"); err != nil {
		return o, err
	}
	if o.label != "" && !strings.Contains(o.label, "=") {
		fmt.Fprintf(stderr, "--label %q is not KEY=VALUE\n", o.label)
		return o, errUsage
	}
	return o, nil
}

// push uploads the archive's image under the reference and prints its manifest digest. Idempotent:
// nothing is uploaded when the tag already names that digest, and remote.Write skips the blobs
// the registry has.
func push(args []string, stdout, stderr io.Writer) error {
	o, err := parsePushFlags(args, stderr)
	if err != nil {
		return err
	}
	ref, err := name.ParseReference(o.ref, name.StrictValidation) // an explicit tag, no docker.io default
	if err != nil {
		return err
	}
	options, err := remoteOptions(o)
	if err != nil {
		return err
	}
	if o.label != "" {
		return pushLabelled(ref, o, options, stdout)
	}
	want, err := archiveDigest(o.archive)
	if err != nil {
		return err
	}
	// A tag that is absent (404) or different is simply written below, where real errors surface.
	if desc, err := remote.Head(ref, options...); err == nil && desc.Digest == want {
		fmt.Fprintln(stdout, want)
		return nil
	}
	dir, img, err := archiveImage(o.archive)
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := remote.Write(ref, img, options...); err != nil {
		return err
	}
	fmt.Fprintln(stdout, want)
	return nil
}

// pushLabelled pushes the archive's image with one more config label: the same layers under a new
// config and manifest digest, as a rebuild of the same file system would be. The e2e tier's minor
// upgrade rolls a Database onto such a second build. Idempotent like push.
func pushLabelled(ref name.Reference, o pushOptions, options []remote.Option, stdout io.Writer) error {
	dir, img, err := archiveImage(o.archive)
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	cfg, err := img.ConfigFile()
	if err != nil {
		return err
	}
	cfg = cfg.DeepCopy()
	key, value, _ := strings.Cut(o.label, "=")
	if cfg.Config.Labels == nil {
		cfg.Config.Labels = map[string]string{}
	}
	cfg.Config.Labels[key] = value
	labelled, err := mutate.ConfigFile(img, cfg)
	if err != nil {
		return err
	}
	want, err := labelled.Digest()
	if err != nil {
		return err
	}
	if desc, err := remote.Head(ref, options...); err != nil || desc.Digest != want {
		if err := remote.Write(ref, labelled, options...); err != nil {
			return err
		}
	}
	fmt.Fprintln(stdout, want)
	return nil
}

// remoteOptions: Basic credentials, verified TLS with only the given CA, plain HTTP refused.
func remoteOptions(o pushOptions) ([]remote.Option, error) {
	creds, err := readCredentials(o.credentials)
	if err != nil {
		return nil, err
	}
	transport, err := httpsTransport(o.ca)
	if err != nil {
		return nil, err
	}
	return []remote.Option{
		remote.WithContext(context.Background()),
		remote.WithTransport(transport),
		remote.WithAuth(&authn.Basic{Username: creds.user, Password: creds.password}),
		remote.WithUserAgent("pgkeeper-registry-push"),
	}, nil
}

// archiveImage unpacks the archive into a scratch directory (go-containerregistry reads an image
// layout from a directory only), which the caller removes, and reads its image.
func archiveImage(archive string) (string, v1.Image, error) {
	dir, err := os.MkdirTemp("", "pgkeeper-push-")
	if err != nil {
		return "", nil, err
	}
	if err := extractArchive(archive, dir); err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	img, err := layoutImage(dir)
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	return dir, img, nil
}

// httpsTransport trusts the given CA only (not the system's roots) and refuses plain HTTP:
// go-containerregistry falls back to http:// for registries named localhost or 127.x, which would
// put the credentials on the wire in clear.
func httpsTransport(caFile string) (http.RoundTripper, error) {
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("no PEM certificate in %s", caFile)
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	return httpsOnly{t}, nil
}

type httpsOnly struct{ inner http.RoundTripper }

func (h httpsOnly) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Scheme != "https" {
		return nil, fmt.Errorf("refusing %s://%s: the registry is spoken to over HTTPS only", r.URL.Scheme, r.URL.Host)
	}
	return h.inner.RoundTrip(r)
}

// archiveDigest reads the digest of the archive's one manifest from its index.json, which
// pack_image writes second (after oci-layout), so the layers are not read.
func archiveDigest(archive string) (v1.Hash, error) {
	f, err := os.Open(archive)
	if err != nil {
		return v1.Hash{}, err
	}
	defer f.Close()
	tr := tar.NewReader(f)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return v1.Hash{}, fmt.Errorf("%s: no index.json (not an OCI image layout archive)", archive)
		}
		if err != nil {
			return v1.Hash{}, err
		}
		if filepath.Clean(hdr.Name) != "index.json" {
			continue
		}
		index, err := v1.ParseIndexManifest(tr)
		if err != nil {
			return v1.Hash{}, fmt.Errorf("%s: index.json: %w", archive, err)
		}
		return onlyManifest(archive, index)
	}
}

// onlyManifest: the archives of hack/images hold exactly one image; anything else is refused
// rather than guessed at.
func onlyManifest(where string, index *v1.IndexManifest) (v1.Hash, error) {
	if len(index.Manifests) != 1 || !index.Manifests[0].MediaType.IsImage() {
		return v1.Hash{}, fmt.Errorf("%s: want one image manifest in index.json, found %d entries",
			where, len(index.Manifests))
	}
	return index.Manifests[0].Digest, nil
}

func layoutImage(dir string) (v1.Image, error) {
	p, err := layout.FromPath(dir)
	if err != nil {
		return nil, err
	}
	index, err := p.ImageIndex()
	if err != nil {
		return nil, err
	}
	manifest, err := index.IndexManifest()
	if err != nil {
		return nil, err
	}
	digest, err := onlyManifest(dir, manifest)
	if err != nil {
		return nil, err
	}
	return index.Image(digest)
}

// extractArchive unpacks an image layout tar: directories and regular files only, each inside dir
// (an absolute name, `..` or a link is refused).
func extractArchive(archive, dir string) error {
	f, err := os.Open(archive)
	if err != nil {
		return err
	}
	defer f.Close()
	tr := tar.NewReader(f)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := extractEntry(tr, hdr, dir); err != nil {
			return fmt.Errorf("%s: %s: %w", archive, hdr.Name, err)
		}
	}
}

func extractEntry(r io.Reader, hdr *tar.Header, dir string) error {
	if !filepath.IsLocal(hdr.Name) {
		return errors.New("name outside the archive's root")
	}
	target := filepath.Join(dir, hdr.Name)
	switch hdr.Typeflag {
	case tar.TypeDir:
		return os.MkdirAll(target, 0o755)
	case tar.TypeReg:
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		out, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, r); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	default:
		return fmt.Errorf("unexpected entry type %q", hdr.Typeflag)
	}
}
