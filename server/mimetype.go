package server

import (
	"bytes"
	"path"
	"strings"
	"unicode/utf8"
)

// mimeTypes maps the extensions found in skill folders to MIME types. The
// table is our own rather than the system's (mime.TypeByExtension reads
// /etc/mime.types), so that a file is typed the same on every machine.
var mimeTypes = map[string]string{
	".md": "text/markdown", ".markdown": "text/markdown", ".mdx": "text/markdown",
	".txt": "text/plain", ".text": "text/plain", ".log": "text/plain",
	".csv": "text/csv", ".tsv": "text/tab-separated-values",
	".html": "text/html", ".htm": "text/html", ".css": "text/css",
	".xml": "application/xml", ".xsd": "application/xml", ".xsl": "application/xml", ".svg": "image/svg+xml",
	".json": "application/json", ".jsonl": "application/jsonl", ".ipynb": "application/x-ipynb+json",
	".yaml": "application/yaml", ".yml": "application/yaml", ".toml": "application/toml",
	".js": "text/javascript", ".mjs": "text/javascript", ".cjs": "text/javascript", ".jsx": "text/javascript",
	".ts": "text/typescript", ".tsx": "text/typescript",
	".py": "text/x-python", ".sh": "text/x-shellscript", ".bash": "text/x-shellscript", ".zsh": "text/x-shellscript",
	".rb": "text/x-ruby", ".go": "text/x-go", ".rs": "text/x-rust", ".java": "text/x-java",
	".c": "text/x-c", ".h": "text/x-c", ".cpp": "text/x-c++", ".cc": "text/x-c++", ".hpp": "text/x-c++",
	".sql": "application/sql", ".ps1": "text/plain", ".bat": "text/plain",
	".pdf": "application/pdf", ".zip": "application/zip", ".gz": "application/gzip", ".tar": "application/x-tar",
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp", ".ico": "image/vnd.microsoft.icon",
	".ttf": "font/ttf", ".otf": "font/otf", ".woff": "font/woff", ".woff2": "font/woff2",
	".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
	".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
	".pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
	".wasm": "application/wasm", ".mp3": "audio/mpeg", ".wav": "audio/wav", ".mp4": "video/mp4",
}

// mimeByName returns the MIME type of a file by its name's extension, or
// "" when the table does not know it.
func mimeByName(name string) string {
	return mimeTypes[strings.ToLower(path.Ext(name))]
}

// mimeOf returns the MIME type of a skill file and whether its bytes go
// out as text. They do when they are valid UTF-8 without a NUL byte,
// whatever the name says, so that a client's bytes are the file's bytes;
// anything else goes out as a base64 blob. An unknown extension is
// text/plain for text and application/octet-stream otherwise.
func mimeOf(name string, data []byte) (mimeType string, text bool) {
	text = utf8.Valid(data) && bytes.IndexByte(data, 0) < 0
	mimeType = mimeByName(name)
	switch {
	case mimeType != "":
	case text:
		mimeType = "text/plain"
	default:
		mimeType = "application/octet-stream"
	}
	return mimeType, text
}
