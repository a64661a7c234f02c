// Command registry is the local cluster's OCI registry (see ../README.md): go-containerregistry's
// registry server behind HTTPS and Basic authentication, and the client that pushes the image
// archives of hack/images into it, so the node pulls images the way it does in production.
//
//	registry serve --addr 127.0.0.1:PORT --tls-cert FILE --tls-key FILE --credentials FILE --blobs DIR
//	registry push --archive FILE.tar --ref HOST:PORT/REPO:TAG --ca FILE --credentials FILE
//
// Both log one JSON object per line to stderr; `push` prints the pushed manifest digest on stdout.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
)

const usage = `usage:
  registry serve --addr HOST:PORT --tls-cert FILE --tls-key FILE --credentials FILE --blobs DIR [--debug]
  registry push --archive FILE.tar --ref HOST:PORT/REPO:TAG --ca FILE --credentials FILE`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main without the process around it: the exit code, 2 for a usage error.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "serve":
		err = serve(args[1:], stderr)
	case "push":
		err = push(args[1:], stdout, stderr)
	default:
		fmt.Fprintln(stderr, usage)
		return 2
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp), errors.Is(err, errUsage):
		fmt.Fprintln(stderr, usage)
		return 2
	default:
		newLogger(stderr, false).Error(args[0]+" failed", "error", err.Error())
		return 1
	}
}

// errUsage marks a missing or malformed flag (the flag package has printed the details).
var errUsage = errors.New("usage")

// newLogger: one JSON object per line, so the cluster's logs can be filtered with jq.
func newLogger(w io.Writer, debug bool) *slog.Logger {
	level := slog.LevelInfo
	if debug {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level}))
}

// parseFlags parses args into fs and requires every named flag to be set (none has a default).
func parseFlags(fs *flag.FlagSet, args []string, required ...string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "unexpected argument %q\n", fs.Arg(0))
		return errUsage
	}
	for _, name := range required {
		if fs.Lookup(name).Value.String() == "" {
			fmt.Fprintf(fs.Output(), "--%s is required\n", name)
			return errUsage
		}
	}
	return nil
}
