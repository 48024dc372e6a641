package plugins

// Bounds on what a plugin may send, checked by skillmux and kept by
// Serve. Past them a skill, a file or a message is left out and reported
// as a diagnostic.
const (
	// MaxFiles is the most files one skill may have, SKILL.md included
	// (the Skills extension's limit).
	MaxFiles = 512
	// MaxSkillBytes is the most bytes the files of one skill may hold
	// together (the Skills extension's limit), and so the most one file
	// may hold.
	MaxSkillBytes = 16 << 20
	// MaxSkills is the most skills one listing may hold.
	MaxSkills = 100_000
	// MaxIDBytes bounds a skill's id and a file's path.
	MaxIDBytes = 512
	// maxChunk is the most bytes of one FileChunk.
	maxChunk = 1 << 20
	// chunkSize is the size of the chunks Serve sends.
	chunkSize = 256 << 10
	// maxPageBytes is the size past which Serve starts a new page of a
	// listing; maxMessage is the largest message skillmux accepts.
	maxPageBytes  = 1 << 20
	maxPageSkills = 1000
	maxMessage    = 8 << 20
	// maxProblems bounds the problems kept of one listing, and
	// maxSkillDiagnostics those a plugin attaches to one skill.
	maxProblems         = 1000
	maxSkillDiagnostics = 50
	// maxText bounds a string of a diagnostic or a location, in bytes.
	maxText = 2048
)
