package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// shutdownGrace is how long requests in flight may finish after SIGTERM; below cluster.sh's 15 s
// between SIGTERM and SIGKILL, so a stop is always clean.
const shutdownGrace = 10 * time.Second

type serveOptions struct {
	addr, cert, key, credentials, blobs string
	debug                               bool
}

func parseServeFlags(args []string, stderr io.Writer) (serveOptions, error) {
	var o serveOptions
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.addr, "addr", "", "HOST:PORT to listen on (HTTPS only)")
	fs.StringVar(&o.cert, "tls-cert", "", "serving certificate (PEM)")
	fs.StringVar(&o.key, "tls-key", "", "its private key (PEM)")
	fs.StringVar(&o.credentials, "credentials", "", "file with one user:password line (mode 0600)")
	fs.StringVar(&o.blobs, "blobs", "", "directory of the blobs (manifests live in memory)")
	fs.BoolVar(&o.debug, "debug", false, "also log go-containerregistry's own lines")
	err := parseFlags(fs, args, "addr", "tls-cert", "tls-key", "credentials", "blobs")
	return o, err
}

// serve runs the registry until SIGTERM or SIGINT, then lets requests in flight finish.
func serve(args []string, stderr io.Writer) error {
	o, err := parseServeFlags(args, stderr)
	if err != nil {
		return err
	}
	log := newLogger(stderr, o.debug)
	srv, err := newServer(o, log)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	served := make(chan error, 1)
	go func() { served <- srv.ServeTLS(ln, "", "") }()
	log.Info("listening", "addr", ln.Addr().String(), "blobs", o.blobs)
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	log.Info("stopping")
	shutdown, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		return err
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	log.Info("stopped")
	return nil
}

// newServer: the registry behind the access rule, TLS 1.2 or later with the given key pair. Files
// are read before listening, so a bad one fails `up` at once.
func newServer(o serveOptions, log *slog.Logger) (*http.Server, error) {
	creds, err := readCredentials(o.credentials)
	if err != nil {
		return nil, err
	}
	cert, err := tls.LoadX509KeyPair(o.cert, o.key)
	if err != nil {
		return nil, err
	}
	blobs, err := newBlobStore(o.blobs)
	if err != nil {
		return nil, err
	}
	return &http.Server{
		Handler:   &guard{creds: creds, registry: newRegistryHandler(blobs, log), log: log},
		TLSConfig: &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{cert}},
		// No read or write timeout: a layer of a few hundred MB may take a while.
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}, nil
}

// newRegistryHandler: go-containerregistry's registry on our blob store. Its own lines (one per
// request, like the guard's) are debug output. Manifests live in its memory: a restarted registry
// is empty until the next push (cluster.sh up pushes every time).
func newRegistryHandler(blobs *blobStore, log *slog.Logger) http.Handler {
	return registry.New(registry.WithBlobHandler(blobs),
		registry.Logger(slog.NewLogLogger(log.Handler(), slog.LevelDebug)))
}

// diskBlobs is what go-containerregistry's disk handler implements (its constructor returns the
// narrower BlobHandler).
type diskBlobs interface {
	registry.BlobHandler
	registry.BlobStatHandler
	registry.BlobPutHandler
	registry.BlobDeleteHandler
}

// blobStore keeps the private repositories' blobs apart from the others. The disk handler keys a
// blob by its digest alone, whatever the repository: one store would let anyone read a private
// image's layers anonymously through a public repository's name, given their digests.
type blobStore struct {
	public, private diskBlobs
}

func newBlobStore(dir string) (*blobStore, error) {
	var s blobStore
	for _, part := range []struct {
		name string
		into *diskBlobs
	}{{"public", &s.public}, {"private", &s.private}} {
		sub := filepath.Join(dir, part.name)
		// The disk handler writes uploads into its directory before renaming them: it must exist.
		if err := os.MkdirAll(sub, 0o700); err != nil {
			return nil, err
		}
		h, ok := registry.NewDiskBlobHandler(sub).(diskBlobs)
		if !ok {
			return nil, errors.New("go-containerregistry's disk blob handler lacks Stat, Put or Delete")
		}
		*part.into = h
	}
	return &s, nil
}

func (s *blobStore) pick(repo string) diskBlobs {
	if isPrivate(repo) {
		return s.private
	}
	return s.public
}

func (s *blobStore) Get(ctx context.Context, repo string, h v1.Hash) (io.ReadCloser, error) {
	return s.pick(repo).Get(ctx, repo, h)
}

func (s *blobStore) Stat(ctx context.Context, repo string, h v1.Hash) (int64, error) {
	return s.pick(repo).Stat(ctx, repo, h)
}

func (s *blobStore) Put(ctx context.Context, repo string, h v1.Hash, rc io.ReadCloser) error {
	return s.pick(repo).Put(ctx, repo, h, rc)
}

func (s *blobStore) Delete(ctx context.Context, repo string, h v1.Hash) error {
	return s.pick(repo).Delete(ctx, repo, h)
}
