package main

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"os"
	"strings"
)

// credentials is the registry's one account, read from a file holding one `user:password` line
// (the file's path is what goes on command lines, never the password).
type credentials struct {
	user, password string
}

// readCredentials refuses a file that group or others can read, as ssh does with keys: the file
// is the secret, and a loose mode is a mistake worth stopping on.
func readCredentials(file string) (credentials, error) {
	info, err := os.Stat(file)
	if err != nil {
		return credentials{}, err
	}
	if mode := info.Mode().Perm(); mode&0o077 != 0 {
		return credentials{}, fmt.Errorf("credentials file %s has mode %04o: make it 0600", file, mode)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return credentials{}, err
	}
	line := strings.TrimSuffix(strings.TrimSuffix(string(data), "\n"), "\r")
	user, password, ok := strings.Cut(line, ":")
	if !ok || user == "" || password == "" || strings.ContainsAny(line, "\r\n") {
		return credentials{}, fmt.Errorf("credentials file %s: want one user:password line", file)
	}
	return credentials{user: user, password: password}, nil
}

// matches compares SHA-256 digests in constant time: equal lengths, so neither the content nor
// the length of the stored values shows in the time an answer takes; both comparisons always run.
func (c credentials) matches(user, password string) bool {
	gotUser, wantUser := sha256.Sum256([]byte(user)), sha256.Sum256([]byte(c.user))
	gotPassword, wantPassword := sha256.Sum256([]byte(password)), sha256.Sum256([]byte(c.password))
	userOK := subtle.ConstantTimeCompare(gotUser[:], wantUser[:])
	passwordOK := subtle.ConstantTimeCompare(gotPassword[:], wantPassword[:])
	return userOK&passwordOK == 1
}
