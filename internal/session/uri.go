package session

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// ArtifactURIPrefix starts every artifact's URI: mcec://session/<sessionId>/<path>, the path
// relative to the session's artifact directory, slash-separated. MCP serves these as
// resources (resources/list, resources/read) to the client that called in the session.
const ArtifactURIPrefix = "mcec://session/"

// ArtifactURI is the URI of path, a file in the session's artifact directory.
func (s *Session) ArtifactURI(path string) (string, error) {
	dir, err := s.ArtifactDir()
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(dir, path)
	if err != nil || !filepath.IsLocal(rel) {
		return "", fmt.Errorf("%s is not in the session's artifact directory", path)
	}
	return ArtifactURIPrefix + s.id + "/" + filepath.ToSlash(rel), nil
}

// ParseArtifactURI splits an artifact URI into the session id and the path within its artifact
// directory (local: no "..", not absolute).
func ParseArtifactURI(uri string) (id, rel string, err error) {
	rest, ok := strings.CutPrefix(uri, ArtifactURIPrefix)
	if !ok {
		return "", "", fmt.Errorf("%q is not an mcec artifact URI (%s<sessionId>/<file>)", uri, ArtifactURIPrefix)
	}
	id, rel, ok = strings.Cut(rest, "/")
	if !ok || id == "" || rel == "" {
		return "", "", errors.New("an artifact URI names a session and a file: " + ArtifactURIPrefix + "<sessionId>/<file>")
	}
	if !filepath.IsLocal(filepath.FromSlash(rel)) || strings.Contains(rel, "\\") {
		return "", "", fmt.Errorf("%q is not a file inside the session's artifact directory", rel)
	}
	return id, filepath.FromSlash(rel), nil
}
