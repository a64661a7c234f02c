package main

import (
	"log/slog"
	"net/http"
	"path"
	"strings"
	"time"
)

const (
	realm = "pgkeeper-registry"
	// Repositories under this prefix are read with credentials only.
	privatePrefix = "private/"
)

func isPrivate(repository string) bool {
	return repository+"/" == privatePrefix || strings.HasPrefix(repository, privatePrefix)
}

// needsCredentials is the access rule: every write, reads of private repositories, and the
// catalog (it would list the private repositories' names). Other reads are anonymous, `/v2/`
// included: the spec's version check must succeed for a client that may read without logging in.
// containerd never calls it anyway (1.6 goes straight to HEAD .../manifests/<tag> and answers a
// 401 Basic challenge with the pull secret's credentials).
func needsCredentials(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return true
	}
	rest := strings.TrimPrefix(r.URL.Path, "/v2/")
	return rest == "_catalog" || isPrivate(rest)
}

// canonicalPath refuses paths that clean to another one (`/v2//private/x/...`,
// `/v2/a/../private/x/...`): the access rule and go-containerregistry must read the same
// repository name out of a path. One trailing slash is part of the API (`/v2/`, `.../uploads/`).
func canonicalPath(p string) bool {
	trimmed := strings.TrimSuffix(p, "/")
	return path.Clean(trimmed) == trimmed
}

// guard puts the access rule in front of the registry and logs one line per request.
type guard struct {
	creds    credentials
	registry http.Handler
	log      *slog.Logger
}

func (g *guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rec := &recorder{ResponseWriter: w, status: http.StatusOK}
	client := g.route(rec, r)
	// The path carries repository, tag, digest or upload id; never a secret (the query, which
	// holds only digests, is left out to keep lines short).
	g.log.Info("request", "method", r.Method, "path", r.URL.Path, "status", rec.status,
		"bytes", rec.bytes, "ms", time.Since(start).Milliseconds(), "client", client,
		"remote", r.RemoteAddr)
}

// route answers r itself when the rule refuses it, else hands it to the registry; it returns who
// asked, for the log: "anonymous", the user name, or "rejected" (wrong or unusable credentials).
func (g *guard) route(w http.ResponseWriter, r *http.Request) string {
	if !canonicalPath(r.URL.Path) {
		writeError(w, r, http.StatusBadRequest, "NAME_INVALID", "path is not canonical")
		return "-"
	}
	client, ok := g.identify(r)
	switch {
	case !ok:
		// Wrong credentials are refused even where none are needed: a client checking its
		// login (GET /v2/ with them) must learn that they are wrong.
		challenge(w, r, "invalid credentials")
	case client == "anonymous" && needsCredentials(r):
		challenge(w, r, "authentication required")
	default:
		g.registry.ServeHTTP(w, r)
	}
	return client
}

// identify: anonymous without an Authorization header, the user for valid Basic credentials,
// false for anything else (another scheme, a wrong user or password).
func (g *guard) identify(r *http.Request) (string, bool) {
	if r.Header.Get("Authorization") == "" {
		return "anonymous", true
	}
	user, password, ok := r.BasicAuth()
	if !ok || !g.creds.matches(user, password) {
		return "rejected", false
	}
	return user, true
}

func challenge(w http.ResponseWriter, r *http.Request, message string) {
	w.Header().Set("WWW-Authenticate", `Basic realm="`+realm+`"`)
	writeError(w, r, http.StatusUnauthorized, "UNAUTHORIZED", message)
}

// writeError answers in the distribution spec's error format. code and message are constants of
// this file, never request input, so they need no JSON escaping.
func writeError(w http.ResponseWriter, r *http.Request, status int, code, message string) {
	body := `{"errors":[{"code":"` + code + `","message":"` + message + `"}]}` + "\n"
	w.Header().Set("Docker-Distribution-API-Version", "registry/2.0")
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write([]byte(body))
	}
}

// recorder keeps the status and size of an answer for the request log.
type recorder struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (r *recorder) WriteHeader(status int) {
	r.status = status
	r.ResponseWriter.WriteHeader(status)
}

func (r *recorder) Write(b []byte) (int, error) {
	n, err := r.ResponseWriter.Write(b)
	r.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the connection's own writer.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
